// The reversible colour transform of 3-component images (docs/FORMAT.md Sec. 2.1): exact round
// trips in every layout, depth and profile with the transform on, off and automatic; the header
// flag set exactly when asked for; the size gain that motivates it (grey stored as RGB); hostile
// headers and out-of-range results refused.
#include <gtest/gtest.h>

#include "recrc.h"
#include "rct.h"
#include "test_util.h"

#include <string>
#include <vector>

namespace {

// Smooth, correlated components with noise, optional bits above bits_stored.
std::vector<uint8_t> colour_image(const pcwt_image_desc &d, Rng &rng, bool garbage)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    const uint32_t mask = (1u << d.bits_stored) - 1u, amask = (1u << d.bits_allocated) - 1u;
    const size_t pixels = size_t(d.width) * d.height;
    for (size_t px = 0; px < pixels; px++) {
        const uint32_t i = uint32_t(px / d.width), j = uint32_t(px % d.width);
        const uint32_t base = i * 7 + j * 3 + rng.below(16);
        for (uint32_t c = 0; c < 3; c++) {
            uint32_t v = (base + c * 11 + rng.below(8)) & mask;
            if (d.is_signed && (v >> (d.bits_stored - 1)))
                v |= ~mask;
            if (garbage && d.bits_stored < d.bits_allocated && rng.below(13) == 0)
                v ^= rng.next() << d.bits_stored;
            v &= amask;
            const size_t k = d.planar ? c * pixels + px : px * 3 + c;
            if (d.bits_allocated == 8) {
                img[k] = uint8_t(v);
            } else {
                img[2 * k] = uint8_t(v);
                img[2 * k + 1] = uint8_t(v >> 8);
            }
        }
    }
    return img;
}

pcwt_encode_params params_of(pcwt_profile profile, pcwt_colour_transform ct)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    p.profile = profile;
    p.colour_transform = ct;
    return p;
}

uint32_t flag_of(const std::vector<uint8_t> &cs)
{
    pcwt_header_info info;
    EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    return info.colour_transform;
}

} // namespace

TEST(ColourTransform, InverseUndoesForward)
{
    for (int32_t a = -40; a <= 40; a += 3)
        for (int32_t b = -40; b <= 40; b += 5)
            for (int32_t c = -40; c <= 40; c += 7) {
                const int32_t y0 = pcwt_rct_forward(a, b, c, 0), y1 = pcwt_rct_forward(a, b, c, 1),
                              y2 = pcwt_rct_forward(a, b, c, 2);
                ASSERT_EQ(pcwt_rct_inverse(y0, y1, y2, 0), a);
                ASSERT_EQ(pcwt_rct_inverse(y0, y1, y2, 1), b);
                ASSERT_EQ(pcwt_rct_inverse(y0, y1, y2, 2), c);
            }
}

TEST(ColourTransform, RoundTripsEveryLayoutDepthAndProfile)
{
    Rng rng(41);
    const uint32_t sizes[][2] = {{1, 1}, {3, 5}, {33, 17}, {64, 64}, {130, 97}};
    int n = 0;
    for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY})
        for (pcwt_colour_transform ct : {PCWT_COLOUR_AUTO, PCWT_COLOUR_NONE, PCWT_COLOUR_RCT})
            for (uint32_t alloc : {8u, 16u})
                for (uint32_t stored : {1u, alloc - 3, alloc})
                    for (bool sgn : {false, true})
                        for (bool planar : {false, true}) {
                            const auto &s = sizes[n++ % 5];
                            const pcwt_image_desc d = make_desc(s[0], s[1], 3, alloc, stored, sgn, planar);
                            const auto img = colour_image(d, rng, true);
                            const pcwt_encode_params p = params_of(profile, ct);
                            pcwt_status st;
                            std::string err;
                            const auto cs = encode(d, img, &p, &st, &err);
                            const std::string what = "profile " + std::to_string(profile) + " ct " +
                                                     std::to_string(ct) + " " + std::to_string(alloc) + "/" +
                                                     std::to_string(stored) + (sgn ? "s" : "u") +
                                                     (planar ? " planar" : "");
                            ASSERT_EQ(st, PCWT_OK) << what << ": " << err;
                            const bool want = ct == PCWT_COLOUR_RCT ||
                                              (ct == PCWT_COLOUR_AUTO && profile == PCWT_PROFILE_ENTROPY);
                            EXPECT_EQ(flag_of(cs), want ? 1u : 0u) << what;
                            std::vector<uint8_t> back;
                            ASSERT_EQ(decode(cs, back, &err), PCWT_OK) << what << ": " << err;
                            ASSERT_TRUE(back == img) << what;
                        }
}

