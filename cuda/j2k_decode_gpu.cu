// j2k_decode_gpu.cu - pcwt_gpu_j2k_decode_batch: a batch of JPEG 2000 frames prepared by the
// tier-2 parser (j2k_batch.h) decoded on the device. The host checks every field first (nothing
// on the device reads or writes outside its buffers), cuts the frames into chunks that fit the
// device's memory budget, and per chunk uploads the code-blocks, runs tier-1 (j2k_t1_gpu.cu), the
// inverse DWT and the output stage (j2k_idwt_gpu.cu), and downloads the samples once. The device
// buffers stay in the handle (J2kGpu) from call to call, grown when a chunk needs more: freeing
// them (cudaFree) would wait for the whole device, that is for the coding and verification other
// threads run on it. pcwt_gpu_j2k_submit / _finish split a call in two so that the caller parses
// the next batch while the device decodes this one: PCWT_GPU_J2K_SLOTS slots of buffers, a batch
// that fits a slot's share of the budget in one chunk uploaded on copy_in, decoded on the slot's
// own stream and downloaded on copy_out, so that one slot's upload, kernels and download overlap
// the others' (a small batch's kernels leave most of the device idle: those of several batches
// run side by side).
#include "copy_batch.h"
#include "gpu_context.h"
#include "host_threads.h"
#include "j2k_batch_checks_gpu.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_ht_rules.h"
#include "j2k_idwt.h"
#include "j2k_t1_gpu.h"
#include "j2k_t1_rules.h"
}

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <thread>

// The host lists a chunk's layout fills (Chunk), kept with its slot from call to call: fresh memory
// costs a page fault per 4 KiB at first touch, more than filling it.
struct J2kLayout {
    std::vector<pcwt_j2k_cblk> cb, sorted;
    std::vector<std::pair<uint64_t, uint64_t>> key; // (cost, bytes)
    std::vector<size_t> idx;
    std::vector<uint64_t> cost, soff;
    std::vector<uint32_t> wf;
};

// A queued chunk's inverse DWT and output in up to this many pieces of its frames, each piece
// downloaded as soon as its samples are written: only the last piece's download follows the
// device's work.
constexpr size_t kPieces = 4;

// One set of the decoder's buffers, and what its submitted batch still needs once the device is
// done with it (pcwt_gpu_j2k_finish).
struct J2kSlot {
    DevBuf data, segs, cblks, state, state_off, tcs, frames, coefs, tmp, out, warp_first;
    DevBuf ht_status; // the HT code-blocks' decoding failure (j2k_ht_gpu.cu), 0 if none
    PinnedBuf h_out;  // the samples of destinations that are not page-locked
    PinnedBuf h_in;   // the code-block bytes staged for their upload when not page-locked
    PinnedBuf h_ht;   // ht_status, written back
    DevBuf *dev[12] = {&data,  &segs, &cblks, &state, &state_off,  &tcs,
                       &frames, &coefs, &tmp, &out, &warp_first, &ht_status};
    cudaEvent_t uploaded = nullptr, done = nullptr;
    cudaEvent_t piece_done[kPieces] = {}; // a piece's samples written (Chunk::pieces)
    cudaStream_t compute = nullptr; // a queued batch's kernels: the other slots' may run beside them
    bool pending = false; // submitted, not finished
    bool async = false;   // queued (else decoded whole at its submit)
    bool check_ht = false;
    std::vector<HostCopy> copies; // staged samples to their destinations
    J2kLayout layout;
    void release_device()
    {
        for (DevBuf *d : dev)
            d->release();
    }
    // every buffer given back and nothing pending; the events and the stream stay
    void release()
    {
        release_device();
        h_out.release();
        h_in.release();
        h_ht.release();
        copies.clear();
        layout = J2kLayout{};
        pending = async = check_ht = false;
    }
};

// The decoder's buffers in a handle (pcwt_gpu::j2k), made on first use.
struct J2kGpu {
    J2kSlot slot[PCWT_GPU_J2K_SLOTS];
    unsigned next = 0, oldest = 0; // the slot the next submit takes, the one the next finish reads
    bool pending() const
    {
        for (const J2kSlot &sl : slot)
            if (sl.pending)
                return true;
        return false;
    }
    J2kT1Plan t1;                  // how tier-1 packs code-blocks into warps on this device
};

