// test_options.cpp - the encoder's and decoder's options (pcwt_*_set_option, by number and by
// name), the library's names for them, "same coding", and pcwt_encoder_set_params as a layer on
// the options: the same codestream whichever way an encoder is configured.
#include <gtest/gtest.h>

#include "pcwt.h"
#include "test_util.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using Enc = std::unique_ptr<pcwt_encoder, decltype(&pcwt_encoder_destroy)>;
using Dec = std::unique_ptr<pcwt_decoder, decltype(&pcwt_decoder_destroy)>;
Enc make_enc() { return Enc(pcwt_encoder_create(), pcwt_encoder_destroy); }
Dec make_dec() { return Dec(pcwt_decoder_create(), pcwt_decoder_destroy); }

int64_t get(const pcwt_encoder *e, pcwt_option o)
{
    int64_t v = -1;
    EXPECT_EQ(pcwt_encoder_get_option(e, o, &v), PCWT_OK);
    return v;
}

std::vector<uint8_t> code(pcwt_encoder *e, const pcwt_image_desc &d, const std::vector<uint8_t> &s)
{
    std::vector<uint8_t> out(pcwt_encode_bound(&d));
    size_t n = 0;
    EXPECT_EQ(pcwt_encode(e, &d, s.data(), s.size(), out.data(), out.size(), &n), PCWT_OK)
        << pcwt_encoder_last_error(e);
    out.resize(n);
    return out;
}

std::vector<uint8_t> noise(const pcwt_image_desc &d, uint64_t seed)
{
    std::vector<uint8_t> s(pcwt_image_size(&d));
    Rng r(seed);
    for (size_t i = 0; i < s.size(); i++)
        s[i] = static_cast<uint8_t>((i % 97) + (r.next() & 15));
    return s;
}

} // namespace

TEST(Options, DefaultsAreTheParamsDefaults)
{
    Enc e = make_enc();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    EXPECT_EQ(get(e.get(), PCWT_OPT_CODEC), p.codec);
    EXPECT_EQ(get(e.get(), PCWT_OPT_PROFILE), p.profile);
    EXPECT_EQ(get(e.get(), PCWT_OPT_LEVELS), PCWT_DEFAULT_LEVELS);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GROUP_ROWS), 0);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GROUP_COLS), 0);
    EXPECT_EQ(get(e.get(), PCWT_OPT_MIN_LL), PCWT_DEFAULT_MIN_LL);
    EXPECT_EQ(get(e.get(), PCWT_OPT_BACKEND), PCWT_BACKEND_AUTO);
    EXPECT_EQ(get(e.get(), PCWT_OPT_DEVICE), 0);
    int64_t v;
    EXPECT_EQ(pcwt_encoder_get_option(e.get(), PCWT_OPT_MAX_SAMPLES, &v), PCWT_ERR_INVALID_ARGUMENT);
}

