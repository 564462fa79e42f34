// The modelled second mantissa bit (docs/FORMAT.md Sec. 5.3, plane option bit 4) on the GPU: with
// second-bit on (the default) and off, and the low bits modelled (auto, on, off), the GPU encoder
// writes the CPU's bytes for noisy, smooth, sparse, colour and high-bit planes of 8 and 16 bits in
// the entropy and compact profiles, and the GPU decoder and pcwt_verify_batch give back every
// sample of the CPU's codestreams; every corpus image of PCWT_GPU_CORPUS likewise with the option
// off (the default's bytes are checked on the corpus by GpuLevel1.CorpusMatchesCpu and the other
// corpus tests). Label gpu; skipped without CUDA or a device.
#include "gpu_test_util.h"

#include <string>
#include <vector>

namespace {

pcwt_encoder *encoder(pcwt_backend b, pcwt_profile profile, pcwt_second_bit second, pcwt_low_bits low)
{
    pcwt_encoder *e = test_encoder(b, profile);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_SECOND_BIT, second), PCWT_OK) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_LOW_BITS, low), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

std::vector<GpuCase> cases()
{
    Rng rng(61);
    std::vector<GpuCase> out;
    const uint32_t sizes[][2] = {{1, 1}, {3, 5}, {64, 2}, {131, 97}, {513, 260}};
    int n = 0;
    for (const auto &s : sizes)
        for (uint32_t alloc : {8u, 16u})
            for (int pattern : {0, 1, 4}) {
                const uint32_t sgn = uint32_t(n++ % 2);
                const pcwt_image_desc d{s[0], s[1], 1, alloc, alloc == 16 ? (sgn ? 16u : 12u) : 8u, sgn, 0};
                out.push_back({std::to_string(s[0]) + "x" + std::to_string(s[1]) + " " + std::to_string(alloc) +
                                   " bits pattern " + std::to_string(pattern),
                               d, random_image(d, rng, pattern)});
            }
    const pcwt_image_desc rgb{75, 61, 3, 8, 8, 0, 0};
    out.push_back({"rgb", rgb, random_image(rgb, rng, 1)});
    const pcwt_image_desc sparse{200, 150, 1, 16, 16, 1, 0};
    out.push_back({"sparse", sparse, random_image(sparse, rng, 3)});
    const pcwt_image_desc ct{512, 512, 1, 16, 16, 1, 0};
    out.push_back({"ct-like", ct, ct_like(ct, rng, 400)});
    return out;
}

} // namespace

TEST(GpuSecondBit, SyntheticPlanesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    const std::vector<GpuCase> cs = cases();
    size_t with = 0;
    for (pcwt_profile profile : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT})
        for (pcwt_second_bit second : {PCWT_SECOND_BIT_ON, PCWT_SECOND_BIT_OFF})
            for (pcwt_low_bits low : {PCWT_LOW_BITS_AUTO, PCWT_LOW_BITS_ON, PCWT_LOW_BITS_OFF}) {
                pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, profile, second, low);
                pcwt_encoder *egpu = encoder(PCWT_BACKEND_GPU, profile, second, low);
                const std::string label = "profile " + std::to_string(profile) + " second " +
                                          std::to_string(second) + " low " + std::to_string(low);
                for (const auto &c : check_gpu_batch(ecpu, egpu, cs, label)) {
                    pcwt_header_info h;
                    ASSERT_EQ(pcwt_read_header(c.data(), c.size(), &h), PCWT_OK) << label;
                    for (uint32_t p = 0; p < h.plane_count; p++) {
                        EXPECT_EQ(h.planes[p].second_bit, second == PCWT_SECOND_BIT_ON ? 1u : 0u) << label;
                        with += h.planes[p].second_bit;
                    }
                }
                pcwt_encoder_destroy(ecpu);
                pcwt_encoder_destroy(egpu);
            }
    EXPECT_GT(with, 0u);
}

TEST(GpuSecondBit, CorpusOffMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    GPU_CORPUS_OR_SKIP(files);
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_COMPACT, PCWT_SECOND_BIT_OFF, PCWT_LOW_BITS_AUTO);
    pcwt_encoder *egpu = encoder(PCWT_BACKEND_GPU, PCWT_PROFILE_COMPACT, PCWT_SECOND_BIT_OFF, PCWT_LOW_BITS_AUTO);
    for (const std::string &file : files) {
        std::vector<uint8_t> cs, img;
        pcwt_header_info h;
        ASSERT_TRUE(corpus_image(dcpu, file, cs, h, img));
        const std::vector<uint8_t> want = encode_with(ecpu, h.desc, img);
        const std::vector<uint8_t> got = encode_with(egpu, h.desc, img);
        ASSERT_TRUE(same_codestream(want, got)) << file << ": GPU codestream differs from the CPU's";
        std::vector<uint8_t> g(img.size(), 0x33);
        ASSERT_EQ(pcwt_decode(dgpu, got.data(), got.size(), g.data(), g.size()), PCWT_OK)
            << file << ": " << pcwt_decoder_last_error(dgpu);
        ASSERT_TRUE(g == img) << file << ": GPU decode differs";
    }
    pcwt_encoder_destroy(ecpu);
    pcwt_encoder_destroy(egpu);
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
}
