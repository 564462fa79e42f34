// jpegls_pack_gpu.cu - stage 4 of the GPU JPEG-LS encoder (see jpegls_gpu.h): bit positions,
// packing and marker stuffing.
// In raster order a segment's codewords are its context-coded samples' codewords with run-length
// codewords between them. A sample's bit position is therefore (bits of the context codewords
// before it) + (bits of the runs before it), two prefix sums; a run's is (bits of the context
// codewords before it) + (bits of the runs before it). Segments follow each other in both arrays,
// so one unstuffed bit string holds the whole batch.
// Stuffing (T.87 A.1: after a 0xFF byte the next byte carries 7 bits) is sequential over bytes,
// but its state between bytes is small: where the next byte starts modulo 8 and whether the byte
// before was 0xFF. Each chunk of a segment's bits is cut from the 8 states without a 0xFF before at
// once (a warp cuts 128 bytes at a time assuming no 0xFF among them, keeps them up to and
// including the first 0xFF and goes on from there), a warp per segment follows the true state
// through the chunks' tables (cutting the rare chunk entered after a 0xFF itself), and each chunk
// is cut again from its true state, writing its bytes.
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

constexpr uint32_t kStep = 128; // bytes a warp cuts per step (4 per lane)
// The unstuffed bits of a segment are stuffed in chunks of kStuffChunk bits. A chunk's window
// holds its words and what its last step may read past it.
constexpr uint32_t kStuffChunk = 16384;
constexpr uint32_t kStuffWords = kStuffChunk / 32 + 40;

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

__device__ inline void load_window(uint32_t *win, const uint32_t *words, uint64_t word_count,
                                   uint64_t base, uint32_t t, uint32_t threads)
{
    for (uint32_t k = t; k < kStuffWords; k += threads)
        win[k] = base + k < word_count ? words[base + k] : 0u;
}

// A warp cuts the bytes that start before `stop`, from bit pos on (ff: the byte before was 0xFF,
// so the first takes 7 bits); bits at or past `end` read as 0. Each step cuts up to 128 bytes
// assuming no 0xFF among them (byte 0 takes 7 bits after a 0xFF, the others 8), keeps them up to
// and including the first 0xFF, and goes on from there. Writes the bytes to out when it is not
// null; returns their count, and pos and ff become the state after them.
__device__ uint32_t stuff_span(const uint32_t *win, uint64_t base, uint64_t &pos, bool &ff,
                               uint64_t stop, uint64_t end, uint8_t *out, uint32_t lane)
{
    uint32_t n = 0;
    while (pos < stop) {
        const uint32_t w0 = ff ? 7u : 8u;
        uint32_t bytes[4];
        int first_ff = -1;
#pragma unroll
        for (uint32_t u = 0; u < 4; u++) {
            const uint32_t q = 4u * lane + u;
            const uint64_t start = q ? pos + w0 + 8u * (q - 1u) : pos;
            bytes[u] = start < stop ? window_bits(win, base, start, q ? 8u : w0, end) : 0u;
            if (start < stop && bytes[u] == 0xFFu && first_ff < 0)
                first_ff = (int)u;
        }
        const uint32_t fmask = __ballot_sync(~0u, first_ff >= 0);
        uint32_t total; // bytes kept this step
        if (fmask) {
            const uint32_t f = __ffs(fmask) - 1;
            total = 4u * f + (uint32_t)__shfl_sync(~0u, first_ff, f) + 1u;
        } else {
            const int64_t after = (int64_t)(stop - pos) - (int64_t)w0; // bits past byte 0
            const uint64_t more = after > 0 ? ((uint64_t)after + 7u) / 8u : 0u;
            total = 1u + (uint32_t)(more < kStep - 1u ? more : kStep - 1u);
        }
        if (out) {
#pragma unroll
            for (uint32_t u = 0; u < 4; u++)
                if (4u * lane + u < total)
                    out[n + 4u * lane + u] = (uint8_t)bytes[u];
        }
        n += total;
        pos += w0 + 8u * (total - 1u);
        ff = fmask != 0; // the last byte kept is the first 0xFF, or there was none
    }
    return n;
}

