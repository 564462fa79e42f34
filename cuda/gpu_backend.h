/* gpu_backend.h - the CUDA backend behind libpcwt's public API (internal, C linkage).
 * A pcwt_gpu context owns device memory, pinned host staging buffers and a stream; it belongs to
 * one encoder or decoder handle and is reused across calls (no global state). Every function
 * returns a pcwt_status and writes a message to err on failure. The codestreams it writes are
 * byte-identical to the CPU reference (codec/src), which tests/gpu checks. */
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

/* Page-locked host memory (NULL when no device); free returns 1 if ptr was such memory. */
void *pcwt_gpu_host_alloc(size_t size);
int pcwt_gpu_host_free(void *ptr);

pcwt_status pcwt_gpu_create(pcwt_gpu **out, char *err, size_t err_size);
void pcwt_gpu_destroy(pcwt_gpu *g);

/* Encodes a batch of frames from host memory into the jobs' host buffers (end to end). Frames
 * that do not fit in device memory are split into several passes; a frame the device cannot
 * take at all returns PCWT_ERR_OUT_OF_MEMORY in its job (the caller falls back to the CPU). */
pcwt_status pcwt_gpu_encode_batch(pcwt_gpu *g, const pcwt_encode_params *p, pcwt_frame_job *jobs,
                                  size_t count, char *err, size_t err_size);

/* Decodes count codestreams into the callers' buffers. */

pcwt_status pcwt_gpu_decode_batch(pcwt_gpu *g, uint64_t max_samples, pcwt_decode_job *jobs,
                                  size_t count, char *err, size_t err_size);

/* Device-resident benchmark entry points: the samples (encode) or codestreams (decode) are
 * uploaded once by *_prepare, then *_run repeats only the device work, timed with CUDA events.
 * Returns the median milliseconds of `repeats` runs in *ms. */
pcwt_status pcwt_gpu_bench_encode(pcwt_gpu *g, const pcwt_encode_params *p, pcwt_frame_job *jobs,
                                  size_t count, int repeats, double *ms, char *err, size_t err_size);
pcwt_status pcwt_gpu_bench_decode(pcwt_gpu *g, pcwt_decode_job *jobs, size_t count,
                                  int repeats, double *ms, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* PCWT_GPU_BACKEND_H */
