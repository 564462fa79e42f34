// decoder_gpu.cu - sequences the GPU decoder for a batch of codestreams (the twin of
// codec/src/decoder.c): headers parsed and validated on the host before anything is allocated;
// then on the device: locate groups, verify CRCs, decode groups level by level from the top
// (all groups of a level in parallel), inverse B-LDWT+B, range-checked export. pcwt_verify_batch
// runs the same with the expected samples uploaded beside the codestreams and compared on the
// device (compare_gpu.cu) instead of the samples' download.
#include "gpu_context.h"
#include "ec_model.h"
#include "host_threads.h"

extern "C" {
#include "container.h"
#include "decode_limits.h"
}

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {


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
    case GPU_ERR_MQD: return "an MQD above its element's largest level";
    case GPU_ERR_VALUE_MAP: return "value map: malformed, or values outside the plane's range";
    case GPU_ERR_RANK: return "value map: a rank outside the map";
    case GPU_ERR_OFFSET: return "modular offset: r0 truncated or not below 2^bits";
    default: return "corrupt codestream";
    }
}

// What the batch layout needs of a frame, from its validated header.
FrameSpec spec_from_header(const pcwt_header_info &h, uint64_t sample_off)
{
    FrameSpec f{};
    f.desc = h.desc;
    f.levels = h.levels;
    f.group_rows = h.group_rows;
    f.group_cols = h.group_cols;
    f.profile = h.profile;
    f.rct = h.colour_transform;
    f.columns_first = h.columns_first;
    for (uint32_t i = 0; i < h.plane_count; i++) {
        if (h.planes[i].kind == 1)
            f.high[h.planes[i].component] = 1;
        f.mapped[h.planes[i].component][h.planes[i].kind ? 1 : 0] = h.planes[i].value_map;
        f.level1_511[h.planes[i].component][h.planes[i].kind ? 1 : 0] = h.planes[i].level1_511;
        if (h.planes[i].kind == 0)
            f.offset_set[h.planes[i].component] = h.planes[i].offset;
    }
    f.sample_off = sample_off;
    return f;
}

struct DecodeSet {
    std::vector<size_t> idx;               // jobs in this pass
    std::vector<pcwt_header_info> info;
};

// Where the pipelined decode's counters lie in sl.ec_order: after gpu_ec_order's buffers.
size_t ec_pipe_offset(const Slot &sl)
{
    return (gpu_order_bytes(sl.step_group_first.back()) + 255) & ~size_t(255);
}

