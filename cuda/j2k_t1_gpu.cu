// j2k_t1_gpu.cu - JPEG 2000 tier-1 on the GPU: a thread per code-block, every code-block of a
// chunk at once, running the CPU's decoder (codec/src/j2k_t1_rules.h) with the MQ table in
// shared memory, each code-block's state words in its own slot of the chunk's state buffer. The
// host has checked every code-block (pcwt_j2k_t1_check) first.
#include "gpu_check.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_t1_rules.h"
}

namespace {

__constant__ uint32_t c_mq_table[PCWT_J2K_MQ_STATES] = PCWT_J2K_MQ_TABLE_INIT;

__global__ void t1_kernel(J2kGpuChunk c)
{
    __shared__ uint32_t table[PCWT_J2K_MQ_STATES];
    for (uint32_t i = threadIdx.x; i < PCWT_J2K_MQ_STATES; i += blockDim.x)
        table[i] = c_mq_table[i];
    __syncthreads();
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= c.cblk_count)
        return;
    const pcwt_j2k_cblk cb = c.cblks[i];
    pcwt_j2k_t1_block(&cb, c.segs, c.data, c.coefs, c.state + c.state_off[i], table);
}

} // namespace

void j2k_gpu_t1(const J2kGpuChunk &c, cudaStream_t s)
{
    if (!c.cblk_count)
        return;
    const uint32_t block = 64;
    t1_kernel<<<(c.cblk_count + block - 1) / block, block, 0, s>>>(c);
    CUDA_CHECK_LAUNCH();
}