TEST(Options, SetOptionCodesAsSetParams)
{
    const pcwt_image_desc d = make_desc(77, 53, 3, 8, 8, false);
    const std::vector<uint8_t> s = noise(d, 3);
    struct Case {
        pcwt_profile profile;
        uint32_t levels, gr, gc;
        pcwt_colour_transform colour;
        pcwt_low_bits low;
        pcwt_lifting_order lifting;
    } cases[] = {
        {PCWT_PROFILE_BASELINE, 6, 0, 0, PCWT_COLOUR_AUTO, PCWT_LOW_BITS_AUTO, PCWT_LIFTING_AUTO},
        {PCWT_PROFILE_ENTROPY, 6, 0, 0, PCWT_COLOUR_AUTO, PCWT_LOW_BITS_AUTO, PCWT_LIFTING_AUTO},
        {PCWT_PROFILE_ENTROPY, 3, 8, 4, PCWT_COLOUR_NONE, PCWT_LOW_BITS_ON, PCWT_LIFTING_ROWS_FIRST},
        {PCWT_PROFILE_BASELINE, 2, 16, 16, PCWT_COLOUR_RCT, PCWT_LOW_BITS_OFF,
         PCWT_LIFTING_COLUMNS_FIRST},
    };
    for (const Case &c : cases) {
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.profile = c.profile;
        p.levels = c.levels;
        p.group_rows = c.gr;
        p.group_cols = c.gc;
        p.colour_transform = c.colour;
        p.low_bits = c.low;
        p.lifting_order = c.lifting;
        p.backend = PCWT_BACKEND_CPU;
        Enc a = make_enc(), b = make_enc(), n = make_enc();
        ASSERT_EQ(pcwt_encoder_set_params(a.get(), &p), PCWT_OK);
        // options in another order than the struct's: the group size is resolved when coding
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_BACKEND, PCWT_BACKEND_CPU), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_GROUP_ROWS, c.gr), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_GROUP_COLS, c.gc), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_PROFILE, c.profile), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_LEVELS, c.levels), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_COLOUR_TRANSFORM, c.colour), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_LOW_BITS, c.low), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_LIFTING_ORDER, c.lifting), PCWT_OK);
        // and by name, as the tools set them
        ASSERT_EQ(pcwt_encoder_set_option_name(n.get(), "backend", "cpu"), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option_name(n.get(), "profile", pcwt_profile_name(c.profile)), PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option_name(n.get(), "levels", std::to_string(c.levels).c_str()), PCWT_OK);
        if (c.gr)
            ASSERT_EQ(pcwt_encoder_set_option_name(
                          n.get(), "group", (std::to_string(c.gr) + "x" + std::to_string(c.gc)).c_str()),
                      PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option_name(n.get(), "colour-transform",
                                               pcwt_option_value_name(PCWT_OPT_COLOUR_TRANSFORM, c.colour)),
                  PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option_name(n.get(), "low-bits",
                                               pcwt_option_value_name(PCWT_OPT_LOW_BITS, c.low)),
                  PCWT_OK);
        ASSERT_EQ(pcwt_encoder_set_option_name(n.get(), "lifting",
                                               pcwt_option_value_name(PCWT_OPT_LIFTING_ORDER, c.lifting)),
                  PCWT_OK);
        EXPECT_TRUE(pcwt_encoder_same_coding(a.get(), b.get()));
        EXPECT_TRUE(pcwt_encoder_same_coding(a.get(), n.get()));
        const std::vector<uint8_t> ca = code(a.get(), d, s);
        EXPECT_EQ(ca, code(b.get(), d, s));
        EXPECT_EQ(ca, code(n.get(), d, s));
    }
}

TEST(Options, JpeglsByOption)
{
    const pcwt_image_desc d = make_desc(40, 30, 3, 8, 8, false);
    const std::vector<uint8_t> s = noise(d, 5);
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.codec = PCWT_CODEC_JPEGLS;
    p.jpegls_interleave = 1;
    p.jpegls_restart_interval = 4;
    Enc a = make_enc(), b = make_enc();
    ASSERT_EQ(pcwt_encoder_set_params(a.get(), &p), PCWT_OK);
    ASSERT_EQ(pcwt_encoder_set_option_name(b.get(), "codec", "jpegls"), PCWT_OK);
    ASSERT_EQ(pcwt_encoder_set_option_name(b.get(), "jpegls-interleave", "line"), PCWT_OK);
    ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_JPEGLS_RESTART, 4), PCWT_OK);
    EXPECT_TRUE(pcwt_encoder_same_coding(a.get(), b.get()));
    EXPECT_EQ(code(a.get(), d, s), code(b.get(), d, s));
}

TEST(Options, SameCoding)
{
    Enc a = make_enc(), b = make_enc();
    EXPECT_TRUE(pcwt_encoder_same_coding(a.get(), b.get()));
    EXPECT_FALSE(pcwt_encoder_same_coding(a.get(), nullptr));
    // the profile's group size given explicitly is the same coding
    ASSERT_EQ(pcwt_encoder_set_option(a.get(), PCWT_OPT_PROFILE, PCWT_PROFILE_ENTROPY), PCWT_OK);
    EXPECT_FALSE(pcwt_encoder_same_coding(a.get(), b.get()));
    ASSERT_EQ(pcwt_encoder_set_option_name(b.get(), "profile", "entropy"), PCWT_OK);
    ASSERT_EQ(pcwt_encoder_set_option_name(b.get(), "group", "64x16"), PCWT_OK);
    EXPECT_TRUE(pcwt_encoder_same_coding(a.get(), b.get()));
    // the backend does not count
    ASSERT_EQ(pcwt_encoder_set_option(b.get(), PCWT_OPT_BACKEND, PCWT_BACKEND_CPU), PCWT_OK);
    EXPECT_TRUE(pcwt_encoder_same_coding(a.get(), b.get()));
    // every coding option does
    const pcwt_option coding[] = {PCWT_OPT_CODEC, PCWT_OPT_LEVELS, PCWT_OPT_GROUP_ROWS,
                                  PCWT_OPT_GROUP_COLS, PCWT_OPT_MIN_LL, PCWT_OPT_COLOUR_TRANSFORM,
                                  PCWT_OPT_LOW_BITS, PCWT_OPT_LIFTING_ORDER,
                                  PCWT_OPT_JPEGLS_INTERLEAVE, PCWT_OPT_JPEGLS_RESTART};
    for (pcwt_option o : coding) {
        Enc c = make_enc();
        ASSERT_EQ(pcwt_encoder_copy_coding(c.get(), a.get()), PCWT_OK);
        EXPECT_TRUE(pcwt_encoder_same_coding(c.get(), a.get()));
        const int64_t v = get(c.get(), o);
        ASSERT_EQ(pcwt_encoder_set_option(c.get(), o, v == 1 ? 2 : 1), PCWT_OK) << pcwt_option_name(o);
        EXPECT_FALSE(pcwt_encoder_same_coding(c.get(), a.get())) << pcwt_option_name(o);
    }
    // copy_coding leaves the backend
    Enc c = make_enc();
    ASSERT_EQ(pcwt_encoder_set_option(c.get(), PCWT_OPT_BACKEND, PCWT_BACKEND_CPU), PCWT_OK);
    ASSERT_EQ(pcwt_encoder_copy_coding(c.get(), a.get()), PCWT_OK);
    EXPECT_EQ(get(c.get(), PCWT_OPT_BACKEND), PCWT_BACKEND_CPU);
    EXPECT_EQ(get(c.get(), PCWT_OPT_PROFILE), PCWT_PROFILE_ENTROPY);
}

