// The finest level's 5/11-C filter (docs/FORMAT.md Sec. 3.4, plane option bit 2): the transform
// against a direct evaluation of the lifting steps with reflected edges, exact inversion in both
// lifting orders with the decoder's scratch; the codec's round trips with each level1-filter
// setting (odd sizes, one row or column, 8 and 16 bits, signed, colour, high-bit planes); the
// choice where it should be (a smooth plane takes 5/11-C, a lattice plane keeps 5/3); the
// baseline profile never sets the bit; the default (auto); a damaged or misplaced bit refused
// with a clear error.
#include <gtest/gtest.h>

extern "C" {
#include "dwt53.h"
}
#include "lattice_image.h"
#include "recrc.h"
#include "test_util.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

// One dimension, directly: s the even samples, d the odd ones; 5/3's two steps, then
// d[k] += (s[k-1] - s[k] - s[k+1] + s[k+2] + 8) >> 4, s[-k] = s[k], s[N-1+k] = s[N-k] and
// d[-1] = d[0] (the reflections of FORMAT.md Sec. 3.4).
void direct_1d(std::vector<int32_t> &x, bool f511)
{
    const int N = static_cast<int>(x.size() / 2);
    std::vector<int32_t> s(N), d(N);
    for (int k = 0; k < N; k++) {
        s[k] = x[2 * k];
        d[k] = x[2 * k + 1];
    }
    auto S = [&](int k) {
        while (k < 0 || k >= N) k = k < 0 ? -k : 2 * N - 1 - k;
        return s[k];
    };
    for (int k = 0; k < N; k++) d[k] -= (S(k) + S(k + 1)) >> 1;
    for (int k = 0; k < N; k++) s[k] += (d[k ? k - 1 : 0] + d[k] + 2) >> 2;
    if (f511 && N > 1)
        for (int k = 0; k < N; k++) d[k] += (S(k - 1) - S(k) - S(k + 1) + S(k + 2) + 8) >> 4;
    for (int k = 0; k < N; k++) {
        x[k] = s[k];
        x[N + k] = d[k];
    }
}

// One level of a padded r x c image (both even), directly: bands[o] for LL, HL, LH, HH (r/2 x c/2).
std::vector<std::vector<int32_t>> direct_level(const std::vector<int32_t> &img, uint32_t r, uint32_t c,
                                               bool columns_first, bool f511)
{
    std::vector<int32_t> a = img;
    auto pass = [&](bool columns) {
        const uint32_t lines = columns ? c : r, n = columns ? r : c;
        for (uint32_t i = 0; i < lines; i++) {
            std::vector<int32_t> x(n);
            for (uint32_t k = 0; k < n; k++) x[k] = columns ? a[k * c + i] : a[i * c + k];
            direct_1d(x, f511);
            for (uint32_t k = 0; k < n; k++) (columns ? a[k * c + i] : a[i * c + k]) = x[k];
        }
    };
    pass(columns_first);
    pass(!columns_first);
    std::vector<std::vector<int32_t>> b(4, std::vector<int32_t>((r / 2) * (c / 2)));
    for (uint32_t i = 0; i < r / 2; i++)
        for (uint32_t j = 0; j < c / 2; j++) {
            b[0][i * (c / 2) + j] = a[i * c + j];
            b[1][i * (c / 2) + j] = a[i * c + c / 2 + j];             // HL: high horizontally
            b[2][i * (c / 2) + j] = a[(r / 2 + i) * c + j];           // LH: high vertically
            b[3][i * (c / 2) + j] = a[(r / 2 + i) * c + c / 2 + j];   // HH
        }
    return b;
}

struct Size { uint32_t r, c, levels; };

const Size kSizes[] = {{1, 1, 1},   {1, 17, 2},  {17, 1, 2},   {2, 2, 1},    {3, 5, 2},
                       {4, 4, 1},   {6, 10, 1},  {7, 13, 3},   {31, 37, 4},  {61, 67, 6},
                       {64, 64, 5}, {2, 200, 3}, {200, 2, 3},  {257, 263, 6}};

std::vector<int32_t> random_image(const Size &s, int bits, bool sgn, Rng &rng)
{
    const uint32_t stride = pcwt_even_up(s.c), rows = pcwt_even_up(s.r);
    std::vector<int32_t> img(static_cast<size_t>(stride) * rows, 0);
    for (uint32_t i = 0; i < s.r; i++)
        for (uint32_t j = 0; j < s.c; j++) {
            int32_t v = static_cast<int32_t>(rng.below(1u << bits));
            if (sgn) v -= 1 << (bits - 1);
            img[static_cast<size_t>(i) * stride + j] = v;
        }
    return img;
}