void j2k_gpu_free(J2kGpu *j)
{
    if (!j)
        return;
    for (J2kSlot &sl : j->slot) {
        sl.release(); // (before the handle's pool goes: pcwt_gpu's end)
        for (cudaEvent_t e : {sl.uploaded, sl.done})
            if (e)
                cudaEventDestroy(e);
        for (cudaEvent_t e : sl.piece_done)
            if (e)
                cudaEventDestroy(e);
        if (sl.compute)
            cudaStreamDestroy(sl.compute);
    }
    delete j;
}

size_t j2k_gpu_held(const J2kGpu *j)
{
    size_t n = 0;
    if (j)
        for (const J2kSlot &sl : j->slot)
            for (const DevBuf *d : sl.dev)
                n += d->cap;
    return n;
}

namespace {

using j2k_checks::check_frame;
using j2k_checks::checked_and_sorted;
using j2k_checks::coef_range;
using j2k_checks::fail;
using j2k_checks::Failure;

// n bytes (at least one) in d, which keeps what it had when that is enough.
void reserve(DevBuf &d, size_t n) { d.ensure(n ? n : 1); }

template <typename T> void upload(DevBuf &d, const std::vector<T> &v, cudaStream_t s)
{
    reserve(d, v.size() * sizeof(T));
    if (!v.empty())
        CUDA_CHECK(cudaMemcpyAsync(d.p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s));
}


// One chunk on the device, in the handle's buffers (valid until the next chunk is prepared).
struct Chunk {
    J2kGpuChunk c{};
    const uint32_t *warp_first = nullptr; // tier-1's warps (j2k_t1_warps)
    uint32_t warps = 0;
    uint32_t ht_first = 0, ht_count = 0, ht_width = 0; // the HT code-blocks, after the Part 1 ones; widest
    uint32_t ht_lanes = 32;                            // HT code-blocks a warp (j2k_ht_lanes)
    uint32_t *ht_status = nullptr;
    std::vector<uint64_t> step_pixels; // the largest region of each level step (j2k_gpu_idwt)
    uint64_t out_bytes = 0;
    std::vector<std::pair<void *, uint64_t>> dst; // each frame's destination and offset
    std::vector<size_t> dst_size;
    // piece k: frames piece_frame[k] .. piece_frame[k + 1] - 1, their tile-components
    // piece_tc[k] .. piece_tc[k + 1] - 1 (consecutive, in frame order), about equal samples each
    std::vector<uint32_t> piece_frame, piece_tc;

