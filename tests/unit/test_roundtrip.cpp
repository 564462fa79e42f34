// Round trips of synthetic images through the public API, every sample compared: noise, flat,
// gradients, extreme values, checkerboards, for 8/16 bits, any bits stored, signed and unsigned,
// 1 and 3 components (interleaved and planar), odd and prime sizes, and garbage above BitsStored.
#include <gtest/gtest.h>

#include "test_util.h"

#include <functional>
#include <thread>

namespace {

enum Pattern { Noise, Flat, Gradient, Extremes, Checker, SparseSpikes };

uint32_t pattern_value(Pattern pat, uint32_t i, uint32_t j, uint32_t maxv, Rng &rng)
{
    switch (pat) {
    case Noise: return rng.next() % (maxv + 1);
    case Flat: return maxv / 3;
    case Gradient: return static_cast<uint32_t>((static_cast<uint64_t>(i) * 7 + j * 3) % (maxv + 1));
    case Extremes: return (i + j) % 3 == 0 ? 0 : ((i ^ j) & 1 ? maxv : maxv / 2 + 1);
    case Checker: return ((i / 3 + j / 3) & 1) ? maxv : 0;
    case SparseSpikes: return rng.below(50) == 0 ? maxv : 0;
    }
    return 0;
}

// Fills the stored words: value in bits_stored (as the pattern says), optionally with garbage in
// the bits above.
std::vector<uint8_t> make_image(const pcwt_image_desc &d, Pattern pat, Rng &rng, bool garbage)
{
    std::vector<uint8_t> buf(pcwt_image_size(&d));
    const uint32_t maxv = (1u << d.bits_stored) - 1;
    const size_t n = static_cast<size_t>(d.width) * d.height * d.components;
    for (size_t k = 0; k < n; k++) {
        const uint32_t px = static_cast<uint32_t>(k / d.components);
        uint32_t w = pattern_value(pat, px / d.width, px % d.width, maxv, rng);
        if (d.is_signed && (w >> (d.bits_stored - 1))) // sign-extend to the allocated width
            w |= ~maxv & ((1u << d.bits_allocated) - 1);
        if (garbage && d.bits_stored < d.bits_allocated && rng.below(5) == 0)
            w ^= (rng.next() << d.bits_stored) & ((1u << d.bits_allocated) - 1);
        if (d.bits_allocated == 8) {
            buf[k] = static_cast<uint8_t>(w);
        } else {
            const uint16_t w16 = static_cast<uint16_t>(w);
            std::memcpy(&buf[2 * k], &w16, 2);
        }
    }
    return buf;
}

void check_roundtrip(const pcwt_image_desc &d, const std::vector<uint8_t> &img,
                     const pcwt_encode_params *params, const std::string &what)
{
    pcwt_status st;
    std::string err;
    const std::vector<uint8_t> cs = encode(d, img, params, &st, &err);
    ASSERT_EQ(st, PCWT_OK) << what << ": " << err;
    std::vector<uint8_t> out;
    ASSERT_EQ(decode(cs, out, &err), PCWT_OK) << what << ": " << err;
    ASSERT_EQ(out.size(), img.size()) << what;
    for (size_t k = 0; k < img.size(); k++)
        ASSERT_EQ(out[k], img[k]) << what << ": byte " << k;
}

TEST(RoundTrip, SyntheticImages)
{
    const uint32_t sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 97}, {97, 1}, {2, 2}, {3, 3},
                                 {7, 5}, {31, 29}, {64, 64}, {127, 131}, {256, 17}};
    Rng rng(5);
    int count = 0;
    for (const auto &s : sizes)
        for (Pattern pat : {Noise, Flat, Gradient, Extremes, Checker, SparseSpikes})
            for (uint32_t alloc : {8u, 16u})
                for (uint32_t stored : {1u, alloc / 2 + 2, alloc})
                    for (bool sgn : {false, true}) {
                        const pcwt_image_desc d = make_desc(s[0], s[1], 1, alloc, stored, sgn);
                        const auto img = make_image(d, pat, rng, false);
                        check_roundtrip(d, img, nullptr,
                                        std::to_string(s[0]) + "x" + std::to_string(s[1]) +
                                            " pattern " + std::to_string(pat) + " bits " +
                                            std::to_string(alloc) + "/" + std::to_string(stored) +
                                            (sgn ? " signed" : ""));
                        count++;
                    }
    EXPECT_GT(count, 800);
}

TEST(RoundTrip, ThreeComponentsInterleavedAndPlanar)
{
    Rng rng(6);
    for (bool planar : {false, true})
        for (uint32_t alloc : {8u, 16u})
            for (const auto &s : {std::pair<uint32_t, uint32_t>{1, 1}, {33, 21}, {100, 64}}) {
                const pcwt_image_desc d = make_desc(s.first, s.second, 3, alloc, alloc, false, planar);
                const auto img = make_image(d, Gradient, rng, false);
                check_roundtrip(d, img, nullptr, planar ? "planar" : "interleaved");
                pcwt_header_info info;
                const auto cs = encode(d, img);
                ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
                EXPECT_EQ(info.plane_count, 3u);
                EXPECT_EQ(info.desc.planar, planar ? 1u : 0u);
            }
}