pcwt_encode_params params(pcwt_profile profile, pcwt_level1_filter f)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    p.profile = profile;
    p.level1_filter = f;
    return p;
}

std::vector<uint8_t> words(const pcwt_image_desc &d, const std::vector<int32_t> &v)
{
    std::vector<uint8_t> out(v.size() * (d.bits_allocated / 8));
    for (size_t i = 0; i < v.size(); i++) {
        const uint32_t w = static_cast<uint32_t>(v[i]);
        if (d.bits_allocated == 16) {
            out[2 * i] = static_cast<uint8_t>(w);
            out[2 * i + 1] = static_cast<uint8_t>(w >> 8);
        } else {
            out[i] = static_cast<uint8_t>(w);
        }
    }
    return out;
}

// A smooth plane (a soft-kernel CT slice in miniature) and a plane whose values lie on a lattice
// of 16 (a rescaled radiograph's), w x h, values within 12 bits.
std::vector<int32_t> smooth_plane(uint32_t w, uint32_t h, Rng &rng, int lattice)
{
    std::vector<int32_t> v(static_cast<size_t>(w) * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const double f = 2000.0 + 900.0 * std::sin(x / 9.0) * std::cos(y / 7.0) + 300.0 * std::sin((x + y) / 5.0);
            int32_t s = static_cast<int32_t>(f) + static_cast<int32_t>(rng.below(3)) - 1;
            if (lattice) s = s / lattice * lattice;
            v[static_cast<size_t>(y) * w + x] = s;
        }
    return v;
}

// Encodes and decodes; returns each plane's option bit 2 (empty on failure).
std::vector<uint32_t> round_trip(const pcwt_image_desc &d, const std::vector<uint8_t> &samples,
                                 const pcwt_encode_params &p, size_t *size = nullptr,
                                 uint32_t *levels = nullptr)
{
    pcwt_status st;
    std::string err;
    const std::vector<uint8_t> cs = encode(d, samples, &p, &st, &err);
    EXPECT_EQ(st, PCWT_OK) << err;
    if (st != PCWT_OK)
        return {};
    EXPECT_LE(cs.size(), pcwt_encode_bound(&d));
    std::vector<uint8_t> back;
    EXPECT_EQ(decode(cs, back, &err), PCWT_OK) << err;
    EXPECT_TRUE(back == samples) << "level-1 filter " << p.level1_filter << ", profile " << p.profile
                                 << ": decoded samples differ";
    pcwt_header_info info;
    EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    std::vector<uint32_t> bits;
    for (uint32_t i = 0; i < info.plane_count; i++)
        bits.push_back(info.planes[i].level1_511);
    if (size)
        *size = cs.size();
    if (levels)
        *levels = info.levels;
    return bits;
}

} // namespace

TEST(Level1Filter, OneLevelMatchesTheLiftingSteps)
{
    Rng rng(31);
    pcwt_pyramid p{};
    for (const Size &s0 : kSizes) {
        const Size s{s0.r, s0.c, 1};
        for (int cf = 0; cf < 2; cf++)
            for (int f511 = 0; f511 < 2; f511++) {
                pcwt_plan plan;
                pcwt_plan_make(&plan, s.r, s.c, 1);
                if (plan.levels != 1)
                    continue;
                ASSERT_EQ(pcwt_pyramid_prepare(&p, &plan), PCWT_OK);
                const std::vector<int32_t> img = random_image(s, 12, true, rng);
                std::memcpy(p.image, img.data(), img.size() * sizeof(int32_t));
                pcwt_dwt53_forward(&p, cf, f511);
                const uint32_t r = pcwt_even_up(s.r), c = pcwt_even_up(s.c);
                const auto want = direct_level(img, r, c, cf != 0, f511 != 0);
                const pcwt_band *bands[4] = {&p.band[0], &p.band[pcwt_band_index(1, 1, 0)],
                                             &p.band[pcwt_band_index(1, 1, 1)],
                                             &p.band[pcwt_band_index(1, 1, 2)]};
                for (int o = 0; o < 4; o++)
                    for (uint32_t i = 0; i < r / 2; i++)
                        for (uint32_t j = 0; j < c / 2; j++)
                            ASSERT_EQ(bands[o]->coef[static_cast<size_t>(i) * bands[o]->cols + j],
                                      want[o][i * (c / 2) + j])
                                << s.r << "x" << s.c << " band " << o << " at " << i << "," << j
                                << (cf ? " columns first" : " rows first") << (f511 ? " 5/11-C" : " 5/3");
            }
    }
    pcwt_pyramid_free(&p);
}