    // Tables uploaded on up, buffers cleared on s (the chunk's compute stream).
    Chunk(J2kSlot &m, const J2kT1Plan &t1, const pcwt_j2k_batch *b, const std::vector<size_t> &fr, cudaStream_t up,
          cudaStream_t s, char *err, size_t es)
    {
        TraceScope timed(GpuHostTrace::LAYOUT);
        uint64_t lo, hi;
        coef_range(b, fr, lo, hi);
        std::vector<J2kGpuTc> tc;
        std::vector<J2kGpuFrame> fv;
        // frame k's code-blocks: the batch's from[k] .. , the chunk's at[k] .. at[k + 1] - 1
        std::vector<size_t> from, at(1, 0);
        for (size_t i : fr) {
            const pcwt_j2k_frame &f = b->frames[i];
            J2kGpuFrame g{};
            g.out_off = out_bytes;
            g.components = f.components;
            g.rct = f.rct;
            g.precision = f.precision;
            g.is_signed = f.is_signed;
            g.width = f.desc.width;
            g.height = f.desc.height;
            g.bytes = f.desc.bits_allocated > 8 ? 2 : 1;
            g.planar = f.desc.planar;
            for (uint32_t k = 0; k < f.components; k++) {
                const pcwt_j2k_tilecomp &t = b->tcs[f.tc_first + k];
                g.tc[k] = (uint32_t)tc.size();
                tc.push_back(J2kGpuTc{t.coef_offset - lo, t.width, t.height, t.levels});
                c.max_levels = std::max(c.max_levels, t.levels);
                if (step_pixels.size() < t.levels)
                    step_pixels.resize(t.levels, 0);
                for (uint32_t r = 1; r <= t.levels; r++)
                    step_pixels[r - 1] = std::max<uint64_t>(step_pixels[r - 1],
                                                            (uint64_t)pcwt_j2k_res_size(t.width, t.levels - r) *
                                                                pcwt_j2k_res_size(t.height, t.levels - r));
            }
            c.max_frame_pixels = (uint32_t)std::min<uint64_t>(
                UINT32_MAX, std::max<uint64_t>(c.max_frame_pixels, (uint64_t)f.desc.width * f.desc.height));
            from.push_back(f.cblk_first);
            at.push_back(at.back() + f.cblk_count);
            const size_t size = pcwt_image_size(&f.desc);
            dst.emplace_back(f.dst, out_bytes);
            dst_size.push_back(size);
            out_bytes = align_up(out_bytes + size);
            fv.push_back(g);
        }
        {
            const size_t pieces = std::min(kPieces, fv.size()); // never more (the slot's events)
            piece_frame.assign(1, 0);
            piece_tc.assign(1, 0);
            for (size_t k = 0; k < fv.size(); k++) {
                const uint64_t end = k + 1 < fv.size() ? dst[k + 1].second : out_bytes; // its samples' end, aligned
                if (end * pieces >= out_bytes * piece_frame.size() || k + 1 == fv.size()) {
                    piece_frame.push_back(uint32_t(k + 1));
                    piece_tc.push_back(fv[k].tc[0] + fv[k].components);
                }
            }
        }
        // a thread per code-block, heaviest first (j2k_t1_cost): neighbours in a warp get similar
        // work, so that a warp's threads run the same passes and finish together; the order of
        // the code-blocks is free, each writes its own rectangle; ties broken by codeword bytes
        J2kLayout &L = m.layout;
        std::vector<pcwt_j2k_cblk> &cb = L.cb, &sorted = L.sorted;
        std::vector<std::pair<uint64_t, uint64_t>> &key = L.key;
        std::vector<size_t> &idx = L.idx;
        std::vector<uint64_t> &cost = L.cost, &soff = L.soff;
        cb.resize(at.back());
        key.resize(cb.size());
        idx.resize(cb.size());
        checked_and_sorted(b, from, at, lo, hi, cb, key, idx, err, es);
        // HT code-blocks last, decoded by their own kernel (j2k_ht_gpu.cu), not in tier-1's warps
        ht_first = uint32_t(std::stable_partition(idx.begin(), idx.end(),
                                                  [&](size_t x) { return !(cb[x].style & PCWT_J2K_STYLE_HT); }) -
                            idx.begin());
        ht_count = uint32_t(idx.size()) - ht_first;
        sorted.resize(cb.size());
        cost.resize(cb.size());
        for (size_t k = 0; k < idx.size(); k++) {
            sorted[k] = cb[idx[k]];
            cost[k] = key[idx[k]].first;
        }
        cb.swap(sorted);
        cost.resize(ht_first);
        for (size_t k = ht_first; k < cb.size(); k++)
            ht_width = std::max<uint32_t>(ht_width, cb[k].width);
        ht_lanes = t1.ht_lanes ? t1.ht_lanes : j2k_ht_lanes(ht_count, t1.ht_slots);
        std::vector<uint32_t> &wf = L.wf;
        j2k_t1_warps(cost, t1, wf);
        warps = (uint32_t)(wf.size() - 1);
        TraceScope tables(GpuHostTrace::TABLES);
        upload(m.cblks, cb, up);
        upload(m.warp_first, wf, up);
        warp_first = m.warp_first.as<uint32_t>();
        soff.resize(cb.size());
        uint64_t words = 0;
        for (size_t k = 0; k < cb.size(); k++) {
            soff[k] = words;
            words += pcwt_j2k_state_words(cb[k].width, cb[k].height);
        }
        upload(m.state_off, soff, up);
        reserve(m.state, words * sizeof(uint16_t));
        upload(m.tcs, tc, up);
        upload(m.frames, fv, up);
        reserve(m.coefs, (hi - lo) * sizeof(int32_t));
        // zeros where no code-block writes, as the CPU path's calloc (tier-2 covers every band)
        CUDA_CHECK(cudaMemsetAsync(m.coefs.p, 0, (hi - lo) * sizeof(int32_t), s));
        reserve(m.tmp, (hi - lo) * sizeof(int32_t));
        reserve(m.out, out_bytes);
        reserve(m.ht_status, sizeof(uint32_t));
        ht_status = m.ht_status.as<uint32_t>();
        CUDA_CHECK(cudaMemsetAsync(ht_status, 0, sizeof(uint32_t), s));
        c.data = m.data.as<uint8_t>();
        c.segs = m.segs.as<pcwt_j2k_seg>();
        c.cblks = m.cblks.as<pcwt_j2k_cblk>();
        c.cblk_count = (uint32_t)cb.size();
        c.state = m.state.as<uint16_t>();
        c.state_off = m.state_off.as<uint64_t>();
        c.tcs = m.tcs.as<J2kGpuTc>();
        c.tc_count = (uint32_t)tc.size();
        c.frames = m.frames.as<J2kGpuFrame>();
        c.frame_count = (uint32_t)fv.size();
        c.coefs = m.coefs.as<int32_t>();
        c.tmp = m.tmp.as<int32_t>();
        c.out = m.out.as<uint8_t>();
    }

