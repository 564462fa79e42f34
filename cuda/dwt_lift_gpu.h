// dwt_lift_gpu.h - the forward lifting of a tile shared by the 5/3 levels (dwt53_gpu.cu) and the
// 5/11-C level 1 (dwt511_forward_gpu.cu): a block of TY x TX MQD elements, the 5/3 lifting pair of
// a sequence, and an MQD element's four bands with their MQDs from the halves of a first pass.
#pragma once

#include "gpu_types.h"
#include "mqd_gpu.h"

extern "C" {
#include "dwt53.h"
}

namespace {

constexpr int TX = 32, TY = 8;

// Lifting outputs L[i], H[i] of a sequence from its inputs x[2i-2 .. 2i+2] (the first two read
// only where i > 0).
__device__ inline void lift_values(const int32_t (&x)[5], int i, int32_t &lo, int32_t &hi)
{
    hi = pcwt_lift_high(x[2], x[3], x[4]);
    const int32_t hm1 = i > 0 ? pcwt_lift_high(x[0], x[1], x[2]) : hi;
    lo = pcwt_lift_low(x[2], hm1, hi);
}

// Lifting outputs L[i], H[i] of a sequence read through get(k), k already mirrored by the caller
// (lift_values' steps; its own loads and order keep fwd_level1_511 within its registers).
template <typename Get>
__device__ inline void lift_pair(Get get, int i, int n, int32_t &lo, int32_t &hi)
{
    const int32_t x0 = get(mirror(2 * i, n)), x1 = get(mirror(2 * i + 1, n));
    const int32_t x2 = get(mirror(2 * i + 2, n));
    hi = pcwt_lift_high(x0, x1, x2);
    int32_t hm1 = hi;
    if (i > 0) {
        const int32_t xm1 = get(mirror(2 * i - 1, n)), xm2 = get(mirror(2 * i - 2, n));
        hm1 = pcwt_lift_high(xm2, xm1, x0);
    }
    lo = pcwt_lift_low(x0, hm1, hi);
}

// The 2x2 coefficients of all four bands at MQD element (x, y) of level e and their MQDs. Rows
// first: the row-transformed halves, read through src(half, k, j) (k: a row, already mirrored;
// j: a band column), are lifted along their columns; half 0 (row-low) gives LL and LH, half 1
// HL and HH. Columns first: the column-transformed halves, read through src(half, i, k) (i: a
// band row; k: a column, already mirrored), are lifted along their rows; half 0 (column-low) gives
// LL and HL, half 1 LH and HH.
// cost53: where given, gets the level-1 estimate (pcwt_bit_cost) of the high bands' coefficients.
template <bool COLUMNS_FIRST, typename Src>
__device__ inline int element_mqd(const GpuLevel &e, const GpuBand *bands, int32_t *i32, int8_t *i8,
                                  uint32_t x, uint32_t y, Src src, uint32_t *cost53 = nullptr)
{
    uint32_t a[2][2] = {{0, 0}, {0, 0}}; // [half][low, high] magnitude bits
    for (uint32_t half = 0; half < 2; half++) {
        const uint64_t lo_off = COLUMNS_FIRST ? (half ? bands[e.b_lh].coef : e.ll)
                                              : (half ? bands[e.b_hl].coef : e.ll);
        const uint64_t hi_off = COLUMNS_FIRST ? (half ? bands[e.b_hh].coef : bands[e.b_hl].coef)
                                              : (half ? bands[e.b_hh].coef : bands[e.b_lh].coef);
        for (uint32_t dy = 0; dy < 2; dy++) {
            const uint32_t j = 2 * y + dy;
            for (uint32_t dx = 0; dx < 2; dx++) {
                const uint32_t i = 2 * x + dx;
                int32_t lo = 0, hi = 0; // the padding row (rows first) or column (columns first)
                if constexpr (COLUMNS_FIRST) {
                    if (j < e.c / 2)
                        lift_pair([&](int k) { return src(half, i, k); }, int(j), int(e.c), lo, hi);
                } else if (i < e.r / 2) {
                    lift_pair([&](int k) { return src(half, k, j); }, int(i), int(e.r), lo, hi);
                }
                i32[lo_off + uint64_t(i) * e.bc + j] = lo;
                i32[hi_off + uint64_t(i) * e.bc + j] = hi;
                a[half][0] |= pcwt_magnitude(lo);
                a[half][1] |= pcwt_magnitude(hi);
                if (cost53) // half 0's low output is LL
                    *cost53 += (half ? pcwt_bit_cost(lo) : 0u) + pcwt_bit_cost(hi);
            }
        }
    }
    return COLUMNS_FIRST ? store_mqds(e, bands, i8, x, y, a[0][0], a[0][1], a[1][0], a[1][1])
                         : store_mqds(e, bands, i8, x, y, a[0][0], a[1][0], a[0][1], a[1][1]);
}

// Blocks of TY x TX MQD elements that cover rows x cols of them.
inline uint32_t tiles(uint32_t rows, uint32_t cols) { return ((cols + TX - 1) / TX) * ((rows + TY - 1) / TY); }

} // namespace
