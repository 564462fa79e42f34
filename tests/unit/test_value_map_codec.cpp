// Value maps through the codec (the compact profile, docs/FORMAT.md Sec. 5.5): synthetic planes of 2-16 bits, signed and
// unsigned, with 1, 2, sparse, dense and 65536 distinct values, round-tripped exactly with value
// maps on, off and automatic (and the plane's option bit as the encoder decided); colour and
// high-bit planes; the baseline and entropy profiles never map (their bytes stay those of
// earlier versions); damaged maps, ranks outside the map and value maps in the entropy profile
// refused with a clear error.
#include <gtest/gtest.h>

extern "C" {
#include "value_map.h"
}
#include "recrc.h"
#include "test_util.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

pcwt_encode_params compact(pcwt_value_map_mode mode)
{
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    p.profile = PCWT_PROFILE_COMPACT;
    p.value_map = mode;
    p.offset = PCWT_OFFSET_OFF; // the maps' own bytes, as the offset would change them
    return p;
}

// Words of a frame whose values are drawn from `values`, smoothly: a ramp over the value list
// with noise, so that neighbouring samples tend to have neighbouring ranks.
std::vector<uint8_t> frame_of(const pcwt_image_desc &d, const std::vector<int32_t> &values, Rng &rng)
{
    const size_t n = static_cast<size_t>(d.width) * d.height * d.components;
    std::vector<uint8_t> out(n * (d.bits_allocated / 8));
    const uint32_t mask = d.bits_allocated == 16 ? 0xFFFFu : 0xFFu;
    for (size_t i = 0; i < n; i++) {
        const size_t px = i / d.components;
        const size_t x = px % d.width, y = px / d.width;
        size_t k = (x * 7 + y * 3 + rng.below(5)) % values.size();
        if (i < values.size())
            k = i; // every value at least once
        const uint32_t w = static_cast<uint32_t>(values[k]) & mask;
        if (d.bits_allocated == 16) {
            out[2 * i] = static_cast<uint8_t>(w);
            out[2 * i + 1] = static_cast<uint8_t>(w >> 8);
        } else {
            out[i] = static_cast<uint8_t>(w);
        }
    }
    return out;
}

// Round trip in each mode; returns the plane-0 option bit of each (auto, off, on).
std::vector<uint32_t> round_trips(const pcwt_image_desc &d, const std::vector<uint8_t> &samples)
{
    std::vector<uint32_t> mapped;
    for (pcwt_value_map_mode mode : {PCWT_VALUE_MAP_AUTO, PCWT_VALUE_MAP_OFF, PCWT_VALUE_MAP_ON}) {
        const pcwt_encode_params p = compact(mode);
        pcwt_status st;
        std::string err;
        const std::vector<uint8_t> cs = encode(d, samples, &p, &st, &err);
        EXPECT_EQ(st, PCWT_OK) << err;
        if (st != PCWT_OK)
            return mapped;
        EXPECT_LE(cs.size(), pcwt_encode_bound(&d));
        std::vector<uint8_t> back;
        EXPECT_EQ(decode(cs, back, &err), PCWT_OK) << err;
        EXPECT_TRUE(back == samples) << "mode " << mode << ": decoded samples differ";
        pcwt_header_info info;
        EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        mapped.push_back(info.planes[0].value_map);
        if (mode == PCWT_VALUE_MAP_OFF)
            for (uint32_t i = 0; i < info.plane_count; i++)
                EXPECT_EQ(info.planes[i].value_map, 0u);
    }
    return mapped;
}

std::vector<int32_t> range_values(int32_t lo, int32_t hi, int32_t step)
{
    std::vector<int32_t> v;
    for (int64_t x = lo; x <= hi; x += step)
        v.push_back(static_cast<int32_t>(x));
    return v;
}

} // namespace

TEST(ValueMapCodec, BitDepthsSignsAndSets)
{
    Rng rng(31);
    for (uint32_t bits = 2; bits <= 16; bits++)
        for (bool sgn : {false, true}) {
            const uint32_t alloc = bits <= 8 ? 8 : 16;
            const pcwt_image_desc d = make_desc(45, 37, 1, alloc, bits, sgn);
            const int32_t lo = sgn ? -(1 << (bits - 1)) : 0;
            const int32_t hi = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
            SCOPED_TRACE("bits " + std::to_string(bits) + (sgn ? " signed" : " unsigned"));
            // one value, two values (the extremes), sparse (every 3rd), dense (the whole range)
            const std::vector<std::vector<int32_t>> sets = {
                {lo + (hi - lo) / 3}, {lo, hi}, range_values(lo, hi, 3), range_values(lo, hi, 1)};
            for (size_t k = 0; k < sets.size(); k++) {
                const std::vector<uint32_t> m = round_trips(d, frame_of(d, sets[k], rng));
                ASSERT_EQ(m.size(), 3u);
                EXPECT_EQ(m[1], 0u);
                EXPECT_EQ(m[2], 1u) << "forced on";
                if (k == 0 || (k == 2 && hi - lo >= 6))
                    EXPECT_EQ(m[0], 1u) << "set " << k << ": a constant or sparse plane is mapped";
            }
        }
}

