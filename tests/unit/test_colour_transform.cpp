// The reversible colour transform of 3-component images (docs/FORMAT.md Sec. 2.1): exact round
// trips in every layout, depth and profile with the transform on, off and automatic; the header
// flag set exactly when asked for; the size gain that motivates it (grey stored as RGB); hostile
// headers and out-of-range results refused.
#include <gtest/gtest.h>

#include "recrc.h"
#include "rct.h"
#include "test_util.h"

extern "C" {
#include "dwt53.h"
#include "group_coder.h"
#include "mqd.h"
}

#include <string>
#include <vector>

namespace {

// Smooth, correlated components with noise, optional bits above bits_stored (3 components).
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
        for (uint8_t bit = 16; bit; bit = uint8_t(bit << 1)) { // bits 4..7 stay reserved
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

namespace {

// Random words: every value of the stored range, and garbage above bits_stored almost everywhere.
std::vector<uint8_t> random_words(const pcwt_image_desc &d, Rng &rng)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    for (auto &b : img)
        b = uint8_t(rng.next());
    return img;
}

void put_word(const pcwt_image_desc &d, std::vector<uint8_t> &img, size_t px, uint32_t c, uint32_t w)
{
    const size_t pixels = size_t(d.width) * d.height;
    const size_t k = d.planar ? c * pixels + px : px * 3 + c;
    if (d.bits_allocated == 8) {
        img[k] = uint8_t(w);
    } else {
        img[2 * k] = uint8_t(w);
        img[2 * k + 1] = uint8_t(w >> 8);
    }
}

void expect_roundtrip(const pcwt_image_desc &d, const std::vector<uint8_t> &img,
                      const pcwt_encode_params &p, bool flag, const std::string &what)
{
    pcwt_status st;
    std::string err;
    const auto cs = encode(d, img, &p, &st, &err); // into exactly pcwt_encode_bound bytes
    ASSERT_EQ(st, PCWT_OK) << what << ": " << err;
    EXPECT_EQ(flag_of(cs), flag ? 1u : 0u) << what;
    std::vector<uint8_t> back;
    ASSERT_EQ(decode(cs, back, &err), PCWT_OK) << what << ": " << err;
    ASSERT_TRUE(back == img) << what;
}

} // namespace

TEST(ColourTransform, EveryBitsStoredWithRandomWords)
{
    Rng rng(45);
    const uint32_t sizes[][2] = {{1, 1}, {3, 5}, {7, 4}, {33, 17}, {2, 9}};
    int n = 0;
    for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY})
        for (uint32_t alloc : {8u, 16u})
            for (uint32_t stored = 1; stored <= alloc; stored++)
                for (bool sgn : {false, true})
                    for (bool planar : {false, true}) {
                        const auto &s = sizes[n++ % 5];
                        const pcwt_image_desc d = make_desc(s[0], s[1], 3, alloc, stored, sgn, planar);
                        const std::string what = "profile " + std::to_string(profile) + " " +
                                                 std::to_string(s[0]) + "x" + std::to_string(s[1]) + " " +
                                                 std::to_string(alloc) + "/" + std::to_string(stored) +
                                                 (sgn ? "s" : "u") + (planar ? " planar" : "");
                        expect_roundtrip(d, random_words(d, rng), params_of(profile, PCWT_COLOUR_RCT), true,
                                         what);
                        expect_roundtrip(d, colour_image(d, rng, n % 2 == 0),
                                         params_of(profile, PCWT_COLOUR_AUTO),
                                         profile == PCWT_PROFILE_ENTROPY, what + " structured");
                    }
}

// The largest colour differences (one component at its minimum where another is at its maximum),
// in patterns that maximise the wavelet coefficients: the codestream still fits in
// pcwt_encode_bound, Qmax within the format's limit, and the round trip is exact.
TEST(ColourTransform, ExtremeDifferencesFitTheBound)
{
    Rng rng(46);
    for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY})
        for (uint32_t alloc : {8u, 16u})
            for (bool sgn : {false, true})
                for (int pattern = 0; pattern < 3; pattern++) {
                    const pcwt_image_desc d = make_desc(131, 128, 3, alloc, alloc, sgn, pattern == 1);
                    const uint32_t lo = sgn ? 1u << (alloc - 1) : 0u, hi = lo ^ ((1u << alloc) - 1u);
                    std::vector<uint8_t> img(pcwt_image_size(&d));
                    for (uint32_t i = 0; i < d.height; i++)
                        for (uint32_t j = 0; j < d.width; j++) {
                            const bool odd = pattern == 0 ? ((i + j) & 1) : pattern == 1 ? (j & 1) : rng.below(2);
                            const size_t px = size_t(i) * d.width + j;
                            put_word(d, img, px, 0, odd ? hi : lo);
                            put_word(d, img, px, 1, odd ? lo : hi);
                            put_word(d, img, px, 2, odd ? hi : lo);
                        }
                    pcwt_encode_params p = params_of(profile, PCWT_COLOUR_RCT);
                    for (uint32_t levels : {1u, 6u}) {
                        p.levels = levels;
                        expect_roundtrip(d, img, p, true,
                                         "profile " + std::to_string(profile) + " " + std::to_string(alloc) +
                                             (sgn ? "s" : "u") + " pattern " + std::to_string(pattern) +
                                             " levels " + std::to_string(levels));
                    }
                }
}

