// group_coder_ec_gpu.cu - the range-coded groups of the entropy profile (profile 1) on the GPU, the
// twin of codec/src/group_coder_ec.c: a thread per group runs the CPU's own group coder
// (codec/src/ec_group_coder.h), with the group's 106 bit models in shared memory, interleaved by
// thread. Encode: each group is coded into scratch sized from its baseline bit count (known from
// group_sizes), the record's mode and length follow the CPU's rule, and after the scan of the
// record sizes a warp per group copies a range-coded record into place (raw-mode records are the
// baseline bit strings that group_encode writes). Decode: group_walk has read the LEB128 headers;
// level by level from the top, a thread per range-coded group decodes it (group_decode takes the
// raw-mode ones).
#include "gpu_check.h"
#include "gpu_groups.h"
#include "gpu_kernels.h"

#include <cub/device/device_scan.cuh>

namespace {

__constant__ uint16_t c_init[PCWT_EC_CLASSES][PCWT_EC_CONTEXTS];

constexpr uint32_t EC_THREADS = 64; // models: 64 x 106 x 4 bytes = 27 KB of shared memory

// The view of band bi that the CPU's group coder reads.
__device__ inline pcwt_ec_band ec_view(const GpuBand *bands, uint32_t bi, const GpuBand &b,
                                       const GpuPlane &p, int qmax, int32_t *i32, int8_t *i8)
{
    pcwt_ec_band v;
    v.coef = i32 + b.coef;
    v.mqd = i8 + b.mqd;
    v.cols = b.cols;
    v.mcols = b.mcols;
    if (b.parent >= 0) {
        const GpuBand &pb = bands[b.parent];
        v.parent = i8 + pb.mqd;
        v.pcols = pb.mcols;
    } else {
        v.parent = nullptr;
        v.pcols = 0;
    }
    v.qmax = qmax;
    const int is_ll = bi == p.band_first;
    v.cls = pcwt_ec_class(is_ll, b.level);
    v.exact = is_ll || b.level == 1;
    return v;
}

__device__ inline pcwt_ec_span ec_span(const GroupPos &q)
{
    return pcwt_ec_span{q.gx, q.gy, q.gx + q.vr, q.gy + q.vc};
}

// Scratch of group g: its two streams, each pcwt_ec_scratch(bits) bytes. scan[g] is the exclusive
// scan of the baseline record sizes 4 + ceil(bits / 8), so the groups before g take
// 2 * scan[g] + 24 * g bytes.
__device__ inline uint64_t scratch_at(const uint64_t *scan, uint64_t g)
{
    return 2 * scan[g] + 24 * g;
}

__global__ void __launch_bounds__(EC_THREADS) ec_encode(
    const GpuBand *bands, uint32_t band_count, const GpuPlane *planes, const GpuPlaneState *state,
    GpuGroup *groups, const uint64_t *scratch_scan, uint64_t *sizes, int32_t *i32, int8_t *i8,
    uint8_t *scratch, uint64_t n)
{
    __shared__ pcwt_bit_model models[PCWT_EC_ALL * EC_THREADS];
    const uint64_t g = uint64_t(blockIdx.x) * EC_THREADS + threadIdx.x;
    if (g >= n)
        return;
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    const GpuPlane p = planes[b.plane];
    GpuGroup grp = groups[g];
    const pcwt_ec_band v = ec_view(bands, bi, b, p, state[b.plane].qmax, i32, i8);
    const pcwt_ec_span sp = ec_span(group_pos(b, p, g));
    const uint64_t cap = pcwt_ec_scratch(grp.bits);
    uint8_t *sa = scratch + scratch_at(scratch_scan, g), *sr = sa + cap;
    pcwt_rc_enc rc;
    pcwt_rc_enc_init(&rc, sa, cap);
    pcwt_bitwriter bw;
    pcwt_bw_init(&bw, sr);
    const uint64_t raw_bits = pcwt_ec_encode_group(&v, &sp, c_init[v.cls], models + threadIdx.x,
                                                   EC_THREADS, &rc, &bw);
    const uint64_t alen = pcwt_rc_enc_finish(&rc, sa);
    const uint64_t rlen = uint64_t(pcwt_bw_flush(&bw) - sr);
    const pcwt_ec_record rec = pcwt_ec_record_choose(raw_bits, alen, rlen, rc.overflow);
    gpu_group_set_record(grp, rec);
    groups[g] = grp;
    sizes[g] = grp.bytes; // scanned next into the record offsets
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
    const uint8_t *sa = scratch + scratch_at(scratch_scan, g);
    const uint8_t *sr = sa + pcwt_ec_scratch(grp.bits);
    uint8_t *dst = stream + grp.offset;
    if (lane == 0) {
        const pcwt_ec_record rec = gpu_group_record(grp);
        pcwt_ec_record_put_head(dst, &rec);
    }
    dst += grp.head;
    for (uint32_t k = lane; k < grp.alen; k += 32)
        dst[k] = sa[k];
    dst += grp.alen;
    for (uint32_t k = lane; k < grp.rlen; k += 32)
        dst[k] = sr[k];
}

// A thread per group of one decode step (the step's groups of profile-1 planes, listed flat),
// one in every `spread` lanes: the lanes of a warp that decode different groups diverge, so a step
// with few groups gives each its own warp (or a few per warp) and a large one packs them.
__global__ void __launch_bounds__(EC_THREADS) ec_decode(
    const uint32_t *step_groups, uint32_t n, uint32_t spread, const GpuBand *bands,
    uint32_t band_count, const GpuPlane *planes, GpuPlaneState *state, const GpuGroup *groups,
    const uint8_t *__restrict__ stream, int32_t *i32, int8_t *i8)
{
    __shared__ pcwt_bit_model models[PCWT_EC_ALL * EC_THREADS];
    const uint32_t t = blockIdx.x * EC_THREADS + threadIdx.x, k = t / spread;
    if (t % spread || k >= n)
        return;
    const uint64_t g = step_groups[k];
    const GpuGroup grp = groups[g];
    if (!grp.entropy)
        return; // group_decode takes the raw-mode records
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    if (state[b.plane].error)
        return; // a plane that failed its checks is not decoded
    const GpuPlane p = planes[b.plane];
    const pcwt_ec_band v = ec_view(bands, bi, b, p, p.qmax, i32, i8);
    const pcwt_ec_span sp = ec_span(group_pos(b, p, g));
    const uint8_t *a = stream + grp.offset + grp.head;
    if (!pcwt_ec_decode_group(&v, &sp, c_init[v.cls], models + threadIdx.x, EC_THREADS, a,
                              grp.alen, a + grp.alen, grp.rlen)) {
        atomicCAS(&state[b.plane].error, 0u, uint32_t(GPU_ERR_GROUP_BITS));
        return;
    }
    if (b.parent < 0) { // top level: Qmax must be the largest MQD there
        int top = -1;
        for (uint32_t x = sp.gx; x < sp.xe; x++)
            for (uint32_t y = sp.gy; y < sp.ye; y++)
                top = max(top, int(v.mqd[uint64_t(x) * v.mcols + y]));
        if (top >= 0)
            atomicMax(&state[b.plane].qmax, top);
    }
}

uint32_t blocks(uint64_t n, uint32_t per) { return uint32_t((n + per - 1) / per); }

} // namespace

