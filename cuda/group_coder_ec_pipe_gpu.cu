// group_coder_ec_pipe_gpu.cu - the range-coded groups of the entropy profile decoded with the
// levels overlapping (PCWT_EC_PIPE=1 or 2): one launch for all decode steps instead of one per
// step. A group reads, for its row x, only row x / 2 of one parent group (the MQDs one level up;
// even group sizes), so it waits for that row, not for the whole coarser level: each group
// publishes how many of its rows are decoded, and the chain of levels costs about one group's
// serial decode instead of one per level. Same bytes and checks as group_coder_ec_decode_gpu.cu,
// whose step launches still decode a batch whose steps hold raw-mode records (this launch then
// leaves at once).
//
// The parent MQDs are written in this launch by other multiprocessors, so every stream word here
// is loaded past L1 (word_window.h), and the blocks take their place in the steps from a ticket, in
// the order they start: a block only ever waits for blocks that started before it.

#define PCWT_GPU_WORDS_LOAD __ldcg
#define PCWT_EC_ROW_BEGIN(b, x) pipe_row_begin((b), (x))
#define PCWT_EC_ROW_END(b, x) pipe_row_end((b), (x))

#include <cstdint>
#include <cstdlib>
#include <cstring>

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
    while (pb->seen < need) {
        pb->seen = load_acquire(pb->pdone);
        if (pb->seen < need)
            __nanosleep(200);
    }
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

struct PipeSteps {
    uint32_t count;
    uint32_t block_first[PIPE_STEPS + 1]; // step st: blocks block_first[st] .. block_first[st + 1]
    uint32_t list_first[PIPE_STEPS + 1];  // its groups in the list
    uint32_t spread[PIPE_STEPS];          // lanes per group (gpu_ec_decode's choice for the step)
};

// pipe[0]: nonzero when some step holds a raw-mode record (ec_order_keys); pipe[1]: the tickets;
// pipe[2 + g]: group g's rows decoded. (At most 128 registers, as ec_decode.)
__global__ void __launch_bounds__(EC_THREADS, 8) ec_decode_pipe(
    PipeSteps st, const uint32_t *list, const GpuBand *bands, uint32_t band_count,
    const GpuPlane *planes, GpuPlaneState *state, const GpuGroup *groups,
    const uint8_t *__restrict__ stream, int32_t *i32, int8_t *i8, uint32_t *pipe)
{
    __shared__ pcwt_bit_model models[PCWT_EC_ALL * EC_THREADS];
    __shared__ uint32_t s_block;
    if (*(volatile uint32_t *)pipe)
        return; // the step launches decode this batch
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
    if (!grp.entropy || state[b.plane].error) {
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
    int ok; // a copy for each value of the low-bit option, as ec_decode
    if (p.low_bits) {
        pb.v.low = 1;
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
    if (b.parent < 0) { // top level: Qmax must be the largest MQD there
        const pcwt_ec_band &v = pb.v;
        int top = -1;
        for (uint32_t x = sp.gx; x < sp.xe; x++)
            for (uint32_t y = sp.gy; y < sp.ye; y++)
                top = max(top, int(v.mqd[uint64_t(x) * v.mcols + y]));
        if (top >= 0)
            atomicMax(&state[b.plane].qmax, top);
    }
}

} // namespace

void gpu_ec_pipe_init()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_init, pcwt_ec_init_p, sizeof pcwt_ec_init_p));
    CUDA_CHECK(cudaFuncSetAttribute(ec_decode_pipe, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
}

bool gpu_ec_pipe_wanted(const BatchLayout &L)
{
    const char *e = std::getenv("PCWT_EC_PIPE");
    if (!e || (std::strcmp(e, "1") != 0 && std::strcmp(e, "2") != 0) || !L.entropy_planes ||
        L.decode_steps.size() > PIPE_STEPS)
        return false;
    for (const GpuPlane &p : L.planes) // a child group's rows / 2 in one parent group
        if (p.profile != PCWT_PROFILE_BASELINE && (p.group_rows % 2 || p.group_cols % 2))
            return false;
    return true;
}

size_t gpu_ec_pipe_bytes(const BatchLayout &L) { return 4 * (2 + size_t(L.groups)); }

void gpu_ec_decode_pipe(const DeviceBatch &b, const uint32_t *list, const uint32_t *list_first,
                        uint32_t steps, uint32_t band_count, uint32_t *pipe, cudaStream_t s)
{
    PipeSteps st{};
    st.count = steps;
    // PCWT_EC_PIPE=2 (for measuring): every step spread as one step of all the groups would be,
    // so that the whole launch fits the lanes the device holds at once
    const char *e = std::getenv("PCWT_EC_PIPE");
    const bool together = e && std::strcmp(e, "2") == 0;
    uint32_t blocks = 0;
    for (uint32_t i = 0; i < steps; i++) {
        const uint32_t n = list_first[i + 1] - list_first[i];
        st.block_first[i] = blocks;
        st.list_first[i] = list_first[i];
        st.spread[i] = gpu_ec_decode_spread(together ? list_first[steps] : n);
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
