// gpu_context.h - the per-handle CUDA context: a stream, events, and grow-only device and pinned
// host buffers reused across calls.
#pragma once

#include "chunk_times.h"
#include "copy_batch.h"
#include "gpu_backend.h"
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "gpu_layout.h"
#include "recent_cache.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <vector>

// Host-side trace of one pcwt_gpu_encode_batch / pcwt_gpu_decode_batch call (PCWT_GPU_TRACE=1):
// the call's wall time split into exclusive categories (a scope pauses the one it interrupts), the
// buffer growth, the bytes staged and moved. gpu_trace points at the running call's trace on this
// thread, null when tracing is off: then every scope is a test of a null pointer.
struct GpuHostTrace {
    enum Cat {
        OTHER,
        PLAN,         // validation, chunk planning, memory budget
        LAYOUT,       // frame specs, batch layout, flattened tables (host work)
        TABLES,       // the layout tables' uploads (pageable cudaMemcpyAsync)
        GROW,         // Buffer::ensure that (re)allocates: cudaFree/cudaMalloc, cudaFreeHost/cudaMallocHost
        STAGE,        // memcpy of unpinned input into the pinned staging buffer
        H2D,          // issuing the input copies (and the pinned queries)
        LAUNCH,       // issuing the kernels and result-table copies of a chunk
        WAIT_UP,      // host waits for the upload stream (layout, high-bit flags)
        WAIT_COMPUTE, // host waits for a chunk's compute (before its download, before an arena resize)
        WAIT_DOWN,    // host waits for a chunk's download
        D2H,          // issuing the output copies (and the pinned queries)
        UNPACK,       // results to the jobs: statuses, memcpy out of the staging buffer
        CATS
    };
    using clock = std::chrono::steady_clock;
    double ms[CATS] = {};
    uint32_t count[CATS] = {}; // times each category was entered (waits: how many)
    Cat cur = OTHER;
    clock::time_point start, last;
    uint64_t allocs = 0, alloc_bytes = 0, staged = 0, pinned_in = 0, in = 0, out = 0, unpacked = 0,
             frames = 0, chunks = 0;
    void enter(Cat c)
    {
        const clock::time_point t = clock::now();
        ms[cur] += std::chrono::duration<double, std::milli>(t - last).count();
        last = t;
        cur = c;
    }
};
extern thread_local GpuHostTrace *gpu_trace;

// Times its lifetime under category c (exclusive of the scopes inside it).
struct TraceScope {
    GpuHostTrace *p;
    GpuHostTrace::Cat prev = GpuHostTrace::OTHER;
    explicit TraceScope(GpuHostTrace::Cat c) : p(gpu_trace)
    {
        if (p) {
            prev = p->cur;
            p->enter(c);
            p->count[c]++;
        }
    }
    ~TraceScope()
    {
        if (p)
            p->enter(prev);
    }
    TraceScope(const TraceScope &) = delete;
    TraceScope &operator=(const TraceScope &) = delete;
};

struct pcwt_gpu;
// The trace of one batch call: on when the context traces; prints its line ("pcwt gpu WHAT
// host (ms): ...") to stderr when it goes.
struct TraceCall {
    GpuHostTrace rec;
    GpuHostTrace *saved;
    const char *what;
    TraceCall(const pcwt_gpu *g, const char *what);
    ~TraceCall();
    TraceCall(const TraceCall &) = delete;
    TraceCall &operator=(const TraceCall &) = delete;
};

