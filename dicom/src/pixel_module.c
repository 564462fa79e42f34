/* pixel_module.c - the image pixel module: photometric terms, validation, sizes, descriptor. */
#include "pcwt_dicom.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    pcwt_dicom_photometric pi;
    const char *name;
} k_photometric[] = {
    {PCWT_PI_MONOCHROME1, "MONOCHROME1"},     {PCWT_PI_MONOCHROME2, "MONOCHROME2"},
    {PCWT_PI_PALETTE_COLOR, "PALETTE COLOR"}, {PCWT_PI_RGB, "RGB"},
    {PCWT_PI_YBR_FULL, "YBR_FULL"},           {PCWT_PI_YBR_FULL_422, "YBR_FULL_422"},
    {PCWT_PI_YBR_PARTIAL_422, "YBR_PARTIAL_422"}, {PCWT_PI_YBR_PARTIAL_420, "YBR_PARTIAL_420"},
    {PCWT_PI_YBR_ICT, "YBR_ICT"},             {PCWT_PI_YBR_RCT, "YBR_RCT"},
    {PCWT_PI_HSV, "HSV"},                     {PCWT_PI_ARGB, "ARGB"},
    {PCWT_PI_CMYK, "CMYK"},
};

pcwt_dicom_photometric pcwt_dicom_photometric_from_string(const char *value)
{
    if (!value)
        return PCWT_PI_UNKNOWN;
    while (*value == ' ')
        ++value;
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\0'))
        --n;
    for (size_t i = 0; i < sizeof k_photometric / sizeof k_photometric[0]; ++i) {
        if (strlen(k_photometric[i].name) == n && memcmp(k_photometric[i].name, value, n) == 0)
            return k_photometric[i].pi;
    }
    return PCWT_PI_UNKNOWN;
}

const char *pcwt_dicom_photometric_name(pcwt_dicom_photometric pi)
{
    for (size_t i = 0; i < sizeof k_photometric / sizeof k_photometric[0]; ++i) {
        if (k_photometric[i].pi == pi)
            return k_photometric[i].name;
    }
    return "";
}

