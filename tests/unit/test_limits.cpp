// test_limits.cpp - resource limits (issue 37): the decoder's memory budget on every decode entry
// point and backend, the default budget under an address-space limit, the encoder refusing what
// the format's sample limit makes every decoder refuse, and the baseline decoder refusing an MQD
// above its element's largest level. Under PCWT_BACKEND=gpu (ctest label gpu) the memory tests run
// on the GPU backend, or skip where it has none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crafted_mqd.h"
#include "ec_group_coder.h"
#include "recrc.h"
#include "test_util.h"

extern "C" {
#include "decode_limits.h"
}

namespace {

// PCWT_BACKEND=gpu: a handle left on AUTO must then take the GPU.
bool gpu_asked()
{
    const char *v = std::getenv("PCWT_BACKEND");
    return v && std::strcmp(v, "gpu") == 0;
}

// Why a test that follows PCWT_BACKEND=gpu cannot run here ("" when it can, or when not asked).
std::string gpu_skip_reason()
{
    if (!gpu_asked())
        return "";
    if (!pcwt_has_cuda())
        return "PCWT_BACKEND=gpu, but this build has no CUDA backend";
    pcwt_decoder *d = pcwt_decoder_create();
    const pcwt_status st = pcwt_decoder_set_backend(d, PCWT_BACKEND_GPU);
    std::string why = st == PCWT_OK ? "" : std::string("PCWT_BACKEND=gpu, but no usable CUDA device: ") +
                                               pcwt_decoder_last_error(d);
    pcwt_decoder_destroy(d);
    return why;
}

#define SKIP_WITHOUT_ASKED_GPU()                                                                   \
    do {                                                                                           \
        const std::string why_ = gpu_skip_reason();                                                \
        if (!why_.empty())                                                                         \
            GTEST_SKIP() << "GPU test skipped: " << why_;                                          \
    } while (0)

std::vector<uint8_t> noise_stream(uint32_t w, uint32_t h, std::vector<uint8_t> *samples)
{
    const pcwt_image_desc d = make_desc(w, h, 1, 8, 8, false);
    samples->resize(pcwt_image_size(&d));
    Rng rng(w * 31 + h);
    for (uint8_t &s : *samples)
        s = static_cast<uint8_t>(rng.below(256));
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    pcwt_status st;
    return encode(d, *samples, &p, &st);
}

} // namespace

TEST(Limits, MemoryLimitRefusesBeforeDecoding)
{
    SKIP_WITHOUT_ASKED_GPU();
    std::vector<uint8_t> samples;
    const auto cs = noise_stream(256, 256, &samples);
    ASSERT_FALSE(cs.empty());
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    const uint64_t bound = pcwt_decode_memory_bound(&info);
    // the working memory of a wavelet decoder is several times the samples it writes
    EXPECT_GT(bound, 4 * pcwt_image_size(&info.desc));
    EXPECT_EQ(pcwt_decode_memory_bound(nullptr), UINT64_MAX);

    pcwt_decoder *dec = pcwt_decoder_create();
    if (gpu_asked())
        EXPECT_EQ(pcwt_decoder_backend(dec), PCWT_BACKEND_GPU);
    std::vector<uint8_t> out(samples.size(), 0xA5);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(dec, pcwt_image_size(&info.desc)), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()),
              PCWT_ERR_LIMIT_EXCEEDED);
    const std::string msg = pcwt_decoder_last_error(dec);
    EXPECT_NE(msg.find("needs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("limit"), std::string::npos) << msg;
    EXPECT_EQ(out[0], 0xA5); // refused before anything was written
    ASSERT_EQ(pcwt_decoder_set_memory_limit(dec, bound), PCWT_OK); // the bound suffices
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    EXPECT_EQ(out, samples);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(dec, 0), PCWT_OK); // the default
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    EXPECT_EQ(pcwt_decoder_set_memory_limit(nullptr, 1), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_decoder_destroy(dec);
}

// Each codestream fits the budget alone; the batch, whose frames are all held, does not.
TEST(Limits, BatchTotalIsChecked)
{
    SKIP_WITHOUT_ASKED_GPU();
    std::vector<uint8_t> samples;
    const auto cs = noise_stream(512, 384, &samples);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    const uint64_t bound = pcwt_decode_memory_bound(&info);
    const size_t n = 32;
    std::vector<std::vector<uint8_t>> outs(n, std::vector<uint8_t>(samples.size()));
    std::vector<pcwt_decode_job> jobs(n);
    std::vector<pcwt_verify_job> vjobs(n);
    for (size_t i = 0; i < n; i++) {
        jobs[i] = pcwt_decode_job{cs.data(), cs.size(), outs[i].data(), outs[i].size(), PCWT_OK};
        vjobs[i] = pcwt_verify_job{cs.data(), cs.size(), samples.data(), samples.size(), 0, PCWT_OK};
    }
    pcwt_decoder *dec = pcwt_decoder_create();
    if (gpu_asked())
        EXPECT_EQ(pcwt_decoder_backend(dec), PCWT_BACKEND_GPU);
    // more than one codestream needs, less than the n frames held at once
    const uint64_t limit = bound + (n / 4) * pcwt_image_size(&info.desc);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(dec, limit), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), outs[0].data(), outs[0].size()), PCWT_OK);
    EXPECT_EQ(pcwt_decode_batch(dec, jobs.data(), 1), PCWT_OK);
    EXPECT_EQ(pcwt_decode_batch(dec, jobs.data(), n), PCWT_ERR_LIMIT_EXCEEDED);
    for (const auto &j : jobs)
        EXPECT_EQ(j.status, PCWT_ERR_LIMIT_EXCEEDED);
    EXPECT_NE(std::string(pcwt_decoder_last_error(dec)).find("batch"), std::string::npos);
    EXPECT_EQ(pcwt_verify_batch(dec, vjobs.data(), 1), PCWT_OK);
    EXPECT_EQ(pcwt_verify_batch(dec, vjobs.data(), n), PCWT_ERR_LIMIT_EXCEEDED);
    for (const auto &j : vjobs)
        EXPECT_EQ(j.status, PCWT_ERR_LIMIT_EXCEEDED);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(dec, limit * n), PCWT_OK);
    EXPECT_EQ(pcwt_decode_batch(dec, jobs.data(), n), PCWT_OK);
    EXPECT_EQ(pcwt_verify_batch(dec, vjobs.data(), n), PCWT_OK);
    pcwt_decoder_destroy(dec);
}