// A handle's device memory (gpu_pool.cu): a stream-ordered pool of its own, so that a buffer's
// growth waits for no other stream of the device. cudaFree waits for the whole device (every
// handle's work on it); here the old buffer goes back to the pool once the handle's own streams
// have passed the point where it was replaced, and the host waits for nothing. Allocations come
// on a stream of their own that waits for nothing: the pool hands out only memory whose free has
// completed, so a new buffer is ready for every stream once that stream is synchronised.
struct DevicePool {
    cudaMemPool_t pool = nullptr;
    cudaStream_t alloc = nullptr;       // allocations
    cudaStream_t retire = nullptr;      // frees, after every stream of the handle
    std::vector<cudaStream_t> users;    // the handle's streams
    std::vector<cudaEvent_t> passed;    // one per user stream, recorded at a free
    bool closing = false;               // the handle's end: its device is idle, frees need no order
    // Makes the pool for device; false (nothing made: cudaMalloc) when the device has no memory
    // pools.
    bool create(int device);
    void add_user(cudaStream_t s);
    void *alloc_bytes(size_t n);        // throws CudaError
    void free_bytes(void *p);
    size_t idle_bytes() const;          // reserved by the pool, held by no buffer
    void destroy();
};

// How a grow-only buffer gets and gives back its memory.
struct DeviceMem {
    DevicePool *pool = nullptr; // null: cudaMalloc / cudaFree (the JPEG-LS buffers)
    void *alloc(size_t n)
    {
        if (pool)
            return pool->alloc_bytes(n);
        void *p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, n));
        return p;
    }
    void free(void *p)
    {
        if (pool)
            pool->free_bytes(p);
        else
            cudaFree(p);
    }
    // Pooled small tables double, with a floor: each growth is a call, whatever the size.
    size_t grown(size_t n) const
    {
        if (pool && n <= (16u << 20))
            return std::max<size_t>(2 * n, 256u << 10);
        return n + n / 8;
    }
};
// Page-locked host memory (host_pinned.cu): committed in 2 MB pages and registered with CUDA,
// much cheaper to get and to give back than cudaMallocHost's; gpu_pinned_free refuses (with an
// error) memory that gpu_pinned_alloc did not give.
// mapped: the device reaches it too, at the address cudaHostGetDevicePointer gives.
cudaError_t gpu_pinned_alloc(void **p, size_t n, bool mapped = false);
cudaError_t gpu_pinned_free(void *p);
struct PinnedMem {
    void *alloc(size_t n)
    {
        void *p = nullptr;
        CUDA_CHECK(gpu_pinned_alloc(&p, n));
        return p;
    }
    void free(void *p) { gpu_pinned_free(p); }
    size_t grown(size_t n) const { return n + n / 8; } // headroom for the next, slightly larger batch
};
// Mapped page-locked memory, and the device's address of it (KernelCopies reads and writes it
// there).
struct MappedMem {
    void *device = nullptr;
    void *alloc(size_t n)
    {
        void *p = nullptr;
        CUDA_CHECK(gpu_pinned_alloc(&p, n, true));
        const cudaError_t e = cudaHostGetDevicePointer(&device, p, 0);
        if (e != cudaSuccess) {
            gpu_pinned_free(p);
            CUDA_CHECK(e);
        }
        return p;
    }
    void free(void *p)
    {
        gpu_pinned_free(p);
        device = nullptr;
    }
    size_t grown(size_t n) const { return n + n / 8; }
};

// A grow-only buffer: device memory or page-locked host memory.
template <typename Mem> struct Buffer {
    void *p = nullptr;
    size_t cap = 0;
    Mem mem;
    template <typename T> T *as() const { return static_cast<T *>(p); }
    void ensure(size_t n)
    {
        if (n <= cap)
            return;
        TraceScope timed(GpuHostTrace::GROW);
        release();
        const size_t want = mem.grown(n);
        p = mem.alloc(want);
        cap = want;
        if (gpu_trace) {
            gpu_trace->allocs++;
            gpu_trace->alloc_bytes += want;
        }
    }
    void release()
    {
        if (p)
            mem.free(p);
        p = nullptr;
        cap = 0;
    }
};
using DevBuf = Buffer<DeviceMem>;
using PinnedBuf = Buffer<PinnedMem>;
// A slot's small host tables, copied by KernelCopies at their device address.
struct MappedBuf : Buffer<MappedMem> {
    template <typename T = void> T *device_as() const { return static_cast<T *>(mem.device); }
};

