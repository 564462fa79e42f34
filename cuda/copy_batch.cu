// copy_batch.cu - a chunk's copies issued together (copy_batch.h).
#include "copy_batch.h"
#include "gpu_check.h"

#include <cstdlib>
#include <cstring>

void CopyBatch::add(void *dst, const void *src, size_t size)
{
    if (!size)
        return;
    dst_.push_back(dst);
    src_.push_back(src);
    size_.push_back(size);
}

void CopyBatch::issue(cudaStream_t s)
{
    const size_t n = dst_.size();
    bool done = false;
    if (n > 1) {
        cudaMemcpyAttributes a{};
        a.srcAccessOrder = cudaMemcpySrcAccessOrderStream; // the sources may be written before, in order
        a.flags = cudaMemcpyFlagPreferOverlapWithCompute;
        size_t first = 0;
        done = cudaMemcpyBatchAsync(dst_.data(), src_.data(), size_.data(), n, &a, &first, 1, s) == cudaSuccess;
        if (!done)
            cudaGetLastError(); // refused as a whole: the copies one by one below
    }
    for (size_t k = 0; k < n && !done; k++)
        CUDA_CHECK(cudaMemcpyAsync(dst_[k], src_[k], size_[k], cudaMemcpyDefault, s));
    dst_.clear();
    src_.clear();
    size_.clear();
}
