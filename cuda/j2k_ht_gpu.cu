// j2k_ht_gpu.cu - HTJ2K code-blocks on the GPU: a thread per code-block, every HT code-block of a
// chunk at once, running the CPU's block decoder (codec/src/j2k_ht_rules.h) with the CxtVLC table
// in shared memory and each thread's two rows of quad states in its local memory. The host has
// run pcwt_j2k_ht_check and pcwt_j2k_ht_prepare on every code-block; what only decoding finds
// (an exponent bound too large, a significant sample outside the code-block) is the largest
// PCWT_J2K_HT_* code in *status, which the host reads after the chunk.
#include "gpu_check.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_ht_rules.h"
#include "j2k_ht_vlc.h"
}

namespace {

__constant__ uint16_t c_vlc_lut[2048] = PCWT_J2K_HT_VLC_LUT_INIT;

constexpr uint32_t kThreads = 64;

// code-blocks first .. first + count - 1 of the chunk, one a thread
__global__ void __launch_bounds__(kThreads) ht_kernel(J2kGpuChunk c, uint32_t first, uint32_t count, uint32_t *status)
{
    __shared__ uint16_t lut[2048];
    for (uint32_t i = threadIdx.x; i < 2048; i += blockDim.x)
        lut[i] = c_vlc_lut[i];
    __syncthreads();
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    uint8_t scratch[PCWT_J2K_HT_SCRATCH];
    const pcwt_j2k_cblk cb = c.cblks[first + i];
    const int r = pcwt_j2k_ht_block(&cb, c.segs, c.data, c.coefs, scratch, lut);
    if (r != PCWT_J2K_HT_OK)
        atomicMax(status, uint32_t(r));
}

} // namespace

void j2k_gpu_ht(const J2kGpuChunk &c, uint32_t first, uint32_t count, uint32_t *status, cudaStream_t s)
{
    if (!count)
        return;
    ht_kernel<<<(count + kThreads - 1) / kThreads, kThreads, 0, s>>>(c, first, count, status);
    CUDA_CHECK_LAUNCH();
}
