// The compact profile (value maps, docs/FORMAT.md Sec. 5.5) with the GPU backend: the same bytes as
// the CPU encoder, frames with and without maps in one batch (the GPU codes the frames without
// maps; the frames whose planes get maps are coded on the CPU, which the encoder's notice says),
// and decoding and verifying through the GPU backend (value-mapped codestreams go to the CPU
// decoder) give back every sample; damaged maps are refused as on the CPU. Label gpu; skipped
// without CUDA or a device.
#include "gpu_test_util.h"

#include <string>
#include <vector>

namespace {

pcwt_encoder *encoder(pcwt_backend b, pcwt_value_map_mode mode)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = b;
    p.profile = PCWT_PROFILE_COMPACT;
    p.value_map = mode;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

pcwt_decoder *decoder(pcwt_backend b)
{
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_decoder_set_backend(d, b), PCWT_OK);
    return d;
}

// 16-bit words of a frame: a smooth ramp over `step`-spaced values (sparse when step > 1), signed.
std::vector<uint8_t> frame(const pcwt_image_desc &d, int step, Rng &rng)
{
    std::vector<uint8_t> out(size_t(d.width) * d.height * 2);
    for (uint32_t y = 0; y < d.height; y++)
        for (uint32_t x = 0; x < d.width; x++) {
            const int v = ((int(x) * 3 + int(y) * 2 + int(rng.next() % 5)) % 900 - 450) * step;
            const size_t i = size_t(y) * d.width + x;
            out[2 * i] = uint8_t(v);
            out[2 * i + 1] = uint8_t(v >> 8);
        }
    return out;
}

} // namespace

TEST(GpuCompact, SameBytesAsTheCpuAndDecodedOnEitherBackend)
{
    SKIP_WITHOUT_GPU();
    Rng rng(41);
    const pcwt_image_desc d{96, 80, 1, 16, 16, 1, 0};
    std::vector<std::vector<uint8_t>> frames;
    for (int step : {1, 4, 1, 9}) // dense (no map) and sparse (mapped) frames alternating
        frames.push_back(frame(d, step, rng));
    for (pcwt_value_map_mode mode : {PCWT_VALUE_MAP_AUTO, PCWT_VALUE_MAP_OFF, PCWT_VALUE_MAP_ON}) {
        pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, mode), *egpu = encoder(PCWT_BACKEND_GPU, mode);
        std::vector<std::vector<uint8_t>> cpu, gpu(frames.size());
        for (const auto &f : frames)
            cpu.push_back(encode_with(ecpu, d, f));
        std::vector<pcwt_frame_job> jobs(frames.size());
        for (size_t k = 0; k < frames.size(); k++) {
            gpu[k].resize(pcwt_encode_bound(&d));
            jobs[k] = {d, frames[k].data(), frames[k].size(), gpu[k].data(), gpu[k].size(), 0, PCWT_OK};
        }
        ASSERT_EQ(pcwt_encode_batch(egpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(egpu);
        size_t mapped = 0;
        for (size_t k = 0; k < frames.size(); k++) {
            gpu[k].resize(jobs[k].written);
            EXPECT_TRUE(same_codestream(cpu[k], gpu[k])) << "mode " << mode << " frame " << k;
            pcwt_header_info info;
            ASSERT_EQ(pcwt_read_header(cpu[k].data(), cpu[k].size(), &info), PCWT_OK);
            mapped += info.planes[0].value_map;
        }
        EXPECT_EQ(mapped, mode == PCWT_VALUE_MAP_OFF ? 0u : mode == PCWT_VALUE_MAP_ON ? 4u : 2u);
        if (mapped)
            EXPECT_NE(std::string(pcwt_encoder_last_error(egpu)).find("value maps"), std::string::npos)
                << pcwt_encoder_last_error(egpu);
        // Decoded in one batch by the GPU backend, and verified against the originals.
        pcwt_decoder *dgpu = decoder(PCWT_BACKEND_GPU);
        std::vector<std::vector<uint8_t>> out(frames.size(), std::vector<uint8_t>(frames[0].size()));
        std::vector<pcwt_decode_job> dj(frames.size());
        std::vector<pcwt_verify_job> vj(frames.size());
        for (size_t k = 0; k < frames.size(); k++) {
            dj[k] = {cpu[k].data(), cpu[k].size(), out[k].data(), out[k].size(), PCWT_OK};
            vj[k] = {cpu[k].data(), cpu[k].size(), frames[k].data(), frames[k].size(), 0, PCWT_OK};
        }
        ASSERT_EQ(pcwt_decode_batch(dgpu, dj.data(), dj.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
        for (size_t k = 0; k < frames.size(); k++)
            EXPECT_TRUE(out[k] == frames[k]) << "mode " << mode << " frame " << k;
        EXPECT_EQ(pcwt_verify_batch(dgpu, vj.data(), vj.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
        // A sample changed in the expected frame of a mapped codestream is a mismatch.
        if (mapped) {
            std::vector<uint8_t> changed = frames[1];
            changed[100] ^= 1;
            pcwt_verify_job one = {cpu[1].data(), cpu[1].size(), changed.data(), changed.size(), 0, PCWT_OK};
            EXPECT_EQ(pcwt_verify_batch(dgpu, &one, 1), PCWT_ERR_MISMATCH);
            EXPECT_EQ(one.first_difference, 100u);
        }
        pcwt_decoder_destroy(dgpu);
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
}

TEST(GpuCompact, DamagedMapRefusedByTheGpuBackend)
{
    SKIP_WITHOUT_GPU();
    Rng rng(42);
    const pcwt_image_desc d{64, 48, 1, 16, 16, 1, 0};
    const std::vector<uint8_t> f = frame(d, 5, rng);
    pcwt_encoder *e = encoder(PCWT_BACKEND_CPU, PCWT_VALUE_MAP_ON);
    std::vector<uint8_t> cs = encode_with(e, d, f);
    pcwt_encoder_destroy(e);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].value_map, 1u);
    cs[info.header_length] = 0; // a map of 0 values (the payload CRC then differs as well)
    pcwt_decoder *dgpu = decoder(PCWT_BACKEND_GPU);
    std::vector<uint8_t> out(f.size());
    EXPECT_NE(pcwt_decode(dgpu, cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    EXPECT_FALSE(std::string(pcwt_decoder_last_error(dgpu)).empty());
    pcwt_decoder_destroy(dgpu);
}
