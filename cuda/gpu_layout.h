// gpu_layout.h - host-side description of one batch of planes: where every image, band, MQD band
// and group lives in the device arenas, which the kernels read from the tables in gpu_types.h.
// Encoder and decoder build the same layout from the frames' sizes, levels and group sizes.
#pragma once

#include "gpu_types.h"

#include "pcwt.h"

#include <cstdint>
#include <vector>

struct GpuFrame {
    uint32_t plane_first, plane_count;
    uint32_t header_size;
    uint32_t width, height, components, bits_alloc, bits_stored, is_signed, planar;
    uint32_t levels, group_rows, group_cols;
    uint32_t profile;
    uint32_t rct;                     // 1: the value planes hold the colour transform (flag bit 2)
    uint32_t columns_first;           // 1: each level lifts columns first (flag bit 3)
    uint64_t sample_off, sample_size; // in the sample buffer
    uint64_t hdr_prefix;              // header bytes of frames 0..this one (encode layout)
    uint64_t out_start, out_end;      // encode: the frame's codestream in the output buffer
};

struct FrameSpec {              // what the layout needs to know about one frame
    pcwt_image_desc desc;
    uint32_t levels, group_rows, group_cols;
    uint32_t profile;           // PCWT_PROFILE_BASELINE or PCWT_PROFILE_ENTROPY
    uint32_t rct;               // the value planes hold the reversible colour transform
    uint32_t columns_first;     // each level lifts columns first
    uint32_t high[3];           // component c has a high-bit plane
    uint64_t sample_off;
    uint32_t low_bits;          // encode: the pcwt_low_bits asked for
    uint32_t second_bit;        // encode: 1 where the second mantissa bit is modelled (pcwt_second_bit)
    uint32_t value_map;         // encode: the pcwt_value_map_mode asked for (compact profile)
    uint32_t mapped[3][2];      // decode: plane (component, kind) has a value map
    uint32_t offset;            // encode: the pcwt_offset_mode asked for plus 1 (compact profile)
    uint32_t offset_set[3];     // decode: component c's value plane has a modular offset (bit 3)
    uint32_t level1;            // encode: the pcwt_level1_filter asked for
    uint32_t level1_511[3][2];  // decode: plane (component, kind) lifts level 1 with 5/11-C
};

struct BatchLayout {
    std::vector<GpuFrame> frames;
    std::vector<GpuPlane> planes;
    std::vector<GpuBand> bands;
    std::vector<std::vector<GpuLevel>> levels;      // [l-1]: level l of every plane that has it
    std::vector<std::vector<uint32_t>> decode_steps; // bands by depth from the top (coarse first)
    std::vector<uint32_t> level0_planes;            // planes coded without a transform
    std::vector<uint32_t> export_planes;            // decode: planes left to the export pass
    uint64_t i32_size = 0, i8_size = 0, groups = 0;
    uint32_t entropy_planes = 0;                    // planes of profile 1
    uint32_t max_levels = 0;
    uint64_t vmap_words = 0, vmap_bytes = 0;       // the value maps' arenas (GpuPlane::vmap_at)
    uint64_t vmap_cap_max = 0;                      // encode: the largest vmap_cap
    uint32_t vmap_planes = 0;                       // planes with vmap set (encode: also 3)
    uint32_t offset_planes = 0;                     // decode: planes with a modular offset, no map
    uint32_t level1_planes = 0;                     // planes whose level1 is not 5/3
    uint32_t level1_511_planes = 0;                 // planes whose level1 is 5/11-C (not auto)
};

void gpu_build_layout(const std::vector<FrameSpec> &frames, BatchLayout &out);
