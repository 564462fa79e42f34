// level1_choice_gpu.cu - the encoder's level-1 filter per plane on the GPU (the twin of encoder.c's
// forward_plane): the decision from the estimates that the level-1 lift summed (dwt53_gpu.cu's
// fwd_level1_511<true>), and the 5/11-C high bands of the auto planes that take it put over
// their 5/3 ones from where that lift left them.
#include "gpu_check.h"
#include "gpu_kernels.h"

namespace {

// A thread per plane: 5/11-C where asked, or with auto where the low bits are not modelled and
// its estimate is smaller (encoder.c's forward_plane); the estimates cleared for the next run of
// the batch, and the Qmax of a plane that takes it made again (gpu_mqd_level_511).
__global__ void level1_decide(const GpuPlane *planes, GpuPlaneState *state, uint32_t count)
{
    const uint32_t pi = blockIdx.x * blockDim.x + threadIdx.x;
    if (pi >= count)
        return;
    GpuPlaneState &st = state[pi];
    const uint32_t f = planes[pi].level1;
    st.f511 = f == PCWT_LEVEL1_511 || (f == PCWT_LEVEL1_AUTO && !st.low && st.cost511 < st.cost53);
    st.cost53 = st.cost511 = 0;
    if (st.f511)
        st.qmax = -1;
}

// The 5/11-C high bands of the auto planes that take it, from where fwd_level1_511<true>
// left them (their images) over the 5/3 ones; the padding, 0 with either filter, stays.
__global__ void take_511(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                         const GpuPlaneState *state, int32_t *i32)
{
    const GpuLevel e = levels[blockIdx.y];
    if (!state[e.plane].f511 || planes[e.plane].level1 != PCWT_LEVEL1_AUTO)
        return;
    const uint64_t N = e.r / 2, M = e.c / 2, k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= 3 * N * M)
        return;
    const uint64_t o = k / (N * M), i = k % (N * M) / M, m = k % M;
    i32[bands[o == 0 ? e.b_hl : o == 1 ? e.b_lh : e.b_hh].coef + i * e.bc + m] = i32[planes[e.plane].image + k];
}

} // namespace

void gpu_level1_choose(const DeviceBatch &b, const GpuLevel *lv, uint32_t count, const GpuLevelMax &m,
                       uint32_t plane_count, cudaStream_t s)
{
    level1_decide<<<gpu_blocks(plane_count, 128), 128, 0, s>>>(b.planes, b.state, plane_count);
    CUDA_CHECK_LAUNCH();
    const uint64_t most = 3 * uint64_t(m.r / 2) * m.bc; // at least each plane's 3 N M
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        take_511<<<dim3(gpu_blocks(most, 256), n), 256, 0, s>>>(lv + first, b.bands, b.planes, b.state, b.i32);
        CUDA_CHECK_LAUNCH();
    });
}
