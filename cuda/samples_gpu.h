// samples_gpu.h - stored sample words on the device, shared by the plane import/export
// (planes_gpu.cu) and the finest DWT levels, which read and write them as they go (dwt53_gpu.cu).
#pragma once

#include "gpu_types.h"
#include "rct.h"
#include "samples.h"

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

// The meaning of a word (value, canonical word, high bits, index, range) is samples.h's, shared
// with the CPU (planes.c).
__device__ inline int32_t value_of(uint32_t w, uint32_t stored, uint32_t is_signed)
{
    return pcwt_sample_value(w, stored, is_signed);
}
__device__ inline uint32_t canonical(int32_t v, uint32_t alloc) { return pcwt_sample_canonical(v, alloc); }
__device__ inline uint64_t sample_index(uint32_t comps, uint32_t planar, uint64_t pixels, uint32_t c,
                                        uint64_t k)
{
    return pcwt_sample_index(comps, planar, pixels, c, k);
}
__device__ inline void value_range(const GpuPlane &p, int32_t &lo, int32_t &hi)
{
    pcwt_sample_range(p.bits_stored, p.is_signed, &lo, &hi);
}

// The value of plane p at pixel (i, j) of its frame, inside the image: the sample's value, its
// bits above bits_stored (kind 1), or the colour transform of the pixel's components.
__device__ inline int32_t plane_value(const GpuPlane &p, const uint8_t *samples, uint32_t i, uint32_t j)
{
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
    return p.kind ? pcwt_sample_high_bits(w, v, p.bits_alloc, p.bits_stored) : v;
}

// The value plane p codes at pixel (i, j): plane_value, or its rank in the plane's value map
// where the encoder gave it one (vmap: the batch's map words, value_map_gpu.cu); 0 in the padding.
__device__ inline int32_t import_value(const GpuPlane &p, const uint8_t *samples, const uint32_t *vmap,
                                       uint32_t i, uint32_t j)
{
    if (i >= p.rows || j >= p.cols)
        return 0;
    const int32_t v = plane_value(p, samples, i, j);
    if (!p.vmap || !vmap[p.vmap_at])
        return v;
    // the rank: values below v's word (the prefix), then those below v in its word
    const uint32_t k = uint32_t(v - p.vmap_base), w = k >> 5;
    const uint32_t *bits = vmap + p.vmap_at + 1, *prefix = bits + p.vmap_words;
    return int32_t(prefix[w] + __popc(bits[w] & ((1u << (k & 31u)) - 1u)));
}