// Forward in the encoder's pyramid, inverse in the decoder's (its smaller scratch), every level.
TEST(Level1Filter, PyramidInvertsExactlyWithTheDecodersScratch)
{
    Rng rng(32);
    pcwt_pyramid enc{}, dec{};
    for (const Size &s : kSizes)
        for (int bits : {1, 8, 16})
            for (int sgn = 0; sgn < 4; sgn++) {
                const int cf = sgn >> 1;
                pcwt_plan plan;
                pcwt_plan_make(&plan, s.r, s.c, s.levels);
                ASSERT_EQ(pcwt_pyramid_prepare(&enc, &plan), PCWT_OK);
                ASSERT_EQ(pcwt_pyramid_prepare_decode(&dec, &plan), PCWT_OK);
                const std::vector<int32_t> img = random_image(s, bits, sgn & 1, rng);
                std::memcpy(enc.image, img.data(), img.size() * sizeof(int32_t));
                pcwt_dwt53_forward(&enc, cf, 1);
                for (uint32_t b = 0; b < enc.band_count; b++)
                    std::memcpy(dec.band[b].coef, enc.band[b].coef,
                                sizeof(int32_t) * enc.band[b].rows * enc.band[b].cols);
                if (plan.levels)
                    std::memset(dec.image, 0x5a, img.size() * sizeof(int32_t));
                pcwt_dwt53_inverse(&dec, cf, 1);
                ASSERT_EQ(0, std::memcmp(dec.image, img.data(), img.size() * sizeof(int32_t)))
                    << s.r << "x" << s.c << " levels " << s.levels << " bits " << bits
                    << (cf ? " columns first" : " rows first");
            }
    pcwt_pyramid_free(&enc);
    pcwt_pyramid_free(&dec);
}

// Redoing level 1 alone gives the whole forward's bands (what the encoder's choice relies on).
TEST(Level1Filter, LevelOneRedoneEqualsTheWholeForward)
{
    Rng rng(33);
    pcwt_pyramid a{}, b{};
    const Size s{61, 67, 5};
    pcwt_plan plan;
    pcwt_plan_make(&plan, s.r, s.c, s.levels);
    ASSERT_EQ(pcwt_pyramid_prepare(&a, &plan), PCWT_OK);
    ASSERT_EQ(pcwt_pyramid_prepare(&b, &plan), PCWT_OK);
    const std::vector<int32_t> img = random_image(s, 12, false, rng);
    for (int cf = 0; cf < 2; cf++) {
        std::memcpy(a.image, img.data(), img.size() * sizeof(int32_t));
        std::memcpy(b.image, img.data(), img.size() * sizeof(int32_t));
        pcwt_dwt53_forward(&a, cf, 1);
        pcwt_dwt53_forward(&b, cf, 0);
        pcwt_dwt53_forward_level1(&b, cf, 1);
        for (uint32_t k = 0; k < a.band_count; k++)
            ASSERT_EQ(0, std::memcmp(a.band[k].coef, b.band[k].coef,
                                     sizeof(int32_t) * a.band[k].rows * a.band[k].cols))
                << "band " << k;
    }
    pcwt_pyramid_free(&a);
    pcwt_pyramid_free(&b);
}