// pcwt_encode_batch and pcwt_decode_batch run the same per-frame code: batched frames carry the
// flag as single ones do, and one decoder reuses its colour planes across frames of any size.
TEST(ColourTransform, BatchesCodeAsSingleFrames)
{
    Rng rng(47);
    const std::vector<pcwt_image_desc> descs = {
        make_desc(300, 200, 3, 8, 8, false),       make_desc(5, 3, 3, 16, 12, true, true),
        make_desc(64, 48, 1, 16, 12, false),       make_desc(301, 203, 3, 16, 16, false, true),
        make_desc(17, 33, 3, 8, 6, false)};
    for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY})
        for (pcwt_colour_transform ct : {PCWT_COLOUR_AUTO, PCWT_COLOUR_NONE, PCWT_COLOUR_RCT}) {
            const pcwt_encode_params p = params_of(profile, ct);
            std::vector<std::vector<uint8_t>> imgs, outs;
            std::vector<pcwt_frame_job> jobs(descs.size());
            for (size_t i = 0; i < descs.size(); i++) {
                imgs.push_back(descs[i].components == 3 ? colour_image(descs[i], rng, true)
                                                        : random_words(descs[i], rng));
                outs.emplace_back(pcwt_encode_bound(&descs[i]));
                jobs[i] = pcwt_frame_job{descs[i], imgs[i].data(), imgs[i].size(), outs[i].data(),
                                         outs[i].size(), 0, PCWT_ERR_CORRUPT};
            }
            pcwt_encoder *e = pcwt_encoder_create();
            ASSERT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
            ASSERT_EQ(pcwt_encode_batch(e, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(e);
            pcwt_encoder_destroy(e);
            const bool want = ct == PCWT_COLOUR_RCT || (ct == PCWT_COLOUR_AUTO && profile == PCWT_PROFILE_ENTROPY);
            std::vector<std::vector<uint8_t>> backs(descs.size());
            std::vector<pcwt_decode_job> djobs(descs.size());
            for (size_t i = 0; i < descs.size(); i++) {
                outs[i].resize(jobs[i].written);
                EXPECT_EQ(outs[i], encode(descs[i], imgs[i], &p)) << "frame " << i;
                EXPECT_EQ(flag_of(outs[i]), want && descs[i].components == 3 ? 1u : 0u) << "frame " << i;
                backs[i].assign(imgs[i].size(), 0);
                djobs[i] = pcwt_decode_job{outs[i].data(), outs[i].size(), backs[i].data(), backs[i].size(),
                                           PCWT_ERR_CORRUPT};
            }
            pcwt_decoder *dec = pcwt_decoder_create();
            ASSERT_EQ(pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU), PCWT_OK);
            ASSERT_EQ(pcwt_decode_batch(dec, djobs.data(), djobs.size()), PCWT_OK) << pcwt_decoder_last_error(dec);
            for (size_t i = 0; i < descs.size(); i++)
                EXPECT_TRUE(backs[i] == imgs[i]) << "profile " << profile << " ct " << ct << " frame " << i;
            // the same decoder again, one frame at a time, largest last
            for (size_t i = descs.size(); i-- > 0;) {
                std::vector<uint8_t> back(imgs[i].size());
                ASSERT_EQ(pcwt_decode(dec, outs[i].data(), outs[i].size(), back.data(), back.size()), PCWT_OK);
                EXPECT_TRUE(back == imgs[i]) << "frame " << i;
            }
            pcwt_decoder_destroy(dec);
        }
}

