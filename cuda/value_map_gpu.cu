// value_map_gpu.cu - the compact profile's value maps on the GPU (docs/FORMAT.md Sec. 5.5), the
// twin of codec/src/value_map.c: the format's rules (the decision, the gaps' binarisation and
// models, the map's header, the reader's checks) are value_map.h's inline functions, shared with
// the CPU. Encode: the bitmap of each plane's values (atomics over its samples), then a thread per
// plane counts them, decides and leaves the rank prefix that import_value (samples_gpu.h) reads
// while the transform imports the plane; a thread per mapped plane codes its map into the map
// arena (gpu_vmap_code: the caller may run it beside the transform and the group coding); the
// maps' bytes are scanned into each plane's place and copied in front of its group records.
// Decode: a thread per mapped plane reads its map's head (where its groups start), then its values
// (gpu_vmap_read_values: beside the group decoding), and after the inverse transform the ranks go
// back to values.
#include "gpu_check.h"

#include <algorithm>
#include "gpu_kernels.h"
#include "offset_gpu.h"
#include "plane_tiles_gpu.h"
#include "samples_gpu.h"

extern "C" {
#include "value_map.h"
}

#include <cub/block/block_scan.cuh>

namespace {

// value_bits' tiles: TX columns and TY * VB_R rows, warp y the VB_R rows from y VB_R, lane x a
// column; a block takes VB_TILES tiles of a plane in turn.
constexpr uint32_t VB_R = 8, VB_TILES = 8;
// a thread's cut costs (two pairs a pixel, each below 2^16) stay below 2^32 for its warp
static_assert(uint64_t(VB_TILES) * VB_R * 2 * TX << 16 <= 0xFFFFFFFFull, "value_bits' cost sums");
static_assert(VB_R % 2 == 0, "value_bits' left neighbours, two a word");

__host__ __device__ inline uint32_t vb_tiles(uint32_t rows, uint32_t cols)
{
    return ((cols + TX - 1) / TX) * ((rows + TY * VB_R - 1) / (TY * VB_R));
}

// plane_values at N rows of one column: rows i0 + d + u (u = 0 .. N-1; d = -1 or 0; row i0 is in
// the plane) of column j, those where bit u of `in` is set (the others' v[u] is not theirs): one
// sample index, then a row's step.
template <uint32_t N>
__device__ inline void column_run_values(const GpuPlane &p, const uint8_t *samples, uint32_t i0, int d,
                                         uint32_t j, uint32_t in, int32_t (&v)[N])
{
    if (p.rct) {
        uint32_t is[N], js[N];
#pragma unroll
        for (uint32_t u = 0; u < N; u++) {
            is[u] = uint32_t(int64_t(i0) + d + u);
            js[u] = j;
        }
        plane_values(p, samples, is, js, in, v);
        return;
    }
    const uint8_t *s = samples + p.sample_off;
    const int64_t step = int64_t(p.cols) * (p.planar ? 1 : p.components);
    const int64_t k0 = int64_t(sample_index(p.components, p.planar, uint64_t(p.rows) * p.cols, p.comp,
                                            uint64_t(i0) * p.cols + j)) + d * step;
    uint32_t w[N];
#pragma unroll
    for (uint32_t u = 0; u < N; u++) { // the frame's first word where the row is not asked for
        const int64_t k = in >> u & 1u ? k0 + int64_t(u) * step : 0;
        w[u] = p.bits_alloc == 8 ? s[k] : reinterpret_cast<const uint16_t *>(s)[k];
    }
#pragma unroll
    for (uint32_t u = 0; u < N; u++) {
        const int32_t x = value_of(w[u], p.bits_stored, p.is_signed);
        v[u] = p.kind ? pcwt_sample_high_bits(w[u], x, p.bits_alloc, p.bits_stored) : x;
    }
}

// Sets the bit of every value of the vmap planes (grid: y the plane from `first`, x its runs of
// VB_TILES tiles). A block marks its values in a bitmap of its own in shared memory (a plane's
// blocks would otherwise all hit the same few words of its global bitmap), then ORs its non-zero
// words into the plane's. A thread loads its rows' samples and the row above them together. Planes
// that may take a modular offset also sum the costs of its cuts at 0 and 2^(bits-1) over their
// neighbour pairs (offset_gpu.cu): a left neighbour is the lane to the left's value, lane 0's the
// last lane's of the block's previous tile where that is the tile to the left (else it loads its
// own), and a pair's costs are |a' - b'| with a' = a for the cut at 0 and a XOR 2^(bits-1) for the
// other (pcwt_offset_pair_cost's values, a and b below 2^bits). Five blocks an SM: 48 registers,
// none spilled (64 without the bound).
__global__ void __launch_bounds__(TX * TY, 5) value_bits(const GpuPlane *planes, uint32_t first,
                                                      const uint8_t *samples, uint32_t *vmap,
                                                      GpuPlaneState *state)
{
    extern __shared__ uint32_t s_bits[]; // the largest plane's vmap_words
    const uint32_t pi = first + blockIdx.y;
    const GpuPlane p = planes[pi];
    const uint32_t tiles = vb_tiles(p.rows, p.cols), t0 = blockIdx.x * VB_TILES;
    if (!p.vmap || t0 >= tiles)
        return; // the whole block
    const uint32_t tid = threadIdx.y * TX + threadIdx.x;
    for (uint32_t w = tid; w < p.vmap_words; w += TX * TY)
        s_bits[w] = 0;
    __syncthreads();
    const uint32_t half = p.offset ? 1u << (p.bits_stored - 1u) : 0u, mask = 2u * half - 1u;
    uint32_t cost[2] = {0, 0}; // the offset's cuts at 0 and at half
    const uint32_t tiles_x = (p.cols + TX - 1) / TX, t1 = min(t0 + VB_TILES, tiles);
    uint32_t left[VB_R / 2]; // lane 0: its rows' left neighbours' u, two a word (u < 2^16)
    for (uint32_t t = t0; t < t1; t++) {
        const uint32_t j = (t % tiles_x) * TX + threadIdx.x;
        const uint32_t i0 = (t / tiles_x) * TY * VB_R + threadIdx.y * VB_R;
        if (i0 >= p.rows)
            continue; // the whole warp (and the rest of its tile row)
        const uint32_t nr = min(VB_R, p.rows - i0);
        const bool here = j < p.cols;
        // v[0]: the row above (where there is one), v[1 + r]: row i0 + r
        uint32_t in = 0;
#pragma unroll
        for (uint32_t r = 0; r <= VB_R; r++)
            in |= uint32_t(here && r <= nr && (r > 0 || (p.offset && i0 > 0))) << r;
        int32_t v[VB_R + 1];
        column_run_values(p, samples, i0, -1, j, in, v);
        if (p.offset && (t == t0 || t % tiles_x == 0)) { // uniform: no tile to the left in left[]
            int32_t lv[VB_R];
            column_run_values(p, samples, i0, 0, j - 1u, threadIdx.x == 0 && j > 0 && here ? in >> 1 : 0u, lv);
#pragma unroll
            for (uint32_t r = 0; r < VB_R; r += 2)
                left[r / 2] = (uint32_t(lv[r]) & mask) | (uint32_t(lv[r + 1]) & mask) << 16;
        }
#pragma unroll
        for (uint32_t r = 0; r < VB_R; r++) {
            if (r >= nr)
                break; // the whole warp
            if (p.offset) { // uniform
                const uint32_t u = uint32_t(v[r + 1]) & mask, a = uint32_t(v[r]) & mask;
                uint32_t l = __shfl_up_sync(0xffffffffu, u, 1);
                if (threadIdx.x == 0)
                    l = left[r / 2] >> (16 * (r & 1)) & 0xFFFFu;
                if (here && j > 0) {
                    cost[0] += uint32_t(abs(int32_t(u - l)));
                    cost[1] += uint32_t(abs(int32_t((u ^ half) - (l ^ half))));
                }
                if (here && i0 + r > 0) {
                    cost[0] += uint32_t(abs(int32_t(u - a)));
                    cost[1] += uint32_t(abs(int32_t((u ^ half) - (a ^ half))));
                }
            }
            if (here) {
                const uint32_t k = uint32_t(v[r + 1] - p.vmap_base), w = k >> 5, m = 1u << (k & 31u);
                if (!(s_bits[w] & m)) // most are marked
                    atomicOr(&s_bits[w], m);
            }
        }
        if (p.offset) // uniform: the next tile's left neighbours (its rows are these)
#pragma unroll
            for (uint32_t r = 0; r < VB_R; r += 2)
                left[r / 2] = __shfl_sync(0xffffffffu, (uint32_t(v[r + 1]) & mask) | (uint32_t(v[r + 2]) & mask) << 16,
                                          TX - 1);
    }
    __syncthreads();
    uint32_t *bits = vmap + p.vmap_at + 1;
    for (uint32_t w = tid; w < p.vmap_words; w += TX * TY)
        if (const uint32_t x = s_bits[w])
            atomicOr(&bits[w], x);
    if (p.offset) // uniform: the whole block
        offset_block_add(cost, state[pi].off_cost);
}

// Calls f(v) for each value of a plane's bitmap, in increasing order.
template <typename F> __device__ void for_each_value(const uint32_t *bits, uint32_t words, int32_t base, F f)
{
    for (uint32_t w = 0; w < words; w++)
        for (uint32_t x = bits[w]; x; x &= x - 1u)
            f(base + int32_t(32u * w + uint32_t(__ffs(int(x)) - 1)));
}

// The kernels of a thread per plane: this thread's plane, or count where it has none or its plane
// has neither a value map nor a modular offset.
__device__ uint32_t mapped_plane_of_thread(const GpuPlane *planes, uint32_t count)
{
    const uint32_t pi = blockIdx.x * blockDim.x + threadIdx.x;
    return pi < count && payload_prefixed(planes[pi]) ? pi : count;
}

// A block per plane: the summary, the decision and the rank prefix; the flag word says that the
// plane is mapped (its import reads ranks). A map that then does not fit its room sends its frame
// to the CPU (map_cpu), whatever the GPU made of it. The import waits for this, so the bitmap (2048
// words for 16-bit samples) is shared out: each thread counts a run of words and finds their
// values' first, last and largest step, and block scans join the runs.
constexpr uint32_t DECIDE_THREADS = 256;
__global__ void decide_maps(const GpuPlane *planes, uint32_t count, GpuPlaneState *state, uint32_t *vmap)
{
    using SumScan = cub::BlockScan<uint32_t, DECIDE_THREADS>;
    using MaxScan = cub::BlockScan<int64_t, DECIDE_THREADS>;
    __shared__ union {
        typename SumScan::TempStorage sum;
        typename MaxScan::TempStorage max;
    } tmp;
    __shared__ uint32_t s_step;
    __shared__ int64_t s_first, s_last;
    const uint32_t pi = blockIdx.x;
    if (pi >= count || !planes[pi].vmap)
        return; // the whole block
    const GpuPlane p = planes[pi];
    uint32_t *flag = vmap + p.vmap_at, *bits = flag + 1, *prefix = bits + p.vmap_words;
    const uint32_t per = (p.vmap_words + DECIDE_THREADS - 1) / DECIDE_THREADS;
    const uint32_t w0 = min(threadIdx.x * per, p.vmap_words), w1 = min(w0 + per, p.vmap_words);
    // this thread's run: its count, its values' first and last, the largest step between them
    uint32_t n = 0, step = 0;
    int64_t first = -1, last = -1; // -1: none (values are counted from 0 here, base added later)
    for (uint32_t w = w0; w < w1; w++) {
        n += __popc(bits[w]);
        for (uint32_t x = bits[w]; x; x &= x - 1u) {
            const int64_t v = 32 * int64_t(w) + (__ffs(int(x)) - 1);
            if (last >= 0)
                step = max(step, uint32_t(v - last));
            else
                first = v;
            last = v;
        }
    }
    if (threadIdx.x == 0) {
        s_step = 0;
        s_first = -1;
    }
    uint32_t before = 0, total = 0;
    SumScan(tmp.sum).ExclusiveSum(n, before, total);
    for (uint32_t w = w0; w < w1; w++) {
        prefix[w] = before;
        before += __popc(bits[w]);
    }
    __syncthreads(); // tmp is reused
    int64_t prev = -1; // the last value before this run (runs are in increasing order)
    MaxScan(tmp.max).ExclusiveScan(last, prev, int64_t(-1), cuda::maximum<>{});
    if (first >= 0 && prev >= 0)
        step = max(step, uint32_t(first - prev));
    if (first >= 0 && prev < 0)
        s_first = first; // the one run with values and none before it
    if (threadIdx.x == DECIDE_THREADS - 1)
        s_last = max(prev, last);
    if (step)
        atomicMax(&s_step, step);
    __syncthreads();
    if (threadIdx.x)
        return;
    // the offset's flag stays (its values and so its bitmap start from 0)
    const uint32_t offset = *flag & ~VMAP_MAPPED;
    const int32_t base = offset ? 0 : p.vmap_base;
    *flag = offset;
    const bool wanted = p.vmap == 3   ? false
                        : p.vmap == 2 ? total >= 1
                                      : pcwt_value_map_wanted_summary(total, base + int32_t(s_first),
                                                                      base + int32_t(s_last), s_step) != 0;
    if (!wanted)
        return;
    if (p.vmap_cap < PCWT_VMAP_HEAD_MAX + (offset ? PCWT_OFFSET_BYTES : 0)) {
        state[pi].map_cpu = 1;
        return;
    }
    *flag = offset | VMAP_MAPPED;
}

// The bytes in front of a plane's group records: r0 (2 bytes, little-endian) where it has a
// modular offset, then its coded map (from the map arena, or written there).
__device__ inline uint32_t offset_prefix(uint32_t flag, uint8_t *dst)
{
    if (!(flag & VMAP_OFFSET))
        return 0;
    dst[0] = uint8_t(flag >> 16);
    dst[1] = uint8_t(flag >> 24);
    return PCWT_OFFSET_BYTES;
}

// A thread per mapped plane: its map coded into the map arena.
__global__ void code_maps(const GpuPlane *planes, uint32_t count, GpuPlaneState *state,
                          const uint32_t *vmap, uint8_t *vmap_bytes)
{
    const uint32_t pi = mapped_plane_of_thread(planes, count);
    if (pi == count)
        return;
    const GpuPlane p = planes[pi];
    const uint32_t *flag = vmap + p.vmap_at, *bits = flag + 1, *prefix = bits + p.vmap_words;
    if (!*flag)
        return;
    uint8_t *dst = vmap_bytes + p.vmap_bytes_at;
    const uint32_t pre = offset_prefix(*flag, dst);
    state[pi].offset = pre != 0;
    if (!(*flag & VMAP_MAPPED)) {
        state[pi].map_len = pre;
        return;
    }
    dst += pre;
    const uint32_t n = prefix[p.vmap_words - 1] + __popc(bits[p.vmap_words - 1]); // at least one
    pcwt_bit_model models[PCWT_VMAP_MODELS];
    pcwt_vmap_models_init(models);
    pcwt_rc_enc rc;
    pcwt_rc_enc_init(&rc, dst + PCWT_VMAP_HEAD_MAX, size_t(p.vmap_cap - pre - PCWT_VMAP_HEAD_MAX));
    uint32_t ctx = 1;
    bool started = false;
    int32_t prev = 0, first = 0;
    for_each_value(bits, p.vmap_words, pre ? 0 : p.vmap_base, [&](int32_t v) {
        if (started) {
            const uint32_t g = uint32_t(v - prev) - 1u;
            pcwt_vmap_put_gap(&rc, models, ctx, g);
            ctx = g != 0;
        } else {
            first = v;
        }
        started = true;
        prev = v;
    });
    const size_t alen = n > 1 ? pcwt_rc_enc_finish(&rc, dst + PCWT_VMAP_HEAD_MAX) : 0;
    if (rc.overflow) { // longer than its room: the CPU codes the frame
        state[pi].map_cpu = 1;
        return;
    }
    state[pi].map_len = pre + uint32_t(pcwt_vmap_put_head(dst, n, first, alen));
    state[pi].mapped = 1;
}

// map_prefix[i] = the map bytes of planes 0..i (one block).
constexpr uint32_t SCAN_THREADS = 256;
__global__ void scan_maps(const GpuPlaneState *state, uint32_t count, uint64_t *map_prefix)
{
    using Scan = cub::BlockScan<uint64_t, SCAN_THREADS>;
    __shared__ typename Scan::TempStorage tmp;
    uint64_t carry = 0;
    for (uint32_t base = 0; base < count; base += SCAN_THREADS) {
        const uint32_t i = base + threadIdx.x;
        uint64_t v = i < count ? state[i].map_len : 0, total = 0;
        Scan(tmp).InclusiveSum(v, v, total);
        if (i < count)
            map_prefix[i] = carry + v;
        carry += total;
        __syncthreads(); // tmp is reused
    }
}

// A block per plane copies its coded map in front of its first group record.
__global__ void place_maps(const GpuPlane *planes, const GpuPlaneState *state, const GpuGroup *groups,
                           const uint8_t *vmap_bytes, uint8_t *stream)
{
    const uint32_t pi = blockIdx.x;
    const GpuPlane &p = planes[pi];
    const uint32_t n = state[pi].map_len;
    if (!n)
        return;
    uint8_t *to = stream + groups[p.group_first].offset - n;
    const uint8_t *from = vmap_bytes + p.vmap_bytes_at;
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x)
        to[k] = from[k];
}

