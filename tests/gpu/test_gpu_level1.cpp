// The 5/11-C level-1 filter (docs/FORMAT.md Sec. 3.4) with the GPU backend: the GPU encoder
// writes the CPU's bytes with level1-filter auto and 511 (synthetic frames that take 5/11-C and
// that keep 5/3, mixed in one batch; every corpus image of PCWT_GPU_CORPUS), and the GPU decoder
// and pcwt_verify_batch give back every sample of the CPU's 5/11-C codestreams, mixed with 5/3
// ones. The device has no twin of the filter yet: such frames are coded and decoded on the CPU
// by the backend, which these tests hold to the same bytes and samples. Label gpu; skipped without
// CUDA or a device.
#include "gpu_test_util.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

pcwt_encoder *encoder(pcwt_backend b, pcwt_profile profile, pcwt_level1_filter f)
{
    pcwt_encoder *e = test_encoder(b, profile);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_LEVEL1_FILTER, f), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

// 16-bit signed words: smooth (a soft-kernel slice in miniature, takes 5/11-C) or noisy (keeps 5/3).
std::vector<uint8_t> frame(const pcwt_image_desc &d, bool smooth, Rng &rng)
{
    std::vector<uint8_t> out(size_t(d.width) * d.height * 2);
    for (uint32_t y = 0; y < d.height; y++)
        for (uint32_t x = 0; x < d.width; x++) {
            int v = smooth ? int(900.0 * std::sin(x / 9.0) * std::cos(y / 7.0)) + int(rng.next() % 3)
                           : int(rng.next() % 4000) - 2000;
            const size_t i = size_t(y) * d.width + x;
            out[2 * i] = uint8_t(v);
            out[2 * i + 1] = uint8_t(v >> 8);
        }
    return out;
}

} // namespace

