// jpegls_pack_gpu.cu - stage 4 of the GPU JPEG-LS encoder (see jpegls_gpu.h): bit positions,
// packing and marker stuffing.
// In raster order a segment's codewords are its context-coded samples' codewords with run-length
// codewords between them. A sample's bit position is therefore (bits of the context codewords
// before it) + (bits of the runs before it), two prefix sums; a run's is (bits of the context
// codewords before it) + (bits of the runs before it). Segments follow each other in both arrays,
// so one unstuffed bit string holds the whole batch.
// Stuffing (T.87 A.1: after a 0xFF byte the next byte carries 7 bits) is sequential over bytes; a
// warp per segment cuts 128 bytes at a time assuming no 0xFF among them, keeps them up to and
// including the first 0xFF, and goes on from there: 128 bytes per step on ordinary data, at least
// one on runs of ones.
#include "gpu_check.h"
#include "jpegls_gpu.h"

#include <cub/cub.cuh>

namespace {

__global__ void k_lengths(JlsDev d, uint32_t nc, uint32_t nr)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= nc)
        d.ctx_bits[i] = i < nc ? jls_code_length(d.ctx_code[i]) : 0;
    if (i <= nr)
        d.run_bits[i] = i < nr ? jls_code_length(d.run_code[i]) : 0;
}

__global__ void k_seg_bits(JlsDev d)
{
    const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= d.seg_count)
        return;
    JlsSeg &sg = d.segs[s];
    sg.bit_first = d.ctx_bits[sg.ctx_first] + d.run_bits[sg.run_first];
    sg.bit_end = d.ctx_bits[sg.ctx_end] + d.run_bits[sg.run_end];
    // Stuffed bytes <= ceil(bits / 7) + 1 (each byte carries 7 or 8 bits, plus a final 0x00), so
    // floor(bit_first / 7) + 4 * s leaves each segment enough room.
    sg.out_off = sg.bit_first / 7 + 4u * s;
}

// ORs the n low bits of v (n <= 32) into the MSB-first bit string at bit position pos.
__device__ inline void or_bits(uint32_t *words, uint64_t pos, uint32_t v, uint32_t n)
{
    if (!n || !v)
        return;
    const uint64_t w = pos >> 5;
    const uint64_t x = (uint64_t)v << (64u - n - (uint32_t)(pos & 31u));
    const uint32_t hi = (uint32_t)(x >> 32), lo = (uint32_t)x;
    if (hi)
        atomicOr(&words[w], hi);
    if (lo)
        atomicOr(&words[w + 1], lo);
}

__device__ inline void put_code(uint32_t *words, uint64_t pos, uint32_t c)
{
    uint32_t count = jls_code_count(c);
    if (jls_code_fill(c)) { // ones (at most 63)
        uint64_t p = pos;
        while (count) {
            const uint32_t n = count > 32 ? 32 : count;
            or_bits(words, p, n == 32 ? ~0u : (1u << n) - 1u, n);
            p += n;
            count -= n;
        }
    }
    or_bits(words, pos + jls_code_count(c), jls_code_tail(c), jls_code_tail_bits(c));
}

__global__ void k_pack(JlsDev d, uint32_t nc, uint32_t nr)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nc)
        put_code(d.words, d.ctx_bits[i] + d.run_bits[d.ctx_runs_before[i]], d.ctx_code[i]);
    if (i < nr)
        put_code(d.words, d.ctx_bits[d.run_attach[i]] + d.run_bits[i], d.run_code[i]);
}

constexpr uint32_t kWindow = 1024; // words of the bit string a warp holds in shared memory
constexpr uint32_t kStep = 128;    // bytes a warp cuts per step (4 per lane)

// `width` (<= 8) bits at bit position pos from the window starting at word `base`; bits at or
// past `end` read as 0.
__device__ inline uint32_t window_bits(const uint32_t *win, uint64_t base, uint64_t pos,
                                       uint32_t width, uint64_t end)
{
    const uint32_t w = (uint32_t)((pos >> 5) - base);
    const uint64_t x = (uint64_t)win[w] << 32 | win[w + 1];
    uint32_t b = (uint32_t)(x >> (64u - width - (uint32_t)(pos & 31u))) & ((1u << width) - 1u);
    if (pos + width > end)
        b &= ~((1u << (uint32_t)(pos + width - end)) - 1u);
    return b;
}

