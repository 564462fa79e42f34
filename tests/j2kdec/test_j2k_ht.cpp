// The library's HTJ2K decoder (codec/src/j2k_ht*.{c,h}, issue 34): streams made at test time by
// ojph_compress (OpenJPH) over sizes (1x1 to 2000x2500, odd ones), levels 0-6, code-block sizes,
// bit depths 8-16, signed and unsigned, one and three components with and without the colour
// transform, progression orders and precincts decode through pcwt_decode to the source image and
// to opj_decompress's samples; damaged streams are refused with a message, never read past
// (the sanitizer build runs these). Skips without openjph-tools or libopenjp2-tools.
#include "j2k_ht_refine.h"
#include "j2k_ojph_util.h"
#include "j2k_opj_util.h"
#include "j2k_batch.h"
#include "j2k_pcwt_decode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace j2kt1;

namespace {

bool haveTools() { return haveOpj() && haveOjph(); }

struct HtCase {
    const char *name;
    uint32_t w, h, comps, bits;
    bool sgn;
    const char *args; // ojph_compress options
};

const HtCase kCases[] = {
    {"one_pixel", 1, 1, 1, 8, false, "-num_decomps 0"},
    {"one_row", 77, 1, 1, 12, false, "-num_decomps 1"},
    {"one_column", 1, 65, 1, 12, true, "-num_decomps 1"},
    {"two_by_three", 2, 3, 1, 8, false, "-num_decomps 1"},
    {"odd17x9_cblk4", 17, 9, 1, 8, false, "-num_decomps 2 -block_size '{4,4}'"},
    {"levels0", 50, 40, 1, 16, false, "-num_decomps 0"},
    {"levels3_s12", 300, 200, 1, 12, true, "-num_decomps 3 -block_size '{16,64}'"},
    {"levels6_s9", 257, 255, 1, 9, true, "-num_decomps 6 -block_size '{8,128}'"},
    {"u8", 130, 70, 1, 8, false, "-num_decomps 5"},
    {"s8", 130, 70, 1, 8, true, "-num_decomps 5"},
    {"u10", 130, 70, 1, 10, false, "-num_decomps 5"},
    {"u12_odd", 513, 517, 1, 12, false, "-num_decomps 5"},
    {"u15", 100, 100, 1, 15, false, "-num_decomps 0 -block_size '{32,32}'"},
    {"ct512_u16", 512, 512, 1, 16, false, "-num_decomps 6"},
    {"ct512_s16", 512, 512, 1, 16, true, "-num_decomps 5 -block_size '{32,32}'"},
    {"dx2000x2500", 2000, 2500, 1, 16, false, "-num_decomps 6"},
    {"cblk4x1024", 1023, 7, 1, 16, true, "-num_decomps 2 -block_size '{4,1024}'"},
    {"cblk1024x4", 9, 1030, 1, 12, false, "-num_decomps 2 -block_size '{1024,4}'"},
    {"rgb8_ct", 120, 90, 3, 8, false, "-num_decomps 4 -colour_trans true"},
    {"rgb8_noct", 333, 111, 3, 8, false, "-num_decomps 4 -colour_trans false"},
    {"rgb16_ct", 67, 45, 3, 16, false, "-num_decomps 3 -colour_trans true"},
    {"lrcp", 100, 100, 1, 13, false, "-num_decomps 3 -prog_order LRCP -block_size '{32,32}'"},
    {"rlcp", 100, 100, 1, 13, false, "-num_decomps 3 -prog_order RLCP -block_size '{32,32}'"},
    {"pcrl", 100, 100, 1, 13, false, "-num_decomps 3 -prog_order PCRL -block_size '{32,32}'"},
    {"cprl_rgb", 100, 100, 3, 12, false, "-num_decomps 3 -prog_order CPRL -block_size '{32,32}'"},
    {"precincts", 400, 300, 1, 12, false, "-num_decomps 5 -precincts '{128,128},{64,64}'"},
};

std::ostream &operator<<(std::ostream &o, const HtCase &c) { return o << c.name; }

class HtStream : public ::testing::TestWithParam<HtCase> {};

TEST_P(HtStream, EqualsSourceAndOpenJPEG)
{
    if (!haveTools())
        GTEST_SKIP() << "ojph_compress (openjph-tools) or opj_decompress (libopenjp2-tools) missing";
    const HtCase &c = GetParam();
    const Image im = makeImage(c.w, c.h, c.comps, c.bits, c.sgn, c.w * 37 + c.bits);
    const std::vector<uint8_t> cs = ojphEncode(im, c.args);
    ASSERT_FALSE(cs.empty()) << "ojph_compress failed on " << c.name << " " << c.args;
    const std::vector<int32_t> ours = decodeEqualToOpenJpeg(cs, im);
    ASSERT_FALSE(ours.empty());
    EXPECT_TRUE(ours == im.v) << "not the source image";
}

INSTANTIATE_TEST_SUITE_P(Ojph, HtStream, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<HtCase> &i) { return std::string(i.param.name); });

