// encoder_gpu.cu - sequences the GPU encoder for a batch of frames (the twin of
// codec/src/encoder.c): upload, high-bit check, import, B-LDWT+B with fused MQD/Qmax per level,
// group sizes, (profile 1: range coding into scratch), scan, group records, CRCs, headers,
// download. The batch is cut into chunks that
// alternate between two slots, so that a chunk's upload (copy_in stream) and the previous chunk's
// download (copy_out stream) overlap the compute of the current one (compute stream). Frames that
// do not fit in device memory are reported as PCWT_ERR_OUT_OF_MEMORY for the caller's CPU path.
#include "gpu_context.h"

extern "C" {
#include "container.h"
#include "group_coder.h"
#include "offset.h"
#include "plan.h"
}

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace {


FrameSpec spec_of(const pcwt_encode_params *p, const pcwt_image_desc &d, uint64_t sample_off)
{
    FrameSpec f{};
    f.desc = d;
    if (f.desc.components == 1)
        f.desc.planar = 0;
    pcwt_frame_coding fc;
    pcwt_frame_coding_resolve(p, &f.desc, &fc);
    f.levels = fc.levels;
    f.group_rows = fc.group_rows;
    f.group_cols = fc.group_cols;
    f.profile = p->profile;
    f.rct = fc.colour_transform;
    f.columns_first = fc.columns_first;
    f.low_bits = uint32_t(p->low_bits);
    f.second_bit = p->second_bit == PCWT_SECOND_BIT_ON;
    f.value_map = uint32_t(p->value_map) + 1; // the layout gives compact planes their maps
    f.level1 = uint32_t(p->level1_filter);
    f.offset = uint32_t(p->offset) + 1; // the layout gives the planes that may take it theirs
    f.sample_off = sample_off;
    return f;
}

// spec_of along a batch: each kind of frame (a series of slices) resolves its coding once.
class SpecCache {
  public:
    explicit SpecCache(const pcwt_encode_params *p) : p_(p) {}
    FrameSpec of(const pcwt_image_desc &d, uint64_t sample_off)
    {
        FrameSpec f = seen_.of(d, [&](const pcwt_image_desc &k, FrameSpec &v) { v = spec_of(p_, k, 0); });
        f.sample_off = sample_off;
        return f;
    }

  private:
    const pcwt_encode_params *p_;
    RecentCache<pcwt_image_desc, FrameSpec> seen_;
};

// The device work of one chunk, after its samples and tables are on the device.
void run_device_encode(pcwt_gpu *g, Slot &sl)
{
    const BatchLayout &L = sl.layout;
    DeviceBatch &d = sl.dev;
    cudaStream_t s = sl.compute;
    const uint32_t np = uint32_t(L.planes.size());
    const bool beside = L.vmap_planes;
    if (L.vmap_planes) { // the compact profile's maps: the transform imports the ranks; the maps
        gpu_vmap_build(d, L, s); // are coded beside the transform and the group coding
        gpu_vmap_code(d, np, gpu_side_fork(sl, beside));
        gpu_mark(g, "value maps");
    }
    if (!L.level0_planes.empty()) { // images only for the planes without a transform
        uint32_t max_r = 0, max_c = 0;
        for (uint32_t pi : L.level0_planes) {
            max_r = std::max(max_r, L.planes[pi].rows);
            max_c = std::max(max_c, L.planes[pi].cols);
        }
        gpu_import_planes(d, uint32_t(L.level0_planes.size()), max_r, max_c, s);
    }
    gpu_mark(g, "import");
    const uint32_t auto_planes = L.level1_planes - L.level1_511_planes;
    for (uint32_t l = 1; l <= L.max_levels; l++) { // level 1 reads the samples
        const auto &lv = L.levels[l - 1];
        gpu_dwt_forward_level(d, d.levels + sl.level_first[l - 1], uint32_t(lv.size()),
                              gpu_level_max(lv), l == 1, auto_planes != 0, auto_planes == lv.size(), s);
    }
    if (!L.level0_planes.empty()) {
        uint32_t mr = 0, mc = 0;
        for (uint32_t pi : L.level0_planes) {
            mr = std::max(mr, pcwt_even_up(L.planes[pi].rows) / 2);
            mc = std::max(mc, pcwt_even_up(L.planes[pi].cols) / 2);
        }
        gpu_mqd_level0(d, uint32_t(L.level0_planes.size()), mr, mc, s);
    }
    gpu_mark(g, "DWT + MQD + Qmax");
    const uint32_t nb = uint32_t(L.bands.size());
    if (L.entropy_planes) {
        gpu_ec_low_bits(d, L.groups, nb, np, s);
        gpu_mark(g, "low-bit decision");
    }
    if (L.level1_planes) { // 5/11-C at level 1 where asked or where auto takes it
        const auto &lv1 = L.levels[0];
        gpu_dwt511_level1(d, d.levels + sl.level_first[0], uint32_t(lv1.size()), gpu_level_max(lv1), np,
                          L.level1_511_planes != 0, s);
        for (uint32_t l = 1; l <= L.max_levels; l++) {
            const auto &lv = L.levels[l - 1];
            gpu_mqd_level_511(d, d.levels + sl.level_first[l - 1], uint32_t(lv.size()), gpu_level_max(lv), l == 1, s);
        }
        gpu_ec_low_bits(d, L.groups, nb, np, s, true);
        gpu_mark(g, "level-1 filter");
    }
    gpu_group_sizes(d, L.groups, nb, L.entropy_planes != 0, s);
    if (L.entropy_planes) {
        gpu_ec_place_bins(d, L.groups, sl.scan_tmp.p, sl.scan_tmp.cap, s);
        gpu_mark(g, "group sizes + bin counts");
        gpu_ec_binarise(d, L.groups, nb, s);
        gpu_mark(g, "binarise");
        gpu_ec_encode(d, L.groups, nb, sl.ec_order.p, s);
        gpu_mark(g, "range coding");
    }
    if (L.vmap_planes) { // each plane's map before its groups
        gpu_side_join(sl, beside);
        gpu_vmap_scan(d, np, s);
    }
    gpu_group_offsets(d, L.groups, nb, sl.scan_tmp.p, sl.scan_tmp.cap, s);
    gpu_mark(g, "group sizes + scan");
    gpu_group_encode(d, L.groups, nb, s); // baseline records (profile 1: the raw-mode ones)
    if (L.entropy_planes)
        gpu_ec_pack(d, L.groups, s);
    if (L.vmap_planes)
        gpu_vmap_place(d, np, s);
    gpu_mark(g, "group coding");
    gpu_plane_crcs(d, np, sl.crc_blocks, 0, s);
    gpu_write_headers(d, uint32_t(L.frames.size()), s);
    gpu_mark(g, "CRCs + headers");
}

// Host side of a chunk, first half: the samples to the device on stream s (a batch: copy_in),
// directly from pinned memory; sl.sampled marks their arrival.
void upload_samples(Slot &sl, const pcwt_encode_params *p, pcwt_frame_job *jobs, cudaStream_t s)
{
    std::vector<FrameSpec> &specs = sl.specs;
    specs.clear();
    sl.times.mark(ChunkTimes::UP0, s);
    uint64_t off = 0;
    {
        TraceScope timed(GpuHostTrace::LAYOUT);
        SpecCache spec(p);
        for (size_t i : sl.idx) {
            specs.push_back(spec.of(jobs[i].desc, off));
            off = align_up(off + jobs[i].samples_size);
        }
    }
    sl.samples.ensure(off ? off : 1);
    std::vector<HostPiece> pieces;
    for (size_t k = 0; k < sl.idx.size(); k++)
        pieces.push_back({jobs[sl.idx[k]].samples, jobs[sl.idx[k]].samples_size, specs[k].sample_off});
    gpu_upload_pieces(sl.h_samples, sl.samples.as<uint8_t>(), pieces, off, s);
    sl.dev.samples = sl.samples.as<uint8_t>();
    CUDA_CHECK(cudaEventRecord(sl.sampled, s));
}

// Second half, on stream s once the samples are in (a batch: the check stream, so that the next
// chunk's samples already go up on copy_in while the host waits here, and the check does not
// queue behind the other chunks' kernels): the high-bit check, the layout and its tables.
void upload_tables(pcwt_gpu *g, Slot &sl, cudaStream_t s)
{
    std::vector<FrameSpec> &specs = sl.specs;
    CUDA_CHECK(cudaStreamWaitEvent(s, sl.sampled, 0));
    bool any_high = false;
    for (const FrameSpec &f : specs)
        any_high |= f.desc.bits_stored < f.desc.bits_allocated;
    if (any_high) { // which components carry bits above bits_stored: ask the device
        // The check reads the frame table and the samples only: the frame table goes up alone
        // (not every table of a layout without the high-bit planes, nor arenas sized for it).
        {
            TraceScope timed(GpuHostTrace::LAYOUT);
            gpu_build_layout(specs, sl.layout);
        }
        const std::vector<GpuFrame> &fr = sl.layout.frames; // kept until the sync below
        sl.frames.ensure(sizeof(GpuFrame) * fr.size());
        {
            TraceScope timed(GpuHostTrace::TABLES);
            CUDA_CHECK(cudaMemcpyAsync(sl.frames.p, fr.data(), sizeof(GpuFrame) * fr.size(),
                                       cudaMemcpyHostToDevice, s));
        }
        sl.dev.frames = sl.frames.as<GpuFrame>();
        sl.flags.ensure(sizeof(uint32_t) * 3 * specs.size());
        sl.dev.flags = sl.flags.as<uint32_t>();
        gpu_high_bit_flags(sl.dev, nullptr, uint32_t(specs.size()), s);
        const size_t nflags = 3 * specs.size();
        sl.h_flags.ensure(sizeof(uint32_t) * nflags);
        {
            TraceScope wait(GpuHostTrace::WAIT_UP);
            KernelCopies back; // not behind the downloads on the copy engine
            back.add(sl.h_flags.device_as(), sl.flags.p, sizeof(uint32_t) * nflags);
            back.issue(s);
            CUDA_CHECK(cudaStreamSynchronize(s));
        }
        const uint32_t *flags = sl.h_flags.as<uint32_t>();
        for (size_t k = 0; k < specs.size(); k++)
            for (uint32_t c = 0; c < 3; c++)
                specs[k].high[c] = flags[3 * k + c];
    }
    {
        TraceScope timed(GpuHostTrace::LAYOUT);
        gpu_build_layout(specs, sl.layout);
    }
    gpu_upload_layout(sl, s);
    sl.scan_tmp.ensure(gpu_scan_tmp_size(sl.layout.groups + 1)); // the bin scan takes one more
    if (sl.layout.entropy_planes && sl.layout.groups <= UINT32_MAX) // the range coders' order
        sl.ec_order.ensure(gpu_order_bytes(uint32_t(sl.layout.groups)));
    uint64_t out = 0, largest = 0; // every group record at its largest
    for (const GpuFrame &f : sl.layout.frames) {
        pcwt_image_desc dd{f.width, f.height, f.components, f.bits_alloc, f.bits_stored, f.is_signed, f.planar};
        const uint64_t bound = pcwt_encode_bound(&dd);
        out += bound;
        largest = std::max(largest, bound);
    }
    // value maps may come on top of a frame's bound (the CPU then codes the frame: map_fits)
    sl.stream_buf.ensure(out + sl.layout.vmap_bytes ? out + sl.layout.vmap_bytes : 1);
    gpu_prepare_crc_parts(sl, largest + sl.layout.vmap_cap_max); // within its frame's bound and map
    sl.dev.stream = sl.stream_buf.as<uint8_t>();
    if (sl.layout.entropy_planes) {
        sl.ec_scan.ensure(sizeof(uint64_t) * (sl.layout.groups ? sl.layout.groups : 1));
        sl.ec_scratch.ensure(gpu_ec_scratch_bytes(out, sl.layout.groups));
        sl.dev.ec_scan = sl.ec_scan.as<uint64_t>();
        sl.dev.ec_scratch = sl.ec_scratch.as<uint8_t>();
        sl.ec_counts.ensure(sizeof(uint2) * (sl.layout.groups ? sl.layout.groups : 1));
        sl.ec_bin_at.ensure(sizeof(uint64_t) * (sl.layout.groups + 1));
        sl.ec_element_counts.ensure(sizeof(uint16_t) * (sl.layout.i8_size ? sl.layout.i8_size : 1));
        sl.dev.ec_counts = sl.ec_counts.as<uint2>();
        sl.dev.ec_element_counts = sl.ec_element_counts.as<uint16_t>();
        sl.dev.ec_bin_at = sl.ec_bin_at.as<uint64_t>();
        uint64_t bin_bytes = gpu_ec_bin_bytes(sl.layout.i32_size);
        if (g->bin_arena)
            bin_bytes = std::min<uint64_t>(bin_bytes, g->bin_arena);
        gpu_grow_arena(sl, sl.ec_bins, bin_bytes);
        sl.dev.ec_bins = sl.ec_bins.as<uint8_t>();
        sl.dev.ec_bin_cap = bin_bytes;
    }
    sl.times.mark(ChunkTimes::UP1, s);
    CUDA_CHECK(cudaEventRecord(sl.uploaded, s));
}

// Both halves on stream s (the one-frame path, the device-resident benchmark).
void upload_chunk(pcwt_gpu *g, Slot &sl, const pcwt_encode_params *p, pcwt_frame_job *jobs, cudaStream_t s)
{
    upload_samples(sl, p, jobs, s);
    upload_tables(g, sl, s);
}

// Compute of a chunk, then its small result tables back to the host (compute stream).
void compute_chunk(pcwt_gpu *g, Slot &sl)
{
    TraceScope timed(GpuHostTrace::LAUNCH);
    CUDA_CHECK(cudaStreamWaitEvent(sl.compute, sl.uploaded, 0));
    sl.times.mark(ChunkTimes::COMPUTE0, sl.compute);
    run_device_encode(g, sl);
    const BatchLayout &L = sl.layout;
    sl.h_frames.ensure(sizeof(GpuFrame) * (L.frames.size() + 1));
    sl.h_state.ensure(sizeof(GpuPlaneState) * (L.planes.size() + 1));
    KernelCopies back; // not behind the other chunks' downloads on the copy engine
    back.add(sl.h_frames.device_as(), sl.frames.p, sizeof(GpuFrame) * L.frames.size());
    back.add(sl.h_state.device_as(), sl.state.p, sizeof(GpuPlaneState) * L.planes.size());
    back.issue(sl.compute);
    sl.times.mark(ChunkTimes::COMPUTE1, sl.compute);
    CUDA_CHECK(cudaEventRecord(sl.computed, sl.compute));
    sl.busy = true;
}

// Once a chunk is computed: its codestreams to the host (stream s; a batch: copy_out), straight
// into pinned destinations, else through staging.
void download_chunk(pcwt_gpu *g, Slot &sl, pcwt_frame_job *jobs, cudaStream_t s)
{
    TraceScope timed(GpuHostTrace::D2H);
    {
        TraceScope wait(GpuHostTrace::WAIT_COMPUTE);
        gpu_wait_event(sl.computed); // h_frames is valid from here
    }
    CUDA_CHECK(cudaStreamWaitEvent(s, sl.computed, 0));
    sl.times.mark(ChunkTimes::DOWN0, s);
    const size_t nf = sl.layout.frames.size();
    const uint64_t total = nf ? sl.frames_host()[nf - 1].out_end : 0;
    std::vector<DevicePiece> pieces;
    for (size_t k = 0; k < sl.idx.size(); k++) {
        const GpuFrame &f = sl.frames_host()[k];
        const pcwt_frame_job &j = jobs[sl.idx[k]];
        const uint64_t n = f.out_end - f.out_start;
        pieces.push_back({j.dst, n, f.out_start, n <= j.dst_capacity});
    }
    gpu_download_pieces(sl.h_stream, sl.stream_buf.as<uint8_t>(), pieces, total, sl.direct, s);
    sl.times.mark(ChunkTimes::DOWN1, s);
    CUDA_CHECK(cudaEventRecord(sl.downloaded, s));
}

// Whether a plane's value map keeps it within the payload bound the CPU encoder holds it to
// (encoder.c: a map and the ranks' payload larger than the values' largest payload, with a value
// plane's room for r0, are dropped, the values coded): true when the ranks' largest payload with
// their Qmax, the map and r0 (in map_len) fit. A plane that may not is coded on the CPU, which
// decides exactly.
bool map_fits(const GpuFrame &f, const GpuPlane &p, const GpuPlaneState &st)
{
    if (st.map_cpu)
        return false;
    if (!st.mapped)
        return true;
    pcwt_plan plan;
    pcwt_plan_make(&plan, f.height, f.width, f.levels);
    const uint32_t bits = p.kind ? f.bits_alloc - f.bits_stored : f.bits_stored + (f.components == 3);
    const int qbound = int(std::min<uint32_t>(bits + 2 * f.levels + 1, PCWT_MAX_QMAX));
    return st.map_len + pcwt_payload_max_size(&plan, st.qmax, 1, 1) <=
           pcwt_payload_max_size(&plan, qbound, 1, 1) + (p.kind ? 0 : PCWT_OFFSET_BYTES);
}

// Waits for a chunk's download and hands each frame's result to its job.
void finish_chunk(pcwt_gpu *g, Slot &sl, pcwt_frame_job *jobs)
{
    if (!sl.busy)
        return;
    TraceScope timed(GpuHostTrace::UNPACK);
    {
        TraceScope wait(GpuHostTrace::WAIT_DOWN);
        gpu_wait_event(sl.downloaded);
    }
    sl.times.report(int(&sl - g->slot));
    std::vector<HostCopy> copies; // out of staging, all together
    for (size_t k = 0; k < sl.idx.size(); k++) {
        pcwt_frame_job &j = jobs[sl.idx[k]];
        const GpuFrame &f = sl.frames_host()[k];
        bool too_big = false;
        for (uint32_t pl = f.plane_first; pl < f.plane_first + f.plane_count; pl++)
            too_big |= sl.state_host()[pl].qmax > PCWT_MAX_QMAX ||
                       !map_fits(f, sl.layout.planes[pl], sl.state_host()[pl]);
        const uint64_t n = f.out_end - f.out_start;
        if (too_big) { // the CPU encoder codes it (or reports it) as the reference does
            j.status = PCWT_ERR_UNSUPPORTED;
        } else if (n > j.dst_capacity) {
            j.status = PCWT_ERR_BUFFER_TOO_SMALL;
        } else {
            if (!sl.direct[k])
                copies.push_back({j.dst, sl.h_stream.as<uint8_t>() + f.out_start, n});
            j.written = n;
            if (gpu_trace) {
                gpu_trace->out += n;
                gpu_trace->unpacked += sl.direct[k] ? 0 : n;
            }
        }
    }
    gpu_host_copies(copies);
    sl.busy = false;
}

// Cuts the jobs into chunks: each fits in its slot's share of the device memory budget, and a
// large batch is cut into several chunks so that transfers and compute overlap.
std::vector<std::vector<size_t>> plan_chunks(pcwt_gpu *g, const pcwt_encode_params *p,
                                             pcwt_frame_job *jobs, size_t count)
{
    const size_t budget = gpu_memory_budget(g) / kPipe.slots; // a chunk in flight in each slot
    uint64_t total_samples = 0;
    for (size_t i = 0; i < count; i++)
        total_samples += jobs[i].samples_size;
    // About eight chunks for a big batch, none smaller than 32 MB of samples; kPipe.enc_parts, none
    // under kPipe.enc_min_mb, for the range-coded profiles, whose range coders take a group's serial
    // time however few groups a chunk holds (a chunk should fill the GPU's lanes).
    const bool ranged = pcwt_profile_ranged(p->profile);
    const uint64_t target = gpu_chunk_target(g, total_samples, ranged ? kPipe.enc_parts : 8,
                                             ranged ? kPipe.enc_min_mb : 32);
    ChunkPlan plan(budget, target);
    // a frame's need follows from its description and sample bytes: worked out once a kind
    struct Kind {
        uint64_t samples_size;
        pcwt_image_desc desc;
    };
    RecentCache<Kind, size_t, offsetof(Kind, desc) + sizeof(pcwt_image_desc)> needs;
    BatchLayout one;
    auto need_of = [&](const Kind &k, size_t &need) {
        FrameSpec f = spec_of(p, k.desc, 0);
        f.high[0] = f.high[1] = f.high[2] = f.desc.bits_stored < f.desc.bits_allocated;
        gpu_build_layout({f}, one);
        const uint64_t bound = pcwt_encode_bound(&f.desc);
        need = gpu_batch_bytes(one, k.samples_size, bound);
        if (ranged) // scans, scratch, counts and bins of the range coder
            need += 24 * one.groups + gpu_ec_scratch_bytes(bound, one.groups) +
                    sizeof(uint16_t) * one.i8_size + gpu_ec_bin_bytes(one.i32_size);
    };
    for (size_t i = 0; i < count; i++) {
        if (jobs[i].status != PCWT_OK)
            continue;
        const size_t need = needs.of(Kind{jobs[i].samples_size, jobs[i].desc}, need_of);
        if (!plan.add(i, need, jobs[i].samples_size))
            jobs[i].status = PCWT_ERR_OUT_OF_MEMORY;
    }
    return plan.chunks();
}

} // namespace

