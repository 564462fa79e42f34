// JPEG 2000 tier-1 tests: streams made with OpenJPEG's opj_compress and decoded with
// opj_decompress (the reference samples), and a minimal tier-2 reader that turns such a stream
// into a pcwt_j2k_batch (j2k_batch.h). The reader knows only what the tests make: one tile, one
// layer, LRCP, no SOP/EPH, and every sub-band a single code-block (images of at most 64x64 per
// band); the codec's own tier-2 parser (j2k_tier2.c) is what decodes real streams. A reference
// inverse 5/3 DWT, inverse RCT and DC level shift (T.800 Annex F, G) complete the decode.
#ifndef PCWT_TESTS_J2K_OPJ_UTIL_H
#define PCWT_TESTS_J2K_OPJ_UTIL_H

#include "j2k_batch.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <ostream>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace j2kt1 {

inline bool haveOpj()
{
    return std::system("command -v opj_compress >/dev/null 2>&1 && command -v opj_decompress >/dev/null 2>&1") == 0;
}

inline std::vector<uint8_t> readFile(const std::string &p)
{
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline void writeFile(const std::string &p, const std::vector<uint8_t> &d)
{
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char *>(d.data()), std::streamsize(d.size()));
}

// An image: planar int32 values of comps components.
struct Image {
    uint32_t w = 0, h = 0, comps = 1, bits = 8;
    bool sgn = false;
    std::vector<int32_t> v;
};

// A parameterised test's stream: an image (makeImage's) and the opj_compress options coding it.
struct OpjCase {
    const char *name;
    uint32_t w, h, comps, bits;
    bool sgn;
    const char *args; // opj_compress options
    bool lossless = true; // false: rate-truncated, compared with OpenJPEG only
};

inline std::ostream &operator<<(std::ostream &o, const OpjCase &c) { return o << c.name; }

// How many samples of a differ from b's (the same size), the first such index in first.
inline size_t countDifferences(const std::vector<int32_t> &a, const std::vector<int32_t> &b, size_t &first)
{
    size_t bad = 0;
    first = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && bad++ == 0)
            first = i;
    return bad;
}

// A pattern with smooth parts, edges, noise and the range's extremes (seeded).
inline Image makeImage(uint32_t w, uint32_t h, uint32_t comps, uint32_t bits, bool sgn, uint32_t seed)
{
    Image im{w, h, comps, bits, sgn, std::vector<int32_t>(size_t(w) * h * comps)};
    const int64_t range = int64_t(1) << bits, lo = sgn ? -(range / 2) : 0;
    uint64_t x = 0x9E3779B97F4A7C15ull ^ (uint64_t(seed) * 0x100000001B3ull);
    for (size_t i = 0; i < im.v.size(); ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const size_t p = i % (size_t(w) * h), c = i / (size_t(w) * h);
        const uint32_t px = uint32_t(p % w), py = uint32_t(p / w);
        int64_t val;
        if ((px + py + c) % 17 == 0)
            val = (x & 1) ? lo : lo + range - 1;                       // extremes
        else if (px < w / 3)
            val = lo + int64_t((px * 7 + py * 3 + c * 11) % uint64_t(range)); // ramp
        else if (px < 2 * w / 3)
            val = lo + int64_t(x % uint64_t(range));                   // noise
        else
            val = lo + range / 2 + int64_t(x % 16) - 8 + ((py / 8) % 2 ? range / 5 : 0); // flat + steps
        if (val < lo)
            val = lo;
        if (val > lo + range - 1)
            val = lo + range - 1;
        im.v[i] = int32_t(val);
    }
    return im;
}

// A temporary directory, removed with its files.
struct TempDir {
    std::string path;
    TempDir()
    {
        char t[] = "/tmp/pcwt_j2kt1_XXXXXX";
        path = mkdtemp(t) ? t : ""; // the tests then fail to write there; nothing is removed
    }
    ~TempDir()
    {
        std::error_code ec;
        if (!path.empty())
            std::filesystem::remove_all(path, ec);
    }
};

inline std::vector<uint8_t> rawBytes(const Image &im)
{
    const size_t bps = im.bits > 8 ? 2 : 1;
    std::vector<uint8_t> raw(im.v.size() * bps);
    for (size_t i = 0; i < im.v.size(); ++i) {
        const uint32_t u = uint32_t(im.v[i]);
        raw[i * bps] = uint8_t(u);
        if (bps == 2)
            raw[i * bps + 1] = uint8_t(u >> 8);
    }
    return raw;
}

// opj_compress (raw little-endian input) with extra options; empty on failure.
inline std::vector<uint8_t> opjEncode(const Image &im, const std::string &args)
{
    TempDir t;
    writeFile(t.path + "/in.rawl", rawBytes(im));
    const std::string cmd = "opj_compress -i '" + t.path + "/in.rawl' -o '" + t.path + "/out.j2k' -F " +
                            std::to_string(im.w) + "," + std::to_string(im.h) + "," +
                            std::to_string(im.comps) + "," + std::to_string(im.bits) + "," +
                            (im.sgn ? "s" : "u") + " " + args + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0)
        return {};
    return readFile(t.path + "/out.j2k");
}

// opj_decompress of a codestream into planar values; empty on failure.
inline std::vector<int32_t> opjDecode(const std::vector<uint8_t> &j2k, const Image &like)
{
    TempDir t;
    writeFile(t.path + "/in.j2k", j2k);
    const std::string cmd = "opj_decompress -i '" + t.path + "/in.j2k' -o '" + t.path + "/out.rawl' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0)
        return {};
    const std::vector<uint8_t> raw = readFile(t.path + "/out.rawl");
    const size_t bps = like.bits > 8 ? 2 : 1, n = like.v.size();
    if (raw.size() != n * bps)
        return {};
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t u = raw[i * bps];
        if (bps == 2)
            u |= uint32_t(raw[i * bps + 1]) << 8;
        u &= (1u << like.bits) - 1; // signed samples come as like.bits-bit two's complement
        v[i] = like.sgn && (u >> (like.bits - 1)) ? int32_t(u) - int32_t(1u << like.bits) : int32_t(u);
    }
    return v;
}

} // namespace j2kt1

#endif // PCWT_TESTS_J2K_OPJ_UTIL_H
