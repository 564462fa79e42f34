// gpu_test_util.h - what the GPU tests share: a seeded generator and random images, the skip rule
// (no CUDA in the build or no device: skip and say why), a batch of frames held to the CPU's bytes
// and samples, and the packed corpus (PCWT_GPU_CORPUS).
#pragma once

#include "pcwt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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

// v as a word of d: its bits_stored bits, sign-extended where signed, within bits_allocated.
inline uint32_t sample_word(const pcwt_image_desc &d, uint32_t v)
{
    const uint32_t mask = (1u << d.bits_stored) - 1;
    v &= mask;
    if (d.is_signed && (v >> (d.bits_stored - 1)))
        v |= ~mask;
    return v & ((1u << d.bits_allocated) - 1);
}

// Word k of a frame of d's samples.
inline void store_sample(std::vector<uint8_t> &img, const pcwt_image_desc &d, size_t k, uint32_t w)
{
    if (d.bits_allocated == 8) {
        img[k] = uint8_t(w);
    } else {
        const uint16_t h = uint16_t(w);
        std::memcpy(&img[2 * k], &h, 2);
    }
}

// Samples of a frame of d: pattern 0 noise (with bits above bits_stored now and then), 1 a ramp
// with noise, 2 a checkerboard of the extremes, 3 sparse spikes, 4 smooth waves with a little
// noise (what 5/11-C's level 1 codes smaller).
inline std::vector<uint8_t> random_image(const pcwt_image_desc &d, Rng &rng, int pattern)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    const uint32_t mask = (1u << d.bits_stored) - 1, amask = (1u << d.bits_allocated) - 1;
    const size_t n = img.size() / (d.bits_allocated / 8);
    for (size_t k = 0; k < n; k++) {
        const uint32_t px = uint32_t(k / d.components), i = px / d.width, j = px % d.width;
        uint32_t v;
        switch (pattern) {
        case 0: v = rng.next(); break;                                  // noise
        case 1: v = (i * 3 + j * 5 + (rng.next() & 7)) & mask; break;   // smooth + noise
        case 2: v = ((i / 7 + j / 5) & 1) ? mask : 0; break;            // checkerboard
        case 3: v = (rng.next() % 97 == 0) ? rng.next() : 0; break;     // sparse
        default: { // waves of 0.45 of the range about its middle (0 when signed)
            const double mid = d.is_signed ? 0.0 : double(mask / 2);
            v = uint32_t(int64_t(mid + 0.45 * double(mask / 2) * std::sin(j / 9.0) * std::cos(i / 7.0)) +
                         int64_t(rng.next() % 3));
            break;
        }
        }
        v = sample_word(d, v);
        if (pattern == 0 && d.bits_stored < d.bits_allocated && rng.next() % 11 == 0)
            v = (v ^ rng.next() << d.bits_stored) & amask; // garbage above bits_stored
        store_sample(img, d, k, v);
    }
    return img;
}

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

// An encoder on backend `b` with `profile`, `levels`, groups of gr x gc elements and min_ll 1 (the
// rest the library's defaults).
inline pcwt_encoder *grouped_encoder(pcwt_backend b, pcwt_profile profile, uint32_t levels, uint32_t gr,
                                     uint32_t gc)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = b;
    p.profile = profile;
    p.levels = levels;
    p.group_rows = gr;
    p.group_cols = gc;
    p.min_ll = 1;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

// 16-bit signed CT-like samples of d: a smooth field, noise of the given amplitude, a flat border.
inline std::vector<uint8_t> ct_like(const pcwt_image_desc &d, Rng &rng, uint32_t noise)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    for (uint32_t i = 0; i < d.height; i++)
        for (uint32_t j = 0; j < d.width; j++) {
            int v = -1024;
            if (i > d.height / 8 && j > d.width / 10)
                v = int((i * 7 + j * 3) % 900) - 200 + int(noise ? rng.next() % noise : 0);
            const int16_t w = int16_t(v);
            std::memcpy(&img[2 * (size_t(i) * d.width + j)], &w, 2);
        }
    return img;
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

// A frame of a batch test.
struct GpuCase {
    std::string what;
    pcwt_image_desc d;
    std::vector<uint8_t> samples;
};

