// gpu_kernels.h - host launchers of the CUDA stages (one .cu file per stage, named as in codec/src).
#pragma once

#include "gpu_layout.h"
#include "gpu_types.h"

#include <cuda_runtime.h>

// Blocks of `per` threads that cover n.
inline uint32_t gpu_blocks(uint64_t n, uint32_t per) { return uint32_t((n + per - 1) / per); }

// Calls launch(first, n) over count entries, n at most 65535: a grid's y dimension, one entry a row.
template <typename F> void gpu_for_entries(uint32_t count, F launch)
{
    for (uint32_t first = 0; first < count; first += 65535)
        launch(first, count - first < 65535 ? count - first : 65535);
}

struct DeviceBatch {            // device copies of a BatchLayout's tables and its arenas
    GpuFrame *frames;
    GpuPlane *planes;
    GpuBand *bands;
    GpuLevel *levels;           // all levels, grouped by l (offsets in level_first)
    uint32_t *steps;            // decode steps' band indices (offsets in step_first)
    uint32_t *step_groups;      // decode steps' groups of profile-1 planes (offsets in step_group_first)
    uint32_t *level0;
    uint32_t *export_planes;    // decode: the planes the export pass writes (BatchLayout's list)
    GpuGroup *groups;
    GpuPlaneState *state;
    uint64_t *group_size;       // encode: record bytes, then their exclusive scan
    int32_t *i32;
    int8_t *i8;
    uint8_t *samples;
    uint8_t *stream;            // codestreams (decode input / encode output)
    uint32_t *flags;            // encode: high-bit flags per frame and component
    uint64_t *ec_scan;          // profile 1 encode: scratch positions (scan of baseline sizes)
    uint8_t *ec_scratch;        // profile 1 encode: each group's two streams while it is coded
    uint2 *ec_counts;           // profile 1 encode: each group's bins and raw bits
    uint16_t *ec_element_counts; // profile 1 encode: each element's, at its MQD's index in i8
    uint64_t *ec_bin_at;        // profile 1 encode: where its bins start (groups + 1 entries)
    uint8_t *ec_bins;           // profile 1 encode: the bin arena, ec_bin_cap bytes
    uint64_t ec_bin_cap;
    GpuCrcPart *crc_parts;      // CRCs of the payloads' spans, blocks (gpu_plane_crcs) a plane
    uint32_t *vmap;             // compact profile: the value maps' words (GpuPlane::vmap_at)
    uint8_t *vmap_bytes;        // encode: the coded maps (GpuPlane::vmap_bytes_at)
    uint64_t *map_prefix;       // encode: map bytes of the planes up to each, inclusive
};

// planes_gpu.cu
void gpu_high_bit_flags(const DeviceBatch &b, const GpuFrame *host_frames, uint32_t frame_count,
                        cudaStream_t s);
// Over b.level0 (count entries): the planes coded without a transform.
void gpu_import_planes(const DeviceBatch &b, uint32_t count, uint32_t max_rows, uint32_t max_cols,
                       cudaStream_t s);
// Over b.export_planes (count entries): the values (kind 0), then XOR the high bits in (kind 1).
void gpu_export_planes(const DeviceBatch &b, uint32_t count, uint32_t kind, uint32_t max_rows,
                       uint32_t max_cols, cudaStream_t s);

