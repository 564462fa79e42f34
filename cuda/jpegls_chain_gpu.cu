// jpegls_chain_gpu.cu - stages 2 and 3 of the GPU JPEG-LS encoder (see jpegls_gpu.h).
// Stage 2: RUNindex is one sequence over all runs of a segment, so one thread per segment walks
// them (a few thousand per 512x512 slice) and writes each run-length codeword and the J[RUNindex]
// that the following interruption sample's code limit needs.
// Stage 3: a stable sort by (segment, context)
// turns each context's samples into a contiguous chain in raster order, and one thread per chain
// replays exactly the sequential updates of T.87 A.6 / A.7 (same order, same inputs), so every
// codeword equals the sequential encoder's.
#include "gpu_check.h"
#include "jpegls_gpu.h"

#include <cub/cub.cuh>

namespace {

__constant__ uint8_t c_run_j[32] = {0, 0, 0, 0, 1, 1, 1,  1,  2,  2,  2,  2,  3,  3,  3,  3,
                                    4, 4, 5, 5, 6, 6, 7, 7, 8, 9, 10, 11, 12, 13, 14, 15};

__global__ void k_runs(JlsDev d)
{
    const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= d.seg_count)
        return;
    const JlsSeg &sg = d.segs[s];
    uint32_t ri = 0;
    for (uint32_t r = sg.run_first; r < sg.run_end; r++) {
        const uint32_t v = d.run_len[r];
        uint32_t len = v & 0x7FFFFFFFu, ones = 0;
        while (len >= (1u << c_run_j[ri])) {
            ones++;
            len -= 1u << c_run_j[ri];
            if (ri < 31)
                ri++;
        }
        if (v >> 31) { // end of line: a single 1 for a partial last segment
            d.run_code[r] = jls_code_pack(1, ones, len ? 1u : 0u, len ? 1u : 0u);
        } else { // a 0, then the remainder in J[RUNindex] bits
            d.run_code[r] = jls_code_pack(1, ones, c_run_j[ri] + 1u, len);
            d.run_j[r] = c_run_j[ri];
            if (ri > 0)
                ri--;
        }
    }
}

__global__ void k_iota(uint32_t *v, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = i;
}

// The least k with n * 2^k >= a (A.5.1), from the bit lengths and one correction.
__device__ inline uint32_t golomb_k(int32_t n, int32_t a)
{
    int32_t k = (31 - __clz(a)) - (31 - __clz(n));
    if (k < 0)
        k = 0;
    if ((n << k) < a)
        k++;
    return (uint32_t)k;
}

// LG(k, glimit) of m (A.5.3) as a packed codeword.
__device__ inline uint32_t golomb_code(uint32_t m, uint32_t k, uint32_t glimit, uint32_t qbpp)
{
    const uint32_t high = m >> k, max_high = glimit - qbpp - 1u;
    if (high < max_high)
        return jls_code_pack(0, high, k + 1u, (1u << k) | (m & ((1u << k) - 1u)));
    return jls_code_pack(0, max_high, qbpp + 1u, (1u << qbpp) | ((m - 1u) & ((1u << qbpp) - 1u)));
}

__device__ inline int32_t mod_range(int32_t e, int32_t range)
{
    const int32_t half = range >> 1;
    return ((e + half) & (range - 1)) - half;
}

constexpr int32_t kReset = 64, kMinC = -128, kMaxC = 127;

// The chains read their samples' records from `recs` (gathered in chain order) and write their
// codewords to `codes` in the same order: each thread streams through its own slice of both. The
// records of the next group of 8 are loaded while a group is coded, hiding memory latency behind
// the serial context updates.
constexpr uint32_t kGroup = 8;

template <typename Step>
__device__ inline void stream_chain(const uint64_t *recs, uint32_t *codes, uint32_t n, Step step)
{
    uint64_t cur[kGroup], nxt[kGroup];
#pragma unroll
    for (uint32_t u = 0; u < kGroup; u++)
        nxt[u] = u < n ? recs[u] : 0;
    for (uint32_t j = 0; j < n; j += kGroup) {
#pragma unroll
        for (uint32_t u = 0; u < kGroup; u++) {
            cur[u] = nxt[u];
            nxt[u] = j + kGroup + u < n ? recs[j + kGroup + u] : 0;
        }
#pragma unroll
        for (uint32_t u = 0; u < kGroup; u++)
            if (j + u < n)
                codes[j + u] = step(cur[u]);
    }
}

