// group_coder_ec_decode_gpu.cu - the range-coded groups of the entropy profile (profile 1) on the
// GPU, decode side, the twin of pcwt_ec_decode_group's use in codec/src/group_coder_ec.c:
// group_walk has read the LEB128 headers; level by level from the top, a thread per range-coded
// group decodes it (group_decode takes the raw-mode ones), with the group's 106 bit models in
// shared memory, interleaved by thread (the paired layout of rangecoder.h); each level's groups
// in order of length (gpu_order.cu).
#define PCWT_RC_GPU_PAIRED_MODELS 1
#include "gpu_check.h"
#include "group_coder_ec_gpu.h"

using namespace pcwt_gpu_ec;

namespace {

__constant__ uint16_t c_init[PCWT_EC_CLASSES][PCWT_EC_CONTEXTS];

// A thread per group of one decode step (the step's groups of profile-1 planes, listed flat),
// one in every `spread` lanes: the lanes of a warp that decode different groups diverge, so a step
// with few groups gives each its own warp (or a few per warp) and a large one packs them.
// (At most 128 registers, so that 8 blocks share an SM as the models' shared memory allows:
// 117 are used, and the bound keeps a later change from halving the blocks unseen.)
__global__ void __launch_bounds__(EC_THREADS, 8) ec_decode(
    const uint32_t *step_groups, uint32_t n, uint32_t spread, const GpuBand *bands,
    uint32_t band_count, const GpuPlane *planes, GpuPlaneState *state, const GpuGroup *groups,
    const uint8_t *__restrict__ stream, int32_t *i32, int8_t *i8)
{
    __shared__ pcwt_bit_model models[2 * PCWT_RC_GPU_PAIRED_MODELS_AT]; // p, then the shifts
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
    const pcwt_ec_band v = ec_view(bands, bi, b, p, p.qmax, 0, i32, i8);
    const pcwt_ec_span sp = ec_span(group_pos(b, p, g));
    const uint8_t *a = stream + grp.offset + grp.head;
    // a copy of the group decoder for the default's modelled bits (the second mantissa bit alone)
    // and none, so that they carry no test of the options in their loop (one copy that tests them
    // decodes slower), and one that tests them for the rest
    int ok;
    if (p.low_bits == PCWT_EC_SECOND_BIT) {
        pcwt_ec_band vl = v;
        vl.low = PCWT_EC_SECOND_BIT;
        ok = pcwt_ec_decode_group(&vl, &sp, c_init[v.cls], models + threadIdx.x, EC_THREADS, a,
                                  grp.alen, a + grp.alen, grp.rlen);
    } else if (p.low_bits) {
        pcwt_ec_band vl = v;
        vl.low = int(p.low_bits);
        ok = pcwt_ec_decode_group(&vl, &sp, c_init[v.cls], models + threadIdx.x, EC_THREADS, a,
                                  grp.alen, a + grp.alen, grp.rlen);
    } else {
        ok = pcwt_ec_decode_group(&v, &sp, c_init[v.cls], models + threadIdx.x, EC_THREADS, a,
                                  grp.alen, a + grp.alen, grp.rlen);
    }
    if (!ok) {
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

// Sort keys of the steps' groups: the step in the high bits, so that each step keeps its place in
// the list, then the range-coder stream's length, longest first (raw-mode groups last).
// raw (when asked): set where a step holds a raw-mode record.
__global__ void ec_order_keys(const uint32_t *ids, uint32_t first, uint32_t n, uint32_t step,
                              const GpuGroup *groups, uint32_t *keys, uint32_t *raw)
{
    const uint32_t i = blockIdx.x * 256 + threadIdx.x;
    if (i >= n)
        return;
    const GpuGroup grp = groups[ids[first + i]];
    if (raw && !grp.entropy)
        *raw = 1;
    const uint32_t len = grp.entropy ? min(grp.alen, 0xFFFFu) : 0u;
    keys[first + i] = step << 16 | (0xFFFFu - len);
}

} // namespace

uint64_t gpu_ec_decode_lanes()
{
    // 8 blocks of 2 warps per SM: the models' shared memory allows no more
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return uint64_t(sms) * 16 * 32;
}

const uint32_t *gpu_ec_order(const DeviceBatch &b, const uint32_t *step_first, uint32_t steps,
                             void *buf, cudaStream_t s, uint32_t *raw)
{
    const uint32_t n = step_first[steps];
    if (!n)
        return b.step_groups;
    const GpuOrder o = gpu_order_bufs(buf, n);
    CUDA_CHECK(cudaMemcpyAsync(o.ids[0], b.step_groups, size_t(n) * 4, cudaMemcpyDeviceToDevice, s));
    for (uint32_t st = 0; st < steps; st++) {
        const uint32_t m = step_first[st + 1] - step_first[st];
        if (m)
            ec_order_keys<<<gpu_blocks(m, 256), 256, 0, s>>>(b.step_groups, step_first[st], m, st,
                                                             b.groups, o.keys[0], raw);
        CUDA_CHECK_LAUNCH();
    }
    int bits = 16;
    while (bits < 32 && (uint64_t(steps) >> (bits - 16)))
        bits++;
    return gpu_order_sort(o, n, bits, s);
}

void gpu_ec_decode_init()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_init, pcwt_ec_init_p, sizeof pcwt_ec_init_p));
    // The models take 27 KB of shared memory per block: ask for the largest shared-memory split
    // of the L1, so that as many blocks as possible share an SM.
    CUDA_CHECK(cudaFuncSetAttribute(ec_decode, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
    gpu_ec_pipe_init();
}

uint32_t gpu_ec_decode_spread(uint32_t group_count)
{
    // as many lanes per group as keep the step within the lanes the device holds at once, up to
    // a warp each
    const uint64_t lanes = gpu_ec_decode_lanes();
    uint32_t spread = 1;
    while (spread < 32 && uint64_t(group_count) * spread * 2 <= lanes)
        spread *= 2;
    return spread;
}

void gpu_ec_decode(const DeviceBatch &b, const uint32_t *dev_groups, uint32_t group_count,
                   uint32_t band_count, cudaStream_t s)
{
    if (!group_count)
        return;
    const uint32_t spread = gpu_ec_decode_spread(group_count);
    ec_decode<<<gpu_blocks(uint64_t(group_count) * spread, EC_THREADS), EC_THREADS, 0, s>>>(
        dev_groups, group_count, spread, b.bands, band_count, b.planes, b.state, b.groups, b.stream,
        b.i32, b.i8);
    CUDA_CHECK_LAUNCH();
}