// Host side of a chunk: headers -> layout, codestreams (verify: and the samples expected) ->
// device, on stream s (a batch: copy_in).
void upload_chunk(Slot &sl, pcwt_decode_job *jobs, const DecodeSet &set, const pcwt_verify_job *verify,
                  cudaStream_t s)
{
    std::vector<FrameSpec> &specs = sl.specs;
    specs.clear();
    std::vector<uint64_t> cs_off;
    uint64_t stream_bytes = 0, sample_bytes = 0;
    TraceScope timed(GpuHostTrace::LAYOUT);
    sl.times.mark(ChunkTimes::UP0, s);
    for (size_t k = 0; k < set.idx.size(); k++) {
        const pcwt_header_info &h = set.info[k];
        const FrameSpec f = spec_from_header(h, sample_bytes);
        sample_bytes = align_up(sample_bytes + pcwt_image_size(&h.desc));
        specs.push_back(f);
        cs_off.push_back(stream_bytes);
        stream_bytes = align_up(stream_bytes + h.codestream_length);
    }
    gpu_build_layout(specs, sl.layout);
    BatchLayout &L = sl.layout;
    uint64_t largest = 0;
    for (size_t k = 0; k < set.idx.size(); k++) { // payload positions from the headers
        const pcwt_header_info &h = set.info[k];
        uint64_t off = cs_off[k] + h.header_length;
        for (uint32_t i = 0; i < h.plane_count; i++) {
            GpuPlane &p = L.planes[L.frames[k].plane_first + i];
            p.payload_off = off;
            p.payload_len = h.planes[i].payload_length;
            p.crc_expected = h.planes[i].payload_crc32;
            p.qmax = h.planes[i].qmax;
            p.low_bits = (uint32_t)pcwt_ec_modelled_bits((int)h.planes[i].low_bits,
                                                         (int)h.planes[i].second_bit);
            off += h.planes[i].payload_length;
            largest = std::max<uint64_t>(largest, h.planes[i].payload_length);
        }
    }
    gpu_prepare_crc_parts(sl, largest);
    // Slack after the last codestream: the group decoder reads aligned 8-byte windows.
    sl.stream_buf.ensure(stream_bytes + 256);
    std::vector<HostPiece> pieces;
    for (size_t k = 0; k < set.idx.size(); k++)
        pieces.push_back({jobs[set.idx[k]].src, set.info[k].codestream_length, cs_off[k]});
    gpu_upload_pieces(sl.h_stream, sl.stream_buf.as<uint8_t>(), pieces, stream_bytes, s);
    gpu_upload_layout(sl, s);
    if (L.entropy_planes) // where gpu_ec_order puts the range-coded groups of each decode step
        sl.ec_order.ensure(ec_pipe_offset(sl) + gpu_ec_pipe_bytes(L));
    sl.samples.ensure(sample_bytes ? sample_bytes : 1);
    if (verify) { // the samples expected, at the decoded frames' offsets (h_samples: no download)
        sl.expected.ensure(sample_bytes ? sample_bytes : 1);
        std::vector<HostPiece> want;
        for (size_t k = 0; k < set.idx.size(); k++)
            want.push_back({verify[set.idx[k]].expected, L.frames[k].sample_size, L.frames[k].sample_off});
        gpu_upload_pieces(sl.h_samples, sl.expected.as<uint8_t>(), want, sample_bytes, s);
    }
    sl.dev.stream = sl.stream_buf.as<uint8_t>();
    sl.dev.samples = sl.samples.as<uint8_t>();
    sl.idx = set.idx;
    sl.times.mark(ChunkTimes::UP1, s);
    CUDA_CHECK(cudaEventRecord(sl.uploaded, s));
}