// Damaged HT streams: every truncation point of a small stream, flipped bytes everywhere after the
// main header, and code-block lengths that lie (packet header bits flipped). Each decode either
// succeeds or fails with a message; a truncation inside the packets always fails. The sanitizer
// build catches any read outside the input.
TEST(HtDamaged, TruncatedFlippedRefusedWithoutOverreads)
{
    if (!haveTools())
        GTEST_SKIP() << "ojph_compress (openjph-tools) or opj_decompress (libopenjp2-tools) missing";
    const Image im = makeImage(70, 50, 1, 12, false, 3);
    const std::vector<uint8_t> cs = ojphEncode(im, "-num_decomps 3 -block_size '{16,16}'");
    ASSERT_FALSE(cs.empty());
    pcwt_status st;
    std::string msg;
    ASSERT_TRUE(pcwtDecode(cs, st, msg) == im.v) << msg;
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    // the first SOD: packets start after it
    size_t sod = 0;
    for (size_t i = 0; i + 1 < cs.size(); ++i)
        if (cs[i] == 0xFF && cs[i + 1] == 0x93) {
            sod = i + 2;
            break;
        }
    ASSERT_GT(sod, 0u);
    size_t refused = 0;
    for (size_t n = 0; n < cs.size() - 2; n += 1 + n / 64) {
        const std::vector<uint8_t> cut(cs.begin(), cs.begin() + std::ptrdiff_t(n));
        pcwtDecode(cut, st, msg);
        if (n > sod + 8) {
            EXPECT_NE(st, PCWT_OK) << "truncated to " << n << " of " << cs.size() << " bytes";
            EXPECT_FALSE(msg.empty());
        }
        refused += st != PCWT_OK;
    }
    EXPECT_GT(refused, 0u);
    for (size_t i = sod; i < cs.size(); i += 1 + i % 5)
        for (uint8_t x : {uint8_t(0xFF), uint8_t(0x01), uint8_t(0x80), uint8_t(0x5A)}) {
            std::vector<uint8_t> bad = cs;
            bad[i] ^= x;
            pcwtDecode(bad, st, msg);
            if (st != PCWT_OK) {
                EXPECT_FALSE(msg.empty()) << "byte " << i;
            }
        }
}

} // namespace

namespace {

// SigProp and MagRef, which ojph_compress does not write: cleanup segments of its streams a
// bit-plane higher with random refinement bytes, with and without the vertically causal style,
// decode as OpenJPEG decodes them (both refuse the same ones).
TEST(HtRefinement, SigPropMagRefEqualOpenJPEG)
{
    if (!haveTools())
        GTEST_SKIP() << "ojph_compress (openjph-tools) or opj_decompress (libopenjp2-tools) missing";
    size_t decoded = 0, cases = 0, refined = 0, propagated = 0;
    for (uint32_t seed = 0; seed < kRefinementSeeds; seed++) {
        Image im;
        std::vector<uint8_t> refine;
        const std::vector<uint8_t> cs = refinementSource(seed, im, refine);
        ASSERT_FALSE(cs.empty());
        const std::vector<int32_t> clean = opjDecode(cs, im);
        ASSERT_EQ(clean.size(), im.v.size());
        for (bool vsc : {false, true}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + (vsc ? " vsc" : ""));
            const std::vector<uint8_t> ref = withRefinement(cs, refine, vsc);
            ASSERT_FALSE(ref.empty()) << "ojph_compress's stream not laid out as expected";
            pcwt_status st;
            std::string msg;
            const std::vector<int32_t> ours = pcwtDecode(ref, st, msg);
            const std::vector<int32_t> opj = opjDecode(ref, im);
            cases++;
            EXPECT_EQ(st == PCWT_OK, !opj.empty()) << msg;
            if (st != PCWT_OK || opj.empty())
                continue;
            size_t first;
            EXPECT_EQ(countDifferences(ours, opj, first), 0u)
                << "first at " << first << ": ours " << ours[first] << " OpenJPEG " << opj[first];
            decoded++;
            // the passes did something: a magnitude refined away from twice the cleanup's, an
            // insignificant sample made significant
            for (size_t i = 0; i < ours.size(); i++) {
                const int32_t c = clean[i] - 2048, o = ours[i] - 2048;
                refined += c != 0 && o != 2 * c;
                propagated += c == 0 && o != 0;
            }
        }
    }
    EXPECT_GT(decoded, cases / 2) << "too few refinement streams decoded";
    EXPECT_GT(refined, 0u);
    EXPECT_GT(propagated, 0u);
    std::printf("refinement streams: %zu of %zu decoded, %zu samples refined, %zu made significant\n", decoded,
                cases, refined, propagated);
}

} // namespace