const char *pcwt_dicom_status_string(pcwt_dicom_status status)
{
    switch (status) {
    case PCWT_DICOM_OK:
        return "ok";
    case PCWT_DICOM_INVALID:
        return "invalid image pixel module";
    case PCWT_DICOM_UNSUPPORTED:
        return "image cannot be coded losslessly";
    case PCWT_DICOM_TOO_LARGE:
        return "image too large";
    case PCWT_DICOM_CORRUPT:
        return "corrupt encapsulated pixel data";
    case PCWT_DICOM_MISMATCH:
        return "pixel data does not match the image pixel module";
    }
    return "unknown status";
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static pcwt_dicom_status fail(char *msg, size_t msg_size, pcwt_dicom_status st, const char *fmt, ...)
{
    if (msg && msg_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return st;
}

static const char *target_name(pcwt_dicom_target t)
{
    return t == PCWT_DICOM_TARGET_JPEGLS ? "JPEG-LS" : "PCWT";
}

pcwt_dicom_status pcwt_dicom_validate(const pcwt_dicom_pixel_module *m, pcwt_dicom_target target,
                                      char *msg, size_t msg_size)
{
    if (msg && msg_size > 0)
        msg[0] = '\0';
    if (!m)
        return fail(msg, msg_size, PCWT_DICOM_INVALID, "no image pixel module");
    const char *tn = target_name(target);

    if (m->rows < 1 || m->columns < 1)
        return fail(msg, msg_size, PCWT_DICOM_INVALID, "Rows (%u) and Columns (%u) must be at least 1",
                    m->rows, m->columns);
    if (m->rows > 65535 || m->columns > 65535)
        return fail(msg, msg_size, PCWT_DICOM_INVALID,
                    "Rows (%u) and Columns (%u) must be at most 65535 (VR US)", m->rows, m->columns);

    /* Bit depths first: they are the most common reason a file cannot be coded. */
    if (m->bits_allocated != 8 && m->bits_allocated != 16) {
        /* PS3.5 8.1.1: BitsAllocated is 1 or a multiple of 8; anything else is a broken file */
        if (m->bits_allocated == 0 || (m->bits_allocated != 1 && m->bits_allocated % 8 != 0))
            return fail(msg, msg_size, PCWT_DICOM_INVALID,
                        "BitsAllocated %u is invalid (DICOM allows 1 or a multiple of 8)",
                        m->bits_allocated);
        if (m->bits_allocated == 1)
            return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                        "BitsAllocated 1 (bit-packed pixel data) is not supported by %s: only 8 or 16",
                        tn);
        if (m->bits_allocated == 32 || m->bits_allocated == 64)
            return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                        "BitsAllocated %u cannot be coded losslessly by %s: only 8 or 16",
                        m->bits_allocated, tn);
        return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                    "BitsAllocated %u is not supported by %s: only 8 or 16", m->bits_allocated, tn);
    }
    if (m->bits_stored < 1 || m->bits_stored > m->bits_allocated)
        return fail(msg, msg_size, PCWT_DICOM_INVALID,
                    "BitsStored %u must be between 1 and BitsAllocated (%u)", m->bits_stored,
                    m->bits_allocated);
    if (m->high_bit + 1 < m->bits_stored || m->high_bit >= m->bits_allocated)
        return fail(msg, msg_size, PCWT_DICOM_INVALID,
                    "HighBit %u must be between BitsStored - 1 (%u) and BitsAllocated - 1 (%u)",
                    m->high_bit, m->bits_stored - 1, m->bits_allocated - 1);
    if (m->pixel_representation > 1)
        return fail(msg, msg_size, PCWT_DICOM_INVALID, "PixelRepresentation %u must be 0 or 1",
                    m->pixel_representation);

    /* Samples and colour. */
    const char *pin = pcwt_dicom_photometric_name(m->photometric);
    if (m->samples_per_pixel == 1) {
        if (m->photometric != PCWT_PI_MONOCHROME1 && m->photometric != PCWT_PI_MONOCHROME2 &&
            m->photometric != PCWT_PI_PALETTE_COLOR) {
            if (m->photometric == PCWT_PI_UNKNOWN)
                return fail(msg, msg_size, PCWT_DICOM_INVALID,
                            "PhotometricInterpretation is missing or not a defined term");
            return fail(msg, msg_size, PCWT_DICOM_INVALID,
                        "PhotometricInterpretation %s does not fit SamplesPerPixel 1", pin);
        }
    } else if (m->samples_per_pixel == 3) {
        switch (m->photometric) {
        case PCWT_PI_RGB:
        case PCWT_PI_YBR_FULL:
            break;
        case PCWT_PI_YBR_FULL_422:
        case PCWT_PI_YBR_PARTIAL_422:
        case PCWT_PI_YBR_PARTIAL_420:
            return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                        "PhotometricInterpretation %s (chroma subsampled) is not supported by %s: "
                        "RGB or YBR_FULL only",
                        pin, tn);
        case PCWT_PI_YBR_ICT:
        case PCWT_PI_YBR_RCT:
            return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                        "PhotometricInterpretation %s belongs to JPEG 2000 codestreams, not to "
                        "uncompressed pixel data",
                        pin);
        case PCWT_PI_UNKNOWN:
            return fail(msg, msg_size, PCWT_DICOM_INVALID,
                        "PhotometricInterpretation is missing or not a defined term");
        default:
            return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                        "PhotometricInterpretation %s is not supported by %s with 3 samples: RGB or "
                        "YBR_FULL only",
                        pin, tn);
        }
        if (m->has_planar_configuration && m->planar_configuration > 1)
            return fail(msg, msg_size, PCWT_DICOM_INVALID, "PlanarConfiguration %u must be 0 or 1",
                        m->planar_configuration);
    } else if (m->samples_per_pixel == 0 || m->samples_per_pixel == 2) {
        /* no photometric interpretation of DICOM has 0 or 2 samples */
        return fail(msg, msg_size, PCWT_DICOM_INVALID,
                    "SamplesPerPixel %u is invalid (DICOM defines 1, 3 or 4)", m->samples_per_pixel);
    } else {
        return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                    "SamplesPerPixel %u is not supported by %s: 1 or 3 only", m->samples_per_pixel,
                    tn);
    }

    if (m->number_of_frames < 1)
        return fail(msg, msg_size, PCWT_DICOM_INVALID, "NumberOfFrames must be at least 1");
    if (m->number_of_frames > 0x7FFFFFFFu)
        return fail(msg, msg_size, PCWT_DICOM_INVALID, "NumberOfFrames %llu exceeds 2^31 - 1",
                    (unsigned long long)m->number_of_frames);

    const uint64_t frame = (uint64_t)m->rows * m->columns * m->samples_per_pixel *
                           (m->bits_allocated / 8u);
    if (frame > PCWT_DICOM_MAX_VALUE_LENGTH || m->number_of_frames > PCWT_DICOM_MAX_VALUE_LENGTH / frame)
        return fail(msg, msg_size, PCWT_DICOM_TOO_LARGE,
                    "%u x %u x %u samples x %u bytes x %llu frames exceeds the 4 GiB limit of the "
                    "Pixel Data element",
                    m->columns, m->rows, m->samples_per_pixel, m->bits_allocated / 8u,
                    (unsigned long long)m->number_of_frames);

    /* libpcwt's format limit (found by fuzz_dicom: such modules validated, then the codec refused) */
    if ((uint64_t)m->rows * m->columns * m->samples_per_pixel > PCWT_MAX_SAMPLES)
        return fail(msg, msg_size, PCWT_DICOM_TOO_LARGE,
                    "%u x %u x %u samples per frame exceed the limit of 2^30", m->columns, m->rows,
                    m->samples_per_pixel);

    if (target == PCWT_DICOM_TARGET_JPEGLS) {
        if (m->high_bit + 1 != m->bits_stored)
            return fail(msg, msg_size, PCWT_DICOM_UNSUPPORTED,
                        "JPEG-LS needs HighBit = BitsStored - 1 (HighBit %u, BitsStored %u); "
                        "use the PCWT transfer syntax",
                        m->high_bit, m->bits_stored);
    }
    return PCWT_DICOM_OK;
}