// The device work of a chunk. A plane whose groups cannot be located or whose CRC fails is
// flagged and skipped by the later kernels; no host round trip in between.
void run_device_decode(pcwt_gpu *g, Slot &sl)
{
    const BatchLayout &L = sl.layout;
    DeviceBatch &d = sl.dev;
    cudaStream_t s = sl.compute;
    const uint32_t np = uint32_t(L.planes.size());
    const bool beside = L.vmap_planes;
    const bool prefixed = L.vmap_planes || L.offset_planes; // r0 or a map before the groups
    if (prefixed) { // r0 and the maps' heads first: the groups follow them; the maps' values beside
        gpu_vmap_read(d, np, s);
        if (L.vmap_planes)
            gpu_vmap_read_values(d, np, gpu_side_fork(sl, beside));
        gpu_mark(g, L.vmap_planes ? "value maps" : "offsets");
    }
    gpu_group_walk(d, np, s);
    gpu_mark(g, "locate groups");
    gpu_plane_crcs(d, np, sl.crc_blocks, 1, s);
    if (prefixed)
        gpu_vmap_refused(d, np, s);
    gpu_mark(g, "verify CRCs");
    const uint32_t *ec_groups = d.step_groups;
    uint32_t piped = 0;      // the leading steps whose profile-1 groups the pipelined decode takes
    uint32_t *raw = nullptr; // (pipe[0]) some step holds a raw-mode record
    if (L.entropy_planes) {
        const uint32_t steps = uint32_t(L.decode_steps.size());
        raw = reinterpret_cast<uint32_t *>(sl.ec_order.as<char>() + ec_pipe_offset(sl));
        piped = gpu_ec_pipe_steps(L);
        CUDA_CHECK(cudaMemsetAsync(raw, 0, piped ? gpu_ec_pipe_bytes(L) : 4, s));
        ec_groups = gpu_ec_order(d, sl.step_group_first.data(), steps, sl.ec_order.p, s, raw);
        if (piped) // its counters follow the raw flag
            gpu_ec_decode_pipe(d, ec_groups, sl.step_group_first.data(), piped,
                               uint32_t(L.bands.size()), raw, s);
    }
    for (size_t st = 0; st < L.decode_steps.size(); st++) {
        uint32_t max_groups = 0;
        for (uint32_t b : L.decode_steps[st])
            max_groups = std::max(max_groups, L.bands[b].group_count);
        // The baseline planes' groups and profile 1's raw-mode records (in a batch of profile-1
        // planes only, nothing else: left out of a pipelined step, skipped without raw-mode
        // records; the pipelined decode took those of a mixed batch, which this decodes again).
        if (st >= piped || L.entropy_planes != np)
            gpu_group_decode(d, d.steps + sl.step_first[st], uint32_t(L.decode_steps[st].size()),
                             max_groups, s, L.entropy_planes == np ? raw : nullptr);
        if (L.entropy_planes && st >= piped) // the range-coded groups of profile 1
            gpu_ec_decode(d, ec_groups + sl.step_group_first[st],
                          sl.step_group_first[st + 1] - sl.step_group_first[st],
                          uint32_t(L.bands.size()), s);
    }
    // Bands with children are in every step but the last (level 1): one launch checks them all.
    const size_t nsteps = L.decode_steps.size();
    if (nsteps > 1) {
        uint64_t max_elements = 0;
        for (size_t st = 0; st + 1 < nsteps; st++)
            for (uint32_t b : L.decode_steps[st])
                if (L.bands[b].level >= 2 && b != L.planes[L.bands[b].plane].band_first)
                    max_elements = std::max(max_elements,
                                            uint64_t(L.bands[b].mrows) * L.bands[b].mcols);
        gpu_check_parent_mqds(d, d.steps, sl.step_first[nsteps - 1], max_elements, s);
    }
    gpu_check_qmax(d, np, s);
    gpu_mark(g, "decode groups");
    for (uint32_t l = L.max_levels; l >= 1; l--) {
        const auto &lv = L.levels[l - 1];
        gpu_dwt_inverse_level(d, d.levels + sl.level_first[l - 1], uint32_t(lv.size()),
                              gpu_level_max(lv), l == 1, s);
        if (l == 1 && L.level1_planes) // the planes whose level 1 is 5/11-C
            gpu_dwt511_inverse_level1(d, d.levels + sl.level_first[0], uint32_t(lv.size()),
                                      gpu_level_max(lv), s);
    }
    gpu_mark(g, "inverse DWT");
    uint32_t max_r = 0, max_c = 0;
    bool any_values = false, any_high = false;
    for (uint32_t pi : L.export_planes) {
        const GpuPlane &p = L.planes[pi];
        max_r = std::max(max_r, p.rows);
        max_c = std::max(max_c, p.cols);
        any_values |= p.kind == 0;
        any_high |= p.kind == 1;
    }
    if (L.vmap_planes) { // ranks back to values, before any plane is exported
        gpu_side_join(sl, beside);
        gpu_vmap_refused(d, np, s); // the values' verdicts
        gpu_vmap_values(d, L, s);
    }
    // Values first, then XOR in the high bits; a launch whose blocks would all return is skipped.
    const uint32_t ne = uint32_t(L.export_planes.size());
    if (any_values)
        gpu_export_planes(d, ne, 0, max_r, max_c, s);
    if (any_high)
        gpu_export_planes(d, ne, 1, max_r, max_c, s);
    gpu_mark(g, "export samples");
}

