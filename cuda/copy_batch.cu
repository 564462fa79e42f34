// copy_batch.cu - a chunk's copies issued together (copy_batch.h).
#include "copy_batch.h"
#include "gpu_check.h"

#include <algorithm>
#include <cstdint>
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

namespace {

constexpr int kKernelPieces = 16; // a launch's pieces, passed by value

struct Pieces {
    KernelCopies::Piece p[kKernelPieces];
};

// blockIdx.y: the piece; its bytes 16 at a time where both ends allow, the rest one by one.
__global__ void copy_pieces(Pieces ps)
{
    const KernelCopies::Piece c = ps.p[blockIdx.y];
    const size_t stride = size_t(gridDim.x) * blockDim.x, t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool wide = ((reinterpret_cast<uintptr_t>(c.dst) | reinterpret_cast<uintptr_t>(c.src)) & 15) == 0;
    const size_t vecs = wide ? c.size / 16 : 0;
    for (size_t i = t; i < vecs; i += stride)
        static_cast<uint4 *>(c.dst)[i] = static_cast<const uint4 *>(c.src)[i];
    for (size_t i = vecs * 16 + t; i < c.size; i += stride)
        static_cast<uint8_t *>(c.dst)[i] = static_cast<const uint8_t *>(c.src)[i];
}

} // namespace

void KernelCopies::add(void *dst, const void *src, size_t size)
{
    if (size)
        pieces_.push_back({dst, src, size});
}

void KernelCopies::issue(cudaStream_t s)
{
    for (size_t first = 0; first < pieces_.size(); first += kKernelPieces) {
        const size_t n = std::min<size_t>(kKernelPieces, pieces_.size() - first);
        Pieces ps{};
        size_t largest = 0;
        for (size_t k = 0; k < n; k++) {
            ps.p[k] = pieces_[first + k];
            largest = std::max(largest, ps.p[k].size);
        }
        const unsigned blocks = unsigned(std::min<size_t>((largest / 16 + 255) / 256 + 1, 64));
        copy_pieces<<<dim3(blocks, unsigned(n)), 256, 0, s>>>(ps);
        CUDA_CHECK(cudaGetLastError());
    }
    pieces_.clear();
}
