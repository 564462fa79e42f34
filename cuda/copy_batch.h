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
