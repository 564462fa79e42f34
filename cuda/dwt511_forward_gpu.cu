// dwt511_forward_gpu.cu - the forward 5/11-C at level 1 on the GPU (docs/FORMAT.md Sec. 3.4; dwt53.c's
// forward_level with f511): the tile kernel that lifts the level 1 of the planes of auto with both
// filters (the 5/3 bands and MQDs, both estimates, the 5/11-C bands kept aside), and the one that
// puts 5/11-C's bands over 5/3's for the planes whose level1 is 511. The inverse is in
// dwt53_gpu.cu, beside the 5/3 one whose helpers it shares.
#include "dwt_lift_gpu.h"
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "samples_gpu.h"

#include <algorithm>

namespace {


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
// into shared memory (either lifting order); those outside the plane are never read. A thread
// imports SN of them at a time, their loads together.
constexpr uint32_t SN = 4;
__device__ inline void stage_samples(int32_t (*S)[SC], const GpuPlane &pl, const uint8_t *samples,
                                     const uint32_t *vmap, int qb, int jb, int R, int C, uint32_t tid,
                                     uint32_t nt)
{
    for (uint32_t k0 = tid; k0 < SR * SC; k0 += SN * nt) {
        uint32_t qs[SN], js[SN], in = 0;
#pragma unroll
        for (uint32_t u = 0; u < SN; u++) {
            const uint32_t k = k0 + u * nt;
            const int q = qb + int(k / SC), j = jb + int(k % SC);
            qs[u] = uint32_t(q);
            js[u] = uint32_t(j);
            in |= uint32_t(k < SR * SC && q >= 0 && q < R && j >= 0 && j < C) << u;
        }
        int32_t v[SN];
        import_values(pl, samples, vmap, qs, js, in, v);
#pragma unroll
        for (uint32_t u = 0; u < SN; u++)
            if (in >> u & 1u)
                S[int(qs[u]) - qb][int(js[u]) - jb] = v[u];
    }
    __syncthreads();
}

// Five blocks an SM (the shared memory allows five): 48 registers, a few bytes spilled; faster than
// four blocks at 64 registers (ncu, one H200: 5% on both of pcwt_bench_gpu's batches).
template <bool EST>
__global__ void __launch_bounds__(TX * TY, 5) fwd_level1_511(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
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

template <bool EST>
void launch_511(dim3 grid, cudaStream_t s, const DeviceBatch &b, const GpuLevel *lv)
{
    fwd_level1_511<EST><<<grid, dim3(TX, TY), 0, s>>>(lv, b.bands, b.planes, b.state, b.samples, b.vmap,
                                                      b.i32, b.i8);
}

} // namespace

void gpu_dwt511_level1_estimate(const DeviceBatch &b, const GpuLevel *lv, uint32_t count, const GpuLevelMax &m,
                                cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        launch_511<true>(dim3(tiles(m.r / 4 + 1, m.bc / 2), n), s, b, lv + first); // mr <= r / 4 + 1
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
