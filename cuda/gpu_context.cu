// gpu_context.cu - context lifetime and the upload of a batch layout (see gpu_context.h).
#include "gpu_context.h"
#include "host_threads.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>

thread_local GpuHostTrace *gpu_trace = nullptr;

TraceCall::TraceCall(const pcwt_gpu *g, const char *w) : saved(gpu_trace), what(w)
{
    if (!g->trace)
        return;
    rec.start = rec.last = GpuHostTrace::clock::now();
    gpu_trace = &rec;
}

TraceCall::~TraceCall()
{
    if (gpu_trace != &rec)
        return;
    rec.enter(GpuHostTrace::OTHER);
    gpu_trace = saved;
    const GpuHostTrace &p = rec;
    const double total = std::chrono::duration<double, std::milli>(p.last - p.start).count();
    auto mb = [](uint64_t b) { return double(b) / 1e6; };
    using C = GpuHostTrace;
    char line[1024];
    // One fprintf per call: lines of several threads do not interleave.
    std::snprintf(line, sizeof line,
                  "pcwt gpu %s host (ms): plan %.1f; layout %.1f; tables %.1f; grow %.1f (%llu allocs, %.0f MB); "
                  "stage %.1f (%.0f MB); h2d %.1f (%.0f MB pinned); launch %.1f; wait upload %.1f (%u); "
                  "wait compute %.1f (%u); wait download %.1f (%u); d2h %.1f; unpack %.1f (%.0f MB copied); "
                  "other %.1f; total %.1f; %llu frames in %llu chunks, %.0f MB in, %.0f MB out\n",
                  what, p.ms[C::PLAN], p.ms[C::LAYOUT], p.ms[C::TABLES], p.ms[C::GROW],
                  (unsigned long long)p.allocs, mb(p.alloc_bytes), p.ms[C::STAGE], mb(p.staged), p.ms[C::H2D],
                  mb(p.pinned_in), p.ms[C::LAUNCH], p.ms[C::WAIT_UP], p.count[C::WAIT_UP], p.ms[C::WAIT_COMPUTE],
                  p.count[C::WAIT_COMPUTE], p.ms[C::WAIT_DOWN], p.count[C::WAIT_DOWN], p.ms[C::D2H],
                  p.ms[C::UNPACK], mb(p.unpacked), p.ms[C::OTHER], total, (unsigned long long)p.frames,
                  (unsigned long long)p.chunks, mb(p.in), mb(p.out));
    std::fputs(line, stderr);
}

std::array<DevBuf *, kSlotDeviceBuffers> Slot::device_buffers()
{
#define PCWT_SLOT_DEVBUF_ADDRESS(b) &b,
    return {PCWT_SLOT_DEVICE_BUFFERS(PCWT_SLOT_DEVBUF_ADDRESS)};
#undef PCWT_SLOT_DEVBUF_ADDRESS
}

void Slot::release()
{
    for (DevBuf *b : device_buffers())
        b->release();
    for (PinnedBuf *b : {&h_samples, &h_stream})
        b->release();
    for (MappedBuf *b : {&h_frames, &h_state, &h_first_diff, &h_tables, &h_flags})
        b->release();
    for (cudaEvent_t e : {sampled, uploaded, computed, downloaded, side_fork, side_join})
        if (e)
            cudaEventDestroy(e);
    times.destroy();
}

pcwt_gpu::~pcwt_gpu()
{
    cudaSetDevice(device); // the buffers and streams belong to the context's device
    if (stream)
        cudaDeviceSynchronize(); // nothing of ours may still run when the buffers go
    pool.closing = true;
    for (Slot &s : slot) {
        s.release();
        for (cudaStream_t t : {s.compute == stream ? nullptr : s.compute, s.side})
            if (t)
                cudaStreamDestroy(t);
    }
    j2k_gpu_free(j2k); // its device buffers back to the pool first (no cudaFree each)
    pool.destroy();
    jls_gpu_free(jls);
    if (clock.origin)
        cudaEventDestroy(clock.origin);
    for (cudaEvent_t e : marks)
        cudaEventDestroy(e);
    if (ev_start) cudaEventDestroy(ev_start);
    if (ev_stop) cudaEventDestroy(ev_stop);
    for (cudaStream_t s : {stream, copy_in, copy_out, check})
        if (s)
            cudaStreamDestroy(s);
}