uint64_t pcwt_dicom_frame_bytes(const pcwt_dicom_pixel_module *m)
{
    if (pcwt_dicom_validate(m, PCWT_DICOM_TARGET_PCWT, NULL, 0) != PCWT_DICOM_OK)
        return 0;
    return (uint64_t)m->rows * m->columns * m->samples_per_pixel * (m->bits_allocated / 8u);
}

uint64_t pcwt_dicom_pixel_bytes(const pcwt_dicom_pixel_module *m)
{
    return pcwt_dicom_frame_bytes(m) * (m ? m->number_of_frames : 0);
}

pcwt_dicom_status pcwt_dicom_image_desc(const pcwt_dicom_pixel_module *m, pcwt_image_desc *desc)
{
    pcwt_dicom_status st = pcwt_dicom_validate(m, PCWT_DICOM_TARGET_PCWT, NULL, 0);
    if (st != PCWT_DICOM_OK)
        return st;
    memset(desc, 0, sizeof *desc);
    desc->width = m->columns;
    desc->height = m->rows;
    desc->components = m->samples_per_pixel;
    desc->bits_allocated = m->bits_allocated;
    if (m->high_bit + 1 == m->bits_stored) {
        desc->bits_stored = m->bits_stored;
        desc->is_signed = m->pixel_representation;
    } else {
        desc->bits_stored = m->bits_allocated;
        desc->is_signed = 0;
    }
    desc->planar = (m->samples_per_pixel == 3 && m->has_planar_configuration &&
                    m->planar_configuration == 1)
                       ? 1u
                       : 0u;
    return PCWT_DICOM_OK;
}

/* The message both length checks give. */
static pcwt_dicom_status length_mismatch(uint64_t value_length, uint64_t total, uint64_t frames,
                                         uint64_t frame, char *msg, size_t msg_size)
{
    return fail(msg, msg_size, PCWT_DICOM_MISMATCH,
                "Pixel Data holds %llu bytes, but the image pixel module declares %llu (%llu "
                "frame(s) of %llu bytes%s): %s",
                (unsigned long long)value_length, (unsigned long long)total,
                (unsigned long long)frames, (unsigned long long)frame,
                (total & 1u) ? ", plus one pad byte" : "",
                value_length < total ? "too short" : "extra bytes would be lost");
}

pcwt_dicom_status pcwt_dicom_check_native_length(const pcwt_dicom_pixel_module *m,
                                                 uint64_t value_length, char *msg, size_t msg_size)
{
    const pcwt_dicom_status st = pcwt_dicom_validate(m, PCWT_DICOM_TARGET_PCWT, msg, msg_size);
    if (st != PCWT_DICOM_OK)
        return st;
    return pcwt_dicom_check_pixel_length(m, value_length, msg, msg_size);
}

pcwt_dicom_status pcwt_dicom_check_pixel_length(const pcwt_dicom_pixel_module *m,
                                                uint64_t value_length, char *msg, size_t msg_size)
{
    if (!m || m->rows == 0 || m->columns == 0 || m->rows > 0xFFFFu || m->columns > 0xFFFFu ||
        m->samples_per_pixel == 0 || m->samples_per_pixel > 4 || m->bits_allocated == 0 ||
        m->bits_allocated > 64 || m->number_of_frames == 0)
        return fail(msg, msg_size, PCWT_DICOM_INVALID,
                    "image pixel module of no valid size: Rows %u, Columns %u, Samples per Pixel %u, "
                    "Bits Allocated %u, %llu frame(s)",
                    m ? m->rows : 0u, m ? m->columns : 0u, m ? m->samples_per_pixel : 0u,
                    m ? m->bits_allocated : 0u, m ? (unsigned long long)m->number_of_frames : 0ull);
    const uint64_t per_pixel =
        m->samples_per_pixel == 3 && m->photometric == PCWT_PI_YBR_FULL_422 ? 2 : m->samples_per_pixel;
    /* rows and columns are DICOM's US, samples <= 4, bits <= 64: frame_bits < 2^40 */
    const uint64_t frame_bits = (uint64_t)m->rows * m->columns * per_pixel * m->bits_allocated;
    const uint64_t max_length = 0xFFFFFFFEu;
    if (m->number_of_frames > (max_length * 8 + 7) / frame_bits)
        return fail(msg, msg_size, PCWT_DICOM_TOO_LARGE,
                    "image pixel module declares more than a 32-bit Pixel Data length: %llu frame(s) of "
                    "%u x %u x %llu samples of %u bits",
                    (unsigned long long)m->number_of_frames, m->rows, m->columns,
                    (unsigned long long)per_pixel, m->bits_allocated);
    const uint64_t total = (frame_bits * m->number_of_frames + 7) / 8;
    if (value_length == total || ((total & 1u) && value_length == total + 1))
        return PCWT_DICOM_OK;
    return length_mismatch(value_length, total, m->number_of_frames, (frame_bits + 7) / 8, msg,
                           msg_size);
}
