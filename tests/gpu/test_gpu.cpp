// GPU backend tests (ctest label "gpu"): the CUDA encoder must write byte-identical codestreams to
// the CPU reference and the CUDA decoder must return every sample, for random images of many
// sizes and depths, batches that mix sizes, and every corpus image, in every profile (baseline,
// entropy, and compact with its value maps built on the device: each test runs once per profile).
// Without CUDA or a device they skip and say why.
#include <gtest/gtest.h>

#include "gpu_test_util.h"
#include "pcwt.h"
#include "recrc.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Codec {
    pcwt_encoder *cpu = pcwt_encoder_create(), *gpu = pcwt_encoder_create();
    pcwt_decoder *dcpu = pcwt_decoder_create(), *dgpu = pcwt_decoder_create();
    // gr = gc = 0: the profile's group size (64x16 in the entropy profile).
    explicit Codec(pcwt_profile profile, uint32_t levels = PCWT_DEFAULT_LEVELS, uint32_t gr = 0,
                   uint32_t gc = 0, uint32_t min_ll = 2,
                   pcwt_colour_transform colour = PCWT_COLOUR_AUTO,
                   pcwt_lifting_order lifting = PCWT_LIFTING_AUTO)
    {
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.profile = profile;
        p.colour_transform = colour;
        p.lifting_order = lifting;
        p.levels = levels;
        p.group_rows = gr;
        p.group_cols = gc;
        p.min_ll = min_ll;
        p.backend = PCWT_BACKEND_CPU;
        EXPECT_EQ(pcwt_encoder_set_params(cpu, &p), PCWT_OK);
        p.backend = PCWT_BACKEND_GPU;
        EXPECT_EQ(pcwt_encoder_set_params(gpu, &p), PCWT_OK) << pcwt_encoder_last_error(gpu);
        EXPECT_EQ(pcwt_decoder_set_backend(dcpu, PCWT_BACKEND_CPU), PCWT_OK);
        EXPECT_EQ(pcwt_decoder_set_backend(dgpu, PCWT_BACKEND_GPU), PCWT_OK);
        EXPECT_EQ(pcwt_encoder_backend(gpu), PCWT_BACKEND_GPU);
    }
    ~Codec()
    {
        pcwt_encoder_destroy(cpu);
        pcwt_encoder_destroy(gpu);
        pcwt_decoder_destroy(dcpu);
        pcwt_decoder_destroy(dgpu);
    }
    static std::vector<uint8_t> enc(pcwt_encoder *e, const pcwt_image_desc &d, const std::vector<uint8_t> &img)
    {
        return encode_with(e, d, img);
    }
    // Encodes on both, decodes the GPU stream on the GPU; all must agree with the input.
    void check(const pcwt_image_desc &d, const std::vector<uint8_t> &img, const std::string &what)
    {
        const auto a = enc(cpu, d, img), b = enc(gpu, d, img);
        ASSERT_TRUE(same_codestream(a, b)) << what;
        std::vector<uint8_t> back(img.size(), 0xA5);
        ASSERT_EQ(pcwt_decode(dgpu, b.data(), b.size(), back.data(), back.size()), PCWT_OK)
            << what << ": " << pcwt_decoder_last_error(dgpu);
        ASSERT_TRUE(back == img) << what << ": GPU decode differs from the input";
    }
};

// Each test runs for every profile.
class Gpu : public ::testing::TestWithParam<pcwt_profile> {};

