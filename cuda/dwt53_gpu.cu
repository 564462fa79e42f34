// dwt53_gpu.cu - B-LDWT+B on the GPU, the twin of codec/src/dwt53.c (the MQDs it stores as it goes:
// mqd_gpu.h, the twin of mqd.c).
// Each thread gathers the samples its outputs need through whole-sample symmetric index
// mirroring, so any partition of the work gives exactly the CPU's whole-row/column result.
// One kernel per level and direction, a tile per block, the row-transformed halves kept in shared
// memory. Forward: rows (level input -> row-low / row-high halves), then columns, which write the
// four bands and their MQDs (with the finer level's MQDs as children) and, on the top level, the
// plane's Qmax; level 1 reads the frame's samples. Inverse: columns, then rows, wrapping
// arithmetic as on the CPU; level 1 writes the samples of plain value planes itself. Levels of
// frames that lift columns first (header flag bit 3) take the other order in the same kernels, a
// branch per block: forward columns then rows, inverse rows then columns.
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "mqd_gpu.h"
#include "samples_gpu.h"

extern "C" {
#include "dwt53.h"
#include "mqd.h"
}

#include <algorithm>
#include <cstdlib>

namespace {

constexpr int TX = 32, TY = 8;


// Lifting outputs L[i], H[i] of a sequence read through get(k), k already mirrored by the caller.
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

// A level input value: the frame's samples on level 1 (IMPORT), else the finer level's LL.
template <bool IMPORT>
__device__ inline int32_t level_value(const GpuLevel &e, const GpuPlane *planes,
                                      const uint8_t *samples, const uint32_t *vmap, const int32_t *i32,
                                      uint32_t row, uint32_t col)
{
    if (IMPORT)
        return import_value(planes[e.plane], samples, vmap, row, col);
    return i32[e.in + uint64_t(row) * e.c + col];
}

// One forward level in a block of TY x TX MQD elements (16 band rows x 64 band columns). Rows
// first: the row pass of the 35 input rows their column lifting reads (their 32, two above, one
// below) goes to shared memory, and the column pass, with the MQDs, reads it from there. Columns
// first: the column pass of the 131 input columns their row lifting reads, for their 16 band rows,
// goes to shared memory (even and odd columns apart, so that a warp's reads hit twice as many
// banks), and the row pass reads it. On level 1 (IMPORT) the input is the frame's samples, not
// an imported image.
constexpr uint32_t FR = 4 * TY + 3, FC = 2 * TX;     // rows first: input rows x band columns
constexpr uint32_t CR = 2 * TY, CW = (4 * TX + 4) / 2; // columns first: band rows x column pairs
constexpr uint32_t FWD_TILE = 2 * FR * FC > 2 * CR * 2 * CW ? 2 * FR * FC : 2 * CR * 2 * CW;

template <bool IMPORT>
__global__ void fwd_level(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                          GpuPlaneState *state, const uint8_t *samples, const uint32_t *vmap, int32_t *i32,
                          int8_t *i8, bool skip_auto)
{
    __shared__ int32_t tile[FWD_TILE];
    const GpuLevel e = levels[blockIdx.y];
    if (IMPORT && skip_auto && planes[e.plane].level1 == PCWT_LEVEL1_AUTO)
        return; // the whole block: fwd_level1_511<true> lifts it
    const uint32_t mr = e.br / 2, mc = e.bc / 2;
    const uint32_t tiles_x = (mc + TX - 1) / TX;
    const uint32_t y0 = (blockIdx.x % tiles_x) * TX, x0 = (blockIdx.x / tiles_x) * TY;
    if (x0 >= mr || y0 >= mc)
        return; // the whole block: no thread waits at the barrier, none has an MQD
    const uint32_t tid = threadIdx.y * TX + threadIdx.x;
    const uint32_t x = x0 + threadIdx.y, y = y0 + threadIdx.x; // one MQD element a thread
    const bool mine = x < mr && y < mc;
    int top_m = -1;
    if (!e.columns_first) {
        auto half_rows = reinterpret_cast<int32_t(*)[FR][FC]>(tile); // [row-low, row-high][row - base][band column]
        const int base = int(4 * x0) - 2;
        for (uint32_t k = tid; k < FR * FC; k += TX * TY) { // rows
            const uint32_t t = k / FC, jj = k % FC, j = 2 * y0 + jj;
            const int row = base + int(t);
            if (row < 0 || row >= int(e.r) || j >= e.bc)
                continue; // never read
            int32_t lo = 0, hi = 0; // the padding column gets 0
            if (j < e.c / 2)
                lift_pair([&](int m) { return level_value<IMPORT>(e, planes, samples, vmap, i32, uint32_t(row), uint32_t(m)); },
                          int(j), int(e.c), lo, hi);
            half_rows[0][t][jj] = lo;
            half_rows[1][t][jj] = hi;
        }
        __syncthreads();
        if (mine)
            top_m = element_mqd<false>(e, bands, i32, i8, x, y, [&](uint32_t half, int k, uint32_t j) {
                return half_rows[half][k - base][j - 2 * y0];
            });
    } else {
        auto half_cols = reinterpret_cast<int32_t(*)[CR][2][CW]>(tile); // [column-low, -high][band row - 2 x0][parity][(column - base) / 2]
        const int base = int(4 * y0) - 2;
        for (uint32_t k = tid; k < CR * (2 * CW - 1); k += TX * TY) { // columns
            const uint32_t ii = k / (2 * CW - 1), t = k % (2 * CW - 1), i = 2 * x0 + ii;
            const int col = base + int(t);
            if (col < 0 || col >= int(e.c) || i >= e.br)
                continue; // never read
            int32_t lo = 0, hi = 0; // the padding row gets 0
            if (i < e.r / 2)
                lift_pair([&](int m) { return level_value<IMPORT>(e, planes, samples, vmap, i32, uint32_t(m), uint32_t(col)); },
                          int(i), int(e.r), lo, hi);
            half_cols[0][ii][t & 1][t >> 1] = lo;
            half_cols[1][ii][t & 1][t >> 1] = hi;
        }
        __syncthreads();
        if (mine)
            top_m = element_mqd<true>(e, bands, i32, i8, x, y, [&](uint32_t half, uint32_t i, int k) {
                const uint32_t t = uint32_t(k - base);
                return half_cols[half][i - 2 * x0][t & 1][t >> 1];
            });
    }
    if (e.top) // uniform per block: every thread of the block takes part in the warp reduction
        warp_qmax(top_m, &state[e.plane].qmax);
}

// Two outputs of the finest level straight into the frame's sample words, range-checked as by
// the export pass (planes_gpu.cu), which then skips the plane: the image is never written.
__device__ inline void export_pair(const GpuPlane &p, GpuPlaneState &st, uint8_t *samples,
                                   uint32_t row, uint32_t col, int32_t x0, int32_t x1)
{
    if (row >= p.rows || st.error)
        return; // the padding row; a failed plane's frame is reported, not written
    int32_t lo, hi;
    value_range(p, lo, hi);
    const bool second = col + 1 < p.cols; // else the padding column
    if (x0 < lo || x0 > hi || (second && (x1 < lo || x1 > hi))) {
        atomicCAS(&st.error, 0u, uint32_t(GPU_ERR_RANGE));
        return;
    }
    uint8_t *s = samples + p.sample_off;
    const uint64_t pixels = uint64_t(p.rows) * p.cols, px = uint64_t(row) * p.cols + col;
    const uint64_t k = sample_index(p.components, p.planar, pixels, p.comp, px);
    const uint32_t w0 = canonical(x0, p.bits_alloc), w1 = canonical(x1, p.bits_alloc);
    if (second && p.bits_alloc == 16 && (p.components == 1 || p.planar) && !(k & 1)) {
        reinterpret_cast<uint32_t *>(s)[k / 2] = w0 | w1 << 16; // adjacent words, one store
        return;
    }
    store_word(s, p.bits_alloc, k, w0);
    if (second)
        store_word(s, p.bits_alloc, sample_index(p.components, p.planar, pixels, p.comp, px + 1), w1);
}

// x[2k] from L[k] and H[k-1], H[k] (H[-1] = H[0]): the inverse update step.
__device__ inline int32_t inv_even(int32_t l, int32_t hm1, int32_t h)
{
    return pcwt_unlift_even(l, hm1, h);
}

// One inverse level in a block. Rows first (inverse: columns, then rows): the column pass of 2 * IT
// rows and IJ + 2 columns (one more each side, which the row pass reads) goes to shared memory,
// and the row pass reads it from there, so the row-transformed halves never travel through global
// memory. Columns first (inverse: rows, then columns): the row pass of the CI + 2 band rows
// (one more each side) of CJ band columns goes to shared memory, and a thread's column pass makes
// the 2x2 outputs of a band position, in two band rows.
constexpr uint32_t IT = 8, IJ = 62, IW = IJ + 2; // IW: 64 columns, 1024 column items per block
constexpr uint32_t CI = 2 * TY, CJ = TX;
constexpr uint32_t INV_TILE = 2 * 2 * IT * IW > 2 * (CI + 2) * 2 * CJ ? 2 * 2 * IT * IW : 2 * (CI + 2) * 2 * CJ;

template <bool EXPORT>
__device__ inline void store_pair(const GpuLevel &e, const GpuPlane *planes, GpuPlaneState *state,
                                  int32_t *i32, uint8_t *samples, uint32_t row, uint32_t col,
                                  int32_t x0, int32_t x1)
{
    if (EXPORT && exported_by_inverse(planes[e.plane])) {
        export_pair(planes[e.plane], state[e.plane], samples, row, col, x0, x1);
        return;
    }
    int32_t *out = i32 + e.in + uint64_t(row) * e.c + col;
    out[0] = x0;
    out[1] = x1;
}

template <bool EXPORT>
__global__ void inv_level(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                          GpuPlaneState *state, int32_t *i32, uint8_t *samples)
{
    __shared__ int32_t tile[INV_TILE];
    const GpuLevel e = levels[blockIdx.y];
    if (EXPORT && planes[e.plane].level1 == PCWT_LEVEL1_511)
        return; // the whole block: inv_level1_511's
    const uint32_t N = e.r / 2, M = e.c / 2;
    const uint32_t tw = e.columns_first ? CJ : IJ, th = e.columns_first ? CI : IT;
    const uint32_t tiles_x = (M + tw - 1) / tw;
    const uint32_t j0 = (blockIdx.x % tiles_x) * tw, i0 = (blockIdx.x / tiles_x) * th;
    if (i0 >= N || j0 >= M)
        return; // the whole block: no thread waits at the barrier
    const uint64_t s = e.bc;
    const uint32_t tid = threadIdx.y * TX + threadIdx.x;
    if (e.columns_first) {
        auto half_cols = reinterpret_cast<int32_t(*)[CI + 2][2 * CJ]>(tile); // [column-low, -high][band row - i0 + 1][column - 2 j0]
        for (uint32_t k = tid; k < 2 * (CI + 2) * CJ; k += TX * TY) { // rows: columns 2j, 2j+1
            const uint32_t half = k / ((CI + 2) * CJ), rr = k / CJ % (CI + 2), jl = k % CJ;
            const int i = int(i0 + rr) - 1;
            const uint32_t j = j0 + jl;
            if (i < 0 || i >= int(N) || j >= M)
                continue; // never read
            const int32_t *L = i32 + (half ? bands[e.b_lh].coef : e.ll) + uint64_t(i) * s;
            const int32_t *H = i32 + (half ? bands[e.b_hh].coef : bands[e.b_hl].coef) + uint64_t(i) * s;
            const int32_t hi = H[j], hm1 = j ? H[j - 1] : hi;
            const int32_t x0 = inv_even(L[j], hm1, hi);
            const int32_t x2 = j + 1 < M ? inv_even(L[j + 1], hi, H[j + 1]) : x0; // x[2M] = x[2M-2]
            half_cols[half][rr][2 * jl] = x0;
            half_cols[half][rr][2 * jl + 1] = pcwt_unlift_odd(hi, x0, x2);
        }
        __syncthreads();
        const uint32_t j = j0 + threadIdx.x;
        for (uint32_t ti = threadIdx.y; ti < CI && j < M; ti += TY) {
            const uint32_t i = i0 + ti, rr = ti + 1;
            if (i >= N)
                break;
            int32_t out[2][2]; // [row 2i, 2i + 1][column 2j, 2j + 1]
            for (uint32_t cc = 0; cc < 2; cc++) { // columns
                const uint32_t col = 2 * threadIdx.x + cc;
                const int32_t hi = half_cols[1][rr][col], hm1 = i ? half_cols[1][rr - 1][col] : hi;
                const int32_t x0 = inv_even(half_cols[0][rr][col], hm1, hi);
                const int32_t x2 = i + 1 < N ? inv_even(half_cols[0][rr + 1][col], hi, half_cols[1][rr + 1][col]) : x0;
                out[0][cc] = x0;
                out[1][cc] = pcwt_unlift_odd(hi, x0, x2);
            }
            store_pair<EXPORT>(e, planes, state, i32, samples, 2 * i, 2 * j, out[0][0], out[0][1]);
            store_pair<EXPORT>(e, planes, state, i32, samples, 2 * i + 1, 2 * j, out[1][0], out[1][1]);
        }
        return;
    }
    auto half_rows = reinterpret_cast<int32_t(*)[2 * IT][IW]>(tile); // [row-low, row-high][output row][column + 1]
    for (uint32_t k = tid; k < 2 * IT * IW; k += TX * TY) { // columns: rows 2i, 2i+1 of a half
        const uint32_t half = k / (IT * IW), ii = k / IW % IT, jj = k % IW;
        const uint32_t i = i0 + ii;
        const int jc = int(j0 + jj) - 1;
        if (i >= N || jc < 0 || jc >= int(M))
            continue;
        const int32_t *L = i32 + (half ? bands[e.b_hl].coef : e.ll) + jc;
        const int32_t *H = i32 + (half ? bands[e.b_hh].coef : bands[e.b_lh].coef) + jc;
        const int32_t hi = H[i * s], hm1 = i ? H[(i - 1) * s] : hi;
        const int32_t x0 = inv_even(L[i * s], hm1, hi);
        const int32_t x2 = i + 1 < N ? inv_even(L[(i + 1) * s], hi, H[(i + 1) * s]) : x0; // x[2N] = x[2N-2]
        half_rows[half][2 * ii][jj] = x0;
        half_rows[half][2 * ii + 1][jj] = pcwt_unlift_odd(hi, x0, x2);
    }
    __syncthreads();
    for (uint32_t rr = threadIdx.y; rr < 2 * IT; rr += TY) { // rows: outputs 2j, 2j+1
        const uint32_t row = 2 * i0 + rr;
        if (row >= e.r)
            break;
        const int32_t *L = half_rows[0][rr], *H = half_rows[1][rr];
        for (uint32_t jl = threadIdx.x; jl < IJ && j0 + jl < M; jl += TX) {
            const uint32_t j = j0 + jl;
            const int32_t hi = H[jl + 1], hm1 = j ? H[jl] : hi;
            const int32_t x0 = inv_even(L[jl + 1], hm1, hi);
            const int32_t x2 = j + 1 < M ? inv_even(L[jl + 2], hi, H[jl + 2]) : x0;
            store_pair<EXPORT>(e, planes, state, i32, samples, row, 2 * j, x0, pcwt_unlift_odd(hi, x0, x2));
        }
    }
}

// ---- 5/11-C at level 1 (docs/FORMAT.md Sec. 3.4): dwt53.c's forward_level and inverse with f511 ----

// The forward of a tile of TY x TX MQD elements (L5R band rows x L5C band columns, as fwd_level's)
// with the halos that the third steps read (low rows or columns k-1 .. k+2 of the high one k),
// each pass into shared memory. Columns first: the column halves of the tile's band rows (low:
// one above, two below) for the input columns that the row lifts read, the columns' third step
// on the high half, then the row lifts of both halves (band columns one left, two right, for
// the rows' third step). Rows first: the row halves of the input rows that the column lifts read
// (low: band columns one left, two right), the rows' third step, then the column lifts (band rows
// one above, two below, for the columns' third step). EST: the level 1 of the planes of auto,
// in place of fwd_level's: the 5/3 bands and MQDs from the first pass's halves (a superset of
// fwd_level's, read before the third step changes them), and the bit lengths of the high bands
// with 5/3 and with 5/11-C added to the plane's estimates, from the same loads of the samples
// (level1_decide then leaves out the planes that model their low bits), the 5/11-C bands kept
// in the plane's image (unused on encode) for gpu_mqd_level_511 to take; columns first,
// the 5/3 bands come from the row lifts that 5/11-C's LL and HL take too. Else the planes whose
// level1 is 511 get its bands over the 5/3 ones (LL is the same with either filter). The samples
// that the first pass reads (SR input rows x SC input columns) are imported once into shared
// memory (where the second pass's halves go later) and lifted from there.
constexpr uint32_t L5R = 2 * TY, L5C = 2 * TX;       // band rows, band columns of a tile
constexpr uint32_t CW5 = 2 * L5C + 9, CM5 = L5C + 3; // columns first: input columns, row lifts
constexpr uint32_t RH5 = 2 * L5R + 9, RW5 = L5C + 3; // rows first: input rows, low band columns
constexpr uint32_t SR = RH5, SC = CW5;               // staged samples, either order
constexpr uint32_t CWH = (CW5 + 1) / 2;              // columns first: a half row's even columns
constexpr uint32_t F511_CF = (2 * L5R + 3) * 2 * CWH + std::max(4 * L5R * CM5, SR * SC);
constexpr uint32_t F511_RF = RH5 * (RW5 + L5C) + std::max(4 * (L5R + 3) * L5C, SR * SC);
constexpr uint32_t F511_TILE = F511_CF > F511_RF ? F511_CF : F511_RF;

// Columns first: the rows of the column pass's halves, their even and odd input columns apart, so
// that the lifts along a row (a warp's read every other column) hit twice as many banks.
struct SplitRow {
    int32_t *p;
    __device__ int32_t &operator[](int u) const { return p[(u & 1) * int(CWH) + (u >> 1)]; }
};
struct SplitRows {
    int32_t *p;
    __device__ SplitRow operator[](int t) const { return {p + t * int(2 * CWH)}; }
};

// The SR x SC samples from input row qb, column jb that a tile's first pass reads, imported once
// into shared memory (either lifting order); those outside the plane are never read.
__device__ inline void stage_samples(int32_t (*S)[SC], const GpuPlane &pl, const uint8_t *samples,
                                     const uint32_t *vmap, int qb, int jb, int R, int C, uint32_t tid,
                                     uint32_t nt)
{
    for (uint32_t k = tid; k < SR * SC; k += nt) {
        const int q = qb + int(k / SC), j = jb + int(k % SC);
        if (q >= 0 && q < R && j >= 0 && j < C)
            S[q - qb][j - jb] = import_value(pl, samples, vmap, uint32_t(q), uint32_t(j));
    }
    __syncthreads();
}

template <bool EST, int MINB>
__global__ void __launch_bounds__(TX * TY, MINB) fwd_level1_511(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                               GpuPlaneState *state, const uint8_t *samples, const uint32_t *vmap,
                               int32_t *i32, int8_t *i8)
{
    __shared__ int32_t tile[F511_TILE];
    __shared__ uint32_t block_cost[2][TY]; // [5/3, 5/11-C][warp]
    const GpuLevel e = levels[blockIdx.y];
    if (EST ? planes[e.plane].level1 != PCWT_LEVEL1_AUTO
            : !state[e.plane].f511 || planes[e.plane].level1 == PCWT_LEVEL1_AUTO)
        return; // the whole block (auto's 5/11-C bands: mqd_level_511 takes them)
    const uint32_t mr = e.br / 2, mc = e.bc / 2, tiles_x = (mc + TX - 1) / TX;
    const uint32_t y0 = (blockIdx.x % tiles_x) * TX, x0 = (blockIdx.x / tiles_x) * TY;
    if (x0 >= mr || y0 >= mc)
        return; // the whole block
    const int N = int(e.r / 2), M = int(e.c / 2), R = int(e.r), C = int(e.c);
    const int i0 = int(2 * x0), m0 = int(2 * y0);
    const uint32_t tid = threadIdx.y * TX + threadIdx.x, nt = TX * TY;
    const GpuPlane &pl = planes[e.plane];
    const uint32_t x = x0 + threadIdx.y, y = y0 + threadIdx.x; // one MQD element a thread
    const bool mine = x < mr && y < mc;
    int32_t out[2][2][3] = {}; // [dy][dx][HL, LH, HH]; 0 in the padding
    uint32_t n53 = 0;
    int top_m = -1;
    if (e.columns_first) {
        const SplitRows LO{tile}, HI{tile + (L5R + 3) * 2 * CWH}; // band rows i0-1 .., i0 ..
        auto RS = reinterpret_cast<int32_t(*)[L5R][CM5]>(tile + (2 * L5R + 3) * 2 * CWH); // LL, HL, LH, HH
        auto S = reinterpret_cast<int32_t(*)[SC]>(tile + (2 * L5R + 3) * 2 * CWH); // under RS, used before it
        const int jb = 2 * m0 - 4, qb = 2 * i0 - 4; // the first input column, row
        stage_samples(S, pl, samples, vmap, qb, jb, R, C, tid, nt);
        for (uint32_t k = tid; k < (L5R + 3) * CW5; k += nt) { // columns: 5/3
            const int t = int(k / CW5), u = int(k % CW5), i = i0 - 1 + t, j = jb + u;
            if (i < 0 || (!EST && i >= N) || j < 0 || j >= C)
                continue; // never read
            int32_t lo = 0, hi = 0; // the padding rows (EST's 5/3 reads them) get 0, as in fwd_level
            if (i < N)
                lift_pair([&](int q) { return S[q - qb][u]; }, i, R, lo, hi);
            LO[t][u] = lo;
            if (t >= 1 && t <= int(L5R))
                HI[t - 1][u] = hi;
        }
        __syncthreads();
        const auto row_lifts = [&](bool low) { // rows: 5/3 of the low half (LL, HL) or the high one
            for (uint32_t k = tid; k < L5R * CM5; k += nt) {
                const int t = int(k / CM5), v = int(k % CM5), i = i0 + t, m = m0 - 1 + v;
                if (i >= N || m < 0 || m >= M)
                    continue;
                if (low)
                    lift_pair([&](int q) { return LO[t + 1][q - jb]; }, m, C, RS[0][t][v], RS[1][t][v]);
                else
                    lift_pair([&](int q) { return HI[t][q - jb]; }, m, C, RS[2][t][v], RS[3][t][v]);
            }
        };
        row_lifts(true);
        if (EST) { // 5/3's LH and HH too: the 5/3 bands and MQDs, as element_mqd makes them
            row_lifts(false);
            __syncthreads();
            if (mine) {
                uint32_t a[4] = {0, 0, 0, 0}; // LL, HL, LH, HH magnitude bits
                const uint64_t off[4] = {e.ll, bands[e.b_hl].coef, bands[e.b_lh].coef, bands[e.b_hh].coef};
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++) {
                        const int t = int(2 * threadIdx.y) + dy, i = i0 + t, m = m0 + int(2 * threadIdx.x) + dx;
                        for (int h = 0; h < 4; h++) {
                            const int32_t c = i < N && m < M ? RS[h][t][m - (m0 - 1)] : 0; // else padding
                            i32[off[h] + uint64_t(i) * e.bc + uint64_t(m)] = c;
                            a[h] |= pcwt_magnitude(c);
                            n53 += h ? pcwt_bit_cost(c) : 0u;
                        }
                    }
                top_m = store_mqds(e, bands, i8, x, y, a[0], a[1], a[2], a[3]);
            }
        }
        for (uint32_t k = tid; k < L5R * CW5; k += nt) { // the columns' third step
            const int t = int(k / CW5), u = int(k % CW5), i = i0 + t, j = jb + u;
            if (i >= N || j < 0 || j >= C)
                continue;
            const auto lo = [&](int q) { return LO[int(pcwt_refl511(q, uint32_t(N))) - (i0 - 1)][u]; };
            HI[t][u] = pcwt_wadd(HI[t][u], pcwt_c511(lo(i - 1), lo(i), lo(i + 1), lo(i + 2)));
        }
        __syncthreads();
        row_lifts(false); // of the high half with the third step
        __syncthreads();
        const auto rv = [&](int q) { return int(pcwt_refl511(q, uint32_t(M))) - (m0 - 1); };
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                const int t = int(2 * threadIdx.y) + dy, i = i0 + t, m = m0 + int(2 * threadIdx.x) + dx;
                if (i >= N || m >= M)
                    continue;
                const int v = m - (m0 - 1);
                const int32_t *ll = RS[0][t], *lh = RS[2][t];
                out[dy][dx][0] = pcwt_wadd(RS[1][t][v], pcwt_c511(ll[rv(m - 1)], ll[v], ll[rv(m + 1)], ll[rv(m + 2)]));
                out[dy][dx][1] = lh[v];
                out[dy][dx][2] = pcwt_wadd(RS[3][t][v], pcwt_c511(lh[rv(m - 1)], lh[v], lh[rv(m + 1)], lh[rv(m + 2)]));
            }
    } else {
        auto LO = reinterpret_cast<int32_t(*)[RW5]>(tile);                          // band columns m0-1 ..
        auto HI = reinterpret_cast<int32_t(*)[L5C]>(tile + RH5 * RW5);               // band columns m0 ..
        auto CS = reinterpret_cast<int32_t(*)[L5R + 3][L5C]>(tile + RH5 * (RW5 + L5C)); // LL, LH, HL, HH
        auto S = reinterpret_cast<int32_t(*)[SC]>(tile + RH5 * (RW5 + L5C)); // under CS, used before it
        const int qb = 2 * i0 - 4, jb = 2 * m0 - 4; // the first input row, column
        stage_samples(S, pl, samples, vmap, qb, jb, R, C, tid, nt);
        for (uint32_t k = tid; k < RH5 * RW5; k += nt) { // rows: 5/3
            const int a = int(k / RW5), b = int(k % RW5), q = qb + a, m = m0 - 1 + b;
            if (q < 0 || q >= R || m < 0 || (!EST && m >= M))
                continue; // never read
            int32_t lo = 0, hi = 0; // the padding columns (EST's 5/3 reads them) get 0, as in fwd_level
            if (m < M)
                lift_pair([&](int j) { return S[a][j - jb]; }, m, C, lo, hi);
            LO[a][b] = lo;
            if (b >= 1 && b <= int(L5C))
                HI[a][b - 1] = hi;
        }
        __syncthreads();
        if (EST) {
            if (mine)
                top_m = element_mqd<false>(e, bands, i32, i8, x, y, [&](uint32_t half, int k, uint32_t j) {
                    return half ? HI[k - qb][int(j) - m0] : LO[k - qb][int(j) - (m0 - 1)];
                }, &n53);
            __syncthreads(); // the third step rewrites HI
        }
        for (uint32_t k = tid; k < RH5 * L5C; k += nt) { // the rows' third step
            const int a = int(k / L5C), w = int(k % L5C), q = qb + a, m = m0 + w;
            if (q < 0 || q >= R || m >= M)
                continue;
            const auto lo = [&](int j) { return LO[a][int(pcwt_refl511(j, uint32_t(M))) - (m0 - 1)]; };
            HI[a][w] = pcwt_wadd(HI[a][w], pcwt_c511(lo(m - 1), lo(m), lo(m + 1), lo(m + 2)));
        }
        __syncthreads();
        for (uint32_t k = tid; k < (L5R + 3) * L5C; k += nt) { // columns: 5/3
            const int t = int(k / L5C), w = int(k % L5C), i = i0 - 1 + t, m = m0 + w;
            if (i < 0 || i >= N || m >= M)
                continue;
            lift_pair([&](int q) { return LO[q - qb][w + 1]; }, i, R, CS[0][t][w], CS[1][t][w]);
            lift_pair([&](int q) { return HI[q - qb][w]; }, i, R, CS[2][t][w], CS[3][t][w]);
        }
        __syncthreads();
        const auto rt = [&](int q) { return int(pcwt_refl511(q, uint32_t(N))) - (i0 - 1); };
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                const int i = i0 + int(2 * threadIdx.y) + dy, t = i - (i0 - 1);
                const int w = int(2 * threadIdx.x) + dx, m = m0 + w;
                if (i >= N || m >= M)
                    continue;
                const auto low = [&](int h, int q) { return CS[h][rt(q)][w]; };
                out[dy][dx][0] = CS[2][t][w];
                out[dy][dx][1] = pcwt_wadd(CS[1][t][w], pcwt_c511(low(0, i - 1), low(0, i), low(0, i + 1), low(0, i + 2)));
                out[dy][dx][2] = pcwt_wadd(CS[3][t][w], pcwt_c511(low(2, i - 1), low(2, i), low(2, i + 1), low(2, i + 2)));
            }
    }
    if (EST) { // every thread of the block is here
        const uint64_t nm = uint64_t(N) * uint64_t(M), at = pl.image; // its image: unused on encode
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                const int i = i0 + int(2 * threadIdx.y) + dy, m = m0 + int(2 * threadIdx.x) + dx;
                if (i < N && m < M)
                    for (int o = 0; o < 3; o++) // HL, LH, HH, each N x M
                        i32[at + uint64_t(o) * nm + uint64_t(i) * uint64_t(M) + uint64_t(m)] = out[dy][dx][o];
            }
        uint32_t n511 = 0;
        for (uint32_t dy = 0; dy < 2; dy++) // 0 outside the band (out's padding), as n53's
            for (uint32_t dx = 0; dx < 2; dx++)
                for (int o = 0; o < 3; o++)
                    n511 += pcwt_bit_cost(out[dy][dx][o]);
        for (int off = 16; off > 0; off >>= 1) {
            n53 += __shfl_xor_sync(0xffffffffu, n53, off);
            n511 += __shfl_xor_sync(0xffffffffu, n511, off);
        }
        if (threadIdx.x == 0) { // a warp a row of the block
            block_cost[0][threadIdx.y] = n53;
            block_cost[1][threadIdx.y] = n511;
        }
        __syncthreads();
        if (tid < 2) {
            unsigned long long sum = 0;
            for (uint32_t w = 0; w < TY; w++)
                sum += block_cost[tid][w];
            if (sum)
                atomicAdd(tid ? &state[e.plane].cost511 : &state[e.plane].cost53, sum);
        }
        if (e.top) // a plane of one level: its Qmax, as fwd_level's
            warp_qmax(top_m, &state[e.plane].qmax);
        return;
    }
    if (!mine)
        return;
    const uint64_t band[3] = {bands[e.b_hl].coef, bands[e.b_lh].coef, bands[e.b_hh].coef};
    for (uint32_t dy = 0; dy < 2; dy++)
        for (uint32_t dx = 0; dx < 2; dx++)
            for (int o = 0; o < 3; o++)
                i32[band[o] + uint64_t(2 * x + dy) * e.bc + 2 * y + dx] = out[dy][dx][o];
}

