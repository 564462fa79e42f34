/* j2k_t1_gpu.h - the device-resident benchmark of the GPU JPEG 2000 decoder (cuda/
 * j2k_decode_gpu.cu; pcwt_gpu_j2k_decode_batch itself is in gpu_backend.h): the batch (one that
 * fits the device at once) is uploaded once, then tier-1, the inverse DWT and the output stage are
 * repeated, timed with CUDA events; the median milliseconds of `repeats` runs in *ms. */
#ifndef PCWT_J2K_T1_GPU_H
#define PCWT_J2K_T1_GPU_H

#include "j2k_batch.h"

struct pcwt_gpu;
pcwt_status pcwt_gpu_j2k_bench(struct pcwt_gpu *g, const pcwt_j2k_batch *b, int repeats, double *ms,
                               char *err, size_t err_size);

#endif /* PCWT_J2K_T1_GPU_H */
