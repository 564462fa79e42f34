// group_coder_ec_encode_gpu.cu - the range-coded groups of the entropy profile (profile 1) on the
// GPU, encode side, the twin of pcwt_ec_encode_group's use in codec/src/group_coder_ec.c: a thread
// per group runs the range coder over the bins that group_coder_ec_binarise_gpu.cu stored for it
// (or, for a group that did not fit the bin arena, binarises and codes its elements itself) into
// scratch sized from its baseline bit count (known from group_sizes); the record's mode and length
// follow the CPU's rule, and after the scan of the record sizes a warp per group copies a
// range-coded record into place (raw-mode records are the baseline bit strings that group_encode
// writes). The bit models take three bytes each here (rangecoder.h).
#define PCWT_RC_GPU_SPLIT_MODELS 1
#include "gpu_check.h"
#include "group_coder_ec_gpu.h"

using namespace pcwt_gpu_ec;

namespace {

__constant__ uint16_t c_init[PCWT_EC_CLASSES][PCWT_EC_CONTEXTS];

// Blocks an SM holds by the models' shared memory (PCWT_RC_GPU_SMEM, 21 KB a block): the
// registers are kept to allow as many.
constexpr uint32_t EC_BLOCKS_PER_SM = 10;

// Group g was binarised (group_coder_ec_binarise_gpu.cu): its bins lie within the arena.
__device__ inline bool binarised(const uint64_t *bin_at, uint64_t bin_cap, uint64_t g)
{
    return bin_at[g + 1] <= bin_cap;
}

// This thread's models in the split layout of rangecoder.h, reached by 32-bit indices into the
// p words and the shift bytes (a model's index: its row times the lanes, plus the thread's place).
struct ThreadModels {
    uint16_t *p;
    uint8_t *s;
    uint32_t lane;
};

__device__ __forceinline__ ThreadModels thread_models(uint32_t t)
{
    pcwt_bit_model *const base = pcwt_rc_gpu_models();
    ThreadModels m;
    m.p = reinterpret_cast<uint16_t *>(base);
    m.s = pcwt_rc_gpu_shift(base);
    m.lane = uint32_t(pcwt_rc_gpu_thread_models(t) - base);
    return m;
}

// The model of bin b (its index in bits 0..6): where it is, its p and its shift.
struct BinModel {
    uint32_t i, p, s;
};

__device__ __forceinline__ BinModel bin_model(const ThreadModels &m, uint32_t b)
{
    BinModel r;
    r.i = ((b & 127u) * PCWT_RC_GPU_LANES) + m.lane;
    r.p = m.p[r.i];
    r.s = m.s[r.i];
    return r;
}

// Codes bin b (the bit in bit 7) with model cur, whose p and shift were loaded ahead. The next
// bin's model is loaded here, before this one's update is stored, so that the load's latency is
// not on the coder's chain; when both are the same model, the update is passed on instead. The
// bytes that leave the coder's window wait in it (pcwt_rc_lazy) until code_word's caller takes
// them, for all lanes at once.
__device__ __forceinline__ void code_bin(pcwt_rc_lazy &rc, const ThreadModels &models,
                                         BinModel &cur, uint32_t b, uint32_t next)
{
    BinModel nx = bin_model(models, next);
    const uint32_t bit = (b >> 7) & 1u;
    const uint32_t p = pcwt_model_next_p(cur.p, cur.s, 0u - bit);
    const uint32_t s = pcwt_model_shift_after(cur.s);
    models.p[cur.i] = uint16_t(p);
    models.s[cur.i] = uint8_t(s);
    if (nx.i == cur.i) {
        nx.p = p;
        nx.s = s;
    }
    pcwt_rc_lazy_encode(&rc, cur.p, bit);
    cur = nx;
}

// The four bins of word w; next: the bin after them.
__device__ __forceinline__ void code_word(pcwt_rc_lazy &rc, const ThreadModels &models,
                                          BinModel &cur, uint32_t w, uint32_t next)
{
    code_bin(rc, models, cur, w & 0xffu, (w >> 8) & 0xffu);
    code_bin(rc, models, cur, (w >> 8) & 0xffu, (w >> 16) & 0xffu);
    code_bin(rc, models, cur, (w >> 16) & 0xffu, w >> 24);
    code_bin(rc, models, cur, w >> 24, next);
}

// Sort keys of the groups for ec_code: the most bins first.
__global__ void ec_code_keys(const uint2 *counts, uint32_t n, uint32_t *keys, uint32_t *ids)
{
    const uint32_t i = blockIdx.x * 256 + threadIdx.x;
    if (i >= n)
        return;
    keys[i] = 0xFFFFFFu - min(counts[i].x, 0xFFFFFFu);
    ids[i] = i;
}

// A thread per binarised group: its bins through the range coder, sixteen loaded at once (the
// next sixteen while these are coded); every lane runs the same loop, so a warp's lanes part only
// where a coder writes a byte, and wait for the one with the most bins. The groups come in order
// (order: decreasing bin counts, or null) so that a warp's are of like length. One lane in every
// `spread`: a launch of few groups (one frame) gives each a warp of its own, so that no group
// waits for its neighbours' bytes, and they spread over more multiprocessors.
__global__ void __launch_bounds__(EC_THREADS, EC_BLOCKS_PER_SM) ec_code(
    const GpuBand *bands, uint32_t band_count, const GpuPlane *planes, GpuGroup *groups,
    const uint64_t *scratch_scan, const uint64_t *bin_at, uint64_t bin_cap, const uint2 *counts,
    const uint8_t *bins, uint64_t *sizes, uint8_t *scratch, const uint32_t *order, uint64_t n,
    uint32_t spread)
{
    const uint64_t t = uint64_t(blockIdx.x) * EC_THREADS + threadIdx.x, k = t / spread;
    if (t % spread || k >= n)
        return;
    const uint64_t g = order ? order[k] : k;
    if (!binarised(bin_at, bin_cap, g))
        return;
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    const int cls = pcwt_ec_class(bi == planes[b.plane].band_first, b.level);
    GpuGroup grp = groups[g];
    const uint2 cnt = counts[g];
    uint8_t *const sa = ec_range_stream(scratch, scratch_scan, g);
    pcwt_rc_lazy rc;
    pcwt_rc_lazy_init(&rc, sa, pcwt_ec_scratch(grp.bits));
    pcwt_ec_models_reset(pcwt_rc_gpu_thread_models(threadIdx.x), EC_THREADS, c_init[cls]);
    const ThreadModels m = thread_models(threadIdx.x);
    const uint4 *src = reinterpret_cast<const uint4 *>(bins + bin_at[g]);
    uint32_t left = cnt.x;
    if (left) {
        uint4 w = src[0];
        BinModel cur = bin_model(m, w.x & 0xffu);
        for (; left > 16; left -= 16) {
            const uint4 nw = *++src; // left > 16: the next sixteen are this group's too
            code_word(rc, m, cur, w.x, w.y & 0xffu);
            code_word(rc, m, cur, w.y, w.z & 0xffu);
            code_word(rc, m, cur, w.z, w.w & 0xffu);
            code_word(rc, m, cur, w.w, nw.x & 0xffu);
            pcwt_rc_lazy_take_all(&rc);
            w = nw;
        }
        for (; left; left--) { // the last 1..16, the next bin in the low byte of w.x
            const uint32_t bin = w.x & 0xffu;
            w.x = __funnelshift_r(w.x, w.y, 8);
            w.y = __funnelshift_r(w.y, w.z, 8);
            w.z = __funnelshift_r(w.z, w.w, 8);
            w.w >>= 8;
            code_bin(rc, m, cur, bin, w.x & 0xffu);
        }
        pcwt_rc_lazy_take_all(&rc);
    }
    const uint64_t alen = pcwt_rc_enc_finish(&rc.e, sa);
    const pcwt_ec_record rec = pcwt_ec_record_choose(grp.bits, alen, (cnt.y + 7) / 8, rc.e.overflow);
    gpu_group_set_record(grp, rec);
    groups[g] = grp;
    sizes[g] = grp.bytes; // scanned next into the record offsets
}

// A thread per group that did not fit the bin arena: it binarises and codes its elements itself.
__global__ void __launch_bounds__(EC_THREADS, EC_BLOCKS_PER_SM) ec_encode(
    const GpuBand *bands, uint32_t band_count, const GpuPlane *planes, const GpuPlaneState *state,
    GpuGroup *groups, const uint64_t *scratch_scan, const uint64_t *bin_at, uint64_t bin_cap,
    uint64_t *sizes, int32_t *i32, int8_t *i8, uint8_t *scratch, uint64_t n)
{
    const uint64_t g = uint64_t(blockIdx.x) * EC_THREADS + threadIdx.x;
    if (g >= n || binarised(bin_at, bin_cap, g))
        return;
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    const GpuPlane p = planes[b.plane];
    GpuGroup grp = groups[g];
    const pcwt_ec_band v = ec_view(bands, bi, b, p, state[b.plane].qmax, state[b.plane].low, i32, i8);
    const pcwt_ec_span sp = ec_span(group_pos(b, p, g));
    const uint64_t cap = pcwt_ec_scratch(grp.bits);
    uint8_t *sa = ec_range_stream(scratch, scratch_scan, g), *sr = sa + cap;
    pcwt_rc_enc rc;
    pcwt_rc_enc_init(&rc, sa, cap);
    pcwt_bitwriter bw;
    pcwt_bw_init(&bw, sr);
    const uint64_t raw_bits =
        pcwt_ec_encode_group(&v, &sp, c_init[v.cls], pcwt_rc_gpu_thread_models(threadIdx.x),
                             EC_THREADS, &rc, &bw);
    const uint64_t alen = pcwt_rc_enc_finish(&rc, sa);
    const uint64_t rlen = uint64_t(pcwt_bw_flush(&bw) - sr);
    const pcwt_ec_record rec = pcwt_ec_record_choose(raw_bits, alen, rlen, rc.overflow);
    gpu_group_set_record(grp, rec);
    groups[g] = grp;
    sizes[g] = grp.bytes; // scanned next into the record offsets
}

// A warp's copy of n bytes to dst from src, at any alignment of either: dst's aligned 32-bit
// words, each from the two aligned words of src that hold its bytes (a lane's byte stores would
// take four times the instructions), and single bytes at dst's unaligned ends. Reads up to 4
// bytes either side of src's n bytes, within the scratch (its slack, gpu_ec_scratch_bytes).
__device__ inline void warp_copy(uint8_t *dst, const uint8_t *src, uint32_t n, uint32_t lane)
{
    const uint32_t head = min(n, uint32_t(0u - uint32_t(uintptr_t(dst))) & 3u);
    if (lane < head)
        dst[lane] = src[lane];
    dst += head;
    src += head;
    n -= head;
    const uint32_t words = n / 4, shift = 8u * (uint32_t(uintptr_t(src)) & 3u);
    const uint32_t *from = reinterpret_cast<const uint32_t *>(src - shift / 8);
    uint32_t *to = reinterpret_cast<uint32_t *>(dst);
    for (uint32_t k = lane; k < words; k += 32)
        to[k] = __funnelshift_r(from[k], from[k + 1], shift);
    for (uint32_t k = 4 * words + lane; k < n; k += 32)
        dst[k] = src[k];
}

// A warp per group: the LEB128 header and the two streams of a range-coded record.
__global__ void ec_pack(const GpuGroup *groups, const uint64_t *scratch_scan,
                        const uint8_t *scratch, uint8_t *stream, uint64_t n)
{
    const uint64_t g = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x & 31;
    if (g >= n)
        return;
    const GpuGroup grp = groups[g];
    if (!grp.entropy)
        return;
    const uint8_t *sa = ec_range_stream(scratch, scratch_scan, g);
    const uint8_t *sr = ec_raw_stream(scratch, scratch_scan, g, grp.bits);
    uint8_t *dst = stream + grp.offset;
    if (lane == 0) {
        const pcwt_ec_record rec = gpu_group_record(grp);
        pcwt_ec_record_put_head(dst, &rec);
    }
    dst += grp.head;
    warp_copy(dst, sa, grp.alen, lane);
    warp_copy(dst + grp.alen, sr, grp.rlen, lane);
}

// Lanes per group for ec_code: as many as keep the launch within the lanes the device holds at
// once (EC_BLOCKS_PER_SM blocks per SM), up to a warp each.
uint32_t ec_code_spread(uint64_t groups)
{
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const uint64_t lanes = uint64_t(sms) * EC_BLOCKS_PER_SM * EC_THREADS;
    uint32_t spread = 1;
    while (spread < 32 && groups * spread * 2 <= lanes)
        spread *= 2;
    return spread;
}

} // namespace