// Compute of a chunk on its compute stream, and with verify its comparison with the samples expected.
void compute_chunk(pcwt_gpu *g, Slot &sl, bool verify)
{
    TraceScope timed(GpuHostTrace::LAUNCH);
    CUDA_CHECK(cudaStreamWaitEvent(sl.compute, sl.uploaded, 0));
    sl.times.mark(ChunkTimes::COMPUTE0, sl.compute);
    run_device_decode(g, sl);
    if (verify) {
        const uint32_t nf = uint32_t(sl.layout.frames.size());
        uint64_t max_size = 0;
        for (const GpuFrame &f : sl.layout.frames)
            max_size = std::max(max_size, f.sample_size);
        sl.first_diff.ensure(sizeof(uint64_t) * (nf ? nf : 1));
        sl.h_first_diff.ensure(sizeof(uint64_t) * (nf ? nf : 1));
        gpu_first_difference(sl.samples.as<uint8_t>(), sl.expected.as<uint8_t>(), sl.dev.frames, nf, max_size,
                             sl.first_diff.as<uint64_t>(), sl.compute);
        KernelCopies back;
        back.add(sl.h_first_diff.device_as(), sl.first_diff.p, sizeof(uint64_t) * nf);
        back.issue(sl.compute);
        gpu_mark(g, "compare");
    }
    const size_t np = sl.layout.planes.size();
    sl.h_state.ensure(sizeof(GpuPlaneState) * (np + 1));
    KernelCopies back; // not behind the other chunks' downloads on the copy engine
    back.add(sl.h_state.device_as(), sl.state.p, sizeof(GpuPlaneState) * np);
    back.issue(sl.compute);
    sl.times.mark(ChunkTimes::COMPUTE1, sl.compute);
    CUDA_CHECK(cudaEventRecord(sl.computed, sl.compute));
    sl.busy = true;
}

// Samples back to the callers (stream s; a batch: copy_out), straight into pinned destinations.
void download_chunk(pcwt_gpu *g, Slot &sl, pcwt_decode_job *jobs, cudaStream_t s)
{
    TraceScope timed(GpuHostTrace::D2H);
    CUDA_CHECK(cudaStreamWaitEvent(s, sl.computed, 0));
    sl.times.mark(ChunkTimes::DOWN0, s);
    const BatchLayout &L = sl.layout;
    uint64_t total = 0;
    for (const GpuFrame &f : L.frames)
        total = std::max(total, f.sample_off + f.sample_size);
    std::vector<DevicePiece> pieces;
    for (size_t k = 0; k < sl.idx.size(); k++)
        pieces.push_back({jobs[sl.idx[k]].dst, L.frames[k].sample_size, L.frames[k].sample_off, true});
    gpu_download_pieces(sl.h_samples, sl.samples.as<uint8_t>(), pieces, total, sl.direct, s);
    sl.times.mark(ChunkTimes::DOWN1, s);
    CUDA_CHECK(cudaEventRecord(sl.downloaded, s));
}

