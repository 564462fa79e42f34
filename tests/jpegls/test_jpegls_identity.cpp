// libpcwt's JPEG-LS encoder against CharLS 2.4.1 on synthetic images: the codestream must be byte
// for byte what CharLS writes with default parameters (NEAR 0, same interleave mode), and CharLS
// must decode it back to the input, every sample compared.
//
// Patterns cover flat images, noise (long and escape codes), runs (long, interrupted with RItype 0
// and 1, reaching the line end, high RUNindex then an interruption), 0/max extremes, gradients;
// every bit depth 2..16; odd sizes (1x1, 1xN, Nx1, primes); grey and RGB in each interleave mode,
// pixel-interleaved and planar input, 8- and 16-bit words, signed data.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jpegls_test_util.hpp"

namespace {

using jls_test::Image;

uint32_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return static_cast<uint32_t>(x ^ (x >> 31));
}

uint32_t h(uint32_t a, uint32_t b, uint32_t c = 0, uint32_t d = 0)
{
    return mix((static_cast<uint64_t>(a) << 48) ^ (static_cast<uint64_t>(b) << 32) ^
               (static_cast<uint64_t>(c) << 16) ^ d ^ (static_cast<uint64_t>(mix(d)) << 1));
}

enum Pattern {
    kFlatZero,
    kFlatMax,
    kFlatMid,
    kNoise,
    kSmooth,
    kRuns,
    kRunsToLineEnd,
    kChecker,
    kStripes,
    kGradient,
    kFlatThenNoise,
    kSparse,
    kPatternCount
};

const char *pattern_name(int p)
{
    static const char *const names[] = {"flat0",    "flatmax",  "flatmid",  "noise",
                                        "smooth",   "runs",     "runs-eol", "checker",
                                        "stripes",  "gradient", "flat-then-noise", "sparse"};
    return names[p];
}

// Sample pattern of component c at (y, x); structure (run positions) is shared by the components
// so that sample-interleaved scans see whole-pixel runs.
uint32_t pattern_value(int p, uint32_t c, uint32_t y, uint32_t x, const pcwt_image_desc &d,
                       uint32_t seed)
{
    const uint32_t m = (1u << d.bits_stored) - 1u;
    switch (p) {
    case kFlatZero:
        return 0;
    case kFlatMax:
        return m;
    case kFlatMid:
        return (m >> 1) + c;
    case kNoise:
        return h(seed, c + 1, y, x) & m;
    case kSmooth: {
        const uint64_t base = (static_cast<uint64_t>(x) * 3 + static_cast<uint64_t>(y) * 2) * m /
                              (3ull * d.width + 2ull * d.height);
        const int64_t v = static_cast<int64_t>(base) + static_cast<int64_t>(h(seed, c, y, x) % 5) - 2;
        return static_cast<uint32_t>(v < 0 ? 0 : (v > m ? m : v));
    }
    case kRuns: {
        // blocks of 3 equal rows (interruptions with Ra == Rb), spikes every ~23 samples
        if (h(seed, 99, y, x) % 23 == 0)
            return h(seed, c + 7, y, x) & m;
        return h(seed, c + 3, y / 3, 0) & m;
    }
    case kRunsToLineEnd: {
        const uint32_t r = h(seed, 5, y, 0) % (d.width + 1);
        if (x < r)
            return h(seed, c + 11, y, x) & m;
        return h(seed, c + 13, y / 2, 0) & m;
    }
    case kChecker:
        return ((x + y) & 1) ? m : 0;
    case kStripes:
        return (((x >> (c & 1)) ^ (y >> 1)) & 1) ? m : 0;
    case kGradient:
        return (x * 7 + y * 3 + c * 11) & m;
    case kFlatThenNoise:
        // a long flat top drives RUNindex to 31, then interruptions with large errors follow
        return y < (d.height + 1) / 2 ? (m >> 2) : (h(seed, c + 17, y, x) & m);
    case kSparse:
        return h(seed, 23, y, x) % 61 == 0 ? (h(seed, c + 29, y, x) & m) : 0;
    default:
        return 0;
    }
}

Image make_image(int p, uint32_t w, uint32_t hgt, uint32_t comps, uint32_t bits,
                 uint32_t allocated, uint32_t planar, uint32_t is_signed, uint32_t seed)
{
    Image img(w, hgt, comps, bits, allocated, planar, is_signed);
    for (uint32_t c = 0; c < comps; ++c)
        for (uint32_t y = 0; y < hgt; ++y)
            for (uint32_t x = 0; x < w; ++x)
                img.set(c, y, x, pattern_value(p, c, y, x, img.desc, seed));
    return img;
}

// "" when ours is byte-identical to CharLS and CharLS decodes it to the input.
std::string check(const Image &img, uint32_t ilv)
{
    const jls_test::Ours ours = jls_test::pcwt_jls_encode(img, ilv);
    if (ours.status != PCWT_OK)
        return std::string("pcwt_encode: ") + pcwt_status_string(ours.status) + ": " + ours.message;
    const jls_test::Coded ref = jls_test::charls_encode(img, ilv);
    if (!ref.error.empty())
        return "CharLS encode: " + ref.error;
    const long diff = jls_test::first_difference(ours.bytes, ref.bytes);
    if (diff >= 0)
        return "codestream differs from CharLS at byte " + std::to_string(diff) + " (ours " +
               std::to_string(ours.bytes.size()) + " bytes, CharLS " +
               std::to_string(ref.bytes.size()) + ")";
    const std::string dec = jls_test::compare_decoded(jls_test::charls_decode(ours.bytes), img);
    if (!dec.empty())
        return "decoding ours with CharLS: " + dec;
    return "";
}

struct Size {
    uint32_t w, h;
};

