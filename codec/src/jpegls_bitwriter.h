/* jpegls_bitwriter.h - MSB-first bit writer for JPEG-LS entropy-coded segments (T.87, A.1 and
 * D.1): after every 0xFF byte the next byte carries only 7 data bits (its most significant bit is
 * a stuffed 0), so that no marker (0xFF followed by a byte >= 0x80) can appear in coded data.
 *
 * The writer never stores past its capacity: it keeps counting bytes (pos) and the caller checks
 * jls_bw_overflow() to give up. Everything here is static inline: it sits in the per-sample loop. */
#ifndef PCWT_JPEGLS_BITWRITER_H
#define PCWT_JPEGLS_BITWRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct jls_bitwriter {
    uint8_t *buf;
    size_t cap;   /* bytes available in buf */
    size_t pos;   /* bytes produced so far (may exceed cap: then nothing past cap was stored) */
    uint64_t acc; /* pending bits, right-aligned: the low n bits */
    uint32_t n;   /* pending bit count, < 8 between calls */
    int ff;       /* the last byte produced was 0xFF: the next one takes 7 bits */
} jls_bitwriter;

static inline void jls_bw_init(jls_bitwriter *bw, uint8_t *buf, size_t cap, size_t pos)
{
    bw->buf = buf;
    bw->cap = cap;
    bw->pos = pos;
    bw->acc = 0;
    bw->n = 0;
    bw->ff = 0;
}

static inline int jls_bw_overflow(const jls_bitwriter *bw) { return bw->pos > bw->cap; }

static inline void jls_bw_emit(jls_bitwriter *bw, uint32_t byte)
{
    if (bw->pos < bw->cap)
        bw->buf[bw->pos] = (uint8_t)byte;
    bw->pos++;
    bw->ff = byte == 0xFFu;
}

/* Moves every complete byte out of the accumulator. */
static inline void jls_bw_drain(jls_bitwriter *bw)
{
    for (;;) {
        uint32_t byte;
        if (bw->ff) {
            if (bw->n < 7)
                return;
            bw->n -= 7;
            byte = (uint32_t)(bw->acc >> bw->n) & 0x7Fu;
        } else {
            if (bw->n < 8)
                return;
            bw->n -= 8;
            byte = (uint32_t)(bw->acc >> bw->n) & 0xFFu;
        }
        jls_bw_emit(bw, byte);
    }
}

/* Appends the count low bits of value (count <= 32; value must have no bits above count). */
static inline void jls_bw_put(jls_bitwriter *bw, uint32_t value, uint32_t count)
{
    bw->acc = (bw->acc << count) | value;
    bw->n += count;
    if (bw->n >= 8)
        jls_bw_drain(bw);
}

static inline void jls_bw_put_zeros(jls_bitwriter *bw, uint32_t count)
{
    while (count > 32) {
        jls_bw_put(bw, 0, 32);
        count -= 32;
    }
    jls_bw_put(bw, 0, count);
}

/* Appends count one bits (count <= 32). */
static inline void jls_bw_put_ones(jls_bitwriter *bw, uint32_t count)
{
    jls_bw_put(bw, (uint32_t)((UINT64_C(1) << count) - 1u), count);
}

/* Ends an entropy-coded segment (end of scan or of a restart interval): pads the last byte with
 * 0 bits and, when the segment ends with a whole 0xFF byte, appends a 0x00 byte so that the marker
 * that follows stays recognisable (what CharLS does). A padded byte is never 0xFF: either its
 * first bit is the stuffed 0 or its last bit is padding. */
static inline void jls_bw_flush(jls_bitwriter *bw)
{
    if (bw->n > 0) {
        const uint32_t width = bw->ff ? 7u : 8u;
        jls_bw_emit(bw, (uint32_t)(bw->acc << (width - bw->n)) & ((1u << width) - 1u));
        bw->n = 0;
    }
    if (bw->ff)
        jls_bw_emit(bw, 0x00);
    bw->acc = 0;
}

#endif /* PCWT_JPEGLS_BITWRITER_H */
