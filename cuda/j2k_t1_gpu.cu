// j2k_t1_gpu.cu - JPEG 2000 tier-1 on the GPU: a thread per code-block, every code-block of a
// chunk at once, running the CPU's decoder (codec/src/j2k_t1_rules.h) with its tables and each
// thread's context states in shared memory, each code-block's state words in its own slot of the
// chunk's state buffer. The host has checked every code-block (pcwt_j2k_t1_check) first.
// A warp's threads diverge where their code-blocks' symbols do, so a warp takes longer the more
// code-blocks it holds. The host therefore packs the code-blocks (sorted by their cost, heaviest
// first) into warps of up to 32 so that each warp's cost is about the chunk's total over the warps
// the device holds at once, times the whole passes over them that the chunk needs at 32 a warp
// (one for most chunks): heavy code-blocks get warps of few, light ones full warps, a chunk too
// small to fill the device (a frame alone) a warp per code-block, and the block scheduler gives
// each slot that frees up the next warp, so that the slots finish together.
#include "gpu_backend.h"
#include "gpu_check.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_t1_rules.h"
}

namespace {

__constant__ uint32_t c_mq_table[PCWT_J2K_MQ_STATES] = PCWT_J2K_MQ_TABLE_INIT;

// Threads a block: the block's copy of the tables and the 1 KB the device reserves per block
// come out of the same on-chip memory as L1, through which every state word goes; larger blocks
// leave more of it to L1. 896 threads an SM (28 warps) hold at most 72 registers each: the passes
// (a stripe's columns in registers, j2k_t1_rules.h) fit unspilled; at 56 (36 warps) they spill
// and run slower.
constexpr uint32_t kThreadsPerSm = 896;
// Bytes between two threads' context states: an odd number of words, so that a warp's threads
// reading the same context hit 32 different banks.
constexpr uint32_t kCxStride = 20;
static_assert(kCxStride >= PCWT_J2K_CONTEXTS && kCxStride % 8 == 4, "contexts per thread");

constexpr uint32_t kThreads = 128;
// The cost of a code-block: passes x area plus this many per codeword byte.
constexpr uint64_t kBytesWeight = 64;

// warp w decodes code-blocks warp_first[w] .. warp_first[w + 1] - 1, one a lane, its refinements
// in L2 (pcwt_j2k_t1_block_far)
__global__ void __launch_bounds__(kThreads, kThreadsPerSm / kThreads)
    t1_kernel(J2kGpuChunk c, const uint32_t *__restrict__ warp_first, uint32_t warps)
{
    __shared__ pcwt_j2k_t1_luts luts;
    __shared__ uint8_t cx[kThreads * kCxStride];
    for (uint32_t i = threadIdx.x; i < 2 * PCWT_J2K_MQ_STATES; i += blockDim.x)
        luts.mq[i] = pcwt_j2k_mq_lut(c_mq_table, i);
    for (uint32_t i = threadIdx.x; i < 256; i += blockDim.x) {
        for (uint32_t o = 0; o < 4; o++)
            luts.zc[o][i] = uint8_t(pcwt_j2k_zc_ctx(i, o));
        luts.sc[i] = pcwt_j2k_sc_lut(i);
    }
    __syncthreads();
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, w = t / 32, lane = t % 32;
    if (w >= warps)
        return;
    const uint32_t i = warp_first[w] + lane;
    if (i >= warp_first[w + 1])
        return;
    const pcwt_j2k_cblk cb = c.cblks[i];
    pcwt_j2k_t1_block_far(&cb, c.segs, c.data, c.coefs, c.state + c.state_off[i], &luts, cx + threadIdx.x * kCxStride,
                          1);
}

} // namespace

J2kT1Plan j2k_t1_plan(int device)
{
    J2kT1Plan p;
    p.warp_slots = j2k_warp_slots(device, reinterpret_cast<const void *>(t1_kernel), int(kThreads), 0);
    p.ht_slots = j2k_ht_warp_slots(device);
    return p;
}

uint64_t j2k_t1_cost(const pcwt_j2k_cblk &cb, uint64_t bytes)
{
    return uint64_t(cb.passes) * cb.width * cb.height + kBytesWeight * bytes;
}

static uint32_t j2k_t1_pack(const uint64_t *cost, size_t n, uint64_t warp_slots, uint32_t *warp_first)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += cost[i];
    const uint64_t budget = warp_slots ? (total + warp_slots - 1) / warp_slots : total;
    uint32_t warps = 0, count = 32;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (count == 32 || sum + cost[i] > budget) {
            warp_first[warps++] = uint32_t(i);
            sum = 0;
            count = 0;
        }
        sum += cost[i];
        count++;
    }
    warp_first[warps] = uint32_t(n);
    return warps;
}

extern "C" uint32_t pcwt_gpu_j2k_t1_pack(const uint64_t *cost, size_t n, uint64_t warp_slots, uint32_t *warp_first)
{
    return j2k_t1_pack(cost, n, warp_slots, warp_first);
}

void j2k_t1_warps(const std::vector<uint64_t> &cost, const J2kT1Plan &p, std::vector<uint32_t> &warp_first)
{
    const size_t n = cost.size();
    warp_first.resize(n + 1);
    const uint32_t lanes = p.fixed_lanes;
    if (!lanes) {
        // whole passes over the slots: a chunk that needs more than one at 32 a warp (all 2048 CT
        // slices at once) gets warps for two, not one and a part
        const uint64_t slots = p.warp_slots ? p.warp_slots : 1, rounds = ((n + 31) / 32 + slots - 1) / slots;
        warp_first.resize(j2k_t1_pack(cost.data(), n, slots * (rounds ? rounds : 1), warp_first.data()) + 1);
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i += lanes)
        warp_first[w++] = uint32_t(i);
    warp_first[w] = uint32_t(n);
    warp_first.resize(w + 1);
}

void j2k_gpu_t1(const J2kGpuChunk &c, const uint32_t *warp_first, uint32_t warps, cudaStream_t s)
{
    if (!c.cblk_count || !warps)
        return;
    const uint64_t threads = uint64_t(warps) * 32;
    t1_kernel<<<uint32_t((threads + kThreads - 1) / kThreads), kThreads, 0, s>>>(c, warp_first, warps);
    CUDA_CHECK_LAUNCH();
}
