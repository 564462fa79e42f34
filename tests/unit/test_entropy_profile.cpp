// The entropy profile (profile 1, docs/FORMAT.md Sec. 5): round trips of synthetic images (every
// sample compared) for every sample format and many parameter sets, its size against the baseline,
// the raw-mode fallback, and rejection of corrupted or truncated codestreams without a crash or an
// over-read (ASan/UBSan in CI). The range coder on its own: test_range_coder.cpp.
#include <gtest/gtest.h>

extern "C" {
#include "ec_group_coder.h"
#include "container.h"
#include "group_coder_ec.h"
#include "plan.h"
#include "rangecoder.h"
}
#include "lattice_image.h"
#include "random_band.h"
#include "recrc.h"
#include "test_util.h"

#include <cmath>

namespace {

pcwt_encode_params entropy_params(uint32_t levels = PCWT_DEFAULT_LEVELS, uint32_t gr = 32,
                                  uint32_t gc = 32)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.profile = PCWT_PROFILE_ENTROPY;
    p.backend = PCWT_BACKEND_CPU;
    p.levels = levels;
    p.group_rows = gr;
    p.group_cols = gc;
    return p;
}

// A CT-like image: a disc of noisy tissue on flat air, values in the format's range.
std::vector<uint8_t> ct_like(const pcwt_image_desc &d, Rng &rng, uint32_t noise)
{
    std::vector<uint8_t> buf(pcwt_image_size(&d));
    const int32_t lo = d.is_signed ? -(1 << (d.bits_stored - 1)) : 0;
    const int32_t hi = d.is_signed ? (1 << (d.bits_stored - 1)) - 1 : (1 << d.bits_stored) - 1;
    const uint32_t mask = (1u << d.bits_allocated) - 1;
    for (uint32_t y = 0; y < d.height; y++)
        for (uint32_t x = 0; x < d.width; x++)
            for (uint32_t c = 0; c < d.components; c++) {
                const double dx = x - d.width / 2.0, dy = y - d.height / 2.0;
                const bool in = dx * dx + dy * dy < d.width * d.width / 9.0;
                int64_t v = in ? (hi - lo) / 2 + lo + static_cast<int32_t>(rng.below(noise + 1)) +
                                     static_cast<int32_t>(x + 2 * y + 5 * c) % 64
                               : lo + static_cast<int32_t>(rng.below(3));
                v = v < lo ? lo : v > hi ? hi : v;
                const uint32_t w = static_cast<uint32_t>(v) & mask;
                const size_t k = d.planar ? (static_cast<size_t>(c) * d.height + y) * d.width + x
                                          : (static_cast<size_t>(y) * d.width + x) * d.components + c;
                if (d.bits_allocated == 8) {
                    buf[k] = static_cast<uint8_t>(w);
                } else {
                    const uint16_t w16 = static_cast<uint16_t>(w);
                    std::memcpy(&buf[2 * k], &w16, 2);
                }
            }
    return buf;
}

std::vector<uint8_t> noise_image(const pcwt_image_desc &d, Rng &rng)
{
    std::vector<uint8_t> buf(pcwt_image_size(&d));
    for (auto &b : buf)
        b = static_cast<uint8_t>(rng.next());
    return buf;
}

void expect_roundtrip(const pcwt_image_desc &d, const std::vector<uint8_t> &img,
                      const pcwt_encode_params &p, const std::string &what,
                      std::vector<uint8_t> *cs_out = nullptr)
{
    pcwt_status st;
    std::string err;
    const auto cs = encode(d, img, &p, &st, &err);
    ASSERT_EQ(st, PCWT_OK) << what << ": " << err;
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK) << what;
    EXPECT_EQ(info.profile, p.profile) << what;
    EXPECT_EQ(cs[5], uint8_t(p.profile)) << what;
    std::vector<uint8_t> out;
    ASSERT_EQ(decode(cs, out, &err), PCWT_OK) << what << ": " << err;
    ASSERT_EQ(out.size(), img.size()) << what;
    for (size_t k = 0; k < img.size(); k++)
        ASSERT_EQ(out[k], img[k]) << what << ": byte " << k;
    if (cs_out)
        *cs_out = cs;
}

