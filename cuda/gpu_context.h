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

// The per-batch state a pass needs: tables, samples, codestreams, and the host copies. Two slots
// let the encoder overlap one chunk's transfers with another chunk's compute.
struct Slot {
    DevBuf frames, planes, bands, levels, steps, level0, groups, state, group_size, samples,
        stream_buf, flags, scan_tmp;
    PinnedBuf h_samples, h_stream;
    BatchLayout layout;
    const GpuFrame *frames_host() const { return h_frames.as<GpuFrame>(); }
    const GpuPlaneState *state_host() const { return h_state.as<GpuPlaneState>(); }
    std::vector<uint32_t> level_first, step_first;
    DeviceBatch dev{};
    cudaEvent_t uploaded = nullptr, computed = nullptr, downloaded = nullptr;
    std::vector<size_t> idx;             // the jobs of the chunk in this slot
    PinnedBuf h_frames, h_state;         // written back by the device (pinned: truly async)
    std::vector<char> direct;            // output copied straight into the caller's pinned buffer
    bool busy = false;
    void release();
};

struct pcwt_gpu {
    int device = 0;
    cudaStream_t stream = nullptr;   // compute
    cudaStream_t copy_in = nullptr;  // host to device
    cudaStream_t copy_out = nullptr; // device to host
    cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
    size_t total_mem = 0;
    size_t memory_budget = 0; // PCWT_GPU_MEMORY_BUDGET (bytes), 0: what the device has free
    DevBuf i32, i8; // coefficient and MQD arenas, shared by the slots (compute is serial)
    Slot slot[2];
    // Per-stage timing (PCWT_GPU_PROFILE=1): events recorded between stages, printed to stderr.
    bool profile = false;
    std::vector<cudaEvent_t> marks;
    std::vector<const char *> mark_names;
    size_t mark_count = 0;
    bool recording = false;
    ~pcwt_gpu();
};

// Uploads the slot's layout tables on stream s (and sizes the shared arenas); fills slot.dev.
void gpu_upload_layout(pcwt_gpu *g, Slot &slot, cudaStream_t s);
// Device memory a batch would take (arenas + tables + samples + stream), for batch splitting.
size_t gpu_batch_bytes(const BatchLayout &L, size_t sample_bytes, size_t stream_bytes);
// Per-level launch sizes.
void gpu_level_max(const std::vector<GpuLevel> &lv, uint32_t &max_r, uint32_t &max_bc);
// Bytes a batch may use on the device: 80% of free plus what this context already holds, or the
// PCWT_GPU_MEMORY_BUDGET cap (which tests use to force chunking and the CPU fallback).
size_t gpu_memory_budget(pcwt_gpu *g);
// True for page-locked host memory (cudaMallocHost / cudaHostRegister): direct DMA, no staging.
bool gpu_is_pinned(const void *ptr);

void gpu_mark_begin(pcwt_gpu *g);
void gpu_mark(pcwt_gpu *g, const char *stage);
void gpu_mark_report(pcwt_gpu *g, const char *what);

