// GPU tests of the entropy profile (profile 1) beyond the byte-identity runs that test_gpu.cpp
// makes for both profiles: a decode batch that mixes the profiles, one that mixes levels and
// group sizes, groups past the encoder's bin arena, modelled low bits, and damaged codestreams (CRCs recomputed so
// that the damage reaches the group decoders), where the GPU must reach the CPU's verdict and,
// when both accept, the CPU's samples. Label "gpu"; skipped, saying why, without a device.
#include <gtest/gtest.h>

#include "gpu_test_util.h"
#include "lattice_image.h"
#include "recrc.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

pcwt_encoder *encoder(pcwt_backend backend, pcwt_profile profile, uint32_t levels, uint32_t gr,
                      uint32_t gc)
{
    return grouped_encoder(backend, profile, levels, gr, gc);
}

pcwt_encoder *cpu_encoder(pcwt_profile profile, uint32_t levels, uint32_t gr, uint32_t gc)
{
    return grouped_encoder(PCWT_BACKEND_CPU, profile, levels, gr, gc);
}

pcwt_decoder *decoder(pcwt_backend b)
{
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_decoder_set_backend(d, b), PCWT_OK) << pcwt_decoder_last_error(d);
    return d;
}

// Decodes the streams in one GPU batch and compares every sample with the images they came from
// (the destinations start as 0xEE, so a frame left undecoded fails).
void expect_batch_decodes_to(pcwt_decoder *dgpu, const std::vector<std::vector<uint8_t>> &streams,
                             const std::vector<std::vector<uint8_t>> &imgs)
{
    std::vector<std::vector<uint8_t>> back;
    std::vector<pcwt_decode_job> jobs;
    for (size_t i = 0; i < streams.size(); i++)
        back.emplace_back(imgs[i].size(), 0xEE);
    for (size_t i = 0; i < streams.size(); i++)
        jobs.push_back({streams[i].data(), streams[i].size(), back[i].data(), back[i].size(), PCWT_OK});
    ASSERT_EQ(pcwt_decode_batch(dgpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
    for (size_t i = 0; i < imgs.size(); i++)
        EXPECT_TRUE(back[i] == imgs[i]) << "frame " << i;
}

TEST(GpuEntropy, DecodeBatchMixingProfiles)
{
    SKIP_WITHOUT_GPU();
    pcwt_encoder *base = cpu_encoder(PCWT_PROFILE_BASELINE, 6, 32, 32);
    pcwt_encoder *ent = cpu_encoder(PCWT_PROFILE_ENTROPY, 6, 32, 32);
    pcwt_decoder *dgpu = decoder(PCWT_BACKEND_GPU);
    Rng rng(21);
    std::vector<std::vector<uint8_t>> imgs, streams;
    const uint32_t sizes[][2] = {{512, 512}, {37, 91}, {640, 480}, {1, 1}, {512, 512}, {1000, 7}};
    int k = 0;
    for (const auto &s : sizes)
        for (int prof = 0; prof < 2; prof++, k++) {
            pcwt_image_desc d{s[0], s[1], 1, 16, 16, 1, 0};
            imgs.push_back(ct_like(d, rng, k % 3 == 0 ? 4000 : 40));
            streams.push_back(encode_with(prof ? ent : base, d, imgs.back()));
            ASSERT_EQ(streams.back()[5], prof) << "profile byte";
        }
    expect_batch_decodes_to(dgpu, streams, imgs);
    pcwt_encoder_destroy(base);
    pcwt_encoder_destroy(ent);
    pcwt_decoder_destroy(dgpu);
}

// One decode batch of frames of 6, 3, 1 and 0 levels, both profiles and two group sizes, at widths
// that leave the group decoder's rows (its MQD words and paired coefficient stores) unaligned and
// cut short: every sample must come back exact.
TEST(GpuEntropy, MixedLevelsAndGroupSizesKeepEverySample)
{
    SKIP_WITHOUT_GPU();
    pcwt_decoder *dgpu = decoder(PCWT_BACKEND_GPU);
    Rng rng(29);
    std::vector<std::vector<uint8_t>> imgs, streams;
    const uint32_t levels[] = {6, 3, 1, 0, 6, 3};
    const uint32_t sizes[][2] = {{512, 512}, {300, 200}, {96, 64}, {37, 91}, {640, 480}, {1000, 7}};
    for (int k = 0; k < 12; k++) {
        const uint32_t *sz = sizes[k % 6];
        pcwt_image_desc d{sz[0], sz[1], 1, 16, 16, 1, 0};
        const uint32_t g = k % 4 == 1 ? 8 : 32;
        pcwt_encoder *e = cpu_encoder(k % 5 == 2 ? PCWT_PROFILE_BASELINE : PCWT_PROFILE_ENTROPY,
                                      levels[(k + k / 6) % 6], g, g);
        imgs.push_back(ct_like(d, rng, k % 3 == 0 ? 4000 : 40));
        streams.push_back(encode_with(e, d, imgs.back()));
        pcwt_encoder_destroy(e);
    }
    expect_batch_decodes_to(dgpu, streams, imgs);
    pcwt_decoder_destroy(dgpu);
}

// The GPU encoder stores every group's bins in an arena before its range coders run; a group
// whose bins do not fit is coded by a thread that binarises it itself. With the arena cut to
// 300 KB (PCWT_OPT_GPU_BIN_ARENA), one batch takes both ways: the
// bytes must still be the CPU's. The noise frame comes first, inside the arena: its range-coder
// streams run past their scratch, so its records are raw-mode ones.
TEST(GpuEntropy, GroupsPastTheBinArenaMatchCpu)
{
    SKIP_WITHOUT_GPU();
    pcwt_encoder *cpu = cpu_encoder(PCWT_PROFILE_ENTROPY, 6, 32, 32);
    pcwt_encoder *gpu = encoder(PCWT_BACKEND_GPU, PCWT_PROFILE_ENTROPY, 6, 32, 32);
    ASSERT_EQ(pcwt_encoder_set_option(gpu, PCWT_OPT_GPU_BIN_ARENA, 300000), PCWT_OK);
    Rng rng(23);
    const uint32_t sizes[][2] = {{96, 96}, {512, 512}, {37, 91}, {640, 480}, {1, 1}, {512, 512}, {1000, 7}};
    std::vector<pcwt_image_desc> descs;
    std::vector<std::vector<uint8_t>> imgs, outs;
    std::vector<pcwt_frame_job> jobs;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        descs.push_back({sizes[k][0], sizes[k][1], 1, 16, 16, 1, 0});
        imgs.push_back(ct_like(descs.back(), rng, k == 0 ? 65536 : k % 3 == 0 ? 4000 : 40));
        outs.emplace_back(pcwt_encode_bound(&descs.back()));
    }
    for (size_t k = 0; k < descs.size(); k++)
        jobs.push_back({descs[k], imgs[k].data(), imgs[k].size(), outs[k].data(), outs[k].size(), 0, PCWT_OK});
    ASSERT_EQ(pcwt_encode_batch(gpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(gpu);
    for (size_t k = 0; k < descs.size(); k++) {
        outs[k].resize(jobs[k].written);
        EXPECT_TRUE(same_codestream(outs[k], encode_with(cpu, descs[k], imgs[k]))) << "frame " << k;
    }
    pcwt_encoder_destroy(cpu);
    pcwt_encoder_destroy(gpu);
}

// Random byte damage in the payload, CRCs made valid again: the GPU decoder must accept exactly
// what the CPU decoder accepts, with the same samples, and never crash or read out of bounds
// (compute-sanitizer memcheck runs this test on the device machine). Streams with raw-mode and
// range-coded groups, 1 to 6 levels, small and odd group sizes.
TEST(GpuEntropy, DamagedStreamsGetTheCpuVerdict)
{
    SKIP_WITHOUT_GPU();
    pcwt_decoder *dcpu = decoder(PCWT_BACKEND_CPU), *dgpu = decoder(PCWT_BACKEND_GPU);
    struct Case {
        uint32_t w, h, levels, gr, gc, noise;
        pcwt_low_bits low;
    };
    const Case cases[] = {{64, 48, 3, 8, 8, 30, PCWT_LOW_BITS_AUTO},
                          {45, 31, 1, 5, 3, 3000, PCWT_LOW_BITS_AUTO},
                          {96, 80, 6, 32, 32, 200, PCWT_LOW_BITS_AUTO},
                          {33, 65, 4, 1, 7, 10, PCWT_LOW_BITS_AUTO},
                          {64, 48, 3, 8, 8, 300, PCWT_LOW_BITS_ON}, // modelled low bits
                          {96, 80, 6, 32, 32, 2000, PCWT_LOW_BITS_ON}};
    Rng rng(22);
    int agreed_rejects = 0, agreed_accepts = 0, disagreements = 0;
    for (const Case &c : cases) {
        pcwt_encoder *e = pcwt_encoder_create();
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.backend = PCWT_BACKEND_CPU;
        p.profile = PCWT_PROFILE_ENTROPY;
        p.levels = c.levels;
        p.group_rows = c.gr;
        p.group_cols = c.gc;
        p.min_ll = 1;
        p.low_bits = c.low;
        ASSERT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
        const pcwt_image_desc d{c.w, c.h, 1, 16, 16, 1, 0};
        const std::vector<uint8_t> good = encode_with(e, d, ct_like(d, rng, c.noise));
        pcwt_encoder_destroy(e);
        ASSERT_FALSE(good.empty());
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
        const size_t payload = good.size() - info.header_length;
        const int trials = 120;
        std::vector<std::vector<uint8_t>> bad(trials), out_cpu(trials), out_gpu(trials);
        std::vector<pcwt_status> cpu_st(trials);
        std::vector<pcwt_decode_job> jobs;
        for (int t = 0; t < trials; t++) {
            bad[t] = good;
            bad[t][info.header_length + rng.next() % payload] ^= uint8_t(1 + rng.next() % 255);
            if (t % 3 == 0) // two damaged bytes
                bad[t][info.header_length + rng.next() % payload] ^= uint8_t(1 + rng.next() % 255);
            fix_crcs(bad[t], info);
            out_cpu[t].assign(pcwt_image_size(&d), 0);
            out_gpu[t].assign(pcwt_image_size(&d), 0);
            cpu_st[t] = pcwt_decode(dcpu, bad[t].data(), bad[t].size(), out_cpu[t].data(), out_cpu[t].size());
            jobs.push_back({bad[t].data(), bad[t].size(), out_gpu[t].data(), out_gpu[t].size(), PCWT_OK});
        }
        // one batch: damaged frames side by side; its status is the first failure, if any
        const pcwt_status batch = pcwt_decode_batch(dgpu, jobs.data(), jobs.size());
        bool all_ok = true;
        for (int t = 0; t < trials; t++)
            all_ok = all_ok && jobs[t].status == PCWT_OK;
        EXPECT_EQ(batch == PCWT_OK, all_ok);
        for (int t = 0; t < trials; t++) {
            const bool cpu_ok = cpu_st[t] == PCWT_OK, gpu_ok = jobs[t].status == PCWT_OK;
            if (cpu_ok != gpu_ok || (cpu_ok && out_cpu[t] != out_gpu[t])) {
                if (++disagreements <= 5) { // say what each decoder said of this stream alone
                    std::vector<uint8_t> o(out_cpu[t].size());
                    const pcwt_status s1 = pcwt_decode(dcpu, bad[t].data(), bad[t].size(), o.data(), o.size());
                    const std::string cpu_msg = pcwt_decoder_last_error(dcpu);
                    const pcwt_status s2 = pcwt_decode(dgpu, bad[t].data(), bad[t].size(), o.data(), o.size());
                    ADD_FAILURE() << c.w << "x" << c.h << " trial " << t << ": CPU "
                                  << pcwt_status_string(cpu_st[t]) << " (" << cpu_msg << "), GPU "
                                  << pcwt_status_string(jobs[t].status) << " ("
                                  << pcwt_decoder_last_error(dgpu) << "; alone: "
                                  << pcwt_status_string(s1) << " / " << pcwt_status_string(s2) << ")"
                                  << (cpu_ok && gpu_ok ? ", samples differ" : "");
                }
            } else if (cpu_ok) {
                agreed_accepts++;
            } else {
                agreed_rejects++;
            }
        }
    }
    EXPECT_EQ(disagreements, 0);
    // Both verdicts must have occurred, or the test proves little.
    EXPECT_GT(agreed_rejects, 20);
    EXPECT_GT(agreed_accepts, 20);
    std::printf("damaged profile-1 streams: %d rejected by both, %d accepted by both (same samples)\n",
                agreed_rejects, agreed_accepts);
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
}

} // namespace

// The modelled low bits (plane option bit 0): in one GPU batch, frames whose coefficients lie on a
// lattice (the automatic decision turns them on) beside ordinary ones (it leaves them off), then
// the same frames with the option forced on, and with the bin arena cut so that some groups take
// the thread-per-group coder: every codestream must be the CPU's, and the GPU decoder must give
// every sample back.
TEST(GpuEntropy, LowBitsDecidedAndCodedAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(47);
    const uint32_t sizes[][2] = {{512, 512}, {256, 192}, {37, 91}, {640, 480}, {1000, 7}, {512, 512}};
    std::vector<pcwt_image_desc> descs;
    std::vector<std::vector<uint8_t>> imgs;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        pcwt_image_desc d{sizes[k][0], sizes[k][1], 1, 16, 16, 0, 0};
        descs.push_back(d);
        if (k % 2 == 0) {
            imgs.push_back(lattice_image(d, 6, uint32_t(k)));
        } else {
            d.is_signed = 1;
            descs.back() = d;
            imgs.push_back(ct_like(d, rng, k == 3 ? 4000 : 40));
        }
    }
    pcwt_decoder *dgpu = decoder(PCWT_BACKEND_GPU);
    for (pcwt_low_bits mode : {PCWT_LOW_BITS_AUTO, PCWT_LOW_BITS_ON}) {
        pcwt_encoder *cpu = cpu_encoder(PCWT_PROFILE_ENTROPY, 6, 32, 32);
        pcwt_encoder *gpu = encoder(PCWT_BACKEND_GPU, PCWT_PROFILE_ENTROPY, 6, 32, 32);
        ASSERT_EQ(pcwt_encoder_set_option(gpu, PCWT_OPT_GPU_BIN_ARENA, 2000000), PCWT_OK);
        for (pcwt_encoder *e : {cpu, gpu}) {
            pcwt_encode_params p;
            pcwt_encode_params_default(&p);
            p.backend = e == cpu ? PCWT_BACKEND_CPU : PCWT_BACKEND_GPU;
            p.profile = PCWT_PROFILE_ENTROPY;
            p.min_ll = 1;
            p.low_bits = mode;
            ASSERT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK) << pcwt_encoder_last_error(e);
        }
        std::vector<std::vector<uint8_t>> outs;
        std::vector<pcwt_frame_job> jobs;
        for (const auto &d : descs)
            outs.emplace_back(pcwt_encode_bound(&d));
        for (size_t k = 0; k < descs.size(); k++)
            jobs.push_back({descs[k], imgs[k].data(), imgs[k].size(), outs[k].data(), outs[k].size(), 0, PCWT_OK});
        ASSERT_EQ(pcwt_encode_batch(gpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(gpu);
        for (size_t k = 0; k < descs.size(); k++) {
            outs[k].resize(jobs[k].written);
            EXPECT_TRUE(same_codestream(outs[k], encode_with(cpu, descs[k], imgs[k])))
                << "mode " << int(mode) << " frame " << k;
            pcwt_header_info info;
            ASSERT_EQ(pcwt_read_header(outs[k].data(), outs[k].size(), &info), PCWT_OK);
            // on: forced; auto: on for the large lattice frame, off for the CT-like ones (the small
            // lattice frames decide as the CPU does, which same_codestream checks)
            if (mode == PCWT_LOW_BITS_ON || k == 0 || k % 2 == 1)
                EXPECT_EQ(info.planes[0].low_bits, uint32_t(mode == PCWT_LOW_BITS_ON || k == 0))
                    << "mode " << int(mode) << " frame " << k;
        }
        expect_batch_decodes_to(dgpu, outs, imgs);
        pcwt_encoder_destroy(cpu);
        pcwt_encoder_destroy(gpu);
    }
    pcwt_decoder_destroy(dgpu);
}
