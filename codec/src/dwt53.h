/* dwt53.h - the reversible (5,3) lifting steps of B-LDWT+B (docs/FORMAT.md Sec. 3), defined once
 * for the CPU (dwt53.c) and the GPU (cuda/dwt53_gpu.cu):
 *   predict:  H[i] = x[2i+1] - floor((x[2i] + x[2i+2]) / 2)
 *   update:   L[i] = x[2i]   + floor((H[i-1] + H[i] + 2) / 4)      with H[-1] = H[0]
 * with whole-sample symmetric extension (x[-1] = x[1], x[n] = x[n-2]) at every edge. The inverse
 * undoes the two steps in the opposite order with wrapping 32-bit arithmetic, so that hostile
 * coefficients decode to garbage (caught by the range check) rather than to undefined behaviour;
 * valid data never wraps. */
#ifndef PCWT_DWT53_H
#define PCWT_DWT53_H

#include "hostdev.h"

#include <stddef.h>
#include <stdint.h>

static inline PCWT_HD int32_t pcwt_wadd(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline PCWT_HD int32_t pcwt_wsub(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* Forward predict: H[i] from x[2i], x[2i+1], x[2i+2]. */
static inline PCWT_HD int32_t pcwt_lift_high(int32_t x0, int32_t x1, int32_t x2)
{
    return x1 - ((x0 + x2) >> 1);
}
/* Forward update: L[i] from x[2i], H[i-1], H[i]. */
static inline PCWT_HD int32_t pcwt_lift_low(int32_t x0, int32_t hm1, int32_t h)
{
    return x0 + ((hm1 + h + 2) >> 2);
}
/* Inverse update: x[2i] from L[i], H[i-1], H[i]. */
static inline PCWT_HD int32_t pcwt_unlift_even(int32_t l, int32_t hm1, int32_t h)
{
    return pcwt_wsub(l, pcwt_wadd(pcwt_wadd(hm1, h), 2) >> 2);
}
/* Inverse predict: x[2i+1] from H[i], x[2i], x[2i+2]. */
static inline PCWT_HD int32_t pcwt_unlift_odd(int32_t h, int32_t x0, int32_t x2)
{
    return pcwt_wadd(h, pcwt_wadd(x0, x2) >> 1);
}

/* 5/11-C's third step (Adams and Kossentini), after the two above on the finest level when a
 * plane's option bit 2 says so (FORMAT.md Sec. 3.4): H[i] += floor((L[i-1] - L[i] - L[i+1] +
 * L[i+2] + 8) / 16), L reflected as pcwt_refl511 says; the inverse subtracts it before the 5/3
 * inverse. Wrapping, as the inverse's steps, so that hostile coefficients stay defined. */
static inline PCWT_HD int32_t pcwt_c511(int32_t lm1, int32_t l0, int32_t l1, int32_t l2)
{
    return pcwt_wadd(pcwt_wsub(pcwt_wsub(lm1, l0), pcwt_wsub(l1, l2)), 8) >> 4;
}
/* The low half's index k of N (k from -1 to N+1): L[-1] = L[1], L[N] = L[N-1], L[N+1] = L[N-2]
 * (the extension of the 5/3 steps carried to the low half); all 0 when N is 1. */
static inline PCWT_HD uint32_t pcwt_refl511(int64_t k, uint32_t N)
{
    if (N < 2)
        return 0;
    if (k < 0)
        return (uint32_t)-k;
    if (k >= (int64_t)N)
        return (uint32_t)(2 * (int64_t)N - 1 - k);
    return (uint32_t)k;
}

#include "pyramid.h"

/* dwt53.c: one dimension, and the levels of a plane in the order the header records
 * (columns_first: each level lifts its columns before its rows, header flag bit 3). */
void pcwt_dwt53_forward_1d(const int32_t *x, uint32_t n, int32_t *low, int32_t *high);
void pcwt_dwt53_inverse_1d(const int32_t *low, const int32_t *high, uint32_t n, int32_t *x);
/* level1_511: the finest level uses 5/11-C (plane option bit 2). forward_level1 redoes level 1
 * alone (its LL band, hence every coarser level, is the same with either filter). */
void pcwt_dwt53_forward(pcwt_pyramid *p, int columns_first, int level1_511);
void pcwt_dwt53_forward_level1(pcwt_pyramid *p, int columns_first, int level1_511);
/* Levels 2 .. L of the 5/3 forward (level 1 done). */
void pcwt_dwt53_forward_above(pcwt_pyramid *p, int columns_first);
/* The encoder's estimate of a level-1 band: each coefficient's bit length, plus one when not 0. */
static inline PCWT_HD uint32_t pcwt_bit_cost(int32_t c)
{
    const uint32_t a = pcwt_magnitude(c);
    return a ? (uint32_t)PCWT_LOG2(a) + 2u : 0u;
}
/* The sum of pcwt_bit_cost over n coefficients (dwt53.c), without a branch per coefficient: the
 * signs and zeros of high-band coefficients are unpredictable. */
uint64_t pcwt_bit_cost_sum(const int32_t *c, size_t n);
/* Right after the 5/3 level 1 of a columns-first forward (its column halves still in p->tmp):
 * the estimate summed over the HL, LH and HH bands that 5/11-C would give, without writing
 * them. row: scratch of 2 * level_c int32s. */
uint64_t pcwt_dwt511_level1_cost(const pcwt_pyramid *p, int32_t *row);
void pcwt_dwt53_inverse(pcwt_pyramid *p, int columns_first, int level1_511);

#endif /* PCWT_DWT53_H */
