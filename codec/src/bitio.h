/* bitio.h - MSB-first bit writer and reader for group payloads. Byte 0 of a group holds stream
 * bits 0..7, bit 0 in its most significant bit (the baseline profile's ZIL convention). */
#ifndef PCWT_BITIO_H
#define PCWT_BITIO_H

#include "hostdev.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pcwt_bitwriter {
    uint8_t *p;
    uint64_t acc; /* the low n bits are pending (n < 8 on a device, n < 32 on the host) */
    uint32_t n;
} pcwt_bitwriter;

static inline PCWT_HD void pcwt_bw_init(pcwt_bitwriter *w, uint8_t *dst)
{
    w->p = dst;
    w->acc = 0;
    w->n = 0;
}

/* Appends the low nbits (0..32) of v, which must have no higher bits set. */
static inline PCWT_HD void pcwt_bw_put(pcwt_bitwriter *w, uint32_t v, uint32_t nbits)
{
    w->acc = (w->acc << nbits) | v;
    w->n += nbits;
#ifndef __CUDA_ARCH__
    if (w->n >= 32) { /* four whole bytes at once, big-endian: the same bytes */
        w->n -= 32;
        const uint32_t word = __builtin_bswap32((uint32_t)(w->acc >> w->n));
        __builtin_memcpy(w->p, &word, 4);
        w->p += 4;
    }
#else
    while (w->n >= 8) {
        w->n -= 8;
        *w->p++ = (uint8_t)(w->acc >> w->n);
    }
#endif
}

/* Pads the last byte with zero bits; returns the end of the written bytes. */
static inline PCWT_HD uint8_t *pcwt_bw_flush(pcwt_bitwriter *w)
{
    while (w->n >= 8) {
        w->n -= 8;
        *w->p++ = (uint8_t)(w->acc >> w->n);
    }
    if (w->n)
        *w->p++ = (uint8_t)(w->acc << (8 - w->n));
    w->n = 0;
    return w->p;
}

typedef struct pcwt_bitreader {
    const uint8_t *p, *end;
    uint64_t acc; /* MSB-aligned: the next bit is bit 63 */
    uint32_t n;   /* valid bits in acc */
    uint64_t consumed;
} pcwt_bitreader;

static inline void pcwt_br_init(pcwt_bitreader *r, const uint8_t *src, size_t size)
{
    r->p = src;
    r->end = src + size;
    r->acc = 0;
    r->n = 0;
    r->consumed = 0;
}

/* Makes at least 57 bits available; past the end of the data it shifts in zeros, never reads. */
static inline void pcwt_br_refill(pcwt_bitreader *r)
{
    while (r->n <= 56) {
        const uint64_t b = r->p < r->end ? *r->p++ : 0u;
        r->acc |= b << (56 - r->n);
        r->n += 8;
    }
}

/* Reads nbits (1..32). */
static inline uint32_t pcwt_br_get(pcwt_bitreader *r, uint32_t nbits)
{
    if (r->n < 32)
        pcwt_br_refill(r);
    const uint32_t v = (uint32_t)(r->acc >> (64 - nbits));
    r->acc <<= nbits;
    r->n -= nbits;
    r->consumed += nbits;
    return v;
}

/* Leading zero bits before the next 1, looking at no more than the next 32 bits (returns 64
 * when they are all zero). */
static inline uint32_t pcwt_br_peek_zeros(pcwt_bitreader *r)
{
    if (r->n < 32)
        pcwt_br_refill(r);
    return r->acc ? (uint32_t)__builtin_clzll(r->acc) : 64u;
}

static inline void pcwt_br_skip(pcwt_bitreader *r, uint32_t nbits)
{
    /* nbits <= 32, and peek_zeros guaranteed at least 57 valid bits */
    r->acc = nbits < 64 ? r->acc << nbits : 0;
    r->n -= nbits;
    r->consumed += nbits;
}

#endif /* PCWT_BITIO_H */