// Walks the group records of a payload coded with levels = 0 (one band); counts raw-mode groups.
// Returns -1 when the records do not fill the payload exactly.
int raw_groups_single_band(const uint8_t *s, size_t size, size_t groups)
{
    size_t pos = 0;
    int raw = 0;
    auto leb = [&](uint64_t &v) {
        v = 0;
        for (int i = 0; i < 5 && pos < size; i++) {
            const uint8_t b = s[pos++];
            v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
            if (!(b & 0x80))
                return true;
        }
        return false;
    };
    for (size_t g = 0; g < groups; g++) {
        uint64_t h, r;
        if (!leb(h))
            return -1;
        if (h & 1) {
            raw++;
            pos += ((h >> 1) + 7) / 8;
        } else {
            if (!leb(r))
                return -1;
            pos += (h >> 1) + r;
        }
    }
    return pos == size ? raw : -1;
}

} // namespace

// The MQD contexts that the decoder computes from neighbour values it carries in registers
// (pcwt_ec_mqd_context_of, PCWT_EC_OUTSIDE where a neighbour lies outside the group) are those
// that the encoders read from the band's rows (pcwt_ec_mqd_context), at every element of random
// groups, edges included; and the grids reach every context value.
TEST(EntropyProfile, MqdContextsFromValuesMatchThoseFromRows)
{
    Rng rng(77);
    bool seen_e[5] = {}, seen_z[6] = {};
    for (int trial = 0; trial < 400; trial++) {
        const uint32_t rows = 1 + rng.below(9), cols = 1 + rng.below(9);
        std::vector<int8_t> mqd(size_t(rows) * cols);
        const uint32_t top = rng.below(6); // some grids all -1 or all 0
        for (int8_t &v : mqd)
            v = static_cast<int8_t>(static_cast<int>(rng.below(top + 2)) - 1);
        pcwt_ec_span g;
        g.gx = rng.below(rows);
        g.gy = rng.below(cols);
        g.xe = g.gx + 1 + rng.below(rows - g.gx);
        g.ye = g.gy + 1 + rng.below(cols - g.gy);
        for (uint32_t x = g.gx; x < g.xe; x++)
            for (uint32_t y = g.gy; y < g.ye; y++) {
                const int8_t *row = mqd.data() + size_t(x) * cols;
                const int r = static_cast<int>(rng.below(7));
                int e1 = -9, z1 = -9, e2 = -9, z2 = -9;
                pcwt_ec_mqd_context(row, cols, &g, x, y, r, &e1, &z1);
                const bool inx = x > g.gx, iny = y > g.gy, inr = y + 1 < g.ye;
                const int8_t *up = inx ? row - cols : nullptr;
                pcwt_ec_mqd_context_of(iny ? row[y - 1] : PCWT_EC_OUTSIDE,
                                       inx && iny ? up[y - 1] : PCWT_EC_OUTSIDE,
                                       inx ? up[y] : PCWT_EC_OUTSIDE,
                                       inx && inr ? up[y + 1] : PCWT_EC_OUTSIDE, r, &e2, &z2);
                ASSERT_EQ(e1, e2) << "trial " << trial << " element " << x << "," << y;
                ASSERT_EQ(z1, z2) << "trial " << trial << " element " << x << "," << y;
                ASSERT_TRUE(e1 >= 0 && e1 <= 4 && z1 >= 0 && z1 <= 5);
                seen_e[e1] = seen_z[z1] = true;
            }
    }
    for (int i = 0; i < 5; i++)
        EXPECT_TRUE(seen_e[i]) << "context e = " << i << " never reached";
    for (int i = 0; i < 6; i++)
        EXPECT_TRUE(seen_z[i]) << "context z = " << i << " never reached";
}