TEST(Options, RefusedValuesLeaveTheHandle)
{
    Enc e = make_enc();
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_LEVELS, PCWT_MAX_LEVELS + 1),
              PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pcwt_encoder_last_error(e.get())).find("levels"), std::string::npos);
    EXPECT_EQ(get(e.get(), PCWT_OPT_LEVELS), PCWT_DEFAULT_LEVELS);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_PROFILE, 7), PCWT_ERR_UNSUPPORTED);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GROUP_ROWS, PCWT_MAX_GROUP + 1),
              PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_MIN_LL, 0), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_MEMORY_LIMIT, 1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), static_cast<pcwt_option>(999), 1),
              PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_DEVICE, -1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option(nullptr, PCWT_OPT_LEVELS, 1), PCWT_ERR_INVALID_ARGUMENT);

    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "profile", "fast"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_encoder_last_error(e.get()), "profile 'fast': expected baseline, entropy or compact");
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "lifting", "diagonal"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_encoder_last_error(e.get()), "lifting 'diagonal': expected auto, rows or columns");
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "levels", "11"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_encoder_last_error(e.get()), "levels '11': expected a number in 0..10");
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "group", "64x"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "group", "0x16"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "speed", "11"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_encoder_last_error(e.get()), "unknown option 'speed'");
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "max-samples", "11"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GROUP_ROWS), 0);
    EXPECT_EQ(get(e.get(), PCWT_OPT_PROFILE), PCWT_PROFILE_COMPACT); // the default
    // numbers work for enum options too
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "profile", "1"), PCWT_OK);
    EXPECT_EQ(get(e.get(), PCWT_OPT_PROFILE), PCWT_PROFILE_ENTROPY);
    // set_params keeps its 0.1 checks
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.group_rows = 8;
    EXPECT_EQ(pcwt_encoder_set_params(e.get(), &p), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(get(e.get(), PCWT_OPT_PROFILE), PCWT_PROFILE_ENTROPY);
}

TEST(Options, GpuWithoutCudaIsRefused)
{
    if (pcwt_has_cuda())
        GTEST_SKIP() << "this build has CUDA";
    Enc e = make_enc();
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "backend", "gpu"), PCWT_ERR_BACKEND_UNAVAILABLE);
    EXPECT_EQ(get(e.get(), PCWT_OPT_BACKEND), PCWT_BACKEND_AUTO);
    Dec d = make_dec();
    EXPECT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_BACKEND, PCWT_BACKEND_GPU),
              PCWT_ERR_BACKEND_UNAVAILABLE);
    EXPECT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_DEVICE, 1), PCWT_ERR_BACKEND_UNAVAILABLE);
}