// The per-batch state a pass needs: tables, samples, codestreams, arenas, and the host copies.
// A batch's chunks take the slots in turn: one's upload, others' compute (each slot its own
// compute stream and arenas, since a range-coded chunk's compute is bound by its groups' serial
// chains and leaves the device room for the next) and another's download overlap.
// The batch pipeline's shape: how many slots a batch uses, how far uploads run ahead and downloads
// lag, how many chunks a batch is cut into.
struct PipeShape {
    uint32_t slots;     // slots in use
    uint32_t ahead;     // encode: chunk c+ahead's samples go up before the host waits for chunk c's
    uint32_t enc_lag;   // encode: chunk c's download is issued (the host waiting for its compute) after chunk c+lag's compute
    uint32_t dec_lag;   // decode: the same, without a host wait
    uint32_t enc_parts; // chunks of a big batch, range-coded profiles (the others: 8, none under 32 MB)
    uint32_t dec_parts;
    uint32_t enc_min_mb; // range-coded profiles: no chunk under this many MB of samples (a chunk lasts its
    uint32_t dec_min_mb; // groups' serial chains: few large frames do not fill the device in small chunks)
};
// Four slots, chunks computing side by side as their data comes in, 4 encode / 2 decode chunks of a
// range-coded batch (the shapes measured against it: bench/results/gpu-h200-2026-11-29-session13-e2e.md).
constexpr PipeShape kPipe{/* slots */ 4, /* ahead */ 1, /* enc_lag */ 2, /* dec_lag */ 2,
                          /* enc_parts */ 4, /* dec_parts */ 2, /* enc_min_mb */ 32, /* dec_min_mb */ 32};
// A slot is reused once its download was issued: ahead + lag + 1 slots at most.
static_assert(kPipe.slots >= 2 && kPipe.ahead >= 1 && kPipe.ahead + kPipe.enc_lag + 1 <= kPipe.slots &&
                  kPipe.dec_lag + 1 <= kPipe.slots && kPipe.enc_parts >= 1 && kPipe.dec_parts >= 1,
              "the batch pipeline's shape");
constexpr int kSlots = int(kPipe.slots);
// A slot's device buffers, the one list of them: the members, device_buffers() (their release,
// their pool) and gpu_memory_budget's count of what the handle holds all come from it.
#define PCWT_SLOT_DEVICE_BUFFERS(X)                                                                   \
    X(frames) X(planes) X(bands) X(levels) X(steps) X(step_groups) X(level0) X(export_ids) X(groups)  \
    X(state) X(group_size) X(samples) X(stream_buf) X(flags) X(scan_tmp) X(ec_scan) X(ec_scratch)      \
    X(ec_counts) X(ec_element_counts) X(ec_bin_at) X(ec_order)                                         \
    X(expected) X(first_diff)            /* verify: the samples expected, each frame's first difference */ \
    X(crc_parts)                         /* gpu_plane_crcs: crc_blocks spans a plane */                    \
    X(vmap) X(vmap_bytes) X(map_prefix)  /* the compact profile's value maps (value_map_gpu.cu) */         \
    X(i32) X(i8)                         /* coefficient and MQD arenas */                                  \
    X(ec_bins)                           /* the entropy profile encoder's bin arena */