// The bins of pcwt_ec_element_bins (the GPU coder's first pass), coded in order with the same
// range coder and raw-bit writer, give the bytes of pcwt_ec_encode_group, and
// pcwt_ec_element_counts counts them; on random bands of every class, with and without modelled
// low bits, random group sizes and MQD trees whose references and coefficients agree with their
// MQDs as a transform's would.
TEST(EntropyProfile, ElementBinsCodeTheSameBytesAsTheGroupCoder)
{
    Rng rng(17);
    for (int round = 0; round < 300; round++) {
        RandomBand rb(rng);
        const uint32_t gr = 1 + rng.below(32), gc = 1 + rng.below(32);
        const uint32_t mr = rb.mr, mc = rb.mc, pc = rb.pc;
        const int exact = rb.exact, qmax = rb.qmax;
        const std::vector<int8_t> &parent = rb.parent, &mqd = rb.mqd;
        const std::vector<int32_t> &coef = rb.coef;
        const pcwt_ec_band &b = rb.b;
        for (uint32_t gx = 0; gx < mr; gx += gr)
            for (uint32_t gy = 0; gy < mc; gy += gc) {
                const pcwt_ec_span g{gx, gy, std::min(mr, gx + gr), std::min(mc, gy + gc)};
                const size_t cap = 4096 + 40 * size_t(gr) * gc;
                std::vector<uint8_t> a1(cap), r1(cap), a2(cap), r2(cap);
                std::vector<pcwt_bit_model> m1(PCWT_EC_ALL), m2(PCWT_EC_ALL);
                pcwt_rc_enc e1, e2;
                pcwt_bitwriter w1, w2;
                pcwt_rc_enc_init(&e1, a1.data(), cap);
                pcwt_bw_init(&w1, r1.data());
                pcwt_ec_encode_group(&b, &g, pcwt_ec_init_p[b.cls], m1.data(), 1, &e1, &w1);
                pcwt_rc_enc_init(&e2, a2.data(), cap);
                pcwt_bw_init(&w2, r2.data());
                pcwt_ec_models_reset(m2.data(), 1, pcwt_ec_init_p[b.cls]);
                for (uint32_t x = g.gx; x < g.xe; x++)
                    for (uint32_t y = g.gy; y < g.ye; y++) {
                        uint8_t bins[PCWT_EC_ELEMENT_BINS];
                        uint32_t rv[4], rn[4], nb, nr;
                        const uint32_t n = pcwt_ec_element_bins(&b, &g, x, y, bins, rv, rn);
                        const size_t at = size_t(2 * x) * b.cols + 2 * y;
                        const int32_t c[4] = {coef[at], coef[at + 1], coef[at + b.cols], coef[at + b.cols + 1]};
                        pcwt_ec_element_counts(b.parent ? parent[size_t(x / 2) * pc + y / 2] : qmax,
                                               mqd[size_t(x) * mc + y], c, exact, b.low, &nb, &nr);
                        ASSERT_EQ(n, nb) << "round " << round << " element " << x << "," << y;
                        ASSERT_EQ(rn[0] + rn[1] + rn[2] + rn[3], nr);
                        for (uint32_t i = 0; i < n; i++)
                            pcwt_rc_encode(&e2, &m2[bins[i] & 127u], bins[i] >> 7);
                        // the raw stream is apart: an element's raw bits in coefficient order
                        for (uint32_t j = 0; j < 4; j++)
                            pcwt_bw_put(&w2, rv[j], rn[j]);
                    }
                const size_t l1 = pcwt_rc_enc_finish(&e1, a1.data()), l2 = pcwt_rc_enc_finish(&e2, a2.data());
                ASSERT_EQ(l1, l2) << "round " << round;
                ASSERT_TRUE(std::equal(a1.begin(), a1.begin() + std::ptrdiff_t(l1), a2.begin()));
                const size_t q1 = size_t(pcwt_bw_flush(&w1) - r1.data()), q2 = size_t(pcwt_bw_flush(&w2) - r2.data());
                ASSERT_EQ(q1, q2);
                ASSERT_TRUE(std::equal(r1.begin(), r1.begin() + std::ptrdiff_t(q1), r2.begin()));
            }
    }
}

