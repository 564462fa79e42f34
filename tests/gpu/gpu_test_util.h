// gpu_test_util.h - what the GPU tests share: a seeded generator, the skip rule (no CUDA in the
// build or no device: skip and say why), and the packed corpus (PCWT_GPU_CORPUS).
#pragma once

#include "pcwt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 7) {}
    uint32_t next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return uint32_t(s >> 16);
    }
};

inline std::string skip_reason()
{
    if (!pcwt_has_cuda())
        return "this build has no CUDA backend (configure with nvcc present)";
    pcwt_decoder *d = pcwt_decoder_create();
    const pcwt_status st = pcwt_decoder_set_backend(d, PCWT_BACKEND_GPU);
    std::string why = st == PCWT_OK ? "" : std::string("no usable CUDA device: ") + pcwt_decoder_last_error(d);
    pcwt_decoder_destroy(d);
    return why;
}

#define SKIP_WITHOUT_GPU()                                                                         \
    do {                                                                                           \
        const std::string why_ = skip_reason();                                                    \
        if (!why_.empty())                                                                         \
            GTEST_SKIP() << "GPU test skipped: " << why_;                                          \
    } while (0)

// An encoder on backend `b` with the library's defaults but `profile` (and, where given, the
// value-map mode `map`).
inline pcwt_encoder *test_encoder(pcwt_backend b, pcwt_profile profile, const pcwt_value_map_mode *map = nullptr)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = b;
    p.profile = profile;
    if (map)
        p.value_map = *map;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

// A decoder on backend `b`.
inline pcwt_decoder *test_decoder(pcwt_backend b)
{
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_decoder_set_backend(d, b), PCWT_OK) << pcwt_decoder_last_error(d);
    return d;
}

// The three profiles as parameters of a test suite, named by the profile.
#define PCWT_INSTANTIATE_PROFILES(suite)                                                           \
    INSTANTIATE_TEST_SUITE_P(Profile, suite,                                                       \
                             ::testing::Values(PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY,        \
                                               PCWT_PROFILE_COMPACT),                              \
                             [](const ::testing::TestParamInfo<pcwt_profile> &i) {                 \
                                 return std::string(i.param == PCWT_PROFILE_BASELINE  ? "baseline" \
                                                    : i.param == PCWT_PROFILE_ENTROPY ? "entropy"  \
                                                                                      : "compact"); \
                             })

// pcwt_encode into a buffer of pcwt_encode_bound bytes, expecting status `want`; the codestream,
// or nothing when the encode failed.
inline std::vector<uint8_t> encode_with(pcwt_encoder *e, const pcwt_image_desc &d,
                                        const std::vector<uint8_t> &img, pcwt_status want = PCWT_OK)
{
    std::vector<uint8_t> out(pcwt_encode_bound(&d));
    size_t n = 0;
    const pcwt_status st = pcwt_encode(e, &d, img.data(), img.size(), out.data(), out.size(), &n);
    EXPECT_EQ(st, want) << pcwt_encoder_last_error(e);
    out.resize(st == PCWT_OK ? n : 0);
    return out;
}

// The CPU codestream `a` is not empty and the GPU codestream `b` has the same bytes (else the
// first difference).
inline ::testing::AssertionResult same_codestream(const std::vector<uint8_t> &a,
                                                  const std::vector<uint8_t> &b)
{
    if (a.empty())
        return ::testing::AssertionFailure() << "empty CPU codestream";
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << "GPU codestream length differs (" << b.size()
                                             << " vs " << a.size() << ")";
    for (size_t k = 0; k < a.size(); k++)
        if (a[k] != b[k])
            return ::testing::AssertionFailure() << "first differing byte " << k << " of " << a.size();
    return ::testing::AssertionSuccess();
}

inline std::vector<uint8_t> read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The *.pcwt codestreams of tests/gpu/pack_corpus.sh's folder (CPU-made from shared/testdata).
inline std::vector<std::string> gpu_corpus_files(const char *dir)
{
    std::vector<std::string> files;
    if (DIR *dd = opendir(dir)) {
        while (dirent *e = readdir(dd)) {
            const std::string n = e->d_name;
            if (n.size() > 5 && n.substr(n.size() - 5) == ".pcwt")
                files.push_back(std::string(dir) + "/" + n);
        }
        closedir(dd);
    }
    return files;
}
