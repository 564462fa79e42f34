// jpegls_chain_gpu.cu - stages 2 and 3 of the GPU JPEG-LS encoder (see jpegls_gpu.h).
// Stage 2: RUNindex is one sequence over all runs of a segment; it is found for groups of runs at
// once (each group's map from the RUNindex before it to the one after it, for all 32 values, then
// a scan of the maps), and a thread per group writes each run-length codeword and the J[RUNindex]
// that the following interruption sample's code limit needs.
// Stage 3: a stable sort by (segment, context) turns each context's samples into a contiguous
// chain in raster order, which replays exactly the sequential updates of T.87 A.6 / A.7 (same
// order, same inputs), so every codeword equals the sequential encoder's. A long chain is coded
// in chunks at once (jpegls_chain_step.h: speculate, rejoin, fix), so that one large frame's most
// populated context does not bound the stage.
#include "gpu_check.h"
#include "jpegls_chain_step.h"
#include "jpegls_gpu.h"

#include <cub/cub.cuh>

namespace {

__constant__ uint8_t c_run_j[32] = {0, 0, 0, 0, 1, 1, 1,  1,  2,  2,  2,  2,  3,  3,  3,  3,
                                    4, 4, 5, 5, 6, 6, 7, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// One run's RUNindex update (T.87 A.7.1): returns its codeword, and J[RUNindex] for the
// interruption sample after it in *j.
__device__ inline uint32_t code_run(uint32_t v, uint32_t &ri, uint8_t *j)
{
    if (v & 0x40000000u)
        ri = 0;
    uint32_t len = v & 0x3FFFFFFFu, ones = 0;
    while (len >= (1u << c_run_j[ri])) {
        ones++;
        len -= 1u << c_run_j[ri];
        if (ri < 31)
            ri++;
    }
    if (v >> 31) // end of line: a single 1 for a partial last segment
        return jls_code_pack(1, ones, len ? 1u : 0u, len ? 1u : 0u);
    const uint32_t code = jls_code_pack(1, ones, c_run_j[ri] + 1u, len); // a 0, then the remainder
    *j = c_run_j[ri];
    if (ri > 0)
        ri--;
    return code;
}

// RUNindex after a group of runs for each RUNindex before it (lane = RUNindex before).
struct RunMap {
    uint8_t to[32];
};

struct ComposeMaps { // a then b
    __device__ RunMap operator()(const RunMap &a, const RunMap &b) const
    {
        RunMap r;
#pragma unroll
        for (int i = 0; i < 32; i++)
            r.to[i] = b.to[a.to[i]];
        return r;
    }
};

__global__ void k_run_maps(JlsDev d, uint32_t nr)
{
    const uint32_t g = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31u;
    const uint32_t first = g * kJlsRunGroup;
    if (first >= nr)
        return;
    const uint32_t end = nr - first < kJlsRunGroup ? nr : first + kJlsRunGroup;
    uint32_t ri = lane;
    uint8_t j;
    for (uint32_t r = first; r < end; r++)
        (void)code_run(d.run_len[r], ri, &j);
    d.run_maps[32 * g + lane] = (uint8_t)ri;
}

// A thread per group, from the RUNindex the scan of the maps gives (the batch's first run starts
// a segment, so the state before it does not matter).
__global__ void k_run_codes(JlsDev d, uint32_t nr, const RunMap *before)
{
    const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t first = g * kJlsRunGroup;
    if (first >= nr)
        return;
    const uint32_t end = nr - first < kJlsRunGroup ? nr : first + kJlsRunGroup;
    uint32_t ri = before[g].to[0];
    for (uint32_t r = first; r < end; r++)
        d.run_code[r] = code_run(d.run_len[r], ri, &d.run_j[r]);
}

__global__ void k_iota(uint32_t *v, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = i;
}

// Chunks of the chains (jpegls_chain_step.h). chunk_first[c] is chain c's first chunk in the
// batch, an exclusive scan of the chunk counts; chunk j >= 1 of chain c has the index
// chunk_first[c] - c + j - 1 among the chunks that are not first, whose speculative states are
// kept: the end state of the chunk before it (first pass in prev_a, after the rejoin pass in
// prev_b), its start state and its checkpoints.
struct ChunkStates {
    JlsChainState *prev_a, *prev_b, *start, *checks;
};

ChunkStates chunk_states(void *base, uint32_t n)
{
    const size_t e = n / kJlsChunk + 1; // chunks that are not first, at most
    JlsChainState *p = static_cast<JlsChainState *>(base);
    return {p, p + e, p + 2 * e, p + 3 * e};
}

size_t chunk_state_bytes(uint32_t n) { return sizeof(JlsChainState) * (3 + kJlsChecks) * (n / kJlsChunk + 1); }

__global__ void k_chunk_counts(JlsDev d, uint32_t max_chains)
{
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c <= max_chains) // chain_len is 0 past the last chain
        d.chunk_first[c] = c < max_chains ? (d.chain_len[c] + kJlsChunk - 1) / kJlsChunk : 0;
}

struct ChunkTask {
    uint32_t chain, j, chunks, base; // base + j - 1: the index of chunk j >= 1 among non-first ones
    uint32_t slot, off, n;
    JlsParams p;
};

// The chain and chunk of task t, when t is a chunk: the last chain whose first chunk is at or
// before t (every chain has at least one chunk, so chunk_first rises strictly).
__device__ inline bool task_of(const JlsDev &d, uint32_t t, ChunkTask &k)
{
    const uint32_t count = *d.chain_count;
    if (t >= d.chunk_first[count])
        return false;
    const uint32_t lo = jls_last_at_or_before(d.chunk_first, count, t);
    k.chain = lo;
    k.j = t - d.chunk_first[lo];
    k.chunks = d.chunk_first[lo + 1] - d.chunk_first[lo];
    k.base = d.chunk_first[lo] - lo;
    const uint32_t key = d.chain_key[lo];
    k.slot = key % kJlsContexts;
    k.p = jls_gpu_params(d.segs[key / kJlsContexts].bits);
    k.off = d.chain_off[lo];
    k.n = d.chain_len[lo];
    return true;
}

// First pass: every chunk from its guessed start state.
__global__ void k_speculate(JlsDev d, const uint64_t *recs, uint32_t *codes, ChunkStates st)
{
    ChunkTask k;
    if (!task_of(d, blockIdx.x * blockDim.x + threadIdx.x, k))
        return;
    const uint32_t e = k.base + k.j - 1;
    JlsChainState start, end;
    jls_chunk_speculate(k.p, k.slot, recs + k.off, codes + k.off, k.n, k.j,
                        k.j ? st.checks + (size_t)e * kJlsChecks : nullptr, &start, &end);
    if (k.j)
        st.start[e] = start;
    if (k.j + 1 < k.chunks)
        st.prev_a[k.base + k.j] = end;
}

// Second pass: every chunk again from the first pass's end state of the chunk before it, where
// that differs from its start (prev_a to prev_b). A chunk whose end state changes makes the next
// one inconsistent: fix_from[chain] is the first such next chunk.
__global__ void k_rejoin(JlsDev d, const uint64_t *recs, uint32_t *codes, ChunkStates st,
                         uint32_t *fix_from)
{
    ChunkTask k;
    if (!task_of(d, blockIdx.x * blockDim.x + threadIdx.x, k) || k.chunks < 2)
        return;
    if (k.j == 0) {
        st.prev_b[k.base] = st.prev_a[k.base];
        return;
    }
    const uint32_t e = k.base + k.j - 1;
    JlsChainState s = st.prev_a[e];
    const JlsChainState end = k.j + 1 < k.chunks ? st.prev_a[e + 1] : s;
    jls_chunk_recode(k.p, k.slot, recs + k.off, codes + k.off, k.n, k.j, s, st.start + e,
                     st.checks + (size_t)e * kJlsChecks, end);
    if (k.j + 1 < k.chunks) {
        st.prev_b[e + 1] = s;
        if (!jls_state_eq(s, end))
            atomicMin(&fix_from[k.chain], k.j + 1);
    }
}

// Last pass: one thread per chain walks its chunks with the true state from the first chunk that
// may be inconsistent (the chunks before it start where their neighbours ended, chunk 0 exactly).
__global__ void k_fix(JlsDev d, const uint64_t *recs, uint32_t *codes, ChunkStates st,
                      const uint32_t *fix_from)
{
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= *d.chain_count)
        return;
    const uint32_t chunks = d.chunk_first[c + 1] - d.chunk_first[c], j0 = fix_from[c];
    if (j0 >= chunks)
        return;
    const uint32_t base = d.chunk_first[c] - c, key = d.chain_key[c], off = d.chain_off[c];
    const JlsParams p = jls_gpu_params(d.segs[key / kJlsContexts].bits);
    JlsChainState s = st.prev_b[base + j0 - 1];
    for (uint32_t j = j0; j < chunks; j++) {
        const uint32_t e = base + j - 1;
        const JlsChainState end = j + 1 < chunks ? st.prev_b[e + 1] : s;
        jls_chunk_recode(p, key % kJlsContexts, recs + off, codes + off, d.chain_len[c], j, s,
                         st.start + e, st.checks + (size_t)e * kJlsChecks, end);
    }
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
                                             seg_count * kJlsContexts + 1));
    return std::max(a, std::max(b, c));
}

} // namespace

