// jpegls_encoder_gpu.cu - sequencing of the GPU JPEG-LS encoder (stages in jpegls_gpu.h) and its
// entry points behind libpcwt's API: cuts a batch into chunks that fit the device, builds the
// segment tables, runs the stages, and writes each frame's codestream with the CPU encoder's
// marker writers around the scan data the device produced.
#include "gpu_context.h"
#include "jpegls_gpu.h"

#include <cub/cub.cuh>

#include <algorithm>
#include <array>
#include <cstdio>
#include <type_traits>
#include <vector>

extern "C" {
#include "jpegls_markers.h"
}

// One chunk's inputs: samples and segment tables. Two of them let the next chunk's upload overlap
// this chunk's compute.
struct JlsIn {
    DevBuf samples, segs, line_seg;
    PinnedBuf staging, h_tabs;
    std::vector<JlsSeg> segs_host;
    std::vector<uint32_t> line_seg_host;
    std::vector<size_t> idx; // the jobs of the chunk
    uint32_t frames = 0;
    cudaEvent_t uploaded = nullptr;
};

// Scan data that arrives through h_out, copied to its frame once the download is done.
struct Staged {
    uint8_t *dst;
    uint64_t off, size;
};

// The encoder's device buffers besides its inputs' (JlsIn), the one list of them: the members,
// dev_view and device_buffers() (their release, jls_gpu_held's count) all come from it.
// V: a JlsDev array of the same name; X: scratch the stages are given as void *.
#define PCWT_JLS_DEVICE_BUFFERS(V, X)                                                              \
    V(line_counts) V(frame_flags) V(ctx_key) V(key_alt) V(ctx_rec) V(ctx_runs_before) V(run_len)   \
    V(run_attach) V(run_code) V(run_j) V(run_maps) V(order) V(order_alt) V(order_code) V(chain_key) \
    V(chain_len) V(chain_off) V(chain_count) V(chunk_first) V(ctx_code) V(ctx_bits) V(run_bits)    \
    V(words) V(out) X(stuff) X(tmp)
#define PCWT_JLS_DEVBUF_MEMBER(b) DevBuf b;
#define PCWT_JLS_DEVBUF_COUNT(b) +1
#define PCWT_JLS_DEVBUF_ADDRESS(b) &b,
constexpr size_t kJlsInBuffers = 3; // JlsIn's samples, segs, line_seg

struct JlsGpu {
    JlsIn in[2];
    PCWT_JLS_DEVICE_BUFFERS(PCWT_JLS_DEVBUF_MEMBER, PCWT_JLS_DEVBUF_MEMBER)
    PinnedBuf h_segs, h_out, h_small;
    cudaEvent_t downloaded = nullptr; // the last chunk's scan data is on the host
    bool download_pending = false;
    std::vector<Staged> staged;
    uint64_t out_bytes = 0;  // extent of the output arena
    static constexpr size_t kDeviceBuffers =
        2 * kJlsInBuffers PCWT_JLS_DEVICE_BUFFERS(PCWT_JLS_DEVBUF_COUNT, PCWT_JLS_DEVBUF_COUNT);
    std::array<DevBuf *, kDeviceBuffers> device_buffers()
    {
        return {&in[0].samples, &in[0].segs, &in[0].line_seg, &in[1].samples, &in[1].segs, &in[1].line_seg,
                PCWT_JLS_DEVICE_BUFFERS(PCWT_JLS_DEVBUF_ADDRESS, PCWT_JLS_DEVBUF_ADDRESS)};
    }
    ~JlsGpu()
    {
        if (download_pending)
            cudaEventSynchronize(downloaded);
        for (DevBuf *b : device_buffers())
            b->release();
        for (PinnedBuf *b : {&in[0].staging, &in[0].h_tabs, &in[1].staging, &in[1].h_tabs, &h_segs,
                             &h_out, &h_small})
            b->release();
        for (cudaEvent_t e : {in[0].uploaded, in[1].uploaded, downloaded})
            if (e)
                cudaEventDestroy(e);
    }
};
#undef PCWT_JLS_DEVBUF_MEMBER
#undef PCWT_JLS_DEVBUF_COUNT
#undef PCWT_JLS_DEVBUF_ADDRESS

