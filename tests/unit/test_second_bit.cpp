// The modelled second mantissa bit (docs/FORMAT.md Sec. 5.3, plane option bit 4): on by default in
// the range-coded profiles and recorded per plane; every sample comes back with it on and off, with
// and without modelled low bits (which take bits 1 and 0, so that it starts at q = 4 there), for
// bit depths, signs, level counts and group sizes; it makes noisy planes smaller; its models take
// indices that no other bin uses and start at 1/2; the bit is refused in the baseline profile, and
// a codestream whose bit was flipped does not decode to the original samples.
#include "recrc.h"
#include "test_util.h"

extern "C" {
#include "ec_model.h"
}

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

pcwt_encode_params params(pcwt_profile profile, pcwt_second_bit second,
                          pcwt_low_bits low = PCWT_LOW_BITS_AUTO)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    p.profile = profile;
    p.second_bit = second;
    p.low_bits = low;
    return p;
}

// Samples of d: noise of amplitude `noise` over a ramp (large magnitudes at every level when the
// noise is large), as words of d's size.
std::vector<uint8_t> noisy(const pcwt_image_desc &d, Rng &rng, uint32_t noise)
{
    const uint32_t span = 1u << d.bits_stored;
    std::vector<uint8_t> out(pcwt_image_size(&d));
    const size_t n = size_t(d.width) * d.height * d.components;
    for (size_t k = 0; k < n; k++) {
        uint32_t v = (uint32_t(k % d.width) * 37u + uint32_t(k / d.width) * 11u + rng.below(noise + 1)) % span;
        if (d.is_signed)
            v = (v + span / 2) % span; // two's complement of the shifted value
        if (d.bits_allocated == 8) {
            out[k] = uint8_t(v);
        } else {
            out[2 * k] = uint8_t(v);
            out[2 * k + 1] = uint8_t(v >> 8);
        }
    }
    return out;
}

uint32_t second_bit_of(const std::vector<uint8_t> &cs, uint32_t plane)
{
    pcwt_header_info info;
    EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    return info.planes[plane].second_bit;
}

} // namespace

TEST(SecondBit, ModelsOutsideEveryOtherBinAndStartAtOneHalf)
{
    // MAG[0][1][1..6]: m = 0 codes only the level bin k = 0.
    EXPECT_EQ(PCWT_EC_MANT2, PCWT_EC_MAG + 8 + 1);
    EXPECT_LE(PCWT_EC_MANT2 + 5, PCWT_EC_MAG + 15);
    EXPECT_GT(PCWT_EC_MANT2, PCWT_EC_LOW0 + 1);
    for (int c = 0; c < PCWT_EC_CLASSES; c++)
        for (int j = 0; j < 6; j++)
            EXPECT_EQ(pcwt_ec_init_p[c][PCWT_EC_MANT2 + j], 16384) << "class " << c << " model " << j;
    // where the bit is modelled
    EXPECT_FALSE(pcwt_ec_second_bit(0, 5));
    EXPECT_FALSE(pcwt_ec_second_bit(PCWT_EC_SECOND_BIT, 1));
    EXPECT_TRUE(pcwt_ec_second_bit(PCWT_EC_SECOND_BIT, 2));
    EXPECT_FALSE(pcwt_ec_second_bit(PCWT_EC_SECOND_BIT | PCWT_EC_LOW_BITS, 3));
    EXPECT_TRUE(pcwt_ec_second_bit(PCWT_EC_SECOND_BIT | PCWT_EC_LOW_BITS, 4));
}

TEST(SecondBit, DefaultOnAndRecordedPerPlane)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    EXPECT_EQ(p.second_bit, PCWT_SECOND_BIT_ON);
    Rng rng(3);
    const pcwt_image_desc d = make_desc(40, 36, 1, 16, 12, false);
    const std::vector<uint8_t> img = noisy(d, rng, 300);
    for (pcwt_profile profile : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT}) {
        EXPECT_EQ(second_bit_of(encode(d, img), 0), 1u);
        pcwt_encode_params on = params(profile, PCWT_SECOND_BIT_ON), off = params(profile, PCWT_SECOND_BIT_OFF);
        EXPECT_EQ(second_bit_of(encode(d, img, &on), 0), 1u) << profile;
        EXPECT_EQ(second_bit_of(encode(d, img, &off), 0), 0u) << profile;
    }
    pcwt_encode_params base = params(PCWT_PROFILE_BASELINE, PCWT_SECOND_BIT_ON);
    EXPECT_EQ(second_bit_of(encode(d, img, &base), 0), 0u); // raw bits only
}

TEST(SecondBit, OptionByName)
{
    pcwt_encoder *e = pcwt_encoder_create();
    int64_t v = -1;
    ASSERT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_SECOND_BIT, &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_SECOND_BIT_ON);
    ASSERT_EQ(pcwt_encoder_set_option_name(e, "second-bit", "off"), PCWT_OK) << pcwt_encoder_last_error(e);
    ASSERT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_SECOND_BIT, &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_SECOND_BIT_OFF);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_SECOND_BIT, 2), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encoder_destroy(e);
}