size_t jls_gpu_runs_scratch(uint32_t nr)
{
    size_t bytes = 0;
    RunMap id{};
    CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, (RunMap *)nullptr, (RunMap *)nullptr,
                                              ComposeMaps(), id, nr / kJlsRunGroup + 1));
    return bytes;
}

void jls_gpu_runs(const JlsDev &d, uint32_t nr, void *tmp, size_t tmp_size, cudaStream_t s)
{
    if (!nr)
        return;
    const uint32_t groups = (nr + kJlsRunGroup - 1) / kJlsRunGroup;
    k_run_maps<<<(groups + 3) / 4, 128, 0, s>>>(d, nr);
    CUDA_CHECK_LAUNCH();
    RunMap id;
    for (uint32_t i = 0; i < 32; i++)
        id.to[i] = (uint8_t)i;
    RunMap *maps = reinterpret_cast<RunMap *>(d.run_maps), *before = maps + groups;
    size_t bytes = tmp_size;
    CUDA_CHECK(cub::DeviceScan::ExclusiveScan(tmp, bytes, maps, before, ComposeMaps(), id, groups, s));
    k_run_codes<<<(groups + 63) / 64, 64, 0, s>>>(d, nr, before);
    CUDA_CHECK_LAUNCH();
}

size_t jls_gpu_chain_state_bytes(uint32_t ctx_count) { return chunk_state_bytes(ctx_count); }

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
    // the chunks of every chain, their speculative states in key_alt (free after the sort)
    k_chunk_counts<<<max_chains / 256 + 1, 256, 0, s>>>(d, max_chains);
    CUDA_CHECK_LAUNCH();
    bytes = tmp_size;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, d.chunk_first, d.chunk_first,
                                             max_chains + 1, s));
    const ChunkStates st = chunk_states(d.key_alt, n);
    const uint32_t chains = max_chains < n ? max_chains : n;
    const uint32_t tasks = n / kJlsChunk + chains + 1; // chunks, at most
    k_speculate<<<(tasks + 127) / 128, 128, 0, s>>>(d, recs, d.order_code, st);
    CUDA_CHECK_LAUNCH();
    uint32_t *fix_from = d.order_alt; // [chains], free after the sort
    CUDA_CHECK(cudaMemsetAsync(fix_from, 0xFF, sizeof(uint32_t) * chains, s));
    k_rejoin<<<(tasks + 127) / 128, 128, 0, s>>>(d, recs, d.order_code, st, fix_from);
    CUDA_CHECK_LAUNCH();
    k_fix<<<(chains + 127) / 128, 128, 0, s>>>(d, recs, d.order_code, st, fix_from);
    CUDA_CHECK_LAUNCH();
    k_scatter<<<blocks, 256, 0, s>>>(d, d.order_code, n);
    CUDA_CHECK_LAUNCH();
}
