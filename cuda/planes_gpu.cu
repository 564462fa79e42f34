// planes_gpu.cu - samples <-> int32 planes on the GPU, the twin of codec/src/planes.c:
// the high-bit check (which components need a kind-1 plane), import with zero padding to even
// sizes (value planes through the colour transform where the frame has it) of the planes coded
// without a transform, and the range-checked export of the planes the inverse DWT leaves to it.
// The other planes' samples are read and written by the finest DWT level (dwt53_gpu.cu).
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "plane_tiles_gpu.h"
#include "samples_gpu.h"

namespace {

// Bit c of the result: component c of word i (of n, w.h pixels) is not canonical.
__device__ inline uint32_t high_bit_of(const GpuFrame &f, uint32_t w, uint64_t i)
{
    if (w == canonical(value_of(w, f.bits_stored, f.is_signed), f.bits_alloc))
        return 0;
    const uint64_t pixels = uint64_t(f.width) * f.height;
    return 1u << (f.planar ? uint32_t(i / pixels) : uint32_t(i % f.components));
}

// Which components of each frame have a word that is not canonical (grid: y the frame). A word
// with all its bits stored always is. The others are read 16 bytes at a time, HB_VN of them a
// thread issued together: a thread per word waits on one 2-byte load's latency at a time.
// A 32-bit lane of 8/16-bit words is canonical where each word, plus 2^(stored-1) when signed
// (the SIMD add keeps the words apart), has no bit above the stored ones; the words of a lane that
// is not are checked one by one for their components.
constexpr uint32_t HB_VN = 4;
__global__ void high_bit_flags(const GpuFrame *frames, uint32_t *flags, const uint8_t *samples)
{
    const GpuFrame f = frames[blockIdx.y];
    if (f.bits_stored >= f.bits_alloc)
        return; // the whole block
    const uint64_t n = uint64_t(f.width) * f.height * f.components;
    const uint32_t per = 128 / f.bits_alloc; // words a 16-byte vector
    const uint64_t vecs = n / per, stride = uint64_t(gridDim.x) * blockDim.x;
    const uint32_t wide = f.bits_alloc == 8 ? 0x01010101u : 0x00010001u;
    const uint32_t high = (((1u << f.bits_alloc) - 1u) & ~((1u << f.bits_stored) - 1u)) * wide;
    const uint32_t bias = f.is_signed ? (1u << (f.bits_stored - 1u)) * wide : 0u;
    const uint4 *s = reinterpret_cast<const uint4 *>(samples + f.sample_off); // 256-byte aligned
    uint32_t seen = 0;
    for (uint64_t v0 = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; v0 < vecs; v0 += HB_VN * stride) {
        uint4 x[HB_VN];
#pragma unroll
        for (uint32_t u = 0; u < HB_VN; u++)
            x[u] = v0 + u * stride < vecs ? __ldcs(s + v0 + u * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (uint32_t u = 0; u < HB_VN; u++) {
            const uint32_t lane[4] = {x[u].x, x[u].y, x[u].z, x[u].w};
#pragma unroll
            for (uint32_t q = 0; q < 4; q++) {
                const uint32_t y = f.bits_alloc == 8 ? __vadd4(lane[q], bias) : __vadd2(lane[q], bias);
                if (!(y & high))
                    continue;
                const uint64_t i0 = (v0 + u * stride) * per + q * (per / 4);
                for (uint32_t b = 0; b < per / 4; b++)
                    seen |= high_bit_of(f, lane[q] >> (b * f.bits_alloc) & ((1u << f.bits_alloc) - 1u), i0 + b);
            }
        }
    }
    const uint8_t *tail = samples + f.sample_off;
    for (uint64_t i = vecs * per + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        seen |= high_bit_of(f, load_word(tail, f.bits_alloc, i), i);
    seen = __reduce_or_sync(0xffffffffu, seen); // every thread of the block is here
    for (uint32_t c = 0; (threadIdx.x & 31u) == 0 && seen; c++, seen >>= 1)
        if (seen & 1u)
            atomicOr(&flags[blockIdx.y * 3 + c], 1u);
}

// The images of the planes coded without a transform (the others' first DWT level reads the
// samples itself).
__global__ void import_planes(const uint32_t *plane_ids, const GpuPlane *planes, const uint8_t *samples,
                              const uint32_t *vmap, int32_t *i32)
{
    const GpuPlane p = planes[plane_ids[blockIdx.y]];
    const uint32_t W = p.cols + (p.cols & 1), H = p.rows + (p.rows & 1);
    const TileSpot spot = tile_spot(W);
    const uint32_t j = spot.j, i0 = spot.i0;
    if (j >= W)
        return;
    for (uint32_t r = 0, i = i0; r < RY && i < H; r++, i += TY)
        i32[p.image + uint64_t(i) * W + j] = import_value(p, samples, vmap, i, j);
}

// The samples of the planes the inverse DWT does not write (gpu_types.h: exported_by_inverse):
// value planes first (kind 0), each value from its image or the inverse colour transform of three,
// then the high bits of kind-1 planes XORed in. A mapped plane without the transform (either kind)
// holds ranks: each is looked up here (rank_values maps those with it).
__global__ void export_planes(const uint32_t *plane_ids, const GpuPlane *planes, GpuPlaneState *state,
                              uint32_t kind, const int32_t *i32, const uint32_t *vmap, uint8_t *samples)
{
    const uint32_t pi = plane_ids[blockIdx.y];
    const GpuPlane p = planes[pi];
    if (p.kind != kind || state[pi].error)
        return; // a failed plane's frame is reported, its samples are not written
    const bool ranked = p.vmap && !p.rct; // decode: vmap is 1 or 0
    const RankMap map = ranked ? rank_map(p, state[pi], vmap) : RankMap{};
    const uint32_t W = p.cols + (p.cols & 1);
    const TileSpot spot = tile_spot(p.cols);
    const uint32_t j = spot.j, i0 = spot.i0;
    if (j >= p.cols)
        return;
    const uint32_t high = (1u << (p.bits_alloc - p.bits_stored)) - 1u;
    const uint64_t pixels = uint64_t(p.rows) * p.cols;
    uint8_t *s = samples + p.sample_off;
    for (uint32_t r = 0, i = i0; r < RY && i < p.rows; r++, i += TY) {
        const uint64_t at = uint64_t(i) * W + j;
        // 64 bits: the inverse colour transform of hostile planes may leave the int32 range
        int64_t x = p.rct ? pcwt_rct_inverse(i32[p.rct_image[0] + at], i32[p.rct_image[1] + at],
                                             i32[p.rct_image[2] + at], p.comp)
                          : i32[p.image + at];
        if (ranked && !map.value(x, state[pi].error))
            return;
        bool ok = x >= 0 && x <= high;
        const int32_t v = kind == 0 ? stored_value(p, state[pi], x, ok) : int32_t(x);
        if (!ok) {
            atomicCAS(&state[pi].error, 0u, uint32_t(GPU_ERR_RANGE));
            return;
        }
        const uint64_t k = sample_index(p.components, p.planar, pixels, p.comp, uint64_t(i) * p.cols + j);
        const uint32_t w = kind == 0 ? canonical(v, p.bits_alloc)
                                     : load_word(s, p.bits_alloc, k) ^ (uint32_t(v) << p.bits_stored);
        store_word(s, p.bits_alloc, k, w);
    }
}

} // namespace

void gpu_high_bit_flags(const DeviceBatch &b, const GpuFrame *, uint32_t frame_count, cudaStream_t s)
{
    CUDA_CHECK(cudaMemsetAsync(b.flags, 0, sizeof(uint32_t) * 3 * frame_count, s));
    gpu_for_entries(frame_count, [&](uint32_t first, uint32_t n) {
        high_bit_flags<<<dim3(64, n), 256, 0, s>>>(b.frames + first, b.flags + 3 * first, b.samples);
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_import_planes(const DeviceBatch &b, uint32_t count, uint32_t max_rows, uint32_t max_cols,
                       cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        import_planes<<<dim3(plane_tiles(max_rows + 1, max_cols + 1), n), dim3(TX, TY), 0, s>>>(
            b.level0 + first, b.planes, b.samples, b.vmap, b.i32);
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_export_planes(const DeviceBatch &b, uint32_t count, uint32_t kind, uint32_t max_rows,
                       uint32_t max_cols, cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        export_planes<<<dim3(plane_tiles(max_rows, max_cols), n), dim3(TX, TY), 0, s>>>(
            b.export_planes + first, b.planes, b.state, kind, b.i32, b.vmap, b.samples);
        CUDA_CHECK_LAUNCH();
    });
}