// Marks the jobs whose planes failed; copies staged samples of the others (verify: the others
// get their comparison's verdict).
void finish_chunk(pcwt_gpu *g, Slot &sl, pcwt_decode_job *jobs, pcwt_verify_job *verify, char *err,
                  size_t err_size)
{
    if (!sl.busy)
        return;
    TraceScope timed(GpuHostTrace::UNPACK);
    {
        TraceScope wait(GpuHostTrace::WAIT_DOWN);
        gpu_wait_event(verify ? sl.computed : sl.downloaded);
    }
    sl.times.report(int(&sl - g->slot));
    const BatchLayout &L = sl.layout;
    std::vector<HostCopy> copies; // out of staging, all together
    for (size_t k = 0; k < sl.idx.size(); k++) {
        pcwt_decode_job &j = jobs[sl.idx[k]];
        const GpuFrame &f = L.frames[k];
        for (uint32_t pl = f.plane_first; pl < f.plane_first + f.plane_count; pl++) {
            const uint32_t e = sl.state_host()[pl].error;
            if (e && j.status == PCWT_OK) {
                j.status = e == GPU_ERR_CRC ? PCWT_ERR_CRC_MISMATCH : PCWT_ERR_CORRUPT;
                std::snprintf(err, err_size, "plane %u: %s", pl - f.plane_first, gpu_error_text(e));
            }
        }
        if (verify) {
            pcwt_verify_job &v = verify[sl.idx[k]];
            const uint64_t at = sl.h_first_diff.as<uint64_t>()[k];
            if (j.status == PCWT_OK && at != UINT64_MAX) {
                j.status = PCWT_ERR_MISMATCH;
                v.first_difference = at;
                std::snprintf(err, err_size, "decoded samples differ from the expected ones at byte %llu",
                              (unsigned long long)at);
            }
            continue;
        }
        // A failed frame's buffer may hold partial samples, as on the CPU path.
        if (j.status == PCWT_OK && !sl.direct[k])
            copies.push_back({j.dst, sl.h_samples.as<uint8_t>() + f.sample_off, f.sample_size});
        if (gpu_trace && j.status == PCWT_OK) {
            gpu_trace->out += f.sample_size;
            gpu_trace->unpacked += sl.direct[k] ? 0 : f.sample_size;
        }
    }
    gpu_host_copies(copies);
    sl.busy = false;
}

// Validates headers on the host; returns the jobs that can go to the device. A big batch's headers
// are parsed on a few threads: before its first chunk goes up, nothing else runs.
DecodeSet validate(pcwt_decode_job *jobs, size_t count, uint64_t max_samples, char *err,
                   size_t err_size)
{
    std::vector<pcwt_header_info> info(count);
    std::vector<std::string> whys(count); // a failed job's message
    auto check = [&](size_t i) {
        pcwt_decode_job &j = jobs[i];
        char why[200] = "";
        j.status = pcwt_header_parse(static_cast<const uint8_t *>(j.src), j.src_size, &info[i], why, sizeof why);
        if (j.status == PCWT_OK) // the CPU decoder's checks, before anything is allocated
            j.status = pcwt_decode_check(&info[i], j.src_size, j.dst_capacity, max_samples, why, sizeof why);
        if (j.status != PCWT_OK)
            whys[i] = why;
    };
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t parts = std::min<size_t>({count / 256 + 1, 4, std::max<size_t>(1, cores / 4)});
    gpu_on_threads(parts, [&](size_t t) {
        for (size_t i = count * t / parts; i < count * (t + 1) / parts; i++)
            check(i);
    });
    DecodeSet set;
    for (size_t i = 0; i < count; i++) {
        if (jobs[i].status != PCWT_OK) { // the last failure's message, as in order
            std::snprintf(err, err_size, "%s", whys[i].c_str());
            continue;
        }
        set.idx.push_back(i);
        set.info.push_back(info[i]);
    }
    return set;
}

// The batch path's chunks of the valid jobs: each fits in its slot's share of the device memory
// budget; a big batch is cut into several so that transfers and compute overlap. A job that fits
// no chunk gets PCWT_ERR_OUT_OF_MEMORY (the caller's CPU path).
std::vector<DecodeSet> cut_chunks(pcwt_gpu *g, const DecodeSet &all, bool verify, pcwt_decode_job *jobs)
{
    const size_t budget = gpu_memory_budget(g) / kPipe.slots; // a chunk in flight in each slot
    uint64_t total_samples = 0;
    for (const pcwt_header_info &h : all.info)
        total_samples += pcwt_image_size(&h.desc);
    // kPipe.dec_parts chunks, none under kPipe.dec_min_mb, when there are range-coded frames: a
    // chunk's group decode takes, level by level, the serial time of its slowest group however few
    // groups it holds.
    bool entropy = false;
    for (const pcwt_header_info &h : all.info)
        entropy |= pcwt_profile_ranged(h.profile);
    const uint64_t target = gpu_chunk_target(g, total_samples, entropy ? kPipe.dec_parts : 8,
                                             entropy ? kPipe.dec_min_mb : 32);
    ChunkPlan cut(budget, target);
    OneFrameLayout layout;
    for (size_t k = 0; k < all.idx.size(); k++) {
        const pcwt_header_info &h = all.info[k];
        FrameSpec f = spec_from_header(h, 0);
        f.high[0] = f.high[1] = f.high[2] = 1; // the most a frame of this size can take
        const BatchLayout &one = layout.of(f);
        const size_t need = gpu_batch_bytes(one, pcwt_image_size(&h.desc) * (verify ? 2 : 1),
                                            h.codestream_length);
        if (!cut.add(k, need, pcwt_image_size(&h.desc)))
            jobs[all.idx[k]].status = PCWT_ERR_OUT_OF_MEMORY;
    }
    std::vector<DecodeSet> chunks;
    for (const std::vector<size_t> &ks : cut.chunks()) {
        DecodeSet &c = chunks.emplace_back();
        for (size_t k : ks) {
            c.idx.push_back(all.idx[k]);
            c.info.push_back(all.info[k]);
        }
    }
    return chunks;
}