TEST(ValueMapCodec, SixtyFiveThousandValues)
{
    Rng rng(32);
    for (bool sgn : {false, true}) {
        const pcwt_image_desc d = make_desc(300, 256, 1, 16, 16, sgn);
        std::vector<int32_t> all = range_values(sgn ? -32768 : 0, sgn ? 32767 : 65535, 1);
        const std::vector<uint32_t> m = round_trips(d, frame_of(d, all, rng));
        ASSERT_EQ(m.size(), 3u);
        EXPECT_EQ(m[0], 0u) << "every value used: nothing to compact";
        // 65536 values spread over a sparse lattice of a 16-bit range cannot exist; half of them:
        std::vector<int32_t> even = range_values(sgn ? -32768 : 0, sgn ? 32766 : 65534, 2);
        EXPECT_EQ(round_trips(d, frame_of(d, even, rng)).at(0), 1u);
    }
}

TEST(ValueMapCodec, ColourAndHighBitPlanes)
{
    Rng rng(33);
    // RGB with the colour transform: the maps are of the transformed planes.
    pcwt_image_desc d = make_desc(40, 30, 3, 8, 8, false);
    round_trips(d, frame_of(d, range_values(0, 255, 5), rng));
    d.planar = 1;
    round_trips(d, frame_of(d, range_values(10, 200, 7), rng));
    // 12 bits stored in 16 with other bits above: a high-bit plane beside the value plane.
    d = make_desc(33, 20, 1, 16, 12, false);
    std::vector<uint8_t> s = frame_of(d, range_values(0, 4095, 4), rng);
    for (size_t i = 1; i < s.size(); i += 2)
        s[i] = static_cast<uint8_t>(s[i] | ((i % 3) << 4));
    round_trips(d, s);
}

TEST(ValueMapCodec, OnlyTheCompactProfileMaps)
{
    Rng rng(34);
    const pcwt_image_desc d = make_desc(32, 32, 1, 16, 12, false);
    const std::vector<uint8_t> s = frame_of(d, {0, 4000}, rng);
    std::vector<uint8_t> ranged;
    for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT}) {
        pcwt_encode_params p = compact(PCWT_VALUE_MAP_ON);
        p.profile = profile;
        const std::vector<uint8_t> cs = encode(d, s, &p);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
        EXPECT_EQ(info.profile, profile);
        EXPECT_EQ(info.planes[0].value_map, profile == PCWT_PROFILE_COMPACT ? 1u : 0u);
        std::vector<uint8_t> back;
        EXPECT_EQ(decode(cs, back), PCWT_OK);
        EXPECT_TRUE(back == s);
        if (profile == PCWT_PROFILE_ENTROPY)
            ranged = cs;
    }
    // Without maps the compact profile writes the entropy profile's bytes but for the profile.
    pcwt_encode_params p = compact(PCWT_VALUE_MAP_OFF);
    std::vector<uint8_t> cs = encode(d, s, &p);
    ASSERT_EQ(cs.size(), ranged.size());
    EXPECT_EQ(cs[5], PCWT_PROFILE_COMPACT);
    cs[5] = PCWT_PROFILE_ENTROPY;
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(ranged.data(), ranged.size(), &info), PCWT_OK);
    const auto crc = static_cast<std::ptrdiff_t>(info.header_length - 4); // the header CRC differs
    EXPECT_TRUE(std::equal(cs.begin(), cs.begin() + crc, ranged.begin()));
    EXPECT_TRUE(std::equal(cs.begin() + crc + 4, cs.end(), ranged.begin() + crc + 4));
}

