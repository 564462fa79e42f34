// gpu_types.h - the tables that describe a batch to the kernels, built on the host
// (gpu_layout.cpp) and copied to the device once per batch. Offsets index the batch's arenas:
// `i32` (coefficients and images), `i8` (MQDs), the sample buffer and the codestream buffer.
#pragma once

#include "hostdev.h"

#include <cstdint>

struct GpuPlane {
    uint32_t frame, comp, kind;   // kind 0: values, 1: bits above bits_stored
    uint32_t profile;             // the groups' coding: PCWT_PROFILE_BASELINE or PCWT_PROFILE_ENTROPY
                                  // (also for the compact profile's planes)
    uint32_t rows, cols, levels;  // image size, levels applied
    uint32_t group_rows, group_cols;              // group size
    uint64_t image;               // i32 offset: even(rows) x even(cols)
    uint32_t band_first, band_count;
    uint64_t group_first;
    uint32_t group_count;
    // the frame's samples
    uint64_t sample_off;          // byte offset in the sample buffer
    uint32_t components, bits_alloc, bits_stored, is_signed, planar;
    // the reversible colour transform (docs/FORMAT.md Sec. 2.1): the value planes of the frame's
    // three components hold it; rct_image: their i32 offsets, in component order
    uint32_t rct;
    uint64_t rct_image[3];
    // codestream position of this plane's payload (decode: known from the header; encode: from
    // the scan of group sizes)
    uint64_t payload_off, payload_len;
    uint32_t crc_expected;        // decode: from the header
    int32_t qmax;                 // decode: from the header
    // profile 1's modelled low bits: encode, the pcwt_low_bits asked for; decode, the plane's
    // modelled bits from the header's option bits 0 and 4 (PCWT_EC_LOW_BITS | PCWT_EC_SECOND_BIT)
    uint32_t low_bits;
    uint32_t second_bit;          // encode: 1 where the second mantissa bit is modelled
    // The compact profile's value map (docs/FORMAT.md Sec. 5.5, value_map_gpu.cu). Encode: vmap = 1
    // where the plane may get one; its bitmap of the values from vmap_base (vmap_words words, at
    // u32 offset vmap_at + 1 of the batch's vmap arena, after a word saying whether the plane is
    // mapped, and before the words' rank prefix), the coded map at byte vmap_bytes_at of its own
    // arena, at most vmap_cap bytes. Decode: vmap = 1 where the header's option bit 1 is set;
    // the map's values at u32 offset vmap_at, room for vmap_cap of them. vmap = 3: the plane has
    // no value map but may take a modular offset (encode only: the bitmap, for the offset's
    // estimate; a decoded plane with option bit 3 alone has vmap = 0 and offset = 1).
    // The level-1 filter (docs/FORMAT.md Sec. 3.4), a PCWT_LEVEL1_* value. Encode: the one asked
    // for (53 where the plane cannot take 5/11-C: baseline, no transform); decode: 511 where the
    // header's option bit 2 is set, else 53.
    uint32_t level1;
    // The modular offset (docs/FORMAT.md Sec. 5.6, offset_gpu.cu). Encode: 0 where the plane may
    // not take one, else the pcwt_offset_mode asked for plus 1; decode: 1 where option bit 3 is set.
    uint32_t offset;
    uint32_t vmap;
    int32_t vmap_base;
    uint32_t vmap_words;
    uint64_t vmap_at, vmap_bytes_at, vmap_cap;
};

// Value planes without the colour transform are exported by their finest inverse row pass
// (dwt53_gpu.cu); the export pass (planes_gpu.cu) takes the rest: no transform, colour, high bits.
// A mapped plane's ranks go to the export pass, which reads them through its map (vmap 3 has
// none).
PCWT_HD inline bool exported_by_inverse(const GpuPlane &p)
{
    return p.kind == 0 && !p.rct && p.levels > 0 && (!p.vmap || p.vmap == 3);
}

// Decode: the plane's payload starts with r0 and/or its map's bytes (GpuPlaneState::map_len).
PCWT_HD inline bool payload_prefixed(const GpuPlane &p)
{
    return p.vmap || p.offset;
}

struct GpuBand {
    uint64_t coef;                // i32 offset, rows x cols
    uint64_t mqd;                 // i8 offset, mrows x mcols
    uint32_t rows, cols, mrows, mcols;
    uint32_t plane, level;
    int32_t parent;               // band index one level coarser, same orientation; -1: top level
    uint32_t gcols;               // groups per row of groups
    uint64_t group_first;
    uint32_t group_count;
};