namespace {

// A baseline-profile colour stream without wavelet levels whose three value planes hold the
// constants y[0], y[1], y[2] (any int32 of magnitude below 2^31: Qmax <= 30), as only a hostile
// encoder writes them, for a 16-bit image of the given bits stored and signedness.
std::vector<uint8_t> constant_planes(const int32_t y[3], uint32_t stored, bool sgn)
{
    const uint32_t w = 9, h = 6;
    pcwt_header_info info{};
    info.format_version = 1;
    info.profile = PCWT_PROFILE_BASELINE;
    info.desc = make_desc(w, h, 3, 16, stored, sgn);
    info.levels = 0;
    info.group_rows = info.group_cols = 4;
    info.colour_transform = 1;
    info.plane_count = 3;
    pcwt_plan plan;
    pcwt_plan_make(&plan, h, w, 0);
    pcwt_pyramid pyr{};
    EXPECT_EQ(pcwt_pyramid_prepare(&pyr, &plan), PCWT_OK);
    const size_t hs = pcwt_header_size(3);
    std::vector<uint8_t> cs(hs);
    for (uint32_t c = 0; c < 3; c++) {
        for (uint32_t i = 0; i < pcwt_even_up(h); i++)
            for (uint32_t j = 0; j < pcwt_even_up(w); j++)
                pyr.image[i * pcwt_even_up(w) + j] = i < h && j < w ? y[c] : 0;
        pcwt_dwt53_forward(&pyr, 0, 0);
        const int qmax = pcwt_mqd_compute(&pyr);
        EXPECT_LE(qmax, 30);
        const size_t size = size_t(pcwt_payload_size(&pyr, qmax, 4, 4));
        std::vector<uint8_t> payload(size);
        pcwt_payload_encode(&pyr, qmax, 4, 4, payload.data());
        info.planes[c].component = c;
        info.planes[c].kind = 0;
        info.planes[c].qmax = qmax;
        info.planes[c].payload_length = size;
        info.planes[c].payload_crc32 = pcwt_crc32(payload.data(), size);
        cs.insert(cs.end(), payload.begin(), payload.end());
    }
    pcwt_pyramid_free(&pyr);
    pcwt_header_write(&info, cs.data());
    return cs;
}

} // namespace

// Planes beyond what any valid image transforms to (sums beyond 32 bits included): the inverse
// transform leaves the range, and the decoder says so, as for any out-of-range value. The same
// construction with the planes of a valid pixel decodes to that pixel.
TEST(ColourTransform, HostilePlanesRefused)
{
    const int32_t top = INT32_MAX, box = 1 << 18;
    const int32_t hostile[][3] = {{top, top, top},     {top, -top, -top}, {-top, top, top},
                                  {0, top, -top},      {0, -top, top},    {box, 0, 0},
                                  {0, box, 0},         {0, 0, -box - 1},  {-box, box - 1, box - 1},
                                  {1 << 30, 1 << 30, 1 << 30}};
    for (const auto &y : hostile)
        for (bool sgn : {false, true}) {
            const auto cs = constant_planes(y, 16, sgn);
            pcwt_header_info info;
            ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
            std::vector<uint8_t> out;
            std::string err;
            EXPECT_EQ(decode(cs, out, &err), PCWT_ERR_CORRUPT) << y[0] << " " << y[1] << " " << y[2];
            EXPECT_NE(err.find("out of range"), std::string::npos) << err;
        }
    // extreme valid pixels: (max, min, max) and (min, max, min), signed and unsigned 16-bit
    for (bool sgn : {false, true}) {
        const int32_t lo = sgn ? -32768 : 0, hi = sgn ? 32767 : 65535;
        for (const auto &v : {std::vector<int32_t>{hi, lo, hi}, std::vector<int32_t>{lo, hi, lo},
                              std::vector<int32_t>{hi, hi, lo}}) {
            const int32_t y[3] = {pcwt_rct_forward(v[0], v[1], v[2], 0), pcwt_rct_forward(v[0], v[1], v[2], 1),
                                  pcwt_rct_forward(v[0], v[1], v[2], 2)};
            const auto cs = constant_planes(y, 16, sgn);
            std::vector<uint8_t> out;
            std::string err;
            ASSERT_EQ(decode(cs, out, &err), PCWT_OK) << err;
            for (size_t px = 0; px < out.size() / 6; px++)
                for (uint32_t c = 0; c < 3; c++) {
                    const uint16_t word = uint16_t(out[6 * px + 2 * c] | out[6 * px + 2 * c + 1] << 8);
                    ASSERT_EQ(sgn ? int32_t(int16_t(word)) : int32_t(word), v[c]);
                }
        }
    }
}
