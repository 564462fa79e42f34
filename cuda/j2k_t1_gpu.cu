// j2k_t1_gpu.cu - JPEG 2000 tier-1 on the GPU: a thread per code-block, every code-block of a
// chunk at once, running the CPU's decoder (codec/src/j2k_t1_rules.h) with its tables and each
// thread's context states in shared memory, each code-block's state words in its own slot of the
// chunk's state buffer. The host has checked every code-block (pcwt_j2k_t1_check) first.
// A warp's threads diverge at nearly every symbol, so a warp takes about as long as the paths of
// all its code-blocks together: when a chunk has too few code-blocks to give every warp scheduler
// of the device a full warp (a frame or a few), each warp takes fewer code-blocks ("lanes"), down
// to one, and the chunk's latency drops towards that of its slowest code-block.
#include "gpu_backend.h"
#include "gpu_check.h"
#include "j2k_gpu.h"

#include <cstdlib>

extern "C" {
#include "j2k_t1_rules.h"
}

namespace {

__constant__ uint32_t c_mq_table[PCWT_J2K_MQ_STATES] = PCWT_J2K_MQ_TABLE_INIT;

constexpr uint32_t kThreads = 64;
// Bytes between two threads' context states: an odd number of words, so that a warp's threads
// reading the same context hit 32 different banks.
constexpr uint32_t kCxStride = 20;
static_assert(kCxStride >= PCWT_J2K_CONTEXTS && kCxStride % 8 == 4, "contexts per thread");

__global__ void __launch_bounds__(kThreads, 16) t1_kernel(J2kGpuChunk c, uint32_t lanes)
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
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, lane = t % 32;
    const uint32_t i = t / 32 * lanes + lane;
    if (lane >= lanes || i >= c.cblk_count)
        return;
    const pcwt_j2k_cblk cb = c.cblks[i];
    pcwt_j2k_t1_block(&cb, c.segs, c.data, c.coefs, c.state + c.state_off[i], &luts, cx + threadIdx.x * kCxStride);
}

} // namespace

uint32_t j2k_t1_lanes(uint32_t cblks, uint32_t schedulers)
{
    // PCWT_J2K_T1_LANES=1..32: a fixed count (tests, measurements; 32: a full warp whatever the chunk)
    const char *v = std::getenv("PCWT_J2K_T1_LANES");
    const long fixed = v ? std::strtol(v, nullptr, 10) : 0;
    if (fixed >= 1 && fixed <= 32)
        return uint32_t(fixed);
    uint32_t lanes = 32;
    while (lanes > 1 && (uint64_t(cblks) + lanes / 2 - 1) / (lanes / 2) <= schedulers)
        lanes /= 2;
    return lanes;
}

extern "C" uint32_t pcwt_gpu_j2k_t1_lanes(uint32_t cblks, uint32_t schedulers)
{
    return j2k_t1_lanes(cblks, schedulers);
}

void j2k_gpu_t1(const J2kGpuChunk &c, uint32_t schedulers, cudaStream_t s)
{
    if (!c.cblk_count)
        return;
    const uint32_t lanes = j2k_t1_lanes(c.cblk_count, schedulers);
    const uint64_t threads = (uint64_t(c.cblk_count) + lanes - 1) / lanes * 32;
    t1_kernel<<<uint32_t((threads + kThreads - 1) / kThreads), kThreads, 0, s>>>(c, lanes);
    CUDA_CHECK_LAUNCH();
}
