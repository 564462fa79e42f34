/* hostdev.h - marks the inline functions that the CPU codec and the CUDA kernels share (compiled
 * for both by nvcc, plain C elsewhere), so that a stage exists once and both write the same bytes. */
#ifndef PCWT_HOSTDEV_H
#define PCWT_HOSTDEV_H

#ifdef __CUDACC__
#define PCWT_HD __host__ __device__
#else
#define PCWT_HD
#endif

/* floor(log2 a) for a != 0. */
#ifdef __CUDA_ARCH__
#define PCWT_LOG2(a) (31 - __clz((int)(a)))
#else
#define PCWT_LOG2(a) (31 - __builtin_clz(a))
#endif

#endif /* PCWT_HOSTDEV_H */
