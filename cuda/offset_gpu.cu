// offset_gpu.cu - the compact profile's modular offsets on the GPU (docs/FORMAT.md Sec. 5.6), the
// twin of codec/src/offset.c: the candidates, a pair's cost and the decision are offset.h's,
// shared with the CPU. Encode, between the value maps' bitmaps and their decision
// (value_map_gpu.cu): a block per offset plane finds the gap candidate G in its bitmap and, from
// the costs of the cuts at 0 and 2^(bits-1) that the bitmap pass summed, G's cost where G cuts the
// circle of values where one of those does (nearly always); the planes where it does not take a
// pass of their own; then a block per plane decides and turns its bitmap into that of the values
// u' = (u - r0) mod 2^bits, which the map's decision and import_value then read (the flag word's
// r0). Decode: r0 is read with the value maps (read_maps) and added back by the export pass.
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "offset_gpu.h"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>

namespace {

constexpr uint32_t THREADS = 256;

// Word w of a plane's presence bitmap over its stored values u (0 .. m-1): the bitmap's index is
// the value less the plane's lowest (vmap_base), which is u XOR t, t = 2^(bits-1) when signed.
__device__ inline uint32_t u_word(const uint32_t *bits, uint32_t w, uint32_t t, uint32_t m)
{
    if (m >= 64)
        return bits[w ^ (t >> 5)];
    const uint32_t x = bits[0], mask = m == 32 ? ~0u : (1u << m) - 1u;
    return (t ? x >> (m / 2) | x << (m / 2) : x) & mask;
}

// A block per offset plane: G, the value after the largest empty stretch of the circle of values
// (ties to the stretch that starts lowest, the wrap-round stretch last), and its cost where a cut
// at 0 or 2^(bits-1) splits the same pairs: a cut at r splits the pairs of values lo < r <= hi, so
// every cut inside the empty stretch before G (the wrap-round one: any cut below the lowest value
// or above the highest, as 0 is) splits the same ones as G.
__global__ void offset_gaps(const GpuPlane *planes, GpuPlaneState *state, const uint32_t *vmap)
{
    using MaxScan = cub::BlockScan<int64_t, THREADS>;
    using KeyMax = cub::BlockReduce<unsigned long long, THREADS>;
    __shared__ union {
        typename MaxScan::TempStorage scan;
        typename KeyMax::TempStorage max;
    } tmp;
    __shared__ int64_t s_first, s_last;
    const uint32_t pi = blockIdx.x;
    const GpuPlane p = planes[pi];
    if (!p.offset)
        return; // the whole block
    const uint32_t *bits = vmap + p.vmap_at + 1;
    const uint32_t m = 1u << p.bits_stored, t = pcwt_offset_today(p.bits_stored, int(p.is_signed));
    const uint32_t words = (m + 31) / 32, per = (words + THREADS - 1) / THREADS;
    const uint32_t w0 = min(threadIdx.x * per, words), w1 = min(w0 + per, words);
    // this thread's run: its first and last value, its largest step (key: the step, then the
    // lowest start: step << 32 | ~start)
    int64_t first = -1, last = -1;
    unsigned long long key = 0;
    for (uint32_t w = w0; w < w1; w++)
        for (uint32_t x = u_word(bits, w, t, m); x; x &= x - 1u) {
            const int64_t u = 32 * int64_t(w) + (__ffs(int(x)) - 1);
            if (last >= 0)
                key = max(key, (unsigned long long)(u - last) << 32 | (0xFFFFFFFFu - uint32_t(last)));
            else
                first = u;
            last = u;
        }
    if (threadIdx.x == 0)
        s_first = -1;
    __syncthreads();
    int64_t prev = -1; // the last value before this run
    MaxScan(tmp.scan).ExclusiveScan(last, prev, int64_t(-1), cuda::maximum<>{});
    if (first >= 0 && prev >= 0)
        key = max(key, (unsigned long long)(first - prev) << 32 | (0xFFFFFFFFu - uint32_t(prev)));
    if (first >= 0 && prev < 0)
        s_first = first;
    if (threadIdx.x == THREADS - 1)
        s_last = max(prev, last);
    __syncthreads(); // tmp is reused
    key = KeyMax(tmp.max).Reduce(key, cuda::maximum<>{});
    if (threadIdx.x)
        return;
    GpuPlaneState &st = state[pi];
    const uint32_t lo = uint32_t(s_first), hi = uint32_t(s_last), half = m / 2;
    const uint32_t step = uint32_t(key >> 32), start = 0xFFFFFFFFu - uint32_t(key);
    const bool wrap = lo + m - hi > step; // also with one value (no step)
    const uint32_t g = wrap ? lo : start + step;
    st.off_gap = g;
    st.off_need = 0;
    if (wrap)
        st.off_cost[2] = st.off_cost[0];
    else if (start < half && half <= g)
        st.off_cost[2] = st.off_cost[1];
    else
        st.off_need = 1;
}

// G's cost, for the planes where it splits other pairs than both cuts (grid: y the plane from
// `first`; x some blocks, each taking tiles of plane_tiles_gpu.h's in turn).
__global__ void offset_gap_costs(const GpuPlane *planes, uint32_t first, const uint8_t *samples,
                                 GpuPlaneState *state)
{
    const uint32_t pi = first + blockIdx.y;
    const GpuPlane p = planes[pi];
    if (!p.offset || !state[pi].off_need)
        return; // the whole block
    const uint32_t g = state[pi].off_gap, m = 1u << p.bits_stored, tiles = plane_tiles(p.rows, p.cols);
    unsigned long long cost[1] = {0}; // a block's tiles
    for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const TileSpot spot = tile_spot(p.cols, tile);
        const uint32_t j = spot.j, i0 = spot.i0;
        const bool here = j < p.cols;
        for (uint32_t r = 0, i = i0; r < RY && i < p.rows; r++, i += TY) // the same rows for the warp
            offset_pairs(p, samples, i, j, here, here ? offset_u(p, samples, i, j) : 0u,
                         [&](uint32_t a, uint32_t b) { cost[0] += pcwt_offset_pair_cost(a, b, g, m); });
    }
    offset_block_add(cost, &state[pi].off_cost[2]);
}

