// group_coder_ec_encode_gpu.cu - the range-coded groups of the entropy profile (profile 1) on the
// GPU, encode side, the twin of pcwt_ec_encode_group's use in codec/src/group_coder_ec.c: a thread
// per group codes it into scratch sized from its baseline bit count (known from group_sizes), the
// record's mode and length follow the CPU's rule, and after the scan of the record sizes a warp
// per group copies a range-coded record into place (raw-mode records are the baseline bit strings
// that group_encode writes). The bit models take three bytes each here (rangecoder.h).
#define PCWT_RC_GPU_SPLIT_MODELS 1
#include "gpu_check.h"
#include "group_coder_ec_gpu.h"

#include <cub/device/device_scan.cuh>

using namespace pcwt_gpu_ec;

namespace {

__constant__ uint16_t c_init[PCWT_EC_CLASSES][PCWT_EC_CONTEXTS];

// Blocks an SM holds by the models' shared memory (PCWT_RC_GPU_SMEM, 21 KB a block): the
// registers are kept to allow as many.
constexpr uint32_t EC_BLOCKS_PER_SM = 10;

// Scratch of group g: its two streams, each pcwt_ec_scratch(bits) bytes. scan[g] is the exclusive
// scan of the baseline record sizes 4 + ceil(bits / 8), so the groups before g take
// 2 * scan[g] + 24 * g bytes.
__device__ inline uint64_t scratch_at(const uint64_t *scan, uint64_t g)
{
    return 2 * scan[g] + 24 * g;
}

__global__ void __launch_bounds__(EC_THREADS, EC_BLOCKS_PER_SM) ec_encode(
    const GpuBand *bands, uint32_t band_count, const GpuPlane *planes, const GpuPlaneState *state,
    GpuGroup *groups, const uint64_t *scratch_scan, uint64_t *sizes, int32_t *i32, int8_t *i8,
    uint8_t *scratch, uint64_t n)
{
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

} // namespace

void gpu_ec_encode_init()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_init, pcwt_ec_init_p, sizeof pcwt_ec_init_p));
    // The largest shared-memory split of the L1, so that as many blocks as possible share an SM.
    CUDA_CHECK(cudaFuncSetAttribute(ec_encode, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
    CUDA_CHECK(cudaFuncSetAttribute(ec_encode, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(PCWT_RC_GPU_SMEM)));
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
    ec_encode<<<gpu_blocks(groups, EC_THREADS), EC_THREADS, PCWT_RC_GPU_SMEM, s>>>(
        b.bands, band_count, b.planes, b.state, b.groups, b.ec_scan, b.group_size, b.i32, b.i8,
        b.ec_scratch, groups);
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