// Stuffing in three passes over chunks. A chunk's entry state is where its first byte starts
// (0..7 bits past the chunk's start) and whether the byte before it was 0xFF: 16 states.
struct StuffTabs {
    uint32_t *first; // [S + 1] first chunk of each segment (scan of the counts)
    uint32_t *tab;   // [T * 8] per entry state without a 0xFF before: exit offset | exit ff << 3 |
                     // bytes << 4
    uint32_t *entry; // [T] the true entry state
    uint64_t *off;   // [T] the chunk's first byte in its segment's output
};

struct StuffChunk {
    const JlsSeg *sg;
    uint64_t start, stop;
};

__device__ inline StuffChunk stuff_chunk(const JlsDev &d, const StuffTabs &t, uint32_t c)
{
    const uint32_t lo = jls_last_at_or_before(t.first, d.seg_count, c);
    const JlsSeg &sg = d.segs[lo];
    const uint64_t start = sg.bit_first + (uint64_t)(c - t.first[lo]) * kStuffChunk;
    return {&sg, start, sg.bit_end - start < kStuffChunk ? sg.bit_end : start + kStuffChunk};
}

__global__ void k_stuff_counts(JlsDev d, StuffTabs t)
{
    const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s <= d.seg_count)
        t.first[s] = s < d.seg_count ? (uint32_t)((d.segs[s].bit_end - d.segs[s].bit_first +
                                                   kStuffChunk - 1) / kStuffChunk)
                                     : 0u;
}

// A block of 8 warps per chunk, a warp per entry state that does not follow a 0xFF byte (those
// that do are rare and are cut by the walk), one window.
__global__ void k_stuff_tables(JlsDev d, StuffTabs t, uint64_t word_count)
{
    __shared__ uint32_t win[kStuffWords];
    const uint32_t c = blockIdx.x;
    if (c >= t.first[d.seg_count])
        return;
    const StuffChunk k = stuff_chunk(d, t, c);
    const uint64_t base = k.start >> 5;
    load_window(win, d.words, word_count, base, threadIdx.x, blockDim.x);
    __syncthreads();
    const uint32_t e = threadIdx.x >> 5;
    uint64_t pos = k.start + e;
    bool ff = false;
    const uint32_t n = stuff_span(win, base, pos, ff, k.stop, k.sg->bit_end, nullptr, threadIdx.x & 31u);
    if ((threadIdx.x & 31u) == 0)
        t.tab[8 * c + e] = (uint32_t)(pos - k.stop) | (uint32_t)ff << 3 | n << 4;
}

// A warp per segment follows the states through its chunks: the lanes stage the tables of 32
// chunks in shared memory, follow the state through them (every lane alike; a chunk entered after
// a 0xFF byte is cut here, by the warp, as its table lacks that state), and write the entry states
// and offsets.
__global__ void k_stuff_walk(JlsDev d, StuffTabs t, uint64_t word_count)
{
    __shared__ uint32_t tabs[4][32 * 8], entries[4][32], window[4][kStuffWords];
    __shared__ uint64_t offs[4][32];
    const uint32_t s = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31u;
    if (s >= d.seg_count)
        return;
    JlsSeg &sg = d.segs[s];
    const uint32_t w = threadIdx.x >> 5, c0 = t.first[s], c1 = t.first[s + 1];
    uint32_t e = 0;
    uint64_t off = 0;
    for (uint32_t b = c0; b < c1; b += 32) {
        const uint32_t m = c1 - b < 32 ? c1 - b : 32;
        for (uint32_t k = lane; k < 8 * m; k += 32)
            tabs[w][k] = t.tab[8 * (size_t)b + k];
        __syncwarp();
        for (uint32_t q = 0; q < m; q++) {
            if (lane == 0) {
                entries[w][q] = e;
                offs[w][q] = off;
            }
            uint32_t v;
            if (e < 8) {
                v = tabs[w][8 * q + e];
            } else {
                const uint64_t start = sg.bit_first + (uint64_t)(b + q - c0) * kStuffChunk;
                const uint64_t stop = sg.bit_end - start < kStuffChunk ? sg.bit_end : start + kStuffChunk;
                __syncwarp();
                load_window(window[w], d.words, word_count, start >> 5, lane, 32);
                __syncwarp();
                uint64_t pos = start + (e & 7u);
                bool ff = true;
                const uint32_t n = stuff_span(window[w], start >> 5, pos, ff, stop, sg.bit_end, nullptr, lane);
                v = (uint32_t)(pos - stop) | (uint32_t)ff << 3 | n << 4;
            }
            off += v >> 4;
            e = v & 15u;
        }
        __syncwarp();
        if (lane < m) {
            t.entry[b + lane] = entries[w][lane];
            t.off[b + lane] = offs[w][lane];
        }
        __syncwarp();
    }
    if (lane == 0) {
        const bool ff = e >> 3;
        if (ff) // a segment never ends on a whole 0xFF byte (T.87 / CharLS)
            d.out[sg.out_off + off] = 0;
        sg.out_size = (uint32_t)(off + (ff ? 1u : 0u));
    }
}

