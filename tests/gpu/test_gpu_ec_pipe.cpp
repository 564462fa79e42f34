// GPU tests of the entropy decode with the levels overlapping (group_coder_ec_pipe_gpu.cu) against
// the decode a launch per step. The decoder pipelines every step of a batch of at most 8 groups per
// multiprocessor, and the coarse steps of a larger one (its finest step launched after them);
// groups of odd sizes keep the step launches (gpu_ec_pipe_steps). So the batch's shape picks the
// path here: each frame alone (at most 256 groups: every step pipelined on a device of 32
// multiprocessors or more), all of them in one batch padded to over 4096 groups (the coarse steps
// pipelined on a device of 512 or fewer), and radiograph-sized frames beside slices.
// Frames of the entropy and compact profiles with 6, 3, 1 and 0 levels, even and odd group sizes
// (a frame with odd ones keeps the step launches), smooth frames (every group range-coded) and
// noisy ones (raw-mode groups too), must give every sample back both ways; damaged codestreams
// (CRCs recomputed) must get the same verdict and, when accepted, the same samples, and must not
// hang a decode. Label "gpu"; skipped, saying why, without a device.
#include <gtest/gtest.h>

#include "gpu_test_util.h"
#include "recrc.h"

#include <cstdint>
#include <vector>

namespace {

// One GPU batch decode; the statuses and the samples (destinations start as 0xEE).
pcwt_status decode_batch(pcwt_decoder *d, const std::vector<std::vector<uint8_t>> &streams,
                         const std::vector<size_t> &sizes, std::vector<std::vector<uint8_t>> &out,
                         std::vector<pcwt_status> &st)
{
    out.clear();
    std::vector<pcwt_decode_job> jobs;
    for (size_t i = 0; i < streams.size(); i++)
        out.emplace_back(sizes[i], 0xEE);
    for (size_t i = 0; i < streams.size(); i++)
        jobs.push_back({streams[i].data(), streams[i].size(), out[i].data(), out[i].size(), PCWT_OK});
    const pcwt_status s = pcwt_decode_batch(d, jobs.data(), jobs.size());
    st.clear();
    for (const pcwt_decode_job &j : jobs)
        st.push_back(j.status);
    return s;
}

struct Set {
    std::vector<std::vector<uint8_t>> imgs, streams;
    std::vector<size_t> sizes;
};

// Frames of each profile, level count and group size; noise: the amplitude of every third frame's
// noise (4000: raw-mode groups), 0 for none; odd: some frames with groups of 7x9 (a batch with them
// keeps the step launches).
Set make_set(uint32_t noise, uint64_t seed, bool odd)
{
    Set s;
    Rng rng(seed);
    const uint32_t levels[] = {6, 3, 1, 0, 6, 6};
    const uint32_t sizes[][2] = {{512, 512}, {300, 200}, {96, 64}, {37, 91}, {640, 480}, {1000, 7}};
    const uint32_t groups[][2] = {{64, 16}, {16, 16}, {32, 32},
                                  {64, 16}, {16, 64}, {odd ? 7u : 32u, odd ? 9u : 16u}};
    for (int k = 0; k < 12; k++) {
        const uint32_t *sz = sizes[k % 6], *g = groups[(k + k / 6) % 6];
        pcwt_image_desc d{sz[0], sz[1], 1, 16, 16, 1, 0};
        const pcwt_profile prof = k % 2 ? PCWT_PROFILE_COMPACT : PCWT_PROFILE_ENTROPY;
        pcwt_encoder *e = grouped_encoder(PCWT_BACKEND_CPU, prof,
                                          levels[(k + k / 6) % 6], g[0], g[1]);
        s.imgs.push_back(ct_like(d, rng, k % 3 == 0 ? noise : 0));
        s.streams.push_back(encode_with(e, d, s.imgs.back()));
        s.sizes.push_back(s.imgs.back().size());
        pcwt_encoder_destroy(e);
    }
    return s;
}

// s with four frames of 512x512 samples in groups of 8x8 elements (1027 groups each) after its
// own: a batch of them has over 4096 groups, for the coarse steps pipelined.
Set padding(const Set &s)
{
    Set p = s;
    Rng rng(99);
    const pcwt_image_desc d{512, 512, 1, 16, 16, 1, 0};
    pcwt_encoder *e = grouped_encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_COMPACT, 6, 8, 8);
    for (int k = 0; k < 4; k++) {
        p.imgs.push_back(ct_like(d, rng, 0));
        p.streams.push_back(encode_with(e, d, p.imgs.back()));
        p.sizes.push_back(p.imgs.back().size());
    }
    pcwt_encoder_destroy(e);
    return p;
}