TEST(Level1Filter, RoundTripsWithEverySetting)
{
    Rng rng(34);
    const Size sizes[] = {{1, 1, 0}, {1, 40, 0}, {40, 1, 0}, {2, 2, 0}, {5, 7, 0}, {33, 65, 0}, {130, 97, 0}};
    for (const Size &s : sizes)
        for (uint32_t alloc : {8u, 16u})
            for (int sgn = 0; sgn < 2; sgn++)
                for (pcwt_profile prof : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT})
                    for (pcwt_lifting_order order : {PCWT_LIFTING_ROWS_FIRST, PCWT_LIFTING_COLUMNS_FIRST}) {
                        const uint32_t stored = alloc == 8 ? 8 : 12;
                        const pcwt_image_desc d = make_desc(s.c, s.r, 1, alloc, stored, sgn != 0);
                        std::vector<int32_t> v = smooth_plane(s.c, s.r, rng, 0);
                        for (auto &x : v) {
                            x = x % (1 << stored);
                            if (sgn) x -= 1 << (stored - 1);
                        }
                        const std::vector<uint8_t> samples = words(d, v);
                        for (pcwt_level1_filter f : {PCWT_LEVEL1_53, PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
                            SCOPED_TRACE(std::to_string(s.r) + "x" + std::to_string(s.c) + " alloc " +
                                         std::to_string(alloc) + (sgn ? " signed" : "") + " filter " +
                                         std::to_string(f) + " order " + std::to_string(order));
                            pcwt_encode_params p = params(prof, f);
                            p.lifting_order = order;
                            uint32_t levels = 0;
                            const std::vector<uint32_t> bits = round_trip(d, samples, p, nullptr, &levels);
                            ASSERT_EQ(bits.size(), 1u);
                            if (f == PCWT_LEVEL1_53 || levels == 0)
                                EXPECT_EQ(bits[0], 0u);
                            else if (f == PCWT_LEVEL1_511)
                                EXPECT_EQ(bits[0], 1u);
                        }
                    }
}

// Colour (the RCT's planes and without it) and a high-bit plane: each plane chooses alone.
TEST(Level1Filter, ColourAndHighBitPlanes)
{
    Rng rng(35);
    const uint32_t w = 75, h = 50;
    for (pcwt_colour_transform ct : {PCWT_COLOUR_RCT, PCWT_COLOUR_NONE}) {
        const pcwt_image_desc d = make_desc(w, h, 3, 8, 8, false);
        std::vector<int32_t> v(static_cast<size_t>(w) * h * 3);
        const std::vector<int32_t> a = smooth_plane(w, h, rng, 0);
        for (size_t i = 0; i < a.size(); i++)
            for (int k = 0; k < 3; k++)
                v[3 * i + k] = (a[i] / (8 + 4 * k) + static_cast<int32_t>(rng.below(2))) & 0xFF;
        for (pcwt_level1_filter f : {PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
            pcwt_encode_params p = params(PCWT_PROFILE_COMPACT, f);
            p.colour_transform = ct;
            const auto bits = round_trip(d, words(d, v), p);
            ASSERT_EQ(bits.size(), 3u);
            if (f == PCWT_LEVEL1_511)
                EXPECT_EQ(bits, (std::vector<uint32_t>{1, 1, 1}));
        }
    }
    const pcwt_image_desc d = make_desc(64, 48, 1, 16, 12, false);
    std::vector<int32_t> v = smooth_plane(64, 48, rng, 0);
    for (size_t i = 0; i < v.size(); i++)
        v[i] = (v[i] & 0xFFF) | static_cast<int32_t>((i % 7) << 12); // bits above bits stored
    for (pcwt_level1_filter f : {PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
        const auto bits = round_trip(d, words(d, v), params(PCWT_PROFILE_ENTROPY, f));
        ASSERT_EQ(bits.size(), 2u);
    }
}

// Auto takes 5/11-C on a smooth plane (smaller than 5/3) and keeps 5/3 on an image whose 5/3
// coefficients lie on a lattice (decoded from a lossy wavelet codestream), where they turn the
// low-bit model on.
TEST(Level1Filter, AutoChoosesWhereItShould)
{
    Rng rng(36);
    const pcwt_image_desc d = make_desc(256, 192, 1, 16, 12, false);
    const std::vector<uint8_t> smooth = words(d, smooth_plane(256, 192, rng, 0));
    size_t with53 = 0, with511 = 0, chosen = 0;
    round_trip(d, smooth, params(PCWT_PROFILE_COMPACT, PCWT_LEVEL1_53), &with53);
    round_trip(d, smooth, params(PCWT_PROFILE_COMPACT, PCWT_LEVEL1_511), &with511);
    EXPECT_EQ(round_trip(d, smooth, params(PCWT_PROFILE_COMPACT, PCWT_LEVEL1_AUTO), &chosen),
              std::vector<uint32_t>{1});
    EXPECT_LT(with511, with53);
    EXPECT_EQ(chosen, with511);
    const pcwt_image_desc ld = make_desc(256, 192, 1, 16, 16, false);
    const std::vector<uint8_t> lattice = lattice_image(ld, PCWT_DEFAULT_LEVELS, 7);
    size_t l53 = 0, lauto = 0;
    for (pcwt_profile prof : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT}) {
        round_trip(ld, lattice, params(prof, PCWT_LEVEL1_53), &l53);
        EXPECT_EQ(round_trip(ld, lattice, params(prof, PCWT_LEVEL1_AUTO), &lauto),
                  std::vector<uint32_t>{0});
        EXPECT_EQ(lauto, l53);
    }
}

// The baseline profile is the seed's: 5/3 whatever the setting, the same bytes.
TEST(Level1Filter, BaselineProfileKeepsFiveThree)
{
    Rng rng(37);
    const pcwt_image_desc d = make_desc(100, 80, 1, 16, 12, false);
    const std::vector<uint8_t> s = words(d, smooth_plane(100, 80, rng, 0));
    pcwt_status st;
    pcwt_encode_params p = params(PCWT_PROFILE_BASELINE, PCWT_LEVEL1_53);
    const auto b53 = encode(d, s, &p, &st);
    p.level1_filter = PCWT_LEVEL1_511;
    const auto b511 = encode(d, s, &p, &st);
    p.level1_filter = PCWT_LEVEL1_AUTO;
    const auto bauto = encode(d, s, &p, &st);
    EXPECT_EQ(b53, b511);
    EXPECT_EQ(b53, bauto);
    EXPECT_EQ(round_trip(d, s, p), std::vector<uint32_t>{0});
}

// The default is auto, in the parameters and in a new handle; a smooth plane coded with the
// defaults (the compact profile) takes 5/11-C, and 53, asked by name, keeps 5/3 on it.
TEST(Level1Filter, DefaultIsAuto)
{
    pcwt_encode_params def;
    pcwt_encode_params_default(&def);
    EXPECT_EQ(def.level1_filter, PCWT_LEVEL1_AUTO);
    pcwt_encoder *e = pcwt_encoder_create();
    int64_t v = -1;
    ASSERT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_LEVEL1_FILTER, &v), PCWT_OK);
    EXPECT_EQ(v, static_cast<int64_t>(PCWT_LEVEL1_AUTO));
    ASSERT_EQ(pcwt_encoder_set_option_name(e, "level1-filter", "53"), PCWT_OK);
    ASSERT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_LEVEL1_FILTER, &v), PCWT_OK);
    EXPECT_EQ(v, static_cast<int64_t>(PCWT_LEVEL1_53));
    pcwt_encoder_destroy(e);
    Rng rng(37);
    const pcwt_image_desc d = make_desc(256, 192, 1, 16, 12, false);
    const std::vector<uint8_t> smooth = words(d, smooth_plane(256, 192, rng, 0));
    def.backend = PCWT_BACKEND_CPU;
    EXPECT_EQ(round_trip(d, smooth, def), std::vector<uint32_t>{1});
    def.level1_filter = PCWT_LEVEL1_53;
    EXPECT_EQ(round_trip(d, smooth, def), std::vector<uint32_t>{0});
}