TEST(ValueMapCodec, OptionByName)
{
    pcwt_encoder *e = pcwt_encoder_create();
    ASSERT_NE(e, nullptr);
    int64_t v = -1;
    EXPECT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_VALUE_MAP, &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_VALUE_MAP_AUTO);
    EXPECT_EQ(pcwt_encoder_set_option_name(e, "value-map", "off"), PCWT_OK);
    EXPECT_EQ(pcwt_encoder_get_option(e, PCWT_OPT_VALUE_MAP, &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_VALUE_MAP_OFF);
    EXPECT_EQ(pcwt_encoder_set_option_name(e, "value-map", "sometimes"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_VALUE_MAP, 3), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encoder_destroy(e);
}

TEST(ValueMapCodec, DamagedMapsAreRefused)
{
    Rng rng(35);
    const pcwt_image_desc d = make_desc(64, 48, 1, 16, 12, true);
    std::vector<int32_t> vals = range_values(-2000, 2000, 5);
    vals.insert(vals.begin(), -2048); // padding-like
    const std::vector<uint8_t> samples = frame_of(d, vals, rng);
    const pcwt_encode_params p = compact(PCWT_VALUE_MAP_ON);
    const std::vector<uint8_t> good = encode(d, samples, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].value_map, 1u);
    const size_t at = info.header_length; // the map starts the payload
    std::vector<uint8_t> out;
    std::string err;
    // The count made larger than the plane's samples (3072): refused before allocating.
    std::vector<uint8_t> cs = good;
    ASSERT_GE(cs[at], 0x80); // its LEB128 count takes two bytes (802 values)
    ASSERT_LT(cs[at + 1], 0x80);
    std::vector<uint8_t> big(cs.begin(), cs.begin() + static_cast<std::ptrdiff_t>(at));
    const uint8_t count[] = {0x80, 0x80, 0x01}; // 16384 values
    big.insert(big.end(), count, count + 3);
    big.insert(big.end(), cs.begin() + static_cast<std::ptrdiff_t>(at) + 2, cs.end());
    // (the payload length in the record grows by one byte)
    pcwt_header_info bi = info;
    bi.planes[0].payload_length += 1;
    pcwt_header_write(&bi, big.data());
    fix_crcs(big, bi);
    EXPECT_EQ(decode(big, out, &err), PCWT_ERR_CORRUPT);
    EXPECT_NE(err.find("value map"), std::string::npos) << err;
    // Every byte of the map's stream damaged in turn: a clear error or, where the range coder's
    // slack hides the change, the original samples; never a crash (ASan/UBSan builds).
    const size_t map_end = at + 16;
    int refused = 0;
    for (size_t i = at; i < map_end && i < good.size(); i++) {
        cs = good;
        cs[i] ^= 0x24;
        fix_crcs(cs, info);
        const pcwt_status st = decode(cs, out, &err);
        if (st != PCWT_OK) {
            refused++;
            EXPECT_EQ(st, PCWT_ERR_CORRUPT) << "byte " << i;
            EXPECT_FALSE(err.empty());
        }
    }
    EXPECT_GT(refused, 0);
    // Option bit 1 is the compact profile's: refused in an entropy or baseline codestream (as a
    // decoder without value maps refuses the compact profile itself: an unknown profile).
    for (pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY}) {
        pcwt_encode_params q = compact(PCWT_VALUE_MAP_OFF);
        q.profile = profile;
        cs = encode(d, samples, &q);
        pcwt_header_info ci;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &ci), PCWT_OK);
        cs[PCWT_HEADER_FIXED + 3] = 2;
        fix_crcs(cs, ci);
        EXPECT_EQ(pcwt_read_header(cs.data(), cs.size(), &ci), PCWT_ERR_CORRUPT) << profile;
    }
}

TEST(ValueMapCodec, RankOutsideTheMapIsRefused)
{
    // Two values mapped to ranks 0 and 1; the map rewritten to hold one value: rank 1 is outside.
    const pcwt_image_desc d = make_desc(16, 16, 1, 8, 8, false);
    std::vector<uint8_t> s(256, 10);
    s[77] = 200;
    const pcwt_encode_params p = compact(PCWT_VALUE_MAP_ON);
    std::vector<uint8_t> cs = encode(d, s, &p);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    const size_t at = info.header_length;
    // map: count 2, zigzag(10) = 20, A, stream; replaced by count 1, value 10, no stream
    ASSERT_EQ(cs[at], 2);
    ASSERT_EQ(cs[at + 1], 20);
    const size_t alen = cs[at + 2];
    std::vector<uint8_t> t(cs.begin(), cs.begin() + static_cast<std::ptrdiff_t>(at));
    const uint8_t one[] = {1, 20, 0};
    t.insert(t.end(), one, one + 3);
    t.insert(t.end(), cs.begin() + static_cast<std::ptrdiff_t>(at + 3 + alen), cs.end());
    info.planes[0].payload_length -= alen;
    pcwt_header_write(&info, t.data());
    fix_crcs(t, info);
    std::vector<uint8_t> out;
    std::string err;
    EXPECT_EQ(decode(t, out, &err), PCWT_ERR_CORRUPT);
    EXPECT_NE(err.find("rank"), std::string::npos) << err;
}