// The inverse's first step on a 5/11-C level 1: the third step of the forward's last pass taken
// out of the bands, in place (the rows' from HL and HH, or the columns' from LH and HH; LL and the
// other high band, which it reads, stay).
__global__ void undo_last_step_511(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                                   int32_t *i32)
{
    const GpuLevel e = levels[blockIdx.y];
    if (planes[e.plane].level1 != PCWT_LEVEL1_511)
        return;
    const uint32_t N = e.r / 2, M = e.c / 2;
    const uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= uint64_t(N) * M)
        return;
    const uint32_t i = uint32_t(k / M), m = uint32_t(k % M);
    const uint64_t s = e.bc;
    if (e.columns_first) { // along the row: HL from LL, HH from LH
        for (int h = 0; h < 2; h++) {
            const int32_t *l = i32 + (h ? bands[e.b_lh].coef : e.ll) + i * s;
            int32_t &o = i32[(h ? bands[e.b_hh].coef : bands[e.b_hl].coef) + i * s + m];
            o = pcwt_wsub(o, pcwt_c511(l[pcwt_refl511(int64_t(m) - 1, M)], l[m], l[pcwt_refl511(int64_t(m) + 1, M)],
                                       l[pcwt_refl511(int64_t(m) + 2, M)]));
        }
    } else { // down the column: LH from LL, HH from HL
        for (int h = 0; h < 2; h++) {
            const int32_t *l = i32 + (h ? bands[e.b_hl].coef : e.ll) + m;
            int32_t &o = i32[(h ? bands[e.b_hh].coef : bands[e.b_lh].coef) + i * s + m];
            o = pcwt_wsub(o, pcwt_c511(l[pcwt_refl511(int64_t(i) - 1, N) * s], l[i * s],
                                       l[pcwt_refl511(int64_t(i) + 1, N) * s], l[pcwt_refl511(int64_t(i) + 2, N) * s]));
        }
    }
}

