// mqd_gpu.cu - MQDs and Qmax of planes coded without a transform (their LL band is the padded
// image: type-1 MQDs only), the GPU twin of codec/src/mqd.c's pcwt_mqd_band on level 0. The MQDs
// of transformed levels are stored by the forward transform (dwt53_gpu.cu) through mqd_gpu.h;
// those of the planes whose level 1 then took 5/11-C are made again here from their bands (where
// auto took it, as its 5/11-C bands are put in place).
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

// One level of the planes whose level 1 took 5/11-C: an element's MQDs from its bands'
// coefficients (and the finer level's MQDs), as the forward transform stores them; LL's only on
// the top level, where it has MQDs. On level 1 (finest) of the auto planes, the 5/11-C high bands
// are read from where fwd_level1_511<true> left them (the plane's image, N x M each) and put over
// the 5/3 ones as they are read; the padding, 0 with either filter, stays. A thread's loads are
// issued together (one after the other, each store in between, they waited on each other).
__global__ void mqd_level_511(const GpuLevel *levels, const GpuBand *bands, const GpuPlane *planes,
                              GpuPlaneState *state, int32_t *i32, int8_t *i8, bool finest)
{
    const GpuLevel e = levels[blockIdx.y];
    if (!state[e.plane].f511)
        return; // the whole block
    const uint32_t mr = e.br / 2, mc = e.bc / 2, tiles_x = (mc + TX - 1) / TX;
    const uint32_t y = (blockIdx.x % tiles_x) * TX + threadIdx.x;
    const uint32_t x = (blockIdx.x / tiles_x) * TY + threadIdx.y;
    if ((blockIdx.x / tiles_x) * TY >= mr)
        return; // the whole block
    int top = -1;
    if (x < mr && y < mc) {
        const bool take = finest && planes[e.plane].level1 == PCWT_LEVEL1_AUTO;
        const uint64_t N = e.r / 2, M = e.c / 2, image = planes[e.plane].image;
        const uint64_t off[4] = {e.ll, bands[e.b_hl].coef, bands[e.b_lh].coef, bands[e.b_hh].coef};
        // the element's coefficients [LL, HL, LH, HH][TL, TR, BL, BR], all loaded before any is
        // used or stored (LL's only where its MQDs are wanted); from: taken from 5/11-C's bands
        int32_t c[4][4];
        uint32_t from = 0;
#pragma unroll
        for (uint32_t k = 0; k < 4; k++)
#pragma unroll
            for (uint32_t q = 0; q < 4; q++) {
                const uint64_t i = 2 * x + q / 2, m = 2 * y + q % 2;
                const bool f = take && k && i < N && m < M;
                from |= uint32_t(f) << (4 * k + q);
                c[k][q] = k == 0 && !e.top ? 0
                          : f              ? i32[image + (k - 1) * N * M + i * M + m]
                                           : i32[off[k] + i * e.bc + m];
            }
        uint32_t a[4] = {0, 0, 0, 0}; // LL, HL, LH, HH
#pragma unroll
        for (uint32_t k = 0; k < 4; k++)
#pragma unroll
            for (uint32_t q = 0; q < 4; q++) {
                if (from >> (4 * k + q) & 1u)
                    i32[off[k] + (2 * x + q / 2) * uint64_t(e.bc) + 2 * y + q % 2] = c[k][q];
                a[k] |= pcwt_magnitude(c[k][q]);
            }
        top = store_mqds(e, bands, i8, x, y, a[0], a[1], a[2], a[3]);
    }
    if (e.top) // uniform per block
        warp_qmax(top, &state[e.plane].qmax);
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

void gpu_mqd_level_511(const DeviceBatch &b, const GpuLevel *lv, uint32_t count, const GpuLevelMax &m,
                       bool finest, cudaStream_t s)
{
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        mqd_level_511<<<dim3(tiles(m.r / 4 + 1, m.bc / 2), n), dim3(TX, TY), 0, s>>>(
            lv + first, b.bands, b.planes, b.state, b.i32, b.i8, finest);
        CUDA_CHECK_LAUNCH();
    });
}