TEST(EntropyProfile, SyntheticImagesEveryFormat)
{
    Rng rng(21);
    struct Fmt { uint32_t alloc, stored; bool sgn; };
    const Fmt fmts[] = {{8, 8, false}, {8, 1, false}, {8, 7, true}, {16, 16, true}, {16, 16, false},
                        {16, 12, false}, {16, 10, false}, {16, 13, true}, {16, 2, true}};
    const uint32_t sizes[][2] = {{1, 1}, {2, 3}, {17, 13}, {64, 64}, {131, 67}, {37, 200}};
    for (const Fmt &f : fmts)
        for (const auto &sz : sizes)
            for (uint32_t comps : {1u, 3u}) {
                const auto d = make_desc(sz[0], sz[1], comps, f.alloc, f.stored, f.sgn, comps == 3 && (sz[0] & 1));
                const std::string what = std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + "x" +
                                         std::to_string(comps) + " " + std::to_string(f.alloc) + "/" +
                                         std::to_string(f.stored) + (f.sgn ? "s" : "u");
                expect_roundtrip(d, ct_like(d, rng, 40), entropy_params(), what + " ct");
                expect_roundtrip(d, noise_image(d, rng), entropy_params(), what + " noise+garbage");
            }
}

TEST(EntropyProfile, ParameterCombinations)
{
    Rng rng(22);
    const auto d = make_desc(97, 61, 1, 16, 12, false);
    const auto img = ct_like(d, rng, 200);
    const uint32_t groups[][2] = {{1, 1}, {2, 3}, {3, 2}, {5, 7}, {8, 8}, {32, 32}, {64, 16}, {256, 256}};
    for (uint32_t levels : {0u, 1u, 2u, 3u, 6u, 10u})
        for (const auto &g : groups)
            expect_roundtrip(d, img, entropy_params(levels, g[0], g[1]),
                             "levels " + std::to_string(levels) + " group " + std::to_string(g[0]) +
                                 "x" + std::to_string(g[1]));
}

TEST(EntropyProfile, ExtremeValues)
{
    // Full-range 16-bit steps give the largest coefficients (Qmax up to 28 with 6 levels).
    const auto d = make_desc(64, 48, 1, 16, 16, true);
    std::vector<uint8_t> img(pcwt_image_size(&d));
    for (uint32_t y = 0; y < d.height; y++)
        for (uint32_t x = 0; x < d.width; x++) {
            const uint16_t w = ((x / 3 + y / 5) & 1) ? 0x7fff : 0x8000;
            std::memcpy(&img[2 * (y * d.width + x)], &w, 2);
        }
    for (uint32_t levels : {0u, 3u, 6u, 10u})
        expect_roundtrip(d, img, entropy_params(levels, 4, 4), "extremes, levels " + std::to_string(levels));
}

TEST(EntropyProfile, NeverLargerThanBaselineAndSmallerOnSmoothImages)
{
    Rng rng(23);
    for (uint32_t noise : {0u, 3u, 30u, 300u, 4095u}) {
        const auto d = make_desc(256, 200, 1, 16, 12, false);
        const auto img = ct_like(d, rng, noise);
        for (uint32_t g : {1u, 4u, 32u}) {
            pcwt_encode_params base = entropy_params(6, g, g);
            base.profile = PCWT_PROFILE_BASELINE;
            const auto b = encode(d, img, &base);
            std::vector<uint8_t> e;
            expect_roundtrip(d, img, entropy_params(6, g, g), "noise " + std::to_string(noise), &e);
            ASSERT_FALSE(b.empty());
            EXPECT_LE(e.size(), b.size()) << "noise " << noise << " group " << g;
            if (noise <= 300 && g == 32)
                EXPECT_LT(e.size() * 105, b.size() * 100) << "noise " << noise << ": at least 5% smaller";
        }
    }
}

TEST(EntropyProfile, RawModeGroupsForIncompressibleData)
{
    // Full-range noise in one-element groups with no transform: the range coder's end of stream
    // costs more than it saves in many groups, which then fall back to the baseline bit strings.
    Rng rng(24);
    const auto d = make_desc(40, 40, 1, 16, 16, false);
    const auto img = noise_image(d, rng);
    std::vector<uint8_t> cs;
    expect_roundtrip(d, img, entropy_params(0, 1, 1), "noise, levels 0, 1x1 groups", &cs);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.plane_count, 1u);
    const int raw = raw_groups_single_band(cs.data() + info.header_length,
                                           static_cast<size_t>(info.planes[0].payload_length), 400);
    EXPECT_GT(raw, 0);
    EXPECT_LT(raw, 400);
    // A smooth image with the same parameters codes every group with the range coder.
    const auto smooth = ct_like(d, rng, 0);
    expect_roundtrip(d, smooth, entropy_params(0, 4, 4), "smooth, levels 0", &cs);
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    EXPECT_EQ(raw_groups_single_band(cs.data() + info.header_length,
                                     static_cast<size_t>(info.planes[0].payload_length), 25),
              0);
}

