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

// How tier-1 spreads code-blocks over warps (j2k_t1_gpu.cu), made once per handle.
struct J2kT1Plan {
    uint32_t warp_slots = 1;  // warps of the tier-1 kernel the device holds at once
    uint32_t fixed_lanes = 0; // 1..32: that many code-blocks a warp (pcwt_gpu_j2k_set_t1_lanes)
    uint32_t ht_slots = 1;    // warps of the HT kernel the device holds at once
    uint32_t ht_lanes = 0;    // 1..32: HT code-blocks a warp (pcwt_gpu_j2k_set_ht_lanes); 0: j2k_ht_lanes
};
J2kT1Plan j2k_t1_plan(int device);
// Warps of `kernel` the device holds at once, in blocks of `threads` with `smem` bytes of dynamic
// shared memory each (j2k_ht_gpu.cu).
uint32_t j2k_warp_slots(int device, const void *kernel, int threads, size_t smem);
// HT code-blocks a warp for a chunk of `count` on a device holding ht_slots warps: 8, fewer (down
// to 1) for a chunk of fewer code-blocks than ht_slots (j2k_ht_gpu.cu).
uint32_t j2k_ht_lanes(uint64_t count, uint32_t ht_slots);
uint32_t j2k_ht_warp_slots(int device);
// A code-block's cost (the launch order, heaviest first, and the packing): passes x area plus
// 64 x its codeword bytes.
uint64_t j2k_t1_cost(const pcwt_j2k_cblk &cb, uint64_t bytes);
// The warps of a chunk whose code-blocks (in launch order) cost `cost`: warp w takes code-blocks
// warp_first[w] .. warp_first[w + 1] - 1.
void j2k_t1_warps(const std::vector<uint64_t> &cost, const J2kT1Plan &p, std::vector<uint32_t> &warp_first);
// Tier-1 of every code-block, warp_first (device) as j2k_t1_warps made it.
void j2k_gpu_t1(const J2kGpuChunk &c, const uint32_t *warp_first, uint32_t warps, cudaStream_t s);
// The HT code-blocks first .. first + count - 1 (j2k_ht_gpu.cu), none wider than max_width, `lanes`
// (1..32) a warp; a failure's PCWT_J2K_HT_* code in *status (device, zeroed by the caller).
void j2k_gpu_ht(const J2kGpuChunk &c, uint32_t first, uint32_t count, uint32_t max_width, uint32_t lanes,
                uint32_t *status, cudaStream_t s);
// The inverse 5/3 DWT of every tile-component, then the output samples (j2k_idwt_gpu.cu).
// step_pixels[r - 1]: the largest region of level step r (1: the coarsest) over the chunk.
void j2k_gpu_idwt(const J2kGpuChunk &c, const std::vector<uint64_t> &step_pixels, cudaStream_t s);
void j2k_gpu_output(const J2kGpuChunk &c, cudaStream_t s);