TEST(ColourTransform, NeverOnGreyImages)
{
    Rng rng(42);
    const pcwt_image_desc d = make_desc(40, 30, 1, 16, 12, false);
    std::vector<uint8_t> img(pcwt_image_size(&d));
    for (size_t k = 0; k < img.size(); k += 2)
        img[k] = uint8_t(rng.next());
    const pcwt_encode_params p = params_of(PCWT_PROFILE_ENTROPY, PCWT_COLOUR_RCT);
    const auto cs = encode(d, img, &p);
    ASSERT_FALSE(cs.empty());
    EXPECT_EQ(flag_of(cs), 0u);
}

TEST(ColourTransform, GreyStoredAsRgbShrinks)
{
    Rng rng(43);
    const pcwt_image_desc d = make_desc(256, 256, 3, 8, 8, false);
    std::vector<uint8_t> img(pcwt_image_size(&d));
    for (size_t px = 0; px < img.size() / 3; px++)
        img[3 * px] = img[3 * px + 1] = img[3 * px + 2] = uint8_t((px % 256) / 2 + px / 2048 + rng.below(4));
    const pcwt_encode_params with = params_of(PCWT_PROFILE_ENTROPY, PCWT_COLOUR_AUTO);
    const pcwt_encode_params without = params_of(PCWT_PROFILE_ENTROPY, PCWT_COLOUR_NONE);
    const auto a = encode(d, img, &with), b = encode(d, img, &without);
    ASSERT_FALSE(a.empty());
    ASSERT_FALSE(b.empty());
    EXPECT_LT(2 * a.size(), b.size()) << "with the transform " << a.size() << " bytes, without " << b.size();
}

TEST(ColourTransform, BadParameterRefused)
{
    pcwt_encode_params p = params_of(PCWT_PROFILE_ENTROPY, PCWT_COLOUR_AUTO);
    p.colour_transform = static_cast<pcwt_colour_transform>(3);
    pcwt_encoder *e = pcwt_encoder_create();
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pcwt_encoder_last_error(e)).find("colour transform"), std::string::npos);
    pcwt_encoder_destroy(e);
}

TEST(ColourTransform, HostileHeadersAndValuesRefused)
{
    Rng rng(44);
    // the flag on a grey image
    {
        const pcwt_image_desc d = make_desc(20, 20, 1, 8, 8, false);
        std::vector<uint8_t> img(pcwt_image_size(&d), 7);
        auto cs = encode(d, img);
        pcwt_header_info good, info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &good), PCWT_OK);
        cs[19] |= 4;
        fix_crcs(cs, good);
        EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_ERR_CORRUPT);
        std::vector<uint8_t> out;
        EXPECT_EQ(decode(cs, out), PCWT_ERR_CORRUPT);
        for (uint8_t bit = 8; bit; bit = uint8_t(bit << 1)) { // bits 3..7 stay reserved
            auto c2 = encode(d, img);
            c2[19] |= bit;
            fix_crcs(c2, good);
            EXPECT_EQ(pcwt_read_header(c2.data(), c2.size(), &info), PCWT_ERR_CORRUPT) << int(bit);
        }
    }
    // 12-bit samples declared 8-bit: the inverse transform leaves the range
    {
        const pcwt_image_desc d = make_desc(48, 40, 3, 16, 12, false);
        const auto img = colour_image(d, rng, false);
        const pcwt_encode_params p = params_of(PCWT_PROFILE_ENTROPY, PCWT_COLOUR_RCT);
        auto cs = encode(d, img, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        cs[18] = 8;
        fix_crcs(cs, info);
        std::vector<uint8_t> out;
        std::string err;
        EXPECT_EQ(decode(cs, out, &err), PCWT_ERR_CORRUPT);
        EXPECT_NE(err.find("out of range"), std::string::npos) << err;
    }
    // a transformed stream with its flag cleared decodes to other values or is refused, never
    // silently to the original
    {
        const pcwt_image_desc d = make_desc(32, 32, 3, 8, 8, false);
        const auto img = colour_image(d, rng, false);
        const pcwt_encode_params p = params_of(PCWT_PROFILE_ENTROPY, PCWT_COLOUR_RCT);
        auto cs = encode(d, img, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        cs[19] &= uint8_t(~4u);
        fix_crcs(cs, info);
        std::vector<uint8_t> out;
        if (decode(cs, out) == PCWT_OK) {
            EXPECT_FALSE(out == img);
        }
    }
}
