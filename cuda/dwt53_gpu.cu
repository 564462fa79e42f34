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
template <bool COLUMNS_FIRST, typename Src>
__device__ inline int element_mqd(const GpuLevel &e, const GpuBand *bands, int32_t *i32, int8_t *i8,
                                  uint32_t x, uint32_t y, Src src)
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
                          int8_t *i8)
{
    __shared__ int32_t tile[FWD_TILE];
    const GpuLevel e = levels[blockIdx.y];
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

uint32_t tiles(uint32_t rows, uint32_t cols) { return ((cols + TX - 1) / TX) * ((rows + TY - 1) / TY); }

} // namespace

void gpu_dwt_forward_level(const DeviceBatch &b, const GpuLevel *lv, uint32_t count,
                           const GpuLevelMax &m, bool finest, cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        const dim3 grid(tiles(m.r / 4 + 1, m.bc / 2), n), block(TX, TY); // mr <= r / 4 + 1
        if (finest)
            fwd_level<true><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                   b.i32, b.i8);
        else
            fwd_level<false><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                    b.i32, b.i8);
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