TEST(Options, Decoder)
{
    Dec d = make_dec();
    int64_t v = 0;
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_MAX_SAMPLES, &v), PCWT_OK);
    EXPECT_EQ(static_cast<uint64_t>(v), PCWT_MAX_SAMPLES);
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_MEMORY_LIMIT, &v), PCWT_OK);
    EXPECT_EQ(v, 0);
    ASSERT_EQ(pcwt_decoder_set_option_name(d.get(), "max-samples", "100"), PCWT_OK);
    ASSERT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_MEMORY_LIMIT, 1 << 20), PCWT_OK);
    ASSERT_EQ(pcwt_decoder_set_option_name(d.get(), "backend", "cpu"), PCWT_OK);
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_MAX_SAMPLES, &v), PCWT_OK);
    EXPECT_EQ(v, 100);
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_MEMORY_LIMIT, &v), PCWT_OK);
    EXPECT_EQ(v, 1 << 20);
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_BACKEND, &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_BACKEND_CPU);
    EXPECT_EQ(pcwt_decoder_backend(d.get()), PCWT_BACKEND_CPU);
    EXPECT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_MAX_SAMPLES, 0), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_PROFILE, 1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_decoder_set_option_name(d.get(), "profile", "entropy"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_decoder_last_error(d.get()), "'profile' is not a decoder option");
    EXPECT_EQ(pcwt_decoder_set_option_name(d.get(), "group", "8x8"), PCWT_ERR_INVALID_ARGUMENT);

    // the limit set by option is the one decoding uses
    const pcwt_image_desc desc = make_desc(20, 10, 1, 8, 8, false);
    const std::vector<uint8_t> s = noise(desc, 9);
    Enc e = make_enc();
    const std::vector<uint8_t> cs = code(e.get(), desc, s);
    std::vector<uint8_t> out(s.size());
    EXPECT_EQ(pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_LIMIT_EXCEEDED);
    ASSERT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_MAX_SAMPLES, 200), PCWT_OK);
    EXPECT_EQ(pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    EXPECT_EQ(out, s);
}

// e, whatever its GPU settings, codes as a handle with the defaults: "same coding", the same bytes.
static void expect_codes_as_the_default(pcwt_encoder *e)
{
    Enc plain = make_enc();
    EXPECT_TRUE(pcwt_encoder_same_coding(e, plain.get()));
    const pcwt_image_desc desc = make_desc(40, 30, 1, 16, 12, false);
    const std::vector<uint8_t> s = noise(desc, 3);
    EXPECT_EQ(code(e, desc, s), code(plain.get(), desc, s));
}

// gpu-chunks and gpu-memory-limit, on both handles: set by number and by name, refused out of range
// (the handle unchanged), and no part of the coding: the same bytes and "same coding" whatever
// they are.
TEST(Options, GpuChunksAndMemoryLimit)
{
    Enc e = make_enc();
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_CHUNKS), 0);
    ASSERT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GPU_CHUNKS, 5), PCWT_OK);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_CHUNKS), 5);
    ASSERT_EQ(pcwt_encoder_set_option_name(e.get(), "gpu-chunks", "11"), PCWT_OK);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_CHUNKS), 11);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GPU_CHUNKS, 65537), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(pcwt_encoder_last_error(e.get()), "gpu-chunks 65537 out of range: expected a number in 0..65536");
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GPU_CHUNKS, -1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_encoder_set_option_name(e.get(), "gpu-chunks", "many"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_CHUNKS), 11);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_MEMORY_LIMIT), 0);
    ASSERT_EQ(pcwt_encoder_set_option_name(e.get(), "gpu-memory-limit", "60000000"), PCWT_OK);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_MEMORY_LIMIT), 60000000);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GPU_MEMORY_LIMIT, -1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_MEMORY_LIMIT), 60000000);
    expect_codes_as_the_default(e.get());

    Dec d = make_dec();
    int64_t v = -1;
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_GPU_CHUNKS, &v), PCWT_OK);
    EXPECT_EQ(v, 0);
    ASSERT_EQ(pcwt_decoder_set_option_name(d.get(), "gpu-chunks", "7"), PCWT_OK);
    EXPECT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_GPU_CHUNKS, 65537), PCWT_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_GPU_CHUNKS, &v), PCWT_OK);
    EXPECT_EQ(v, 7);
    ASSERT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_GPU_MEMORY_LIMIT, 4096), PCWT_OK);
    EXPECT_EQ(pcwt_decoder_set_option_name(d.get(), "gpu-memory-limit", "-5"), PCWT_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_GPU_MEMORY_LIMIT, &v), PCWT_OK);
    EXPECT_EQ(v, 4096);
}

