// The container: header fields, and rejection of corrupted codestreams (every single-bit flip,
// every truncation, absurd header values behind a valid header CRC, re-checksummed payload
// damage) with an error, never a crash or an over-read (run under ASan in CI).
#include <gtest/gtest.h>

extern "C" {
#include "container.h"
}
#include "test_util.h"

namespace {

std::vector<uint8_t> sample_stream(pcwt_image_desc *out_desc = nullptr)
{
    const pcwt_image_desc d = make_desc(23, 17, 3, 16, 12, true, true);
    std::vector<uint8_t> img(pcwt_image_size(&d));
    Rng rng(12);
    for (size_t k = 0; k < img.size(); k += 2) {
        const uint16_t w = static_cast<uint16_t>(rng.below(4096) | (rng.below(9) == 0 ? 0x3000 : 0));
        std::memcpy(&img[k], &w, 2);
    }
    if (out_desc)
        *out_desc = d;
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.profile = PCWT_PROFILE_BASELINE;
    p.levels = 2;
    p.group_rows = 3;
    p.group_cols = 2;
    return encode(d, img, &p);
}

void fix_header_crc(std::vector<uint8_t> &cs)
{
    const size_t hs = cs[6] | cs[7] << 8;
    const uint32_t crc = pcwt_crc32(cs.data(), hs - 4);
    for (int k = 0; k < 4; k++)
        cs[hs - 4 + k] = static_cast<uint8_t>(crc >> (8 * k));
}

TEST(Container, HeaderFields)
{
    pcwt_image_desc d;
    const auto cs = sample_stream(&d);
    ASSERT_FALSE(cs.empty());
    EXPECT_EQ(std::memcmp(cs.data(), "PCWT", 4), 0);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    EXPECT_EQ(info.format_version, static_cast<uint32_t>(PCWT_FORMAT_VERSION));
    EXPECT_EQ(info.profile, PCWT_PROFILE_BASELINE);
    EXPECT_EQ(info.desc.width, 23u);
    EXPECT_EQ(info.desc.height, 17u);
    EXPECT_EQ(info.desc.components, 3u);
    EXPECT_EQ(info.desc.bits_allocated, 16u);
    EXPECT_EQ(info.desc.bits_stored, 12u);
    EXPECT_EQ(info.desc.is_signed, 1u);
    EXPECT_EQ(info.desc.planar, 1u);
    EXPECT_EQ(info.levels, 2u);
    EXPECT_EQ(info.group_rows, 3u);
    EXPECT_EQ(info.group_cols, 2u);
    EXPECT_EQ(info.plane_count, 6u); // every component has garbage above bit 12
    EXPECT_EQ(info.header_length, pcwt_header_size(6));
    EXPECT_EQ(info.codestream_length, cs.size());
    uint64_t sum = info.header_length;
    for (uint32_t i = 0; i < info.plane_count; i++) {
        EXPECT_EQ(info.planes[i].component, i / 2);
        EXPECT_EQ(info.planes[i].kind, i % 2);
        sum += info.planes[i].payload_length;
    }
    EXPECT_EQ(sum, cs.size());
}

TEST(Container, EverySingleBitFlipIsRejected)
{
    const auto good = sample_stream();
    std::vector<uint8_t> out;
    for (size_t i = 0; i < good.size(); i++)
        for (int bit = 0; bit < 8; bit++) {
            auto bad = good;
            bad[i] ^= static_cast<uint8_t>(1u << bit);
            ASSERT_NE(decode(bad, out), PCWT_OK) << "flip at byte " << i << " bit " << bit;
        }
}

TEST(Container, EveryTruncationIsRejected)
{
    const auto good = sample_stream();
    pcwt_decoder *d = pcwt_decoder_create();
    std::vector<uint8_t> out(pcwt_image_size(&(const pcwt_image_desc &)make_desc(23, 17, 3, 16, 12, true, true)));
    for (size_t n = 0; n < good.size(); n++) {
        std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
        // an exact-size heap copy so that ASan catches any read past the end
        const pcwt_status s = pcwt_decode(d, cut.data(), cut.size(), out.data(), out.size());
        ASSERT_NE(s, PCWT_OK) << "length " << n;
        if (n >= 4)
            EXPECT_TRUE(s == PCWT_ERR_TRUNCATED) << "length " << n << ": " << pcwt_status_string(s);
    }
    pcwt_decoder_destroy(d);
}

struct Patch { size_t offset; std::vector<uint8_t> bytes; pcwt_status expect; const char *what; };

TEST(Container, AbsurdHeaderValuesAreRejected)
{
    const auto good = sample_stream();
    const size_t rec = PCWT_HEADER_FIXED; // first plane record
    const Patch patches[] = {
        {0, {'P', 'C', 'W', 'X'}, PCWT_ERR_BAD_MAGIC, "magic"},
        {4, {2}, PCWT_ERR_BAD_VERSION, "version"},
        {5, {7}, PCWT_ERR_BAD_VERSION, "profile"},
        {6, {200, 0}, PCWT_ERR_CORRUPT, "header size"},
        {8, {0, 0, 0, 0}, PCWT_ERR_CORRUPT, "width 0"},
        {8, {0, 0, 1, 0}, PCWT_ERR_CORRUPT, "width 65536"},
        {12, {0xff, 0xff, 0xff, 0xff}, PCWT_ERR_CORRUPT, "height 2^32-1"},
        {16, {2}, PCWT_ERR_CORRUPT, "2 components"},
        {17, {12}, PCWT_ERR_CORRUPT, "12 bits allocated"},
        {18, {17}, PCWT_ERR_CORRUPT, "17 bits stored"},
        {18, {0}, PCWT_ERR_CORRUPT, "0 bits stored"},
        {19, {0x80}, PCWT_ERR_CORRUPT, "unknown flag"},
        {19, {0x10}, PCWT_ERR_CORRUPT, "reserved flag bit 4"},
        {20, {11}, PCWT_ERR_CORRUPT, "11 levels"},
        {21, {7}, PCWT_ERR_CORRUPT, "7 planes"},
        {22, {0, 0}, PCWT_ERR_CORRUPT, "group rows 0"},
        {24, {1, 1}, PCWT_ERR_CORRUPT, "group cols 257"},
        {rec + 0, {5}, PCWT_ERR_CORRUPT, "component 5"},
        {rec + 1, {1}, PCWT_ERR_CORRUPT, "high-bit plane first"},
        {rec + 2, {31}, PCWT_ERR_CORRUPT, "Qmax 31"},
        {rec + 2, {0xfe}, PCWT_ERR_CORRUPT, "Qmax -2"},
        {rec + 4, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, PCWT_ERR_CORRUPT, "payload 2^64-1"},
    };
    std::vector<uint8_t> out;
    for (const Patch &p : patches) {
        auto bad = good;
        std::memcpy(&bad[p.offset], p.bytes.data(), p.bytes.size());
        if (p.offset >= 4)
            fix_header_crc(bad);
        pcwt_header_info info;
        EXPECT_EQ(pcwt_read_header(bad.data(), bad.size(), &info), p.expect) << p.what;
        EXPECT_EQ(decode(bad, out), p.expect) << p.what;
    }
}

TEST(Container, RechecksummedPayloadDamageNeverCrashes)
{
    // With the CRCs recomputed, damage reaches the group decoder: it must fail cleanly or
    // decode something in range, never crash (ASan/UBSan in CI).
    const auto good = sample_stream();
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
    Rng rng(13);
    std::vector<uint8_t> out;
    int rejected = 0;
    for (int t = 0; t < 3000; t++) {
        auto bad = good;
        const size_t pos = info.header_length + rng.below(static_cast<uint32_t>(good.size() - info.header_length));
        bad[pos] ^= static_cast<uint8_t>(1 + rng.below(255));
        size_t off = info.header_length;
        for (uint32_t i = 0; i < info.plane_count; i++) {
            const size_t len = static_cast<size_t>(info.planes[i].payload_length);
            const uint32_t crc = pcwt_crc32(&bad[off], len);
            uint8_t *r = &bad[PCWT_HEADER_FIXED + PCWT_PLANE_RECORD * i + 12];
            for (int k = 0; k < 4; k++) r[k] = static_cast<uint8_t>(crc >> (8 * k));
            off += len;
        }
        fix_header_crc(bad);
        if (decode(bad, out) != PCWT_OK)
            rejected++;
    }
    EXPECT_GT(rejected, 1000) << "most structural damage should be detected even without CRCs";
}

TEST(Container, DecoderLimitsAndBuffers)
{
    pcwt_image_desc d;
    const auto cs = sample_stream(&d);
    pcwt_decoder *dec = pcwt_decoder_create();
    std::vector<uint8_t> out(pcwt_image_size(&d));
    ASSERT_EQ(pcwt_decoder_set_max_samples(dec, 23 * 17 * 3 - 1), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_LIMIT_EXCEEDED);
    EXPECT_NE(std::string(pcwt_decoder_last_error(dec)), "");
    ASSERT_EQ(pcwt_decoder_set_max_samples(dec, 23 * 17 * 3), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size() - 1), PCWT_ERR_BUFFER_TOO_SMALL);
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, nullptr, 0, out.data(), out.size()), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_decoder_destroy(dec);
}

