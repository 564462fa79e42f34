// j2k_t1_gpu.cu - JPEG 2000 tier-1 on the GPU: a thread per code-block, every code-block of a
// chunk at once, running the CPU's decoder (codec/src/j2k_t1_rules.h) with the MQ table in
// shared memory, each code-block's state words in its own slot of the chunk's state buffer. The
// host has checked every code-block (pcwt_j2k_t1_check) first.
//
// Two layouts of the same decoder, picked by PCWT_J2K_T1_SHARED (until measurements settle it):
// unset or 0, the state words in device memory and 64 threads a block (many code-blocks in
// flight, their state in the caches); 1, the state words of up to 4096-word code-blocks in
// shared memory, 24 threads a block (few code-blocks in flight, each one's state on chip).
#include "gpu_check.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_t1_rules.h"
}

#include <cstdlib>

namespace {

__constant__ uint32_t c_mq_table[PCWT_J2K_MQ_STATES] = PCWT_J2K_MQ_TABLE_INIT;

constexpr uint32_t kSharedWords = 4096; // a 64x64 code-block's state words
constexpr uint32_t kSharedThreads = 24; // 192 KiB of shared memory a block

template <bool Shared> __global__ void t1_kernel(J2kGpuChunk c)
{
    __shared__ uint32_t table[PCWT_J2K_MQ_STATES];
    extern __shared__ uint16_t slots[];
    for (uint32_t i = threadIdx.x; i < PCWT_J2K_MQ_STATES; i += blockDim.x)
        table[i] = c_mq_table[i];
    __syncthreads();
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= c.cblk_count)
        return;
    const pcwt_j2k_cblk cb = c.cblks[i];
    uint16_t *state = c.state + c.state_off[i];
    if (Shared && pcwt_j2k_state_words(cb.width, cb.height) <= kSharedWords)
        state = slots + threadIdx.x * kSharedWords;
    pcwt_j2k_t1_block(&cb, c.segs, c.data, c.coefs, state, table);
}

} // namespace

void j2k_gpu_t1(const J2kGpuChunk &c, cudaStream_t s)
{
    if (!c.cblk_count)
        return;
    const char *e = std::getenv("PCWT_J2K_T1_SHARED");
    if (e && *e == '1') {
        const size_t bytes = kSharedThreads * kSharedWords * sizeof(uint16_t);
        CUDA_CHECK(cudaFuncSetAttribute(t1_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        t1_kernel<true><<<(c.cblk_count + kSharedThreads - 1) / kSharedThreads, kSharedThreads, bytes, s>>>(c);
    } else {
        const uint32_t block = 64;
        t1_kernel<false><<<(c.cblk_count + block - 1) / block, block, 0, s>>>(c);
    }
    CUDA_CHECK_LAUNCH();
}