// The rest of a 5/11-C level 1's inverse, inv_level's with the first pass's third step undone
// between its two passes, in shared memory with the halos it reads. Columns first (inverse: rows,
// then columns): the row inverses of the column-low half (band rows two above, two below the
// tile's) and the column-high half (one above, one below), the step undone on the high rows, then
// the column inverse. Rows first (inverse: columns, then rows): the column inverses of the
// row-low half (band columns two left, three right) and the row-high half (one left, one right),
// the step undone on the high columns, then the row inverse. Writes the samples as inv_level's
// finest level does.
constexpr uint32_t J5I = 2 * TY, J5J = TX;          // columns first: band rows, column pairs
constexpr uint32_t I5T = 8, I5J = 59;               // rows first: band rows, band columns
constexpr uint32_t I5L = I5J + 5, I5H = I5J + 2;    // rows first: low, high columns kept
constexpr uint32_t INV511_CF = (2 * J5I + 7) * 2 * J5J, INV511_RF = 2 * I5T * (I5L + I5H);
constexpr uint32_t INV511_TILE = INV511_CF > INV511_RF ? INV511_CF : INV511_RF;

__global__ void inv_level1_511(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                               GpuPlaneState *state, int32_t *i32, uint8_t *samples)
{
    __shared__ int32_t tile[INV511_TILE];
    const GpuLevel e = levels[blockIdx.y];
    if (planes[e.plane].level1 != PCWT_LEVEL1_511)
        return; // the whole block
    const int N = int(e.r / 2), M = int(e.c / 2);
    const uint32_t tw = e.columns_first ? J5J : I5J, th = e.columns_first ? J5I : I5T;
    const uint32_t tiles_x = (uint32_t(M) + tw - 1) / tw;
    const int j0 = int((blockIdx.x % tiles_x) * tw), i0 = int((blockIdx.x / tiles_x) * th);
    if (i0 >= N || j0 >= M)
        return; // the whole block
    const uint64_t s = e.bc;
    const uint32_t tid = threadIdx.y * TX + threadIdx.x, nt = TX * TY;
    if (e.columns_first) {
        auto LO = reinterpret_cast<int32_t(*)[2 * J5J]>(tile);                   // band rows i0-2 ..
        auto HI = reinterpret_cast<int32_t(*)[2 * J5J]>(tile + (J5I + 5) * 2 * J5J); // band rows i0-1 ..
        for (uint32_t k = tid; k < (2 * J5I + 7) * J5J; k += nt) { // rows: columns 2j, 2j+1
            const uint32_t rr = k / J5J, jl = k % J5J;
            const bool low = rr < J5I + 5;
            const int t = low ? int(rr) : int(rr - (J5I + 5)), i = (low ? i0 - 2 : i0 - 1) + t;
            const int j = j0 + int(jl);
            if (i < 0 || i >= N || j >= M)
                continue; // never read
            const int32_t *L = i32 + (low ? e.ll : bands[e.b_lh].coef) + uint64_t(i) * s;
            const int32_t *H = i32 + (low ? bands[e.b_hl].coef : bands[e.b_hh].coef) + uint64_t(i) * s;
            const int32_t hi = H[j], hm1 = j ? H[j - 1] : hi;
            const int32_t x0 = inv_even(L[j], hm1, hi);
            const int32_t x2 = j + 1 < M ? inv_even(L[j + 1], hi, H[j + 1]) : x0;
            int32_t *row = low ? LO[t] : HI[t];
            row[2 * jl] = x0;
            row[2 * jl + 1] = pcwt_unlift_odd(hi, x0, x2);
        }
        __syncthreads();
        for (uint32_t k = tid; k < (J5I + 2) * 2 * J5J; k += nt) { // the columns' third step
            const int t = int(k / (2 * J5J)), col = int(k % (2 * J5J)), i = i0 - 1 + t;
            if (i < 0 || i >= N || j0 + col / 2 >= M)
                continue;
            const auto lo = [&](int q) { return LO[int(pcwt_refl511(q, uint32_t(N))) - (i0 - 2)][col]; };
            HI[t][col] = pcwt_wsub(HI[t][col], pcwt_c511(lo(i - 1), lo(i), lo(i + 1), lo(i + 2)));
        }
        __syncthreads();
        const int j = j0 + int(threadIdx.x);
        for (uint32_t ti = threadIdx.y; ti < J5I && j < M; ti += TY) { // columns
            const int i = i0 + int(ti);
            if (i >= N)
                break;
            int32_t out[2][2]; // [row 2i, 2i + 1][column 2j, 2j + 1]
            for (uint32_t cc = 0; cc < 2; cc++) {
                const uint32_t col = 2 * threadIdx.x + cc;
                const int32_t hi = HI[ti + 1][col], hm1 = i ? HI[ti][col] : hi;
                const int32_t x0 = inv_even(LO[ti + 2][col], hm1, hi);
                const int32_t x2 = i + 1 < N ? inv_even(LO[ti + 3][col], hi, HI[ti + 2][col]) : x0;
                out[0][cc] = x0;
                out[1][cc] = pcwt_unlift_odd(hi, x0, x2);
            }
            store_pair<true>(e, planes, state, i32, samples, uint32_t(2 * i), uint32_t(2 * j), out[0][0], out[0][1]);
            store_pair<true>(e, planes, state, i32, samples, uint32_t(2 * i + 1), uint32_t(2 * j), out[1][0], out[1][1]);
        }
        return;
    }
    auto LO = reinterpret_cast<int32_t(*)[I5L]>(tile);               // band columns j0-2 ..
    auto HI = reinterpret_cast<int32_t(*)[I5H]>(tile + 2 * I5T * I5L); // band columns j0-1 ..
    for (uint32_t k = tid; k < I5T * (I5L + I5H); k += nt) { // columns: rows 2i, 2i+1
        const uint32_t ii = k / (I5L + I5H), c = k % (I5L + I5H);
        const bool low = c < I5L;
        const int col = low ? int(c) : int(c - I5L), jc = (low ? j0 - 2 : j0 - 1) + col;
        const int i = i0 + int(ii);
        if (i >= N || jc < 0 || jc >= M)
            continue; // never read
        const int32_t *L = i32 + (low ? e.ll : bands[e.b_hl].coef) + jc;
        const int32_t *H = i32 + (low ? bands[e.b_lh].coef : bands[e.b_hh].coef) + jc;
        const int32_t hi = H[i * s], hm1 = i ? H[(i - 1) * s] : hi;
        const int32_t x0 = inv_even(L[i * s], hm1, hi);
        const int32_t x2 = i + 1 < N ? inv_even(L[(i + 1) * s], hi, H[(i + 1) * s]) : x0;
        const int32_t x1 = pcwt_unlift_odd(hi, x0, x2);
        if (low) {
            LO[2 * ii][col] = x0;
            LO[2 * ii + 1][col] = x1;
        } else {
            HI[2 * ii][col] = x0;
            HI[2 * ii + 1][col] = x1;
        }
    }
    __syncthreads();
    for (uint32_t k = tid; k < 2 * I5T * I5H; k += nt) { // the rows' third step
        const uint32_t rr = k / I5H;
        const int col = int(k % I5H), jc = j0 - 1 + col;
        if (i0 + int(rr / 2) >= N || jc < 0 || jc >= M)
            continue;
        const auto lo = [&](int q) { return LO[rr][int(pcwt_refl511(q, uint32_t(M))) - (j0 - 2)]; };
        HI[rr][col] = pcwt_wsub(HI[rr][col], pcwt_c511(lo(jc - 1), lo(jc), lo(jc + 1), lo(jc + 2)));
    }
    __syncthreads();
    for (uint32_t rr = threadIdx.y; rr < 2 * I5T; rr += TY) { // rows: outputs 2j, 2j+1
        const uint32_t row = uint32_t(2 * i0) + rr;
        if (row >= e.r)
            break;
        for (uint32_t jl = threadIdx.x; jl < I5J && j0 + int(jl) < M; jl += TX) {
            const int j = j0 + int(jl);
            const int32_t hi = HI[rr][jl + 1], hm1 = j ? HI[rr][jl] : hi;
            const int32_t x0 = inv_even(LO[rr][jl + 2], hm1, hi);
            const int32_t x2 = j + 1 < M ? inv_even(LO[rr][jl + 3], hi, HI[rr][jl + 2]) : x0;
            store_pair<true>(e, planes, state, i32, samples, row, uint32_t(2 * j), x0, pcwt_unlift_odd(hi, x0, x2));
        }
    }
}

