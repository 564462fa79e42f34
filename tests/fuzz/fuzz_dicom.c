/*
 * fuzz_dicom.c - libFuzzer target for the DICOM side in C (dicom/, pcwt_dicom.h): pixel-module
 * validation, the native Pixel Data length rule, frame layout and the Basic Offset Table.
 *
 * The DCMTK carrier read (DPCWTFileFormat) is fuzz_dicom_file.cc's: this target stays free of
 * DCMTK and reaches these rules directly, with any values.
 *
 * Input layout (little endian; missing bytes read as zero):
 *   0 rows u16, 2 columns u16, 4 samples u8, 5 bits allocated u8, 6 bits stored u8, 7 high bit u8,
 *   8 pixel representation u8, 9 planar configuration u8, 10 flags u8 (bit 0: planar present),
 *   11 photometric u8, 12 frames u32, 16 Pixel Data value length u32,
 *   20 offset table part: frames u8, fragments u8, fragment lengths u16 each, then the BOT value.
 *
 * Invariants (a violation aborts): the PCWT verdict of validate agrees with frame_bytes and
 * image_desc, JPEG-LS acceptance implies PCWT acceptance, the length rule accepts exactly the
 * total or total + 1 for odd totals, planar <-> interleaved round trips, masking leaves values
 * clean, offset tables built by bot_offsets/bot_encode decode to themselves, and the fragments
 * found for a frame lie inside the fragment list.
 */
#include "pcwt_dicom.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NAME "fuzz_dicom"
#include "fuzz_check.h"

/* frames up to this size are laid out and copied (bigger ones are only validated) */
#define FUZZ_MAX_FRAME_BYTES ((uint64_t)1 << 16)

static uint32_t get(const uint8_t *d, size_t size, size_t at, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; ++i)
        v |= (uint32_t)(at + i < size ? d[at + i] : 0u) << (8 * i);
    return v;
}

static void fuzz_module(const uint8_t *data, size_t size)
{
    pcwt_dicom_pixel_module m;
    memset(&m, 0, sizeof m);
    m.rows = get(data, size, 0, 2);
    m.columns = get(data, size, 2, 2);
    m.samples_per_pixel = get(data, size, 4, 1);
    m.bits_allocated = get(data, size, 5, 1);
    m.bits_stored = get(data, size, 6, 1);
    m.high_bit = get(data, size, 7, 1);
    m.pixel_representation = get(data, size, 8, 1);
    m.planar_configuration = get(data, size, 9, 1);
    m.has_planar_configuration = (int)(get(data, size, 10, 1) & 1u);
    m.photometric = (pcwt_dicom_photometric)(get(data, size, 11, 1) % (PCWT_PI_CMYK + 1));
    m.number_of_frames = get(data, size, 12, 4);
    const uint64_t value_length = get(data, size, 16, 4);

    char msg[256];
    const pcwt_dicom_status st = pcwt_dicom_validate(&m, PCWT_DICOM_TARGET_PCWT, msg, sizeof msg);
    FUZZ_CHECK(memchr(msg, '\0', sizeof msg) != NULL);
    FUZZ_CHECK(st == PCWT_DICOM_OK || msg[0] != '\0'); /* every refusal says why */
    const pcwt_dicom_status stj = pcwt_dicom_validate(&m, PCWT_DICOM_TARGET_JPEGLS, msg, sizeof msg);
    FUZZ_CHECK(stj != PCWT_DICOM_OK || st == PCWT_DICOM_OK);
    const uint64_t frame = pcwt_dicom_frame_bytes(&m);
    FUZZ_CHECK((st == PCWT_DICOM_OK) == (frame != 0));

    const pcwt_dicom_status sl = pcwt_dicom_check_native_length(&m, value_length, msg, sizeof msg);
    if (st != PCWT_DICOM_OK) {
        FUZZ_CHECK(sl == st);
        return;
    }
    const uint64_t total = pcwt_dicom_pixel_bytes(&m);
    FUZZ_CHECK(total == frame * m.number_of_frames && total <= PCWT_DICOM_MAX_VALUE_LENGTH);
    const int exact = value_length == total || ((total & 1u) && value_length == total + 1);
    FUZZ_CHECK((sl == PCWT_DICOM_OK) == exact);
    FUZZ_CHECK(sl == PCWT_DICOM_OK || sl == PCWT_DICOM_MISMATCH);

    pcwt_image_desc desc;
    FUZZ_CHECK(pcwt_dicom_image_desc(&m, &desc) == PCWT_DICOM_OK);
    FUZZ_CHECK(pcwt_image_size(&desc) == frame);
    if (frame > FUZZ_MAX_FRAME_BYTES)
        return;

    /* exactly sized buffers: ASan reports any access past the frame */
    const size_t n = (size_t)frame;
    uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n);
    FUZZ_CHECK(a && b && c);
    for (size_t i = 0; i < n; ++i)
        a[i] = size ? data[i % size] : 0;
    size_t bad = 0;
    (void)pcwt_dicom_high_bits_clean(&desc, a, &bad);
    pcwt_image_desc masked = desc;
    masked.planar = 0;
    masked.is_signed = 0;
    pcwt_dicom_mask_to_bits_stored(&masked, a, b);
    FUZZ_CHECK(pcwt_dicom_high_bits_clean(&masked, b, NULL) == 1);
    if (desc.components == 3) {
        const size_t pixels = (size_t)desc.width * desc.height;
        const unsigned bps = desc.bits_allocated / 8u;
        pcwt_dicom_planar_to_interleaved(a, b, pixels, bps);
        pcwt_dicom_interleaved_to_planar(b, c, pixels, bps);
        FUZZ_CHECK(memcmp(a, c, n) == 0);
    }
    free(a);
    free(b);
    free(c);
}