// value_map_gpu.cu: the compact profile's value maps (docs/FORMAT.md Sec. 5.5), the twin of
// codec/src/value_map.c. Encode, before the transform: each vmap plane's bitmap of its values,
// then a thread per plane decides (pcwt_value_map_wanted_summary) and makes the ranks' prefix
// that import_value reads; gpu_vmap_code codes the maps (any time after gpu_vmap_build); after
// gpu_group_sizes and gpu_vmap_code, the planes' map bytes scanned (map_prefix, which
// gpu_group_offsets adds); after the group records, the maps copied in front of them. Decode: a
// thread per mapped plane reads its map's head (before gpu_group_walk, which starts after it),
// gpu_vmap_read_values its values (any time after); a refused map becomes the plane's error
// after the CRCs (gpu_vmap_refused, again once the values are read); after the inverse
// transform, ranks back to values in the images that the inverse colour transform reads
// (gpu_export_planes looks up the other mapped planes' ranks as it writes their samples).
void gpu_vmap_build(const DeviceBatch &b, const BatchLayout &L, cudaStream_t s);
void gpu_vmap_code(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_vmap_scan(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_vmap_place(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_vmap_read(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_vmap_read_values(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_vmap_refused(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_vmap_values(const DeviceBatch &b, const BatchLayout &L, cudaStream_t s);

// offset_gpu.cu: the compact profile's modular offsets (docs/FORMAT.md Sec. 5.6), the twin of
// codec/src/offset.c. Encode, inside gpu_vmap_build, after the bitmaps (whose pass summed the costs
// of the cuts at 0 and 2^(bits-1)) and before the maps' decision: each offset plane's gap
// candidate, its cost where it differs from both, the decision, and the bitmap turned to the
// values u' (the flag word's r0, which import_value subtracts). Decode: r0 is read with the maps
// (gpu_vmap_read) and added back by the export pass.
void gpu_offset_choose(const DeviceBatch &b, const BatchLayout &L, cudaStream_t s);

// dwt53_gpu.cu
// finest: level 1, whose row pass reads the frames' samples (no imported image); level1_auto
// (some planes may have level1 auto): their level 1 by the 5/11-C tile kernel, which adds both
// filters' estimates as it lifts 5/3 (gpu_dwt511_level1 decides from them); all_auto: every
// plane's level1 is auto (5/3's tile kernel is not launched: its blocks would all return)
void gpu_dwt_forward_level(const DeviceBatch &b, const GpuLevel *dev_levels, uint32_t count,
                           const GpuLevelMax &m, bool finest, bool level1_auto, bool all_auto,
                           cudaStream_t s);
// finest: level 1, whose row pass exports the planes exported_by_inverse (gpu_types.h)
void gpu_dwt_inverse_level(const DeviceBatch &b, const GpuLevel *dev_levels, uint32_t count,
                           const GpuLevelMax &m, bool finest, cudaStream_t s);

// The 5/11-C filter at level 1 (docs/FORMAT.md Sec. 3.4), over the level-1 entries. Encode,
// after the 5/3 forward of every level (with the estimates: gpu_dwt_forward_level's level1_auto)
// and the low-bit decision on it: each plane's choice
// (GpuPlaneState::f511, as encoder.c's forward_plane makes it), and the 5/11-C bands of the
// planes whose level1 is 511 over their 5/3 ones (any_511: some plane is; those of the auto
// planes that take it are put in place by gpu_mqd_level_511 on level 1; the MQDs and Qmax of
// all that take it made again there, level by level, and their low-bit decision:
// gpu_ec_low_bits). Decode: the level-1 inverse of the planes whose level1 is 511
// (gpu_dwt_inverse_level leaves them out).
void gpu_dwt511_level1(const DeviceBatch &b, const GpuLevel *dev_levels, uint32_t count,
                       const GpuLevelMax &m, uint32_t plane_count, bool any_511, cudaStream_t s);
// dwt511_forward_gpu.cu, within gpu_dwt_forward_level's level 1: the planes of auto lifted with
// 5/3 (bands, MQDs) and 5/11-C (bands kept aside), both estimates summed
void gpu_dwt511_level1_estimate(const DeviceBatch &b, const GpuLevel *dev_levels, uint32_t count,
                                const GpuLevelMax &m, cudaStream_t s);
// level1_choice_gpu.cu, within gpu_dwt511_level1: each plane's choice
void gpu_level1_choose(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
void gpu_dwt511_inverse_level1(const DeviceBatch &b, const GpuLevel *dev_levels, uint32_t count,
                               const GpuLevelMax &m, cudaStream_t s);

// mqd_gpu.cu: MQDs and Qmax of the planes coded without a transform (b.level0, count entries)
void gpu_mqd_level0(const DeviceBatch &b, uint32_t count, uint32_t max_mr, uint32_t max_mc,
                    cudaStream_t s);
// The MQDs (and on the top level the Qmax) of one level of the planes whose level 1 took 5/11-C,
// from their coefficients; levels finest first. On level 1 (finest), the auto planes' 5/11-C
// high bands are first put over their 5/3 ones (from where fwd_level1_511<true> left them).
void gpu_mqd_level_511(const DeviceBatch &b, const GpuLevel *dev_levels, uint32_t count,
                       const GpuLevelMax &m, bool finest, cudaStream_t s);

// ec_low_bits_gpu.cu (profile 1, after the transform): each plane's low-bit decision into its
// state (GpuPlaneState::low), as pcwt_ec_low_bits_wanted decides on the CPU; only_511: again, for
// the planes whose level 1 took 5/11-C after the first decision (the others keep theirs).
void gpu_ec_low_bits(const DeviceBatch &b, uint64_t groups, uint32_t band_count,
                     uint32_t plane_count, cudaStream_t s, bool only_511 = false);

// group_coder_gpu.cu
void gpu_group_sizes(const DeviceBatch &b, uint64_t groups, uint32_t band_count, bool entropy,
                     cudaStream_t s);
void gpu_scan_group_sizes(const DeviceBatch &b, uint64_t groups, void *scan_tmp,
                          size_t scan_tmp_size, cudaStream_t s);
void gpu_group_offsets(const DeviceBatch &b, uint64_t groups, uint32_t band_count,
                       void *scan_tmp, size_t scan_tmp_size, cudaStream_t s);
size_t gpu_scan_tmp_size(uint64_t groups);
void gpu_group_encode(const DeviceBatch &b, uint64_t groups, uint32_t band_count, cudaStream_t s);
void gpu_group_walk(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);
// only_if_raw: nothing to do unless *only_if_raw is nonzero (a batch of profile-1 planes only,
// whose steps hold no raw-mode record: gpu_ec_order's raw flag)
void gpu_group_decode(const DeviceBatch &b, const uint32_t *dev_bands, uint32_t band_count,
                      uint32_t max_groups, cudaStream_t s, const uint32_t *only_if_raw = nullptr);
// After the last decode step: the MQDs of the bands with children among dev_bands (others are
// skipped) against their children's; max_elements: the most MQDs of one such band.
void gpu_check_parent_mqds(const DeviceBatch &b, const uint32_t *dev_bands, uint32_t band_count,
                           uint64_t max_elements, cudaStream_t s);
void gpu_check_qmax(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s);

// gpu_order.cu: (key, id) pairs sorted by key in a buffer of gpu_order_bytes(n) bytes; the
// caller fills keys[0] and ids[0], gpu_order_sort returns the ids in order (in ids[0] or ids[1]).
struct GpuOrder {
    uint32_t *keys[2], *ids[2];
    void *tmp;
    size_t tmp_size;
};
size_t gpu_order_bytes(uint32_t n);
GpuOrder gpu_order_bufs(void *buf, uint32_t n);
const uint32_t *gpu_order_sort(const GpuOrder &o, uint32_t n, int key_bits, cudaStream_t s);

// group_coder_ec_binarise_gpu.cu, group_coder_ec_encode_gpu.cu and group_coder_ec_decode_gpu.cu
// (profile 1): after gpu_group_sizes (entropy: it counts the bins too), place the bins (scan_tmp
// for groups + 1 entries), binarise, encode; pack
// after gpu_group_offsets; decode per step beside gpu_group_decode.
void gpu_ec_encode_init();
void gpu_ec_decode_init();
uint64_t gpu_ec_scratch_bytes(uint64_t stream_bytes, uint64_t groups);
// The bin arena for a layout of i32_size coefficients: bins beyond it are coded the slow way.
uint64_t gpu_ec_bin_bytes(uint64_t i32_size);
void gpu_ec_place_bins(const DeviceBatch &b, uint64_t groups, void *scan_tmp, size_t scan_tmp_size,
                       cudaStream_t s);
void gpu_ec_binarise(const DeviceBatch &b, uint64_t groups, uint32_t band_count, cudaStream_t s);
// order_buf: gpu_order_bytes(groups) bytes where the groups are put in decreasing order of their
// bins before they are coded (none: in order).
void gpu_ec_encode(const DeviceBatch &b, uint64_t groups, uint32_t band_count, void *order_buf,
                   cudaStream_t s);
void gpu_ec_pack(const DeviceBatch &b, uint64_t groups, cudaStream_t s);
// The steps' groups (b.step_groups, step_first[0..steps] on the host), each step's ordered by
// decreasing range-coder stream length so that groups of like length share a warp; buf holds
// gpu_order_bytes(groups). Returns the list (in buf, or b.step_groups). raw: set nonzero when a
// step holds a raw-mode record (none: not asked).
const uint32_t *gpu_ec_order(const DeviceBatch &b, const uint32_t *step_first, uint32_t steps,
                             void *buf, cudaStream_t s, uint32_t *raw = nullptr);
void gpu_ec_decode(const DeviceBatch &b, const uint32_t *dev_groups, uint32_t group_count,
                   uint32_t band_count, cudaStream_t s);
// Lanes per group that gpu_ec_decode gives a step of group_count groups.
uint32_t gpu_ec_decode_spread(uint32_t group_count);
// The range-coded groups that ec_decode (and ec_decode_pipe) run at once on the current device.
uint64_t gpu_ec_decode_lanes();
// group_coder_ec_pipe_gpu.cu: the profile-1 groups (range-coded and raw-mode) of the first
// gpu_ec_pipe_steps(L) decode steps in one launch, the levels overlapping, instead of
// gpu_ec_decode and gpu_group_decode per step (0: none; the steps after them are launched a step
// at a time after it). pipe: gpu_ec_pipe_bytes, zeroed before gpu_ec_order (whose raw flag is
// pipe[0]); list, list_first: gpu_ec_order's list and the steps' offsets in it.
void gpu_ec_pipe_init();
uint32_t gpu_ec_pipe_steps(const BatchLayout &L);
size_t gpu_ec_pipe_bytes(const BatchLayout &L);
void gpu_ec_decode_pipe(const DeviceBatch &b, const uint32_t *list, const uint32_t *list_first,
                        uint32_t steps, uint32_t band_count, uint32_t *pipe, cudaStream_t s);

// compare_gpu.cu (pcwt_verify_batch): result[f] = the first byte where frame f's samples in
// decoded and expected differ (both at the frame's sample_off), UINT64_MAX where they do not;
// max_size: the largest frame's sample_size
void gpu_first_difference(const uint8_t *decoded, const uint8_t *expected, const GpuFrame *dev_frames,
                          uint32_t count, uint64_t max_size, uint64_t *result, cudaStream_t s);

// crc32_gpu.cu
// A plane's payload is checksummed in spans of CRC_SPAN bytes, each by a block; `blocks` spans
// cover the largest payload (gpu_crc_blocks), d.crc_parts holds plane_count * blocks of them.
constexpr uint32_t CRC_SPAN = 256u << 10;
inline uint32_t gpu_crc_blocks(uint64_t max_payload) { return uint32_t(max_payload / CRC_SPAN + 1); }
void gpu_crc_init();
void gpu_plane_crcs(const DeviceBatch &b, uint32_t plane_count, uint32_t blocks, int verify, cudaStream_t s);
// The device's bytewise CRC-32 table (256 words) on the current device.
const uint32_t *gpu_crc_table();

// container_gpu.cu: every frame's header in front of its first payload (and its out_start/out_end)
void gpu_write_headers(const DeviceBatch &b, uint32_t frame_count, cudaStream_t s);
