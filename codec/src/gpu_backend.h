/* gpu_backend.h - the interface of the CUDA backend behind libpcwt's public API (internal, C
 * linkage). The codec declares it here and calls it only in builds with PCWT_HAVE_CUDA; cuda/
 * implements it (cuda depends on codec/src, never the other way). A pcwt_gpu context owns device
 * memory, pinned host staging buffers and a stream; it belongs to one encoder or decoder handle and
 * is reused across calls (no global state). Every function returns a pcwt_status and writes a
 * message to err on failure. The codestreams it writes are byte-identical to the CPU reference
 * (codec/src), which tests/gpu checks. */
#ifndef PCWT_GPU_BACKEND_H
#define PCWT_GPU_BACKEND_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcwt_gpu pcwt_gpu;

/* 1 when a CUDA device is usable by this process. */
int pcwt_gpu_available(void);
/* The number of CUDA devices (0 when none or no driver). */
int pcwt_gpu_device_count(void);

/* Page-locked host memory (NULL when no device); free returns 1 if ptr was such memory. */
void *pcwt_gpu_host_alloc(size_t size);
int pcwt_gpu_host_free(void *ptr);

/* A context on CUDA device `device` (cudaSetDevice at creation and at the start of every entry
 * point, so that handles on several devices can be used from several threads). */
pcwt_status pcwt_gpu_create(pcwt_gpu **out, int device, char *err, size_t err_size);
void pcwt_gpu_destroy(pcwt_gpu *g);
/* The number of chunks every PCWT batch is cut into from now on, however small (the handles'
 * PCWT_OPT_GPU_CHUNKS); 0: by the batch's size. */
void pcwt_gpu_set_chunks(pcwt_gpu *g, uint32_t chunks);
/* The device memory the context's batches may take from now on (the handles'
 * PCWT_OPT_GPU_MEMORY_LIMIT); 0: what the device has free. */
void pcwt_gpu_set_memory_budget(pcwt_gpu *g, uint64_t bytes);
/* The most bytes of the groups' bins an encoded chunk keeps on the device from now on (the
 * encoder's PCWT_OPT_GPU_BIN_ARENA); 0: what the chunk needs. */
void pcwt_gpu_set_bin_arena(pcwt_gpu *g, uint64_t bytes);

/* Encodes a batch of frames from host memory into the jobs' host buffers (end to end). Frames
 * that do not fit in device memory are split into several passes; a frame the device cannot
 * take at all returns PCWT_ERR_OUT_OF_MEMORY in its job (the caller falls back to the CPU). */
pcwt_status pcwt_gpu_encode_batch(pcwt_gpu *g, const pcwt_encode_params *p, pcwt_frame_job *jobs,
                                  size_t count, char *err, size_t err_size);

/* Encodes a batch of frames as JPEG-LS (p->codec PCWT_CODEC_JPEGLS) on the device, byte-identical
 * to the CPU encoder. Takes grey frames and 3-component frames with interleave none (one scan per
 * component), with or without restart intervals; the caller codes the other frames on the CPU. A
 * frame the device has no memory for returns PCWT_ERR_OUT_OF_MEMORY in its job. */
pcwt_status pcwt_gpu_jpegls_encode_batch(pcwt_gpu *g, const pcwt_encode_params *p,
                                         pcwt_frame_job *jobs, size_t count, char *err,
                                         size_t err_size);
pcwt_status pcwt_gpu_jpegls_bench_encode(pcwt_gpu *g, const pcwt_encode_params *p,
                                         pcwt_frame_job *jobs, size_t count, int repeats,
                                         double *ms, char *err, size_t err_size);

/* Decodes count codestreams into the callers' buffers. */

pcwt_status pcwt_gpu_decode_batch(pcwt_gpu *g, uint64_t max_samples, pcwt_decode_job *jobs,
                                  size_t count, char *err, size_t err_size);

/* Decodes count codestreams on the device and compares each with its expected samples there
 * (pcwt_verify_batch); nothing decoded comes back. A job the device has no memory for returns
 * PCWT_ERR_OUT_OF_MEMORY in its status (the caller verifies it on the CPU). */
pcwt_status pcwt_gpu_verify_batch(pcwt_gpu *g, uint64_t max_samples, pcwt_verify_job *jobs,
                                  size_t count, char *err, size_t err_size);

/* Decodes a batch of JPEG 2000 frames prepared by the tier-2 parser (j2k_batch.h): tier-1 of
 * every code-block, the inverse 5/3 DWT, the inverse RCT and the DC level shift on the device,
 * the samples into each frame's dst. The same samples as the CPU path (j2k_decoder.c). */