// A block per offset plane: the decision (the costs cleared for the next encode), and where it
// sets the offset, the bitmap turned to the values u' (through the prefix words, which the maps'
// decision fills later) and the flag word's offset and r0.
__global__ void offset_decide(const GpuPlane *planes, GpuPlaneState *state, uint32_t *vmap)
{
    __shared__ uint32_t s_flag;
    const uint32_t pi = blockIdx.x;
    const GpuPlane p = planes[pi];
    if (!p.offset)
        return; // the whole block
    const uint32_t m = 1u << p.bits_stored;
    const uint32_t t = pcwt_offset_today(p.bits_stored, int(p.is_signed));
    if (threadIdx.x == 0) {
        GpuPlaneState &st = state[pi];
        const uint32_t f = pcwt_offset_flip(p.bits_stored, int(p.is_signed));
        uint32_t r0 = 0;
        const int on = pcwt_offset_decide(pcwt_offset_mode(p.offset - 1), t, f, st.off_gap,
                                          st.off_cost[t ? 1 : 0], st.off_cost[f ? 1 : 0], st.off_cost[2], &r0);
        st.off_cost[0] = st.off_cost[1] = st.off_cost[2] = 0;
        st.off_need = 0;
        s_flag = on ? VMAP_OFFSET | r0 << 16 : 0u;
    }
    __syncthreads();
    const uint32_t flag = s_flag, r0 = flag >> 16;
    if (!flag)
        return; // the whole block
    uint32_t *bits = vmap + p.vmap_at + 1, *turned = bits + p.vmap_words;
    const uint32_t words = (m + 31) / 32;
    for (uint32_t w = threadIdx.x; w < words; w += blockDim.x) {
        // the bits of u = u' + r0 (mod m) for u' = 32 w .. 32 w + 31
        if (m < 64) {
            const uint32_t x = u_word(bits, 0, t, m), mask = m == 32 ? ~0u : (1u << m) - 1u;
            turned[w] = (r0 ? x >> r0 | x << (m - r0) : x) & mask;
        } else {
            const uint32_t u = (32 * w + r0) & (m - 1u), s = u & 31u;
            const uint32_t lo = u_word(bits, u >> 5, t, m), hi = u_word(bits, ((u >> 5) + 1) % words, t, m);
            turned[w] = s ? lo >> s | hi << (32 - s) : lo;
        }
    }
    __syncthreads();
    for (uint32_t w = threadIdx.x; w < words; w += blockDim.x)
        bits[w] = turned[w];
    if (threadIdx.x == 0)
        vmap[p.vmap_at] = flag;
}

} // namespace

void gpu_offset_choose(const DeviceBatch &b, const BatchLayout &L, cudaStream_t s)
{
    uint32_t rows = 0, cols = 0, any = 0;
    for (const GpuPlane &p : L.planes)
        if (p.offset) {
            any++;
            rows = std::max(rows, p.rows);
            cols = std::max(cols, p.cols);
        }
    if (!any)
        return;
    const uint32_t np = uint32_t(L.planes.size());
    offset_gaps<<<np, THREADS, 0, s>>>(b.planes, b.state, b.vmap);
    CUDA_CHECK_LAUNCH();
    // few blocks a plane: most planes have no work here (their blocks return at once)
    const uint32_t blocks = std::min<uint32_t>(plane_tiles(rows, cols), 128);
    gpu_for_entries(np, [&](uint32_t first, uint32_t n) {
        offset_gap_costs<<<dim3(blocks, n), dim3(TX, TY), 0, s>>>(b.planes, first, b.samples, b.state);
        CUDA_CHECK_LAUNCH();
    });
    offset_decide<<<np, THREADS, 0, s>>>(b.planes, b.state, b.vmap);
    CUDA_CHECK_LAUNCH();
}