extern "C" int pcwt_gpu_available(void)
{
    return pcwt_gpu_device_count() > 0;
}

extern "C" int pcwt_gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" void *pcwt_gpu_host_alloc(size_t size)
{
    if (!pcwt_gpu_available())
        return nullptr;
    void *p = nullptr;
    if (gpu_pinned_alloc(&p, size ? size : 1) != cudaSuccess)
        return nullptr;
    return p;
}

extern "C" int pcwt_gpu_host_free(void *ptr) { return gpu_pinned_free(ptr) == cudaSuccess; }

void gpu_wait_event(cudaEvent_t e)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
    cudaError_t st;
    while ((st = cudaEventQuery(e)) == cudaErrorNotReady && std::chrono::steady_clock::now() < until) {
    }
    if (st == cudaErrorNotReady)
        st = cudaEventSynchronize(e);
    CUDA_CHECK(st);
}

void gpu_drain(pcwt_gpu *g)
{
    for (cudaStream_t s : {g->stream, g->copy_in, g->copy_out, g->check})
        cudaStreamSynchronize(s);
    for (Slot &sl : g->slot) {
        for (cudaStream_t s : {sl.compute, sl.side})
            if (s)
                cudaStreamSynchronize(s);
        sl.busy = false;
    }
    cudaGetLastError();
}

cudaStream_t gpu_side_fork(Slot &sl, bool beside)
{
    if (!beside)
        return sl.compute;
    CUDA_CHECK(cudaEventRecord(sl.side_fork, sl.compute));
    CUDA_CHECK(cudaStreamWaitEvent(sl.side, sl.side_fork, 0));
    return sl.side;
}

void gpu_side_join(Slot &sl, bool beside)
{
    if (!beside)
        return;
    CUDA_CHECK(cudaEventRecord(sl.side_join, sl.side));
    CUDA_CHECK(cudaStreamWaitEvent(sl.compute, sl.side_join, 0));
}

uint64_t gpu_chunk_target(const pcwt_gpu *g, uint64_t total, uint64_t parts, uint64_t min_mb)
{
    if (g->chunks)
        return std::max<uint64_t>(total / g->chunks, 1);
    return std::max<uint64_t>(total / parts, min_mb << 20);
}

cudaMemoryType gpu_memory_type(const void *ptr)
{
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        cudaGetLastError();
        return cudaMemoryTypeUnregistered;
    }
    return a.type;
}