void expect_both_ways_exact(const Set &s)
{
    pcwt_decoder *d = test_decoder(PCWT_BACKEND_GPU);
    const Set padded = padding(s);
    std::vector<std::vector<uint8_t>> out;
    std::vector<pcwt_status> st;
    ASSERT_EQ(decode_batch(d, padded.streams, padded.sizes, out, st), PCWT_OK) << pcwt_decoder_last_error(d);
    for (size_t i = 0; i < padded.imgs.size(); i++)
        EXPECT_TRUE(out[i] == padded.imgs[i]) << "frame " << i << " in the padded batch";
    for (size_t i = 0; i < s.imgs.size(); i++) {
        std::vector<uint8_t> one(s.sizes[i], 0xEE);
        ASSERT_EQ(pcwt_decode(d, s.streams[i].data(), s.streams[i].size(), one.data(), one.size()),
                  PCWT_OK) << pcwt_decoder_last_error(d);
        EXPECT_TRUE(one == s.imgs[i]) << "frame " << i << " alone";
    }
    pcwt_decoder_destroy(d);
}

TEST(GpuEcPipe, SmoothBatchesExactBothWays)
{
    SKIP_WITHOUT_GPU();
    expect_both_ways_exact(make_set(0, 3, false));
}

TEST(GpuEcPipe, OddGroupSizesExactBothWays)
{
    SKIP_WITHOUT_GPU();
    expect_both_ways_exact(make_set(0, 13, true));
}

TEST(GpuEcPipe, BatchesWithRawGroupsExactBothWays)
{
    SKIP_WITHOUT_GPU();
    expect_both_ways_exact(make_set(4000, 5, false));
}

// Damaged payloads of smooth frames, in one padded batch and one at a time: the overlapped decode
// reaches the step launches' verdict on each, and their samples where both accept (a damaged record
// may read as a raw-mode one).
TEST(GpuEcPipe, DamagedStreamsSameVerdicts)
{
    SKIP_WITHOUT_GPU();
    const Set s = make_set(0, 7, false), pad = padding(Set{});
    pcwt_decoder *d = test_decoder(PCWT_BACKEND_GPU);
    Rng rng(11);
    int rejected = 0, accepted = 0;
    for (int round = 0; round < 4; round++) {
        std::vector<std::vector<uint8_t>> bad;
        std::vector<size_t> sizes;
        for (size_t i = 0; i < s.streams.size(); i++)
            for (int t = 0; t < 4; t++) {
                std::vector<uint8_t> cs = s.streams[i];
                pcwt_header_info info;
                ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
                const size_t payload = cs.size() - info.header_length;
                if (!payload)
                    continue;
                cs[info.header_length + rng.next() % payload] ^= uint8_t(1 + rng.next() % 255);
                fix_crcs(cs, info);
                bad.push_back(cs);
                sizes.push_back(s.sizes[i]);
            }
        // in a batch padded past the few groups that pipeline every step, and one at a time
        const size_t n = bad.size();
        bad.insert(bad.end(), pad.streams.begin(), pad.streams.end());
        sizes.insert(sizes.end(), pad.sizes.begin(), pad.sizes.end());
        std::vector<std::vector<uint8_t>> out, alone;
        std::vector<pcwt_status> st, st_alone;
        decode_batch(d, bad, sizes, out, st);
        for (size_t k = 0; k < n; k++) {
            alone.emplace_back(sizes[k], 0xEE);
            st_alone.push_back(pcwt_decode(d, bad[k].data(), bad[k].size(), alone[k].data(), alone[k].size()));
        }
        for (size_t k = n; k < bad.size(); k++)
            EXPECT_TRUE(st[k] == PCWT_OK && out[k] == pad.imgs[k - n]) << "round " << round << " padding " << k - n;
        for (size_t k = 0; k < n; k++) {
            EXPECT_EQ(st[k] == PCWT_OK, st_alone[k] == PCWT_OK) << "round " << round << " stream " << k;
            if (st[k] == PCWT_OK && st_alone[k] == PCWT_OK)
                EXPECT_TRUE(out[k] == alone[k]) << "round " << round << " stream " << k;
            (st[k] == PCWT_OK ? accepted : rejected)++;
        }
    }
    EXPECT_GT(rejected, 20); // both verdicts occur, or the test proves little
    EXPECT_GT(accepted, 5);
    pcwt_decoder_destroy(d);
}

