// The per-plane modular offset of the compact profile (docs/FORMAT.md Sec. 5.6, plane option bit
// 3): the estimate's rules (the gap candidate, a pair's cost, the 1/5 margin) against direct
// models; synthetic planes of 2-16 bits, signed and unsigned, 1 and 3 components (two's complement
// labelled unsigned, palette-like sets, values wrapping round 2^bits, smooth data, high-bit
// planes), round-tripped exactly with the offset off, automatic and on; the estimate's choice on
// planes built to need it and built not to; damaged r0, truncated payloads, decoded values out of
// range and bit 3 where the format forbids it refused with a clear error.
#include <gtest/gtest.h>

extern "C" {
#include "offset.h"
}
#include "recrc.h"
#include "test_util.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

pcwt_encode_params params(pcwt_offset_mode mode, pcwt_value_map_mode vmap = PCWT_VALUE_MAP_AUTO,
                          pcwt_colour_transform colour = PCWT_COLOUR_AUTO)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    p.profile = PCWT_PROFILE_COMPACT;
    p.offset = mode;
    p.value_map = vmap;
    p.colour_transform = colour;
    return p;
}

// The CPU decoder, whatever devices the machine has.
pcwt_status decode_cpu(const std::vector<uint8_t> &cs, std::vector<uint8_t> &out, std::string *err)
{
    pcwt_decoder *d = pcwt_decoder_create();
    pcwt_status s = pcwt_decoder_set_option(d, PCWT_OPT_BACKEND, PCWT_BACKEND_CPU);
    pcwt_header_info info;
    if (s == PCWT_OK && pcwt_read_header(cs.data(), cs.size(), &info) == PCWT_OK)
        out.assign(pcwt_image_size(&info.desc), 0);
    else
        out.assign(1, 0); // the decoder's own message for a header it refuses
    if (s == PCWT_OK)
        s = pcwt_decode(d, cs.data(), cs.size(), out.data(), out.size());
    *err = pcwt_decoder_last_error(d);
    pcwt_decoder_destroy(d);
    return s;
}

// Sample words of an image from the stored values u (bits_stored bits each, in the layout's order:
// interleaved), extended canonically (sign-extended when signed), or with high bits set at random
// where garbage is asked for.
std::vector<uint8_t> words(const pcwt_image_desc &d, const std::vector<uint32_t> &u, Rng *garbage = nullptr)
{
    std::vector<uint8_t> out(u.size() * (d.bits_allocated / 8));
    const uint32_t m = 1u << d.bits_stored, amask = d.bits_allocated == 16 ? 0xFFFFu : 0xFFu;
    for (size_t i = 0; i < u.size(); i++) {
        uint32_t w = u[i] & (m - 1u);
        if (d.is_signed && w >= m / 2u)
            w |= ~(m - 1u);
        if (garbage && d.bits_stored < d.bits_allocated && garbage->below(3) == 0)
            w ^= garbage->next() << d.bits_stored;
        w &= amask;
        if (d.bits_allocated == 16) {
            out[2 * i] = static_cast<uint8_t>(w);
            out[2 * i + 1] = static_cast<uint8_t>(w >> 8);
        } else {
            out[i] = static_cast<uint8_t>(w);
        }
    }
    return out;
}

enum class Pattern { TwosComplement, Palette, Wrapping, Smooth };