TEST(Level1Filter, OptionByName)
{
    pcwt_encoder *e = pcwt_encoder_create();
    int64_t v = -1;
    const char *names[] = {"53", "auto", "511"};
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(pcwt_encoder_set_option_name(e, "level1-filter", names[i]), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_LEVEL1_FILTER, &v), PCWT_OK);
        EXPECT_EQ(v, i);
    }
    EXPECT_EQ(pcwt_encoder_set_option_name(e, "level1-filter", "97"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_LEVEL1_FILTER, 3), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pcwt_encoder_last_error(e)).find("level1-filter"), std::string::npos)
        << pcwt_encoder_last_error(e);
    pcwt_encoder_destroy(e);
}

// Option bit 2 where it may not be (the baseline profile, no wavelet level) and a reserved bit
// refused with a message naming them; the bit cleared on a 5/11-C plane changes what decodes.
TEST(Level1Filter, DamagedFieldIsRefused)
{
    Rng rng(38);
    const pcwt_image_desc d = make_desc(64, 40, 1, 16, 12, false);
    const std::vector<uint8_t> s = words(d, smooth_plane(64, 40, rng, 0));
    const size_t opt = PCWT_HEADER_FIXED + 3; // plane 0's options byte
    auto refused = [&](pcwt_encode_params p, uint8_t set, const char *why) {
        pcwt_status st;
        std::vector<uint8_t> cs = encode(d, s, &p, &st);
        ASSERT_EQ(st, PCWT_OK);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        cs[opt] = static_cast<uint8_t>(cs[opt] | set);
        fix_crcs(cs, info);
        pcwt_decoder *dec = pcwt_decoder_create();
        std::vector<uint8_t> back(pcwt_image_size(&d));
        EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), back.data(), back.size()), PCWT_ERR_CORRUPT)
            << why;
        const std::string err = pcwt_decoder_last_error(dec);
        pcwt_decoder_destroy(dec);
        EXPECT_NE(err.find(why), std::string::npos) << err;
        EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_ERR_CORRUPT);
    };
    refused(params(PCWT_PROFILE_BASELINE, PCWT_LEVEL1_53), 4, "invalid options byte");
    pcwt_encode_params none = params(PCWT_PROFILE_COMPACT, PCWT_LEVEL1_511);
    none.levels = 0;
    refused(none, 4, "without a wavelet level");
    refused(params(PCWT_PROFILE_COMPACT, PCWT_LEVEL1_511), 32, "invalid options byte"); // bit 5: reserved
    refused(params(PCWT_PROFILE_ENTROPY, PCWT_LEVEL1_511), 2, "invalid options byte");

    pcwt_encode_params p = params(PCWT_PROFILE_ENTROPY, PCWT_LEVEL1_511);
    pcwt_status st;
    std::vector<uint8_t> cs = encode(d, s, &p, &st);
    ASSERT_EQ(st, PCWT_OK);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(cs[opt] & 4, 4);
    cs[opt] = static_cast<uint8_t>(cs[opt] & ~4);
    fix_crcs(cs, info);
    std::vector<uint8_t> back;
    const pcwt_status ds = decode(cs, back);
    EXPECT_TRUE(ds != PCWT_OK || back != s) << "the bit cleared, the same samples decoded";
}

