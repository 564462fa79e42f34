/* j2k_output.h - the last steps of JPEG 2000 decoding (T.800 G.1-G.2) as inline rules that the
 * CPU (j2k_output.c) and the GPU (cuda/) share: the inverse reversible colour transform, the DC
 * level shift and the clipping to the component's range, as OpenJPEG applies them (the RCT
 * first, then shift and clip), and the store into the caller's samples. */
#ifndef PCWT_J2K_OUTPUT_H
#define PCWT_J2K_OUTPUT_H

#include "hostdev.h"

#include <stdint.h>

/* Components 0, 1, 2 (Y, Cb, Cr of the RCT) become R, G, B in place. The arithmetic wraps in 32
 * bits, so that values of a damaged codestream cannot overflow a signed integer. */
static inline PCWT_HD void pcwt_j2k_rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2)
{
    const uint32_t y = (uint32_t)*c0, u = (uint32_t)*c1, v = (uint32_t)*c2;
    const uint32_t g = y - (uint32_t)((int32_t)(u + v) >> 2);
    *c0 = (int32_t)(v + g);
    *c1 = (int32_t)g;
    *c2 = (int32_t)(u + g);
}

/* A reconstructed value shifted back to the sample range (unsigned: + 2^(precision-1)) and
 * clipped to it. */
static inline PCWT_HD int32_t pcwt_j2k_sample(int32_t v, uint32_t precision, uint32_t is_signed)
{
    const int64_t half = (int64_t)1 << (precision - 1);
    const int64_t lo = is_signed ? -half : 0, hi = is_signed ? half - 1 : 2 * half - 1;
    const int64_t x = (int64_t)v + (is_signed ? 0 : half);
    return (int32_t)(x < lo ? lo : x > hi ? hi : x);
}

#endif /* PCWT_J2K_OUTPUT_H */
