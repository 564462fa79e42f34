// group_coder_ec_pipe_gpu.cu - the groups of the entropy profile decoded with the levels
// overlapping (gpu_ec_pipe_steps): one launch for the leading decode steps instead of one per
// step. A group reads, for its row x, only row x / 2 of one parent group (the MQDs one level up;
// even group sizes), so it waits for that row, not for the whole coarser level: each group
// publishes how many of its rows are decoded, and the chain of levels costs about one group's
// serial decode instead of one per level (the step launches cost each level its slowest group's
// time). Same samples and verdicts as the step launches (group_coder_ec_decode_gpu.cu; raw-mode
// records, group_decode's there, are decoded here by their group's thread, as the CPU's
// decode_group_raw does).
//
// The parent MQDs are written in this launch by other multiprocessors, so the MQD rows are loaded
// past L1 (word_window.h; the range-coder and raw streams are read-only and cached), and the blocks
// take their place in the steps from a ticket, in the order they start: a block only ever waits
// for blocks that started before it.

#define PCWT_GPU_FRESH_LOAD __ldcg // MQD rows written in this launch (word_window.h)
#define PCWT_RC_GPU_PAIRED_MODELS 1 // the bit models' layout in shared memory (rangecoder.h)
#define PCWT_EC_ROW_BEGIN(b, x) pipe_row_begin((b), (x))
#define PCWT_EC_ROW_END(b, x) pipe_row_end((b), (x))

#include <algorithm>
#include <cstdint>

extern "C" {
#include "ec_model.h"
}

