// test_limits.cpp - resource limits (issue 37): the decoder's memory budget on every decode entry
// point and backend, the default budget under an address-space limit, the encoder refusing what
// the format's sample limit makes every decoder refuse, and the baseline decoder refusing an MQD
// above its element's largest level.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recrc.h"
#include "test_util.h"

namespace {

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

// A 2x2 frame without transform: samples (1, 0, 0, 0), one element of MQD 0 and Qmax 0. Recoded
// with Qmax 1 and MQD 1 (each magnitude in 2 bits, the top one 0), it decodes to the same samples
// and its Qmax is its top MQD; only the MQD check finds that no encoder writes it.
TEST(Limits, BaselineMqdAboveLargestLevelIsCorrupt)
{
    const pcwt_image_desc d = make_desc(2, 2, 1, 8, 8, false);
    const std::vector<uint8_t> samples = {1, 0, 0, 0};
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.levels = 0;
    pcwt_status st;
    auto cs = encode(d, samples, &p, &st);
    ASSERT_FALSE(cs.empty());
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.levels, 0u);
    ASSERT_EQ(info.planes[0].qmax, 0);
    std::vector<uint8_t> out(4);
    ASSERT_EQ(decode(cs, out), PCWT_OK);
    ASSERT_EQ(out, samples);
    // r = 1, m = 1: '1'; then (|c| in 2 bits, sign) for 1, 0, 0, 0: 011 000 000 000 -> 13 bits
    const std::vector<uint8_t> payload = {13, 0, 0, 0, 0xB0, 0x00};
    cs.resize(info.header_length);
    cs.insert(cs.end(), payload.begin(), payload.end());
    uint8_t *rec = &cs[PCWT_HEADER_FIXED];
    rec[2] = 1; // Qmax
    for (int k = 0; k < 8; k++)
        rec[4 + k] = static_cast<uint8_t>(k == 0 ? payload.size() : 0);
    info.planes[0].payload_length = payload.size();
    fix_crcs(cs, info);
    pcwt_decoder *dec = pcwt_decoder_create();
    ASSERT_EQ(pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU), PCWT_OK);
    EXPECT_EQ(pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_CORRUPT);
    EXPECT_NE(std::string(pcwt_decoder_last_error(dec)).find("MQD"), std::string::npos)
        << pcwt_decoder_last_error(dec);
    pcwt_decoder_destroy(dec);
}
