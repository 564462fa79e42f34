// samples_gpu.h - stored sample words on the device, shared by the plane import/export
// (planes_gpu.cu) and the finest DWT levels, which read and write them as they go (dwt53_gpu.cu).
#pragma once

#include "gpu_types.h"
#include "rct.h"
#include "samples.h"

extern "C" {
#include "offset.h"
}

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

// A plane's flag word in the value maps' arena (value_map_gpu.cu, offset_gpu.cu): bit 0, the plane
// is mapped; bit 1, it has a modular offset, r0 in bits 16-31 (then its values and its map's are
// u' = (u - r0) mod 2^bits, from 0).
constexpr uint32_t VMAP_MAPPED = 1, VMAP_OFFSET = 2;

// The value plane p codes at pixel (i, j): plane_value, less the plane's modular offset, or its
// rank in the plane's value map where the encoder gave it those (vmap: the batch's map words,
// value_map_gpu.cu); 0 in the padding.
__device__ inline int32_t import_value(const GpuPlane &p, const uint8_t *samples, const uint32_t *vmap,
                                       uint32_t i, uint32_t j)
{
    if (i >= p.rows || j >= p.cols)
        return 0;
    int32_t v = plane_value(p, samples, i, j);
    const uint32_t flag = p.vmap ? vmap[p.vmap_at] : 0u;
    if (!flag)
        return v;
    int32_t base = p.vmap_base;
    if (flag & VMAP_OFFSET) {
        v = int32_t((uint32_t(v) - (flag >> 16)) & ((1u << p.bits_stored) - 1u));
        base = 0;
    }
    if (!(flag & VMAP_MAPPED))
        return v;
    // the rank: values below v's word (the prefix), then those below v in its word
    const uint32_t k = uint32_t(v - base), w = k >> 5;
    const uint32_t *bits = vmap + p.vmap_at + 1, *prefix = bits + p.vmap_words;
    return int32_t(prefix[w] + __popc(bits[w] & ((1u << (k & 31u)) - 1u)));
}

// Decode: a decoded value x of plane p back to its sample value, *ok = 0 where it lies outside
// the plane's range (with a modular offset: x = u', 0 .. 2^bits - 1, and r0 added back).
__device__ inline int32_t stored_value(const GpuPlane &p, const GpuPlaneState &st, int64_t x, bool &ok)
{
    int32_t lo, hi;
    if (p.offset) {
        ok = x >= 0 && x < (int64_t(1) << p.bits_stored);
        return ok ? pcwt_offset_value(uint32_t(x), st.r0, p.bits_stored, int(p.is_signed)) : 0;
    }
    value_range(p, lo, hi);
    ok = x >= lo && x <= hi;
    return int32_t(x);
}