TEST(RoundTrip, GarbageAboveBitsStoredComesBackExactly)
{
    Rng rng(7);
    for (uint32_t alloc : {8u, 16u})
        for (uint32_t stored : {1u, 5u, alloc - 4, alloc - 1})
            for (bool sgn : {false, true}) {
                const pcwt_image_desc d = make_desc(45, 38, 1, alloc, stored, sgn);
                const auto img = make_image(d, Noise, rng, true);
                check_roundtrip(d, img, nullptr, "garbage high bits");
                pcwt_header_info info;
                const auto cs = encode(d, img);
                ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
                ASSERT_EQ(info.plane_count, 2u); // a high-bit plane was needed and coded
                EXPECT_EQ(info.planes[1].kind, 1u);
            }
    // Clean data needs no high-bit plane.
    const pcwt_image_desc d = make_desc(45, 38, 1, 16, 12, true);
    const auto img = make_image(d, Noise, rng, false);
    pcwt_header_info info;
    const auto cs = encode(d, img);
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    EXPECT_EQ(info.plane_count, 1u);
}

TEST(RoundTrip, AllParameterCombinations)
{
    Rng rng(8);
    const pcwt_image_desc d = make_desc(77, 61, 1, 16, 13, true);
    const auto img = make_image(d, Noise, rng, false);
    for (uint32_t levels = 0; levels <= PCWT_MAX_LEVELS; levels++)
        for (uint32_t g : {1u, 3u, 32u, 256u}) {
            pcwt_encode_params p;
            pcwt_encode_params_default(&p);
            p.levels = levels;
            p.group_rows = g;
            p.group_cols = g == 1 ? 7 : g;
            p.min_ll = 1;
            check_roundtrip(d, img, &p, "levels " + std::to_string(levels));
        }
}

TEST(RoundTrip, LargeImage)
{
    Rng rng(9);
    const pcwt_image_desc d = make_desc(2049, 1031, 1, 16, 12, false);
    const auto img = make_image(d, Gradient, rng, false);
    check_roundtrip(d, img, nullptr, "2049x1031");
}

TEST(RoundTrip, SmoothImageCompresses)
{
    Rng rng(10);
    const pcwt_image_desc d = make_desc(256, 256, 1, 16, 12, false);
    const auto img = make_image(d, Gradient, rng, false);
    const auto cs = encode(d, img);
    EXPECT_LT(cs.size() * 4, img.size()) << "a gradient should compress at least 4:1";
}

TEST(Batch, MixedSizesEachDecodes)
{
    Rng rng(11);
    std::vector<pcwt_image_desc> descs = {make_desc(512, 512, 1, 16, 16, true),
                                          make_desc(3, 7, 1, 8, 8, false),
                                          make_desc(100, 40, 3, 8, 8, false, true)};
    std::vector<std::vector<uint8_t>> imgs, outs;
    std::vector<pcwt_frame_job> jobs(descs.size());
    for (size_t i = 0; i < descs.size(); i++) {
        imgs.push_back(make_image(descs[i], Noise, rng, false));
        outs.emplace_back(pcwt_encode_bound(&descs[i]));
        jobs[i] = pcwt_frame_job{descs[i], imgs[i].data(), imgs[i].size(), outs[i].data(),
                                 outs[i].size(), 0, PCWT_ERR_CORRUPT};
    }
    pcwt_encoder *e = pcwt_encoder_create();
    ASSERT_EQ(pcwt_encode_batch(e, jobs.data(), jobs.size()), PCWT_OK);
    for (size_t i = 0; i < jobs.size(); i++) {
        ASSERT_EQ(jobs[i].status, PCWT_OK);
        outs[i].resize(jobs[i].written);
        std::vector<uint8_t> back;
        ASSERT_EQ(decode(outs[i], back), PCWT_OK);
        EXPECT_EQ(back, imgs[i]) << "frame " << i;
        EXPECT_EQ(outs[i], encode(descs[i], imgs[i])) << "batch and single encode differ";
    }
    // A bad frame fails alone and is reported.
    jobs[1].desc.components = 2;
    EXPECT_EQ(pcwt_encode_batch(e, jobs.data(), jobs.size()), PCWT_ERR_UNSUPPORTED);
    EXPECT_EQ(jobs[0].status, PCWT_OK);
    EXPECT_EQ(jobs[1].status, PCWT_ERR_UNSUPPORTED);
    EXPECT_EQ(jobs[2].status, PCWT_OK);
    EXPECT_STRNE(pcwt_encoder_last_error(e), "");
    pcwt_encoder_destroy(e);
}

} // namespace

namespace {

// Separate handles on separate threads at the same time: every result equals the one-thread
// result (no shared state inside the library).
TEST(Threads, SeparateHandlesInParallel)
{
    Rng rng(15);
    std::vector<pcwt_image_desc> descs;
    std::vector<std::vector<uint8_t>> imgs, expect;
    for (int i = 0; i < 8; i++) {
        descs.push_back(make_desc(97 + 13 * i, 61 + 7 * i, i % 3 == 2 ? 3 : 1, 16, 12 + i % 4, i & 1));
        imgs.push_back(make_image(descs.back(), i % 2 ? Noise : Gradient, rng, i % 3 == 0));
        expect.push_back(encode(descs.back(), imgs.back()));
    }
    std::vector<int> ok(descs.size(), 0);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < descs.size(); t++)
        threads.emplace_back([&, t]() {
            int good = 1;
            for (int rep = 0; rep < 20 && good; rep++) {
                const auto cs = encode(descs[t], imgs[t]);
                std::vector<uint8_t> back;
                good = cs == expect[t] && decode(cs, back) == PCWT_OK && back == imgs[t];
            }
            ok[t] = good;
        });
    for (auto &th : threads)
        th.join();
    for (size_t t = 0; t < descs.size(); t++)
        EXPECT_EQ(ok[t], 1) << "thread " << t;
}

} // namespace