uint32_t tiles(uint32_t rows, uint32_t cols) { return ((cols + TX - 1) / TX) * ((rows + TY - 1) / TY); }

template <bool EST>
void launch_511(dim3 grid, cudaStream_t s, const DeviceBatch &b, const GpuLevel *lv)
{
    const char *minb = std::getenv("PCWT_GPU_L1_MINB"); // A/B for the checkpoint run only
    if (minb && std::atoi(minb) == 5)
        fwd_level1_511<EST, 5><<<grid, dim3(TX, TY), 0, s>>>(lv, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                             b.i32, b.i8);
    else
        fwd_level1_511<EST, 4><<<grid, dim3(TX, TY), 0, s>>>(lv, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                             b.i32, b.i8);
}

} // namespace

void gpu_dwt_forward_level(const DeviceBatch &b, const GpuLevel *lv, uint32_t count,
                           const GpuLevelMax &m, bool finest, bool level1_auto, bool all_auto,
                           cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        const dim3 grid(tiles(m.r / 4 + 1, m.bc / 2), n), block(TX, TY); // mr <= r / 4 + 1
        if (finest) {
            if (!all_auto)
                fwd_level<true><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.samples,
                                                       b.vmap, b.i32, b.i8, level1_auto);
            CUDA_CHECK_LAUNCH();
            if (level1_auto) // the planes of auto: 5/3 and both estimates (the same tiles)
                launch_511<true>(grid, s, b, lv + first);
        } else {
            fwd_level<false><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                    b.i32, b.i8, false);
        }
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_dwt_inverse_level(const DeviceBatch &b, const GpuLevel *lv, uint32_t count,
                           const GpuLevelMax &m, bool finest, cudaStream_t s)
{
    // each plane takes the tiles of its lifting order; the blocks past them return at once
    const uint32_t rows_blocks = ((m.bc + IJ - 1) / IJ) * ((m.r / 2 + IT - 1) / IT);
    const uint32_t cols_blocks = ((m.bc + CJ - 1) / CJ) * ((m.r / 2 + CI - 1) / CI);
    const uint32_t blocks =
        std::max(m.rows_first ? rows_blocks : 0u, m.columns_first ? cols_blocks : 0u);
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        const dim3 grid(blocks, n), block(TX, TY);
        if (finest)
            inv_level<true><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.i32, b.samples);
        else
            inv_level<false><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.i32, b.samples);
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_dwt511_level1(const DeviceBatch &b, const GpuLevel *lv, uint32_t count, const GpuLevelMax &m,
                       uint32_t plane_count, bool any_511, cudaStream_t s)
{
    gpu_level1_choose(b, plane_count, s);
    if (!any_511)
        return; // auto's planes only: their blocks would all return at once
    const uint32_t blocks = tiles(m.r / 4 + 1, m.bc / 2);
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        launch_511<false>(dim3(blocks, n), s, b, lv + first); // level1 511 only
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_dwt511_inverse_level1(const DeviceBatch &b, const GpuLevel *lv, uint32_t count,
                               const GpuLevelMax &m, cudaStream_t s)
{
    const uint64_t N = m.r / 2, M = m.bc; // at least each plane's
    const uint32_t rows_blocks = uint32_t(((M + I5J - 1) / I5J) * ((N + I5T - 1) / I5T));
    const uint32_t cols_blocks = uint32_t(((M + J5J - 1) / J5J) * ((N + J5I - 1) / J5I));
    const uint32_t blocks =
        std::max(m.rows_first ? rows_blocks : 0u, m.columns_first ? cols_blocks : 0u);
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        undo_last_step_511<<<dim3(gpu_blocks(N * M, 256), n), 256, 0, s>>>(lv + first, b.bands, b.planes, b.i32);
        CUDA_CHECK_LAUNCH();
        inv_level1_511<<<dim3(blocks, n), dim3(TX, TY), 0, s>>>(lv + first, b.bands, b.planes, b.state,
                                                               b.i32, b.samples);
        CUDA_CHECK_LAUNCH();
    });
}