// Decodes the jobs (verify: and compares them, jobs[i].dst unused), in chunks that take the slots
// in turn.
pcwt_status decode_chunks(pcwt_gpu *g, uint64_t max_samples, pcwt_decode_job *jobs, size_t count,
                          pcwt_verify_job *verify, char *err, size_t err_size)
{
    try {
        CUDA_CHECK(cudaSetDevice(g->device)); // the context's device, on any thread
        const bool one = count == 1 && !g->memory_budget;
        const cudaStream_t in = one ? g->stream : g->copy_in, out = one ? g->stream : g->copy_out;
        std::vector<DecodeSet> chunks;
        gpu_chunk_clock_start(g->clock, verify ? "verify" : "decode", in);
        {
            TraceScope plan(GpuHostTrace::PLAN);
            DecodeSet all = validate(jobs, count, max_samples, err, err_size);
            if (verify) { // sizes that differ are a mismatch found here, without the device
                DecodeSet same;
                for (size_t k = 0; k < all.idx.size(); k++) {
                    pcwt_verify_job &v = verify[all.idx[k]];
                    const uint64_t size = pcwt_image_size(&all.info[k].desc);
                    if (size != v.expected_size) {
                        jobs[all.idx[k]].status = PCWT_ERR_MISMATCH;
                        v.first_difference = std::min<uint64_t>(size, v.expected_size);
                        std::snprintf(err, err_size, "decoded %llu bytes of samples, %llu expected",
                                      (unsigned long long)size, (unsigned long long)v.expected_size);
                        continue;
                    }
                    same.idx.push_back(all.idx[k]);
                    same.info.push_back(all.info[k]);
                }
                all = same;
            }
            // One codestream (pcwt_decode; the DCMTK codecs decode a frame at a time) takes the
            // one-frame path: no chunk plan nor memory budget query, and upload, compute and
            // download in order on the compute stream; a frame the device has no memory for
            // fails its allocation (PCWT_ERR_OUT_OF_MEMORY: the caller decodes it on the CPU). A
            // budget set in the environment (tests) keeps the batch path, which applies it.
            if (one) {
                if (!all.idx.empty())
                    chunks.push_back(all);
            } else {
                chunks = cut_chunks(g, all, verify != nullptr, jobs);
            }
        }
        if (gpu_trace) {
            gpu_trace->chunks = chunks.size();
            for (const DecodeSet &c : chunks)
                gpu_trace->frames += c.idx.size();
        }
        // Chunk c's download is issued after chunk c+lag's compute (it waits on the device for
        // its own).
        const size_t n = one ? 1 : kPipe.slots, lag = one ? 0 : kPipe.dec_lag;
        for (size_t c = 0; c < chunks.size(); c++) {
            Slot &sl = g->slot[c % n];
            finish_chunk(g, sl, jobs, verify, err, err_size); // chunk c-n used this slot
            upload_chunk(sl, jobs, chunks[c], verify, in);
            compute_chunk(g, sl, verify != nullptr);
            if (c >= lag && !verify)
                download_chunk(g, g->slot[(c - lag) % n], jobs, out);
        }
        for (size_t c = chunks.size() > lag ? chunks.size() - lag : 0; c < chunks.size() && !verify; c++)
            download_chunk(g, g->slot[c % n], jobs, out);
        for (size_t k = 0; k < n; k++) // in the chunks' order
            finish_chunk(g, g->slot[(chunks.size() + k) % n], jobs, verify, err, err_size);
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        cudaGetLastError();
        gpu_drain(g);
        const pcwt_status st = e.code == cudaErrorMemoryAllocation ? PCWT_ERR_OUT_OF_MEMORY
                                                                   : PCWT_ERR_BACKEND_UNAVAILABLE;
        // no job passes that the device may not have finished (out of memory: the caller's CPU
        // path takes them)
        for (size_t i = 0; i < count; i++)
            if (jobs[i].status == PCWT_OK)
                jobs[i].status = st;
        return st;
    }
    for (size_t i = 0; i < count; i++)
        if (jobs[i].status != PCWT_OK)
            return jobs[i].status;
    return PCWT_OK;
}

} // namespace