    void run(cudaStream_t s) const
    {
        run_tier1(s);
        j2k_gpu_idwt(c, step_pixels, s);
        j2k_gpu_output(c, s);
    }
    void run_tier1(cudaStream_t s) const
    {
        j2k_gpu_t1(c, warp_first, warps, s);
        j2k_gpu_ht(c, ht_first, ht_count, ht_width, ht_lanes, ht_status, s);
    }
    size_t pieces() const { return piece_frame.size() - 1; }
    // The inverse DWT and output of piece k (after run_tier1).
    void run_piece(size_t k, cudaStream_t s) const
    {
        J2kGpuChunk v = c; // its tile-components for the DWT; its frames (whose indices are the chunk's) for the output
        v.tcs = c.tcs + piece_tc[k];
        v.tc_count = piece_tc[k + 1] - piece_tc[k];
        j2k_gpu_idwt(v, step_pixels, s);
        v = c;
        v.frames = c.frames + piece_frame[k];
        v.frame_count = piece_frame[k + 1] - piece_frame[k];
        j2k_gpu_output(v, s);
    }
};

// Device bytes a frame takes: coefficients twice (the DWT's two buffers), its samples, its
// code-blocks with their tier-1 state, and tables.
uint64_t frame_bytes(const pcwt_j2k_batch *b, size_t i, uint64_t out)
{
    const pcwt_j2k_frame &f = b->frames[i];
    uint64_t n = (uint64_t)f.desc.width * f.desc.height * f.components, st = 0;
    for (uint32_t k = 0; k < f.cblk_count; k++) {
        const pcwt_j2k_cblk &cb = b->cblks[f.cblk_first + k];
        st += 2 * (uint64_t)pcwt_j2k_state_words(cb.width, cb.height) + sizeof(uint64_t) + sizeof(pcwt_j2k_cblk) +
              sizeof(uint32_t);
    }
    return 2 * 4 * n + align_up(out) + st + 3 * sizeof(J2kGpuTc) + sizeof(J2kGpuFrame);
}

// Frames per launch: the grids' second dimension.
constexpr size_t kMaxChunkFrames = 20000;

// The handle's decoder state, made on first use (the events and streams a failure left unmade
// made again).
J2kGpu &buffers(pcwt_gpu *g)
{
    if (!g->j2k) {
        const J2kT1Plan t1 = j2k_t1_plan(g->device);
        g->j2k = new J2kGpu;
        g->j2k->t1 = t1;
    }
    for (J2kSlot &sl : g->j2k->slot) {
        for (cudaEvent_t *e : {&sl.uploaded, &sl.done})
            if (!*e)
                CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
        for (cudaEvent_t &e : sl.piece_done)
            if (!e)
                CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        if (!sl.compute)
            CUDA_CHECK(cudaStreamCreateWithFlags(&sl.compute, cudaStreamNonBlocking));
        // the slot's device buffers from the handle's stream-ordered pool: a growth (each buffer
        // in the first batches after the warm-up) waits for no other stream, where cudaFree waits
        // for the whole device, the other decoders' and coders' work too
        if (g->pool.pool) {
            g->pool.add_user(sl.compute);
            for (DevBuf *d : sl.dev)
                if (!d->mem.pool && !d->p)
                    d->mem.pool = &g->pool;
        }
    }
    return *g->j2k;
}

// After a failure: the buffers go (so that an allocation that failed leaves none held), once
// the streams' work that may use them is done; batches submitted and not finished are lost.
// Tier-1's plan (pcwt_gpu_j2k_set_t1_lanes, _set_ht_lanes) stays.
void drop_buffers(pcwt_gpu *g)
{
    if (!g->j2k)
        return;
    cudaStreamSynchronize(g->copy_in);
    cudaStreamSynchronize(g->stream);
    cudaStreamSynchronize(g->copy_out);
    for (const J2kSlot &sl : g->j2k->slot)
        if (sl.compute)
            cudaStreamSynchronize(sl.compute);
    cudaGetLastError();
    for (J2kSlot &sl : g->j2k->slot)
        sl.release();
    g->j2k->next = g->j2k->oldest = 0;
}

template <typename Body> pcwt_status guarded(pcwt_gpu *g, char *err, size_t es, Body body)
{
    try {
        CUDA_CHECK(cudaSetDevice(g->device));
        body(buffers(g));
    } catch (const Failure &f) {
        return f.st;
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, es, "%s", e.what.c_str());
        cudaGetLastError(); // a failed allocation leaves the context usable
        drop_buffers(g);
        return e.code == cudaErrorMemoryAllocation ? PCWT_ERR_OUT_OF_MEMORY : PCWT_ERR_BACKEND_UNAVAILABLE;
    } catch (const std::bad_alloc &) {
        std::snprintf(err, es, "out of host memory for a JPEG 2000 GPU batch");
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    return PCWT_OK;
}

// The code-block bytes and segments every chunk reads, uploaded once per call on s; the bytes
// through the slot's page-locked buffer unless they are page-locked already (copied there on a
// few threads, then uploaded without holding the host: a pageable copy is one thread's memcpy).
void upload_shared(J2kSlot &m, const pcwt_j2k_batch *b, cudaStream_t s)
{
    TraceScope timed(GpuHostTrace::H2D);
    reserve(m.data, b->data_size);
    if (b->data_size) {
        const void *src = b->data;
        if (!gpu_is_pinned(src)) {
            TraceScope staging(GpuHostTrace::STAGE);
            m.h_in.ensure(b->data_size);
            gpu_host_copies({HostCopy{m.h_in.p, b->data, b->data_size}});
            src = m.h_in.p;
            if (gpu_trace)
                gpu_trace->staged += b->data_size;
        }
        CUDA_CHECK(cudaMemcpyAsync(m.data.p, src, b->data_size, cudaMemcpyHostToDevice, s));
    }
    reserve(m.segs, b->seg_count * sizeof(pcwt_j2k_seg));
    if (b->seg_count)
        CUDA_CHECK(cudaMemcpyAsync(m.segs.p, b->segs, b->seg_count * sizeof(pcwt_j2k_seg), cudaMemcpyHostToDevice, s));
    if (gpu_trace)
        gpu_trace->in += b->data_size;
}

// The chunks of a batch (frame indices) within `budget` bytes, after checking every frame; *need:
// the bytes of the whole batch in one chunk.
std::vector<std::vector<size_t>> plan(const pcwt_j2k_batch *b, uint64_t shared, uint64_t budget, uint64_t *need,
                                      char *err, size_t es)
{
    TraceScope timed(GpuHostTrace::PLAN);
    if (shared > budget)
        fail(PCWT_ERR_OUT_OF_MEMORY, err, es, "JPEG 2000 GPU batch: %zu bytes of code-block data exceed the device budget",
             (size_t)shared);
    ChunkPlan p(budget - shared, UINT64_MAX);
    *need = shared;
    for (size_t i = 0; i < b->frame_count; i++) {
        const uint64_t out = check_frame(b, i, err, es);
        const uint64_t bytes = frame_bytes(b, i, out);
        *need += bytes;
        if (!p.add(i, bytes, 1))
            fail(PCWT_ERR_OUT_OF_MEMORY, err, es, "JPEG 2000 GPU batch: frame %zu does not fit the device's memory", i);
    }
    std::vector<std::vector<size_t>> out;
    for (const auto &c : p.chunks())
        for (size_t k = 0; k < c.size(); k += kMaxChunkFrames)
            out.emplace_back(c.begin() + (long)k, c.begin() + (long)std::min(c.size(), k + kMaxChunkFrames));
    return out;
}

// The samples of the chunk's frames f0 .. f1 - 1 from the device on stream s, appended to copies:
// page-locked and managed destinations straight, the others into the slot's page-locked staging
// buffer (at their offsets in the chunk's output), whose copies to them are appended.
void download(J2kSlot &m, const Chunk &ch, cudaStream_t s, size_t f0, size_t f1, std::vector<HostCopy> &copies)
{
    TraceScope timed(GpuHostTrace::D2H);
    if (f0 >= f1)
        return;
    std::vector<char> direct(f1 - f0);
    bool staged = false;
    CopyBatch batch; // one call for a batch's thousands of frames, not one each
    for (size_t k = f0; k < f1; k++) {
        direct[k - f0] = gpu_is_direct(ch.dst[k].first);
        staged |= !direct[k - f0];
        if (direct[k - f0])
            batch.add(ch.dst[k].first, m.out.as<uint8_t>() + ch.dst[k].second, ch.dst_size[k]);
    }
    batch.issue(s);
    const uint64_t lo = ch.dst[f0].second, hi = ch.dst[f1 - 1].second + ch.dst_size[f1 - 1];
    if (staged) {
        m.h_out.ensure(ch.out_bytes ? ch.out_bytes : 1); // the whole chunk's: every piece the same buffer
        CUDA_CHECK(cudaMemcpyAsync(m.h_out.as<uint8_t>() + lo, m.out.as<uint8_t>() + lo, hi - lo,
                                   cudaMemcpyDeviceToHost, s));
        for (size_t k = f0; k < f1; k++)
            if (!direct[k - f0])
                copies.push_back(HostCopy{ch.dst[k].first, m.h_out.as<uint8_t>() + ch.dst[k].second, ch.dst_size[k]});
    }
    if (gpu_trace)
        gpu_trace->out += hi - lo;
}

[[noreturn]] void fail_ht(uint32_t ht, char *err, size_t es)
{
    fail(PCWT_ERR_CORRUPT, err, es,
         "corrupt HTJ2K: a code-block fails to decode (check %zu: an exponent bound above its bit-planes or a "
         "significant sample outside it)",
         ht);
}

// The whole batch on stream s, chunk after chunk, each waited for (a batch larger than half the
// budget).
void decode_now(pcwt_gpu *g, J2kSlot &m, const J2kT1Plan &t1, const pcwt_j2k_batch *b,
                const std::vector<std::vector<size_t>> &chunks, char *err, size_t es)
{
    const cudaStream_t s = g->stream;
    upload_shared(m, b, s);
    for (const auto &fr : chunks) {
        Chunk ch(m, t1, b, fr, s, s, err, es);
        {
            TraceScope timed(GpuHostTrace::LAUNCH);
            ch.run(s);
        }
        std::vector<HostCopy> copies;
        download(m, ch, s, 0, ch.dst.size(), copies);
        {
            TraceScope timed(GpuHostTrace::WAIT_COMPUTE);
            CUDA_CHECK(cudaStreamSynchronize(s));
        }
        if (ch.ht_count) {
            uint32_t ht = 0;
            CUDA_CHECK(cudaMemcpy(&ht, ch.ht_status, sizeof ht, cudaMemcpyDeviceToHost));
            if (ht)
                fail_ht(ht, err, es);
        }
        TraceScope timed(GpuHostTrace::UNPACK);
        gpu_host_copies(copies);
        if (gpu_trace) {
            gpu_trace->frames += fr.size();
            gpu_trace->chunks++;
        }
    }
}

// The batch in one chunk, queued: uploaded on copy_in, decoded on the slot's stream (beside the
// other slots' batches, whose kernels leave much of the device idle), downloaded on copy_out piece
// by piece (Chunk::pieces); the slot's `done` event marks its end.
void decode_queued(pcwt_gpu *g, J2kSlot &m, const J2kT1Plan &t1, const pcwt_j2k_batch *b,
                   const std::vector<size_t> &frames, char *err, size_t es)
{
    const cudaStream_t up = g->copy_in, s = m.compute, down = g->copy_out;
    upload_shared(m, b, up);
    Chunk ch(m, t1, b, frames, up, s, err, es);
    CUDA_CHECK(cudaEventRecord(m.uploaded, up));
    m.copies.clear();
    {
        TraceScope timed(GpuHostTrace::LAUNCH);
        CUDA_CHECK(cudaStreamWaitEvent(s, m.uploaded, 0));
        ch.run_tier1(s);
    }
    // each piece's download waits for that piece's samples only, so that the downloads of the first
    // pieces overlap the inverse DWT of the later ones
    for (size_t k = 0; k < ch.pieces(); k++) {
        {
            TraceScope timed(GpuHostTrace::LAUNCH);
            ch.run_piece(k, s);
            CUDA_CHECK(cudaEventRecord(m.piece_done[k], s));
            CUDA_CHECK(cudaStreamWaitEvent(down, m.piece_done[k], 0));
        }
        download(m, ch, down, ch.piece_frame[k], ch.piece_frame[k + 1], m.copies);
    }
    m.check_ht = ch.ht_count != 0;
    if (m.check_ht) {
        m.h_ht.ensure(sizeof(uint32_t));
        CUDA_CHECK(cudaMemcpyAsync(m.h_ht.p, ch.ht_status, sizeof(uint32_t), cudaMemcpyDeviceToHost, down));
    }
    CUDA_CHECK(cudaEventRecord(m.done, down));
    m.async = true;
    if (gpu_trace) {
        gpu_trace->frames += frames.size();
        gpu_trace->chunks++;
    }
}

} // namespace

