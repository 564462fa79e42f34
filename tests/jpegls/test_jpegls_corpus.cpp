// Every grey and RGB frame of the shared test corpus (exported by the corpus_export fixture, see
// tests/corpus/corpus.cmake) through libpcwt's JPEG-LS encoder: the codestream must equal CharLS
// 2.4.1's byte for byte (RGB in each interleave mode) and CharLS must decode it to the input.
// Frames with bits above BitsStored that are not the plain zero/sign extension must be refused
// (JPEG-LS cannot carry them), and are never handed to CharLS (which would silently mask them).
//
// Environment overrides: see corpus_gtest.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "corpus_gtest.hpp"
#include "jpegls_test_util.hpp"

namespace {

using pcwt_corpus::Frame;
using pcwt_corpus::manifest;

// Samples whose bits above bits_stored are neither zero nor (signed) the sign extension.
size_t garbage_high_bits(const pcwt_image_desc &d, const std::vector<unsigned char> &samples)
{
    if (d.bits_stored >= d.bits_allocated)
        return 0;
    const size_t n = samples.size() / (d.bits_allocated / 8);
    const uint32_t mask = (1u << d.bits_stored) - 1u;
    const uint32_t high = ((1u << d.bits_allocated) - 1u) & ~mask;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t w = pcwt_corpus::word_at(d, samples.data(), i);
        const bool negative = d.is_signed && ((w >> (d.bits_stored - 1)) & 1u);
        if ((w & high) != (negative ? high : 0u))
            ++count;
    }
    return count;
}

TEST(jpegls, CorpusEveryFrameMatchesCharLS)
{
    REQUIRE_CORPUS();
    size_t frames = 0, encodes = 0, refused_high_bits = 0, refused_one_bit = 0, other = 0;
    for (const Frame &fr : manifest().frames) {
        const pcwt_image_desc &d = fr.desc;
        if (d.components != 1 && d.components != 3) {
            ++other;
            continue;
        }
        ++frames;
        jls_test::Image img;
        img.desc = d;
        const std::string load = pcwt_corpus::load_raw(fr, &img.bytes);
        if (!load.empty()) {
            ADD_FAILURE() << fr.name() << ": " << load;
            continue;
        }
        const size_t garbage = garbage_high_bits(d, img.bytes);
        if (garbage > 0 || d.bits_stored < 2) {
            const jls_test::Ours ours = jls_test::pcwt_jls_encode(img, 0);
            EXPECT_EQ(ours.status, PCWT_ERR_UNSUPPORTED) << fr.name();
            const char *expected = garbage > 0
                                       ? "bits above BitsStored are set; JPEG-LS cannot preserve them"
                                       : "at least 2 bits";
            EXPECT_NE(ours.message.find(expected), std::string::npos) << fr.name() << ": " << ours.message;
            ++(garbage > 0 ? refused_high_bits : refused_one_bit);
            continue; // never handed to CharLS, which would drop the high bits silently
        }
        const std::vector<uint32_t> modes =
            d.components == 3 ? std::vector<uint32_t>{0, 1, 2} : std::vector<uint32_t>{0};
        for (const uint32_t ilv : modes) {
            const jls_test::Ours ours = jls_test::pcwt_jls_encode(img, ilv);
            if (ours.status != PCWT_OK) {
                ADD_FAILURE() << fr.name() << " interleave " << ilv << ": "
                              << pcwt_status_string(ours.status) << ": " << ours.message;
                continue;
            }
            const jls_test::Coded ref = jls_test::charls_encode(img, ilv);
            ASSERT_EQ(ref.error, "") << fr.name();
            const long diff = jls_test::first_difference(ours.bytes, ref.bytes);
            EXPECT_EQ(diff, -1) << fr.name() << " (" << jls_test::describe(d) << ") interleave "
                                << ilv << ": differs from CharLS at byte " << diff << " (ours "
                                << ours.bytes.size() << ", CharLS " << ref.bytes.size() << ")";
            EXPECT_EQ(jls_test::compare_decoded(jls_test::charls_decode(ours.bytes), img), "")
                << fr.name() << " interleave " << ilv;
            ++encodes;
        }
    }
    std::cout << "[jpegls corpus] " << frames << " grey/RGB frames: " << encodes
              << " encodes identical to CharLS checked, " << refused_high_bits
              << " refused (bits above BitsStored), " << refused_one_bit << " refused (1 bit), "
              << other << " frames with other component counts ignored\n";
    EXPECT_GT(encodes, 0u);
}

} // namespace