extern "C" pcwt_status pcwt_gpu_create(pcwt_gpu **out, int device, char *err, size_t err_size)
{
    *out = nullptr;
    pcwt_gpu *g = new (std::nothrow) pcwt_gpu;
    if (!g)
        return PCWT_ERR_OUT_OF_MEMORY;
    try {
        if (!pcwt_gpu_available()) {
            delete g;
            std::snprintf(err, err_size, "no CUDA device available");
            return PCWT_ERR_BACKEND_UNAVAILABLE;
        }
        const int devices = pcwt_gpu_device_count();
        if (device < 0 || device >= devices) {
            delete g;
            std::snprintf(err, err_size, "CUDA device %d requested but %d device(s) are present", device,
                          devices);
            return PCWT_ERR_BACKEND_UNAVAILABLE;
        }
        g->device = device;
        CUDA_CHECK(cudaSetDevice(device));
        CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&g->copy_in, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&g->copy_out, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&g->check, cudaStreamNonBlocking));
        for (int i = 0; i < kSlots; i++) {
            Slot &sl = g->slot[i];
            sl.compute = i == 0 ? g->stream : nullptr;
            if (!sl.compute)
                CUDA_CHECK(cudaStreamCreateWithFlags(&sl.compute, cudaStreamNonBlocking));
            CUDA_CHECK(cudaStreamCreateWithFlags(&sl.side, cudaStreamNonBlocking));
            CUDA_CHECK(cudaEventCreateWithFlags(&sl.side_fork, cudaEventDisableTiming));
            CUDA_CHECK(cudaEventCreateWithFlags(&sl.side_join, cudaEventDisableTiming));
        }
        if (g->pool.create(device)) {
            for (cudaStream_t s : {g->stream, g->copy_in, g->copy_out, g->check})
                g->pool.add_user(s);
            for (Slot &sl : g->slot) {
                g->pool.add_user(sl.compute);
                g->pool.add_user(sl.side);
                for (DevBuf *b : sl.device_buffers())
                    b->mem.pool = &g->pool;
            }
        }
        // A thread waiting for a chunk sleeps after a short poll (gpu_wait_event) instead of
        // spinning: pcwt-recompress's coder and verifier threads would otherwise spin a core
        // each, which its readers and writers need.
        for (Slot &sl : g->slot)
            for (cudaEvent_t *e : {&sl.sampled, &sl.uploaded, &sl.computed, &sl.downloaded})
                CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming | cudaEventBlockingSync));
        CUDA_CHECK(cudaEventCreate(&g->ev_start));
        CUDA_CHECK(cudaEventCreate(&g->ev_stop));
        size_t free_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &g->total_mem));
        gpu_crc_init();
        gpu_ec_encode_init();
        gpu_ec_decode_init();
        const char *tr = std::getenv("PCWT_GPU_TRACE");
        g->trace = tr && *tr && *tr != '0';
        if (g->trace) {
            CUDA_CHECK(cudaEventCreate(&g->clock.origin));
            for (Slot &sl : g->slot)
                sl.times.create(&g->clock);
        }
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        delete g;
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    *out = g;
    return PCWT_OK;
}

extern "C" void pcwt_gpu_destroy(pcwt_gpu *g) { delete g; }

extern "C" void pcwt_gpu_set_chunks(pcwt_gpu *g, uint32_t chunks) { g->chunks = chunks; }

extern "C" void pcwt_gpu_set_memory_budget(pcwt_gpu *g, uint64_t bytes)
{
    g->memory_budget = bytes > SIZE_MAX ? SIZE_MAX : size_t(bytes);
}

extern "C" void pcwt_gpu_set_bin_arena(pcwt_gpu *g, uint64_t bytes) { g->bin_arena = bytes; }

// A slot's layout tables on their way up: gathered in its mapped page-locked h_tables and read by
// a kernel (KernelCopies): no host wait (pageable copies stage through the driver), no copy engine
// (where they would wait behind the next chunk's samples).
struct TableUpload {
    struct Table {
        DevBuf *dev;
        const void *src;
        size_t size, off;
    };
    std::vector<Table> tables;
    size_t total = 0;
    template <typename T> void add(DevBuf &d, const std::vector<T> &v)
    {
        d.ensure(sizeof(T) * (v.size() ? v.size() : 1));
        tables.push_back({&d, v.data(), sizeof(T) * v.size(), total});
        total = align_up(total + sizeof(T) * v.size());
    }
    // Copies the tables into h (free: its last copies have completed) and issues their uploads.
    void issue(MappedBuf &h, cudaStream_t s)
    {
        h.ensure(total ? total : 1);
        KernelCopies up;
        for (const Table &t : tables) {
            if (t.size)
                std::memcpy(h.as<uint8_t>() + t.off, t.src, t.size);
            up.add(t.dev->p, h.device_as<uint8_t>() + t.off, t.size);
        }
        up.issue(s);
    }
};