TEST_P(Gpu, RandomImagesMatchCpuBytes)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    Rng rng(1);
    const uint32_t sizes[][2] = {{1, 1},   {1, 2},     {2, 1},    {3, 3},     {1, 513},  {513, 1},
                                 {7, 5},   {31, 29},   {64, 64},  {127, 131}, {257, 263}, {512, 512},
                                 {1021, 769}, {2000, 2500}, {4093, 4099}};
    int n = 0;
    for (const auto &s : sizes)
        for (uint32_t alloc : {8u, 16u})
            for (uint32_t stored : {alloc, alloc - 3})
                for (uint32_t sgn : {0u, 1u}) {
                    const int pattern = n++ % 4;
                    pcwt_image_desc d{s[0], s[1], 1, alloc, stored, sgn, 0};
                    const auto img = random_image(d, rng, pattern);
                    c.check(d, img, std::to_string(s[0]) + "x" + std::to_string(s[1]) + " " +
                                        std::to_string(alloc) + "/" + std::to_string(stored) +
                                        (sgn ? "s" : "u") + " pattern " + std::to_string(pattern));
                }
}

// Both lifting orders (docs/FORMAT.md Sec. 3.2, header flag bit 3) in each profile, with 1, 6 and
// 10 levels: the GPU writes the CPU's bytes and decodes them exactly; then one decode batch mixes
// the two orders (a level's launch then covers both tilings) and returns every sample.
TEST_P(Gpu, LiftingOrdersMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(11);
    const uint32_t sizes[][2] = {{1, 1},    {2, 1},    {1, 513},   {513, 1},   {7, 5},
                                 {31, 29},  {66, 130}, {127, 131}, {257, 263}, {1021, 769}};
    std::vector<pcwt_image_desc> descs;
    std::vector<std::vector<uint8_t>> imgs, streams;
    int n = 0;
    for (pcwt_lifting_order order : {PCWT_LIFTING_ROWS_FIRST, PCWT_LIFTING_COLUMNS_FIRST})
        for (uint32_t levels : {1u, 6u, 10u}) {
            Codec c(GetParam(), levels, 0, 0, levels == 10 ? 1 : 2, PCWT_COLOUR_AUTO, order);
            for (const auto &s : sizes)
                for (uint32_t alloc : {8u, 16u}) {
                    const pcwt_image_desc d{s[0], s[1], 1, alloc, alloc == 16 ? 12u : 8u, uint32_t(n & 1), 0};
                    const auto img = random_image(d, rng, n++ % 4);
                    const std::string what = std::to_string(s[0]) + "x" + std::to_string(s[1]) + " " +
                                             std::to_string(alloc) + "-bit, " + std::to_string(levels) +
                                             " levels, " + (order == PCWT_LIFTING_ROWS_FIRST ? "rows" : "columns") +
                                             " first";
                    c.check(d, img, what);
                    auto cs = Codec::enc(c.gpu, d, img);
                    pcwt_header_info h;
                    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &h), PCWT_OK) << what;
                    EXPECT_EQ(h.columns_first, order == PCWT_LIFTING_COLUMNS_FIRST ? 1u : 0u) << what;
                    descs.push_back(d);
                    imgs.push_back(img);
                    streams.push_back(std::move(cs));
                }
        }
    Codec c(GetParam());
    std::vector<std::vector<uint8_t>> back(descs.size());
    std::vector<pcwt_decode_job> jobs;
    for (size_t i = 0; i < descs.size(); i++) {
        back[i].assign(imgs[i].size(), 0x5A);
        jobs.push_back({streams[i].data(), streams[i].size(), back[i].data(), back[i].size(), PCWT_OK});
    }
    ASSERT_EQ(pcwt_decode_batch(c.dgpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_decoder_last_error(c.dgpu);
    for (size_t i = 0; i < descs.size(); i++)
        EXPECT_TRUE(back[i] == imgs[i]) << "frame " << i << " of the mixed batch";
}

TEST_P(Gpu, LargestImage)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    Rng rng(2);
    pcwt_image_desc d{8192, 8192, 1, 16, 12, 0, 0};
    c.check(d, random_image(d, rng, 1), "8192x8192 12-bit");
}

