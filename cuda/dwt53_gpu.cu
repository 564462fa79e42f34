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
#include "dwt_lift_gpu.h"
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
// Columns first: the column items whose input loads a thread issues together (one item's waited
// on the previous one's shared stores otherwise).
constexpr uint32_t FWD_U = 2;

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
        constexpr uint32_t CN = CR * (2 * CW - 1); // column items: band row ii, column base + t
        for (uint32_t k0 = tid; k0 < CN; k0 += FWD_U * TX * TY) { // columns, FWD_U items' loads together
            int32_t xs[FWD_U][5];
            uint32_t ii[FWD_U], t[FWD_U], in = 0, lift = 0;
#pragma unroll
            for (uint32_t u = 0; u < FWD_U; u++) {
                const uint32_t k = k0 + u * TX * TY, i = 2 * x0 + k / (2 * CW - 1);
                ii[u] = k / (2 * CW - 1);
                t[u] = k % (2 * CW - 1);
                const int col = base + int(t[u]);
                const bool read = k < CN && col >= 0 && col < int(e.c) && i < e.br; // else never read
                in |= uint32_t(read) << u;
                lift |= uint32_t(read && i < e.r / 2) << u; // the padding row gets 0
#pragma unroll
                for (int d = -2; d <= 2; d++)
                    xs[u][d + 2] = lift >> u & 1u && (i > 0 || d >= 0)
                                       ? level_value<IMPORT>(e, planes, samples, vmap, i32,
                                                             uint32_t(mirror(2 * int(i) + d, int(e.r))), uint32_t(col))
                                       : 0;
            }
#pragma unroll
            for (uint32_t u = 0; u < FWD_U; u++) {
                if (!(in >> u & 1u))
                    continue;
                int32_t lo = 0, hi = 0;
                if (lift >> u & 1u)
                    lift_values(xs[u], int(2 * x0 + ii[u]), lo, hi);
                half_cols[0][ii[u]][t[u] & 1][t[u] >> 1] = lo;
                half_cols[1][ii[u]][t[u] & 1][t[u] >> 1] = hi;
            }
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

// Two outputs of the finest level straight into the frame's sample words, range-checked (and a
// modular offset added back) as by the export pass (planes_gpu.cu), which then skips the plane:
// the image is never written.
__device__ inline void export_pair(const GpuPlane &p, GpuPlaneState &st, uint8_t *samples,
                                   uint32_t row, uint32_t col, int32_t x0, int32_t x1)
{
    if (row >= p.rows || st.error)
        return; // the padding row; a failed plane's frame is reported, not written
    const bool second = col + 1 < p.cols; // else the padding column
    bool ok0, ok1 = true;
    x0 = stored_value(p, st, x0, ok0);
    if (second)
        x1 = stored_value(p, st, x1, ok1);
    if (!ok0 || !ok1) {
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

// ---- 5/11-C at level 1 (docs/FORMAT.md Sec. 3.4), the inverse (the forward: dwt511_forward_gpu.cu) ----

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
        } else {
            fwd_level<false><<<grid, block, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                    b.i32, b.i8, false);
        }
        CUDA_CHECK_LAUNCH();
    });
    if (finest && level1_auto) // the planes of auto: 5/3 and both estimates
        gpu_dwt511_level1_estimate(b, lv, count, m, s);
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
