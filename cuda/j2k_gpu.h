// j2k_gpu.h - the device side of JPEG 2000 decoding (pcwt_gpu_j2k_decode_batch, j2k_decode_gpu.cu):
// what one chunk of a batch (j2k_batch.h) looks like on the device and the stages' launchers.
// Offsets into the coefficient buffer are the chunk's (the batch's minus the chunk's first).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "j2k_batch.h"
}

// A tile-component: its coefficients and levels.
struct J2kGpuTc {
    uint64_t off;
    uint32_t width, height, levels;
};

// A frame: its components' tile-components and where its samples go in the output buffer.
struct J2kGpuFrame {
    uint64_t out_off;   // bytes into the chunk's output buffer
    uint32_t tc[3];     // indices into the chunk's tile-components
    uint32_t components, rct, precision, is_signed;
    uint32_t width, height, bytes, planar; // bytes per sample word (1 or 2)
};

// Everything one chunk needs on the device.
struct J2kGpuChunk {
    const uint8_t *data;
    const pcwt_j2k_seg *segs;
    const pcwt_j2k_cblk *cblks; // out_offset rebased to the chunk
    uint32_t cblk_count;
    uint16_t *state;            // tier-1's state words, code-block i's at state_off[i]
    const uint64_t *state_off;
    const J2kGpuTc *tcs;
    uint32_t tc_count, max_levels;
    const J2kGpuFrame *frames;
    uint32_t frame_count;
    uint32_t max_frame_pixels;
    int32_t *coefs, *tmp;       // the coefficients and the inverse DWT's other buffer
    uint8_t *out;
};

// Tier-1 of every code-block (j2k_t1_gpu.cu); schedulers: the device's warp schedulers (4 per SM).
void j2k_gpu_t1(const J2kGpuChunk &c, uint32_t schedulers, cudaStream_t s);
// Code-blocks a warp takes: 32, or fewer down to 1 while the warps still fit the schedulers.
uint32_t j2k_t1_lanes(uint32_t cblks, uint32_t schedulers);
// The inverse 5/3 DWT of every tile-component, then the output samples (j2k_idwt_gpu.cu).
// step_pixels[r - 1]: the largest region of level step r (1: the coarsest) over the chunk.
void j2k_gpu_idwt(const J2kGpuChunk &c, const std::vector<uint64_t> &step_pixels, cudaStream_t s);
void j2k_gpu_output(const J2kGpuChunk &c, cudaStream_t s);