TEST_P(Gpu, ColourAndParameters)
{
    SKIP_WITHOUT_GPU();
    Rng rng(3);
    for (uint32_t planar : {0u, 1u})
        for (uint32_t alloc : {8u, 16u}) {
            Codec c(GetParam());
            pcwt_image_desc d{301, 199, 3, alloc, alloc, 0, planar};
            c.check(d, random_image(d, rng, 1), "rgb");
        }
    const uint32_t params[][4] = {{0, 32, 32, 2}, {1, 1, 1, 1}, {3, 7, 3, 1}, {10, 256, 256, 1},
                                  {6, 256, 1, 2}, {4, 64, 64, 2}};
    for (const auto &p : params) {
        Codec c(GetParam(), p[0], p[1], p[2], p[3]);
        pcwt_image_desc d{333, 222, 1, 16, 16, 1, 0};
        c.check(d, random_image(d, rng, 0), "levels " + std::to_string(p[0]) + " group " +
                                               std::to_string(p[1]) + "x" + std::to_string(p[2]));
    }
}

// The reversible colour transform (docs/FORMAT.md Sec. 2.1) on and off, in every layout and depth,
// with bits above bits_stored (high-bit planes beside the transformed value planes), and grey
// stored as RGB; then planes whose inverse transform leaves the sample range: both decoders refuse.
TEST_P(Gpu, ColourTransformMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(7);
    int n = 0;
    for (pcwt_colour_transform ct : {PCWT_COLOUR_NONE, PCWT_COLOUR_RCT, PCWT_COLOUR_AUTO}) {
        Codec c(GetParam(), PCWT_DEFAULT_LEVELS, 32, 32, 2, ct);
        const bool want = ct == PCWT_COLOUR_RCT || (ct == PCWT_COLOUR_AUTO && GetParam() != PCWT_PROFILE_BASELINE);
        for (uint32_t planar : {0u, 1u})
            for (uint32_t alloc : {8u, 16u})
                for (uint32_t stored : {alloc, alloc - 3, 1u})
                    for (uint32_t sgn : {0u, 1u}) {
                        const int pattern = n++ % 4;
                        pcwt_image_desc d{97 + uint32_t(n % 5), 61 + uint32_t(n % 3), 3, alloc, stored, sgn, planar};
                        const auto img = random_image(d, rng, pattern);
                        const std::string what = "ct " + std::to_string(int(ct)) + " planar " + std::to_string(planar) +
                                                 " " + std::to_string(alloc) + "/" + std::to_string(stored) +
                                                 (sgn ? "s" : "u") + " pattern " + std::to_string(pattern);
                        c.check(d, img, what);
                        const auto cs = Codec::enc(c.gpu, d, img);
                        pcwt_header_info info;
                        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
                        EXPECT_EQ(info.colour_transform, want ? 1u : 0u) << what;
                    }
        // grey stored as RGB: each component the same ramp with noise
        pcwt_image_desc d{256, 192, 3, 8, 8, 0, 0};
        std::vector<uint8_t> img(pcwt_image_size(&d));
        for (size_t k = 0; k < img.size(); k += 3)
            img[k] = img[k + 1] = img[k + 2] = uint8_t((k / 3) % 256 / 2 + (rng.next() & 3));
        c.check(d, img, "grey in RGB");
    }
    // Out of range after the inverse transform: 12-bit samples declared 8-bit (header CRC fixed).
    Codec c(GetParam(), PCWT_DEFAULT_LEVELS, 32, 32, 2, PCWT_COLOUR_RCT);
    pcwt_image_desc d{64, 48, 3, 16, 12, 0, 0};
    const auto img = random_image(d, rng, 1);
    auto cs = Codec::enc(c.cpu, d, img);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.colour_transform, 1u);
    cs[18] = 8;
    fix_crcs(cs, info);
    std::vector<uint8_t> out(img.size());
    EXPECT_EQ(pcwt_decode(c.dcpu, cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_CORRUPT);
    EXPECT_EQ(pcwt_decode(c.dgpu, cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_CORRUPT)
        << pcwt_decoder_last_error(c.dgpu);
}

// Values a plane may not hold (12-bit grey declared 8-bit, header CRC fixed), with and without the
// transform: the finest inverse pass exports the one plane, the export pass the other. Both
// decoders refuse the frame; the good frame beside it in the GPU batch decodes.
TEST_P(Gpu, SamplesOutOfRangeRejectedInABatch)
{
    SKIP_WITHOUT_GPU();
    Rng rng(8);
    for (uint32_t levels : {uint32_t(PCWT_DEFAULT_LEVELS), 0u}) {
        Codec c(GetParam(), levels, 32, 32, 2, PCWT_COLOUR_NONE);
        pcwt_image_desc d{64, 48, 1, 16, 12, 0, 0};
        const auto img = random_image(d, rng, 1);
        const auto good = Codec::enc(c.cpu, d, img);
        auto bad = good;
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(bad.data(), bad.size(), &info), PCWT_OK);
        bad[18] = 8;
        fix_crcs(bad, info);
        const std::string what = "levels " + std::to_string(levels);
        std::vector<uint8_t> o1(img.size()), o2(img.size());
        EXPECT_EQ(pcwt_decode(c.dcpu, bad.data(), bad.size(), o1.data(), o1.size()), PCWT_ERR_CORRUPT) << what;
        std::vector<pcwt_decode_job> jobs = {{bad.data(), bad.size(), o1.data(), o1.size(), PCWT_OK},
                                             {good.data(), good.size(), o2.data(), o2.size(), PCWT_OK}};
        EXPECT_NE(pcwt_decode_batch(c.dgpu, jobs.data(), jobs.size()), PCWT_OK) << what;
        EXPECT_EQ(jobs[0].status, PCWT_ERR_CORRUPT) << what;
        EXPECT_NE(std::string(pcwt_decoder_last_error(c.dgpu)).find("out of range"), std::string::npos)
            << what << ": " << pcwt_decoder_last_error(c.dgpu);
        EXPECT_EQ(jobs[1].status, PCWT_OK) << what;
        EXPECT_TRUE(o2 == img) << what;
    }
}