namespace {

// The lists end to end; first: where each starts, then their total.
template <typename T> std::vector<T> flatten(const std::vector<std::vector<T>> &lists, std::vector<uint32_t> &first)
{
    std::vector<T> flat;
    first.clear();
    for (const std::vector<T> &l : lists) {
        first.push_back(uint32_t(flat.size()));
        flat.insert(flat.end(), l.begin(), l.end());
    }
    first.push_back(uint32_t(flat.size()));
    return flat;
}

} // namespace

void gpu_grow_arena(Slot &sl, DevBuf &buf, size_t n)
{
    if (n <= buf.cap)
        return;
    {
        TraceScope wait(GpuHostTrace::WAIT_COMPUTE);
        CUDA_CHECK(cudaStreamSynchronize(sl.compute));
    }
    buf.ensure(n);
}

void gpu_upload_layout(Slot &sl, cudaStream_t s)
{
    TraceScope timed(GpuHostTrace::LAYOUT);
    const BatchLayout &L = sl.layout;
    const std::vector<GpuLevel> levels = flatten(L.levels, sl.level_first);
    const std::vector<uint32_t> steps = flatten(L.decode_steps, sl.step_first);
    // Profile 1: the groups of each step as one flat list, a thread each (a band's groups alone
    // would leave most of a block idle: the coarse bands have one group).
    std::vector<uint32_t> step_groups;
    sl.step_group_first.clear();
    for (const auto &st : L.decode_steps) {
        sl.step_group_first.push_back(uint32_t(step_groups.size()));
        for (uint32_t b : st)
            if (L.entropy_planes && L.planes[L.bands[b].plane].profile == PCWT_PROFILE_ENTROPY)
                for (uint32_t k = 0; k < L.bands[b].group_count; k++)
                    step_groups.push_back(uint32_t(L.bands[b].group_first + k));
    }
    sl.step_group_first.push_back(uint32_t(step_groups.size()));
    const std::vector<GpuPlaneState> st = gpu_fresh_states(L.planes.size());
    TraceScope tables(GpuHostTrace::TABLES);
    TableUpload up;
    up.add(sl.frames, L.frames);
    up.add(sl.planes, L.planes);
    up.add(sl.bands, L.bands);
    up.add(sl.levels, levels);
    up.add(sl.steps, steps);
    up.add(sl.step_groups, step_groups);
    up.add(sl.level0, L.level0_planes);
    up.add(sl.export_ids, L.export_planes);
    up.add(sl.state, st);
    up.issue(sl.h_tables, s);
    sl.groups.ensure(sizeof(GpuGroup) * (L.groups ? L.groups : 1));
    sl.group_size.ensure(sizeof(uint64_t) * (L.groups ? L.groups : 1));
    gpu_grow_arena(sl, sl.i32, sizeof(int32_t) * (L.i32_size ? L.i32_size : 1));
    gpu_grow_arena(sl, sl.i8, L.i8_size ? L.i8_size : 1);
    DeviceBatch &d = sl.dev;
    d.frames = sl.frames.as<GpuFrame>();
    d.planes = sl.planes.as<GpuPlane>();
    d.bands = sl.bands.as<GpuBand>();
    d.levels = sl.levels.as<GpuLevel>();
    d.steps = sl.steps.as<uint32_t>();
    d.step_groups = sl.step_groups.as<uint32_t>();
    d.level0 = sl.level0.as<uint32_t>();
    d.export_planes = sl.export_ids.as<uint32_t>();
    d.groups = sl.groups.as<GpuGroup>();
    d.state = sl.state.as<GpuPlaneState>();
    d.group_size = sl.group_size.as<uint64_t>();
    d.i32 = sl.i32.as<int32_t>();
    d.i8 = sl.i8.as<int8_t>();
    d.vmap = nullptr;
    d.vmap_bytes = nullptr;
    d.map_prefix = nullptr;
    if (L.vmap_planes) {
        sl.vmap.ensure(sizeof(uint32_t) * (L.vmap_words ? L.vmap_words : 1));
        sl.vmap_bytes.ensure(L.vmap_bytes ? L.vmap_bytes : 1);
        sl.map_prefix.ensure(sizeof(uint64_t) * L.planes.size());
        d.vmap = sl.vmap.as<uint32_t>();
        d.vmap_bytes = sl.vmap_bytes.as<uint8_t>();
        d.map_prefix = sl.map_prefix.as<uint64_t>();
    }
}