void gpu_ec_encode_init()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_init, pcwt_ec_init_p, sizeof pcwt_ec_init_p));
    // The largest shared-memory split of the L1, so that as many blocks as possible share an SM.
    CUDA_CHECK(cudaFuncSetAttribute(ec_encode, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
    CUDA_CHECK(cudaFuncSetAttribute(ec_encode, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(PCWT_RC_GPU_SMEM)));
    CUDA_CHECK(cudaFuncSetAttribute(ec_code, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
    CUDA_CHECK(cudaFuncSetAttribute(ec_code, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(PCWT_RC_GPU_SMEM)));
}

uint64_t gpu_ec_scratch_bytes(uint64_t stream_bytes, uint64_t groups)
{
    return 2 * stream_bytes + 24 * groups + 64;
}

void gpu_ec_encode(const DeviceBatch &b, uint64_t groups, uint32_t band_count, void *order_buf,
                   cudaStream_t s)
{
    if (!groups)
        return;
    const uint32_t *order = nullptr;
    if (order_buf && groups <= UINT32_MAX) {
        const uint32_t n = uint32_t(groups);
        const GpuOrder o = gpu_order_bufs(order_buf, n);
        ec_code_keys<<<gpu_blocks(n, 256), 256, 0, s>>>(b.ec_counts, n, o.keys[0], o.ids[0]);
        CUDA_CHECK_LAUNCH();
        order = gpu_order_sort(o, n, 24, s);
    }
    const uint32_t spread = ec_code_spread(groups);
    ec_code<<<gpu_blocks(groups * spread, EC_THREADS), EC_THREADS, PCWT_RC_GPU_SMEM, s>>>(
        b.bands, band_count, b.planes, b.groups, b.ec_scan, b.ec_bin_at, b.ec_bin_cap, b.ec_counts,
        b.ec_bins, b.group_size, b.ec_scratch, order, groups, spread);
    CUDA_CHECK_LAUNCH();
    ec_encode<<<gpu_blocks(groups, EC_THREADS), EC_THREADS, PCWT_RC_GPU_SMEM, s>>>(
        b.bands, band_count, b.planes, b.state, b.groups, b.ec_scan, b.ec_bin_at, b.ec_bin_cap,
        b.group_size, b.i32, b.i8, b.ec_scratch, groups);
    CUDA_CHECK_LAUNCH();
}

void gpu_ec_pack(const DeviceBatch &b, uint64_t groups, cudaStream_t s)
{
    if (!groups)
        return;
    ec_pack<<<gpu_blocks(groups * 32, 256), 256, 0, s>>>(b.groups, b.ec_scan, b.ec_scratch, b.stream,
                                                     groups);
    CUDA_CHECK_LAUNCH();
}