void jls_gpu_free(JlsGpu *j) { delete j; }

size_t jls_gpu_held(const JlsGpu *j)
{
    size_t n = 0;
    if (j)
        for (const DevBuf *b : const_cast<JlsGpu *>(j)->device_buffers())
            n += b->cap;
    return n;
}

namespace {

constexpr uint64_t kMaxChunkSamples = uint64_t(1) << 29; // keeps every index in 32 bits
constexpr uint64_t kDeviceBytesPerSample = 80;            // worst case of the stage arrays

JlsGpu &state(pcwt_gpu *g)
{
    if (!g->jls) {
        g->jls = new JlsGpu;
        for (cudaEvent_t *e : {&g->jls->in[0].uploaded, &g->jls->in[1].uploaded, &g->jls->downloaded})
            CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    }
    return *g->jls;
}

uint64_t samples_of(const pcwt_image_desc &d) { return (uint64_t)d.width * d.height * d.components; }

// Segment tables and the sample upload of a chunk (copy stream; `uploaded` marks the end).
void upload_chunk(pcwt_gpu *g, JlsIn &J, const pcwt_encode_params *p, const pcwt_frame_job *jobs)
{
    J.segs_host.clear();
    J.line_seg_host.clear();
    std::vector<HostPiece> pieces;
    uint64_t total = 0;
    for (size_t k = 0; k < J.idx.size(); k++) {
        const pcwt_frame_job &job = jobs[J.idx[k]];
        const pcwt_image_desc &d = job.desc;
        const uint64_t off = align_up(total);
        pieces.push_back({job.samples, job.samples_size, off});
        total = off + job.samples_size;
        const uint32_t wb = d.bits_allocated / 8, comps = d.components;
        const uint32_t step = comps > 1 && !d.planar ? comps : 1;
        const uint32_t restart = p->jpegls_restart_interval < d.height ? p->jpegls_restart_interval : d.height;
        const uint32_t stripe = restart ? restart : d.height;
        for (uint32_t c = 0; c < comps; c++) {
            const uint64_t comp_first = comps > 1 ? (d.planar ? (uint64_t)c * d.width * d.height : c) : 0;
            for (uint32_t row0 = 0; row0 < d.height; row0 += stripe) {
                JlsSeg s{};
                s.first = off + wb * (comp_first + (uint64_t)row0 * d.width * step);
                s.step = step;
                s.row_words = d.width * step;
                s.width = d.width;
                s.rows = std::min(stripe, d.height - row0);
                s.word_bytes = wb;
                s.bits = d.bits_stored;
                s.is_signed = d.is_signed;
                s.alloc_bits = d.bits_allocated;
                s.line_first = (uint32_t)J.line_seg_host.size();
                s.frame = (uint32_t)k;
                J.line_seg_host.insert(J.line_seg_host.end(), s.rows, (uint32_t)J.segs_host.size());
                J.segs_host.push_back(s);
            }
        }
    }
    J.frames = (uint32_t)J.idx.size();
    cudaStream_t s = g->copy_in;
    J.samples.ensure(total ? total : 1);
    gpu_upload_pieces(J.staging, J.samples.as<uint8_t>(), pieces, total, s);
    J.segs.ensure(sizeof(JlsSeg) * J.segs_host.size());
    J.line_seg.ensure(sizeof(uint32_t) * J.line_seg_host.size());
    J.h_tabs.ensure(sizeof(JlsSeg) * J.segs_host.size() + sizeof(uint32_t) * J.line_seg_host.size());
    // through pinned memory, so that the copies are truly asynchronous
    uint8_t *h = J.h_tabs.as<uint8_t>();
    std::memcpy(h, J.segs_host.data(), sizeof(JlsSeg) * J.segs_host.size());
    std::memcpy(h + sizeof(JlsSeg) * J.segs_host.size(), J.line_seg_host.data(),
                sizeof(uint32_t) * J.line_seg_host.size());
    CUDA_CHECK(cudaMemcpyAsync(J.segs.p, h, sizeof(JlsSeg) * J.segs_host.size(),
                               cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(J.line_seg.p, h + sizeof(JlsSeg) * J.segs_host.size(),
                               sizeof(uint32_t) * J.line_seg_host.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaEventRecord(J.uploaded, s));
}

JlsDev dev_view(JlsGpu &J, JlsIn &in)
{
    JlsDev d{};
    d.samples = in.samples.as<uint8_t>();
    d.segs = in.segs.as<JlsSeg>();
    d.seg_count = (uint32_t)in.segs_host.size();
    d.line_count = (uint32_t)in.line_seg_host.size();
    d.line_seg = in.line_seg.as<uint32_t>();
#define PCWT_JLS_DEVBUF_VIEW(b) d.b = J.b.as<std::remove_pointer_t<decltype(d.b)>>();
#define PCWT_JLS_DEVBUF_NONE(b)
    PCWT_JLS_DEVICE_BUFFERS(PCWT_JLS_DEVBUF_VIEW, PCWT_JLS_DEVBUF_NONE)
#undef PCWT_JLS_DEVBUF_VIEW
#undef PCWT_JLS_DEVBUF_NONE
    return d;
}

// Copies n values from the device to the context's small pinned buffer and waits for them.
template <typename T> T fetch(pcwt_gpu *g, JlsGpu &J, const void *src)
{
    J.h_small.ensure(64);
    CUDA_CHECK(cudaMemcpyAsync(J.h_small.p, src, sizeof(T), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return *J.h_small.as<T>();
}

// All device stages of a chunk whose samples and tables are uploaded. Two small reads back size
// the arrays (records per line, then the total bit count).
void run_device_encode(pcwt_gpu *g, JlsGpu &J, JlsIn &in)
{
    cudaStream_t s = g->stream;
    CUDA_CHECK(cudaStreamWaitEvent(s, in.uploaded, 0));
    const uint32_t S = (uint32_t)in.segs_host.size(), L = (uint32_t)in.line_seg_host.size();
    J.line_counts.ensure(sizeof(uint64_t) * (L + 1));
    J.frame_flags.ensure(sizeof(uint32_t) * (in.frames + 1));
    size_t scan_bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (uint64_t *)nullptr,
                                             (uint64_t *)nullptr, L + 1));
    J.tmp.ensure(scan_bytes);
    JlsDev d = dev_view(J, in);
    CUDA_CHECK(cudaMemsetAsync(d.line_counts, 0, sizeof(uint64_t) * (L + 1), s));
    CUDA_CHECK(cudaMemsetAsync(d.frame_flags, 0, sizeof(uint32_t) * (in.frames + 1), s));
    gpu_mark(g, "jls setup");
    jls_gpu_lines_count(d, s);
    gpu_mark(g, "jls lines (count)");
    size_t bytes = J.tmp.cap;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(J.tmp.p, bytes, d.line_counts, d.line_counts, L + 1, s));
    jls_gpu_seg_ranges(d, s);
    const uint64_t totals = fetch<uint64_t>(g, J, d.line_counts + L);
    const uint32_t nc = (uint32_t)(totals >> 32), nr = (uint32_t)totals; // context samples, runs
    gpu_mark(g, "jls scan lines");

    const size_t n1 = nc ? nc : 1, r1 = nr ? nr : 1, chains = (size_t)S * kJlsContexts;
    J.ctx_key.ensure(4 * n1);
    J.key_alt.ensure(std::max(4 * n1, jls_gpu_chain_state_bytes((uint32_t)n1)));
    J.ctx_rec.ensure(8 * n1);
    J.ctx_runs_before.ensure(4 * n1);
    J.order.ensure(4 * n1);
    J.order_alt.ensure(4 * n1);
    J.order_code.ensure(4 * n1);
    J.ctx_code.ensure(4 * n1);
    J.ctx_bits.ensure(8 * (n1 + 1));
    J.run_len.ensure(4 * r1);
    J.run_attach.ensure(4 * r1);
    J.run_code.ensure(4 * r1);
    J.run_j.ensure(r1);
    J.run_maps.ensure(64 * (r1 / kJlsRunGroup + 1));
    J.run_bits.ensure(8 * (r1 + 1));
    J.chain_key.ensure(4 * chains);
    J.chain_len.ensure(4 * chains);
    J.chain_off.ensure(4 * chains);
    J.chain_count.ensure(4);
    J.chunk_first.ensure(4 * (chains + 1));
    J.tmp.ensure(std::max({jls_gpu_chain_scratch(nc, S), jls_gpu_offsets_scratch(nc, nr),
                           jls_gpu_runs_scratch(nr), jls_gpu_stuff_scratch(S)}));
    d = dev_view(J, in);
    jls_gpu_lines_emit(d, s);
    gpu_mark(g, "jls lines (emit)");
    jls_gpu_runs(d, nr, J.tmp.p, J.tmp.cap, s);
    gpu_mark(g, "jls runs");
    jls_gpu_chains(d, nc, J.tmp.p, J.tmp.cap, s);
    gpu_mark(g, "jls sort + chains");
    jls_gpu_bit_offsets(d, nc, nr, J.tmp.p, J.tmp.cap, s);
    J.h_small.ensure(64);
    CUDA_CHECK(cudaMemcpyAsync(J.h_small.as<uint64_t>(), d.ctx_bits + nc, 8, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(J.h_small.as<uint64_t>() + 1, d.run_bits + nr, 8, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    const uint64_t bits = J.h_small.as<uint64_t>()[0] + J.h_small.as<uint64_t>()[1];
    gpu_mark(g, "jls bit offsets");

    const uint64_t words = bits / 32 + 4;
    if (J.download_pending) // the previous chunk's scan data must be out of the arena first
        CUDA_CHECK(cudaStreamWaitEvent(s, J.downloaded, 0));
    J.out_bytes = bits / 7 + 4ull * S + 16;
    J.words.ensure(4 * words);
    J.out.ensure(J.out_bytes);
    J.stuff.ensure(jls_gpu_stuff_bytes(bits, S));
    d = dev_view(J, in);
    CUDA_CHECK(cudaMemsetAsync(d.words, 0, 4 * words, s));
    jls_gpu_pack(d, nc, nr, s);
    gpu_mark(g, "jls pack");
    jls_gpu_stuff(d, words, bits, J.stuff.p, J.tmp.p, J.tmp.cap, s);
    gpu_mark(g, "jls stuff");
}

// Copies scan data that came through h_out to its frames, once its download is done.
void flush_staged(JlsGpu &J)
{
    if (!J.download_pending)
        return;
    CUDA_CHECK(cudaEventSynchronize(J.downloaded));
    for (const Staged &c : J.staged)
        std::memcpy(c.dst, J.h_out.as<uint8_t>() + c.off, c.size);
    J.staged.clear();
    J.download_pending = false;
}

// The segment table and flags back to the host; then each frame's markers are written on the host
// and its scan data downloaded (copy stream) straight into the caller's buffer when that is
// page-locked, else through h_out. The data may still be in flight on return (see flush_staged).
void finish_chunk(pcwt_gpu *g, JlsGpu &J, JlsIn &in, const pcwt_encode_params *p,
                  pcwt_frame_job *jobs, char *err, size_t err_size)
{
    flush_staged(J);
    const size_t S = in.segs_host.size();
    J.h_segs.ensure(sizeof(JlsSeg) * S + sizeof(uint32_t) * (in.frames + 1));
    JlsSeg *hs = J.h_segs.as<JlsSeg>();
    uint32_t *flags = reinterpret_cast<uint32_t *>(hs + S);
    CUDA_CHECK(cudaMemcpyAsync(hs, in.segs.p, sizeof(JlsSeg) * S, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(flags, J.frame_flags.p, sizeof(uint32_t) * in.frames,
                               cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    cudaStream_t cs = g->copy_out;
    const uint8_t *dev_out = J.out.as<uint8_t>();
    size_t seg = 0;
    for (uint32_t k = 0; k < in.frames; k++) {
        pcwt_frame_job &job = jobs[in.idx[k]];
        const pcwt_image_desc &d = job.desc;
        const uint32_t restart = p->jpegls_restart_interval < d.height ? p->jpegls_restart_interval : d.height;
        const uint32_t stripes = restart ? (d.height + restart - 1) / restart : 1;
        const size_t first = seg;
        seg += (size_t)stripes * d.components;
        if (flags[k]) {
            std::snprintf(err, err_size,
                          "bits above BitsStored are set; JPEG-LS cannot preserve them (bits_stored "
                          "%u of %u)", d.bits_stored, d.bits_allocated);
            job.status = PCWT_ERR_UNSUPPORTED;
            continue;
        }
        uint8_t *dst = static_cast<uint8_t *>(job.dst);
        const size_t cap = job.dst_capacity;
        const bool direct = gpu_is_pinned(dst);
        size_t pos = 0;
        int ok = jls_write_frame_header(dst, cap, &pos, d.bits_stored, d.width, d.height,
                                        d.components, restart);
        for (uint32_t c = 0; ok && c < d.components; c++) {
            ok = jls_write_sos(dst, cap, &pos, c + 1, 1, 0);
            for (uint32_t i = 0; ok && i < stripes; i++) {
                if (i > 0)
                    ok = jls_write_marker(dst, cap, &pos, JLS_MARKER_RST0 + ((i - 1) & 7u));
                const JlsSeg &sg = hs[first + (size_t)c * stripes + i];
                if (ok && (pos > cap || cap - pos < sg.out_size))
                    ok = 0;
                if (!ok)
                    break;
                if (direct)
                    CUDA_CHECK(cudaMemcpyAsync(dst + pos, dev_out + sg.out_off, sg.out_size,
                                               cudaMemcpyDeviceToHost, cs));
                else
                    J.staged.push_back({dst + pos, sg.out_off, sg.out_size});
                pos += sg.out_size;
            }
        }
        if (ok)
            ok = jls_write_marker(dst, cap, &pos, JLS_MARKER_EOI);
        if (!ok) {
            std::snprintf(err, err_size, "destination buffer of %zu bytes too small for the JPEG-LS codestream", cap);
            job.status = PCWT_ERR_BUFFER_TOO_SMALL;
            continue;
        }
        job.written = pos;
    }
    if (!J.staged.empty()) {
        J.h_out.ensure(J.out_bytes);
        CUDA_CHECK(cudaMemcpyAsync(J.h_out.p, J.out.p, J.out_bytes, cudaMemcpyDeviceToHost, cs));
    }
    CUDA_CHECK(cudaEventRecord(J.downloaded, cs));
    J.download_pending = true;
}

// Chunks: by samples (indices stay in 32 bits) and by the device memory budget. A big batch is
// cut in two, so that uploads and downloads overlap compute, but a chunk keeps at least 256
// frames of its largest size, so that each gives the device enough independent work.
std::vector<std::vector<size_t>> plan_chunks(pcwt_gpu *g, pcwt_frame_job *jobs, size_t count)
{
    const uint64_t budget = gpu_memory_budget(g) / 2; // two chunks' inputs may be resident
    uint64_t total = 0, largest = 0;
    for (size_t i = 0; i < count; i++) {
        total += samples_of(jobs[i].desc);
        largest = std::max(largest, samples_of(jobs[i].desc));
    }
    ChunkPlan plan(budget, std::max(total / 2, 256 * largest), kMaxChunkSamples);
    for (size_t i = 0; i < count; i++) {
        const uint64_t n = samples_of(jobs[i].desc);
        const uint64_t need = n * kDeviceBytesPerSample + jobs[i].samples_size + 4096;
        if (!plan.add(i, need, n))
            jobs[i].status = PCWT_ERR_OUT_OF_MEMORY; // coded on the CPU by the caller
    }
    return plan.chunks();
}

pcwt_status fail(const pcwt_gpu_detail::CudaError &e, char *err, size_t err_size)
{
    std::snprintf(err, err_size, "%s", e.what.c_str());
    cudaGetLastError();
    return e.code == cudaErrorMemoryAllocation ? PCWT_ERR_OUT_OF_MEMORY : PCWT_ERR_BACKEND_UNAVAILABLE;
}

} // namespace

extern "C" pcwt_status pcwt_gpu_jpegls_encode_batch(pcwt_gpu *g, const pcwt_encode_params *p,
                                                    pcwt_frame_job *jobs, size_t count, char *err,
                                                    size_t err_size)
{
    try {
        CUDA_CHECK(cudaSetDevice(g->device));
        for (size_t i = 0; i < count; i++) {
            jobs[i].written = 0;
            jobs[i].status = PCWT_OK;
        }
        JlsGpu &J = state(g);
        const auto chunks = plan_chunks(g, jobs, count);
        if (!chunks.empty()) {
            J.in[0].idx = chunks[0];
            upload_chunk(g, J.in[0], p, jobs);
        }
        for (size_t c = 0; c < chunks.size(); c++) {
            JlsIn &in = J.in[c % 2];
            if (c + 1 < chunks.size()) { // the other input slot's chunk is computed: reuse it
                J.in[(c + 1) % 2].idx = chunks[c + 1];
                upload_chunk(g, J.in[(c + 1) % 2], p, jobs);
            }
            gpu_mark_begin(g);
            run_device_encode(g, J, in);
            gpu_mark_report(g, "jpeg-ls encode");
            finish_chunk(g, J, in, p, jobs, err, err_size);
        }
        flush_staged(J);
    } catch (const pcwt_gpu_detail::CudaError &e) {
        if (g->jls)
            g->jls->staged.clear();
        return fail(e, err, err_size);
    }
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count && first == PCWT_OK; i++)
        first = jobs[i].status;
    return first;
}

extern "C" pcwt_status pcwt_gpu_jpegls_bench_encode(pcwt_gpu *g, const pcwt_encode_params *p,
                                                    pcwt_frame_job *jobs, size_t count, int repeats,
                                                    double *ms, char *err, size_t err_size)
{
    try {
        CUDA_CHECK(cudaSetDevice(g->device));
        JlsGpu &J = state(g);
        JlsIn &in = J.in[0];
        in.idx.resize(count);
        for (size_t i = 0; i < count; i++)
            in.idx[i] = i;
        upload_chunk(g, in, p, jobs);
        CUDA_CHECK(cudaStreamSynchronize(g->copy_in));
        *ms = gpu_median_event_ms(g, repeats, "jpeg-ls encode", []() {},
                                  [&]() { run_device_encode(g, J, in); });
        // the last run's codestreams, so that callers can check them
        for (size_t i = 0; i < count; i++) {
            jobs[i].written = 0;
            jobs[i].status = PCWT_OK;
        }
        finish_chunk(g, J, in, p, jobs, err, err_size);
        flush_staged(J);
    } catch (const pcwt_gpu_detail::CudaError &e) {
        return fail(e, err, err_size);
    }
    return PCWT_OK;
}