TEST_P(Gpu, BatchesMixingSizesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    Rng rng(4);
    std::vector<pcwt_image_desc> descs;
    const uint32_t sizes[][2] = {{512, 512}, {3, 7}, {2000, 2500}, {1, 1}, {640, 480}, {512, 512}, {129, 17}};
    for (int rep = 0; rep < 3; rep++)
        for (const auto &s : sizes)
            descs.push_back({s[0], s[1], rep == 2 ? 3u : 1u, 16, rep == 1 ? 12u : 16u, uint32_t(rep & 1), 0});
    std::vector<std::vector<uint8_t>> imgs, outs;
    std::vector<pcwt_frame_job> jobs;
    for (const auto &d : descs) {
        imgs.push_back(random_image(d, rng, 1));
        outs.emplace_back(pcwt_encode_bound(&d));
    }
    for (size_t i = 0; i < descs.size(); i++)
        jobs.push_back({descs[i], imgs[i].data(), imgs[i].size(), outs[i].data(), outs[i].size(), 0, PCWT_OK});
    ASSERT_EQ(pcwt_encode_batch(c.gpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(c.gpu);
    std::vector<std::vector<uint8_t>> back(descs.size());
    std::vector<pcwt_decode_job> djobs;
    for (size_t i = 0; i < descs.size(); i++) {
        outs[i].resize(jobs[i].written);
        ASSERT_EQ(outs[i], Codec::enc(c.cpu, descs[i], imgs[i])) << "frame " << i;
        back[i].assign(imgs[i].size(), 0x5A);
        djobs.push_back({outs[i].data(), outs[i].size(), back[i].data(), back[i].size(), PCWT_OK});
    }
    ASSERT_EQ(pcwt_decode_batch(c.dgpu, djobs.data(), djobs.size()), PCWT_OK) << pcwt_decoder_last_error(c.dgpu);
    for (size_t i = 0; i < descs.size(); i++)
        EXPECT_TRUE(back[i] == imgs[i]) << "frame " << i;
}

// One word with a bit above bits_stored (or none) in otherwise canonical frames, at the first word,
// in the middle, at the last word of the 16-byte reads the high-bit check makes, the first word
// after them and the last word; 8 and 16 bits, signed (negative values are canonical words) and
// not, one and three components, interleaved and planar; one batch. Exactly that word's
// component gets a high-bit plane, and the GPU writes the CPU's bytes.
TEST_P(Gpu, OneHighBitWordAnywhereMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    Rng rng(9);
    struct Case {
        pcwt_image_desc d;
        int64_t word; // -1: none
    };
    std::vector<Case> cases;
    for (uint32_t alloc : {8u, 16u})
        for (uint32_t sgn : {0u, 1u})
            for (uint32_t comps : {1u, 3u})
                for (uint32_t planar = 0; planar <= (comps == 3 ? 1u : 0u); planar++) {
                    const pcwt_image_desc d{37, 23, comps, alloc, alloc - 3, sgn, planar};
                    const int64_t n = int64_t(37) * 23 * comps, per = 128 / alloc, v = n / per * per;
                    for (int64_t k : {int64_t(-1), int64_t(0), n / 2, v - 1, v, n - 1})
                        cases.push_back({d, k});
                }
    std::vector<std::vector<uint8_t>> imgs, outs;
    std::vector<pcwt_frame_job> jobs;
    for (const Case &t : cases) {
        auto img = random_image(t.d, rng, t.d.is_signed ? 4 : 1);
        if (t.word >= 0) {
            const size_t k = size_t(t.word);
            const uint32_t w = t.d.bits_allocated == 8 ? img[k] : uint32_t(img[2 * k] | img[2 * k + 1] << 8);
            store_sample(img, t.d, k, w ^ (1u << t.d.bits_stored));
        }
        imgs.push_back(std::move(img));
        outs.emplace_back(pcwt_encode_bound(&t.d));
    }
    for (size_t i = 0; i < cases.size(); i++)
        jobs.push_back({cases[i].d, imgs[i].data(), imgs[i].size(), outs[i].data(), outs[i].size(), 0, PCWT_OK});
    ASSERT_EQ(pcwt_encode_batch(c.gpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(c.gpu);
    for (size_t i = 0; i < cases.size(); i++) {
        const Case &t = cases[i];
        const std::string what = std::to_string(t.d.bits_allocated) + (t.d.is_signed ? "s " : "u ") +
                                 std::to_string(t.d.components) + (t.d.planar ? " planar" : "") + " word " +
                                 std::to_string(t.word);
        outs[i].resize(jobs[i].written);
        ASSERT_EQ(outs[i], Codec::enc(c.cpu, t.d, imgs[i])) << what;
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(outs[i].data(), outs[i].size(), &info), PCWT_OK) << what;
        ASSERT_EQ(info.plane_count, t.d.components + (t.word >= 0 ? 1u : 0u)) << what;
        for (uint32_t q = 0; q < info.plane_count; q++)
            if (info.planes[q].kind == 1) {
                const uint64_t pixels = 37 * 23, k = uint64_t(t.word);
                EXPECT_EQ(info.planes[q].component, t.d.planar ? k / pixels : k % t.d.components) << what;
            }
    }
}

TEST_P(Gpu, CorruptStreamsRejectedInABatch)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    Rng rng(5);
    pcwt_image_desc d{200, 150, 1, 16, 16, 1, 0};
    const auto img = random_image(d, rng, 1);
    const auto good = Codec::enc(c.cpu, d, img);
    auto flipped = good, cut = good;
    flipped[good.size() / 2] ^= 0x10;
    cut.resize(good.size() - 5);
    std::vector<uint8_t> o1(img.size()), o2(img.size()), o3(img.size());
    std::vector<pcwt_decode_job> jobs = {{flipped.data(), flipped.size(), o1.data(), o1.size(), PCWT_OK},
                                         {good.data(), good.size(), o2.data(), o2.size(), PCWT_OK},
                                         {cut.data(), cut.size(), o3.data(), o3.size(), PCWT_OK}};
    EXPECT_NE(pcwt_decode_batch(c.dgpu, jobs.data(), jobs.size()), PCWT_OK);
    EXPECT_EQ(jobs[0].status, PCWT_ERR_CRC_MISMATCH);
    EXPECT_EQ(jobs[1].status, PCWT_OK);
    EXPECT_TRUE(o2 == img);
    EXPECT_EQ(jobs[2].status, PCWT_ERR_TRUNCATED);
}

// pcwt_verify_batch on the device gives what the CPU gives: frames of many sizes (tails that are
// not whole 16-byte words), expected samples in page-locked and in ordinary memory, one byte
// changed at the start, inside or at the end, a size that differs, a corrupt codestream.
TEST_P(Gpu, VerifyOnTheDeviceMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    Rng rng(8);
    const pcwt_image_desc descs[] = {{512, 512, 1, 16, 12, 1, 0}, {37, 29, 1, 8, 8, 0, 0},
                                     {301, 203, 3, 8, 8, 0, 0}, {1000, 777, 1, 16, 16, 0, 0}};
    std::vector<std::vector<uint8_t>> cs, want;
    std::vector<void *> pinned;
    std::vector<pcwt_verify_job> jobs;
    for (int rep = 0; rep < 3; rep++)
        for (const pcwt_image_desc &d : descs) {
            const std::vector<uint8_t> img = random_image(d, rng, 1);
            cs.push_back(Codec::enc(c.cpu, d, img));
            want.push_back(img);
        }
    for (size_t i = 0; i < cs.size(); i++) {
        std::vector<uint8_t> &w = want[i];
        switch (i % 6) {
        case 1: w[0] ^= 1; break;
        case 2: w[w.size() / 2 + 5] ^= 0x40; break;
        case 3: w[w.size() - 1] ^= 0x80; break;
        case 4: w.pop_back(); break;
        case 5: cs[i][cs[i].size() - 9] ^= 0x20; break; // its payload checksum fails
        default: break;
        }
        void *p = nullptr;
        if (i % 2) { // every other one page-locked: uploaded without staging
            p = pcwt_host_alloc(w.size());
            ASSERT_NE(p, nullptr);
            std::memcpy(p, w.data(), w.size());
            pinned.push_back(p);
        }
        pcwt_verify_job j;
        std::memset(&j, 0, sizeof j);
        j.src = cs[i].data();
        j.src_size = cs[i].size();
        j.expected = p ? p : w.data();
        j.expected_size = w.size();
        jobs.push_back(j);
    }
    std::vector<pcwt_verify_job> cpu = jobs;
    EXPECT_EQ(pcwt_verify_batch(c.dcpu, cpu.data(), cpu.size()), PCWT_ERR_MISMATCH);
    EXPECT_EQ(pcwt_verify_batch(c.dgpu, jobs.data(), jobs.size()), PCWT_ERR_MISMATCH)
        << pcwt_decoder_last_error(c.dgpu);
    for (size_t i = 0; i < jobs.size(); i++) {
        EXPECT_EQ(jobs[i].status, cpu[i].status) << "job " << i;
        EXPECT_EQ(jobs[i].first_difference, cpu[i].first_difference) << "job " << i;
        const pcwt_status expect = i % 6 == 0 ? PCWT_OK : i % 6 == 5 ? PCWT_ERR_CRC_MISMATCH : PCWT_ERR_MISMATCH;
        EXPECT_EQ(jobs[i].status, expect) << "job " << i;
    }
    for (void *p : pinned)
        pcwt_host_free(p);
}

// Every corpus frame: PCWT_GPU_CORPUS names a folder of CPU-made codestreams (*.pcwt, made by
// tests/gpu/pack_corpus.sh from shared/testdata in the library's default profile, whatever that
// is when they are packed); the GPU must encode each decoded image to the CPU's bytes in the
// profile under test and decode that to the same samples.
TEST_P(Gpu, CorpusMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    GPU_CORPUS_OR_SKIP(files);
    for (const std::string &f : files) {
        std::vector<uint8_t> cs, img;
        pcwt_header_info h;
        pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU);
        ASSERT_TRUE(corpus_image(dcpu, f, cs, h, img));
        pcwt_decoder_destroy(dcpu);
        Codec c(GetParam(), h.levels, h.group_rows, h.group_cols, 1);
        std::vector<uint8_t> g(img.size(), 0x33);
        const std::vector<uint8_t> want = Codec::enc(c.cpu, h.desc, img);
        const std::vector<uint8_t> got = Codec::enc(c.gpu, h.desc, img);
        ASSERT_TRUE(same_codestream(want, got)) << f << ": GPU codestream differs from the CPU's";
        ASSERT_EQ(pcwt_decode(c.dgpu, got.data(), got.size(), g.data(), g.size()), PCWT_OK) << f;
        ASSERT_TRUE(g == img) << f << ": GPU decode differs";
    }
    std::printf("GPU corpus (profile %d): %zu codestreams identical on CPU and GPU\n",
                int(GetParam()), files.size());
}

} // namespace