// Stored values of one component (w x h) of a pattern in bits bits.
std::vector<uint32_t> plane_of(Pattern pat, uint32_t w, uint32_t h, uint32_t bits, Rng &rng)
{
    const uint32_t m = 1u << bits;
    const int32_t amp = static_cast<int32_t>(std::max(1u, std::min(m / 8u, 300u)));
    std::vector<uint32_t> u(static_cast<size_t>(w) * h);
    const uint32_t base = rng.below(m); // where the wrapping values start
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const int32_t ramp = static_cast<int32_t>((x * 5 + y * 3) % (2 * amp + 1)) - amp;
            const int32_t noise = static_cast<int32_t>(rng.below(5)) - 2;
            int32_t v = 0;
            switch (pat) {
            case Pattern::TwosComplement: v = ramp + noise; break; // around 0 read as unsigned
            case Pattern::Palette: {
                static const int32_t pal[] = {0, 1, -12}; // 0, 1 and 2^bits - 12
                v = pal[((x / 7) + (y / 5)) % 3];
                if (bits < 5)
                    v = static_cast<int32_t>((x / 7 + y / 5) % 3);
                break;
            }
            case Pattern::Wrapping: v = static_cast<int32_t>(base) + ramp + noise; break;
            case Pattern::Smooth: v = static_cast<int32_t>(m / 4u) + (ramp + noise) / 2; break;
            }
            u[static_cast<size_t>(y) * w + x] = static_cast<uint32_t>(v) & (m - 1u);
        }
    return u;
}

// The image of ncomp components of a pattern (interleaved).
std::vector<uint32_t> image_of(Pattern pat, uint32_t w, uint32_t h, uint32_t ncomp, uint32_t bits, Rng &rng)
{
    std::vector<uint32_t> all(static_cast<size_t>(w) * h * ncomp);
    for (uint32_t c = 0; c < ncomp; c++) {
        const std::vector<uint32_t> p = plane_of(pat, w, h, bits, rng);
        for (size_t i = 0; i < p.size(); i++)
            all[i * ncomp + c] = p[i];
    }
    return all;
}

size_t payload_at(const pcwt_header_info &info, uint32_t plane)
{
    size_t at = info.header_length;
    for (uint32_t i = 0; i < plane; i++)
        at += static_cast<size_t>(info.planes[i].payload_length);
    return at;
}

uint32_t r0_of(const std::vector<uint8_t> &cs, const pcwt_header_info &info, uint32_t plane)
{
    const size_t at = payload_at(info, plane);
    return static_cast<uint32_t>(cs[at]) | static_cast<uint32_t>(cs[at + 1]) << 8;
}

// The estimate of FORMAT.md Sec. 5.6 written out directly (sorting, modular differences): the r0
// that the encoder must choose for one plane of stored values u, and whether auto takes it.
struct Choice {
    uint32_t r0;
    bool taken;
};
Choice model_estimate(const std::vector<uint32_t> &u, uint32_t w, uint32_t h, uint32_t bits, bool is_signed)
{
    const int64_t m = int64_t(1) << bits;
    std::vector<uint32_t> used(u);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    size_t best_i = 0;
    int64_t best_len = -1;
    for (size_t i = 0; i < used.size(); i++) {
        const int64_t len = i + 1 < used.size() ? int64_t(used[i + 1]) - used[i] - 1
                                                : int64_t(used[0]) + m - used[i] - 1;
        if (len > best_len) {
            best_len = len;
            best_i = i;
        }
    }
    const uint32_t t = is_signed ? uint32_t(m / 2) : 0u;
    const uint32_t cand[3] = {t, uint32_t((t + m / 2) % m), used[(best_i + 1) % used.size()]};
    uint64_t cost[3];
    for (int k = 0; k < 3; k++) {
        auto up = [&](size_t i) { return ((int64_t(u[i]) - cand[k]) % m + m) % m; };
        uint64_t c = 0;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                const size_t i = size_t(y) * w + x;
                if (x)
                    c += uint64_t(std::llabs(up(i) - up(i - 1)));
                if (y)
                    c += uint64_t(std::llabs(up(i) - up(i - w)));
            }
        cost[k] = c;
    }
    int best = 0;
    for (int k = 1; k < 3; k++)
        if (cost[k] < cost[best])
            best = k;
    return {cand[best], cand[best] != t && 5 * cost[best] <= 4 * cost[0]};
}