// The encoder's estimate of 5/11-C's level 1, made from 5/3's column halves without transforming,
// is the sum over the bands the 5/11-C transform writes.
TEST(Level1Filter, EstimateFromFiveThreeEqualsTheTransformsBands)
{
    Rng rng(39);
    pcwt_pyramid p{};
    for (const Size &s : kSizes) {
        pcwt_plan plan;
        pcwt_plan_make(&plan, s.r, s.c, s.levels);
        if (!plan.levels)
            continue;
        ASSERT_EQ(pcwt_pyramid_prepare(&p, &plan), PCWT_OK);
        const std::vector<int32_t> img = random_image(s, 12, true, rng);
        std::memcpy(p.image, img.data(), img.size() * sizeof(int32_t));
        pcwt_dwt53_forward_level1(&p, 1, 0);
        std::vector<int32_t> row(2 * static_cast<size_t>(plan.lv[0].level_c));
        const uint64_t estimate = pcwt_dwt511_level1_cost(&p, row.data());
        pcwt_dwt53_forward(&p, 1, 1);
        uint64_t sum = 0;
        for (uint32_t o = 0; o < 3; o++) {
            const pcwt_band &b = p.band[pcwt_band_index(plan.levels, 1, o)];
            for (size_t i = 0; i < static_cast<size_t>(b.rows) * b.cols; i++)
                sum += pcwt_bit_cost(b.coef[i]);
        }
        EXPECT_EQ(estimate, sum) << s.r << "x" << s.c;
    }
    pcwt_pyramid_free(&p);
}

// The encoder's sums of the estimate (pcwt_bit_cost_sum, without a branch per coefficient) are
// pcwt_bit_cost's, also at zero, one and the largest magnitudes of either sign.
TEST(Level1Filter, BitCostSumIsTheSumOfBitCosts)
{
    std::vector<int32_t> c = {0, 1, -1, 2, -2, 3, -4, 7, 8, -255, 256, 65535, -65536,
                              INT32_MAX, INT32_MIN + 1, 1 << 30, -(1 << 30)};
    Rng rng(77);
    for (int i = 0; i < 5000; i++) {
        const uint32_t bits = rng.below(31);
        const int32_t v = static_cast<int32_t>(rng.next() & ((1u << bits) - 1u));
        c.push_back(rng.below(2) ? -v : v);
    }
    for (size_t n = 0; n <= c.size(); n += (n < 20 ? 1 : 997)) {
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += pcwt_bit_cost(c[i]);
        EXPECT_EQ(pcwt_bit_cost_sum(c.data(), n), want) << n;
    }
}