namespace {

__device__ inline uint32_t load_acquire(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// A poll that does not order what follows: on sm_90 an acquire load also invalidates the SM's L1
// (CCTL.IVALL), which a poll in a loop did for every warp of the SM at each turn.
__device__ inline uint32_t load_relaxed(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ inline void store_release(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// The band view of a group with its place in the pipeline (the view first: the hooks get the
// view's address).
struct PipeBand {
    pcwt_ec_band v;
    uint32_t *done;        // rows of this group decoded (all ones once it has left)
    const uint32_t *pdone; // those of its parent group; null on the top level
    uint32_t row0, prow0;  // the first rows of this group and of its parent group
    mutable uint32_t seen; // the parent rows known decoded
};

// (Host and device, as the group decoder that calls them; a host pass has nothing to wait for.)
__host__ __device__ inline void pipe_row_begin(const pcwt_ec_band *b, uint32_t x)
{
#ifdef __CUDA_ARCH__
    const PipeBand *pb = reinterpret_cast<const PipeBand *>(b);
    if (!pb->pdone)
        return;
    const uint32_t need = x / 2 - pb->prow0 + 1;
    if (pb->seen >= need)
        return;
    uint32_t v = load_acquire(pb->pdone);
    if (v < need) { // polled without ordering, then one acquire load for the rows it waited for
        do {
            __nanosleep(200);
        } while (load_relaxed(pb->pdone) < need);
        v = load_acquire(pb->pdone);
    }
    pb->seen = v;
#else
    (void)b;
    (void)x;
#endif
}

__host__ __device__ inline void pipe_row_end(const pcwt_ec_band *b, uint32_t x)
{
#ifdef __CUDA_ARCH__
    const PipeBand *pb = reinterpret_cast<const PipeBand *>(b);
    store_release(pb->done, x - pb->row0 + 1);
#else
    (void)b;
    (void)x;
#endif
}

} // namespace

#include "gpu_check.h"
#include "group_coder_ec_gpu.h"

using namespace pcwt_gpu_ec;

namespace {

__constant__ uint16_t c_init[PCWT_EC_CLASSES][PCWT_EC_CONTEXTS];

constexpr uint32_t PIPE_STEPS = PCWT_MAX_LEVELS + 1;

// A raw-mode record (baseline element codes, nbits of them from src) of the group of pb, decoded by
// its thread as decode_group_raw (codec/src/group_coder_ec.c) does on the CPU, its rows waited for
// and published as a range-coded group's; returns 0 or the GpuError of what the CPU refuses.
__device__ uint32_t pipe_decode_raw(const PipeBand &pb, const pcwt_ec_span &g, const uint8_t *src,
                                    uint32_t nbits)
{
#ifdef __CUDA_ARCH__ // (the word window is device code only)
    const pcwt_ec_band &v = pb.v;
    pcwt_gpu_window rd; // zero bits past the record, as the CPU's reader
    pcwt_gpu_window_init(&rd, src, src + (nbits + 7u) / 8u);
    uint64_t used = 0;
    for (uint32_t x = g.gx; x < g.xe; x++) {
        pipe_row_begin(&pb.v, x);
        for (uint32_t y = g.gy; y < g.ye; y++) {
            // the parent MQD is written in this launch by another multiprocessor: past L1
            const int r = v.parent ? int(__ldcg(reinterpret_cast<const signed char *>(
                                         v.parent + size_t(x / 2) * v.pcols + y / 2)))
                                   : v.qmax;
            int m = -1;
            int32_t c[4] = {0, 0, 0, 0};
            // r <= PCWT_MAX_QMAX (30, the header's bound): the zeros and codes fit in 32 bits
            if (r >= 0) {
                const uint32_t top = pcwt_gpu_window_top(&rd);
                const uint32_t z = top ? uint32_t(__clz(top)) : 32u;
                if (z > uint32_t(r)) {
                    pcwt_gpu_window_skip(&rd, uint32_t(r) + 1);
                    used += uint32_t(r) + 1;
                } else {
                    pcwt_gpu_window_skip(&rd, z + 1);
                    used += z + 1;
                    m = r - int(z);
                    const uint32_t nb = uint32_t(m) + 2;
                    for (int k = 0; k < 4; k++) {
                        const uint32_t w = pcwt_gpu_window_top(&rd);
                        const uint32_t cv = nb >= 32 ? w : w >> (32 - nb);
                        pcwt_gpu_window_skip(&rd, nb);
                        used += nb;
                        if (cv == 1u)
                            return GPU_ERR_NEG_ZERO;
                        c[k] = (cv & 1u) ? int32_t(cv >> 1) : -int32_t(cv >> 1);
                    }
                    if (v.exact && !pcwt_element_reaches(c, m))
                        return GPU_ERR_MQD; // where exact, m is the element's own top level
                }
            }
            v.mqd[size_t(x) * v.mcols + y] = int8_t(m);
            int32_t *r0 = v.coef + size_t(2 * x) * v.cols + 2 * y;
            r0[0] = c[0];
            r0[1] = c[1];
            r0[v.cols] = c[2];
            r0[v.cols + 1] = c[3];
        }
        pipe_row_end(&pb.v, x);
        if (used > nbits)
            return GPU_ERR_GROUP_BITS;
    }
    if (used != nbits)
        return GPU_ERR_GROUP_BITS;
    const uint32_t pad = (8u - nbits % 8u) % 8u;
    return pad && (pcwt_gpu_window_top(&rd) >> (32 - pad)) != 0 ? GPU_ERR_GROUP_BITS : 0u;
#else
    (void)pb;
    (void)g;
    (void)src;
    (void)nbits;
    return 0;
#endif
}

struct PipeSteps {
    uint32_t count;
    uint32_t block_first[PIPE_STEPS + 1]; // step st: blocks block_first[st] .. block_first[st + 1]
    uint32_t list_first[PIPE_STEPS + 1];  // its groups in the list
    uint32_t spread[PIPE_STEPS];          // lanes per group (gpu_ec_decode's choice for the step)
};

// The largest MQD of a group (-1: none).
__device__ int pipe_top_mqd(const pcwt_ec_band &v, const pcwt_ec_span &sp)
{
    int top = -1;
    for (uint32_t x = sp.gx; x < sp.xe; x++)
        for (uint32_t y = sp.gy; y < sp.ye; y++)
            top = max(top, int(v.mqd[uint64_t(x) * v.mcols + y]));
    return top;
}

__device__ void pipe_qmax(int32_t *qmax, int top)
{
    if (top >= 0)
        atomicMax(qmax, top);
}

// pipe[1]: the tickets; pipe[2 + g]: group g's rows decoded (pipe[0]: gpu_ec_order's raw flag).
// (At most 128 registers, as ec_decode.)
__global__ void __launch_bounds__(EC_THREADS, 8) ec_decode_pipe(
    PipeSteps st, const uint32_t *list, const GpuBand *bands, uint32_t band_count,
    const GpuPlane *planes, GpuPlaneState *state, const GpuGroup *groups,
    const uint8_t *__restrict__ stream, int32_t *i32, int8_t *i8, uint32_t *pipe)
{
    __shared__ pcwt_bit_model models[2 * PCWT_RC_GPU_PAIRED_MODELS_AT]; // p, then the shifts
    __shared__ uint32_t s_block;
    if (threadIdx.x == 0)
        s_block = atomicAdd(&pipe[1], 1u);
    __syncthreads();
    const uint32_t blk = s_block;
    uint32_t si = 0;
    while (si + 1 < st.count && blk >= st.block_first[si + 1])
        si++;
    const uint32_t spread = st.spread[si];
    const uint32_t t = (blk - st.block_first[si]) * EC_THREADS + threadIdx.x, k = t / spread;
    if (t % spread || k >= st.list_first[si + 1] - st.list_first[si])
        return;
    const uint64_t g = list[st.list_first[si] + k];
    uint32_t *const done = pipe + 2 + g;
    const GpuGroup grp = groups[g];
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    if (state[b.plane].error) {
        store_release(done, ~0u); // its children do not wait for it
        return;
    }
    const GpuPlane p = planes[b.plane];
    const GroupPos q = group_pos(b, p, g);
    PipeBand pb;
    pb.v = ec_view(bands, bi, b, p, p.qmax, 0, i32, i8);
    pb.done = done;
    pb.row0 = q.gx;
    pb.pdone = nullptr;
    pb.prow0 = 0;
    pb.seen = 0;
    if (b.parent >= 0) { // rows q.gx / 2 .. of the parent group that holds (q.gx / 2, q.gy / 2)
        const GpuBand par = bands[b.parent];
        const uint32_t gr = q.gx / 2 / p.group_rows, gc = q.gy / 2 / p.group_cols;
        pb.pdone = pipe + 2 + par.group_first + uint64_t(gr) * par.gcols + gc;
        pb.prow0 = gr * p.group_rows;
    }
    const pcwt_ec_span sp = ec_span(q);
    const uint8_t *a = stream + grp.offset + grp.head;
    if (!grp.entropy) {
        const uint32_t err = pipe_decode_raw(pb, sp, a, grp.bits);
        store_release(done, ~0u);
        if (err)
            atomicCAS(&state[b.plane].error, 0u, err);
        else if (b.parent < 0) // top level: Qmax must be the largest MQD there
            pipe_qmax(&state[b.plane].qmax, pipe_top_mqd(pb.v, sp));
        return;
    }
    int ok; // copies for the modelled bits, as ec_decode
    if (p.low_bits == PCWT_EC_SECOND_BIT) {
        pb.v.low = PCWT_EC_SECOND_BIT;
        ok = pcwt_ec_decode_group(&pb.v, &sp, c_init[pb.v.cls], models + threadIdx.x, EC_THREADS, a,
                                  grp.alen, a + grp.alen, grp.rlen);
    } else if (p.low_bits) {
        pb.v.low = int(p.low_bits);
        ok = pcwt_ec_decode_group(&pb.v, &sp, c_init[pb.v.cls], models + threadIdx.x, EC_THREADS, a,
                                  grp.alen, a + grp.alen, grp.rlen);
    } else {
        ok = pcwt_ec_decode_group(&pb.v, &sp, c_init[pb.v.cls], models + threadIdx.x, EC_THREADS, a,
                                  grp.alen, a + grp.alen, grp.rlen);
    }
    store_release(done, ~0u); // also when it stopped early: its children read what it left
    if (!ok) {
        atomicCAS(&state[b.plane].error, 0u, uint32_t(GPU_ERR_GROUP_BITS));
        return;
    }
    if (b.parent < 0) // top level: Qmax must be the largest MQD there
        pipe_qmax(&state[b.plane].qmax, pipe_top_mqd(pb.v, sp));
}

} // namespace

void gpu_ec_pipe_init()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_init, pcwt_ec_init_p, sizeof pcwt_ec_init_p));
    CUDA_CHECK(cudaFuncSetAttribute(ec_decode_pipe, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
}

uint32_t gpu_ec_pipe_steps(const BatchLayout &L)
{
    const uint32_t steps = uint32_t(L.decode_steps.size());
    if (!L.entropy_planes || steps > PIPE_STEPS)
        return 0;
    for (const GpuPlane &p : L.planes) // a child group's rows / 2 in one parent group
        if (p.profile != PCWT_PROFILE_BASELINE && (p.group_rows % 2 || p.group_cols % 2))
            return 0;
    // Where the step launches would give every group a warp of its own (one frame, a few), all
    // steps: the chain of levels costs about one group's decode.
    if (gpu_ec_decode_spread(uint32_t(std::min<uint64_t>(L.groups, UINT32_MAX))) == 32)
        return steps;
    // A full batch: every step but the last, which a step launch takes after the pipe. The layout
    // puts a plane's finest level in step levels - 1 (level l is step levels - l), so for entropy
    // planes the last step is empty and the pipe decodes every level, the finest included
    // (bench/results/gpu-h200-2026-11-29-session13-decode.md).
    return steps - 1;
}

size_t gpu_ec_pipe_bytes(const BatchLayout &L) { return 4 * (2 + size_t(L.groups)); }

void gpu_ec_decode_pipe(const DeviceBatch &b, const uint32_t *list, const uint32_t *list_first,
                        uint32_t steps, uint32_t band_count, uint32_t *pipe, cudaStream_t s)
{
    PipeSteps st{};
    st.count = steps;
    // Each step's spread as gpu_ec_decode gives it, then halved where it takes the most lanes
    // until all steps' groups fit on the device at once (unfitted, the CT batch's coarse groups
    // waited for lanes held by wider steps: bench/results/gpu-h200-2026-11-28-session10-decode.md).
    uint64_t lanes = 0;
    for (uint32_t i = 0; i < steps; i++) {
        const uint32_t n = list_first[i + 1] - list_first[i];
        st.spread[i] = gpu_ec_decode_spread(n);
        lanes += uint64_t(n) * st.spread[i];
    }
    const uint64_t room = gpu_ec_decode_lanes();
    while (lanes > room) {
        uint32_t widest = steps;
        uint64_t most = 0;
        for (uint32_t i = 0; i < steps; i++) {
            const uint64_t l = uint64_t(list_first[i + 1] - list_first[i]) * st.spread[i];
            if (st.spread[i] > 1 && l > most) {
                most = l;
                widest = i;
            }
        }
        if (widest == steps)
            break;
        st.spread[widest] /= 2;
        lanes -= most / 2;
    }
    uint32_t blocks = 0;
    for (uint32_t i = 0; i < steps; i++) {
        const uint32_t n = list_first[i + 1] - list_first[i];
        st.block_first[i] = blocks;
        st.list_first[i] = list_first[i];
        blocks += gpu_blocks(uint64_t(n) * st.spread[i], EC_THREADS);
    }
    st.block_first[steps] = blocks;
    st.list_first[steps] = list_first[steps];
    if (!blocks)
        return;
    ec_decode_pipe<<<blocks, EC_THREADS, 0, s>>>(st, list, b.bands, band_count, b.planes, b.state,
                                                  b.groups, b.stream, b.i32, b.i8, pipe);
    CUDA_CHECK_LAUNCH();
}