std::vector<uint32_t> component(const std::vector<uint32_t> &all, uint32_t ncomp, uint32_t c)
{
    std::vector<uint32_t> p(all.size() / ncomp);
    for (size_t i = 0; i < p.size(); i++)
        p[i] = all[i * ncomp + c];
    return p;
}

} // namespace

TEST(Offset, GapCandidate)
{
    const auto gap = [](std::vector<uint32_t> values, uint32_t m) {
        std::vector<uint8_t> used(m, 0);
        for (uint32_t v : values)
            used[v] = 1;
        return pcwt_offset_gap(used.data(), m);
    };
    EXPECT_EQ(gap({3}, 16), 3u);              // one value: the stretch round to itself
    EXPECT_EQ(gap({0, 1, 10}, 16), 10u);      // 2..9 is the largest
    EXPECT_EQ(gap({5, 6}, 16), 5u);           // the stretch that wraps, 7..4
    EXPECT_EQ(gap({0, 4, 8, 12}, 16), 4u);    // all equal: the one after the smallest value
    EXPECT_EQ(gap({2, 9, 12}, 16), 9u);       // 3..8 (6) against the wrap 13..1 (5)
    EXPECT_EQ(gap({2, 8, 13}, 16), 8u);       // 3..7 (5) against 9..12 and the wrap 14..1 (4)
    EXPECT_EQ(gap({3, 8, 13}, 16), 3u);       // the wrap 14..2 (5) against 4..7 and 9..12 (4)
    std::vector<uint32_t> all(256);
    for (uint32_t i = 0; i < 256; i++)
        all[i] = i;
    EXPECT_EQ(gap(all, 256), 1u); // no empty value: the first stretch (of length 0)
}

TEST(Offset, PairCostIsTheModularDifference)
{
    for (uint32_t bits : {1u, 3u, 4u}) {
        const uint32_t m = 1u << bits;
        for (uint32_t a = 0; a < m; a++)
            for (uint32_t b = 0; b < m; b++)
                for (uint32_t r = 0; r < m; r++) {
                    const int32_t ap = int32_t((a - r) & (m - 1u)), bp = int32_t((b - r) & (m - 1u));
                    EXPECT_EQ(pcwt_offset_pair_cost(a, b, r, m), uint32_t(std::abs(ap - bp)))
                        << a << " " << b << " " << r;
                }
    }
}

TEST(Offset, DecisionAndMargin)
{
    uint32_t r0 = 99;
    // 1/5 smaller exactly is taken; one more is not.
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 0, 8, 3, 100, 80, 90, &r0), 1);
    EXPECT_EQ(r0, 8u);
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 0, 8, 3, 100, 81, 90, &r0), 0);
    // Ties go to the earlier candidate: T, then F.
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 0, 8, 3, 50, 50, 50, &r0), 0);
    EXPECT_EQ(r0, 0u);
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 0, 8, 3, 100, 20, 20, &r0), 1);
    EXPECT_EQ(r0, 8u);
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 0, 8, 3, 100, 20, 19, &r0), 1);
    EXPECT_EQ(r0, 3u);
    // A gap candidate equal to T is today's reading: auto sets nothing.
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 8, 0, 8, 100, 100, 10, &r0), 0);
    // On: always, with the cheapest (T included); off: never.
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_ON, 0, 8, 3, 50, 60, 70, &r0), 1);
    EXPECT_EQ(r0, 0u);
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_OFF, 0, 8, 3, 100, 1, 1, &r0), 0);
    // Sums of 64 bits: no overflow in 5 C at the largest plane's costs.
    const uint64_t big = uint64_t(2) * 65535 * 65535 * 65535;
    EXPECT_EQ(pcwt_offset_decide(PCWT_OFFSET_AUTO, 0, 32768, 5, big, big / 2, big, &r0), 1);
    EXPECT_EQ(r0, 32768u);
}

