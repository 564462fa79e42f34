// The CPU tier-1 decoder (codec/src/j2k_t1.c) on code-blocks that OpenJPEG made: every sample of
// the reconstruction equals opj_decompress's and, for lossless streams, the source image's; over
// sizes, levels, code-block sizes and styles, bit depths, signed and 3-component images, and
// rate-truncated streams (OpenJPEG's midpoint reconstruction). Damaged fields and data are
// refused or decoded without leaving the code-block's rectangle. Skips without opj_compress.
#include "j2k_opj_util.h"
#include "j2k_simple_stream.h"

extern "C" {
#include "j2k_t1.h"
}

#include <gtest/gtest.h>

#include <cstring>

using namespace j2kt1;

namespace {

using Case = OpjCase;

const Case kCases[] = {
    {"tiny8", 16, 8, 1, 8, false, "-n 1"},
    {"one_row", 37, 1, 1, 8, false, "-n 1"},
    {"one_col", 1, 45, 1, 12, false, "-n 1"},
    {"block12", 64, 64, 1, 12, false, "-n 1"},
    {"odd16s", 33, 29, 1, 16, true, "-n 1"},
    {"bits2", 40, 23, 1, 2, false, "-n 1"},
    {"wide_cblk", 120, 30, 1, 10, false, "-n 1 -b 128,32"},
    {"tall_cblk", 4, 1000, 1, 12, false, "-n 1 -b 4,1024"},
    {"lvl1_c32", 64, 64, 1, 12, false, "-n 2 -b 32,32"},
    {"lvl2", 100, 90, 1, 12, false, "-n 3"},
    {"lvl3_16u", 128, 128, 1, 16, false, "-n 4"},
    {"lvl5_odd", 97, 75, 1, 14, true, "-n 6"},
    {"rgb8", 64, 64, 3, 8, false, "-n 2"},
    {"rgb12_nomct", 50, 40, 3, 12, false, "-n 3 -mct 0"},
    {"bypass", 100, 90, 1, 16, false, "-n 3 -M 1"},
    {"reset", 100, 90, 1, 12, false, "-n 3 -M 2"},
    {"termall", 100, 90, 1, 12, false, "-n 3 -M 4"},
    {"vsc", 100, 90, 1, 12, true, "-n 3 -M 8"},
    {"pterm", 100, 90, 1, 12, false, "-n 3 -M 16"},
    {"segsym", 100, 90, 1, 12, false, "-n 3 -M 32"},
    {"bypass_termall", 100, 90, 1, 16, false, "-n 3 -M 5"},
    {"all_styles", 100, 90, 1, 16, true, "-n 3 -M 63"},
    {"rate20", 100, 90, 1, 12, false, "-n 3 -r 20", false},
    {"rate5_bypass", 100, 90, 1, 16, false, "-n 3 -r 5 -M 1", false},
    {"rate8_rgb", 64, 64, 3, 8, false, "-n 2 -r 8", false},
};

class T1Stream : public ::testing::TestWithParam<Case> {};

// Tier-1 of every code-block of b, then the reference reconstruction of frame 0.
std::vector<int32_t> decodeCpu(Batch &b, std::string &why)
{
    pcwt_j2k_batch v = b.view();
    std::vector<int32_t> coefs(b.coefs, 0x5A5A5A5A); // every coefficient must be written
    std::vector<uint8_t> scratch(PCWT_J2K_T1_SCRATCH);
    char err[256] = "";
    for (size_t i = 0; i < v.cblk_count; ++i) {
        if (pcwt_j2k_t1_decode(&v, i, coefs.data(), scratch.data(), err, sizeof err) != PCWT_OK) {
            why = err;
            return {};
        }
    }
    return reconstruct(b, b.frames[0], coefs);
}

TEST_P(T1Stream, EqualsOpenJpeg)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress/opj_decompress not installed (libopenjp2-tools)";
    const Case &c = GetParam();
    const Image im = makeImage(c.w, c.h, c.comps, c.bits, c.sgn, c.w * 31 + c.h);
    const std::vector<uint8_t> cs = opjEncode(im, c.args);
    ASSERT_FALSE(cs.empty()) << "opj_compress " << c.args;
    const std::vector<int32_t> ref = opjDecode(cs, im);
    ASSERT_EQ(ref.size(), im.v.size());
    Batch b;
    ASSERT_EQ(addFrame(b, cs), "");
    std::string why;
    const std::vector<int32_t> got = decodeCpu(b, why);
    ASSERT_EQ(got.size(), ref.size()) << why;
    size_t first;
    const size_t bad = countDifferences(got, ref, first);
    EXPECT_EQ(bad, 0u) << "first at " << first << ": " << got[first] << " vs OpenJPEG " << ref[first];
    if (c.lossless)
        EXPECT_EQ(ref, im.v) << "OpenJPEG's own decode is not lossless";
    else
        EXPECT_NE(ref, im.v) << "the rate did not truncate anything: the midpoint rule is untested";
}

