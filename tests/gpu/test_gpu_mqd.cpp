// GPU parity of the MQD check (ctest label "gpu"): the CRC-valid codestreams of tests/unit/
// crafted_mqd.h, which decode to valid samples but declare an MQD above its element's largest
// level, are PCWT_ERR_CORRUPT on the GPU as on the CPU, alone and as jobs of a batch whose other
// frames decode exactly. Without CUDA or a device they skip and say why.
#include <gtest/gtest.h>

#include "gpu_test_util.h"
#include "pcwt.h"
#include "unit/crafted_mqd.h"

#include <string>
#include <vector>

namespace {

struct Named {
    const char *what;
    CraftedMqd c;
};

std::vector<Named> crafted_all()
{
    return {{"baseline, no transform", crafted_baseline_leaf()},
            {"baseline, level 2 above its children", crafted_zero_frame(PCWT_PROFILE_BASELINE, 1)},
            {"baseline, level 1", crafted_zero_frame(PCWT_PROFILE_BASELINE, 4)},
            {"entropy, level 2 above its children", crafted_zero_frame(PCWT_PROFILE_ENTROPY, 1)}};
}

pcwt_decoder *decoder_on(pcwt_backend b)
{
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_decoder_set_backend(d, b), PCWT_OK) << pcwt_decoder_last_error(d);
    return d;
}

// A noise frame of w x h, 16 bits (12 stored), in `profile`, coded on the CPU.
std::vector<uint8_t> good_frame(uint32_t w, uint32_t h, pcwt_profile profile, uint64_t seed,
                                std::vector<uint8_t> *samples)
{
    pcwt_image_desc d{};
    d.width = w;
    d.height = h;
    d.components = 1;
    d.bits_allocated = 16;
    d.bits_stored = 12;
    samples->resize(pcwt_image_size(&d));
    Rng rng(seed);
    for (size_t i = 0; i < samples->size(); i += 2) {
        const uint32_t v = (rng.next() % 64) + ((i / 2) % w) * 8; // a ramp with noise
        (*samples)[i] = uint8_t(v);
        (*samples)[i + 1] = uint8_t((v >> 8) & 0x0F);
    }
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.profile = profile;
    p.backend = PCWT_BACKEND_CPU;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
    auto cs = encode_with(e, d, *samples);
    pcwt_encoder_destroy(e);
    return cs;
}

} // namespace

TEST(GpuMqd, CraftedStreamsAreCorruptAlone)
{
    SKIP_WITHOUT_GPU();
    pcwt_decoder *cpu = decoder_on(PCWT_BACKEND_CPU), *gpu = decoder_on(PCWT_BACKEND_GPU);
    for (const Named &n : crafted_all()) {
        ASSERT_FALSE(n.c.cs.empty()) << n.what;
        std::vector<uint8_t> out(n.c.samples.size());
        EXPECT_EQ(pcwt_decode(cpu, n.c.cs.data(), n.c.cs.size(), out.data(), out.size()),
                  PCWT_ERR_CORRUPT)
            << n.what;
        EXPECT_EQ(pcwt_decode(gpu, n.c.cs.data(), n.c.cs.size(), out.data(), out.size()),
                  PCWT_ERR_CORRUPT)
            << n.what << ": " << pcwt_decoder_last_error(gpu);
        EXPECT_NE(std::string(pcwt_decoder_last_error(gpu)).find("MQD"), std::string::npos)
            << n.what << ": " << pcwt_decoder_last_error(gpu);
    }
    pcwt_decoder_destroy(cpu);
    pcwt_decoder_destroy(gpu);
}

// Good frames of both profiles around each crafted one: only the crafted jobs fail, the others
// come back sample-exact (decode) or matching (verify).
TEST(GpuMqd, CraftedStreamsFailOnlyTheirJobsInABatch)
{
    SKIP_WITHOUT_GPU();
    const std::vector<Named> bad = crafted_all();
    std::vector<std::vector<uint8_t>> cs, want;
    std::vector<bool> is_bad;
    for (size_t k = 0; k < bad.size(); k++) {
        for (uint32_t g = 0; g < 2; g++) {
            std::vector<uint8_t> s;
            cs.push_back(good_frame(96 + 32 * g, 80 + 16 * uint32_t(k % 3),
                                    g ? PCWT_PROFILE_ENTROPY : PCWT_PROFILE_BASELINE, 7 + 2 * k + g, &s));
            want.push_back(s);
            is_bad.push_back(false);
        }
        ASSERT_FALSE(bad[k].c.cs.empty()) << bad[k].what;
        cs.push_back(bad[k].c.cs);
        want.push_back(bad[k].c.samples);
        is_bad.push_back(true);
    }
    const size_t n = cs.size();
    std::vector<std::vector<uint8_t>> out(n);
    std::vector<pcwt_decode_job> jobs(n);
    std::vector<pcwt_verify_job> vjobs(n);
    for (size_t i = 0; i < n; i++) {
        ASSERT_FALSE(cs[i].empty());
        out[i].assign(want[i].size(), 0);
        jobs[i] = pcwt_decode_job{cs[i].data(), cs[i].size(), out[i].data(), out[i].size(), PCWT_OK};
        vjobs[i] = pcwt_verify_job{cs[i].data(), cs[i].size(), want[i].data(), want[i].size(), 0, PCWT_OK};
    }
    pcwt_decoder *gpu = decoder_on(PCWT_BACKEND_GPU);
    EXPECT_EQ(pcwt_decode_batch(gpu, jobs.data(), n), PCWT_ERR_CORRUPT);
    EXPECT_EQ(pcwt_verify_batch(gpu, vjobs.data(), n), PCWT_ERR_CORRUPT);
    for (size_t i = 0; i < n; i++) {
        if (is_bad[i]) {
            EXPECT_EQ(jobs[i].status, PCWT_ERR_CORRUPT) << "job " << i;
            EXPECT_EQ(vjobs[i].status, PCWT_ERR_CORRUPT) << "job " << i;
        } else {
            EXPECT_EQ(jobs[i].status, PCWT_OK) << "job " << i;
            EXPECT_EQ(out[i], want[i]) << "job " << i;
            EXPECT_EQ(vjobs[i].status, PCWT_OK) << "job " << i;
        }
    }
    pcwt_decoder_destroy(gpu);
}