__device__ void regular_chain(const JlsParams &p, const uint64_t *recs, uint32_t *codes, uint32_t n)
{
    int32_t A = p.a_init, B = 0, C = 0, N = 1;
    stream_chain(recs, codes, n, [&](uint64_t cur) {
        const int32_t x = (int32_t)(cur & 0xFFFFu), px = (int32_t)((cur >> 16) & 0xFFFFu);
        const bool neg = (cur >> 32) & 1u;
        const uint32_t k = golomb_k(N, A);
        int32_t pred = neg ? px - C : px + C;
        pred = pred < 0 ? 0 : (pred > p.maxval ? p.maxval : pred);
        const int32_t e = mod_range(neg ? pred - x : x - pred, p.range);
        const int32_t em = (k == 0 && 2 * B + N - 1 < 0) ? -e - 1 : e;
        const uint32_t m = em >= 0 ? 2u * (uint32_t)em : 2u * (uint32_t)(-em) - 1u;
        A += e >= 0 ? e : -e;
        B += e;
        if (N == kReset) {
            A >>= 1;
            B = B >= 0 ? B >> 1 : -((1 - B) >> 1);
            N >>= 1;
        }
        N++;
        if (B + N <= 0) {
            B += N;
            if (B <= -N)
                B = 1 - N;
            if (C > kMinC)
                C--;
        } else if (B > 0) {
            B -= N;
            if (B > 0)
                B = 0;
            if (C < kMaxC)
                C++;
        }
        return golomb_code(m, k, (uint32_t)p.limit, (uint32_t)p.qbpp);
    });
}

__device__ void interruption_chain(const JlsParams &p, int32_t ritype, const uint64_t *recs,
                                   uint32_t *codes, uint32_t n)
{
    int32_t A = p.a_init, N = 1, Nn = 0;
    stream_chain(recs, codes, n, [&](uint64_t cur) {
        const int32_t x = (int32_t)(cur & 0xFFFFu), px = (int32_t)((cur >> 16) & 0xFFFFu);
        const bool neg = (cur >> 32) & 1u;
        const uint32_t glimit = (uint32_t)p.limit - (uint32_t)(cur >> 33) - 1u; // J, see k_gather
        const int32_t e = mod_range(neg ? px - x : x - px, p.range);
        const uint32_t k = golomb_k(N, A + (ritype ? N >> 1 : 0));
        int32_t map;
        if (e < 0)
            map = (k != 0 || 2 * Nn >= N) ? 1 : 0;
        else
            map = (k == 0 && e > 0 && 2 * Nn < N) ? 1 : 0;
        const int32_t em = 2 * (e < 0 ? -e : e) - ritype - map;
        if (e < 0)
            Nn++;
        A += (em + 1 - ritype) >> 1;
        if (N == kReset) {
            A >>= 1;
            N >>= 1;
            Nn >>= 1;
        }
        N++;
        return golomb_code((uint32_t)em, k, glimit, (uint32_t)p.qbpp);
    });
}

__global__ void k_chains(JlsDev d, const uint64_t *recs, uint32_t *codes)
{
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= *d.chain_count)
        return;
    const uint32_t key = d.chain_key[c];
    const uint32_t slot = key % kJlsContexts;
    const JlsParams p = jls_gpu_params(d.segs[key / kJlsContexts].bits);
    const uint32_t off = d.chain_off[c], n = d.chain_len[c];
    if (slot < kJlsRunCtx)
        regular_chain(p, recs + off, codes + off, n);
    else
        interruption_chain(p, (int32_t)(slot - kJlsRunCtx), recs + off, codes + off, n);
}

