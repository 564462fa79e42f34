// copy_batch.h - a chunk's per-frame copies between host and device issued together: one
// cudaMemcpyBatchAsync for all of them (a batch of 2048 CT slices makes 2048 copies each way,
// whose one-by-one submission the host pays per copy), one cudaMemcpyAsync each where the runtime
// refuses the batch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

class CopyBatch {
  public:
    void add(void *dst, const void *src, size_t size);
    // Issues the copies on stream s, in stream order, and empties the list.
    void issue(cudaStream_t s);

  private:
    std::vector<void *> dst_;
    std::vector<const void *> src_;
    std::vector<size_t> size_;
};

// Small copies between device memory and mapped page-locked host memory done by one kernel: they
// do not wait on a copy engine behind the large copies queued before them (a chunk's tables behind
// the next chunk's samples).
class KernelCopies {
  public:
    // dst and src: addresses the device reaches (device memory; mapped host memory at its device
    // address, MappedBuf::device_as).
    void add(void *dst, const void *src, size_t size);
    // Issues the copies on stream s and empties the list.
    void issue(cudaStream_t s);

    struct Piece {
        void *dst;
        const void *src;
        size_t size;
    };

  private:
    std::vector<Piece> pieces_;
};