namespace {

// A small device-memory budget (the handles' gpu-memory-limit) forces many chunks through the two-slot
// pipeline and sends a frame that cannot fit to the CPU path; the bytes must not change.
TEST_P(Gpu, MemoryBudgetSplitsBatchAndFallsBackToCpu)
{
    SKIP_WITHOUT_GPU();
    Codec c(GetParam());
    ASSERT_EQ(pcwt_encoder_set_option(c.gpu, PCWT_OPT_GPU_MEMORY_LIMIT, 60000000), PCWT_OK);
    ASSERT_EQ(pcwt_decoder_set_option(c.dgpu, PCWT_OPT_GPU_MEMORY_LIMIT, 60000000), PCWT_OK);
    Rng rng(6);
    std::vector<pcwt_image_desc> descs;
    for (int i = 0; i < 9; i++)
        descs.push_back({512, 512, 1, 16, 12, 1, 0});
    descs.push_back({3000, 3000, 1, 16, 16, 0, 0}); // over the budget: encoded on the CPU
    std::vector<std::vector<uint8_t>> imgs, outs;
    std::vector<pcwt_frame_job> jobs;
    for (const auto &d : descs) {
        imgs.push_back(random_image(d, rng, 1));
        outs.emplace_back(pcwt_encode_bound(&d));
    }
    for (size_t i = 0; i < descs.size(); i++)
        jobs.push_back({descs[i], imgs[i].data(), imgs[i].size(), outs[i].data(), outs[i].size(), 0, PCWT_OK});
    ASSERT_EQ(pcwt_encode_batch(c.gpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(c.gpu);
    EXPECT_NE(std::string(pcwt_encoder_last_error(c.gpu)).find("CPU"), std::string::npos)
        << "the fallback should leave a notice: " << pcwt_encoder_last_error(c.gpu);
    std::vector<std::vector<uint8_t>> back(descs.size());
    std::vector<pcwt_decode_job> djobs;
    for (size_t i = 0; i < descs.size(); i++) {
        outs[i].resize(jobs[i].written);
        ASSERT_EQ(outs[i], Codec::enc(c.cpu, descs[i], imgs[i])) << "frame " << i;
        back[i].assign(imgs[i].size(), 0);
        djobs.push_back({outs[i].data(), outs[i].size(), back[i].data(), back[i].size(), PCWT_OK});
    }
    ASSERT_EQ(pcwt_decode_batch(c.dgpu, djobs.data(), djobs.size()), PCWT_OK) << pcwt_decoder_last_error(c.dgpu);
    for (size_t i = 0; i < descs.size(); i++)
        EXPECT_TRUE(back[i] == imgs[i]) << "frame " << i;
}

} // namespace

namespace {

PCWT_INSTANTIATE_PROFILES(Gpu);

} // namespace
