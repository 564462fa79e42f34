// gpu_context.h - the per-handle CUDA context: a stream, events, and grow-only device and pinned
// host buffers reused across calls.
#pragma once

#include "gpu_backend.h"
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "gpu_layout.h"

#include <cstring>
#include <vector>

struct DevBuf {
    void *p = nullptr;
    size_t cap = 0;
    template <typename T> T *as() const { return static_cast<T *>(p); }
    void ensure(size_t n)
    {
        if (n <= cap)
            return;
        release();
        const size_t want = n + n / 8; // some headroom for the next, slightly larger batch
        CUDA_CHECK(cudaMalloc(&p, want));
        cap = want;
    }
    void release()
    {
        if (p)
            cudaFree(p);
        p = nullptr;
        cap = 0;
    }
};

struct PinnedBuf {
    void *p = nullptr;
    size_t cap = 0;
    template <typename T> T *as() const { return static_cast<T *>(p); }
    void ensure(size_t n)
    {
        if (n <= cap)
            return;
        release();
        const size_t want = n + n / 8;
        CUDA_CHECK(cudaMallocHost(&p, want));
        cap = want;
    }
    void release()
    {
        if (p)
            cudaFreeHost(p);
        p = nullptr;
        cap = 0;
    }
};

struct pcwt_gpu {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
    size_t total_mem = 0;
    DevBuf frames, planes, bands, levels, steps, level0, groups, state, group_size, i32, i8,
        samples, stream_buf, flags, scan_tmp;
    PinnedBuf h_samples, h_stream, h_small;
    // host copies of the current batch
    BatchLayout layout;
    std::vector<uint32_t> level_first, step_first;
    DeviceBatch dev{};
    ~pcwt_gpu();
};

// Uploads the layout's tables (and sizes the arenas); fills g->dev.
void gpu_upload_layout(pcwt_gpu *g);
// Device memory a batch would take (arenas + tables + samples + stream), for batch splitting.
size_t gpu_batch_bytes(const BatchLayout &L, size_t sample_bytes, size_t stream_bytes);
// Per-level launch sizes.
void gpu_level_max(const std::vector<GpuLevel> &lv, uint32_t &max_r, uint32_t &max_bc);