// Decode: a thread per mapped plane (or plane with a modular offset) reads r0 and its map's head
// from the start of its payload (values: the map's values too, once the heads are read).
template <bool values>
__global__ void read_maps(const GpuPlane *planes, uint32_t count, GpuPlaneState *state, const uint8_t *stream,
                          uint32_t *vmap)
{
    const uint32_t pi = mapped_plane_of_thread(planes, count);
    if (pi == count || (values && !state[pi].mapped))
        return;
    const GpuPlane p = planes[pi];
    const uint8_t *src = stream + p.payload_off;
    size_t size = size_t(p.payload_len);
    if (p.offset && !values) {
        const uint32_t r0 = size < PCWT_OFFSET_BYTES ? ~0u : uint32_t(src[0]) | uint32_t(src[1]) << 8;
        if (r0 >> p.bits_stored) { // missing, or not below 2^bits
            state[pi].map_refused = 2;
            return;
        }
        state[pi].r0 = r0;
        state[pi].map_len = PCWT_OFFSET_BYTES;
    }
    if (p.offset) {
        src += PCWT_OFFSET_BYTES;
        size -= PCWT_OFFSET_BYTES;
    }
    if (!p.vmap)
        return;
    uint32_t n = 0, alen = 0;
    int64_t first = 0;
    size_t pos = 0;
    int why = pcwt_vmap_read_head(src, size, uint64_t(p.rows) * p.cols, &n, &first, &alen, &pos);
    if (why == PCWT_VMAP_OK && n > p.vmap_cap)
        why = PCWT_VMAP_BAD_COUNT;
    if (values && why == PCWT_VMAP_OK)
        why = pcwt_vmap_read_values(src + pos, alen, n, first, reinterpret_cast<int32_t *>(vmap + p.vmap_at));
    if (why != PCWT_VMAP_OK) {
        state[pi].map_refused = 1;
        return;
    }
    if (values)
        return;
    state[pi].map_len = (p.offset ? PCWT_OFFSET_BYTES : 0u) + uint32_t(pos + alen);
    state[pi].map_count = n;
    state[pi].mapped = 1;
}