extern "C" pcwt_status pcwt_gpu_encode_batch(pcwt_gpu *g, const pcwt_encode_params *p,
                                             pcwt_frame_job *jobs, size_t count, char *err,
                                             size_t err_size)
{
    TraceCall trace(g, "encode");
    try {
        CUDA_CHECK(cudaSetDevice(g->device)); // the context's device, on any thread
        for (size_t i = 0; i < count; i++) {
            jobs[i].written = 0;
            jobs[i].status = PCWT_OK;
        }
        // One frame (pcwt_encode; the DCMTK codecs code a frame at a time) takes the one-frame
        // path: no chunk plan nor memory budget query, and upload, compute and download in order
        // on the compute stream. A frame the device has no memory for fails its allocation
        // (PCWT_ERR_OUT_OF_MEMORY: the caller codes it on the CPU). A budget set in the
        // environment (tests) keeps the batch path, which applies it.
        const bool one = count == 1 && !g->memory_budget;
        const cudaStream_t in = one ? g->stream : g->copy_in, out = one ? g->stream : g->copy_out;
        std::vector<std::vector<size_t>> chunks;
        gpu_chunk_clock_start(g->clock, "encode", in);
        {
            TraceScope timed(GpuHostTrace::PLAN);
            chunks = one ? std::vector<std::vector<size_t>>{{0}} : plan_chunks(g, p, jobs, count);
        }
        if (gpu_trace) {
            gpu_trace->chunks = chunks.size();
            for (const auto &c : chunks)
                gpu_trace->frames += c.size();
        }
        // A chunk's download waits (on the host) for its compute: issued `lag` chunks later, it
        // leaves the device the chunks after it to compute meanwhile. Chunk c+ahead's samples go
        // up before the host waits for chunk c's (its high-bit check and tables), so that the
        // uploads follow each other; the slot they take was chunk c+ahead-slots's, whose download
        // went at chunk c+ahead-slots+lag <= c-1 (kPipe's static_assert).
        const size_t n = one ? 1 : kPipe.slots, lag = one ? 0 : kPipe.enc_lag, ahead = one ? 0 : kPipe.ahead;
        for (size_t c = 0; c < std::min(ahead, chunks.size()); c++) {
            Slot &sl = g->slot[c % n];
            finish_chunk(g, sl, jobs);
            sl.idx = chunks[c];
            upload_samples(sl, p, jobs, in);
        }
        for (size_t c = 0; c < chunks.size(); c++) {
            Slot &sl = g->slot[c % n];
            if (!ahead) {
                finish_chunk(g, sl, jobs); // chunk c-n used this slot
                sl.idx = chunks[c];
                upload_chunk(g, sl, p, jobs, in);
            } else {
                if (c + ahead < chunks.size()) {
                    Slot &next = g->slot[(c + ahead) % n];
                    finish_chunk(g, next, jobs);
                    next.idx = chunks[c + ahead];
                    upload_samples(next, p, jobs, in);
                }
                upload_tables(g, sl, g->check);
            }
            compute_chunk(g, sl);
            if (c >= lag)
                download_chunk(g, g->slot[(c - lag) % n], jobs, out);
        }
        for (size_t c = chunks.size() > lag ? chunks.size() - lag : 0; c < chunks.size(); c++)
            download_chunk(g, g->slot[c % n], jobs, out);
        for (size_t k = 0; k < n; k++) // in the chunks' order
            finish_chunk(g, g->slot[(chunks.size() + k) % n], jobs);
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        cudaGetLastError(); // clear a launch error where possible
        gpu_drain(g);
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
    if (p->codec == PCWT_CODEC_JPEGLS)
        return pcwt_gpu_jpegls_bench_encode(g, p, jobs, count, repeats, ms, err, err_size);
    try {
        CUDA_CHECK(cudaSetDevice(g->device)); // the context's device, on any thread
        Slot &sl = g->slot[0];
        sl.idx.resize(count);
        for (size_t i = 0; i < count; i++)
            sl.idx[i] = i;
        upload_chunk(g, sl, p, jobs, g->copy_in);
        CUDA_CHECK(cudaStreamSynchronize(g->copy_in));
        *ms = gpu_median_ms(g, sl, repeats, "encode", [&]() { run_device_encode(g, sl); });
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    return PCWT_OK;
}
