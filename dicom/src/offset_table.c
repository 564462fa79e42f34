/* offset_table.c - the Basic Offset Table of encapsulated pixel data (DICOM PS3.5 A.4). */
#include "pcwt_dicom.h"

pcwt_dicom_status pcwt_dicom_bot_offsets(const uint64_t *fragment_lengths, size_t count,
                                         uint32_t *offsets)
{
    uint64_t pos = 0;
    for (size_t i = 0; i < count; ++i) {
        if (pos > UINT32_MAX)
            return PCWT_DICOM_TOO_LARGE;
        offsets[i] = (uint32_t)pos;
        const uint64_t len = fragment_lengths[i];
        if (len > PCWT_DICOM_MAX_VALUE_LENGTH)
            return PCWT_DICOM_TOO_LARGE;
        pos += 8u + len + (len & 1u); /* item tag and length, value, pad byte */
    }
    return PCWT_DICOM_OK;
}

void pcwt_dicom_bot_encode(const uint32_t *offsets, size_t count, uint8_t *out)
{
    for (size_t i = 0; i < count; ++i) {
        out[4 * i] = (uint8_t)(offsets[i] & 0xFFu);
        out[4 * i + 1] = (uint8_t)((offsets[i] >> 8) & 0xFFu);
        out[4 * i + 2] = (uint8_t)((offsets[i] >> 16) & 0xFFu);
        out[4 * i + 3] = (uint8_t)(offsets[i] >> 24);
    }
}

pcwt_dicom_status pcwt_dicom_bot_decode(const uint8_t *value, uint64_t length, uint64_t frames,
                                        uint32_t *offsets, int *present)
{
    *present = 0;
    if (length == 0)
        return PCWT_DICOM_OK;
    if (frames == 0 || length / 4u != frames || length % 4u != 0 || !value)
        return PCWT_DICOM_CORRUPT;
    for (uint64_t i = 0; i < frames; ++i) {
        const uint8_t *p = value + 4 * i;
        offsets[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24;
        if (i == 0 ? offsets[0] != 0 : offsets[i] < offsets[i - 1])
            return PCWT_DICOM_CORRUPT;
    }
    *present = 1;
    return PCWT_DICOM_OK;
}

/* Index of the fragment starting at byte offset `target` of the sequence, or `fragments` if none. */
static size_t fragment_at(const uint64_t *lengths, size_t fragments, uint64_t target)
{
    uint64_t pos = 0;
    for (size_t j = 0; j < fragments; ++j) {
        if (pos == target)
            return j;
        if (pos > target)
            break;
        pos += 8u + lengths[j] + (lengths[j] & 1u); /* an odd item is written padded */
    }
    return fragments;
}

pcwt_dicom_status pcwt_dicom_frame_fragments(const uint32_t *offsets, uint64_t frames,
                                             const uint64_t *fragment_lengths, size_t fragments,
                                             uint64_t frame, size_t *first, size_t *count)
{
    if (frames == 0 || frame >= frames || fragments == 0)
        return PCWT_DICOM_CORRUPT;
    if ((uint64_t)fragments == frames) {
        *first = (size_t)frame;
        *count = 1;
        return PCWT_DICOM_OK;
    }
    if (offsets) {
        const size_t a = fragment_at(fragment_lengths, fragments, offsets[frame]);
        if (a >= fragments)
            return PCWT_DICOM_CORRUPT;
        size_t b = fragments;
        if (frame + 1 < frames) {
            b = fragment_at(fragment_lengths, fragments, offsets[frame + 1]);
            if (b >= fragments || b <= a)
                return PCWT_DICOM_CORRUPT;
        }
        *first = a;
        *count = b - a;
        return PCWT_DICOM_OK;
    }
    if (frames == 1) {
        *first = 0;
        *count = fragments;
        return PCWT_DICOM_OK;
    }
    return PCWT_DICOM_CORRUPT;
}
