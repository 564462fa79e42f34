// j2k_ojph_util.h - HTJ2K streams for the tests: OpenJPH's ojph_compress (openjph-tools) of an
// Image of j2k_opj_util.h, for the CPU (tests/j2kdec/test_j2k_ht.cpp) and GPU (tests/gpu) tests.
#ifndef PCWT_TESTS_J2K_OJPH_UTIL_H
#define PCWT_TESTS_J2K_OJPH_UTIL_H

#include "j2k_opj_util.h"

namespace j2kt1 {

inline bool haveOjph() { return std::system("command -v ojph_compress >/dev/null 2>&1") == 0; }

// ojph_compress, reversible, of im (PPM for three components, raw otherwise); empty on failure.
// Signed images: ojph_compress 0.9 zero-extends raw samples (OpenJPH issue #102), so it is given
// the values offset by 2^(bits-1) as unsigned (its DC level shift takes the offset off again) and
// the SIZ components are then marked signed, as tests/j2k/j2k_test_util.h does: the codestream a
// conforming encoder writes for the signed values.
inline std::vector<uint8_t> ojphEncode(const Image &im, const std::string &args)
{
    TempDir t;
    std::string in = t.path + "/in.raw", opts;
    if (im.comps == 3) {
        in = t.path + "/in.ppm";
        const size_t px = size_t(im.w) * im.h, bps = im.bits > 8 ? 2 : 1;
        const std::string head = "P6\n" + std::to_string(im.w) + " " + std::to_string(im.h) + "\n" +
                                 std::to_string((1u << im.bits) - 1) + "\n";
        std::vector<uint8_t> d(head.begin(), head.end());
        for (size_t p = 0; p < px; ++p)
            for (uint32_t c = 0; c < 3; ++c) {
                const uint32_t v = uint32_t(im.v[c * px + p]);
                if (bps == 2)
                    d.push_back(uint8_t(v >> 8));
                d.push_back(uint8_t(v));
            }
        writeFile(in, d);
    } else {
        Image shifted = im;
        if (im.sgn)
            for (int32_t &v : shifted.v)
                v += int32_t(1) << (im.bits - 1);
        writeFile(in, rawBytes(shifted));
        opts = " -dims '{" + std::to_string(im.w) + "," + std::to_string(im.h) +
               "}' -num_comps 1 -signed false -bit_depth " + std::to_string(im.bits) + " -downsamp '{1,1}'";
    }
    const std::string cmd = "ojph_compress -i '" + in + "' -o '" + t.path + "/out.j2c' -reversible true" + opts +
                            " " + args + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0)
        return {};
    std::vector<uint8_t> cs = readFile(t.path + "/out.j2c");
    if (im.sgn) { // SOC, then SIZ: Ssiz of component c at 42 + 3c (bit 7: signed)
        if (cs.size() < 42 + 3 * size_t(im.comps) || cs[0] != 0xFF || cs[1] != 0x4F || cs[2] != 0xFF || cs[3] != 0x51)
            return {};
        for (uint32_t c = 0; c < im.comps; ++c)
            cs[42 + 3 * c] |= 0x80;
    }
    return cs;
}

} // namespace j2kt1

#endif // PCWT_TESTS_J2K_OJPH_UTIL_H