#define PCWT_SLOT_DEVBUF_MEMBER(b) DevBuf b;
#define PCWT_SLOT_DEVBUF_COUNT(b) +1
constexpr size_t kSlotDeviceBuffers = 0 PCWT_SLOT_DEVICE_BUFFERS(PCWT_SLOT_DEVBUF_COUNT);
#undef PCWT_SLOT_DEVBUF_COUNT
struct Slot {
    PCWT_SLOT_DEVICE_BUFFERS(PCWT_SLOT_DEVBUF_MEMBER)
    uint32_t crc_blocks = 1;
    PinnedBuf h_samples, h_stream;
    std::vector<FrameSpec> specs; // what layout was built from
    BatchLayout layout;
    const GpuFrame *frames_host() const { return h_frames.as<GpuFrame>(); }
    const GpuPlaneState *state_host() const { return h_state.as<GpuPlaneState>(); }
    std::vector<uint32_t> level_first, step_first, step_group_first;
    DeviceBatch dev{};
    cudaEvent_t sampled = nullptr, uploaded = nullptr, computed = nullptr, downloaded = nullptr;
    // The chunk's compute (slot 0: pcwt_gpu::stream, the others a stream each) and the work
    // forked beside it (gpu_side_fork).
    cudaStream_t compute = nullptr, side = nullptr;
    cudaEvent_t side_fork = nullptr, side_join = nullptr;
    ChunkTimes times; // PCWT_GPU_TRACE: when its copies and compute ran (chunk_times.cu)
    std::vector<size_t> idx;             // the jobs of the chunk in this slot
    MappedBuf h_frames, h_state;         // written back by the device (KernelCopies)
    MappedBuf h_first_diff;              // verify: first_diff, written back
    MappedBuf h_tables;                  // the layout tables going up (gpu_upload_layout)
    MappedBuf h_flags;                   // the encoder's high-bit flags, written back
    std::vector<char> direct;            // output copied straight into the caller's pinned buffer
    bool busy = false;
    std::array<DevBuf *, kSlotDeviceBuffers> device_buffers();
    void release();
};
#undef PCWT_SLOT_DEVBUF_MEMBER

struct JlsGpu; // the JPEG-LS encoder's buffers (jpegls_encoder_gpu.cu), made on first use
void jls_gpu_free(JlsGpu *j);
size_t jls_gpu_held(const JlsGpu *j); // device bytes it holds
struct J2kGpu; // the JPEG 2000 decoder's buffers (j2k_decode_gpu.cu), made on first use
void j2k_gpu_free(J2kGpu *j);
size_t j2k_gpu_held(const J2kGpu *j); // device bytes it holds

struct pcwt_gpu {
    int device = 0;
    cudaStream_t stream = nullptr;   // compute (slot 0's, the one-frame path's, JPEG-LS's, JPEG 2000's)
    cudaStream_t copy_in = nullptr;  // host to device
    cudaStream_t copy_out = nullptr; // device to host
    cudaStream_t check = nullptr;    // a batch's host round trips before a chunk's compute (the encoder's
                                     // high-bit check) and its tables
    cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
    ChunkClock clock; // PCWT_GPU_TRACE: a batch call's start, for the slots' chunk times
    size_t total_mem = 0;
    size_t memory_budget = 0; // pcwt_gpu_set_memory_budget (bytes), 0: what the device has free
    uint64_t bin_arena = 0;   // pcwt_gpu_set_bin_arena (bytes), 0: gpu_ec_bin_bytes of the batch
    uint32_t chunks = 0;      // pcwt_gpu_set_chunks: every batch in that many chunks, 0: by size
    Slot slot[kSlots];
    JlsGpu *jls = nullptr;
    J2kGpu *j2k = nullptr;
    DevicePool pool; // the slots' device buffers (pool.pool null: cudaMalloc)
    // Per-stage timing, the trace (PCWT_GPU_TRACE=1): events recorded between stages, printed to stderr.
    bool trace = false;
    std::vector<cudaEvent_t> marks;
    std::vector<const char *> mark_names;
    size_t mark_count = 0;
    bool recording = false;
    ~pcwt_gpu();
};