void gpu_prepare_crc_parts(Slot &sl, uint64_t max_payload)
{
    sl.crc_blocks = gpu_crc_blocks(max_payload);
    sl.crc_parts.ensure(sizeof(GpuCrcPart) * sl.crc_blocks * std::max<size_t>(sl.layout.planes.size(), 1));
    sl.dev.crc_parts = sl.crc_parts.as<GpuCrcPart>();
}

const BatchLayout &OneFrameLayout::of(const FrameSpec &f)
{
    return seen_.of(f, [](const FrameSpec &k, BatchLayout &L) { gpu_build_layout({k}, L); });
}

size_t gpu_batch_bytes(const BatchLayout &L, size_t sample_bytes, size_t stream_bytes)
{
    // per group: its record, its size, its place in the step lists, and the range coders' order
    // by length (4 + 16, gpu_order.cu)
    return L.i32_size * 4 + L.i8_size + L.groups * (sizeof(GpuGroup) + 8 + 20) +
           L.planes.size() * (sizeof(GpuPlane) + sizeof(GpuPlaneState)) +
           L.bands.size() * sizeof(GpuBand) + sample_bytes + stream_bytes + (1u << 20) +
           L.vmap_words * 4 + 2 * L.vmap_bytes + L.planes.size() * 8; // maps: arenas and stream
}

GpuLevelMax gpu_level_max(const std::vector<GpuLevel> &lv)
{
    GpuLevelMax m;
    for (const GpuLevel &e : lv) {
        m.r = std::max(m.r, e.r);
        m.bc = std::max(m.bc, e.bc);
        m.rows_first = m.rows_first || !e.columns_first;
        m.columns_first = m.columns_first || e.columns_first;
    }
    return m;
}

void gpu_mark_begin(pcwt_gpu *g)
{
    g->mark_count = 0;
    g->mark_names.clear();
    g->recording = g->trace;
    gpu_mark(g, "start");
}

void gpu_mark(pcwt_gpu *g, const char *stage)
{
    if (!g->recording)
        return;
    if (g->mark_count == g->marks.size()) {
        cudaEvent_t e;
        CUDA_CHECK(cudaEventCreate(&e));
        g->marks.push_back(e);
    }
    CUDA_CHECK(cudaEventRecord(g->marks[g->mark_count++], g->stream));
    g->mark_names.push_back(stage);
}

void gpu_mark_report(pcwt_gpu *g, const char *what)
{
    if (!g->recording || g->mark_count < 2)
        return;
    g->recording = false;
    CUDA_CHECK(cudaEventSynchronize(g->marks[g->mark_count - 1]));
    std::fprintf(stderr, "pcwt gpu %s stages (ms):", what);
    for (size_t i = 1; i < g->mark_count; i++) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, g->marks[i - 1], g->marks[i]));
        std::fprintf(stderr, " %s %.3f;", g->mark_names[i], ms);
    }
    std::fprintf(stderr, "\n");
}

size_t gpu_memory_budget(pcwt_gpu *g)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t held = 0;
    for (Slot &s : g->slot)
        for (const DevBuf *b : s.device_buffers())
            held += b->cap;
    held += g->pool.idle_bytes(); // the handle's to reuse
    held += jls_gpu_held(g->jls);
    held += j2k_gpu_held(g->j2k);
    const size_t budget = (free_b + held) / 10 * 8;
    return g->memory_budget && g->memory_budget < budget ? g->memory_budget : budget;
}