const std::vector<Size> &small_sizes()
{
    static const std::vector<Size> s = {{1, 1},  {1, 7},   {7, 1},   {2, 2},    {13, 1},   {1, 13},
                                        {3, 3},  {17, 31}, {31, 17}, {61, 127}, {64, 64}, {257, 3},
                                        {3, 257}};
    return s;
}

// Runs every pattern on every size; reports each failure (up to a few) with its parameters.
void run_matrix(uint32_t comps, uint32_t bits, uint32_t allocated, uint32_t planar,
                uint32_t is_signed, const std::vector<uint32_t> &ilvs, const std::vector<Size> &sizes,
                size_t *cases)
{
    int failures = 0;
    for (int p = 0; p < kPatternCount; ++p)
        for (const Size &sz : sizes)
            for (uint32_t ilv : ilvs) {
                const Image img = make_image(p, sz.w, sz.h, comps, bits, allocated, planar,
                                             is_signed, 1000u * bits + static_cast<uint32_t>(p));
                const std::string e = check(img, ilv);
                ++*cases;
                if (!e.empty() && ++failures <= 5)
                    ADD_FAILURE() << pattern_name(p) << " " << jls_test::describe(img.desc)
                                  << " interleave " << ilv << ": " << e;
            }
    EXPECT_EQ(failures, 0);
}

class JpeglsGrey : public ::testing::TestWithParam<uint32_t> {};

TEST_P(JpeglsGrey, MatchesCharLSAndDecodes)
{
    const uint32_t bits = GetParam();
    size_t cases = 0;
    std::vector<Size> sizes = small_sizes();
    sizes.push_back({300, 200});  // long enough for context RESET halvings
    sizes.push_back({40000, 4});  // runs long enough to take RUNindex to 31 within one line
    run_matrix(1, bits, 0, 0, 0, {0}, sizes, &cases);
    if (bits <= 8) // 8-bit samples in 16-bit words
        run_matrix(1, bits, 16, 0, 0, {0}, small_sizes(), &cases);
    if (bits < 16) // signed, sign-extended words: coded as the bits_stored-bit pattern
        run_matrix(1, bits, 16, 0, 1, {0}, small_sizes(), &cases);
    run_matrix(1, bits, 0, 0, 1, {0}, {{17, 31}}, &cases);
    EXPECT_GT(cases, 100u);
}

INSTANTIATE_TEST_SUITE_P(jpegls, JpeglsGrey, ::testing::Range(2u, 17u),
                         [](const ::testing::TestParamInfo<uint32_t> &i) {
                             return "bits" + std::to_string(i.param);
                         });

class JpeglsRgb : public ::testing::TestWithParam<uint32_t> {};

TEST_P(JpeglsRgb, MatchesCharLSInEveryInterleaveMode)
{
    const uint32_t bits = GetParam();
    size_t cases = 0;
    const std::vector<Size> sizes = {{1, 1}, {1, 5}, {5, 1}, {2, 2}, {17, 31}, {31, 17}, {61, 37}, {3, 67}};
    for (uint32_t planar = 0; planar <= 1; ++planar)
        run_matrix(3, bits, 0, planar, 0, {0, 1, 2}, sizes, &cases);
    if (bits <= 8)
        run_matrix(3, bits, 16, 1, 0, {0, 1, 2}, {{17, 31}}, &cases);
    run_matrix(3, bits, 0, 0, 0, {0, 1, 2}, {{160, 120}, {40000, 3}}, &cases);
    EXPECT_GT(cases, 100u);
}

INSTANTIATE_TEST_SUITE_P(jpegls, JpeglsRgb, ::testing::Range(2u, 17u),
                         [](const ::testing::TestParamInfo<uint32_t> &i) {
                             return "bits" + std::to_string(i.param);
                         });

// The codestream structure CharLS writes: SOI, SOF55, LSE only for P > 12, SOS ... EOI.
TEST(jpegls, MarkerLayout)
{
    for (uint32_t bits : {8u, 12u, 13u, 16u}) {
        const Image img = make_image(kSmooth, 9, 5, 1, bits, 0, 0, 0, 1);
        const jls_test::Ours ours = jls_test::pcwt_jls_encode(img, 0);
        ASSERT_EQ(ours.status, PCWT_OK) << ours.message;
        const std::vector<uint8_t> &b = ours.bytes;
        ASSERT_GT(b.size(), 40u);
        EXPECT_EQ(b[0], 0xFF);
        EXPECT_EQ(b[1], 0xD8);
        EXPECT_EQ(b[2], 0xFF);
        EXPECT_EQ(b[3], 0xF7);
        EXPECT_EQ(b[6], bits);
        const size_t after_sof = 4 + (b[4] << 8 | b[5]);
        EXPECT_EQ(b[after_sof], 0xFF);
        EXPECT_EQ(b[after_sof + 1], bits > 12 ? 0xF8 : 0xDA) << "bits " << bits;
        if (bits > 12) {
            // LSE id 1: MAXVAL, T1, T2, T3, RESET = 2^P - 1, 18, 67, 276, 64
            const uint8_t *l = &b[after_sof + 4];
            EXPECT_EQ(l[0], 1);
            EXPECT_EQ(l[1] << 8 | l[2], (1 << bits) - 1);
            EXPECT_EQ(l[3] << 8 | l[4], 18);
            EXPECT_EQ(l[5] << 8 | l[6], 67);
            EXPECT_EQ(l[7] << 8 | l[8], 276);
            EXPECT_EQ(l[9] << 8 | l[10], 64);
        }
        EXPECT_EQ(b[b.size() - 2], 0xFF);
        EXPECT_EQ(b[b.size() - 1], 0xD9);
    }
}

} // namespace