// Every case in one batch of egpu (a GPU handle): the bytes of ecpu (a CPU one), frame by frame;
// then the CPU's codestreams decoded and verified in one batch by a GPU decoder. Returns the CPU's
// codestreams (label: said with each failure).
inline std::vector<std::vector<uint8_t>> check_gpu_batch(pcwt_encoder *ecpu, pcwt_encoder *egpu,
                                                         const std::vector<GpuCase> &cases,
                                                         const std::string &label)
{
    std::vector<std::vector<uint8_t>> cpu, gpu(cases.size());
    std::vector<pcwt_frame_job> jobs(cases.size());
    for (size_t k = 0; k < cases.size(); k++) {
        cpu.push_back(encode_with(ecpu, cases[k].d, cases[k].samples));
        gpu[k].resize(pcwt_encode_bound(&cases[k].d));
        jobs[k] = {cases[k].d, cases[k].samples.data(), cases[k].samples.size(), gpu[k].data(), gpu[k].size(),
                   0, PCWT_OK};
    }
    EXPECT_EQ(pcwt_encode_batch(egpu, jobs.data(), jobs.size()), PCWT_OK) << label << ": " << pcwt_encoder_last_error(egpu);
    std::vector<std::vector<uint8_t>> out(cases.size());
    std::vector<pcwt_decode_job> dj(cases.size());
    std::vector<pcwt_verify_job> vj(cases.size());
    for (size_t k = 0; k < cases.size(); k++) {
        gpu[k].resize(jobs[k].written);
        EXPECT_TRUE(same_codestream(cpu[k], gpu[k])) << cases[k].what << ", " << label;
        out[k].assign(cases[k].samples.size(), 0x5A);
        dj[k] = {cpu[k].data(), cpu[k].size(), out[k].data(), out[k].size(), PCWT_OK};
        vj[k] = {cpu[k].data(), cpu[k].size(), cases[k].samples.data(), cases[k].samples.size(), 0, PCWT_OK};
    }
    pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
    int64_t chunks = 0; // decoded in batches cut as the GPU encoder's
    EXPECT_EQ(pcwt_encoder_get_option(egpu, PCWT_OPT_GPU_CHUNKS, &chunks), PCWT_OK);
    EXPECT_EQ(pcwt_decoder_set_option(dgpu, PCWT_OPT_GPU_CHUNKS, chunks), PCWT_OK);
    EXPECT_EQ(pcwt_decode_batch(dgpu, dj.data(), dj.size()), PCWT_OK) << label << ": " << pcwt_decoder_last_error(dgpu);
    for (size_t k = 0; k < cases.size(); k++)
        EXPECT_TRUE(out[k] == cases[k].samples) << cases[k].what << ", " << label << ": GPU decode differs";
    EXPECT_EQ(pcwt_verify_batch(dgpu, vj.data(), vj.size()), PCWT_OK) << label << ": " << pcwt_decoder_last_error(dgpu);
    pcwt_decoder_destroy(dgpu);
    return cpu;
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

// The packed corpus's codestreams (PCWT_GPU_CORPUS) in `files`, or the test skipped when the
// variable is not set.
#define GPU_CORPUS_OR_SKIP(files)                                                                  \
    const char *corpus_dir_ = std::getenv("PCWT_GPU_CORPUS");                                      \
    if (!corpus_dir_)                                                                              \
        GTEST_SKIP() << "GPU corpus test skipped: set PCWT_GPU_CORPUS to a folder made by "        \
                        "tests/gpu/pack_corpus.sh";                                                \
    const std::vector<std::string> files = gpu_corpus_files(corpus_dir_);                          \
    ASSERT_GT(files.size(), 10u) << "too few corpus codestreams in " << corpus_dir_

// A corpus codestream (file), its header and its samples decoded by dcpu (a CPU decoder).
inline ::testing::AssertionResult corpus_image(pcwt_decoder *dcpu, const std::string &file,
                                               std::vector<uint8_t> &cs, pcwt_header_info &h,
                                               std::vector<uint8_t> &img)
{
    cs = read_file(file);
    if (pcwt_read_header(cs.data(), cs.size(), &h) != PCWT_OK)
        return ::testing::AssertionFailure() << file << ": unreadable header";
    img.assign(pcwt_image_size(&h.desc), 0);
    if (pcwt_decode(dcpu, cs.data(), cs.size(), img.data(), img.size()) != PCWT_OK)
        return ::testing::AssertionFailure() << file << ": " << pcwt_decoder_last_error(dcpu);
    return ::testing::AssertionSuccess();
}
