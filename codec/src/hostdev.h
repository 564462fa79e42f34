/* hostdev.h - marks the inline functions that the CPU codec and the CUDA kernels share (compiled
 * for both by nvcc, plain C elsewhere), so that a stage exists once and both write the same bytes;
 * and the two helpers every stage's shared code uses: floor(log2) and the magnitude. */
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

#include <stdint.h>

/* |c| (INT32_MIN's too) through a sign mask: GCC 12 branched, at random, on c < 0 ? -c : c in the
 * coefficient loops. */
static inline PCWT_HD uint32_t pcwt_magnitude(int32_t c)
{
    const uint32_t neg = 0u - ((uint32_t)c >> 31);
    return ((uint32_t)c ^ neg) - neg;
}

#endif /* PCWT_HOSTDEV_H */