bool ChunkPlan::add(size_t i, uint64_t need, uint64_t n)
{
    if (need > budget_ || n > max_samples_)
        return false;
    if (chunks_.empty() || used_ + need > budget_ || samples_ + n > max_samples_ ||
        samples_ >= target_) {
        chunks_.emplace_back();
        used_ = samples_ = 0;
    }
    chunks_.back().push_back(i);
    used_ += need;
    samples_ += n;
    return true;
}

void gpu_upload_pieces(PinnedBuf &staging, uint8_t *dev, const std::vector<HostPiece> &pieces,
                       uint64_t total, cudaStream_t s)
{
    TraceScope timed(GpuHostTrace::H2D);
    std::vector<char> pinned(pieces.size());
    bool staged = false;
    for (size_t k = 0; k < pieces.size(); k++) {
        pinned[k] = gpu_is_direct(pieces[k].src);
        staged |= !pinned[k];
    }
    if (staged) {
        staging.ensure(total ? total : 1);
        std::vector<HostCopy> copies;
        for (size_t k = 0; k < pieces.size(); k++)
            if (!pinned[k])
                copies.push_back({staging.as<uint8_t>() + pieces[k].off, pieces[k].src, pieces[k].size});
        TraceScope copy(GpuHostTrace::STAGE);
        gpu_host_copies(copies);
    }
    CopyBatch copies;
    for (size_t k = 0; k < pieces.size(); k++) {
        const HostPiece &p = pieces[k];
        copies.add(dev + p.off, pinned[k] ? p.src : staging.as<uint8_t>() + p.off, p.size);
        if (gpu_trace) {
            gpu_trace->in += p.size;
            (pinned[k] ? gpu_trace->pinned_in : gpu_trace->staged) += p.size;
        }
    }
    copies.issue(s);
}

void gpu_download_pieces(PinnedBuf &staging, const uint8_t *dev, const std::vector<DevicePiece> &pieces,
                         uint64_t total, std::vector<char> &direct, cudaStream_t s)
{
    direct.assign(pieces.size(), 0);
    bool staged = false;
    CopyBatch copies;
    for (size_t k = 0; k < pieces.size(); k++) {
        const DevicePiece &p = pieces[k];
        direct[k] = p.fits && gpu_is_pinned(p.dst);
        staged |= !direct[k];
        if (direct[k])
            copies.add(p.dst, dev + p.off, p.size);
    }
    copies.issue(s);
    if (staged) {
        staging.ensure(total ? total : 1);
        CUDA_CHECK(cudaMemcpyAsync(staging.p, dev, total, cudaMemcpyDeviceToHost, s));
    }
}

void gpu_host_copies(const std::vector<HostCopy> &copies)
{
    size_t total = 0;
    for (const HostCopy &c : copies)
        total += c.size;
    // a thread per 16 MB, at most 8 and half the cores: the copies are bound by memory bandwidth
    // and page faults, and the caller's other threads keep working
    const size_t per = size_t(16) << 20;
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t parts = std::min({total / per + 1, size_t(8), std::max<size_t>(1, cores / 2)});
    // part t copies bytes [t * total / parts, (t + 1) * total / parts) of the copies laid end to end
    auto run = [&](size_t t) {
        const size_t b = total / parts * t + std::min(t, total % parts);
        const size_t e = b + total / parts + (t < total % parts);
        size_t at = 0;
        for (const HostCopy &c : copies) {
            const size_t lo = std::max(at, b), hi = std::min(at + c.size, e);
            if (lo < hi)
                std::memcpy(static_cast<uint8_t *>(c.dst) + (lo - at),
                            static_cast<const uint8_t *>(c.src) + (lo - at), hi - lo);
            at += c.size;
            if (at >= e)
                break;
        }
    };
    gpu_on_threads(parts, run);
}
