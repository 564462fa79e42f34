/* samples.h - what a stored sample word means (docs/FORMAT.md Sec. 2), defined once for the CPU
 * (planes.c) and the GPU (cuda/samples_gpu.h): a value plane (kind 0) holds each sample's low
 * bits_stored bits, sign-extended when signed; a high-bit plane (kind 1) the bits above
 * bits_stored wherever they differ from that value's canonical bits_allocated word. */
#ifndef PCWT_SAMPLES_H
#define PCWT_SAMPLES_H

#include "hostdev.h"

#include <stdint.h>

/* The value of a stored word: its low bits_stored bits, sign-extended when signed. */
static inline PCWT_HD int32_t pcwt_sample_value(uint32_t word, uint32_t stored, uint32_t is_signed)
{
    const uint32_t v = word & ((1u << stored) - 1u);
    if (is_signed && (v >> (stored - 1)))
        return (int32_t)v - (int32_t)(1u << stored);
    return (int32_t)v;
}

/* The canonical word of a value: its two's complement in bits_allocated bits. */
static inline PCWT_HD uint32_t pcwt_sample_canonical(int32_t value, uint32_t allocated)
{
    return (uint32_t)value & ((1u << allocated) - 1u);
}

/* A word's high-bit plane value (kind 1), given its value v. */
static inline PCWT_HD int32_t pcwt_sample_high_bits(uint32_t word, int32_t v, uint32_t allocated,
                                                    uint32_t stored)
{
    return (int32_t)((word ^ pcwt_sample_canonical(v, allocated)) >> stored);
}

/* The values a value plane may hold: those of bits_stored, signed or not. */
static inline PCWT_HD void pcwt_sample_range(uint32_t stored, uint32_t is_signed, int32_t *lo,
                                             int32_t *hi)
{
    *lo = is_signed ? -(int32_t)(1u << (stored - 1)) : 0;
    *hi = is_signed ? (int32_t)(1u << (stored - 1)) - 1 : (int32_t)((1u << stored) - 1u);
}

/* The index of sample (component c, pixel k) in a frame of `pixels` pixels. */
static inline PCWT_HD uint64_t pcwt_sample_index(uint32_t components, uint32_t planar,
                                                 uint64_t pixels, uint32_t c, uint64_t k)
{
    return planar ? c * pixels + k : k * components + c;
}

#endif /* PCWT_SAMPLES_H */
