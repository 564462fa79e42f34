// samples_gpu.h - stored sample words on the device, shared by the plane import/export
// (planes_gpu.cu) and the finest DWT levels, which read and write them as they go (dwt53_gpu.cu).
#pragma once

#include "gpu_types.h"
#include "rct.h"

// Frames start 256-byte aligned in the sample buffer, so 16-bit words are 2-byte aligned: one
// 16-bit access instead of two byte accesses (the device is little-endian, as the samples are).
__device__ inline uint32_t load_word(const uint8_t *s, uint32_t alloc, uint64_t i)
{
    return alloc == 8 ? s[i] : reinterpret_cast<const uint16_t *>(s)[i];
}

__device__ inline void store_word(uint8_t *s, uint32_t alloc, uint64_t i, uint32_t w)
{
    if (alloc == 8)
        s[i] = uint8_t(w);
    else
        reinterpret_cast<uint16_t *>(s)[i] = uint16_t(w);
}

__device__ inline int32_t value_of(uint32_t w, uint32_t stored, uint32_t is_signed)
{
    const uint32_t v = w & ((1u << stored) - 1u);
    return (is_signed && (v >> (stored - 1))) ? int32_t(v) - int32_t(1u << stored) : int32_t(v);
}

__device__ inline uint32_t canonical(int32_t v, uint32_t alloc) { return uint32_t(v) & ((1u << alloc) - 1u); }

// Sample index of (component c, pixel k) in a frame.
__device__ inline uint64_t sample_index(uint32_t comps, uint32_t planar, uint64_t pixels, uint32_t c,
                                        uint64_t k)
{
    return planar ? c * pixels + k : k * comps + c;
}

// The values a value (kind 0) plane may hold: those of bits_stored, signed or not.
__device__ inline void value_range(const GpuPlane &p, int32_t &lo, int32_t &hi)
{
    lo = p.is_signed ? -int32_t(1u << (p.bits_stored - 1)) : 0;
    hi = p.is_signed ? int32_t(1u << (p.bits_stored - 1)) - 1 : int32_t((1u << p.bits_stored) - 1u);
}

// The value plane p codes at pixel (i, j) of its frame: the sample's value, its bits above
// bits_stored (kind 1), or the colour transform of the pixel's components; 0 in the padding.
__device__ inline int32_t import_value(const GpuPlane &p, const uint8_t *samples, uint32_t i, uint32_t j)
{
    if (i >= p.rows || j >= p.cols)
        return 0;
    const uint8_t *s = samples + p.sample_off;
    const uint64_t pixels = uint64_t(p.rows) * p.cols, px = uint64_t(i) * p.cols + j;
    if (p.rct) {
        int32_t c[3];
        for (uint32_t q = 0; q < 3; q++)
            c[q] = value_of(load_word(s, p.bits_alloc, sample_index(3, p.planar, pixels, q, px)),
                            p.bits_stored, p.is_signed);
        return pcwt_rct_forward(c[0], c[1], c[2], p.comp);
    }
    const uint32_t w = load_word(s, p.bits_alloc, sample_index(p.components, p.planar, pixels, p.comp, px));
    const int32_t v = value_of(w, p.bits_stored, p.is_signed);
    return p.kind ? int32_t((w ^ canonical(v, p.bits_alloc)) >> p.bits_stored) : v;
}