// The default: non-zero, at most the physical memory, and within an address-space limit (in a
// child process, so that the limit stays there).
TEST(Limits, DefaultFollowsMachineAndRlimit)
{
    const uint64_t def = pcwt_default_memory_limit();
    EXPECT_GT(def, 0u);
    const uint64_t phys = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
    EXPECT_LE(def, phys);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long long vm_pages = 0;
        if (!f || fscanf(f, "%llu", &vm_pages) != 1)
            _exit(3);
        fclose(f);
        const uint64_t vm = vm_pages * uint64_t(sysconf(_SC_PAGESIZE));
        struct rlimit r;
        r.rlim_cur = r.rlim_max = vm + (uint64_t(512) << 20);
        if (setrlimit(RLIMIT_AS, &r) != 0)
            _exit(4);
        const uint64_t lim = pcwt_default_memory_limit();
        _exit(lim > 0 && lim <= (uint64_t(512) << 20) ? 0 : 5);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

// The format's limit: the encoder refuses a 32769x32768 frame from its descriptor (no buffer of
// 1 GB needed to find out), as every decoder would refuse its codestream.
TEST(Limits, EncoderRefusesWhatTheDecoderWould)
{
    const pcwt_image_desc big = make_desc(32769, 32768, 1, 8, 8, false);
    const pcwt_image_desc max = make_desc(32768, 32768, 1, 8, 8, false);
    EXPECT_EQ(pcwt_image_size(&big), 0u);
    EXPECT_EQ(pcwt_encode_bound(&big), 0u);
    EXPECT_EQ(pcwt_image_size(&max), size_t(PCWT_MAX_SAMPLES));
    EXPECT_GT(pcwt_encode_bound(&max), 0u);
    pcwt_encoder *enc = pcwt_encoder_create();
    uint8_t one = 0, dst[16];
    size_t written = 1;
    EXPECT_EQ(pcwt_encode(enc, &big, &one, 1, dst, sizeof dst, &written), PCWT_ERR_LIMIT_EXCEEDED);
    EXPECT_EQ(written, 0u);
    EXPECT_NE(std::string(pcwt_encoder_last_error(enc)).find("limit"), std::string::npos);
    pcwt_frame_job job{};
    job.desc = big;
    job.samples = &one;
    job.samples_size = 1;
    job.dst = dst;
    job.dst_capacity = sizeof dst;
    EXPECT_EQ(pcwt_encode_batch(enc, &job, 1), PCWT_ERR_LIMIT_EXCEEDED);
    pcwt_encoder_destroy(enc);
}

// The 2x2 frame of crafted_mqd.h: its original decodes; the recoded one, whose MQD is above its
// coefficients' largest level, is refused.
TEST(Limits, BaselineMqdAboveLargestLevelIsCorrupt)
{
    const pcwt_image_desc d = make_desc(2, 2, 1, 8, 8, false);
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.profile = PCWT_PROFILE_BASELINE;
    p.levels = 0;
    pcwt_status st;
    const CraftedMqd c = crafted_baseline_leaf();
    ASSERT_FALSE(c.cs.empty());
    const auto good = encode(d, c.samples, &p, &st);
    std::vector<uint8_t> out(4);
    ASSERT_EQ(decode(good, out), PCWT_OK);
    ASSERT_EQ(out, c.samples);
    pcwt_decoder *dec = pcwt_decoder_create();
    ASSERT_EQ(pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, c.cs.data(), c.cs.size(), out.data(), out.size()), PCWT_ERR_CORRUPT);
    EXPECT_NE(std::string(pcwt_decoder_last_error(dec)).find("MQD"), std::string::npos)
        << pcwt_decoder_last_error(dec);
    pcwt_decoder_destroy(dec);
}