TEST(EntropyProfile, DeterministicAcrossHandlesAndCalls)
{
    Rng rng(25);
    const auto d = make_desc(120, 90, 3, 8, 8, false);
    const auto img = ct_like(d, rng, 20);
    const auto p = entropy_params();
    const auto a = encode(d, img, &p);
    const auto b = encode(d, img, &p);
    EXPECT_EQ(a, b);
}

namespace {

std::vector<uint8_t> entropy_sample_stream(pcwt_image_desc *out_desc = nullptr)
{
    const pcwt_image_desc d = make_desc(23, 17, 3, 16, 12, true, true);
    Rng rng(12);
    auto img = ct_like(d, rng, 60);
    for (size_t k = 1; k < img.size(); k += 2)
        if (rng.below(9) == 0)
            img[k] ^= 0x30; // bits above bits stored: high-bit planes
    if (out_desc)
        *out_desc = d;
    return encode(d, img, &(const pcwt_encode_params &)entropy_params(2, 3, 2));
}

} // namespace

TEST(EntropyProfile, EverySingleBitFlipIsRejected)
{
    const auto good = entropy_sample_stream();
    ASSERT_FALSE(good.empty());
    std::vector<uint8_t> out;
    ASSERT_EQ(decode(good, out), PCWT_OK);
    for (size_t i = 0; i < good.size(); i++)
        for (int bit = 0; bit < 8; bit++) {
            auto bad = good;
            bad[i] ^= static_cast<uint8_t>(1u << bit);
            ASSERT_NE(decode(bad, out), PCWT_OK) << "flip at byte " << i << " bit " << bit;
        }
}

TEST(EntropyProfile, EveryTruncationIsRejected)
{
    pcwt_image_desc d;
    const auto good = entropy_sample_stream(&d);
    pcwt_decoder *dec = pcwt_decoder_create();
    std::vector<uint8_t> out(pcwt_image_size(&d));
    for (size_t n = 0; n < good.size(); n++) {
        std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
        const pcwt_status s = pcwt_decode(dec, cut.data(), cut.size(), out.data(), out.size());
        ASSERT_NE(s, PCWT_OK) << "length " << n;
        if (n >= 4)
            EXPECT_EQ(s, PCWT_ERR_TRUNCATED) << "length " << n;
    }
    pcwt_decoder_destroy(dec);
}

TEST(EntropyProfile, RechecksummedPayloadDamageNeverCrashes)
{
    // With the CRCs recomputed, damage reaches the group decoder: it must fail cleanly or decode
    // something in range, never crash or read past the payload (ASan/UBSan in CI).
    for (int variant = 0; variant < 3; variant++) {
        std::vector<uint8_t> good;
        if (variant == 0) {
            good = entropy_sample_stream();
        } else {
            Rng rng(31);
            const auto d = make_desc(50, 41, 1, 16, 16, true);
            auto p = entropy_params(6, 4, 4);
            if (variant == 2) // modelled low bits
                p.low_bits = PCWT_LOW_BITS_ON;
            good = encode(d, ct_like(d, rng, 500), &p);
            ASSERT_FALSE(good.empty());
        }
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
        Rng rng(13 + variant);
        std::vector<uint8_t> out;
        int rejected = 0;
        const int trials = 3000;
        for (int t = 0; t < trials; t++) {
            auto bad = good;
            const size_t pos = info.header_length +
                               rng.below(static_cast<uint32_t>(good.size() - info.header_length));
            bad[pos] ^= static_cast<uint8_t>(1 + rng.below(255));
            fix_crcs(bad, info);
            if (decode(bad, out) != PCWT_OK)
                rejected++;
        }
        // Arithmetic-coded data has little redundancy: much damage decodes to other valid
        // pixels (the CRCs catch it in real use), but lengths, stream ends and Qmax still reject a
        // good part of it.
        EXPECT_GT(rejected, trials / 5) << "variant " << variant;
    }
}

