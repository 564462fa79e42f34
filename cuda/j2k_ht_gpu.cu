// j2k_ht_gpu.cu - HTJ2K code-blocks on the GPU: a thread per code-block, every HT code-block of a
// chunk at once, running the CPU's block decoder (codec/src/j2k_ht_rules.h) with the CxtVLC table
// and each thread's two rows of quad states in shared memory (sized for the chunk's widest HT
// code-block: in local memory they missed L1, a thread's rows a line apart). A warp takes `lanes`
// code-blocks (1..32, the rest of its lanes idle; by default 8, fewer when the chunk has fewer
// code-blocks than the device holds warps, so that a small chunk spreads over them): a warp's
// lanes wait on each other's branches, and 8 a warp decode faster than full warps. The host has
// run pcwt_j2k_ht_check and pcwt_j2k_ht_prepare on every code-block; what only decoding finds
// (an exponent bound too large, a significant sample outside the code-block) is the largest
// PCWT_J2K_HT_* code in *status, which the host reads after the chunk.
#include "gpu_backend.h"
#include "gpu_check.h"
#include "j2k_gpu.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "j2k_ht_rules.h"
#include "j2k_ht_vlc.h"
}

namespace {

__constant__ uint16_t c_vlc_lut[2048] = PCWT_J2K_HT_VLC_LUT_INIT;

// Threads a block: 128 (the LUT once for 128 threads, more of the SM's on-chip memory left to L1;
// 64 and 256 measured no faster).
constexpr uint32_t kThreads = 128;
// HT code-blocks a warp at most: 8 decoded faster than 4, by count (7-31) and 32 on 12k-145k
// code-blocks (bench/results/gpu-h200-2026-11-29-session11-j2k.md).
constexpr uint64_t kMaxLanes = 8;

// Bytes between two threads' quad states: an odd number of words (no two threads of a warp on
// one bank), room for the widest code-block's two rows.
uint32_t scratch_stride(uint32_t max_width)
{
    const uint32_t words = (pcwt_j2k_ht_scratch(max_width) + 3) / 4;
    return 4 * (words | 1u);
}

// code-blocks first .. first + count - 1 of the chunk, `lanes` a warp, one a thread; stride:
// scratch_stride, for the block's busy lanes only
__global__ void __launch_bounds__(kThreads)
    ht_kernel(J2kGpuChunk c, uint32_t first, uint32_t count, uint32_t lanes, uint32_t stride, uint32_t *status)
{
    __shared__ uint16_t lut[2048];
    extern __shared__ uint32_t rows[];
    for (uint32_t i = threadIdx.x; i < 2048; i += blockDim.x)
        lut[i] = c_vlc_lut[i];
    __syncthreads();
    const uint32_t lane = threadIdx.x % 32, w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const uint32_t i = w * lanes + lane;
    if (lane >= lanes || i >= count)
        return;
    uint8_t *scratch = reinterpret_cast<uint8_t *>(rows) + (threadIdx.x / 32 * lanes + lane) * stride;
    const pcwt_j2k_cblk cb = c.cblks[first + i];
    const int r = pcwt_j2k_ht_block(&cb, c.segs, c.data, c.coefs, scratch, lut);
    if (r != PCWT_J2K_HT_OK)
        atomicMax(status, uint32_t(r));
}

} // namespace

uint32_t j2k_warp_slots(int device, const void *kernel, int threads, size_t smem)
{
    int sms = 0, blocks = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
    return uint32_t(sms > 0 ? sms : 1) * uint32_t(blocks > 0 ? blocks : 1) * uint32_t(threads / 32);
}

uint32_t j2k_ht_warp_slots(int device)
{
    // the common case: 64 columns a code-block, every lane busy
    return j2k_warp_slots(device, reinterpret_cast<const void *>(ht_kernel), int(kThreads),
                          size_t(scratch_stride(64)) * kThreads);
}

uint32_t j2k_ht_lanes(uint64_t count, uint32_t ht_slots)
{
    const uint64_t slots = ht_slots ? ht_slots : 1;
    return uint32_t(std::min<uint64_t>(kMaxLanes, std::max<uint64_t>(1, (kMaxLanes * count + slots - 1) / slots)));
}

extern "C" uint32_t pcwt_gpu_j2k_ht_lanes(uint64_t count, uint32_t ht_slots) { return j2k_ht_lanes(count, ht_slots); }

void j2k_gpu_ht(const J2kGpuChunk &c, uint32_t first, uint32_t count, uint32_t max_width, uint32_t lanes,
                uint32_t *status, cudaStream_t s)
{
    if (!count)
        return;
    lanes = lanes < 1 || lanes > 32 ? 32 : lanes;
    const uint32_t stride = scratch_stride(max_width);
    const size_t smem = size_t(stride) * lanes * (kThreads / 32);
    if (smem > 48 * 1024) // above the default limit: wide code-blocks
        CUDA_CHECK(cudaFuncSetAttribute(ht_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const uint64_t threads = (uint64_t(count) + lanes - 1) / lanes * 32;
    ht_kernel<<<uint32_t((threads + kThreads - 1) / kThreads), kThreads, smem, s>>>(c, first, count, lanes, stride,
                                                                                   status);
    CUDA_CHECK_LAUNCH();
}
