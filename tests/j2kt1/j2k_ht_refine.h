// j2k_ht_refine.h - HTJ2K streams with SigProp and MagRef passes, which ojph_compress does not
// write, for the CPU (tests/j2kdec/test_j2k_ht.cpp) and GPU (tests/gpu/test_gpu_j2k.cpp) tests:
// a one-code-block ojph_compress stream rewritten with its cleanup a bit-plane higher and
// refinement bytes after it (withRefinement).
#ifndef PCWT_TESTS_J2K_HT_REFINE_H
#define PCWT_TESTS_J2K_HT_REFINE_H

#include "j2k_batch.h"
#include "j2k_ojph_util.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace j2kt1 {

// Bits of a packet header (T.800 B.10): most significant first, 7 bits in a byte after 0xFF.
struct HeaderBits {
    const std::vector<uint8_t> &d;
    size_t pos;
    uint32_t buf = 0, left = 0;
    uint32_t bit()
    {
        if (!left) {
            const bool after_ff = pos > 0 && buf == 0xFF;
            buf = pos < d.size() ? d[pos] : 0;
            pos++;
            left = after_ff ? 7 : 8;
        }
        return (buf >> --left) & 1u;
    }
    uint32_t bits(uint32_t n)
    {
        uint32_t v = 0;
        while (n--)
            v = v << 1 | bit();
        return v;
    }
};

struct HeaderWriter {
    std::vector<uint8_t> out;
    uint32_t cur = 0, used = 0, room = 8;
    void bit(uint32_t b)
    {
        cur = cur << 1 | (b & 1u);
        if (++used == room) {
            out.push_back(uint8_t(cur));
            room = cur == 0xFF ? 7 : 8;
            cur = used = 0;
        }
    }
    void bits(uint32_t v, uint32_t n)
    {
        while (n--)
            bit(v >> n);
    }
    std::vector<uint8_t> done()
    {
        while (used)
            bit(0);
        if (!out.empty() && out.back() == 0xFF)
            out.push_back(0);
        return out;
    }
};

inline uint32_t bitLength(uint32_t v)
{
    uint32_t n = 0;
    while (v >> n)
        n++;
    return n;
}

// One code-block's ojph_compress stream (no levels, a 64x64 code-block) turned into one with a
// cleanup pass a bit-plane higher and SigProp and MagRef passes of `refine` bytes: the same
// cleanup bytes, one missing bit-plane less, three passes. Empty if the stream is not laid out as
// expected.
inline std::vector<uint8_t> withRefinement(const std::vector<uint8_t> &cs, const std::vector<uint8_t> &refine, bool vsc)
{
    size_t sot = 0, sod = 0, cod = 0;
    for (size_t i = 0; i + 1 < cs.size(); i++) {
        if (cs[i] != 0xFF)
            continue;
        if (cs[i + 1] == 0x52 && !cod)
            cod = i;
        if (cs[i + 1] == 0x90 && !sot)
            sot = i;
        if (cs[i + 1] == 0x93) {
            sod = i + 2;
            break;
        }
    }
    if (!sot || !sod || !cod || cs.size() < sod + 2)
        return {};
    HeaderBits r{cs, sod};
    if (!r.bit() || !r.bit()) // a non-empty packet; the code-block included
        return {};
    uint32_t z = 0;
    while (!r.bit() && z < 64)
        z++;
    if (z == 0 || r.bit()) // one coding pass
        return {};
    uint32_t lblock = 3;
    while (r.bit())
        lblock++;
    const uint32_t len1 = r.bits(lblock);
    const size_t data = r.buf == 0xFF ? r.pos + 1 : r.pos;
    if (data + len1 + 2 > cs.size())
        return {};
    HeaderWriter w;
    w.bits(0x3, 2);
    for (uint32_t i = 0; i + 1 < z; i++)
        w.bit(0);
    w.bit(1);
    w.bits(0xC, 4); // three passes
    const uint32_t len2 = uint32_t(refine.size());
    uint32_t lb = std::max<uint32_t>({3, bitLength(len1), bitLength(len2) > 0 ? bitLength(len2) - 1 : 0});
    for (uint32_t i = 3; i < lb; i++)
        w.bit(1);
    w.bit(0);
    w.bits(len1, lb);
    w.bits(len2, lb + 1);
    std::vector<uint8_t> out(cs.begin(), cs.begin() + std::ptrdiff_t(sod));
    if (vsc)
        out[cod + 12] |= PCWT_J2K_STYLE_VSC;
    const std::vector<uint8_t> head = w.done();
    out.insert(out.end(), head.begin(), head.end());
    out.insert(out.end(), cs.begin() + std::ptrdiff_t(data), cs.begin() + std::ptrdiff_t(data + len1));
    out.insert(out.end(), refine.begin(), refine.end());
    const uint32_t psot = uint32_t(out.size() - sot);
    for (int i = 0; i < 4; i++)
        out[sot + 6 + size_t(i)] = uint8_t(psot >> (24 - 8 * i));
    out.push_back(0xFF);
    out.push_back(0xD9);
    return out;
}

// The refinement cases: seeds 0 .. kRefinementSeeds - 1, each an image of a few sizes (12 bits, no
// levels, one code-block) coded by ojph_compress (returned; empty on failure) and its refinement
// bytes.
constexpr uint32_t kRefinementSeeds = 24;

inline std::vector<uint8_t> refinementSource(uint32_t seed, Image &im, std::vector<uint8_t> &refine)
{
    const uint32_t sizes[][2] = {{64, 64}, {33, 17}, {64, 5}, {7, 64}, {3, 2}, {62, 63}};
    const uint32_t *sz = sizes[seed % 6];
    im = makeImage(sz[0], sz[1], 1, 12, false, seed);
    for (int32_t &v : im.v)
        // coefficients (no levels: the samples less 2048) sparse and small, so that twice them
        // and the refinement stay in range
        v = 2048 + ((v & 0x40) ? ((v & 0x80) ? 1 : -1) * (v & 0x3F) * ((seed & 1) ? 1 : 3) : 0);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    refine.assign(1 + seed * 7 % 60, 0);
    for (uint8_t &b : refine) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b = uint8_t(x >> 24);
    }
    return ojphEncode(im, "-num_decomps 0");
}

} // namespace j2kt1

#endif // PCWT_TESTS_J2K_HT_REFINE_H