void gpu_ec_init()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_init, pcwt_ec_init_p, sizeof pcwt_ec_init_p));
    // The models take 27 KB of shared memory per block: ask for the largest shared-memory split
    // of the L1, so that as many blocks as possible share an SM.
    CUDA_CHECK(cudaFuncSetAttribute(ec_encode, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
    CUDA_CHECK(cudaFuncSetAttribute(ec_decode, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
}

uint64_t gpu_ec_scratch_bytes(uint64_t stream_bytes, uint64_t groups)
{
    return 2 * stream_bytes + 24 * groups + 64;
}

void gpu_ec_encode(const DeviceBatch &b, uint64_t groups, uint32_t band_count, void *tmp,
                   size_t tmp_size, cudaStream_t s)
{
    if (!groups)
        return;
    // Scratch positions from the baseline record sizes that group_sizes left in group_size.
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_size, b.group_size, b.ec_scan, groups, s));
    ec_encode<<<blocks(groups, EC_THREADS), EC_THREADS, 0, s>>>(
        b.bands, band_count, b.planes, b.state, b.groups, b.ec_scan, b.group_size, b.i32, b.i8,
        b.ec_scratch, groups);
    CUDA_CHECK_LAUNCH();
}

void gpu_ec_pack(const DeviceBatch &b, uint64_t groups, cudaStream_t s)
{
    if (!groups)
        return;
    ec_pack<<<blocks(groups * 32, 256), 256, 0, s>>>(b.groups, b.ec_scan, b.ec_scratch, b.stream,
                                                     groups);
    CUDA_CHECK_LAUNCH();
}

void gpu_ec_decode(const DeviceBatch &b, const uint32_t *dev_groups, uint32_t group_count,
                   uint32_t band_count, cudaStream_t s)
{
    if (!group_count)
        return;
    // Lanes per group: as many as keep the step within the warps the device holds at once (8
    // blocks of 2 warps per SM, the models' shared memory allows no more), up to a warp each.
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const uint64_t lanes = uint64_t(sms) * 16 * 32;
    uint32_t spread = 1;
    while (spread < 32 && uint64_t(group_count) * spread * 2 <= lanes)
        spread *= 2;
    ec_decode<<<blocks(uint64_t(group_count) * spread, EC_THREADS), EC_THREADS, 0, s>>>(
        dev_groups, group_count, spread, b.bands, band_count, b.planes, b.state, b.groups, b.stream,
        b.i32, b.i8);
    CUDA_CHECK_LAUNCH();
}