TEST(SecondBit, RoundTripsWithAndWithoutLowBits)
{
    struct Shape {
        uint32_t w, h, comps, alloc, stored;
        bool is_signed;
        uint32_t noise;
    };
    const Shape shapes[] = {{33, 29, 1, 16, 16, true, 40000}, {64, 48, 1, 16, 12, false, 900},
                            {17, 40, 1, 8, 8, false, 60},     {1, 1, 1, 16, 16, false, 0},
                            {31, 1, 1, 16, 10, false, 200},   {24, 20, 3, 8, 8, false, 90},
                            {50, 38, 1, 16, 16, false, 65535}};
    Rng rng(9);
    size_t checked = 0;
    for (const Shape &s : shapes) {
        const pcwt_image_desc d = make_desc(s.w, s.h, s.comps, s.alloc, s.stored, s.is_signed);
        const std::vector<uint8_t> img = noisy(d, rng, s.noise);
        for (pcwt_profile profile : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT})
            for (pcwt_second_bit second : {PCWT_SECOND_BIT_ON, PCWT_SECOND_BIT_OFF})
                for (pcwt_low_bits low : {PCWT_LOW_BITS_OFF, PCWT_LOW_BITS_ON})
                    for (uint32_t levels : {0u, 2u, 6u}) {
                        pcwt_encode_params p = params(profile, second, low);
                        p.levels = levels;
                        p.group_rows = levels == 2 ? 3 : 0;
                        p.group_cols = levels == 2 ? 5 : 0;
                        const std::vector<uint8_t> cs = encode(d, img, &p);
                        ASSERT_FALSE(cs.empty());
                        std::vector<uint8_t> out;
                        std::string err;
                        ASSERT_EQ(decode(cs, out, &err), PCWT_OK) << err;
                        ASSERT_TRUE(out == img) << s.w << "x" << s.h << " noise " << s.noise << " profile "
                                                << profile << " second " << second << " low " << low
                                                << " levels " << levels;
                        checked++;
                    }
    }
    EXPECT_EQ(checked, 7u * 2 * 2 * 2 * 3);
}

TEST(SecondBit, NoisyPlanesGetSmaller)
{
    Rng rng(21);
    const pcwt_image_desc d = make_desc(128, 96, 1, 16, 16, true);
    const std::vector<uint8_t> img = noisy(d, rng, 3000);
    for (pcwt_low_bits low : {PCWT_LOW_BITS_OFF, PCWT_LOW_BITS_ON}) {
        pcwt_encode_params on = params(PCWT_PROFILE_COMPACT, PCWT_SECOND_BIT_ON, low);
        pcwt_encode_params off = params(PCWT_PROFILE_COMPACT, PCWT_SECOND_BIT_OFF, low);
        const size_t a = encode(d, img, &on).size(), b = encode(d, img, &off).size();
        EXPECT_GT(a, 0u);
        EXPECT_LT(a, b) << "low " << low;
    }
}

TEST(SecondBit, RefusedInTheBaselineProfile)
{
    Rng rng(4);
    const pcwt_image_desc d = make_desc(20, 18, 1, 16, 12, false);
    const std::vector<uint8_t> img = noisy(d, rng, 500);
    pcwt_encode_params p = params(PCWT_PROFILE_BASELINE, PCWT_SECOND_BIT_ON);
    std::vector<uint8_t> cs = encode(d, img, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    cs[PCWT_HEADER_FIXED + 3] |= 16u;
    fix_crcs(cs, info);
    EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_ERR_CORRUPT);
    pcwt_decoder *dec = pcwt_decoder_create();
    std::vector<uint8_t> out(pcwt_image_size(&d));
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_CORRUPT);
    const std::string err = pcwt_decoder_last_error(dec);
    pcwt_decoder_destroy(dec);
    EXPECT_NE(err.find("invalid options byte"), std::string::npos) << err;
}

TEST(SecondBit, FlippedBitDoesNotGiveTheSamples)
{
    Rng rng(15);
    const pcwt_image_desc d = make_desc(48, 40, 1, 16, 14, false);
    const std::vector<uint8_t> img = noisy(d, rng, 5000);
    for (pcwt_second_bit second : {PCWT_SECOND_BIT_ON, PCWT_SECOND_BIT_OFF}) {
        pcwt_encode_params p = params(PCWT_PROFILE_ENTROPY, second, PCWT_LOW_BITS_OFF);
        std::vector<uint8_t> cs = encode(d, img, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        cs[PCWT_HEADER_FIXED + 3] ^= 16u;
        fix_crcs(cs, info);
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        EXPECT_EQ(info.planes[0].second_bit, second == PCWT_SECOND_BIT_ON ? 0u : 1u);
        std::vector<uint8_t> out;
        std::string err;
        const pcwt_status st = decode(cs, out, &err);
        EXPECT_TRUE(st != PCWT_OK || out != img) << "second " << second;
        if (st != PCWT_OK)
            EXPECT_FALSE(err.empty());
    }
}
