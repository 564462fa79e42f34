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

// What a stored word w gives plane p (not a colour-transformed one): the sample's value, or its
// bits above bits_stored (kind 1).
__device__ inline int32_t word_value(const GpuPlane &p, uint32_t w)
{
    const int32_t v = value_of(w, p.bits_stored, p.is_signed);
    return p.kind ? pcwt_sample_high_bits(w, v, p.bits_alloc, p.bits_stored) : v;
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
    return word_value(p, load_word(s, p.bits_alloc, sample_index(p.components, p.planar, pixels, p.comp, px)));
}

// plane_value at N pixels (i[u], j[u]) of plane p, each where bit u of `in` is set (the others'
// v[u] is not theirs): every word is loaded before any is used, so that a thread's loads overlap
// (a per-sample kernel is otherwise bound by the latency of one load at a time).
template <uint32_t N>
__device__ inline void plane_values(const GpuPlane &p, const uint8_t *samples, const uint32_t (&i)[N],
                                    const uint32_t (&j)[N], uint32_t in, int32_t (&v)[N])
{
    if (p.rct) {
#pragma unroll
        for (uint32_t u = 0; u < N; u++)
            v[u] = in >> u & 1u ? plane_value(p, samples, i[u], j[u]) : 0;
        return;
    }
    const uint8_t *s = samples + p.sample_off;
    const uint64_t pixels = uint64_t(p.rows) * p.cols;
    uint64_t k[N]; // the frame's first word where the pixel is not asked for: loads without branches
    uint32_t w[N];
#pragma unroll
    for (uint32_t u = 0; u < N; u++)
        k[u] = in >> u & 1u ? sample_index(p.components, p.planar, pixels, p.comp, uint64_t(i[u]) * p.cols + j[u]) : 0u;
    if (p.bits_alloc == 8) {
#pragma unroll
        for (uint32_t u = 0; u < N; u++)
            w[u] = s[k[u]];
    } else {
        const uint16_t *s16 = reinterpret_cast<const uint16_t *>(s);
#pragma unroll
        for (uint32_t u = 0; u < N; u++)
            w[u] = s16[k[u]];
    }
#pragma unroll
    for (uint32_t u = 0; u < N; u++)
        v[u] = word_value(p, w[u]);
}

// A plane's flag word in the value maps' arena (value_map_gpu.cu, offset_gpu.cu): bit 0, the plane
// is mapped; bit 1, it has a modular offset, r0 in bits 16-31 (then its values and its map's are
// u' = (u - r0) mod 2^bits, from 0).
constexpr uint32_t VMAP_MAPPED = 1, VMAP_OFFSET = 2;

// The values plane p codes at N pixels (i[u], j[u]), those where bit u of `in` is set (v[u] = 0
// elsewhere, and in the padding): plane_value, less the plane's modular offset, or its rank in the
// plane's value map where the encoder gave it those (vmap: the batch's map words,
// value_map_gpu.cu). The loads of each step are issued together (plane_values).
template <uint32_t N>
__device__ inline void import_values(const GpuPlane &p, const uint8_t *samples, const uint32_t *vmap,
                                     const uint32_t (&i)[N], const uint32_t (&j)[N], uint32_t in,
                                     int32_t (&v)[N])
{
    uint32_t inside = 0;
#pragma unroll
    for (uint32_t u = 0; u < N; u++)
        inside |= uint32_t((in >> u & 1u) && i[u] < p.rows && j[u] < p.cols) << u;
    plane_values(p, samples, i, j, inside, v);
#pragma unroll
    for (uint32_t u = 0; u < N; u++)
        v[u] = inside >> u & 1u ? v[u] : 0;
    const uint32_t flag = p.vmap && inside ? vmap[p.vmap_at] : 0u;
    if (!flag)
        return;
    int32_t base = p.vmap_base;
    if (flag & VMAP_OFFSET) {
#pragma unroll
        for (uint32_t u = 0; u < N; u++)
            if (inside >> u & 1u)
                v[u] = int32_t((uint32_t(v[u]) - (flag >> 16)) & ((1u << p.bits_stored) - 1u));
        base = 0;
    }
    if (!(flag & VMAP_MAPPED))
        return;
    // the rank: values below v's word (the prefix), then those below v in its word
    const uint32_t *bits = vmap + p.vmap_at + 1, *prefix = bits + p.vmap_words;
    uint32_t pre[N], word[N];
#pragma unroll
    for (uint32_t u = 0; u < N; u++) { // word 0 where the pixel is not asked for
        const uint32_t w = inside >> u & 1u ? uint32_t(v[u] - base) >> 5 : 0u;
        pre[u] = prefix[w];
        word[u] = bits[w];
    }
#pragma unroll
    for (uint32_t u = 0; u < N; u++)
        if (inside >> u & 1u)
            v[u] = int32_t(pre[u] + __popc(word[u] & ((1u << (uint32_t(v[u] - base) & 31u)) - 1u)));
}

// import_values at one pixel (i, j); 0 in the padding.
__device__ inline int32_t import_value(const GpuPlane &p, const uint8_t *samples, const uint32_t *vmap,
                                       uint32_t i, uint32_t j)
{
    int32_t v[1];
    import_values<1>(p, samples, vmap, {i}, {j}, 1u, v);
    return v[0];
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

// Decode: a mapped plane's value map, its values in rank order (GpuPlane::vmap_at in the arena),
// read by the export (planes without the colour transform) and by rank_values (with it).
struct RankMap {
    const int32_t *values;
    uint32_t count;
    // Rank x to its value; false, with the plane's error GPU_ERR_RANK, for a rank outside the map.
    __device__ bool value(int64_t &x, uint32_t &error) const
    {
        if (x < 0 || x >= int64_t(count)) {
            atomicCAS(&error, 0u, uint32_t(GPU_ERR_RANK));
            return false;
        }
        x = values[x];
        return true;
    }
};
__device__ inline RankMap rank_map(const GpuPlane &p, const GpuPlaneState &st, const uint32_t *vmap)
{
    return {reinterpret_cast<const int32_t *>(vmap + p.vmap_at), st.map_count};
}