TEST(GpuLevel1, SameBytesAsTheCpuAndDecodedOnEitherBackend)
{
    SKIP_WITHOUT_GPU();
    Rng rng(51);
    const pcwt_image_desc d{131, 97, 1, 16, 16, 1, 0};
    std::vector<std::vector<uint8_t>> frames;
    for (bool smooth : {true, false, true, false})
        frames.push_back(frame(d, smooth, rng));
    for (pcwt_profile prof : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT})
        for (pcwt_level1_filter f : {PCWT_LEVEL1_53, PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
            SCOPED_TRACE("profile " + std::to_string(prof) + " level1-filter " + std::to_string(f));
            pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, prof, f), *egpu = encoder(PCWT_BACKEND_GPU, prof, f);
            std::vector<std::vector<uint8_t>> cpu, gpu(frames.size());
            for (const auto &fr : frames)
                cpu.push_back(encode_with(ecpu, d, fr));
            std::vector<pcwt_frame_job> jobs(frames.size());
            for (size_t k = 0; k < frames.size(); k++) {
                gpu[k].resize(pcwt_encode_bound(&d));
                jobs[k] = {d, frames[k].data(), frames[k].size(), gpu[k].data(), gpu[k].size(), 0, PCWT_OK};
            }
            ASSERT_EQ(pcwt_encode_batch(egpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(egpu);
            size_t f511 = 0;
            for (size_t k = 0; k < frames.size(); k++) {
                gpu[k].resize(jobs[k].written);
                EXPECT_TRUE(same_codestream(cpu[k], gpu[k])) << "frame " << k;
                // one frame through pcwt_encode on the GPU handle too
                EXPECT_TRUE(same_codestream(cpu[k], encode_with(egpu, d, frames[k]))) << "frame " << k;
                pcwt_header_info info;
                ASSERT_EQ(pcwt_read_header(cpu[k].data(), cpu[k].size(), &info), PCWT_OK);
                f511 += info.planes[0].level1_511;
            }
            EXPECT_EQ(f511, f == PCWT_LEVEL1_53 ? 0u : f == PCWT_LEVEL1_511 ? 4u : 2u);
            pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
            std::vector<std::vector<uint8_t>> out(frames.size(), std::vector<uint8_t>(frames[0].size(), 0x5a));
            std::vector<pcwt_decode_job> dj(frames.size());
            std::vector<pcwt_verify_job> vj(frames.size());
            for (size_t k = 0; k < frames.size(); k++) {
                dj[k] = {cpu[k].data(), cpu[k].size(), out[k].data(), out[k].size(), PCWT_OK};
                vj[k] = {cpu[k].data(), cpu[k].size(), frames[k].data(), frames[k].size(), 0, PCWT_OK};
            }
            ASSERT_EQ(pcwt_decode_batch(dgpu, dj.data(), dj.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
            for (size_t k = 0; k < frames.size(); k++)
                EXPECT_TRUE(out[k] == frames[k]) << "frame " << k;
            EXPECT_EQ(pcwt_verify_batch(dgpu, vj.data(), vj.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
            // a changed expected sample of the first (smooth) frame is a mismatch
            std::vector<uint8_t> changed = frames[0];
            changed[2 * 500] ^= 1;
            vj[0].expected = changed.data();
            EXPECT_NE(pcwt_verify_batch(dgpu, vj.data(), vj.size()), PCWT_OK);
            EXPECT_EQ(vj[0].first_difference, 1000u); // the first byte that differs
            std::vector<uint8_t> one(frames[0].size(), 0x5a);
            ASSERT_EQ(pcwt_decode(dgpu, cpu[0].data(), cpu[0].size(), one.data(), one.size()), PCWT_OK)
                << pcwt_decoder_last_error(dgpu);
            EXPECT_TRUE(one == frames[0]);
            pcwt_decoder_destroy(dgpu);
            pcwt_encoder_destroy(ecpu);
            pcwt_encoder_destroy(egpu);
        }
}

// Every corpus image (PCWT_GPU_CORPUS, tests/gpu/pack_corpus.sh): the GPU encoder's bytes with
// level1-filter auto and 511 are the CPU's, and the GPU decodes them to the image.
TEST(GpuLevel1, CorpusMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    const char *dir = std::getenv("PCWT_GPU_CORPUS");
    if (!dir)
        GTEST_SKIP() << "GPU corpus test skipped: set PCWT_GPU_CORPUS to a folder made by tests/gpu/pack_corpus.sh";
    const std::vector<std::string> files = gpu_corpus_files(dir);
    ASSERT_GT(files.size(), 10u) << "too few corpus codestreams in " << dir;
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    size_t taken = 0;
    for (pcwt_level1_filter f : {PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
        pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_COMPACT, f);
        pcwt_encoder *egpu = encoder(PCWT_BACKEND_GPU, PCWT_PROFILE_COMPACT, f);
        for (const std::string &file : files) {
            const std::vector<uint8_t> cs = read_file(file);
            pcwt_header_info h;
            ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &h), PCWT_OK) << file;
            std::vector<uint8_t> img(pcwt_image_size(&h.desc)), g(img.size(), 0x33);
            ASSERT_EQ(pcwt_decode(dcpu, cs.data(), cs.size(), img.data(), img.size()), PCWT_OK) << file;
            const std::vector<uint8_t> want = encode_with(ecpu, h.desc, img);
            const std::vector<uint8_t> got = encode_with(egpu, h.desc, img);
            ASSERT_TRUE(same_codestream(want, got)) << file << ": GPU codestream differs from the CPU's";
            ASSERT_EQ(pcwt_decode(dgpu, got.data(), got.size(), g.data(), g.size()), PCWT_OK)
                << file << ": " << pcwt_decoder_last_error(dgpu);
            ASSERT_TRUE(g == img) << file << ": GPU decode differs";
            pcwt_header_info w;
            ASSERT_EQ(pcwt_read_header(want.data(), want.size(), &w), PCWT_OK);
            for (uint32_t p = 0; p < w.plane_count; p++)
                taken += w.planes[p].level1_511;
        }
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
    EXPECT_GT(taken, 0u);
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
    std::printf("GPU corpus, level-1 filter auto and 511: %zu codestreams identical on CPU and GPU, "
                "%zu planes with 5/11-C\n", 2 * files.size(), taken);
}