TEST(Api, ParameterAndArgumentValidation)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    EXPECT_EQ(p.levels, 6u);
    EXPECT_EQ(p.group_rows, 0u); // the profile's size
    EXPECT_EQ(p.group_cols, 0u);
    EXPECT_EQ(p.lifting_order, PCWT_LIFTING_AUTO);
    p.levels = PCWT_MAX_LEVELS + 1;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pcwt_encoder_last_error(e)), "");
    pcwt_encode_params_default(&p);
    p.group_rows = 8; // one side 0, the other not
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_INVALID_ARGUMENT);
    p.group_rows = PCWT_MAX_GROUP + 1;
    p.group_cols = 8;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encode_params_default(&p);
    p.lifting_order = static_cast<pcwt_lifting_order>(3);
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encode_params_default(&p);
    p.profile = static_cast<pcwt_profile>(9);
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_ERR_UNSUPPORTED);

    uint8_t px[4] = {1, 2, 3, 4}, out[256];
    size_t written = 0;
    pcwt_image_desc d = make_desc(2, 2, 1, 8, 8, false);
    EXPECT_EQ(pcwt_encode(e, &d, px, 3, out, sizeof out, &written), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encode(e, &d, px, 4, out, 10, &written), PCWT_ERR_BUFFER_TOO_SMALL);
    EXPECT_EQ(pcwt_encode(e, nullptr, px, 4, out, sizeof out, &written), PCWT_ERR_INVALID_ARGUMENT);
    d.bits_allocated = 32;
    EXPECT_EQ(pcwt_encode(e, &d, px, 4, out, sizeof out, &written), PCWT_ERR_UNSUPPORTED);
    EXPECT_EQ(pcwt_image_size(&d), 0u);
    EXPECT_EQ(pcwt_encode_bound(&d), 0u);
    d = make_desc(0, 2, 1, 8, 8, false);
    EXPECT_EQ(pcwt_encode(e, &d, px, 0, out, sizeof out, &written), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_status_string(PCWT_OK), "success");
    EXPECT_STREQ(pcwt_version_string(), PCWT_VERSION_STRING);
    pcwt_encoder_destroy(e);
}

TEST(Api, EncodeBoundAlwaysSuffices)
{
    // Worst case for the coder: full-range noise, tiny groups, all levels.
    Rng rng(14);
    for (uint32_t bits : {8u, 16u}) {
        const pcwt_image_desc d = make_desc(67, 45, 1, bits, bits, false);
        std::vector<uint8_t> img(pcwt_image_size(&d));
        for (auto &b : img) b = static_cast<uint8_t>(rng.next());
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.group_rows = p.group_cols = 1;
        p.min_ll = 1;
        p.levels = PCWT_MAX_LEVELS;
        pcwt_status st;
        const auto cs = encode(d, img, &p, &st);
        EXPECT_EQ(st, PCWT_OK);
        EXPECT_LE(cs.size(), pcwt_encode_bound(&d));
    }
}

} // namespace