// Radiograph-sized frames (2000x2500, the default compact profile, one noisy: raw-mode groups)
// beside CT slices of 6 and 3 levels in the compact and entropy profiles, about 3000 groups in all:
// one GPU batch (the coarse steps pipelined, the finest launched after them) gives the CPU
// decoder's samples, which are the images; again with a baseline frame in the batch (its groups
// decoded a step at a time beside the pipelined ones).
TEST(GpuEcPipe, RadiographsBesideSlicesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(31);
    Set s;
    const pcwt_image_desc rad{2000, 2500, 1, 16, 16, 1, 0}, ct{512, 512, 1, 16, 16, 1, 0};
    pcwt_encoder *e = test_encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_COMPACT);
    for (int k = 0; k < 2; k++) {
        s.imgs.push_back(ct_like(rad, rng, k ? 4000 : 0));
        s.streams.push_back(encode_with(e, rad, s.imgs.back()));
    }
    pcwt_encoder_destroy(e);
    for (int k = 0; k < 6; k++) {
        e = grouped_encoder(PCWT_BACKEND_CPU, k % 2 ? PCWT_PROFILE_ENTROPY : PCWT_PROFILE_COMPACT,
                            k % 3 ? 6 : 3, 64, 16);
        s.imgs.push_back(ct_like(ct, rng, k == 4 ? 4000 : 0));
        s.streams.push_back(encode_with(e, ct, s.imgs.back()));
        pcwt_encoder_destroy(e);
    }
    pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU), *dcpu = test_decoder(PCWT_BACKEND_CPU);
    for (int mixed = 0; mixed < 2; mixed++) {
        if (mixed) {
            e = grouped_encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_BASELINE, 6, 32, 32);
            s.imgs.push_back(ct_like(ct, rng, 0));
            s.streams.push_back(encode_with(e, ct, s.imgs.back()));
            pcwt_encoder_destroy(e);
        }
        s.sizes.clear();
        for (const std::vector<uint8_t> &img : s.imgs)
            s.sizes.push_back(img.size());
        std::vector<std::vector<uint8_t>> out;
        std::vector<pcwt_status> st;
        ASSERT_EQ(decode_batch(dgpu, s.streams, s.sizes, out, st), PCWT_OK) << pcwt_decoder_last_error(dgpu);
        for (size_t i = 0; i < s.imgs.size(); i++) {
            std::vector<uint8_t> cpu(s.sizes[i], 0xEE);
            ASSERT_EQ(pcwt_decode(dcpu, s.streams[i].data(), s.streams[i].size(), cpu.data(), cpu.size()),
                      PCWT_OK) << pcwt_decoder_last_error(dcpu);
            EXPECT_TRUE(cpu == s.imgs[i]) << "frame " << i << " on the CPU";
            EXPECT_TRUE(out[i] == cpu) << "frame " << i << (mixed ? " with a baseline frame" : "");
        }
    }
    pcwt_decoder_destroy(dgpu);
    pcwt_decoder_destroy(dcpu);
}

} // namespace