namespace {

// The crafted all-zero frame of `profile` with band `band`'s first MQD raised: CPU CORRUPT.
void expect_zero_frame_refused(pcwt_profile profile, uint32_t band)
{
    const CraftedMqd c = crafted_zero_frame(profile, band);
    ASSERT_FALSE(c.cs.empty());
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(c.cs.data(), c.cs.size(), &info), PCWT_OK);
    EXPECT_EQ(info.planes[0].qmax, 0);
    std::vector<uint8_t> out(c.samples.size());
    pcwt_decoder *dec = pcwt_decoder_create();
    ASSERT_EQ(pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, c.cs.data(), c.cs.size(), out.data(), out.size()), PCWT_ERR_CORRUPT);
    EXPECT_NE(std::string(pcwt_decoder_last_error(dec)).find("MQD"), std::string::npos)
        << pcwt_decoder_last_error(dec);
    pcwt_decoder_destroy(dec);
}

} // namespace

// An MQD of level 2 above its children's (all -1) and its zero coefficients.
TEST(Limits, BaselineMqdAboveChildrenIsCorrupt)
{
    expect_zero_frame_refused(PCWT_PROFILE_BASELINE, 1);
}

// The same of level 1, inside a transform: only its own coefficients count.
TEST(Limits, BaselineLevel1MqdAboveLargestLevelIsCorrupt)
{
    expect_zero_frame_refused(PCWT_PROFILE_BASELINE, 4);
}

// The entropy profile codes the level distance of every coefficient of a level-2 element, so a
// range-coded group can declare an MQD that neither its coefficients nor its children reach.
TEST(Limits, EntropyMqdAboveChildrenIsCorrupt)
{
    const CraftedMqd c = crafted_zero_frame(PCWT_PROFILE_ENTROPY, 1);
    ASSERT_FALSE(c.cs.empty());
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(c.cs.data(), c.cs.size(), &info), PCWT_OK);
    // the raised element's group (band 1's only one, after band 0's) is range-coded
    const uint8_t *pay = c.cs.data() + info.header_length;
    size_t left = size_t(info.planes[0].payload_length);
    pcwt_ec_record rec;
    ASSERT_EQ(pcwt_ec_record_read(pay, left, &rec), PCWT_EC_RECORD_OK);
    const size_t first = size_t(pcwt_ec_record_bytes(&rec));
    ASSERT_EQ(pcwt_ec_record_read(pay + first, left - first, &rec), PCWT_EC_RECORD_OK);
    EXPECT_TRUE(rec.entropy);
    expect_zero_frame_refused(PCWT_PROFILE_ENTROPY, 1);
}

// The CPU decoder's working memory: the image plane and the bands (4 B each per sample, 5.33 B for
// the bands and LL copies of all levels), the MQDs (1/3 B); the inverse transform's scratch is a
// few rows, not a plane (4 B per sample more).
TEST(Limits, CpuDecodeWorkingMemoryPerSample)
{
    std::vector<uint8_t> samples;
    const auto cs = noise_stream(1024, 768, &samples);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    const double per_sample = double(pcwt_decode_working_bytes(&info, 0)) / (1024.0 * 768.0);
    EXPECT_GT(per_sample, 9.5);
    EXPECT_LT(per_sample, 10.0);
}
