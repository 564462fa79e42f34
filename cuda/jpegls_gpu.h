// jpegls_gpu.h - the JPEG-LS encoder on the GPU: context chains (T.87 A.6-A.7 replayed in raster
// order, long ones in chunks at once) with every phase on the device, batched over many frames.
//
// A "segment" is what the sequential encoder codes with one set of contexts and one RUNindex: one
// component of a frame (interleave none), or one restart interval of it. Segments are independent,
// so a batch is just many segments. Per segment the stages are:
//   1. lines   (jpegls_lines_gpu.cu): a warp per line computes every sample's context and MED
//      prediction and walks the line's run/regular automaton with ballots; it writes one record per
//      context-coded sample (regular or run interruption) and one per run, in raster order;
//   2. runs    (jpegls_chain_gpu.cu): RUNindex, the run-length codewords and each interruption
//      sample's J[RUNindex], by groups of runs: a warp per group maps every RUNindex before the
//      group to the one after it, a scan composes the maps, and a thread per group codes it;
//   3. chains  (jpegls_chain_gpu.cu): a stable sort by (segment, context) makes every context's
//      samples contiguous in raster order; the standard's context updates are replayed along each
//      chain and write each sample's codeword. A context sees the same updates in the same order
//      as in the sequential encoder, so the codewords are the same. Long chains are cut into
//      chunks coded at once from speculated states and checked (jpegls_chain_step.h);
//   4. packing (jpegls_pack_gpu.cu): prefix sums of codeword lengths give bit positions, codewords
//      are OR-ed into an unstuffed bit string, and the 0xFF stuffing is inserted by chunks of it
//      (from each entry state, then from the true one).
// The markers around the scans are written on the host by the CPU encoder's own writers
// (codec/src/jpegls_markers.c), so headers are identical by construction.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "jpegls_code.h"

struct JlsSeg {
    // set by the host
    uint64_t first;      // byte offset in the sample buffer of the segment's sample (0, 0)
    uint32_t step;       // words between horizontally neighbouring samples of the component
    uint32_t row_words;  // words between vertically neighbouring samples
    uint32_t width, rows;
    uint32_t word_bytes; // 1 or 2
    uint32_t bits;       // P (bits stored)
    uint32_t is_signed;  // for the check of the bits above P
    uint32_t alloc_bits; // bits allocated
    uint32_t line_first; // global index of the segment's first line
    uint32_t frame;      // the frame (job) it belongs to, in the chunk
    // set by the device
    uint32_t ctx_first, ctx_end; // its context-coded samples
    uint32_t run_first, run_end; // its runs
    uint64_t bit_first, bit_end; // its codewords in the unstuffed bit string
    uint64_t out_off;            // its stuffed bytes in the output arena
    uint32_t out_size;
    uint32_t pad_;
};

// Device arrays of one chunk (sizes in brackets; Nc context-coded samples, Nr runs, S segments,
// L lines).
struct JlsDev {
    const uint8_t *samples;
    JlsSeg *segs;           // [S]
    uint32_t seg_count;
    uint32_t line_count;
    uint32_t *line_seg;     // [L] the segment of each line
    uint64_t *line_counts;  // [L + 1] (context samples << 32 | runs), then their exclusive scan
    uint32_t *frame_flags;  // [frames] 1: bits above P that JPEG-LS cannot carry
    // stage 1 outputs
    uint32_t *ctx_key;      // [Nc] segment * 366 + context slot
    uint64_t *ctx_rec;      // [Nc] x | px << 16 | negate << 32 | run index << 33 (interruptions)
    uint32_t *ctx_runs_before; // [Nc] runs before the sample in the batch
    uint32_t *run_len;      // [Nr] length | first of its segment << 30 | end-of-line << 31
    uint32_t *run_attach;   // [Nr] context samples before the run in the batch
    // stage 2
    uint32_t *run_code;     // [Nr]
    uint8_t *run_j;         // [Nr] J[RUNindex] of the interruption sample after the run
    uint8_t *run_maps;      // [2 * 32 * groups of kJlsRunGroup runs] RUNindex maps, then their scan
    // stage 3
    uint32_t *key_alt;      // [Nc] sort keys, then the chunks' states (jls_gpu_chain_state_bytes)
    uint32_t *order_code;   // [Nc] sort scratch, then the codewords in chain order
    uint32_t *order_alt;    // [Nc] sort scratch
    uint32_t *order;        // [Nc] sample indices, sorted by key
    uint32_t *chain_key;    // [S * 366] the (segment, context) of each chain
    uint32_t *chain_len;    // [S * 366]
    uint32_t *chain_off;    // [S * 366] first entry of each chain in order
    uint32_t *chain_count;  // [1]
    uint32_t *chunk_first;  // [S * 366 + 1] first chunk of each chain (jpegls_chain_step.h)
    uint32_t *ctx_code;     // [Nc]
    // stage 4
    uint64_t *ctx_bits;     // [Nc + 1] lengths, then bit offsets (exclusive scan)
    uint64_t *run_bits;     // [Nr + 1]
    uint32_t *words;        // unstuffed bit string, MSB first
    uint8_t *out;           // stuffed scan data of every segment at segs[s].out_off
};

// The last i < count with first[i] <= x, where first rises and first[0] <= x < first[count]:
// the chain of a chunk, the segment of a stuffing chunk.
__device__ inline uint32_t jls_last_at_or_before(const uint32_t *first, uint32_t count, uint32_t x)
{
    uint32_t lo = 0, hi = count;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (first[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// jpegls_lines_gpu.cu
void jls_gpu_lines_count(const JlsDev &d, cudaStream_t s);
void jls_gpu_lines_emit(const JlsDev &d, cudaStream_t s);
void jls_gpu_seg_ranges(const JlsDev &d, cudaStream_t s);

// jpegls_chain_gpu.cu
constexpr uint32_t kJlsRunGroup = 128;
void jls_gpu_runs(const JlsDev &d, uint32_t run_count, void *tmp, size_t tmp_size, cudaStream_t s);
size_t jls_gpu_runs_scratch(uint32_t run_count);
// Sorts the samples by (segment, context) and codes every context chain. tmp/tmp_size: scratch
// from jls_gpu_chain_scratch.
void jls_gpu_chains(const JlsDev &d, uint32_t ctx_count, void *tmp, size_t tmp_size,
                    cudaStream_t s);
size_t jls_gpu_chain_scratch(uint32_t ctx_count, uint32_t seg_count);
// Bytes of key_alt the chunked chains need besides the sort keys (4 per context sample).
size_t jls_gpu_chain_state_bytes(uint32_t ctx_count);

// jpegls_pack_gpu.cu
// Codeword lengths and their prefix sums; segment bit ranges and output offsets.
void jls_gpu_bit_offsets(const JlsDev &d, uint32_t ctx_count, uint32_t run_count, void *tmp,
                         size_t tmp_size, cudaStream_t s);
size_t jls_gpu_offsets_scratch(uint32_t ctx_count, uint32_t run_count);
void jls_gpu_pack(const JlsDev &d, uint32_t ctx_count, uint32_t run_count, cudaStream_t s);
// Stuffs every segment's bits into out and sets its out_size. tabs: jls_gpu_stuff_bytes, tmp:
// jls_gpu_stuff_scratch.
void jls_gpu_stuff(const JlsDev &d, uint64_t word_count, uint64_t bits, void *tabs, void *tmp,
                   size_t tmp_size, cudaStream_t s);
size_t jls_gpu_stuff_bytes(uint64_t bits, uint32_t seg_count);
size_t jls_gpu_stuff_scratch(uint32_t seg_count);