INSTANTIATE_TEST_SUITE_P(Opj, T1Stream, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

// A lossless 3-level stream for the damage tests.
bool makeBatch(Batch &b, const char *args = "-n 3")
{
    const Image im = makeImage(100, 90, 1, 12, false, 7);
    const std::vector<uint8_t> cs = opjEncode(im, args);
    return !cs.empty() && addFrame(b, cs).empty();
}

pcwt_status decodeOne(Batch &b, size_t i, std::vector<int32_t> &coefs, std::string &msg)
{
    pcwt_j2k_batch v = b.view();
    std::vector<uint8_t> scratch(PCWT_J2K_T1_SCRATCH);
    char err[256] = "";
    const pcwt_status s = pcwt_j2k_t1_decode(&v, i, coefs.data(), scratch.data(), err, sizeof err);
    msg = err;
    return s;
}

TEST(T1Damage, InconsistentFieldsAreCorrupt)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress not installed (libopenjp2-tools)";
    Batch b;
    ASSERT_TRUE(makeBatch(b));
    std::vector<int32_t> coefs(b.coefs);
    std::string msg;
    size_t k = 0; // a code-block with data
    while (k < b.cblks.size() && b.cblks[k].passes < 3)
        ++k;
    ASSERT_LT(k, b.cblks.size());
    const pcwt_j2k_cblk keep = b.cblks[k];
    const std::vector<pcwt_j2k_seg> keepSegs = b.segs;
    ASSERT_EQ(decodeOne(b, k, coefs, msg), PCWT_OK) << msg;

    auto expect = [&](pcwt_status want, const char *what) {
        EXPECT_EQ(decodeOne(b, k, coefs, msg), want) << what;
        EXPECT_FALSE(msg.empty()) << what;
        b.cblks[k] = keep;
        b.segs = keepSegs;
    };
    b.cblks[k].zero_msbs = uint8_t(keep.mb + 1);
    expect(PCWT_ERR_CORRUPT, "more missing planes than Mb");
    b.cblks[k].passes = 3 * (keep.mb - keep.zero_msbs);
    b.segs[keep.seg_first].passes = b.cblks[k].passes;
    expect(PCWT_ERR_CORRUPT, "more passes than planes");
    b.cblks[k].passes = keep.passes + 1;
    expect(PCWT_ERR_CORRUPT, "passes not adding up");
    b.segs[keep.seg_first].length = uint32_t(b.data.size() - b.segs[keep.seg_first].offset + 1);
    expect(PCWT_ERR_CORRUPT, "segment past the data");
    b.cblks[k].seg_count = uint32_t(b.segs.size());
    expect(PCWT_ERR_CORRUPT, "segments past the list");
    b.cblks[k].out_offset = b.coefs - 2;
    expect(PCWT_ERR_CORRUPT, "rectangle past the buffer");
    b.cblks[k].width = 2000;
    expect(PCWT_ERR_CORRUPT, "width over 1024");
    b.cblks[k].orientation = 4;
    expect(PCWT_ERR_CORRUPT, "orientation");
    b.cblks[k].mb = 40;
    expect(PCWT_ERR_UNSUPPORTED, "too many planes");
    b.cblks[k].style = PCWT_J2K_STYLE_HT; // an HT code-block (j2k_ht.c) beyond what OpenJPEG decodes
    b.cblks[k].mb = 40;
    expect(PCWT_ERR_UNSUPPORTED, "HTJ2K");
    EXPECT_NE(msg.find("HT"), std::string::npos) << msg;
}

// Damaged code-block bytes decode to something, inside the rectangle, reading only the segment
// (ASan builds check the reads: the data is copied to an exact-size buffer).
TEST(T1Damage, DamagedDataStaysInside)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress not installed (libopenjp2-tools)";
    for (const char *args : {"-n 3", "-n 3 -M 63", "-n 3 -M 5"}) {
        Batch b;
        ASSERT_TRUE(makeBatch(b, args)) << args;
        uint64_t x = 12345;
        for (int round = 0; round < 40; ++round) {
            Batch d = b;
            for (int f = 0; f < 1 + round % 8; ++f) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                d.data[(x >> 33) % d.data.size()] ^= uint8_t(1u << ((x >> 20) % 8));
            }
            if (round % 5 == 4) // truncated segments: every byte past them reads as 0xFF
                for (auto &s : d.segs)
                    s.length /= 2;
            std::vector<uint8_t> exact(d.data);
            d.data = exact;
            pcwt_j2k_batch v = d.view();
            const size_t guard = 64;
            std::vector<int32_t> coefs(d.coefs + 2 * guard, 0x11111111);
            std::vector<uint8_t> scratch(PCWT_J2K_T1_SCRATCH);
            char err[256];
            for (size_t i = 0; i < v.cblk_count; ++i) {
                pcwt_j2k_cblk cb = d.cblks[i];
                cb.out_offset += guard;
                pcwt_j2k_batch one = v;
                one.cblks = &cb;
                one.cblk_count = 1;
                one.coef_count = d.coefs + 2 * guard;
                EXPECT_EQ(pcwt_j2k_t1_decode(&one, 0, coefs.data(), scratch.data(), err, sizeof err), PCWT_OK) << err;
            }
            for (size_t i = 0; i < guard; ++i) {
                EXPECT_EQ(coefs[i], 0x11111111);
                EXPECT_EQ(coefs[coefs.size() - 1 - i], 0x11111111);
            }
        }
    }
}

// A code-block in no layer reads as zeros.
TEST(T1Damage, EmptyBlockIsZero)
{
    Batch b;
    b.cblks.push_back(pcwt_j2k_cblk{3, 10, 0, 0, 4, 5, PCWT_J2K_HH, 9, 0, 0, 0});
    b.coefs = 60;
    std::vector<int32_t> coefs(60, 7);
    std::string msg;
    ASSERT_EQ(decodeOne(b, 0, coefs, msg), PCWT_OK) << msg;
    for (size_t i = 0; i < 60; ++i) {
        const bool inside = i >= 3 && (i - 3) % 10 < 4 && (i - 3) / 10 < 5;
        EXPECT_EQ(coefs[i], inside ? 0 : 7) << i;
    }
}

} // namespace