TEST(EntropyProfile, HeaderProfileValues)
{
    auto cs = entropy_sample_stream();
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    std::vector<uint8_t> out;
    const pcwt_header_info good_info = info;
    for (uint8_t prof : {3, 7, 255}) {
        auto bad = cs;
        bad[5] = prof;
        fix_crcs(bad, good_info);
        EXPECT_EQ(pcwt_read_header(bad.data(), bad.size(), &info), PCWT_ERR_BAD_VERSION);
        EXPECT_EQ(decode(bad, out), PCWT_ERR_BAD_VERSION);
    }
    // The baseline decoder path on an entropy payload (profile byte set to 0) must fail cleanly.
    auto as_baseline = cs;
    as_baseline[5] = 0;
    fix_crcs(as_baseline, good_info);
    EXPECT_NE(decode(as_baseline, out), PCWT_OK);
}

TEST(EntropyProfile, ApiAcceptsProfileAndRejectsUnknown)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p = entropy_params();
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
    EXPECT_EQ(pcwt_encoder_backend(e), PCWT_BACKEND_CPU);
    p.profile = PCWT_PROFILE_COMPACT;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
    p.profile = static_cast<pcwt_profile>(3);
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_UNSUPPORTED);
    pcwt_encoder_destroy(e);
}

TEST(EntropyProfile, DestinationTooSmallIsRefused)
{
    Rng rng(26);
    const auto d = make_desc(64, 64, 1, 16, 12, false);
    const auto img = ct_like(d, rng, 50);
    const auto p = entropy_params();
    const auto cs = encode(d, img, &p);
    ASSERT_FALSE(cs.empty());
    pcwt_encoder *e = pcwt_encoder_create();
    ASSERT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
    std::vector<uint8_t> dst(cs.size());
    size_t written = 0;
    // The encoder asks for room for the baseline payload (a bound of the entropy payload).
    for (size_t cap : {size_t{0}, size_t{10}, cs.size() / 2})
        EXPECT_EQ(pcwt_encode(e, &d, img.data(), img.size(), dst.data(), cap, &written),
                  PCWT_ERR_BUFFER_TOO_SMALL);
    pcwt_encoder_destroy(e);
}

// ---- modelled low bits (plane option bit 0) ------------------------------------------------------

namespace {

uint32_t plane0_low_bits(const std::vector<uint8_t> &cs)
{
    pcwt_header_info info;
    EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    return info.planes[0].low_bits;
}

} // namespace

// The encoder models the low bits where the coefficients lie on a lattice, and the file is much
// smaller for it; it leaves them raw on an ordinary image; either way every sample comes back.
TEST(EntropyProfile, LowBitsModelledWhereTheyPay)
{
    Rng rng(41);
    const auto d = make_desc(256, 192, 1, 16, 16, false);
    const auto img = lattice_image(d, 4, 41);
    auto p = entropy_params(4);
    std::vector<uint8_t> automatic, off;
    expect_roundtrip(d, img, p, "lattice, auto", &automatic);
    p.low_bits = PCWT_LOW_BITS_OFF;
    expect_roundtrip(d, img, p, "lattice, off", &off);
    EXPECT_EQ(plane0_low_bits(automatic), 1u);
    EXPECT_EQ(plane0_low_bits(off), 0u);
    // Two lattice bits of about 0.6 bit each instead of two raw ones.
    EXPECT_LT(automatic.size() * 100, off.size() * 90) << automatic.size() << " vs " << off.size();

    const auto ct = make_desc(256, 192, 1, 16, 12, false);
    const auto ct_img = ct_like(ct, rng, 300);
    std::vector<uint8_t> ct_auto;
    expect_roundtrip(ct, ct_img, entropy_params(4), "ct, auto", &ct_auto);
    EXPECT_EQ(plane0_low_bits(ct_auto), 0u);
}