extern "C" pcwt_status pcwt_gpu_decode_batch(pcwt_gpu *g, uint64_t max_samples,
                                             pcwt_decode_job *jobs, size_t count, char *err,
                                             size_t err_size)
{
    TraceCall trace(g, "decode");
    return decode_chunks(g, max_samples, jobs, count, nullptr, err, err_size);
}

extern "C" pcwt_status pcwt_gpu_verify_batch(pcwt_gpu *g, uint64_t max_samples,
                                             pcwt_verify_job *jobs, size_t count, char *err,
                                             size_t err_size)
{
    TraceCall trace(g, "verify");
    // the decoder's jobs: no destination, nor its size check (the expected size is checked)
    std::vector<pcwt_decode_job> dj(count);
    for (size_t i = 0; i < count; i++)
        dj[i] = pcwt_decode_job{jobs[i].src, jobs[i].src_size, nullptr, SIZE_MAX, PCWT_OK};
    const pcwt_status st = decode_chunks(g, max_samples, dj.data(), count, jobs, err, err_size);
    for (size_t i = 0; i < count; i++)
        jobs[i].status = dj[i].status;
    return st;
}

extern "C" pcwt_status pcwt_gpu_bench_decode(pcwt_gpu *g, pcwt_decode_job *jobs, size_t count,
                                             int repeats, double *ms, char *err, size_t err_size)
{
    try {
        CUDA_CHECK(cudaSetDevice(g->device)); // the context's device, on any thread
        DecodeSet set = validate(jobs, count, ~uint64_t(0), err, err_size);
        for (size_t i = 0; i < count; i++)
            if (jobs[i].status == PCWT_ERR_OUT_OF_MEMORY) {
                std::snprintf(err, err_size, "codestream %zu: the 5/11-C level-1 filter has no GPU "
                              "decoder yet", i);
                return PCWT_ERR_UNSUPPORTED;
            }
        if (set.idx.size() != count)
            return PCWT_ERR_CORRUPT;
        Slot &sl = g->slot[0];
        upload_chunk(sl, jobs, set, nullptr, g->copy_in);
        CUDA_CHECK(cudaStreamSynchronize(g->copy_in));
        *ms = gpu_median_ms(g, sl, repeats, "decode", [&]() { run_device_decode(g, sl); });
        std::vector<GpuPlaneState> st(sl.layout.planes.size());
        CUDA_CHECK(cudaMemcpy(st.data(), sl.state.p, sizeof(GpuPlaneState) * st.size(), cudaMemcpyDeviceToHost));
        for (const auto &x : st)
            if (x.error)
                return PCWT_ERR_CORRUPT;
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    return PCWT_OK;
}