// gpu-bin-arena: the encoder's alone, set by number and by name, refused below 0 (the handle
// unchanged), no part of the coding; the decoder refuses it.
TEST(Options, GpuBinArena)
{
    Enc e = make_enc();
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_BIN_ARENA), 0);
    ASSERT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GPU_BIN_ARENA, 300000), PCWT_OK);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_BIN_ARENA), 300000);
    ASSERT_EQ(pcwt_encoder_set_option_name(e.get(), "gpu-bin-arena", "2000000"), PCWT_OK);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_BIN_ARENA), 2000000);
    EXPECT_EQ(pcwt_encoder_set_option(e.get(), PCWT_OPT_GPU_BIN_ARENA, -1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_BIN_ARENA), 2000000);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_CHUNKS), 0);
    EXPECT_EQ(get(e.get(), PCWT_OPT_GPU_MEMORY_LIMIT), 0);
    expect_codes_as_the_default(e.get());

    Dec d = make_dec();
    int64_t v = -1;
    EXPECT_EQ(pcwt_decoder_set_option(d.get(), PCWT_OPT_GPU_BIN_ARENA, 1000), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_decoder_set_option_name(d.get(), "gpu-bin-arena", "1000"), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_decoder_get_option(d.get(), PCWT_OPT_GPU_BIN_ARENA, &v), PCWT_ERR_INVALID_ARGUMENT);
}

TEST(Options, Names)
{
    EXPECT_STREQ(pcwt_profile_name(PCWT_PROFILE_BASELINE), "baseline");
    EXPECT_STREQ(pcwt_profile_name(PCWT_PROFILE_ENTROPY), "entropy");
    EXPECT_STREQ(pcwt_profile_name(static_cast<pcwt_profile>(9)), "unknown");
    EXPECT_STREQ(pcwt_codec_name(PCWT_CODEC_JPEGLS), "jpegls");
    EXPECT_STREQ(pcwt_backend_name(PCWT_BACKEND_GPU), "gpu");
    EXPECT_STREQ(pcwt_option_name(PCWT_OPT_COLOUR_TRANSFORM), "colour-transform");
    EXPECT_EQ(pcwt_option_name(static_cast<pcwt_option>(0)), nullptr);
    EXPECT_EQ(pcwt_option_value_name(PCWT_OPT_LEVELS, 3), nullptr);
    char buf[64];
    EXPECT_EQ(pcwt_option_choices(PCWT_OPT_LIFTING_ORDER, "|", buf, sizeof buf), strlen("auto|rows|columns"));
    EXPECT_STREQ(buf, "auto|rows|columns");
    EXPECT_EQ(pcwt_option_choices(PCWT_OPT_PROFILE, ", ", buf, 6), strlen("baseline, entropy, compact"));
    EXPECT_STREQ(buf, "basel");
    EXPECT_EQ(pcwt_option_choices(PCWT_OPT_LEVELS, "|", buf, sizeof buf), 0u);
    pcwt_option o;
    ASSERT_EQ(pcwt_option_from_name("low-bits", &o), PCWT_OK);
    EXPECT_EQ(o, PCWT_OPT_LOW_BITS);
    EXPECT_EQ(pcwt_option_from_name("group", &o), PCWT_ERR_INVALID_ARGUMENT);
    int64_t v;
    ASSERT_EQ(pcwt_option_parse(PCWT_OPT_LOW_BITS, "on", &v), PCWT_OK);
    EXPECT_EQ(v, PCWT_LOW_BITS_ON);
    ASSERT_EQ(pcwt_option_parse(PCWT_OPT_MEMORY_LIMIT, "123456789012", &v), PCWT_OK);
    EXPECT_EQ(v, 123456789012LL);
    EXPECT_EQ(pcwt_option_parse(PCWT_OPT_LEVELS, "-1", &v), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_option_parse(PCWT_OPT_LEVELS, "", &v), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_option_parse(PCWT_OPT_LEVELS, "1 ", &v), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_option_parse(PCWT_OPT_MEMORY_LIMIT, "99999999999999999999", &v),
              PCWT_ERR_INVALID_ARGUMENT);
}

TEST(Options, HeaderPlane)
{
    const pcwt_image_desc d = make_desc(20, 10, 3, 16, 12, false);
    std::vector<uint8_t> s(pcwt_image_size(&d), 0);
    s[1] = 0x80; // one sample with bits above bits_stored: component 0 gets a high-bit plane
    Enc e = make_enc();
    const std::vector<uint8_t> cs = code(e.get(), d, s);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.plane_count, 4u);
    pcwt_plane_info pl;
    ASSERT_EQ(pcwt_header_plane(&info, 1, &pl), PCWT_OK);
    EXPECT_EQ(pl.component, 0u);
    EXPECT_EQ(pl.kind, 1u);
    EXPECT_EQ(pl.payload_length, info.planes[1].payload_length);
    EXPECT_EQ(pcwt_header_plane(&info, 4, &pl), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_header_plane(nullptr, 0, &pl), PCWT_ERR_INVALID_ARGUMENT);
}
