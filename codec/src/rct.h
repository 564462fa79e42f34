/* rct.h - the reversible colour transform of 3-component images (docs/FORMAT.md Sec. 2.1, the
 * RCT of JPEG 2000 Part 1 Annex G), one definition for the CPU planes and their CUDA twin.
 * Forward, from the values v0, v1, v2 of a pixel's components: plane 0 holds
 * floor((v0 + 2 v1 + v2) / 4), plane 1 holds v2 - v1, plane 2 holds v0 - v1. */
#ifndef PCWT_RCT_H
#define PCWT_RCT_H

#include "hostdev.h"

#include <stdint.h>

/* The value that plane comp holds (values of at most 16 bits: no overflow). */
static inline PCWT_HD int32_t pcwt_rct_forward(int32_t v0, int32_t v1, int32_t v2, uint32_t comp)
{
    return comp == 0 ? (v0 + 2 * v1 + v2) >> 2 : comp == 1 ? v2 - v1 : v0 - v1;
}

/* The value of component comp from the decoded planes y0, y1, y2, in 64 bits: hostile planes
 * may hold any int32, and the caller range-checks the result. */
static inline PCWT_HD int64_t pcwt_rct_inverse(int32_t y0, int32_t y1, int32_t y2, uint32_t comp)
{
    const int64_t v1 = (int64_t)y0 - (((int64_t)y1 + y2) >> 2);
    return comp == 0 ? y2 + v1 : comp == 1 ? v1 : y1 + v1;
}

#endif /* PCWT_RCT_H */
