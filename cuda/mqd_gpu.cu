// mqd_gpu.cu - MQDs and Qmax of planes coded without a transform (their LL band is the padded
// image: type-1 MQDs only), the GPU twin of codec/src/mqd.c's pcwt_mqd_band on level 0. The MQDs
// of transformed levels are stored by the forward transform (dwt53_gpu.cu) through mqd_gpu.h.
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "mqd_gpu.h"

namespace {

constexpr int TX = 32, TY = 8; // a block of TY x TX MQD elements

// Planes coded without a transform: the LL band is the padded image (type-1 MQDs only).
__global__ void mqd_level0(const uint32_t *plane_ids, const GpuPlane *planes, const GpuBand *bands,
                           GpuPlaneState *state, const int32_t *i32, int8_t *i8)
{
    const GpuPlane p = planes[plane_ids[blockIdx.y]];
    const GpuBand b = bands[p.band_first];
    const uint32_t tiles_x = (b.mcols + TX - 1) / TX;
    const uint32_t y = (blockIdx.x % tiles_x) * TX + threadIdx.x;
    const uint32_t x = (blockIdx.x / tiles_x) * TY + threadIdx.y;
    int m = -1;
    if (x < b.mrows && y < b.mcols) {
        const int32_t *r0 = i32 + b.coef + uint64_t(2 * x) * b.cols + 2 * y;
        const int32_t *r1 = r0 + b.cols;
        m = pcwt_ql_of_magnitude(pcwt_magnitude(r0[0]) | pcwt_magnitude(r0[1]) | pcwt_magnitude(r1[0]) | pcwt_magnitude(r1[1]));
        i8[b.mqd + uint64_t(x) * b.mcols + y] = int8_t(m);
    }
    warp_qmax(m, &state[plane_ids[blockIdx.y]].qmax);
}

uint32_t tiles(uint32_t rows, uint32_t cols) { return ((cols + TX - 1) / TX) * ((rows + TY - 1) / TY); }

} // namespace

void gpu_mqd_level0(const DeviceBatch &b, uint32_t count, uint32_t max_mr, uint32_t max_mc,
                    cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        mqd_level0<<<dim3(tiles(max_mr, max_mc), n), dim3(TX, TY), 0, s>>>(
            b.level0 + first, b.planes, b.bands, b.state, b.i32, b.i8);
        CUDA_CHECK_LAUNCH();
    });
}
