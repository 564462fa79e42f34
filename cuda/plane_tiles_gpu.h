// plane_tiles_gpu.h - the grid of the per-sample plane kernels (planes_gpu.cu, value_map_gpu.cu):
// a block covers TX columns and TY * RY rows of a plane, each thread RY rows TY apart: fewer,
// fuller blocks than one sample per thread (the per-plane fields are read once per thread).
// Launch plane_tiles(rows, cols) blocks of dim3(TX, TY) per plane.
#pragma once

#include <cstdint>

constexpr uint32_t TX = 32, TY = 8, RY = 4;

__host__ __device__ inline uint32_t plane_tiles(uint32_t rows, uint32_t cols)
{
    return ((cols + TX - 1) / TX) * ((rows + TY * RY - 1) / (TY * RY));
}

// This thread's column and first row in tile `tile` of a plane tiled `width` columns wide.
struct TileSpot {
    uint32_t j, i0;
};

__device__ inline TileSpot tile_spot(uint32_t width, uint32_t tile)
{
    const uint32_t tiles_x = (width + TX - 1) / TX;
    return {(tile % tiles_x) * TX + threadIdx.x, (tile / tiles_x) * TY * RY + threadIdx.y};
}

// This block's tile (a block per tile).
__device__ inline TileSpot tile_spot(uint32_t width) { return tile_spot(width, blockIdx.x); }