// Decode, after the CRCs: a refused map or offset is its plane's error where the CRC passed.
__global__ void refuse_maps(const GpuPlane *planes, uint32_t count, GpuPlaneState *state)
{
    const uint32_t pi = mapped_plane_of_thread(planes, count);
    if (pi < count && state[pi].map_refused)
        atomicCAS(&state[pi].error, 0u,
                  uint32_t(state[pi].map_refused == 2 ? GPU_ERR_OFFSET : GPU_ERR_VALUE_MAP));
}

// Decode: ranks back to values in the images of the mapped planes that the inverse colour
// transform reads (grid: y the plane from `first`); export_planes looks up the others' ranks as
// it writes their samples.
__global__ void rank_values(const GpuPlane *planes, uint32_t first, GpuPlaneState *state, const uint32_t *vmap,
                            int32_t *i32)
{
    const uint32_t pi = first + blockIdx.y;
    const GpuPlane p = planes[pi];
    if (!p.vmap || !p.rct || state[pi].error) // decode: vmap is 1 or 0
        return;
    const RankMap map = rank_map(p, state[pi], vmap);
    const uint32_t W = p.cols + (p.cols & 1);
    const TileSpot spot = tile_spot(p.cols);
    const uint32_t j = spot.j, i0 = spot.i0;
    if (j >= p.cols)
        return;
    for (uint32_t r = 0, i = i0; r < RY && i < p.rows; r++, i += TY) {
        int32_t &v = i32[p.image + uint64_t(i) * W + j];
        int64_t x = v;
        if (!map.value(x, state[pi].error))
            return;
        v = int32_t(x);
    }
}

