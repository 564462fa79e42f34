// offset_gpu.h - the modular offset's estimate on the GPU (docs/FORMAT.md Sec. 5.6, offset_gpu.cu):
// the cost sums of the cuts over a plane's neighbour pairs, shared by the value maps' bitmap pass
// (value_map_gpu.cu, the cuts at 0 and 2^(bits-1)) and the gap candidate's own pass.
#pragma once

#include "plane_tiles_gpu.h"
#include "samples_gpu.h"

// The stored value u (the low bits_stored bits) of value plane p at pixel (i, j).
__device__ inline uint32_t offset_u(const GpuPlane &p, const uint8_t *samples, uint32_t i, uint32_t j)
{
    return uint32_t(plane_value(p, samples, i, j)) & ((1u << p.bits_stored) - 1u);
}

// The left (j > 0) and upper (i > 0) neighbours of this lane's pixel (i, j), u its value: the lane
// to the left holds its left neighbour, but for lane 0. Every lane of the warp calls it.
template <typename F>
__device__ inline void offset_pairs(const GpuPlane &p, const uint8_t *samples, uint32_t i, uint32_t j, bool here,
                                    uint32_t u, F pair)
{
    uint32_t left = __shfl_up_sync(0xffffffffu, u, 1);
    if (!here)
        return;
    if (j > 0) {
        if (threadIdx.x == 0)
            left = offset_u(p, samples, i, j - 1);
        pair(u, left);
    }
    if (i > 0)
        pair(u, offset_u(p, samples, i - 1, j));
}

// Adds a block's n sums (each thread's) to to[0 .. n-1]: a warp's sums, then one atomic per block.
// Every thread of the block calls it. T: 32 bits where a warp's sum fits them.
template <typename T, uint32_t n> __device__ inline void offset_block_add(T (&sum)[n], unsigned long long *to)
{
    __shared__ unsigned long long s_sum[n];
    const uint32_t tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < n)
        s_sum[tid] = 0;
    __syncthreads();
    for (uint32_t k = 0; k < n; k++) {
        T x = sum[k];
        for (uint32_t d = 16; d; d >>= 1)
            x += __shfl_down_sync(0xffffffffu, x, d);
        if ((tid & 31u) == 0 && x)
            atomicAdd(&s_sum[k], (unsigned long long)x);
    }
    __syncthreads();
    if (tid < n && s_sum[tid])
        atomicAdd(&to[tid], s_sum[tid]);
}
