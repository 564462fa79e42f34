/* jpegls_golomb.h - the limited-length Golomb code LG(k, glimit) of T.87 (A.5.3) and the mapping of
 * prediction errors to non-negative values (A.5.2).
 *
 * LG(k, glimit) codes a value m >= 0 as
 *   - (m >> k) zero bits, a one bit, then the k low bits of m, when (m >> k) < glimit - qbpp - 1;
 *   - otherwise an escape: (glimit - qbpp - 1) zero bits, a one bit, then m - 1 in qbpp bits.
 * Either way a codeword is at most glimit bits long (k never exceeds qbpp, see jpegls_context.h). */
#ifndef PCWT_JPEGLS_GOLOMB_H
#define PCWT_JPEGLS_GOLOMB_H

#include <stdint.h>

#include "jpegls_bitwriter.h"

/* Golomb parameter of a regular context (A.5.1): the least k with N * 2^k >= A. */
static inline uint32_t jls_golomb_k(int32_t n, int32_t a)
{
    uint32_t k = 0;
    while ((n << k) < a)
        k++;
    return k;
}

/* Error mapping of the regular mode (A.5.2, code segment A.11), for an error already reduced modulo
 * RANGE: 2e for e >= 0, -2e - 1 for e < 0. */
static inline uint32_t jls_map_error(int32_t e)
{
    return e >= 0 ? 2u * (uint32_t)e : 2u * (uint32_t)(-e) - 1u;
}

static inline void jls_golomb_put(jls_bitwriter *bw, uint32_t m, uint32_t k, uint32_t glimit,
                                  uint32_t qbpp)
{
    const uint32_t high = m >> k;
    const uint32_t max_high = glimit - qbpp - 1u;
    const uint32_t low_mask = (1u << k) - 1u;
    if (high < max_high) {
        if (high + 1u + k <= 32u) {
            jls_bw_put(bw, (1u << k) | (m & low_mask), high + 1u + k);
        } else {
            jls_bw_put_zeros(bw, high);
            jls_bw_put(bw, (1u << k) | (m & low_mask), k + 1u);
        }
    } else {
        jls_bw_put_zeros(bw, max_high);
        jls_bw_put(bw, 1u, 1u);
        jls_bw_put(bw, (m - 1u) & ((1u << qbpp) - 1u), qbpp);
    }
}

#endif /* PCWT_JPEGLS_GOLOMB_H */