extern "C" pcwt_status pcwt_gpu_j2k_submit(pcwt_gpu *g, const struct pcwt_j2k_batch *b, char *err, size_t err_size)
{
    if (!g || !b)
        return PCWT_ERR_INVALID_ARGUMENT;
    TraceCall trace(g, "j2k submit");
    return guarded(g, err, err_size, [&](J2kGpu &m) {
        if (!m.pending())
            m.next = m.oldest = 0; // nothing queued: slot 0, so that one call after another reuses its buffers
        J2kSlot &sl = m.slot[m.next];
        if (sl.pending)
            fail(PCWT_ERR_INVALID_ARGUMENT, err, err_size, "JPEG 2000 GPU batch: %zu batches already submitted",
                 PCWT_GPU_J2K_SLOTS);
        sl.async = sl.check_ht = false;
        sl.copies.clear();
        if (b->frame_count) {
            const uint64_t shared = b->data_size + b->seg_count * sizeof(pcwt_j2k_seg);
            const uint64_t budget = gpu_memory_budget(g);
            uint64_t need = 0;
            const auto chunks = plan(b, shared, budget, &need, err, err_size);
            if (chunks.size() == 1 && need <= budget / PCWT_GPU_J2K_SLOTS) {
                decode_queued(g, sl, m.t1, b, chunks[0], err, err_size);
            } else {
                // the whole budget: the other slots' device work done, their buffers given back
                for (J2kSlot &other : m.slot) {
                    if (&other == &sl)
                        continue;
                    if (other.pending && other.async)
                        CUDA_CHECK(cudaEventSynchronize(other.done));
                    other.release_device();
                }
                decode_now(g, sl, m.t1, b, chunks, err, err_size);
            }
        }
        sl.pending = true;
        m.next = (m.next + 1) % PCWT_GPU_J2K_SLOTS;
    });
}

