/* planes.c - samples in memory <-> the int32 planes the codec transforms.
 * Kind 0 holds each sample's value in bits_stored bits (sign-extended when signed). Kind 1 holds
 * the bits above bits_stored wherever they differ from that value's canonical bits_allocated
 * representation (zero-extended or sign-extended): some scanners leave garbage there, and every
 * stored word must come back exactly. Kind 1 is coded only when some sample needs it. */
#include "plan.h"
#include "planes.h"
#include "rct.h"
#include "samples.h"
#include "status.h"

#include <string.h>

pcwt_status pcwt_desc_check(const pcwt_image_desc *d, char *err, size_t err_size)
{
    if (!d) {
        pcwt_set_error(err, err_size, "no image descriptor");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (d->width < 1 || d->height < 1) {
        pcwt_set_error(err, err_size, "invalid image size %ux%u", d->width, d->height);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (d->width > PCWT_MAX_SIDE || d->height > PCWT_MAX_SIDE) {
        pcwt_set_error(err, err_size, "image size %ux%u exceeds %u per side", d->width, d->height,
                       PCWT_MAX_SIDE);
        return PCWT_ERR_UNSUPPORTED;
    }
    if (d->components != 1 && d->components != 3) {
        pcwt_set_error(err, err_size, "%u components not supported (1 or 3)", d->components);
        return PCWT_ERR_UNSUPPORTED;
    }
    if (d->bits_allocated != 8 && d->bits_allocated != 16) {
        pcwt_set_error(err, err_size, "bits allocated %u not supported (8 or 16)",
                       d->bits_allocated);
        return PCWT_ERR_UNSUPPORTED;
    }
    if (d->bits_stored < 1 || d->bits_stored > d->bits_allocated) {
        pcwt_set_error(err, err_size, "bits stored %u invalid for %u bits allocated",
                       d->bits_stored, d->bits_allocated);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (d->is_signed > 1 || d->planar > 1) {
        pcwt_set_error(err, err_size, "is_signed and planar must be 0 or 1");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    /* The format's limit, checked here so that the encoder refuses what every decoder would. */
    const uint64_t samples = (uint64_t)d->width * d->height * d->components;
    if (samples > PCWT_MAX_SAMPLES) {
        pcwt_set_error(err, err_size, "image of %llu samples exceeds the format's limit of %llu",
                       (unsigned long long)samples, (unsigned long long)PCWT_MAX_SAMPLES);
        return PCWT_ERR_LIMIT_EXCEEDED;
    }
    return PCWT_OK;
}

size_t pcwt_image_size(const pcwt_image_desc *d)
{
    if (pcwt_desc_check(d, NULL, 0) != PCWT_OK)
        return 0;
    return (size_t)d->width * d->height * d->components * (d->bits_allocated / 8);
}

typedef struct layout {
    size_t first, pixel_step; /* index of sample (comp, 0, 0); step between pixels */
} layout;

static layout layout_of(const pcwt_image_desc *d, uint32_t comp)
{
    layout l;
    if (d->components > 1 && d->planar) {
        l.first = (size_t)comp * d->width * d->height;
        l.pixel_step = 1;
    } else {
        l.first = comp;
        l.pixel_step = d->components;
    }
    return l;
}

/* memcpy keeps 16-bit access valid for buffers of any alignment; compilers emit a plain load. */
static inline uint32_t word_at(const pcwt_image_desc *d, const void *s, size_t i)
{
    if (d->bits_allocated == 8)
        return ((const uint8_t *)s)[i];
    uint16_t w;
    memcpy(&w, (const uint8_t *)s + 2 * i, 2);
    return w;
}

/* The 16-bit word with index i (not a byte offset) of a buffer of any alignment. */
static inline uint32_t load16(const uint8_t *s, size_t i)
{
    uint16_t w;
    memcpy(&w, s + 2 * i, 2);
    return w;
}

/* pcwt_sample_value (samples.h) without a branch, for loops that vectorise: the low bits v, sign-extended by
 * (v ^ sign) - sign with sign = the top stored bit when signed, else 0. */
static inline int32_t value_flat(uint32_t word, uint32_t mask, uint32_t sign)
{
    return (int32_t)((word & mask) ^ sign) - (int32_t)sign;
}

/* The first sample of row i of component plane l (pixel_step 1: one component or planar). */
#define ROW_OF(d, l, i) ((l).first + (size_t)(i) * (d)->width)

int pcwt_plane_has_high_bits(const pcwt_image_desc *d, const void *samples, uint32_t comp)
{
    if (d->bits_stored == d->bits_allocated)
        return 0;
    const layout l = layout_of(d, comp);
    const size_t n = (size_t)d->width * d->height;
    if (l.pixel_step == 1 && d->bits_allocated == 16) {
        const uint32_t stored = d->bits_stored, mask = (1u << stored) - 1u;
        const uint32_t sign = d->is_signed ? 1u << (stored - 1) : 0u;
        const uint8_t *s = (const uint8_t *)samples + 2 * l.first;
        for (uint32_t i = 0; i < d->height; i++) {
            uint32_t diff = 0;
            for (uint32_t j = 0; j < d->width; j++) {
                uint16_t w;
                memcpy(&w, s + 2 * ((size_t)i * d->width + j), 2);
                diff |= w ^ ((uint32_t)value_flat(w, mask, sign) & 0xFFFFu);
            }
            if (diff)
                return 1;
        }
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        const uint32_t w = word_at(d, samples, l.first + k * l.pixel_step);
        if (w != pcwt_sample_canonical(pcwt_sample_value(w, d->bits_stored, d->is_signed),
                                       d->bits_allocated))
            return 1;
    }
    return 0;
}

void pcwt_plane_extract(const pcwt_image_desc *d, const void *samples, uint32_t comp,
                        uint32_t kind, int32_t *dst, uint32_t stride)
{
    const layout l = layout_of(d, comp);
    const uint32_t stored = d->bits_stored;
    if (kind == 0 && l.pixel_step == 1) {
        const uint32_t mask = (1u << stored) - 1u, sign = d->is_signed ? 1u << (stored - 1) : 0u;
        const uint32_t width = d->width; /* a local: the stores may alias *d */
        for (uint32_t i = 0; i < d->height; i++) {
            int32_t *row = dst + (size_t)i * stride;
            if (d->bits_allocated == 16) {
                const uint8_t *s = (const uint8_t *)samples + 2 * ROW_OF(d, l, i);
                for (uint32_t j = 0; j < width; j++) {
                    uint16_t w;
                    memcpy(&w, s + 2 * (size_t)j, 2);
                    row[j] = value_flat(w, mask, sign);
                }
            } else {
                const uint8_t *s = (const uint8_t *)samples + ROW_OF(d, l, i);
                for (uint32_t j = 0; j < width; j++)
                    row[j] = value_flat(s[j], mask, sign);
            }
        }
        return;
    }
    for (uint32_t i = 0; i < d->height; i++) {
        size_t k = l.first + (size_t)i * d->width * l.pixel_step;
        int32_t *row = dst + (size_t)i * stride;
        for (uint32_t j = 0; j < d->width; j++, k += l.pixel_step) {
            const uint32_t w = word_at(d, samples, k);
            const int32_t v = pcwt_sample_value(w, stored, d->is_signed);
            row[j] = kind == 0 ? v : pcwt_sample_high_bits(w, v, d->bits_allocated, stored);
        }
    }
}

/* One row of the RCT plane comp (Sec. 2.1) from the words of components 0, 1, 2 at s + f0, f1, f2
 * with the given pixel step. Inlined with constant wide, step and comp: branch-free loops that
 * vectorise. */
static inline __attribute__((always_inline)) void rct_row(const uint8_t *s, int wide, size_t f0,
                                                          size_t f1, size_t f2, size_t step,
                                                          uint32_t n, uint32_t mask, uint32_t sign,
                                                          uint32_t comp, int32_t *row)
{
#define RCT_WORD(f, j) (wide ? load16(s, (f) + (size_t)(j) * step) : s[(f) + (size_t)(j) * step])
#define RCT_VALUE(f, j) value_flat(RCT_WORD(f, j), mask, sign)
    for (uint32_t j = 0; j < n; j++)
        row[j] = pcwt_rct_forward(RCT_VALUE(f0, j), RCT_VALUE(f1, j), RCT_VALUE(f2, j), comp);
#undef RCT_VALUE
#undef RCT_WORD
}

/* 8-bit interleaved rows in scalar loops: GCC's vectorised gather of every third byte without
 * SSSE3 (the x86-64 baseline) is slower than scalar code; planar and 16-bit rows gain from
 * vectorisation and keep it. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SSSE3__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static void rct_rows_u8_interleaved(const uint8_t *s, size_t f0, size_t f1, size_t f2, uint32_t n,
                                    uint32_t mask, uint32_t sign, uint32_t comp, int32_t *row)
{
    if (comp == 0)
        rct_row(s, 0, f0, f1, f2, 3, n, mask, sign, 0, row);
    else if (comp == 1)
        rct_row(s, 0, f0, f1, f2, 3, n, mask, sign, 1, row);
    else
        rct_row(s, 0, f0, f1, f2, 3, n, mask, sign, 2, row);
}

void pcwt_plane_extract_rct(const pcwt_image_desc *d, const void *samples, uint32_t comp,
                            int32_t *dst, uint32_t stride)
{
    const layout l0 = layout_of(d, 0), l1 = layout_of(d, 1), l2 = layout_of(d, 2);
    const uint32_t stored = d->bits_stored, mask = (1u << stored) - 1u;
    const uint32_t sign = d->is_signed ? 1u << (stored - 1) : 0u;
    /* locals: the stores may alias *d */
    const uint32_t width = d->width, height = d->height, wide = d->bits_allocated == 16;
    const size_t step = l0.pixel_step;
    const uint8_t *s = (const uint8_t *)samples;
    for (uint32_t i = 0; i < height; i++) {
        int32_t *row = dst + (size_t)i * stride;
        const size_t k = (size_t)i * width * step;
        const size_t f0 = l0.first + k, f1 = l1.first + k, f2 = l2.first + k;
        /* one specialised loop per depth, layout and plane */
#define RCT_ROWS(W, STEP)                                                                          \
    do {                                                                                           \
        if (comp == 0)                                                                             \
            rct_row(s, W, f0, f1, f2, STEP, width, mask, sign, 0, row);                            \
        else if (comp == 1)                                                                        \
            rct_row(s, W, f0, f1, f2, STEP, width, mask, sign, 1, row);                            \
        else                                                                                       \
            rct_row(s, W, f0, f1, f2, STEP, width, mask, sign, 2, row);                            \
    } while (0)
        if (wide && step == 1)
            RCT_ROWS(1, 1);
        else if (wide)
            RCT_ROWS(1, 3);
        else if (step == 1)
            RCT_ROWS(0, 1);
        else
            rct_rows_u8_interleaved(s, f0, f1, f2, width, mask, sign, comp, row);
#undef RCT_ROWS
    }
}

int pcwt_plane_store(const pcwt_image_desc *d, void *samples, uint32_t comp, uint32_t kind,
                     const int32_t *src, uint32_t stride)
{
    const layout l = layout_of(d, comp);
    const uint32_t stored = d->bits_stored, alloc = d->bits_allocated;
    int32_t lo, hi;
    if (kind == 0) {
        pcwt_sample_range(stored, d->is_signed, &lo, &hi);
    } else {
        lo = 0;
        hi = (int32_t)((1u << (alloc - stored)) - 1u);
    }
    if (kind == 0 && l.pixel_step == 1) {
        /* A row is written before its range check: on failure the samples are not defined. */
        const uint32_t width = d->width; /* a local: the stores may alias *d */
        for (uint32_t i = 0; i < d->height; i++) {
            const int32_t *row = src + (size_t)i * stride;
            uint32_t bad = 0;
            if (alloc == 16) {
                uint8_t *s = (uint8_t *)samples + 2 * ROW_OF(d, l, i);
                for (uint32_t j = 0; j < width; j++) {
                    const int32_t v = row[j];
                    bad |= (uint32_t)(v < lo) | (uint32_t)(v > hi);
                    const uint16_t w16 = (uint16_t)pcwt_sample_canonical(v, 16);
                    memcpy(s + 2 * (size_t)j, &w16, 2);
                }
            } else {
                uint8_t *s = (uint8_t *)samples + ROW_OF(d, l, i);
                for (uint32_t j = 0; j < width; j++) {
                    const int32_t v = row[j];
                    bad |= (uint32_t)(v < lo) | (uint32_t)(v > hi);
                    s[j] = (uint8_t)pcwt_sample_canonical(v, 8);
                }
            }
            if (bad)
                return 0;
        }
        return 1;
    }
    for (uint32_t i = 0; i < d->height; i++) {
        size_t k = l.first + (size_t)i * d->width * l.pixel_step;
        const int32_t *row = src + (size_t)i * stride;
        for (uint32_t j = 0; j < d->width; j++, k += l.pixel_step) {
            const int32_t v = row[j];
            if (v < lo || v > hi)
                return 0;
            uint32_t w;
            if (kind == 0)
                w = pcwt_sample_canonical(v, alloc);
            else
                w = word_at(d, samples, k) ^ ((uint32_t)v << stored);
            if (alloc == 8) {
                ((uint8_t *)samples)[k] = (uint8_t)w;
            } else {
                const uint16_t w16 = (uint16_t)w;
                memcpy((uint8_t *)samples + 2 * k, &w16, 2);
            }
        }
    }
    return 1;
}
