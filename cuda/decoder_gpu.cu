// decoder_gpu.cu - sequences the GPU decoder for a batch of codestreams (the twin of
// codec/src/decoder.c): headers parsed and validated on the host before anything is allocated;
// then on the device: locate groups, verify CRCs, decode groups level by level from the top
// (all groups of a level in parallel), inverse B-LDWT+B, range-checked export.
#include "gpu_context.h"

extern "C" {
#include "internal.h"
}

#include <algorithm>

namespace {

constexpr uint64_t ALIGN = 256;
uint64_t align_up(uint64_t v) { return (v + ALIGN - 1) & ~(ALIGN - 1); }

const char *gpu_error_text(uint32_t e)
{
    switch (e) {
    case GPU_ERR_GROUP_BOUNDS: return "a group runs past its payload";
    case GPU_ERR_GROUP_BITS: return "a group's bit count does not match its elements";
    case GPU_ERR_NEG_ZERO: return "invalid coefficient code";
    case GPU_ERR_QMAX: return "Qmax does not match the top-level MQDs";
    case GPU_ERR_RANGE: return "decoded sample out of range";
    case GPU_ERR_CRC: return "payload checksum mismatch";
    case GPU_ERR_TRAILING: return "bytes after the last group";
    default: return "corrupt codestream";
    }
}

struct DecodeSet {
    std::vector<size_t> idx;               // jobs in this pass
    std::vector<pcwt_header_info> info;
};

// Host side of a pass: headers -> layout, codestreams -> device.
void prepare_decode(pcwt_gpu *g, pcwt_decode_job *jobs, const DecodeSet &set)
{
    std::vector<FrameSpec> specs;
    std::vector<uint64_t> cs_off;
    uint64_t stream_bytes = 0, sample_bytes = 0;
    for (size_t k = 0; k < set.idx.size(); k++) {
        const pcwt_header_info &h = set.info[k];
        FrameSpec f{};
        f.desc = h.desc;
        f.levels = h.levels;
        f.gr = h.group_rows;
        f.gc = h.group_cols;
        for (uint32_t i = 0; i < h.plane_count; i++)
            if (h.planes[i].kind == 1)
                f.high[h.planes[i].component] = 1;
        f.sample_off = sample_bytes;
        sample_bytes = align_up(sample_bytes + pcwt_image_size(&h.desc));
        specs.push_back(f);
        cs_off.push_back(stream_bytes);
        stream_bytes = align_up(stream_bytes + h.codestream_length);
    }
    gpu_build_layout(specs, g->layout);
    BatchLayout &L = g->layout;
    for (size_t k = 0; k < set.idx.size(); k++) { // payload positions from the headers
        const pcwt_header_info &h = set.info[k];
        uint64_t off = cs_off[k] + h.header_length;
        for (uint32_t i = 0; i < h.plane_count; i++) {
            GpuPlane &p = L.planes[L.frames[k].plane_first + i];
            p.payload_off = off;
            p.payload_len = h.planes[i].payload_length;
            p.crc_expected = h.planes[i].payload_crc32;
            p.qmax = h.planes[i].qmax;
            off += h.planes[i].payload_length;
        }
    }
    gpu_upload_layout(g);
    g->h_stream.ensure(stream_bytes ? stream_bytes : 1);
    for (size_t k = 0; k < set.idx.size(); k++)
        std::memcpy(g->h_stream.as<uint8_t>() + cs_off[k], jobs[set.idx[k]].src,
                    set.info[k].codestream_length);
    g->stream_buf.ensure(stream_bytes ? stream_bytes : 1);
    CUDA_CHECK(cudaMemcpyAsync(g->stream_buf.p, g->h_stream.p, stream_bytes, cudaMemcpyHostToDevice,
                               g->stream));
    g->samples.ensure(sample_bytes ? sample_bytes : 1);
    g->dev.stream = g->stream_buf.as<uint8_t>();
    g->dev.samples = g->samples.as<uint8_t>();
}

// Group location and CRC verification (the kernels after it rely on valid group positions).
void run_device_check(pcwt_gpu *g)
{
    const BatchLayout &L = g->layout;
    const uint32_t np = uint32_t(L.planes.size());
    gpu_group_walk(g->dev, np, g->stream);
    gpu_group_crcs(g->dev, L.groups, uint32_t(L.bands.size()), g->stream);
    gpu_plane_crcs(g->dev, np, 1, g->stream);
}

void run_device_decode(pcwt_gpu *g)
{
    const BatchLayout &L = g->layout;
    DeviceBatch &d = g->dev;
    cudaStream_t s = g->stream;
    const uint32_t np = uint32_t(L.planes.size());
    for (size_t st = 0; st < L.decode_steps.size(); st++) {
        uint32_t max_groups = 0;
        for (uint32_t b : L.decode_steps[st])
            max_groups = std::max(max_groups, L.bands[b].group_count);
        gpu_group_decode(d, d.steps + g->step_first[st], uint32_t(L.decode_steps[st].size()),
                         max_groups, s);
    }
    gpu_check_qmax(d, np, s);
    for (uint32_t l = L.max_levels; l >= 1; l--) {
        const auto &lv = L.levels[l - 1];
        uint32_t mr, mbc;
        gpu_level_max(lv, mr, mbc);
        gpu_dwt_inverse_level(d, d.levels + g->level_first[l - 1], uint32_t(lv.size()), mr, mbc, s);
    }
    uint32_t max_r = 0, max_c = 0;
    for (const GpuPlane &p : L.planes) {
        max_r = std::max(max_r, p.rows);
        max_c = std::max(max_c, p.cols);
    }
    gpu_export_planes(d, np, 0, max_r, max_c, s); // values first, then XOR in the high bits
    gpu_export_planes(d, np, 1, max_r, max_c, s);
}

std::vector<GpuPlaneState> read_states(pcwt_gpu *g)
{
    std::vector<GpuPlaneState> st(g->layout.planes.size());
    if (!st.empty())
        CUDA_CHECK(cudaMemcpyAsync(st.data(), g->state.p, sizeof(GpuPlaneState) * st.size(),
                                   cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return st;
}

// Marks jobs whose planes report an error; returns true when all are fine.
bool collect_errors(pcwt_gpu *g, pcwt_decode_job *jobs, const DecodeSet &set,
                    const std::vector<GpuPlaneState> &st, char *err, size_t err_size)
{
    bool ok = true;
    const BatchLayout &L = g->layout;
    for (size_t k = 0; k < set.idx.size(); k++) {
        const GpuFrame &f = L.frames[k];
        for (uint32_t pl = f.plane_first; pl < f.plane_first + f.plane_count; pl++) {
            if (st[pl].error) {
                pcwt_decode_job &j = jobs[set.idx[k]];
                if (j.status == PCWT_OK) {
                    j.status = st[pl].error == GPU_ERR_CRC ? PCWT_ERR_CRC_MISMATCH : PCWT_ERR_CORRUPT;
                    std::snprintf(err, err_size, "plane %u: %s", pl - f.plane_first,
                                  gpu_error_text(st[pl].error));
                }
                ok = false;
            }
        }
    }
    return ok;
}

// Validates headers on the host; returns the jobs that can go to the device.
DecodeSet validate(pcwt_decode_job *jobs, size_t count, uint64_t max_samples, char *err,
                   size_t err_size)
{
    DecodeSet set;
    for (size_t i = 0; i < count; i++) {
        pcwt_decode_job &j = jobs[i];
        pcwt_header_info h;
        char why[200] = "";
        j.status = pcwt_header_parse(static_cast<const uint8_t *>(j.src), j.src_size, &h, why, sizeof why);
        if (j.status == PCWT_OK) {
            const uint64_t n = uint64_t(h.desc.width) * h.desc.height * h.desc.components;
            if (n > max_samples) {
                j.status = PCWT_ERR_LIMIT_EXCEEDED;
                std::snprintf(why, sizeof why, "image of %llu samples exceeds the limit of %llu",
                              (unsigned long long)n, (unsigned long long)max_samples);
            } else if (j.src_size < h.codestream_length) {
                j.status = PCWT_ERR_TRUNCATED;
                std::snprintf(why, sizeof why, "codestream truncated: %zu of %zu bytes", j.src_size,
                              h.codestream_length);
            } else if (j.dst_capacity < pcwt_image_size(&h.desc)) {
                j.status = PCWT_ERR_BUFFER_TOO_SMALL;
                std::snprintf(why, sizeof why, "destination buffer of %zu bytes too small, %zu needed",
                              j.dst_capacity, pcwt_image_size(&h.desc));
            }
        }
        if (j.status != PCWT_OK) {
            std::snprintf(err, err_size, "%s", why);
            continue;
        }
        set.idx.push_back(i);
        set.info.push_back(h);
    }
    return set;
}

pcwt_status decode_set(pcwt_gpu *g, pcwt_decode_job *jobs, DecodeSet set, char *err,
                       size_t err_size)
{
    while (!set.idx.empty()) {
        prepare_decode(g, jobs, set);
        run_device_check(g);
        if (!collect_errors(g, jobs, set, read_states(g), err, err_size)) {
            DecodeSet good; // drop the damaged ones and go again with the rest
            for (size_t k = 0; k < set.idx.size(); k++)
                if (jobs[set.idx[k]].status == PCWT_OK) {
                    good.idx.push_back(set.idx[k]);
                    good.info.push_back(set.info[k]);
                }
            set = good;
            continue;
        }
        run_device_decode(g);
        const std::vector<GpuPlaneState> st = read_states(g);
        collect_errors(g, jobs, set, st, err, err_size);
        const BatchLayout &L = g->layout;
        uint64_t total = 0;
        for (const GpuFrame &f : L.frames)
            total = std::max(total, f.sample_off + f.sample_size);
        g->h_samples.ensure(total ? total : 1);
        CUDA_CHECK(cudaMemcpyAsync(g->h_samples.p, g->samples.p, total, cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        for (size_t k = 0; k < set.idx.size(); k++) {
            pcwt_decode_job &j = jobs[set.idx[k]];
            if (j.status == PCWT_OK)
                std::memcpy(j.dst, g->h_samples.as<uint8_t>() + L.frames[k].sample_off, L.frames[k].sample_size);
        }
        break;
    }
    return PCWT_OK;
}

} // namespace

extern "C" pcwt_status pcwt_gpu_decode_batch(pcwt_gpu *g, uint64_t max_samples,
                                             pcwt_decode_job *jobs, size_t count, char *err,
                                             size_t err_size)
{
    try {
        DecodeSet all = validate(jobs, count, max_samples, err, err_size);
        // Passes that fit in device memory.
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const size_t held = g->i32.cap + g->i8.cap + g->samples.cap + g->stream_buf.cap;
        const size_t budget = (free_b + held) / 10 * 8;
        DecodeSet pass;
        size_t used = 0;
        auto flush = [&]() {
            if (!pass.idx.empty())
                decode_set(g, jobs, pass, err, err_size);
            pass = DecodeSet{};
            used = 0;
        };
        for (size_t k = 0; k < all.idx.size(); k++) {
            const pcwt_header_info &h = all.info[k];
            FrameSpec f{};
            f.desc = h.desc;
            f.levels = h.levels;
            f.gr = h.group_rows;
            f.gc = h.group_cols;
            f.high[0] = f.high[1] = f.high[2] = 1;
            BatchLayout one;
            gpu_build_layout({f}, one);
            const size_t need = gpu_batch_bytes(one, pcwt_image_size(&h.desc), h.codestream_length);
            if (need > budget) {
                jobs[all.idx[k]].status = PCWT_ERR_OUT_OF_MEMORY;
                continue;
            }
            if (used + need > budget)
                flush();
            pass.idx.push_back(all.idx[k]);
            pass.info.push_back(h);
            used += need;
        }
        flush();
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        cudaGetLastError();
        return e.code == cudaErrorMemoryAllocation ? PCWT_ERR_OUT_OF_MEMORY
                                                   : PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    for (size_t i = 0; i < count; i++)
        if (jobs[i].status != PCWT_OK)
            return jobs[i].status;
    return PCWT_OK;
}

extern "C" pcwt_status pcwt_gpu_bench_decode(pcwt_gpu *g, pcwt_decode_job *jobs, size_t count,
                                             int repeats, double *ms, char *err, size_t err_size)
{
    try {
        DecodeSet set = validate(jobs, count, ~uint64_t(0), err, err_size);
        if (set.idx.size() != count)
            return PCWT_ERR_CORRUPT;
        prepare_decode(g, jobs, set);
        std::vector<float> t;
        for (int r = 0; r < repeats + 1; r++) {
            std::vector<GpuPlaneState> st(g->layout.planes.size());
            for (auto &x : st) {
                std::memset(&x, 0, sizeof x);
                x.qmax = -1;
            }
            CUDA_CHECK(cudaMemcpyAsync(g->state.p, st.data(), sizeof(GpuPlaneState) * st.size(),
                                       cudaMemcpyHostToDevice, g->stream));
            CUDA_CHECK(cudaStreamSynchronize(g->stream));
            CUDA_CHECK(cudaEventRecord(g->ev_start, g->stream));
            run_device_check(g);
            run_device_decode(g);
            CUDA_CHECK(cudaEventRecord(g->ev_stop, g->stream));
            CUDA_CHECK(cudaEventSynchronize(g->ev_stop));
            float m = 0;
            CUDA_CHECK(cudaEventElapsedTime(&m, g->ev_start, g->ev_stop));
            if (r)
                t.push_back(m);
        }
        std::sort(t.begin(), t.end());
        *ms = t.empty() ? 0 : t[t.size() / 2];
        const std::vector<GpuPlaneState> st = read_states(g);
        for (const auto &x : st)
            if (x.error)
                return PCWT_ERR_CORRUPT;
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    return PCWT_OK;
}