extern "C" pcwt_status pcwt_gpu_j2k_finish(pcwt_gpu *g, char *err, size_t err_size)
{
    if (!g)
        return PCWT_ERR_INVALID_ARGUMENT;
    TraceCall trace(g, "j2k finish");
    return guarded(g, err, err_size, [&](J2kGpu &m) {
        J2kSlot &sl = m.slot[m.oldest];
        if (!sl.pending)
            fail(PCWT_ERR_INVALID_ARGUMENT, err, err_size, "JPEG 2000 GPU batch: %zu submitted to finish", 0);
        sl.pending = false;
        m.oldest = (m.oldest + 1) % PCWT_GPU_J2K_SLOTS;
        if (!sl.async)
            return;
        {
            TraceScope timed(GpuHostTrace::WAIT_DOWN);
            CUDA_CHECK(cudaEventSynchronize(sl.done));
        }
        if (sl.check_ht && *sl.h_ht.as<uint32_t>())
            fail_ht(*sl.h_ht.as<uint32_t>(), err, err_size);
        TraceScope timed(GpuHostTrace::UNPACK);
        gpu_host_copies(sl.copies);
        sl.copies.clear();
    });
}

extern "C" pcwt_status pcwt_gpu_j2k_decode_batch(pcwt_gpu *g, const struct pcwt_j2k_batch *b, char *err,
                                                 size_t err_size)
{
    if (!g || !b)
        return PCWT_ERR_INVALID_ARGUMENT;
    if (!b->frame_count)
        return PCWT_OK;
    if (g->j2k && g->j2k->pending()) {
        std::snprintf(err, err_size, "JPEG 2000 GPU batch: a submitted batch is not finished");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const pcwt_status st = pcwt_gpu_j2k_submit(g, b, err, err_size);
    return st != PCWT_OK ? st : pcwt_gpu_j2k_finish(g, err, err_size);
}

extern "C" pcwt_status pcwt_gpu_j2k_set_t1_lanes(pcwt_gpu *g, uint32_t lanes, char *err, size_t err_size)
{
    if (!g || lanes > 32)
        return PCWT_ERR_INVALID_ARGUMENT;
    return guarded(g, err, err_size, [&](J2kGpu &m) { m.t1.fixed_lanes = lanes; });
}

extern "C" pcwt_status pcwt_gpu_j2k_set_ht_lanes(pcwt_gpu *g, uint32_t lanes, char *err, size_t err_size)
{
    if (!g || lanes > 32)
        return PCWT_ERR_INVALID_ARGUMENT;
    return guarded(g, err, err_size, [&](J2kGpu &m) { m.t1.ht_lanes = lanes; });
}

extern "C" int pcwt_gpu_j2k_traced(const pcwt_gpu *g) { return g && g->trace; }

extern "C" void *pcwt_gpu_j2k_host_alloc(pcwt_gpu *g, size_t size)
{
    // the handle's device current on this thread: registering the memory makes no context on another
    if (!g || cudaSetDevice(g->device) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return pcwt_gpu_host_alloc(size);
}

extern "C" pcwt_status pcwt_gpu_j2k_bench(pcwt_gpu *g, const struct pcwt_j2k_batch *b, int repeats, double *ms,
                                          char *err, size_t err_size)
{
    if (!g || !b || !ms)
        return PCWT_ERR_INVALID_ARGUMENT;
    return guarded(g, err, err_size, [&](J2kGpu &m) {
        const cudaStream_t s = g->stream;
        const uint64_t shared = b->data_size + b->seg_count * sizeof(pcwt_j2k_seg);
        uint64_t need = 0;
        const auto chunks = plan(b, shared, gpu_memory_budget(g), &need, err, err_size);
        if (chunks.size() != 1)
            fail(PCWT_ERR_OUT_OF_MEMORY, err, err_size, "JPEG 2000 GPU bench: the batch needs %zu chunks (one allowed)",
                 chunks.size());
        J2kSlot &sl = m.slot[0];
        upload_shared(sl, b, s);
        Chunk ch(sl, m.t1, b, chunks[0], s, s, err, err_size);
        CUDA_CHECK(cudaStreamSynchronize(s));
        *ms = gpu_median_event_ms(g, repeats, "j2k decode", []() {}, [&]() { ch.run(s); });
    });
}
