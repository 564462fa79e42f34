/* frame_layout.c - planar/interleaved copies and the bits-above-BitsStored check. */
#include "pcwt_dicom.h"

void pcwt_dicom_planar_to_interleaved(const void *src, void *dst, size_t pixels,
                                      unsigned bytes_per_sample)
{
    if (bytes_per_sample == 1) {
        const uint8_t *s = src;
        uint8_t *d = dst;
        for (size_t i = 0; i < pixels; ++i) {
            d[3 * i] = s[i];
            d[3 * i + 1] = s[pixels + i];
            d[3 * i + 2] = s[2 * pixels + i];
        }
    } else {
        const uint16_t *s = src;
        uint16_t *d = dst;
        for (size_t i = 0; i < pixels; ++i) {
            d[3 * i] = s[i];
            d[3 * i + 1] = s[pixels + i];
            d[3 * i + 2] = s[2 * pixels + i];
        }
    }
}

void pcwt_dicom_interleaved_to_planar(const void *src, void *dst, size_t pixels,
                                      unsigned bytes_per_sample)
{
    if (bytes_per_sample == 1) {
        const uint8_t *s = src;
        uint8_t *d = dst;
        for (size_t i = 0; i < pixels; ++i) {
            d[i] = s[3 * i];
            d[pixels + i] = s[3 * i + 1];
            d[2 * pixels + i] = s[3 * i + 2];
        }
    } else {
        const uint16_t *s = src;
        uint16_t *d = dst;
        for (size_t i = 0; i < pixels; ++i) {
            d[i] = s[3 * i];
            d[pixels + i] = s[3 * i + 1];
            d[2 * pixels + i] = s[3 * i + 2];
        }
    }
}

/* The word's bits above bits_stored are zero, or the sign extension of the value. */
static int word_clean(uint32_t w, uint32_t bs, uint32_t ba, uint32_t is_signed)
{
    const uint32_t high = w >> bs;
    if (high == 0)
        return 1;
    if (!is_signed)
        return 0;
    const uint32_t ones = (1u << (ba - bs)) - 1u;
    return high == ones && ((w >> (bs - 1)) & 1u);
}

static size_t sample_count(const pcwt_image_desc *d)
{
    return (size_t)d->width * d->height * d->components;
}

int pcwt_dicom_high_bits_clean(const pcwt_image_desc *d, const void *samples, size_t *first_bad)
{
    if (d->bits_stored >= d->bits_allocated)
        return 1;
    const size_t n = sample_count(d);
    if (d->bits_allocated == 8) {
        const uint8_t *s = samples;
        for (size_t i = 0; i < n; ++i) {
            if (!word_clean(s[i], d->bits_stored, 8, d->is_signed)) {
                if (first_bad)
                    *first_bad = i;
                return 0;
            }
        }
    } else {
        const uint16_t *s = samples;
        for (size_t i = 0; i < n; ++i) {
            if (!word_clean(s[i], d->bits_stored, 16, d->is_signed)) {
                if (first_bad)
                    *first_bad = i;
                return 0;
            }
        }
    }
    return 1;
}

void pcwt_dicom_mask_to_bits_stored(const pcwt_image_desc *d, const void *src, void *dst)
{
    const size_t n = sample_count(d);
    const uint32_t mask = d->bits_stored >= 32 ? 0xFFFFFFFFu : (1u << d->bits_stored) - 1u;
    if (d->bits_allocated == 8) {
        const uint8_t *s = src;
        uint8_t *o = dst;
        for (size_t i = 0; i < n; ++i)
            o[i] = (uint8_t)(s[i] & mask);
    } else {
        const uint16_t *s = src;
        uint16_t *o = dst;
        for (size_t i = 0; i < n; ++i)
            o[i] = (uint16_t)(s[i] & mask);
    }
}
