// encoder_gpu.cu - sequences the GPU encoder for a batch of frames (the twin of
// codec/src/encoder.c): upload, high-bit check, import, B-LDWT+B with fused MQD/Qmax per level,
// group sizes, scan, group coding, CRCs, headers, download. Frames are split into passes that
// fit in device memory.
#include "gpu_context.h"

extern "C" {
#include "internal.h"
}

#include <algorithm>

namespace {

constexpr uint64_t ALIGN = 256;
uint64_t align_up(uint64_t v) { return (v + ALIGN - 1) & ~(ALIGN - 1); }

struct EncodePass {
    std::vector<FrameSpec> specs;
    uint64_t sample_bytes = 0;
};

FrameSpec spec_of(const pcwt_encode_params *p, const pcwt_image_desc &d, uint64_t sample_off)
{
    FrameSpec f{};
    f.desc = d;
    if (f.desc.components == 1)
        f.desc.planar = 0;
    const uint32_t max_levels = pcwt_plan_max_levels(d.height, d.width, p->min_ll);
    f.levels = std::min(p->levels, max_levels);
    f.gr = p->group_rows;
    f.gc = p->group_cols;
    f.sample_off = sample_off;
    return f;
}

// The device work of one pass, after the samples are on the device. Leaves headers written.
void run_device_encode(pcwt_gpu *g)
{
    const BatchLayout &L = g->layout;
    DeviceBatch &d = g->dev;
    cudaStream_t s = g->stream;
    uint32_t max_r = 0, max_c = 0;
    for (const GpuPlane &p : L.planes) {
        max_r = std::max(max_r, p.rows);
        max_c = std::max(max_c, p.cols);
    }
    const uint32_t np = uint32_t(L.planes.size());
    // Plane states back to Qmax -1 (repeat runs in benchmarks start clean).
    gpu_import_planes(d, np, max_r, max_c, s);
    for (uint32_t l = 1; l <= L.max_levels; l++) {
        const auto &lv = L.levels[l - 1];
        uint32_t mr, mbc;
        gpu_level_max(lv, mr, mbc);
        gpu_dwt_forward_level(d, d.levels + g->level_first[l - 1], uint32_t(lv.size()), mr, mbc, s);
    }
    if (!L.level0_planes.empty()) {
        uint32_t mr = 0, mc = 0;
        for (uint32_t pi : L.level0_planes) {
            mr = std::max(mr, pcwt_even_up(L.planes[pi].rows) / 2);
            mc = std::max(mc, pcwt_even_up(L.planes[pi].cols) / 2);
        }
        gpu_mqd_level0(d, uint32_t(L.level0_planes.size()), mr, mc, s);
    }
    const uint32_t nb = uint32_t(L.bands.size());
    gpu_group_sizes(d, L.groups, nb, s);
    gpu_group_offsets(d, L.groups, nb, g->scan_tmp.p, g->scan_tmp.cap, s);
    gpu_group_encode(d, L.groups, nb, s);
    gpu_group_crcs(d, L.groups, nb, s);
    gpu_plane_crcs(d, np, 0, s);
    gpu_write_headers(d, uint32_t(L.frames.size()), s);
}

// Fresh plane states (Qmax -1) before each device run.
void reset_states(pcwt_gpu *g)
{
    std::vector<GpuPlaneState> st(g->layout.planes.size());
    for (auto &x : st) {
        std::memset(&x, 0, sizeof x);
        x.qmax = -1;
    }
    if (!st.empty()) {
        CUDA_CHECK(cudaMemcpyAsync(g->state.p, st.data(), sizeof(GpuPlaneState) * st.size(),
                                   cudaMemcpyHostToDevice, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
    }
}

// Uploads the samples of jobs[first, last), builds the layout (with the high-bit check).
void prepare_pass(pcwt_gpu *g, const pcwt_encode_params *p, pcwt_frame_job *jobs,
                  const std::vector<size_t> &idx)
{
    std::vector<FrameSpec> specs;
    uint64_t off = 0;
    for (size_t i : idx) {
        specs.push_back(spec_of(p, jobs[i].desc, off));
        off = align_up(off + jobs[i].samples_size);
    }
    g->h_samples.ensure(off ? off : 1);
    for (size_t k = 0; k < idx.size(); k++)
        std::memcpy(g->h_samples.as<uint8_t>() + specs[k].sample_off, jobs[idx[k]].samples,
                    jobs[idx[k]].samples_size);
    g->samples.ensure(off ? off : 1);
    CUDA_CHECK(cudaMemcpyAsync(g->samples.p, g->h_samples.p, off, cudaMemcpyHostToDevice, g->stream));
    g->dev.samples = g->samples.as<uint8_t>();
    bool any_high = false;
    for (const FrameSpec &f : specs)
        any_high |= f.desc.bits_stored < f.desc.bits_allocated;
    if (any_high) { // which components carry bits above bits_stored
        gpu_build_layout(specs, g->layout);
        gpu_upload_layout(g);
        g->flags.ensure(sizeof(uint32_t) * 3 * specs.size());
        g->dev.flags = g->flags.as<uint32_t>();
        gpu_high_bit_flags(g->dev, nullptr, uint32_t(specs.size()), g->stream);
        std::vector<uint32_t> flags(3 * specs.size());
        CUDA_CHECK(cudaMemcpyAsync(flags.data(), g->flags.p, sizeof(uint32_t) * flags.size(),
                                   cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        for (size_t k = 0; k < specs.size(); k++)
            for (uint32_t c = 0; c < 3; c++)
                specs[k].high[c] = flags[3 * k + c];
    }
    gpu_build_layout(specs, g->layout);
    gpu_upload_layout(g);
    const size_t scan = gpu_scan_tmp_size(g->layout.groups ? g->layout.groups : 1);
    g->scan_tmp.ensure(scan);
    // Upper bound of the output: every group record at its largest.
    uint64_t out = 0;
    for (const GpuFrame &f : g->layout.frames) {
        pcwt_image_desc dd{f.width, f.height, f.components, f.bits_alloc, f.bits_stored, f.is_signed, f.planar};
        out += pcwt_encode_bound(&dd);
    }
    g->stream_buf.ensure(out ? out : 1);
    g->dev.stream = g->stream_buf.as<uint8_t>();
}

// Splits jobs into passes whose device memory fits, in order.
std::vector<std::vector<size_t>> plan_passes(pcwt_gpu *g, const pcwt_encode_params *p,
                                             pcwt_frame_job *jobs, size_t count)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // Memory already held by this context is reusable.
    size_t held = g->i32.cap + g->i8.cap + g->samples.cap + g->stream_buf.cap + g->groups.cap +
                  g->group_size.cap;
    const size_t budget = (free_b + held) / 10 * 8;
    std::vector<std::vector<size_t>> passes(1);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (jobs[i].status != PCWT_OK)
            continue;
        FrameSpec f = spec_of(p, jobs[i].desc, 0);
        f.high[0] = f.high[1] = f.high[2] = f.desc.bits_stored < f.desc.bits_allocated;
        BatchLayout one;
        gpu_build_layout({f}, one);
        const size_t need = gpu_batch_bytes(one, jobs[i].samples_size, pcwt_encode_bound(&f.desc));
        if (need > budget) {
            jobs[i].status = PCWT_ERR_OUT_OF_MEMORY;
            continue;
        }
        if (used + need > budget && !passes.back().empty()) {
            passes.emplace_back();
            used = 0;
        }
        passes.back().push_back(i);
        used += need;
    }
    return passes;
}

} // namespace

extern "C" pcwt_status pcwt_gpu_encode_batch(pcwt_gpu *g, const pcwt_encode_params *p,
                                             pcwt_frame_job *jobs, size_t count, char *err,
                                             size_t err_size)
{
    try {
        for (size_t i = 0; i < count; i++) {
            jobs[i].written = 0;
            jobs[i].status = PCWT_OK;
        }
        for (const std::vector<size_t> &idx : plan_passes(g, p, jobs, count)) {
            if (idx.empty())
                continue;
            prepare_pass(g, p, jobs, idx);
            run_device_encode(g);
            BatchLayout &L = g->layout;
            std::vector<GpuPlaneState> st(L.planes.size());
            CUDA_CHECK(cudaMemcpyAsync(L.frames.data(), g->frames.p, sizeof(GpuFrame) * L.frames.size(),
                                       cudaMemcpyDeviceToHost, g->stream));
            CUDA_CHECK(cudaMemcpyAsync(st.data(), g->state.p, sizeof(GpuPlaneState) * st.size(),
                                       cudaMemcpyDeviceToHost, g->stream));
            CUDA_CHECK(cudaStreamSynchronize(g->stream));
            const uint64_t total = L.frames.back().out_end;
            g->h_stream.ensure(total ? total : 1);
            CUDA_CHECK(cudaMemcpyAsync(g->h_stream.p, g->stream_buf.p, total, cudaMemcpyDeviceToHost,
                                       g->stream));
            CUDA_CHECK(cudaStreamSynchronize(g->stream));
            for (size_t k = 0; k < idx.size(); k++) {
                pcwt_frame_job &j = jobs[idx[k]];
                const GpuFrame &f = L.frames[k];
                bool too_big = false;
                for (uint32_t pl = f.plane_first; pl < f.plane_first + f.plane_count; pl++)
                    too_big |= st[pl].qmax > PCWT_MAX_QMAX;
                const uint64_t n = f.out_end - f.out_start;
                if (too_big) {
                    j.status = PCWT_ERR_UNSUPPORTED;
                } else if (n > j.dst_capacity) {
                    j.status = PCWT_ERR_BUFFER_TOO_SMALL;
                } else {
                    std::memcpy(j.dst, g->h_stream.as<uint8_t>() + f.out_start, n);
                    j.written = n;
                }
            }
        }
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        cudaGetLastError(); // clear a sticky launch error where possible
        return e.code == cudaErrorMemoryAllocation ? PCWT_ERR_OUT_OF_MEMORY
                                                   : PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count && first == PCWT_OK; i++)
        first = jobs[i].status;
    if (first != PCWT_OK)
        std::snprintf(err, err_size, "GPU encode: %s", pcwt_status_string(first));
    return first;
}

extern "C" pcwt_status pcwt_gpu_bench_encode(pcwt_gpu *g, const pcwt_encode_params *p,
                                             pcwt_frame_job *jobs, size_t count, int repeats,
                                             double *ms, char *err, size_t err_size)
{
    try {
        std::vector<size_t> idx(count);
        for (size_t i = 0; i < count; i++)
            idx[i] = i;
        prepare_pass(g, p, jobs, idx);
        std::vector<float> t;
        for (int r = 0; r < repeats + 1; r++) { // the first run is the warm-up
            reset_states(g);
            CUDA_CHECK(cudaEventRecord(g->ev_start, g->stream));
            run_device_encode(g);
            CUDA_CHECK(cudaEventRecord(g->ev_stop, g->stream));
            CUDA_CHECK(cudaEventSynchronize(g->ev_stop));
            float m = 0;
            CUDA_CHECK(cudaEventElapsedTime(&m, g->ev_start, g->ev_stop));
            if (r)
                t.push_back(m);
        }
        std::sort(t.begin(), t.end());
        *ms = t.empty() ? 0 : t[t.size() / 2];
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    return PCWT_OK;
}
