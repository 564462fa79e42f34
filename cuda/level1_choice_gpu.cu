// level1_choice_gpu.cu - the encoder's level-1 filter per plane on the GPU (the twin of encoder.c's
// forward_plane): the decision from the estimates that the level-1 lift summed (dwt53_gpu.cu's
// fwd_level1_511<true>). The 5/11-C high bands of the auto planes that take it are put over their
// 5/3 ones by gpu_mqd_level_511 on level 1, as it makes their MQDs again.
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "ec_model.h"

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
    st.f511 = f == PCWT_LEVEL1_511 || (f == PCWT_LEVEL1_AUTO && !(st.low & PCWT_EC_LOW_BITS) &&
                                         st.cost511 < st.cost53);
    st.cost53 = st.cost511 = 0;
    if (st.f511)
        st.qmax = -1;
}

} // namespace

void gpu_level1_choose(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    level1_decide<<<gpu_blocks(plane_count, 128), 128, 0, s>>>(b.planes, b.state, plane_count);
    CUDA_CHECK_LAUNCH();
}