struct pcwt_j2k_batch;
pcwt_status pcwt_gpu_j2k_decode_batch(pcwt_gpu *g, const struct pcwt_j2k_batch *b, char *err,
                                      size_t err_size);
/* pcwt_gpu_j2k_decode_batch in two halves, so that the caller prepares its next batch while the
 * device decodes this one (j2k_decoder.c's groups). submit checks and queues a batch (its arrays
 * and destinations must stay as they are until its finish); finish waits for the oldest batch
 * submitted and returns its status. At most PCWT_GPU_J2K_SLOTS are submitted at a time; a failed
 * submit queues nothing. A batch larger than a slot's share of the device budget is decoded whole
 * in its submit. */
#define PCWT_GPU_J2K_SLOTS 3
pcwt_status pcwt_gpu_j2k_submit(pcwt_gpu *g, const struct pcwt_j2k_batch *b, char *err, size_t err_size);
pcwt_status pcwt_gpu_j2k_finish(pcwt_gpu *g, char *err, size_t err_size);
/* Tier-1's warps (j2k_t1_gpu.cu): code-blocks of costs cost[0..n) (heaviest first) packed in
 * order into warps of 1..32, each warp's cost at most the total over warp_slots unless it holds
 * one code-block; warp w takes warp_first[w] .. warp_first[w + 1] - 1 (n + 1 entries needed).
 * Returns the warps. */
uint32_t pcwt_gpu_j2k_t1_pack(const uint64_t *cost, size_t n, uint64_t warp_slots, uint32_t *warp_first);
/* Tests and benchmarks: tier-1 packs `lanes` code-blocks a warp (1..32; 0: by cost, the default)
 * in this handle's later batches. */
pcwt_status pcwt_gpu_j2k_set_t1_lanes(pcwt_gpu *g, uint32_t lanes, char *err, size_t err_size);
/* HT code-blocks a warp (j2k_ht_gpu.cu) for a chunk of `count` on a device holding `ht_slots`
 * warps of the HT kernel: 8 x count over the slots, rounded up, 1..8. */
uint32_t pcwt_gpu_j2k_ht_lanes(uint64_t count, uint32_t ht_slots);
/* Tests and benchmarks: the HT kernel takes `lanes` code-blocks a warp (1..32; 0: by the chunk's
 * count, pcwt_gpu_j2k_ht_lanes, the default) in this handle's later batches. */
pcwt_status pcwt_gpu_j2k_set_ht_lanes(pcwt_gpu *g, uint32_t lanes, char *err, size_t err_size);
/* Page-locked host memory for the handle's device, from any thread (NULL when none; freed with
 * pcwt_gpu_host_free): a JPEG 2000 batch's code-block bytes, uploaded without staging. */
void *pcwt_gpu_j2k_host_alloc(pcwt_gpu *g, size_t size);
/* 1 when the handle traces (PCWT_GPU_TRACE, read when it was made). */
int pcwt_gpu_j2k_traced(const pcwt_gpu *g);

/* Managed memory placed on CUDA device `device`, which a batch's samples are handed over in from
 * one handle's call to another's (pcwt_transcode_batch): the device's copies in and out of it
 * stay on the device (as from page-locked memory), the host may read and write it too (a frame
 * decoded or coded on the CPU). NULL when none can be had. */
void *pcwt_gpu_managed_alloc(int device, size_t size);
void pcwt_gpu_managed_free(int device, void *ptr);
/* 1 when ptr is such memory. */
int pcwt_gpu_is_managed(const void *ptr);
/* size bytes from src to dst, each host, managed or device memory (synchronous). */
pcwt_status pcwt_gpu_copy(void *dst, const void *src, size_t size, char *err, size_t err_size);

/* Device-resident benchmark entry points: the samples (encode) or codestreams (decode) are
 * uploaded once, then only the device work is repeated, timed with CUDA events. Returns the median
 * milliseconds of `repeats` runs in *ms. pcwt_gpu_bench_encode runs the JPEG-LS encoder when
 * p->codec is PCWT_CODEC_JPEGLS (and then leaves the last run's codestreams in the jobs). */
pcwt_status pcwt_gpu_bench_encode(pcwt_gpu *g, const pcwt_encode_params *p, pcwt_frame_job *jobs,
                                  size_t count, int repeats, double *ms, char *err, size_t err_size);
pcwt_status pcwt_gpu_bench_decode(pcwt_gpu *g, pcwt_decode_job *jobs, size_t count,
                                  int repeats, double *ms, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* PCWT_GPU_BACKEND_H */