// The largest image of the vmap planes.
void vmap_extent(const BatchLayout &L, uint32_t &rows, uint32_t &cols)
{
    rows = cols = 0;
    for (const GpuPlane &p : L.planes)
        if (p.vmap) {
            rows = max(rows, p.rows);
            cols = max(cols, p.cols);
        }
}

} // namespace

void gpu_vmap_build(const DeviceBatch &b, const BatchLayout &L, cudaStream_t s)
{
    const uint32_t np = uint32_t(L.planes.size());
    if (!np)
        return;
    CUDA_CHECK(cudaMemsetAsync(b.vmap, 0, sizeof(uint32_t) * L.vmap_words, s));
    uint32_t rows, cols, words = 0;
    vmap_extent(L, rows, cols);
    for (const GpuPlane &p : L.planes)
        words = p.vmap ? max(words, p.vmap_words) : words;
    const uint32_t runs = (vb_tiles(rows, cols) + VB_TILES - 1) / VB_TILES;
    gpu_for_entries(np, [&](uint32_t first, uint32_t n) {
        value_bits<<<dim3(runs, n), dim3(TX, TY), sizeof(uint32_t) * words, s>>>(b.planes, first, b.samples,
                                                                                 b.vmap, b.state);
        CUDA_CHECK_LAUNCH();
    });
    gpu_offset_choose(b, L, s); // the offsets first: the maps are those of the values they leave
    decide_maps<<<np, DECIDE_THREADS, 0, s>>>(b.planes, np, b.state, b.vmap);
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_code(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    if (!plane_count)
        return;
    // a block (a warp) per plane: the planes' loops differ, and lanes of one warp would run them
    // one after the other
    code_maps<<<plane_count, 1, 0, s>>>(b.planes, plane_count, b.state, b.vmap, b.vmap_bytes);
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_scan(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    scan_maps<<<1, SCAN_THREADS, 0, s>>>(b.state, plane_count, b.map_prefix);
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_place(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    if (!plane_count)
        return;
    place_maps<<<plane_count, 128, 0, s>>>(b.planes, b.state, b.groups, b.vmap_bytes, b.stream);
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_read(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    if (!plane_count)
        return;
    read_maps<false><<<plane_count, 1, 0, s>>>(b.planes, plane_count, b.state, b.stream, b.vmap); // as decide_maps
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_read_values(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    if (!plane_count)
        return;
    read_maps<true><<<plane_count, 1, 0, s>>>(b.planes, plane_count, b.state, b.stream, b.vmap);
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_refused(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    refuse_maps<<<gpu_blocks(plane_count, 128), 128, 0, s>>>(b.planes, plane_count, b.state);
    CUDA_CHECK_LAUNCH();
}

void gpu_vmap_values(const DeviceBatch &b, const BatchLayout &L, cudaStream_t s)
{
    if (std::none_of(L.planes.begin(), L.planes.end(), [](const GpuPlane &p) { return p.vmap && p.rct; }))
        return;
    uint32_t rows, cols;
    vmap_extent(L, rows, cols);
    gpu_for_entries(uint32_t(L.planes.size()), [&](uint32_t first, uint32_t n) {
        rank_values<<<dim3(plane_tiles(rows, cols), n), dim3(TX, TY), 0, s>>>(b.planes, first, b.state, b.vmap, b.i32);
        CUDA_CHECK_LAUNCH();
    });
}