TEST(Offset, RoundTripsBitDepthsSignsPatterns)
{
    Rng rng(31);
    int offsets_set = 0;
    for (uint32_t bits : {2u, 3u, 5u, 8u, 9u, 12u, 15u, 16u}) {
        for (bool is_signed : {false, true}) {
            for (uint32_t ncomp : {1u, 3u}) {
                for (Pattern pat : {Pattern::TwosComplement, Pattern::Palette, Pattern::Wrapping, Pattern::Smooth}) {
                    const uint32_t w = 37, h = 23, alloc = bits > 8 ? 16u : (bits == 5 ? 16u : 8u);
                    const pcwt_image_desc d = make_desc(w, h, ncomp, alloc, bits, is_signed);
                    const std::vector<uint32_t> u = image_of(pat, w, h, ncomp, bits, rng);
                    Rng g(bits * 7 + ncomp);
                    const std::vector<uint8_t> samples = words(d, u, bits == 12 ? &g : nullptr);
                    for (pcwt_colour_transform colour : {PCWT_COLOUR_AUTO, PCWT_COLOUR_NONE}) {
                        if (ncomp == 1 && colour == PCWT_COLOUR_NONE)
                            continue;
                        for (pcwt_value_map_mode vmap : {PCWT_VALUE_MAP_AUTO, PCWT_VALUE_MAP_OFF}) {
                            for (pcwt_offset_mode mode : {PCWT_OFFSET_OFF, PCWT_OFFSET_AUTO, PCWT_OFFSET_ON}) {
                                const std::string what = "bits " + std::to_string(bits) + " signed " +
                                                         std::to_string(is_signed) + " comps " +
                                                         std::to_string(ncomp) + " pattern " +
                                                         std::to_string(int(pat)) + " colour " +
                                                         std::to_string(colour) + " vmap " +
                                                         std::to_string(vmap) + " offset " + std::to_string(mode);
                                const pcwt_encode_params p = params(mode, vmap, colour);
                                pcwt_status st;
                                std::string err;
                                const std::vector<uint8_t> cs = encode(d, samples, &p, &st, &err);
                                ASSERT_EQ(st, PCWT_OK) << what << ": " << err;
                                EXPECT_LE(cs.size(), pcwt_encode_bound(&d)) << what;
                                std::vector<uint8_t> back;
                                ASSERT_EQ(decode_cpu(cs, back, &err), PCWT_OK) << what << ": " << err;
                                ASSERT_TRUE(back == samples) << what << ": decoded samples differ";
                                pcwt_header_info info;
                                ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
                                for (uint32_t i = 0; i < info.plane_count; i++) {
                                    const pcwt_plane_info &pl = info.planes[i];
                                    const bool allowed = pl.kind == 0 && !info.colour_transform;
                                    if (!allowed || mode == PCWT_OFFSET_OFF)
                                        EXPECT_EQ(pl.offset, 0u) << what << " plane " << i;
                                    else if (mode == PCWT_OFFSET_ON)
                                        EXPECT_EQ(pl.offset, 1u) << what << " plane " << i;
                                    if (!pl.offset)
                                        continue;
                                    offsets_set++;
                                    const uint32_t r0 = r0_of(cs, info, i);
                                    EXPECT_LT(r0, 1u << bits) << what;
                                    // The encoder's r0 and decision are the estimate's.
                                    const Choice c = model_estimate(component(u, ncomp, pl.component), w, h,
                                                                    bits, is_signed);
                                    EXPECT_EQ(r0, c.r0) << what << " plane " << i;
                                    if (mode == PCWT_OFFSET_AUTO)
                                        EXPECT_TRUE(c.taken) << what << " plane " << i;
                                }
                                if (mode == PCWT_OFFSET_AUTO && !info.colour_transform)
                                    for (uint32_t i = 0; i < info.plane_count; i++)
                                        if (info.planes[i].kind == 0 && !info.planes[i].offset)
                                            EXPECT_FALSE(model_estimate(component(u, ncomp, info.planes[i].component),
                                                                        w, h, bits, is_signed)
                                                             .taken)
                                                << what << " plane " << i;
                            }
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(offsets_set, 100);
}

// Two's-complement CT data labelled unsigned (TOSHIBA_J2K_SIZ1_PixRep0's case): -1 and 0 at the
// two ends of the range until the offset reads them as neighbours.
TEST(Offset, EstimateTakesTwosComplementLabelledUnsigned)
{
    Rng rng(7);
    const uint32_t w = 96, h = 64;
    const pcwt_image_desc d = make_desc(w, h, 1, 16, 16, false);
    std::vector<uint32_t> u(w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            u[y * w + x] = uint32_t(int32_t(x * 3 + y * 2) % 400 - 200 + int32_t(rng.below(7)) - 3) & 0xFFFFu;
    const std::vector<uint8_t> samples = words(d, u);
    pcwt_encode_params p = params(PCWT_OFFSET_AUTO);
    const std::vector<uint8_t> with = encode(d, samples, &p);
    p.offset = PCWT_OFFSET_OFF;
    const std::vector<uint8_t> without = encode(d, samples, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(with.data(), with.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].offset, 1u);
    // F (the signed reading, 32768) and G (the first value after the empty stretch, 65533 or so)
    // cost the same here: the tie goes to F.
    EXPECT_EQ(r0_of(with, info, 0), 32768u);
    EXPECT_LT(with.size(), without.size());
    std::vector<uint8_t> back;
    std::string err;
    ASSERT_EQ(decode_cpu(with, back, &err), PCWT_OK) << err;
    EXPECT_TRUE(back == samples);
}

// Where the signed reading splits a region of the image that the gap candidate keeps whole.
TEST(Offset, EstimateTakesTheGapWhereTheFlipSplitsValues)
{
    Rng rng(8);
    const uint32_t w = 64, h = 64;
    const pcwt_image_desc d = make_desc(w, h, 1, 8, 8, false);
    std::vector<uint32_t> u(w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const int32_t n = int32_t(rng.below(9)) - 4;
            // left: around 0 (236..255, 0..20); right: 122..138, across 128
            const int32_t v = x < 32 ? int32_t((x + y) % 33) - 16 + n : 130 + n;
            u[y * w + x] = uint32_t(v) & 0xFFu;
        }
    const Choice c = model_estimate(u, w, h, 8, false);
    ASSERT_TRUE(c.taken);
    ASSERT_NE(c.r0, 128u);
    const std::vector<uint8_t> samples = words(d, u);
    const pcwt_encode_params p = params(PCWT_OFFSET_AUTO);
    const std::vector<uint8_t> cs = encode(d, samples, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].offset, 1u);
    EXPECT_EQ(r0_of(cs, info, 0), c.r0);
    std::vector<uint8_t> back;
    std::string err;
    ASSERT_EQ(decode_cpu(cs, back, &err), PCWT_OK) << err;
    EXPECT_TRUE(back == samples);
}

// Palette indices (OBXXXX1A's case): 0, 1 and 244 in large regions; 244 next to 0 and 1.
TEST(Offset, EstimateTakesAPalette)
{
    const uint32_t w = 80, h = 60;
    const pcwt_image_desc d = make_desc(w, h, 1, 8, 8, false);
    std::vector<uint32_t> u(w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            u[y * w + x] = (x / 9 + y / 11) % 3 == 0 ? 0u : (x / 9 + y / 11) % 3 == 1 ? 244u : 1u;
    const std::vector<uint8_t> samples = words(d, u);
    pcwt_encode_params p = params(PCWT_OFFSET_AUTO);
    const std::vector<uint8_t> cs = encode(d, samples, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].offset, 1u);
    const uint32_t r0 = r0_of(cs, info, 0);
    EXPECT_TRUE(r0 > 1u && r0 <= 244u) << r0; // the wrap between 1 and 244
    std::vector<uint8_t> back;
    std::string err;
    ASSERT_EQ(decode_cpu(cs, back, &err), PCWT_OK) << err;
    EXPECT_TRUE(back == samples);
}

// Planes that do not need it: signed data read as signed, unsigned data away from the wrap.
TEST(Offset, EstimateLeavesPlanesThatDoNotNeedIt)
{
    Rng rng(9);
    for (bool is_signed : {true, false}) {
        const uint32_t w = 96, h = 64;
        const pcwt_image_desc d = make_desc(w, h, 1, 16, 12, is_signed);
        std::vector<uint32_t> u(w * h);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                const int32_t v = int32_t(x * 9 + y * 5) % 900 - (is_signed ? 450 : -100) + int32_t(rng.below(9)) - 4;
                u[y * w + x] = uint32_t(v) & 0xFFFu;
            }
        const std::vector<uint8_t> samples = words(d, u);
        const pcwt_encode_params p = params(PCWT_OFFSET_AUTO);
        const std::vector<uint8_t> cs = encode(d, samples, &p);
        pcwt_encode_params q = p;
        q.offset = PCWT_OFFSET_OFF;
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        EXPECT_EQ(info.planes[0].offset, 0u) << is_signed;
        EXPECT_TRUE(cs == encode(d, samples, &q)) << is_signed << ": auto must write today's bytes";
    }
}

TEST(Offset, OptionByName)
{
    int64_t v = -1;
    EXPECT_EQ(pcwt_option_parse(PCWT_OPT_OFFSET, "auto", &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_OFFSET_AUTO);
    EXPECT_EQ(pcwt_option_parse(PCWT_OPT_OFFSET, "on", &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_OFFSET_ON);
    pcwt_encoder *e = pcwt_encoder_create();
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(pcwt_encoder_set_option_name(e, "offset", "off"), PCWT_OK);
    EXPECT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_OFFSET, &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_OFFSET_OFF);
    EXPECT_EQ(pcwt_encoder_set_option_name(e, "offset", "sometimes"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_OFFSET, 3), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encoder_destroy(e);
}

TEST(Offset, DamagedOffsetsAreRefused)
{
    Rng rng(10);
    const uint32_t w = 40, h = 30;
    const pcwt_image_desc d = make_desc(w, h, 1, 16, 12, false);
    const std::vector<uint8_t> samples = words(d, image_of(Pattern::TwosComplement, w, h, 1, 12, rng));
    const pcwt_encode_params p = params(PCWT_OFFSET_ON);
    const std::vector<uint8_t> good = encode(d, samples, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
    ASSERT_EQ(info.plane_count, 1u);
    ASSERT_EQ(info.planes[0].offset, 1u);
    const size_t at = info.header_length;
    std::vector<uint8_t> out;
    std::string err;
    // r0 not below 2^12.
    for (uint32_t bad : {4096u, 0xFFFFu}) {
        std::vector<uint8_t> cs = good;
        cs[at] = uint8_t(bad);
        cs[at + 1] = uint8_t(bad >> 8);
        fix_crcs(cs, info);
        EXPECT_EQ(decode_cpu(cs, out, &err), PCWT_ERR_CORRUPT) << bad;
        EXPECT_NE(err.find("modular offset"), std::string::npos) << err;
    }
    // A payload of 0 or 1 bytes: too short for r0.
    for (uint64_t len : {0u, 1u}) {
        std::vector<uint8_t> cs(good.begin(), good.begin() + std::ptrdiff_t(at + len));
        pcwt_header_info ti = info;
        ti.planes[0].payload_length = len;
        ti.codestream_length = at + len;
        pcwt_header_write(&ti, cs.data());
        fix_crcs(cs, ti);
        EXPECT_EQ(decode_cpu(cs, out, &err), PCWT_ERR_CORRUPT) << len;
        EXPECT_NE(err.find("modular offset"), std::string::npos) << err;
    }
    // Truncated codestream (the payload's bytes missing): refused before decoding.
    {
        std::vector<uint8_t> cs(good.begin(), good.begin() + std::ptrdiff_t(at + 1));
        EXPECT_NE(decode_cpu(cs, out, &err), PCWT_OK);
        EXPECT_FALSE(err.empty());
    }
}

// A plane coded without the offset given bit 3 and r0 = 0: its signed values decode below 0,
// outside the u' range.
TEST(Offset, DecodedValueOutsideTheRangeIsRefused)
{
    Rng rng(11);
    const uint32_t w = 40, h = 30;
    const pcwt_image_desc d = make_desc(w, h, 1, 16, 12, true);
    const std::vector<uint8_t> samples = words(d, image_of(Pattern::TwosComplement, w, h, 1, 12, rng));
    const pcwt_encode_params p = params(PCWT_OFFSET_OFF, PCWT_VALUE_MAP_OFF);
    const std::vector<uint8_t> plain = encode(d, samples, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(plain.data(), plain.size(), &info), PCWT_OK);
    std::vector<uint8_t> cs(plain);
    const uint8_t r0[2] = {0, 0};
    cs.insert(cs.begin() + std::ptrdiff_t(info.header_length), r0, r0 + 2);
    info.planes[0].payload_length += 2;
    info.planes[0].offset = 1;
    pcwt_header_write(&info, cs.data());
    fix_crcs(cs, info);
    std::vector<uint8_t> out;
    std::string err;
    EXPECT_EQ(decode_cpu(cs, out, &err), PCWT_ERR_CORRUPT);
    EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

// Bit 3 where the format forbids it: the baseline and entropy profiles, a high-bit plane, planes
// under the colour transform.
TEST(Offset, BitThreeOutsideItsPlanesIsRefused)
{
    Rng rng(12);
    const uint32_t w = 24, h = 20;
    std::string err;
    std::vector<uint8_t> out;
    {
        const pcwt_image_desc d = make_desc(w, h, 1, 16, 12, false);
        const std::vector<uint8_t> samples = words(d, image_of(Pattern::TwosComplement, w, h, 1, 12, rng));
        for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY}) {
            pcwt_encode_params p = params(PCWT_OFFSET_ON);
            p.profile = profile;
            std::vector<uint8_t> cs = encode(d, samples, &p);
            pcwt_header_info info;
            ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
            EXPECT_EQ(info.planes[0].offset, 0u) << profile; // the encoder never sets it there
            cs[PCWT_HEADER_FIXED + 3] |= 8u;
            fix_crcs(cs, info);
            EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_ERR_CORRUPT) << profile;
            EXPECT_EQ(decode_cpu(cs, out, &err), PCWT_ERR_CORRUPT) << profile;
            EXPECT_NE(err.find("options"), std::string::npos) << err;
        }
    }
    {
        // Garbage above bits stored: a high-bit plane follows the value plane.
        const pcwt_image_desc d = make_desc(w, h, 1, 16, 12, false);
        Rng g(5);
        const std::vector<uint8_t> samples = words(d, image_of(Pattern::TwosComplement, w, h, 1, 12, rng), &g);
        const pcwt_encode_params p = params(PCWT_OFFSET_ON);
        std::vector<uint8_t> cs = encode(d, samples, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        ASSERT_EQ(info.plane_count, 2u);
        EXPECT_EQ(info.planes[0].offset, 1u);
        EXPECT_EQ(info.planes[1].offset, 0u);
        cs[PCWT_HEADER_FIXED + PCWT_PLANE_RECORD + 3] |= 8u;
        fix_crcs(cs, info);
        EXPECT_EQ(decode_cpu(cs, out, &err), PCWT_ERR_CORRUPT);
        EXPECT_NE(err.find("modular offset on a high-bit plane"), std::string::npos) << err;
    }
    {
        const pcwt_image_desc d = make_desc(w, h, 3, 8, 8, false);
        const std::vector<uint8_t> samples = words(d, image_of(Pattern::Palette, w, h, 3, 8, rng));
        const pcwt_encode_params p = params(PCWT_OFFSET_ON, PCWT_VALUE_MAP_AUTO, PCWT_COLOUR_RCT);
        std::vector<uint8_t> cs = encode(d, samples, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        ASSERT_EQ(info.colour_transform, 1u);
        EXPECT_EQ(info.planes[0].offset, 0u);
        cs[PCWT_HEADER_FIXED + 3] |= 8u;
        fix_crcs(cs, info);
        EXPECT_EQ(decode_cpu(cs, out, &err), PCWT_ERR_CORRUPT);
        EXPECT_NE(err.find("modular offset on a colour-transformed plane"), std::string::npos) << err;
    }
}

// Rows longer than the estimate's 32-bit partial sums (2^15 pairs), with costs near 2^16 a pair:
// the choice is still the model's.
TEST(Offset, LongRowsOfLargeSteps)
{
    const uint32_t w = 40000, h = 3;
    const pcwt_image_desc d = make_desc(w, h, 1, 16, 16, false);
    std::vector<uint32_t> u(size_t(w) * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) // 0 and 65535 alternating, a few values in between
            u[size_t(y) * w + x] = (x + y) % 7 == 3 ? 20000u + x % 5 : ((x + y) & 1) ? 65535u : 0u;
    const Choice c = model_estimate(u, w, h, 16, false);
    const std::vector<uint8_t> samples = words(d, u);
    for (pcwt_offset_mode mode : {PCWT_OFFSET_AUTO, PCWT_OFFSET_ON}) {
        const pcwt_encode_params p = params(mode, PCWT_VALUE_MAP_OFF);
        const std::vector<uint8_t> cs = encode(d, samples, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        ASSERT_EQ(info.planes[0].offset, mode == PCWT_OFFSET_ON || c.taken ? 1u : 0u);
        if (info.planes[0].offset)
            EXPECT_EQ(r0_of(cs, info, 0), c.r0);
        std::vector<uint8_t> back;
        std::string err;
        ASSERT_EQ(decode_cpu(cs, back, &err), PCWT_OK) << err;
        EXPECT_TRUE(back == samples);
    }
    EXPECT_TRUE(c.taken); // 65535 next to 0: the offset makes them neighbours
}

// Value maps forced on where map and payload exceed the plane's bound (tiny planes of random
// 16-bit values): the encoder codes the values, reloading the plane and applying the same offset.
TEST(Offset, MapDroppedForTheBoundKeepsTheOffset)
{
    Rng rng(13);
    int dropped = 0;
    for (uint32_t w = 1; w <= 8; w++)
        for (uint32_t h = 1; h <= 8; h++) {
            const pcwt_image_desc d = make_desc(w, h, 1, 16, 16, false);
            std::vector<uint32_t> u(size_t(w) * h);
            for (uint32_t &x : u)
                x = rng.next() & 0xFFFFu;
            const std::vector<uint8_t> samples = words(d, u);
            const pcwt_encode_params p = params(PCWT_OFFSET_ON, PCWT_VALUE_MAP_ON);
            pcwt_status st;
            std::string err;
            const std::vector<uint8_t> cs = encode(d, samples, &p, &st, &err);
            ASSERT_EQ(st, PCWT_OK) << w << "x" << h << ": " << err;
            EXPECT_LE(cs.size(), pcwt_encode_bound(&d));
            pcwt_header_info info;
            ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
            EXPECT_EQ(info.planes[0].offset, 1u);
            dropped += info.planes[0].value_map == 0;
            std::vector<uint8_t> back;
            ASSERT_EQ(decode_cpu(cs, back, &err), PCWT_OK) << w << "x" << h << ": " << err;
            EXPECT_TRUE(back == samples) << w << "x" << h;
        }
    EXPECT_GT(dropped, 0);
}
