/* offset.h - the per-plane modular offset of the compact profile (plane option bit 3,
 * docs/FORMAT.md Sec. 5.6): the plane codes its stored values u (the low bits-stored bits of each
 * sample) as u' = (u - r0) mod 2^bits, unsigned, with r0 in the payload's first two bytes. It
 * moves the wrap-around of the value range into the largest empty stretch of the values an image
 * uses: two's-complement data labelled unsigned, or palette indices, otherwise put neighbouring
 * values at opposite ends of the range. offset.c estimates r0 and applies it; the rules a GPU twin
 * shares (the candidates' order, a pair's cost, the decision) are the inline functions here. */
#ifndef PCWT_OFFSET_H
#define PCWT_OFFSET_H

#include "hostdev.h"
#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

/* r0's bytes at the start of a plane's payload (little-endian). */
#define PCWT_OFFSET_BYTES 2u

/* Plane option bit 3 is allowed in the compact profile on value planes without the colour
 * transform. */
static inline PCWT_HD int pcwt_offset_allowed(pcwt_profile profile, uint32_t kind, uint32_t colour_transform)
{
    return profile == PCWT_PROFILE_COMPACT && kind == 0 && !colour_transform;
}

/* The estimate's first two candidates: today's reading of the samples (T) and the other
 * signedness (F). */
static inline PCWT_HD uint32_t pcwt_offset_today(uint32_t bits, int is_signed)
{
    return is_signed ? 1u << (bits - 1u) : 0u;
}

static inline PCWT_HD uint32_t pcwt_offset_flip(uint32_t bits, int is_signed)
{
    return pcwt_offset_today(bits, !is_signed);
}

/* What one pair of neighbouring stored values a, b adds to the cost of candidate r (modulus m):
 * |a' - b'| with x' = (x - r) mod m, which is hi - lo unless r splits the pair (lo < r <= hi). */
static inline PCWT_HD uint32_t pcwt_offset_pair_cost(uint32_t a, uint32_t b, uint32_t r, uint32_t m)
{
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    return lo < r && r <= hi ? m - (hi - lo) : hi - lo;
}

/* The decision from the candidates T, F, G and their costs (sums of the pairs' costs over the
 * plane): the cheapest, ties to the earlier; with PCWT_OFFSET_AUTO taken only when it differs from
 * T and costs at most 4/5 of T's, with PCWT_OFFSET_ON always. Returns 1 with *r0 when the plane
 * sets option bit 3. */
static inline PCWT_HD int pcwt_offset_decide(pcwt_offset_mode mode, uint32_t t, uint32_t f, uint32_t g,
                                             uint64_t ct, uint64_t cf, uint64_t cg, uint32_t *r0)
{
    uint32_t best = t;
    uint64_t cost = ct;
    if (cf < cost) {
        best = f;
        cost = cf;
    }
    if (cg < cost) {
        best = g;
        cost = cg;
    }
    *r0 = best;
    if (mode == PCWT_OFFSET_ON)
        return 1;
    return mode == PCWT_OFFSET_AUTO && best != t && 5u * cost <= 4u * ct;
}

/* Whether a decoded u' is a stored value, and the sample value it stands for (sign-extended when
 * signed). */
static inline PCWT_HD int32_t pcwt_offset_value(uint32_t u_prime, uint32_t r0, uint32_t bits, int is_signed)
{
    const uint32_t m = 1u << bits, u = (u_prime + r0) & (m - 1u);
    return is_signed && u >= m / 2u ? (int32_t)u - (int32_t)m : (int32_t)u;
}

/* The candidate after the largest empty stretch of the circular range of the values that occur
 * (used[u] != 0, u < m; at least one): ties to the stretch that starts at the smallest value. */
uint32_t pcwt_offset_gap(const uint8_t *used, uint32_t m);

/* The stored values u that occur in the rows x cols values of a loaded plane (row pitch stride;
 * sample values of bits bits, signed or not): used[u] = 1 (2^bits bytes, zeroed by the caller). */
void pcwt_offset_mark_used(const int32_t *plane, size_t stride, uint32_t rows, uint32_t cols,
                           uint32_t bits, uint8_t *used);

/* The encoder's estimate on the same plane, used its pcwt_offset_mark_used: returns 1 with *r0
 * when the plane sets option bit 3. PCWT_ERR_OUT_OF_MEMORY in *st (then 0). */
int pcwt_offset_choose(pcwt_offset_mode mode, const int32_t *plane, size_t stride, uint32_t rows,
                       uint32_t cols, uint32_t bits, int is_signed, const uint8_t *used, uint32_t *r0,
                       pcwt_status *st);

/* The loaded plane's values v replaced by u' = (v - r0) mod 2^bits. */
void pcwt_offset_apply(int32_t *plane, size_t stride, uint32_t rows, uint32_t cols, uint32_t bits, uint32_t r0);

/* The decoded plane's values u' replaced by the samples' values; 0 when a u' is not below 2^bits
 * (corruption). */
int pcwt_offset_undo(int32_t *plane, size_t stride, uint32_t rows, uint32_t cols, uint32_t bits, int is_signed,
                     uint32_t r0);

#endif /* PCWT_OFFSET_H */