// Records in chain order; an interruption sample's run index becomes its J[RUNindex].
__global__ void k_gather(JlsDev d, uint64_t *recs, uint32_t n)
{
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    const uint32_t i = d.order[j];
    uint64_t r = d.ctx_rec[i];
    if (d.ctx_key[i] % kJlsContexts >= kJlsRunCtx)
        r = (r & 0x1FFFFFFFFull) | (uint64_t)d.run_j[r >> 33] << 33;
    recs[j] = r;
}

__global__ void k_scatter(JlsDev d, const uint32_t *codes, uint32_t n)
{
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        d.ctx_code[d.order[j]] = codes[j];
}

uint32_t key_bits(uint32_t seg_count)
{
    const uint64_t keys = (uint64_t)seg_count * kJlsContexts;
    uint32_t b = 1;
    while ((uint64_t(1) << b) < keys)
        b++;
    return b;
}

size_t sort_scratch(uint32_t n, uint32_t seg_count)
{
    size_t a = 0, b = 0, c = 0;
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, a, k, v, n, 0, key_bits(seg_count)));
    CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, b, (uint32_t *)nullptr,
                                                  (uint32_t *)nullptr, (uint32_t *)nullptr,
                                                  (uint32_t *)nullptr, n));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, c, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                             seg_count * kJlsContexts));
    return std::max(a, std::max(b, c));
}

} // namespace

void jls_gpu_runs(const JlsDev &d, cudaStream_t s)
{
    k_runs<<<(d.seg_count + 63) / 64, 64, 0, s>>>(d);
    CUDA_CHECK_LAUNCH();
}

size_t jls_gpu_chain_scratch(uint32_t ctx_count, uint32_t seg_count)
{
    return sort_scratch(ctx_count ? ctx_count : 1, seg_count ? seg_count : 1);
}

void jls_gpu_chains(const JlsDev &d, uint32_t n, void *tmp, size_t tmp_size, cudaStream_t s)
{
    if (!n)
        return;
    const uint32_t blocks = (n + 255) / 256;
    k_iota<<<blocks, 256, 0, s>>>(d.order_alt, n);
    CUDA_CHECK_LAUNCH();
    // Stable LSD radix sort of copies of the keys: within a (segment, context) key the samples stay
    // in raster order. ctx_key itself is kept (k_gather reads it).
    CUDA_CHECK(cudaMemcpyAsync(d.key_alt, d.ctx_key, sizeof(uint32_t) * n, cudaMemcpyDeviceToDevice, s));
    cub::DoubleBuffer<uint32_t> keys(d.key_alt, d.order_code), vals(d.order_alt, d.order);
    size_t bytes = tmp_size;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, vals, n, 0,
                                               key_bits(d.seg_count), s));
    if (vals.Current() != d.order)
        CUDA_CHECK(cudaMemcpyAsync(d.order, vals.Current(), sizeof(uint32_t) * n,
                                   cudaMemcpyDeviceToDevice, s));
    const uint32_t max_chains = d.seg_count * kJlsContexts;
    bytes = tmp_size;
    // entries past the number of chains stay 0, so the scan below reads defined values
    CUDA_CHECK(cudaMemsetAsync(d.chain_len, 0, sizeof(uint32_t) * max_chains, s));
    CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(tmp, bytes, keys.Current(), d.chain_key,
                                                  d.chain_len, d.chain_count, n, s));
    bytes = tmp_size;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, d.chain_len, d.chain_off,
                                             max_chains, s));
    // ctx_bits (filled only later, by the bit-offset stage) holds the gathered records meanwhile,
    // and order_code (free after the sort) the codewords in chain order.
    uint64_t *recs = d.ctx_bits;
    k_gather<<<blocks, 256, 0, s>>>(d, recs, n);
    CUDA_CHECK_LAUNCH();
    const uint32_t chains = max_chains < n ? max_chains : n;
    k_chains<<<(chains + 63) / 64, 64, 0, s>>>(d, recs, d.order_code);
    CUDA_CHECK_LAUNCH();
    k_scatter<<<blocks, 256, 0, s>>>(d, d.order_code, n);
    CUDA_CHECK_LAUNCH();
}