// Uploads the slot's layout tables on stream s (and sizes its arenas); fills slot.dev. The slot's
// previous chunk must be done with its tables' host copy (h_tables).
void gpu_upload_layout(Slot &slot, cudaStream_t s);
// The sample bytes a chunk of a batch of `total` holds (ChunkPlan's target): a `parts`th, none
// under min_mb MB; with g->chunks N (pcwt_gpu_set_chunks) an Nth, however small.
uint64_t gpu_chunk_target(const pcwt_gpu *g, uint64_t total, uint64_t parts, uint64_t min_mb);
// Grows buf, one of the slot's arenas (i32, i8, ec_bins), to at least n bytes once the slot's
// compute stream has finished with it.
void gpu_grow_arena(Slot &sl, DevBuf &buf, size_t n);
// The layout of one frame alone, for a chunk plan's memory estimate; the last few kinds kept, so
// that a batch of like frames builds each kind once (2048 slices of 22 series alternating: 22
// builds, not one a slice).
class OneFrameLayout {
  public:
    const BatchLayout &of(const FrameSpec &f);

  private:
    RecentCache<FrameSpec, BatchLayout, offsetof(FrameSpec, level1_511) + sizeof(FrameSpec::level1_511)> seen_;
};
// Device memory a batch would take (arenas + tables + samples + stream), for batch splitting.
size_t gpu_batch_bytes(const BatchLayout &L, size_t sample_bytes, size_t stream_bytes);
// Per-level launch sizes.
GpuLevelMax gpu_level_max(const std::vector<GpuLevel> &lv);
// Host buffers to device offsets on stream s: page-locked ones directly, the others through the
// staging buffer (sized `total`, the extent of the offsets). Each pointer is queried once.
struct HostPiece {
    const void *src;
    size_t size;
    uint64_t off;
};
void gpu_upload_pieces(PinnedBuf &staging, uint8_t *dev, const std::vector<HostPiece> &pieces,
                       uint64_t total, cudaStream_t s);
// The way back on stream s: device offsets to host buffers, each page-locked destination that
// fits (DevicePiece::fits) directly, the others through staging, which takes [0, total) of dev in
// one copy; direct[k]: piece k went directly (the others are the caller's to copy out of staging).
struct DevicePiece {
    void *dst;
    size_t size;
    uint64_t off;
    bool fits;
};
void gpu_download_pieces(PinnedBuf &staging, const uint8_t *dev, const std::vector<DevicePiece> &pieces,
                         uint64_t total, std::vector<char> &direct, cudaStream_t s);

// Host-to-host copies in and out of the staging buffers, done together: split over a few threads
// when they are large. One host thread stages (and, into fresh page-faulting destinations, copies
// out) much slower than the device codes a batch.
struct HostCopy {
    void *dst;
    const void *src;
    size_t size;
};
void gpu_host_copies(const std::vector<HostCopy> &copies);

// Sizes the slot's CRC spans for payloads of up to max_payload bytes (gpu_plane_crcs).
void gpu_prepare_crc_parts(Slot &sl, uint64_t max_payload);

// Frames sit at 256-byte boundaries in the sample and codestream buffers.
inline uint64_t align_up(uint64_t v) { return (v + 255) & ~uint64_t(255); }

// Bytes a batch may use on the device: 80% of free plus what this context already holds, or the
// memory_budget cap (the handles' gpu-memory-limit, which tests use to force chunking and the CPU
// fallback).
size_t gpu_memory_budget(pcwt_gpu *g);

// The chunks of a batch, cut as its items come in order (the encoders' and the decoder's rule):
// an item that alone needs more than `budget` bytes of device memory, or more than `max_samples`
// samples, goes to none; a chunk is closed before an item that would take it past either, or once
// it holds `target` samples.
class ChunkPlan {
  public:
    ChunkPlan(uint64_t budget, uint64_t target, uint64_t max_samples = UINT64_MAX)
        : budget_(budget), target_(target), max_samples_(max_samples) {}
    // Adds item i (need bytes, n samples); false when it fits no chunk.
    bool add(size_t i, uint64_t need, uint64_t n);
    // The item indices of each chunk, none empty.
    const std::vector<std::vector<size_t>> &chunks() const { return chunks_; }

