// The GPU backend's one-frame path (one frame per call: pcwt_encode, pcwt_decode, a batch of one;
// one stream) against its batch path (the same frame in a batch of two) and the CPU, in every
// profile: the same codestream bytes and every sample back, for synthetic frames (odd sizes, one
// row, one column, 8 and 16 bits, signed, bits above BitsStored, RGB) and corpus frames
// (PCWT_GPU_CORPUS); repeated calls on one handle whose frames change size and content; damaged
// codestreams through the one-frame path get the CPU decoder's verdict, after which the handle
// decodes good frames again. Label gpu; skipped without CUDA or a device.
#include "gpu_test_util.h"
#include "recrc.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

class GpuOneFrame : public ::testing::TestWithParam<pcwt_profile> {};

// The CPU and GPU encoders and decoders of one profile.
struct Codecs {
    pcwt_encoder *cpu, *gpu;
    pcwt_decoder *dcpu, *dgpu;
    explicit Codecs(pcwt_profile p)
        : cpu(test_encoder(PCWT_BACKEND_CPU, p)), gpu(test_encoder(PCWT_BACKEND_GPU, p)),
          dcpu(test_decoder(PCWT_BACKEND_CPU)), dgpu(test_decoder(PCWT_BACKEND_GPU)) {}
    ~Codecs()
    {
        pcwt_encoder_destroy(cpu);
        pcwt_encoder_destroy(gpu);
        pcwt_decoder_destroy(dcpu);
        pcwt_decoder_destroy(dgpu);
    }
    Codecs(const Codecs &) = delete;
    Codecs &operator=(const Codecs &) = delete;
};

// A frame of d: a smooth ramp with noise within bits_stored (two's complement when signed), its
// values `step` apart (sparse, for the compact profile's value maps, when step > 1), and when
// `high` random bits above bits_stored.
std::vector<uint8_t> image(const pcwt_image_desc &d, Rng &rng, bool high, uint32_t step = 1)
{
    const size_t n = size_t(d.width) * d.height * d.components;
    const uint32_t bytes = d.bits_allocated / 8;
    std::vector<uint8_t> out(n * bytes);
    const uint32_t mask = (1u << d.bits_stored) - 1u;
    for (size_t i = 0; i < n; i++) {
        const uint32_t x = uint32_t(i % d.width), y = uint32_t(i / d.width);
        uint32_t v = ((x * 7 + y * 3 + rng.next() % 13) * step) & mask;
        if (high)
            v |= (rng.next() << d.bits_stored) & ((1u << d.bits_allocated) - 1u) & ~mask;
        out[i * bytes] = uint8_t(v);
        if (bytes == 2)
            out[i * bytes + 1] = uint8_t(v >> 8);
    }
    return out;
}

std::vector<uint8_t> encode_one(pcwt_encoder *e, const pcwt_image_desc &d, const std::vector<uint8_t> &img)
{
    return encode_with(e, d, img);
}

// Frame (d, img) coded in a batch beside a small companion frame: the batch path.
std::vector<uint8_t> encode_in_batch(pcwt_encoder *e, const pcwt_image_desc &d, const std::vector<uint8_t> &img)
{
    const pcwt_image_desc cd{16, 8, 1, 16, 16, 0, 0};
    Rng rng(99);
    const std::vector<uint8_t> cimg = image(cd, rng, false);
    std::vector<uint8_t> out(pcwt_encode_bound(&d)), cout(pcwt_encode_bound(&cd));
    pcwt_frame_job jobs[2] = {{d, img.data(), img.size(), out.data(), out.size(), 0, PCWT_OK},
                              {cd, cimg.data(), cimg.size(), cout.data(), cout.size(), 0, PCWT_OK}};
    EXPECT_EQ(pcwt_encode_batch(e, jobs, 2), PCWT_OK) << pcwt_encoder_last_error(e);
    out.resize(jobs[0].status == PCWT_OK ? jobs[0].written : 0);
    return out;
}

// Decodes cs alone (the one-frame path) into a buffer of `size` bytes; its status in *st.
std::vector<uint8_t> decode_one(pcwt_decoder *d, const std::vector<uint8_t> &cs, size_t size, pcwt_status *st)
{
    std::vector<uint8_t> out(size, 0x5A);
    *st = pcwt_decode(d, cs.data(), cs.size(), out.data(), out.size());
    return out;
}

// Decodes cs in a batch beside a copy of itself (the batch path).
std::vector<uint8_t> decode_in_batch(pcwt_decoder *d, const std::vector<uint8_t> &cs, size_t size)
{
    std::vector<uint8_t> a(size, 0x5A), b(size, 0xA5);
    pcwt_decode_job jobs[2] = {{cs.data(), cs.size(), a.data(), a.size(), PCWT_OK},
                               {cs.data(), cs.size(), b.data(), b.size(), PCWT_OK}};
    EXPECT_EQ(pcwt_decode_batch(d, jobs, 2), PCWT_OK) << pcwt_decoder_last_error(d);
    EXPECT_TRUE(a == b) << "the two copies in one batch decode differently";
    return a;
}