// The encoder's counts for the decision (pcwt_ec_low_stats_of, without a branch per coefficient)
// are pcwt_ec_low_tally's over every fourth element row of each band, whatever the magnitudes and
// signs, padding included.
TEST(EntropyProfile, LowBitCountsAreTheTallysOfTheSampledRows)
{
    Rng rng(43);
    pcwt_pyramid p{};
    for (const uint32_t side : {1u, 9u, 64u, 203u}) {
        pcwt_plan plan;
        pcwt_plan_make(&plan, side, side + 5, 4);
        ASSERT_EQ(pcwt_pyramid_prepare(&p, &plan), PCWT_OK);
        pcwt_ec_low_stats want{};
        for (uint32_t b = 0; b < p.band_count; b++) {
            pcwt_band &band = p.band[b];
            for (size_t i = 0; i < static_cast<size_t>(band.rows) * band.cols; i++) {
                const uint32_t bits = rng.below(20);
                const int32_t v = static_cast<int32_t>(rng.next() & ((1u << bits) - 1u));
                band.coef[i] = rng.below(2) ? -v : v;
            }
            for (uint32_t x = 0; x < band.mrows; x += PCWT_EC_LOW_ROW_STEP)
                for (uint32_t i = 0; i < 2 * band.cols; i++) {
                    uint32_t n[3] = {0, 0, 0}, ones[3] = {0, 0, 0};
                    pcwt_ec_low_tally(pcwt_magnitude(band.coef[static_cast<size_t>(2 * x) * band.cols + i]),
                                      n, ones);
                    for (int k = 0; k < 3; k++) {
                        want.n[k] += n[k];
                        want.ones[k] += ones[k];
                    }
                }
        }
        pcwt_ec_low_stats got;
        pcwt_ec_low_stats_of(&p, &got);
        for (int k = 0; k < 3; k++) {
            EXPECT_EQ(got.n[k], want.n[k]) << side << " model " << k;
            EXPECT_EQ(got.ones[k], want.ones[k]) << side << " model " << k;
        }
        EXPECT_GT(want.n[1] + want.n[2], 0u);
    }
    pcwt_pyramid_free(&p);
}

// Forced on, the modelled low bits round-trip every format, colour, high-bit planes, all levels
// and group sizes.
TEST(EntropyProfile, LowBitsForcedOnEveryFormat)
{
    Rng rng(42);
    struct Fmt { uint32_t alloc, stored; bool sgn; };
    const Fmt fmts[] = {{8, 8, false}, {8, 3, true}, {16, 16, true}, {16, 12, false}, {16, 13, true}};
    for (const Fmt &f : fmts)
        for (uint32_t comps : {1u, 3u})
            for (uint32_t levels : {0u, 1u, 3u, 6u}) {
                const auto d = make_desc(67, 45, comps, f.alloc, f.stored, f.sgn);
                auto p = entropy_params(levels, 1 + rng.below(32), 1 + rng.below(32));
                p.low_bits = PCWT_LOW_BITS_ON;
                const std::string what = std::to_string(f.alloc) + "/" + std::to_string(f.stored) +
                                         " x" + std::to_string(comps) + " L" + std::to_string(levels);
                std::vector<uint8_t> cs;
                expect_roundtrip(d, ct_like(d, rng, 900), p, what, &cs);
                EXPECT_EQ(plane0_low_bits(cs), 1u) << what;
                auto noise = noise_image(d, rng);
                expect_roundtrip(d, noise, p, what + " noise");
            }
}

TEST(EntropyProfile, LowBitsOptionByteChecked)
{
    const auto d = make_desc(64, 64, 1, 16, 16, false);
    auto p = entropy_params();
    p.low_bits = PCWT_LOW_BITS_ON;
    const auto cs = encode(d, lattice_image(d, 6, 43), &p);
    ASSERT_FALSE(cs.empty());
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].low_bits, 1u);
    std::vector<uint8_t> out;
    const size_t opt = PCWT_HEADER_FIXED + 3; // plane 0's options byte
    const pcwt_header_info good = info;
    for (uint8_t v : {2, 3, 0x80, 0xff}) {
        auto bad = cs;
        bad[opt] = v;
        fix_crcs(bad, good);
        EXPECT_EQ(pcwt_read_header(bad.data(), bad.size(), &info), PCWT_ERR_CORRUPT) << int(v);
        EXPECT_EQ(decode(bad, out), PCWT_ERR_CORRUPT) << int(v);
    }
    // The option is the entropy profile's: a baseline codestream may not set it.
    p.profile = PCWT_PROFILE_BASELINE;
    auto base = encode(d, lattice_image(d, 6, 44), &p);
    ASSERT_EQ(pcwt_read_header(base.data(), base.size(), &info), PCWT_OK);
    EXPECT_EQ(info.planes[0].low_bits, 0u);
    base[opt] = 1;
    fix_crcs(base, info);
    EXPECT_EQ(decode(base, out), PCWT_ERR_CORRUPT);
    // The wrong option on a good payload: the group decoder reads it another way and must fail
    // or decode in range, never crash.
    auto flipped = cs;
    flipped[opt] = 0;
    fix_crcs(flipped, good);
    EXPECT_NE(decode(flipped, out), PCWT_OK);
    pcwt_encoder *e = pcwt_encoder_create();
    p.low_bits = static_cast<pcwt_low_bits>(3);
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encoder_destroy(e);
}