struct GpuLevel {                 // one decomposition level of one plane
    uint32_t plane;
    uint32_t r, c, br, bc;        // level input size, band size
    uint64_t in;                  // i32 offset of the level input (r x c)
    uint32_t b_ll, b_hl, b_lh, b_hh; // band indices (b_ll: the LL output, a band only at the top)
    uint64_t ll;                  // i32 offset of this level's LL output (br x bc)
    int32_t child_hl, child_lh, child_hh; // band indices one level finer, -1 at level 1
    uint32_t top;                 // 1 on the plane's top level
    uint32_t columns_first;       // 1: the frame lifts columns first (header flag bit 3)
};

struct GpuLevelMax {              // what a level's launch must cover, over all its planes
    uint32_t r = 0, bc = 0;       // largest level input rows, band columns
    bool rows_first = false;      // some plane lifts rows first
    bool columns_first = false;   // some plane lifts columns first
};

struct GpuGroup {                 // filled on the device
    uint64_t offset;              // byte offset of the group record in the codestream buffer
    uint32_t bits;                // bits of the group's baseline bit string
    uint32_t bytes;               // length of the record
    uint16_t head;                // bytes before the payload: 4 (baseline), the LEB128s (profile 1)
    uint16_t entropy;             // profile 1: 1 = range-coded record, 0 = baseline bit string
    uint32_t alen, rlen;          // entropy records: range-coder and raw stream bytes
};

struct GpuCrcPart {               // CRC-32 of one span of a plane's payload (crc32_gpu.cu)
    uint64_t len;
    uint32_t crc, pad;
};

// Per-plane results and error flags written by the kernels.
struct GpuPlaneState {
    int32_t qmax;                 // encode: Qmax; decode: largest decoded top-level MQD
    uint32_t crc;                 // CRC-32 of the payload
    uint32_t error;               // decode: nonzero = first error code (GpuError)
    uint32_t low;                 // encode: the plane's modelled bits, PCWT_EC_LOW_BITS |
                                  // PCWT_EC_SECOND_BIT (ec_low_bits_gpu.cu)
    uint64_t payload_off, payload_len; // encode: where the plane's payload landed
    unsigned long long low_n[3], low_ones[3]; // encode: pcwt_ec_low_stats, summed by groups
    // The plane's value map: its coded bytes at the start of the payload (map_len), 1 in mapped
    // where it has one (encode: decided on the device; decode: read). Encode: map_cpu = 1 where
    // the map did not fit its arena (the frame is coded on the CPU). Decode: map_count values;
    // map_refused = 1 where the map failed pcwt_vmap_read_head/_values (the plane's error once its
    // CRC has passed, as the CPU checks the CRC first).
    uint32_t map_len, mapped, map_cpu, map_count, map_refused;
    // Encode: f511 = 1 where level 1 took 5/11-C (option bit 2, dwt53_gpu.cu decides); the level-1
    // estimates of auto (pcwt_bit_cost sums of the high bands with either filter), cleared once read.
    uint32_t f511;
    unsigned long long cost53, cost511;
    // The modular offset: offset = 1 where the plane has one (encode: option bit 3), r0 (decode:
    // read from the payload); encode, the estimate's costs of the cuts at 0, at 2^(bits-1) and at
    // the gap candidate off_gap (offset_gpu.cu), cleared once read; off_need = 1 where the gap's
    // cost takes its own pass. Decode: map_refused = 2 where the payload's r0 is missing or not
    // below 2^bits.
    uint32_t offset, r0, off_gap, off_need;
    unsigned long long off_cost[3];
};

enum GpuError : uint32_t {
    GPU_OK = 0,
    GPU_ERR_GROUP_BOUNDS = 1,     // a group length runs past the payload
    GPU_ERR_GROUP_BITS = 2,       // decoded bits differ from the declared length
    GPU_ERR_NEG_ZERO = 3,         // invalid coefficient code
    GPU_ERR_QMAX = 4,             // Qmax is not the largest top-level MQD
    GPU_ERR_RANGE = 5,            // decoded sample out of range
    GPU_ERR_CRC = 6,              // payload CRC mismatch
    GPU_ERR_TRAILING = 7,         // bytes after the last group
    GPU_ERR_MQD = 8,              // an MQD above its element's largest level
    GPU_ERR_VALUE_MAP = 9,        // a value map refused by pcwt_vmap_read_head/_values
    GPU_ERR_RANK = 10,            // a decoded rank outside its plane's value map
    GPU_ERR_OFFSET = 11           // a modular offset's r0 missing or not below 2^bits
};

// Whole-sample symmetric extension of an index into [0, n): x[-i] = x[i], x[n-1+i] = x[n-1-i].
PCWT_HD inline int mirror(int i, int n)
{
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
    if (i < 0) i = -i; // n == 2 and i == 3 or -2
    return i;
}