// A warp per chunk writes its bytes from its true entry state.
__global__ void k_stuff_write(JlsDev d, StuffTabs t, uint64_t word_count)
{
    __shared__ uint32_t window[4][kStuffWords];
    const uint32_t c = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31u;
    if (c >= t.first[d.seg_count])
        return;
    uint32_t *win = window[threadIdx.x >> 5];
    const StuffChunk k = stuff_chunk(d, t, c);
    const uint64_t base = k.start >> 5;
    load_window(win, d.words, word_count, base, lane, 32);
    __syncwarp();
    const uint32_t e = t.entry[c];
    uint64_t pos = k.start + (e & 7u);
    bool ff = e >> 3;
    stuff_span(win, base, pos, ff, k.stop, k.sg->bit_end, d.out + k.sg->out_off + t.off[c], lane);
}

StuffTabs stuff_tabs(void *p, uint32_t seg_count, uint64_t chunks)
{
    StuffTabs t;
    t.off = static_cast<uint64_t *>(p);
    t.first = reinterpret_cast<uint32_t *>(t.off + chunks);
    t.tab = t.first + seg_count + 1;
    t.entry = t.tab + 8 * chunks;
    return t;
}

uint64_t stuff_chunks(uint64_t bits, uint32_t seg_count) { return bits / kStuffChunk + seg_count + 1; }

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

size_t jls_gpu_stuff_bytes(uint64_t bits, uint32_t seg_count)
{
    const uint64_t chunks = stuff_chunks(bits, seg_count);
    return 8 * chunks + 4 * (seg_count + 1) + 4 * 9 * chunks;
}

size_t jls_gpu_stuff_scratch(uint32_t seg_count)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (uint32_t *)nullptr,
                                             (uint32_t *)nullptr, seg_count + 1));
    return bytes;
}

void jls_gpu_stuff(const JlsDev &d, uint64_t word_count, uint64_t bits, void *tabs, void *tmp,
                   size_t tmp_size, cudaStream_t s)
{
    const uint64_t chunks = stuff_chunks(bits, d.seg_count);
    const StuffTabs t = stuff_tabs(tabs, d.seg_count, chunks);
    k_stuff_counts<<<d.seg_count / 128 + 1, 128, 0, s>>>(d, t);
    CUDA_CHECK_LAUNCH();
    size_t bytes = tmp_size;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, t.first, t.first, d.seg_count + 1, s));
    k_stuff_tables<<<(uint32_t)chunks, 256, 0, s>>>(d, t, word_count);
    CUDA_CHECK_LAUNCH();
    k_stuff_walk<<<(d.seg_count + 3) / 4, 128, 0, s>>>(d, t, word_count);
    CUDA_CHECK_LAUNCH();
    k_stuff_write<<<(uint32_t)((chunks + 3) / 4), 128, 0, s>>>(d, t, word_count);
    CUDA_CHECK_LAUNCH();
}