  private:
    uint64_t budget_, target_, max_samples_, used_ = 0, samples_ = 0;
    std::vector<std::vector<size_t>> chunks_;
};
void gpu_mark_begin(pcwt_gpu *g);
void gpu_mark(pcwt_gpu *g, const char *stage);
void gpu_mark_report(pcwt_gpu *g, const char *what);

// Median milliseconds of `repeats` runs of `run` (device work on the compute stream, after a
// warm-up run), timed with CUDA events; `prepare` runs before each, untimed. For the
// device-resident benchmarks.
template <typename Prepare, typename Run>
double gpu_median_event_ms(pcwt_gpu *g, int repeats, const char *what, Prepare prepare, Run run)
{
    std::vector<float> t;
    for (int r = 0; r < repeats + 1; r++) {
        prepare();
        CUDA_CHECK(cudaEventRecord(g->ev_start, g->stream));
        gpu_mark_begin(g);
        run();
        gpu_mark_report(g, what);
        CUDA_CHECK(cudaEventRecord(g->ev_stop, g->stream));
        CUDA_CHECK(cudaEventSynchronize(g->ev_stop));
        float m = 0;
        CUDA_CHECK(cudaEventElapsedTime(&m, g->ev_start, g->ev_stop));
        if (r)
            t.push_back(m);
    }
    std::sort(t.begin(), t.end());
    return t.empty() ? 0 : t[t.size() / 2];
}

// Plane states as a pass starts: Qmax -1, no error.
inline std::vector<GpuPlaneState> gpu_fresh_states(size_t planes)
{
    std::vector<GpuPlaneState> st(planes);
    for (GpuPlaneState &x : st) {
        std::memset(&x, 0, sizeof x);
        x.qmax = -1;
    }
    return st;
}

// gpu_median_event_ms for a PCWT slot: each run starts from fresh plane states.
template <typename Run> double gpu_median_ms(pcwt_gpu *g, Slot &sl, int repeats, const char *what, Run run)
{
    const std::vector<GpuPlaneState> fresh = gpu_fresh_states(sl.layout.planes.size());
    return gpu_median_event_ms(
        g, repeats, what,
        [&]() {
            CUDA_CHECK(cudaMemcpyAsync(sl.state.p, fresh.data(),
                                       sizeof(GpuPlaneState) * fresh.size(),
                                       cudaMemcpyHostToDevice, g->stream));
        },
        run);
}

// Waits for a slot's event: polls for up to 100 us, so that a short chunk is picked up as soon
// as with a spin, then sleeps in the driver (the slots' events are BlockingSync), leaving the core
// to the caller's other threads.
void gpu_wait_event(cudaEvent_t e);
// After a failed batch call: waits for whatever of the handle's work is still queued (the slots'
// host buffers are reused by the next call) and marks every slot free.
void gpu_drain(pcwt_gpu *g);
// Forks the slot's side stream from its compute stream (what is launched on the returned stream
// runs beside it until gpu_side_join), or returns the compute stream itself when !beside.
cudaStream_t gpu_side_fork(Slot &sl, bool beside);
void gpu_side_join(Slot &sl, bool beside);

// What the runtime knows of ptr: cudaMemoryTypeHost for page-locked memory (cudaMallocHost /
// cudaHostRegister), Device, Managed (pcwt_gpu_managed_alloc), Unregistered for the rest.
cudaMemoryType gpu_memory_type(const void *ptr);
// True for page-locked host memory: direct DMA, no staging.
inline bool gpu_is_pinned(const void *ptr) { return gpu_memory_type(ptr) == cudaMemoryTypeHost; }
// Page-locked or managed memory: copied to and from without staging.
inline bool gpu_is_direct(const void *ptr)
{
    const cudaMemoryType t = gpu_memory_type(ptr);
    return t == cudaMemoryTypeHost || t == cudaMemoryTypeManaged;
}
