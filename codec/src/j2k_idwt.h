/* j2k_idwt.h - the inverse reversible 5/3 wavelet of JPEG 2000 (T.800 Annex F) for a tile at
 * the origin, as inline rules that the CPU (j2k_idwt.c) and the GPU (cuda/j2k_idwt_gpu.cu) share:
 * the sizes of the resolutions and sub-bands, and the two lifting steps with the symmetric
 * extension. With the tile at (0, 0) every line starts at an even index: the low-pass samples
 * are the even ones, ceil(n/2) of them, and a line of one sample is its low-pass value. Each
 * level undoes the rows first, then the columns (the forward transform did columns first), as
 * OpenJPEG does, which the integer rounding makes observable. */
#ifndef PCWT_J2K_IDWT_H
#define PCWT_J2K_IDWT_H

#include "hostdev.h"
#include "j2k_batch.h"

#include <stdint.h>

/* ceil(n / 2^k): the size of a resolution k levels below a dimension of n. */
static inline PCWT_HD uint32_t pcwt_j2k_res_size(uint32_t n, uint32_t k)
{
    return k >= 32 ? (n > 0) : (uint32_t)(((uint64_t)n + ((uint64_t)1 << k) - 1) >> k);
}

/* Where a sub-band lies in the Mallat layout of j2k_batch.h: resolution r (0: the LL band) of a
 * tile-component of w x h with L levels, band PCWT_J2K_LL (r = 0) or HL, LH, HH (r >= 1). */
static inline PCWT_HD void pcwt_j2k_band_rect(uint32_t w, uint32_t h, uint32_t levels, uint32_t r,
                                              uint32_t band, uint32_t *x0, uint32_t *y0,
                                              uint32_t *bw, uint32_t *bh)
{
    if (r == 0) {
        *x0 = *y0 = 0;
        *bw = pcwt_j2k_res_size(w, levels);
        *bh = pcwt_j2k_res_size(h, levels);
        return;
    }
    const uint32_t lw = pcwt_j2k_res_size(w, levels - r + 1), lh = pcwt_j2k_res_size(h, levels - r + 1);
    const uint32_t rw = pcwt_j2k_res_size(w, levels - r), rh = pcwt_j2k_res_size(h, levels - r);
    *x0 = band == PCWT_J2K_LH ? 0 : lw;
    *y0 = band == PCWT_J2K_HL ? 0 : lh;
    *bw = band == PCWT_J2K_LH ? lw : rw - lw;
    *bh = band == PCWT_J2K_HL ? lh : rh - lh;
}

/* The arithmetic wraps in 32 bits, as OpenJPEG's does in practice, so that coefficients of a
 * damaged codestream cannot overflow a signed integer. */

/* Even output sample 2i from its low-pass value s and the high-pass neighbours d[i-1], d[i]
 * (each replaced by the other at the line's ends, the symmetric extension). */
static inline PCWT_HD int32_t pcwt_j2k_idwt_even(int32_t s, int32_t d_left, int32_t d_right)
{
    return (int32_t)((uint32_t)s - (uint32_t)((int32_t)((uint32_t)d_left + (uint32_t)d_right + 2u) >> 2));
}

/* Odd output sample 2i+1 from its high-pass value d and the even samples beside it (the left
 * one repeated at the line's end). */
static inline PCWT_HD int32_t pcwt_j2k_idwt_odd(int32_t d, int32_t x_left, int32_t x_right)
{
    return (int32_t)((uint32_t)d + (uint32_t)((int32_t)((uint32_t)x_left + (uint32_t)x_right) >> 1));
}

#endif /* PCWT_J2K_IDWT_H */