// The defaults follow the profile: the baseline lifts rows first in 32x32 groups (the seed), the
// entropy profile columns first in 64x16 groups; either order can be forced in either profile and
// round-trips, and the header says which. An image made in JPEG 2000's order (a lattice in
// columns-first coefficients) codes much smaller columns first. The flag is checked: bit 4 is
// reserved, and a stream decoded with the wrong order fails or gives other samples, never these.
TEST(EntropyProfile, LiftingOrderAndGroupsFollowTheProfile)
{
    Rng rng(61);
    const auto d = make_desc(203, 157, 1, 16, 12, false);
    const auto img = ct_like(d, rng, 200);
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    pcwt_header_info h;
    for (pcwt_profile prof : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY}) {
        p.profile = prof;
        const bool entropy = prof == PCWT_PROFILE_ENTROPY;
        std::vector<uint8_t> by_default, rows, cols;
        p.lifting_order = PCWT_LIFTING_AUTO;
        expect_roundtrip(d, img, p, entropy ? "entropy, auto" : "baseline, auto", &by_default);
        p.lifting_order = PCWT_LIFTING_ROWS_FIRST;
        expect_roundtrip(d, img, p, "rows first", &rows);
        p.lifting_order = PCWT_LIFTING_COLUMNS_FIRST;
        expect_roundtrip(d, img, p, "columns first", &cols);
        ASSERT_EQ(pcwt_read_header(by_default.data(), by_default.size(), &h), PCWT_OK);
        EXPECT_EQ(h.columns_first, entropy ? 1u : 0u);
        EXPECT_EQ(h.group_rows, entropy ? 64u : 32u);
        EXPECT_EQ(h.group_cols, entropy ? 16u : 32u);
        EXPECT_EQ(by_default, entropy ? cols : rows);
        ASSERT_EQ(pcwt_read_header(rows.data(), rows.size(), &h), PCWT_OK);
        EXPECT_EQ(h.columns_first, 0u);
        ASSERT_EQ(pcwt_read_header(cols.data(), cols.size(), &h), PCWT_OK);
        EXPECT_EQ(h.columns_first, 1u);
        EXPECT_NE(rows, cols);

        // the flag flipped (header CRC fixed): never the original samples
        std::vector<uint8_t> out;
        for (const auto *cs : {&rows, &cols}) {
            auto bad = *cs;
            ASSERT_EQ(pcwt_read_header(bad.data(), bad.size(), &h), PCWT_OK);
            const pcwt_header_info good = h;
            bad[19] ^= 8;
            fix_crcs(bad, good);
            const pcwt_status st = decode(bad, out);
            EXPECT_TRUE(st != PCWT_OK || out != img) << "a stream decoded with the other order";
            bad[19] ^= 8 | 16;
            fix_crcs(bad, good);
            EXPECT_EQ(decode(bad, out), PCWT_ERR_CORRUPT) << "reserved flag bit 4";
        }
    }
    // JPEG 2000's order on a JPEG 2000-made image: lattice coefficients only in that order.
    const auto ld = make_desc(256, 192, 1, 16, 16, false);
    const auto lat = lattice_image(ld, 4, 62);
    auto q = entropy_params(4, 0, 0);
    std::vector<uint8_t> cf, rf;
    expect_roundtrip(ld, lat, q, "lattice, columns first", &cf);
    q.lifting_order = PCWT_LIFTING_ROWS_FIRST;
    expect_roundtrip(ld, lat, q, "lattice, rows first", &rf);
    EXPECT_LT(cf.size() * 100, rf.size() * 90) << cf.size() << " vs " << rf.size();
}