static void fuzz_offset_table(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    const uint64_t frames = data[0];
    const size_t fragments = data[1];
    data += 2;
    size -= 2;
    uint64_t lengths[256];
    for (size_t i = 0; i < fragments; ++i)
        lengths[i] = get(data, size, 2 * i, 2);
    const size_t used = 2 * fragments < size ? 2 * fragments : size;
    data += used;
    size -= used;

    /* the table of a file: whatever the rest of the input holds, exactly that long */
    uint32_t offsets[256];
    uint8_t *value = malloc(size ? size : 1);
    FUZZ_CHECK(value != NULL);
    if (size)
        memcpy(value, data, size);
    int present = 0;
    const pcwt_dicom_status st = pcwt_dicom_bot_decode(value, size, frames, offsets, &present);
    free(value);
    if (st != PCWT_DICOM_OK)
        FUZZ_CHECK(st == PCWT_DICOM_CORRUPT);
    for (uint64_t f = 0; f < frames; ++f) {
        size_t first = 0, count = 0;
        const pcwt_dicom_status fs =
            pcwt_dicom_frame_fragments(st == PCWT_DICOM_OK && present ? offsets : NULL, frames,
                                       lengths, fragments, f, &first, &count);
        if (fs == PCWT_DICOM_OK)
            FUZZ_CHECK(count >= 1 && first < fragments && count <= fragments - first);
        else
            FUZZ_CHECK(fs == PCWT_DICOM_CORRUPT);
    }

    /* the table PCWT writes for these fragments decodes to itself */
    if (fragments == 0)
        return;
    uint32_t built[256], back[256];
    uint8_t encoded[4 * 256];
    FUZZ_CHECK(pcwt_dicom_bot_offsets(lengths, fragments, built) == PCWT_DICOM_OK);
    pcwt_dicom_bot_encode(built, fragments, encoded);
    FUZZ_CHECK(pcwt_dicom_bot_decode(encoded, 4u * fragments, fragments, back, &present) ==
               PCWT_DICOM_OK);
    FUZZ_CHECK(present == 1 && memcmp(built, back, 4u * fragments) == 0);
    for (size_t f = 0; f < fragments; ++f) {
        size_t first = 0, count = 0;
        FUZZ_CHECK(pcwt_dicom_frame_fragments(back, fragments, lengths, fragments, f, &first,
                                              &count) == PCWT_DICOM_OK);
        FUZZ_CHECK(first == f && count == 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_module(data, size);
    if (size > 20)
        fuzz_offset_table(data + 20, size - 20);
    return 0;
}