// One frame through both GPU paths and the CPU: the same codestream, every sample back.
void check_frame(Codecs &c, const pcwt_image_desc &d, const std::vector<uint8_t> &img, const std::string &what)
{
    const std::vector<uint8_t> cpu = encode_one(c.cpu, d, img);
    const std::vector<uint8_t> one = encode_one(c.gpu, d, img);
    const std::vector<uint8_t> batch = encode_in_batch(c.gpu, d, img);
    EXPECT_TRUE(same_codestream(cpu, one)) << what << ": one-frame path against the CPU";
    EXPECT_TRUE(same_codestream(cpu, batch)) << what << ": batch path against the CPU";
    if (cpu.empty())
        return;
    pcwt_status st;
    EXPECT_TRUE(decode_one(c.dgpu, cpu, img.size(), &st) == img) << what << ": one-frame decode";
    EXPECT_EQ(st, PCWT_OK) << what << ": " << pcwt_decoder_last_error(c.dgpu);
    EXPECT_TRUE(decode_in_batch(c.dgpu, cpu, img.size()) == img) << what << ": batch decode";
}

TEST_P(GpuOneFrame, SyntheticFramesMatchTheBatchPathAndTheCpu)
{
    SKIP_WITHOUT_GPU();
    Codecs c(GetParam());
    Rng rng(3);
    const pcwt_image_desc descs[] = {
        {1, 1, 1, 8, 8, 0, 0},      {77, 1, 1, 16, 16, 1, 0},  {1, 53, 1, 16, 12, 0, 0},
        {33, 47, 1, 8, 7, 0, 0},    {513, 511, 1, 16, 12, 1, 0}, {257, 3, 1, 16, 16, 0, 0},
        {512, 512, 1, 16, 12, 1, 0}, {64, 48, 3, 8, 8, 0, 0},  {31, 29, 3, 16, 10, 0, 1},
        {200, 1, 1, 8, 8, 1, 0},
    };
    for (const pcwt_image_desc &d : {pcwt_image_desc{300, 200, 1, 16, 16, 1, 0}, pcwt_image_desc{512, 512, 1, 16, 16, 0, 0}})
        check_frame(c, d, image(d, rng, false, 9), std::to_string(d.width) + "x" + std::to_string(d.height) +
                                                       " sparse values");
    for (const pcwt_image_desc &d : descs)
        for (bool high : {false, true}) {
            if (high && d.bits_stored == d.bits_allocated)
                continue;
            const std::string what = std::to_string(d.width) + "x" + std::to_string(d.height) + "x" +
                                     std::to_string(d.components) + " " + std::to_string(d.bits_allocated) +
                                     "/" + std::to_string(d.bits_stored) + (d.is_signed ? "s" : "u") +
                                     (high ? " with high bits" : "");
            check_frame(c, d, image(d, rng, high), what);
        }
}

// Corpus frames (every few of PCWT_GPU_CORPUS's CPU-made codestreams, all sizes and depths).
TEST_P(GpuOneFrame, CorpusFramesMatchTheBatchPathAndTheCpu)
{
    SKIP_WITHOUT_GPU();
    const char *dir = std::getenv("PCWT_GPU_CORPUS");
    if (!dir)
        GTEST_SKIP() << "GPU corpus test skipped: set PCWT_GPU_CORPUS to a folder made by tests/gpu/pack_corpus.sh";
    std::vector<std::string> files = gpu_corpus_files(dir);
    ASSERT_GT(files.size(), 10u) << "too few corpus codestreams in " << dir;
    std::sort(files.begin(), files.end());
    Codecs c(GetParam());
    const size_t step = std::max<size_t>(1, files.size() / 24);
    size_t n = 0;
    for (size_t i = 0; i < files.size(); i += step, n++) {
        const std::vector<uint8_t> cs = read_file(files[i]);
        pcwt_header_info h;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &h), PCWT_OK) << files[i];
        std::vector<uint8_t> img(pcwt_image_size(&h.desc));
        ASSERT_EQ(pcwt_decode(c.dcpu, cs.data(), cs.size(), img.data(), img.size()), PCWT_OK) << files[i];
        check_frame(c, h.desc, img, files[i]);
    }
    std::printf("one-frame path: %zu corpus frames identical to the batch path and the CPU\n", n);
}

