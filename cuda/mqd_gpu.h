// mqd_gpu.h - MQDs and Qmax on the GPU, the twin of codec/src/mqd.c: an element's MQDs from its
// coefficients' magnitude bits and the finer level's MQDs (its children), and a warp's largest
// top-level MQD into the plane's Qmax. Inlined by the forward transform (dwt53_gpu.cu), which
// stores the MQDs of the elements it lifts, and by mqd_level0 (mqd_gpu.cu), for planes coded
// without a transform.
#pragma once

#include "gpu_types.h"

extern "C" {
#include "mqd.h"
}

namespace {

// Largest child MQD among (2x+dx, 2y+dy), ignoring positions outside the child band.
__device__ inline int child_max(const GpuBand *bands, const int8_t *i8, int child, uint32_t x,
                                uint32_t y)
{
    if (child < 0)
        return -1;
    const GpuBand c = bands[child];
    int m = -1;
    for (uint32_t dx = 0; dx < 2; dx++)
        for (uint32_t dy = 0; dy < 2; dy++) {
            const uint32_t xx = 2 * x + dx, yy = 2 * y + dy;
            if (xx < c.mrows && yy < c.mcols)
                m = max(m, int(i8[c.mqd + uint64_t(xx) * c.mcols + yy]));
        }
    return m;
}

__device__ inline void warp_qmax(int m, int32_t *qmax)
{
    for (int off = 16; off > 0; off >>= 1)
        m = max(m, __shfl_xor_sync(0xffffffffu, m, off));
    if ((threadIdx.x & 31) == 0 && m > -1)
        atomicMax(qmax, m);
}

// The MQDs of element (x, y) of level e from its coefficients' magnitude bits (with the finer
// level's MQDs as children); returns the element's largest MQD on the top level, else -1.
__device__ inline int store_mqds(const GpuLevel &e, const GpuBand *bands, int8_t *i8, uint32_t x,
                                 uint32_t y, uint32_t a_ll, uint32_t a_hl, uint32_t a_lh,
                                 uint32_t a_hh)
{
    const uint64_t mi = uint64_t(x) * (e.bc / 2) + y;
    const int m_hl = max(pcwt_ql_of_magnitude(a_hl), child_max(bands, i8, e.child_hl, x, y));
    const int m_lh = max(pcwt_ql_of_magnitude(a_lh), child_max(bands, i8, e.child_lh, x, y));
    const int m_hh = max(pcwt_ql_of_magnitude(a_hh), child_max(bands, i8, e.child_hh, x, y));
    i8[bands[e.b_hl].mqd + mi] = int8_t(m_hl);
    i8[bands[e.b_lh].mqd + mi] = int8_t(m_lh);
    i8[bands[e.b_hh].mqd + mi] = int8_t(m_hh);
    if (!e.top)
        return -1;
    const int m_ll = pcwt_ql_of_magnitude(a_ll);
    i8[bands[e.b_ll].mqd + mi] = int8_t(m_ll);
    return max(max(m_ll, m_hl), max(m_lh, m_hh));
}

} // namespace
