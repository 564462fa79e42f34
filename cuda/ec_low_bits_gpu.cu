// ec_low_bits_gpu.cu - the entropy profile's low-bit decision on the GPU (the twin of
// pcwt_ec_low_bits_wanted, codec/src/group_coder_ec.c): a warp per group tallies the low bits of
// its coefficients into its plane's counts, then a thread per plane decides with the CPU's own
// integer rule (pcwt_ec_low_worth, ec_group_coder.h), so both write the same option bit.
#include "gpu_check.h"
#include "gpu_groups.h"
#include "gpu_kernels.h"

namespace {

// A warp per group of the planes that decide (profile 1, PCWT_LOW_BITS_AUTO); a lane takes a
// column of the group's elements in the rows that the decision counts (PCWT_EC_LOW_ROW_STEP), so
// a warp reads whole rows of coefficients (several rows at once in groups narrower than a warp).
__global__ void low_bits_tally(const GpuBand *bands, uint32_t band_count, const GpuPlane *planes,
                               GpuPlaneState *state, const int32_t *__restrict__ i32, uint64_t n,
                               bool only_511)
{
    const uint64_t g = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x & 31;
    if (g >= n)
        return;
    const GpuBand b = bands[find_band(bands, band_count, g)];
    const GpuPlane p = planes[b.plane];
    if (p.profile != PCWT_PROFILE_ENTROPY || p.low_bits != PCWT_LOW_BITS_AUTO ||
        (only_511 && !state[b.plane].f511))
        return;
    const GroupPos q = group_pos(b, p, g);
    // a group's first row is a multiple of the group height, not always of the step
    const uint32_t first = (q.gx + PCWT_EC_LOW_ROW_STEP - 1) / PCWT_EC_LOW_ROW_STEP * PCWT_EC_LOW_ROW_STEP;
    uint32_t cn[3] = {0, 0, 0}, ones[3] = {0, 0, 0};
    const uint32_t w = lanes_per_row(q.vc), rows = 32 / w;
    for (uint32_t y = q.gy + lane % w; y < q.gy + q.vc; y += w) {
        for (uint32_t x = first + lane / w * PCWT_EC_LOW_ROW_STEP; x < q.gx + q.vr;
             x += rows * PCWT_EC_LOW_ROW_STEP) {
            const int32_t *c0 = i32 + b.coef + uint64_t(2 * x) * b.cols + 2 * y;
            pcwt_ec_low_tally(pcwt_magnitude(c0[0]), cn, ones);
            pcwt_ec_low_tally(pcwt_magnitude(c0[1]), cn, ones);
            pcwt_ec_low_tally(pcwt_magnitude(c0[b.cols]), cn, ones);
            pcwt_ec_low_tally(pcwt_magnitude(c0[b.cols + 1]), cn, ones);
        }
    }
    for (int k = 0; k < 3; k++) {
        for (int off = 16; off > 0; off >>= 1) {
            cn[k] += __shfl_xor_sync(0xffffffffu, cn[k], off);
            ones[k] += __shfl_xor_sync(0xffffffffu, ones[k], off);
        }
    }
    if (lane == 0) {
        GpuPlaneState &st = state[b.plane];
        for (int k = 0; k < 3; k++) {
            if (cn[k])
                atomicAdd(&st.low_n[k], (unsigned long long)cn[k]);
            if (ones[k])
                atomicAdd(&st.low_ones[k], (unsigned long long)ones[k]);
        }
    }
}

// Each plane's decision; the counts are cleared for the next run of the same batch.
__global__ void low_bits_decide(const GpuPlane *planes, GpuPlaneState *state, uint32_t count,
                                bool only_511)
{
    const uint32_t pi = blockIdx.x * blockDim.x + threadIdx.x;
    if (pi >= count || (only_511 && !state[pi].f511))
        return;
    const GpuPlane &p = planes[pi];
    GpuPlaneState &st = state[pi];
    pcwt_ec_low_stats s;
    for (int k = 0; k < 3; k++) {
        s.n[k] = st.low_n[k];
        s.ones[k] = st.low_ones[k];
        st.low_n[k] = st.low_ones[k] = 0;
    }
    const bool low = p.profile == PCWT_PROFILE_ENTROPY &&
                     (p.low_bits == PCWT_LOW_BITS_ON ||
                      (p.low_bits == PCWT_LOW_BITS_AUTO && pcwt_ec_low_worth(&s)));
    const bool second = p.profile == PCWT_PROFILE_ENTROPY && p.second_bit;
    st.low = (uint32_t)pcwt_ec_modelled_bits(low, second);
}

} // namespace

void gpu_ec_low_bits(const DeviceBatch &b, uint64_t groups, uint32_t band_count,
                     uint32_t plane_count, cudaStream_t s, bool only_511)
{
    if (groups) {
        low_bits_tally<<<gpu_blocks(groups * 32, 256), 256, 0, s>>>(b.bands, band_count, b.planes,
                                                                    b.state, b.i32, groups, only_511);
        CUDA_CHECK_LAUNCH();
    }
    if (plane_count) {
        low_bits_decide<<<gpu_blocks(plane_count, 128), 128, 0, s>>>(b.planes, b.state,
                                                                     plane_count, only_511);
        CUDA_CHECK_LAUNCH();
    }
}