// One handle for a run of frames that change size (and content at every call, sparse and dense
// values alternating, with and without bits above BitsStored): the grow-only buffers must not
// carry anything from one frame to the next.
TEST_P(GpuOneFrame, RepeatedCallsWithChangingSizes)
{
    SKIP_WITHOUT_GPU();
    Codecs c(GetParam());
    Rng rng(17);
    const pcwt_image_desc a{512, 512, 1, 16, 12, 1, 0}, b{96, 80, 1, 16, 16, 0, 0},
        r{301, 199, 1, 8, 8, 0, 0}, big{1024, 768, 1, 16, 14, 0, 0};
    const pcwt_image_desc run[] = {a, b, a, a, a, a, a, r, b, b, b, b, big, a, a, a, r, r, r, b};
    for (size_t k = 0; k < sizeof run / sizeof run[0]; k++) {
        const pcwt_image_desc &d = run[k];
        const std::vector<uint8_t> img =
            image(d, rng, k % 3 == 1 && d.bits_stored < d.bits_allocated, k % 2 ? 7 : 1);
        const std::vector<uint8_t> cpu = encode_one(c.cpu, d, img), gpu = encode_one(c.gpu, d, img);
        ASSERT_TRUE(same_codestream(cpu, gpu)) << "call " << k;
        pcwt_status st;
        ASSERT_TRUE(decode_one(c.dgpu, cpu, img.size(), &st) == img) << "call " << k;
        ASSERT_EQ(st, PCWT_OK) << "call " << k << ": " << pcwt_decoder_last_error(c.dgpu);
    }
}

// Damaged codestreams of a shape decoded three times before: the one-frame decode gives the CPU
// decoder's status (and its samples where that decodes), and good frames decode after each.
TEST_P(GpuOneFrame, DamagedCodestreamsRefusedCleanly)
{
    SKIP_WITHOUT_GPU();
    Codecs c(GetParam());
    Rng rng(23);
    const pcwt_image_desc d{160, 120, 1, 16, 12, 1, 0};
    const std::vector<uint8_t> img = image(d, rng, false);
    const std::vector<uint8_t> good = encode_one(c.cpu, d, img);
    ASSERT_FALSE(good.empty());
    pcwt_header_info h;
    ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &h), PCWT_OK);
    pcwt_status st;
    for (int k = 0; k < 3; k++) {
        ASSERT_TRUE(decode_one(c.dgpu, good, img.size(), &st) == img);
        ASSERT_EQ(st, PCWT_OK) << pcwt_decoder_last_error(c.dgpu);
    }
    std::vector<std::vector<uint8_t>> bad;
    for (size_t at : {h.header_length + 3, h.header_length + size_t(h.planes[0].payload_length) / 2,
                      good.size() - 2}) {
        std::vector<uint8_t> x = good; // a payload byte: the CRC fails
        x[at] ^= 0x41;
        bad.push_back(x);
        fix_crcs(x, h); // the same with the CRCs made good: the decoder's later checks
        bad.push_back(x);
    }
    std::vector<uint8_t> x = good;
    x.resize(good.size() - 5); // truncated
    bad.push_back(x);
    x = good;
    x[8] ^= 0x10; // a header byte
    bad.push_back(x);
    size_t refused = 0;
    for (size_t k = 0; k < bad.size(); k++) {
        pcwt_status want;
        const std::vector<uint8_t> ref = decode_one(c.dcpu, bad[k], img.size(), &want);
        const std::vector<uint8_t> got = decode_one(c.dgpu, bad[k], img.size(), &st);
        EXPECT_EQ(st, want) << "damage " << k << ": " << pcwt_decoder_last_error(c.dgpu);
        if (want == PCWT_OK && st == PCWT_OK) {
            EXPECT_TRUE(got == ref) << "damage " << k << ": decoded differently from the CPU";
        }
        if (st != PCWT_OK) {
            refused++;
            EXPECT_STRNE(pcwt_decoder_last_error(c.dgpu), "") << "damage " << k << ": no message";
            // a verification of one frame (the archive tools') takes the one-frame path too
            pcwt_verify_job v = {bad[k].data(), bad[k].size(), img.data(), img.size(), 0, PCWT_OK};
            EXPECT_NE(pcwt_verify_batch(c.dgpu, &v, 1), PCWT_OK) << "damage " << k;
        }
        ASSERT_TRUE(decode_one(c.dgpu, good, img.size(), &st) == img) << "after damage " << k;
        ASSERT_EQ(st, PCWT_OK) << "after damage " << k << ": " << pcwt_decoder_last_error(c.dgpu);
    }
    EXPECT_GE(refused, 5u); // the three checksum failures, the truncation, the header
    pcwt_verify_job v = {good.data(), good.size(), img.data(), img.size(), 0, PCWT_OK};
    EXPECT_EQ(pcwt_verify_batch(c.dgpu, &v, 1), PCWT_OK) << pcwt_decoder_last_error(c.dgpu);
}

PCWT_INSTANTIATE_PROFILES(GpuOneFrame);

} // namespace