// A warp per segment. Each step cuts up to 128 bytes assuming no 0xFF among them (byte 0 takes 7
// bits after a 0xFF, the others 8), keeps them up to and including the first 0xFF, and goes on
// from there. The bit string is read through a shared-memory window refilled as it is consumed.
__global__ void k_stuff(JlsDev d, uint64_t word_count)
{
    __shared__ uint32_t window[4][kWindow + 2];
    const uint32_t s = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const uint32_t lane = threadIdx.x & 31u;
    if (s >= d.seg_count)
        return;
    uint32_t *win = window[threadIdx.x >> 5];
    JlsSeg &sg = d.segs[s];
    const uint64_t end = sg.bit_end;
    uint8_t *out = d.out + sg.out_off;
    uint64_t pos = sg.bit_first, base = 0;
    bool loaded = false;
    uint32_t n = 0;
    bool ff = false;
    while (pos < end) {
        if (!loaded || pos + 8u * (kStep + 2u) > (base + kWindow) * 32u) {
            __syncwarp();
            base = pos >> 5;
            for (uint32_t k = lane; k < kWindow + 2; k += 32)
                win[k] = base + k < word_count ? d.words[base + k] : 0u;
            __syncwarp();
            loaded = true;
        }
        const uint32_t w0 = ff ? 7u : 8u;
        uint32_t bytes[4];
        int first_ff = -1;
#pragma unroll
        for (uint32_t u = 0; u < 4; u++) {
            const uint32_t q = 4u * lane + u;
            const uint64_t start = q ? pos + w0 + 8u * (q - 1u) : pos;
            bytes[u] = start < end ? window_bits(win, base, start, q ? 8u : w0, end) : 0u;
            if (start < end && bytes[u] == 0xFFu && first_ff < 0)
                first_ff = (int)u;
        }
        const uint32_t fmask = __ballot_sync(~0u, first_ff >= 0);
        uint32_t total; // bytes kept this step
        if (fmask) {
            const uint32_t f = __ffs(fmask) - 1;
            total = 4u * f + (uint32_t)__shfl_sync(~0u, first_ff, f) + 1u;
        } else {
            const int64_t after = (int64_t)(end - pos) - (int64_t)w0; // bits past byte 0
            const uint64_t more = after > 0 ? ((uint64_t)after + 7u) / 8u : 0u;
            total = 1u + (uint32_t)(more < kStep - 1u ? more : kStep - 1u);
        }
#pragma unroll
        for (uint32_t u = 0; u < 4; u++)
            if (4u * lane + u < total)
                out[n + 4u * lane + u] = (uint8_t)bytes[u];
        n += total;
        pos += w0 + 8u * (total - 1u);
        ff = fmask != 0; // the last byte kept is the first 0xFF, or there was none
    }
    if (ff && lane == 0) // a segment never ends on a whole 0xFF byte (T.87 / CharLS)
        out[n] = 0;
    if (lane == 0)
        sg.out_size = n + (ff ? 1u : 0u);
}

} // namespace

size_t jls_gpu_offsets_scratch(uint32_t nc, uint32_t nr)
{
    size_t a = 0, b = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, a, (uint64_t *)nullptr, (uint64_t *)nullptr,
                                             nc + 1));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b, (uint64_t *)nullptr, (uint64_t *)nullptr,
                                             nr + 1));
    return std::max(a, b);
}

void jls_gpu_bit_offsets(const JlsDev &d, uint32_t nc, uint32_t nr, void *tmp, size_t tmp_size,
                         cudaStream_t s)
{
    const uint32_t n = (nc > nr ? nc : nr) + 1;
    k_lengths<<<(n + 255) / 256, 256, 0, s>>>(d, nc, nr);
    CUDA_CHECK_LAUNCH();
    size_t bytes = tmp_size;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, d.ctx_bits, d.ctx_bits, nc + 1, s));
    bytes = tmp_size;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, d.run_bits, d.run_bits, nr + 1, s));
    k_seg_bits<<<(d.seg_count + 127) / 128, 128, 0, s>>>(d);
    CUDA_CHECK_LAUNCH();
}

void jls_gpu_pack(const JlsDev &d, uint32_t nc, uint32_t nr, cudaStream_t s)
{
    const uint32_t n = nc > nr ? nc : nr;
    if (!n)
        return;
    k_pack<<<(n + 255) / 256, 256, 0, s>>>(d, nc, nr);
    CUDA_CHECK_LAUNCH();
}

void jls_gpu_stuff(const JlsDev &d, uint64_t word_count, cudaStream_t s)
{
    k_stuff<<<(d.seg_count + 3) / 4, 128, 0, s>>>(d, word_count);
    CUDA_CHECK_LAUNCH();
}
