// pcwt_transcode_batch (issue 34): JPEG 2000 / HTJ2K codestreams decoded, coded as PCWT and
// verified in one call give the bytes and samples of the path through host memory
// (pcwt_decode, then pcwt_encode on the same backend); frames the library refuses, damaged
// codestreams and bad arguments get the host path's status while the rest of the batch goes on;
// an injected change of the samples is caught by the verification. Built twice: test_transcode
// on the CPU backend (label j2k) and, in CUDA builds, test_transcode_gpu on the GPU (label gpu),
// where the samples are handed over on the device (on_device) and frames the device cannot take
// go through the CPU in the same memory.
#include "j2k_ojph_util.h"
#include "j2k_opj_util.h"
#include "pcwt.h"
#include "transcode.h"
#ifdef PCWT_TRANSCODE_GPU
#include "gpu_test_util.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

using namespace j2kt1;

namespace {

#ifdef PCWT_TRANSCODE_GPU
constexpr pcwt_backend kBackend = PCWT_BACKEND_GPU;
#else
constexpr pcwt_backend kBackend = PCWT_BACKEND_CPU;
#endif

struct Stream {
    std::string name;
    std::vector<uint8_t> cs;
};

// The packed codestreams of ../shared (tests/gpu/pack_j2k_corpus.py: corpus_*.j2k, synth_*.j2k):
// PCWT_GPU_J2K_CORPUS, else the folder this build's fixture packed.
std::string packedDir()
{
    const char *env = std::getenv("PCWT_GPU_J2K_CORPUS");
    if (env && *env)
        return env;
    return PCWT_TRANSCODE_PACKED;
}

// Streams made here (OpenJPEG, OpenJPH) and the packed ones: Part 1 and HTJ2K, grey and colour,
// 8 to 16 bits, signed and unsigned, and the corpus's frames the library refuses (lossy, JP2).
const std::vector<Stream> &streams()
{
    static const std::vector<Stream> all = [] {
        std::vector<Stream> v;
        if (haveOpj()) {
            v.push_back({"opj_ct512_12u", opjEncode(makeImage(512, 512, 1, 12, false, 1), "-n 6 -b 64,64")});
            v.push_back({"opj_ct256_16s", opjEncode(makeImage(256, 200, 1, 16, true, 2), "-n 5")});
            v.push_back({"opj_rgb_8", opjEncode(makeImage(97, 61, 3, 8, false, 3), "-n 3")});
            v.push_back({"opj_lossy", opjEncode(makeImage(64, 64, 1, 12, false, 4), "-I -r 20")});
        }
        if (haveOjph())
            v.push_back({"ojph_ht_12u", ojphEncode(makeImage(300, 257, 1, 12, false, 5), "-num_decomps 5")});
        std::error_code ec;
        std::vector<std::string> files;
        for (const auto &e : std::filesystem::directory_iterator(packedDir(), ec))
            if (e.path().extension() == ".j2k")
                files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
        for (const std::string &f : files)
            v.push_back({std::filesystem::path(f).stem().string(), readFile(f)});
        v.erase(std::remove_if(v.begin(), v.end(), [](const Stream &s) { return s.cs.empty(); }), v.end());
        return v;
    }();
    return all;
}

const char *kNoStreams = "no JPEG 2000 streams: neither opj_compress (libopenjp2-tools) nor a packed folder "
                         "(PCWT_GPU_J2K_CORPUS, tests/gpu/pack_j2k_corpus.py)";

template <typename T, void (*F)(T *)> struct Del {
    void operator()(T *p) const { F(p); }
};
using Dec = std::unique_ptr<pcwt_decoder, Del<pcwt_decoder, pcwt_decoder_destroy>>;
using Enc = std::unique_ptr<pcwt_encoder, Del<pcwt_encoder, pcwt_encoder_destroy>>;
using Xc = std::unique_ptr<pcwt_transcoder, Del<pcwt_transcoder, pcwt_transcoder_destroy>>;

Dec makeDecoder()
{
    Dec d(pcwt_decoder_create());
    if (d && pcwt_decoder_set_backend(d.get(), kBackend) != PCWT_OK)
        d.reset();
    return d;
}

Enc makeEncoder()
{
    Enc e(pcwt_encoder_create());
    if (e && pcwt_encoder_set_option(e.get(), PCWT_OPT_BACKEND, kBackend) != PCWT_OK)
        e.reset();
    return e;
}

// The path through host memory: pcwt_decode, then pcwt_encode, each on its own handle.
struct HostPath {
    pcwt_status status = PCWT_OK;
    std::vector<uint8_t> samples, cs;
};

HostPath hostPath(const std::vector<uint8_t> &src)
{
    HostPath h;
    pcwt_header_info info;
    h.status = pcwt_read_header(src.data(), src.size(), &info);
    if (h.status != PCWT_OK)
        return h;
    Dec dec = makeDecoder();
    Enc enc = makeEncoder();
    h.samples.resize(pcwt_image_size(&info.desc));
    h.status = pcwt_decode(dec.get(), src.data(), src.size(), h.samples.data(), h.samples.size());
    if (h.status != PCWT_OK)
        return h;
    h.cs.resize(pcwt_encode_bound(&info.desc));
    size_t written = 0;
    h.status = pcwt_encode(enc.get(), &info.desc, h.samples.data(), h.samples.size(), h.cs.data(), h.cs.size(),
                           &written);
    h.cs.resize(written);
    return h;
}

// A batch's buffers: each job's destination of the encode bound, its samples asked back.
struct Batch {
    std::vector<pcwt_transcode_job> jobs;
    std::vector<std::vector<uint8_t>> dst, samples;

    explicit Batch(const std::vector<std::vector<uint8_t>> &src)
    {
        jobs.resize(src.size());
        dst.resize(src.size());
        samples.resize(src.size());
        for (size_t i = 0; i < src.size(); i++) {
            pcwt_header_info info;
            size_t bound = 64, size = 1;
            if (pcwt_read_header(src[i].data(), src[i].size(), &info) == PCWT_OK) {
                bound = pcwt_encode_bound(&info.desc);
                size = pcwt_image_size(&info.desc);
            }
            dst[i].assign(bound, 0xA5);
            samples[i].assign(size, 0x5A);
            pcwt_transcode_job &j = jobs[i];
            std::memset(&j, 0, sizeof j);
            j.src = src[i].data();
            j.src_size = src[i].size();
            j.dst = dst[i].data();
            j.dst_capacity = dst[i].size();
            j.samples = samples[i].data();
            j.samples_capacity = samples[i].size();
        }
    }
};

class Transcode : public ::testing::Test {
  protected:
    void SetUp() override
    {
#ifdef PCWT_TRANSCODE_GPU
        SKIP_WITHOUT_GPU();
#endif
        dec = makeDecoder();
        enc = makeEncoder();
        ASSERT_TRUE(dec && enc);
        xc.reset(pcwt_transcoder_create(dec.get(), enc.get()));
        ASSERT_TRUE(xc);
    }

    // Transcodes src as one batch and checks every job against the host path; the jobs out.
    std::vector<pcwt_transcode_job> checkBatch(const std::vector<std::vector<uint8_t>> &src,
                                               const std::vector<std::string> &names)
    {
        Batch b(src);
        const pcwt_status st = pcwt_transcode_batch(xc.get(), b.jobs.data(), b.jobs.size());
        pcwt_status first = PCWT_OK;
        for (size_t i = 0; i < src.size(); i++) {
            const pcwt_transcode_job &j = b.jobs[i];
            const HostPath h = hostPath(src[i]);
            if (first == PCWT_OK)
                first = h.status;
            EXPECT_EQ(j.status, h.status) << names[i] << ": " << pcwt_transcoder_last_error(xc.get());
            if (h.status != PCWT_OK || j.status != PCWT_OK) {
                EXPECT_EQ(j.written, 0u) << names[i];
                continue;
            }
            EXPECT_TRUE(std::equal(h.cs.begin(), h.cs.end(), b.dst[i].begin()) && j.written == h.cs.size())
                << names[i] << ": the PCWT bytes differ from the host path's (" << j.written << " against "
                << h.cs.size() << ")";
            EXPECT_TRUE(b.samples[i] == h.samples) << names[i] << ": the samples differ from pcwt_decode's";
            EXPECT_EQ(j.on_device, kBackend == PCWT_BACKEND_GPU ? 1u : 0u) << names[i];
        }
        EXPECT_EQ(st, first);
        return b.jobs;
    }

    Dec dec;
    Enc enc;
    Xc xc;
};

// Every stream in one batch: the refused ones (lossy, JP2 where the library reads none) fail as
// on the host path while the others are coded.
TEST_F(Transcode, EveryStreamEqualsHostPath)
{
    if (streams().empty())
        GTEST_SKIP() << kNoStreams;
    std::vector<std::vector<uint8_t>> src;
    std::vector<std::string> names;
    for (const Stream &s : streams()) {
        src.push_back(s.cs);
        names.push_back(s.name);
    }
    const auto jobs = checkBatch(src, names);
    size_t ok = 0;
    for (const auto &j : jobs)
        ok += j.status == PCWT_OK;
    std::printf("%zu of %zu streams transcoded, the others refused as by pcwt_decode\n", ok, jobs.size());
    EXPECT_GT(ok, 0u);
}

// Damaged codestreams (cut short, bytes changed in the header and in the code-block data,
// garbage) among good ones: each gets the host path's status or bytes, the good ones succeed.
TEST_F(Transcode, DamagedStreamsAmongGoodOnes)
{
    if (streams().empty())
        GTEST_SKIP() << kNoStreams;
    const std::vector<uint8_t> &good = streams()[0].cs;
    std::vector<std::vector<uint8_t>> src{good};
    std::vector<std::string> names{"good"};
    for (size_t cut : {good.size() / 2, size_t(60), size_t(2)}) {
        src.emplace_back(good.begin(), good.begin() + long(std::min(cut, good.size())));
        names.push_back("cut at " + std::to_string(cut));
    }
    for (size_t at : {size_t(5), size_t(45), good.size() / 3, good.size() - 9}) {
        std::vector<uint8_t> d = good;
        d[std::min(at, d.size() - 1)] ^= 0x5B;
        src.push_back(d);
        names.push_back("byte " + std::to_string(at) + " changed");
    }
    src.emplace_back(std::vector<uint8_t>(333, 0xFF));
    names.push_back("garbage");
    src.push_back(good);
    names.push_back("good again");
    const auto jobs = checkBatch(src, names);
    EXPECT_EQ(jobs.front().status, PCWT_OK);
    EXPECT_EQ(jobs.back().status, PCWT_OK);
}

// A change of the decoded samples after coding and before the comparison (the test hook): that
// job is a mismatch with no codestream, the others are verified.
TEST_F(Transcode, InjectedChangeFailsVerification)
{
    if (streams().empty())
        GTEST_SKIP() << kNoStreams;
    const std::vector<uint8_t> &cs = streams()[0].cs;
    std::vector<std::vector<uint8_t>> src{cs, cs, cs};
    Batch b(src);
    pcwt_transcoder_test_fault(xc.get(), 1);
    EXPECT_EQ(pcwt_transcode_batch(xc.get(), b.jobs.data(), b.jobs.size()), PCWT_ERR_MISMATCH);
    EXPECT_EQ(b.jobs[0].status, PCWT_OK);
    EXPECT_EQ(b.jobs[1].status, PCWT_ERR_MISMATCH);
    EXPECT_EQ(b.jobs[1].written, 0u);
    EXPECT_EQ(b.jobs[2].status, PCWT_OK);
    EXPECT_NE(std::string(pcwt_transcoder_last_error(xc.get())).find("job 1: verifying"), std::string::npos)
        << pcwt_transcoder_last_error(xc.get());
    // the next batch without the hook verifies the same job
    pcwt_transcoder_test_fault(xc.get(), SIZE_MAX);
    EXPECT_EQ(pcwt_transcode_batch(xc.get(), b.jobs.data(), b.jobs.size()), PCWT_OK) << pcwt_transcoder_last_error(xc.get());
}

// Bad arguments: a NULL source, a samples buffer too small, a destination too small (the
// encoder's status); the transcoder's own NULLs.
TEST_F(Transcode, BadArguments)
{
    if (streams().empty())
        GTEST_SKIP() << kNoStreams;
    const std::vector<uint8_t> &cs = streams()[0].cs;
    std::vector<std::vector<uint8_t>> src{cs, cs, cs, cs};
    Batch b(src);
    b.jobs[0].src = nullptr;
    b.jobs[1].samples_capacity -= 1;
    b.jobs[2].dst_capacity = 16;
    EXPECT_NE(pcwt_transcode_batch(xc.get(), b.jobs.data(), b.jobs.size()), PCWT_OK);
    EXPECT_EQ(b.jobs[0].status, PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(b.jobs[1].status, PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(b.jobs[2].status, PCWT_OK);
    EXPECT_EQ(b.jobs[2].written, 0u);
    EXPECT_EQ(b.jobs[3].status, PCWT_OK) << pcwt_transcoder_last_error(xc.get());
    EXPECT_EQ(pcwt_transcode_batch(nullptr, b.jobs.data(), 1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_transcode_batch(xc.get(), nullptr, 1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_transcode_batch(xc.get(), nullptr, 0), PCWT_OK);
    EXPECT_EQ(pcwt_transcoder_create(nullptr, enc.get()), nullptr);
}

#ifdef PCWT_TRANSCODE_GPU
// A decoder whose device budget takes no frame: its JPEG 2000 frames and its verification go
// through the CPU, in the memory placed on the device; the bytes stay the host path's.
TEST_F(Transcode, FramesTheDeviceCannotTakeGoThroughTheCpu)
{
    if (streams().empty())
        GTEST_SKIP() << kNoStreams;
    Dec small = makeDecoder();
    std::vector<std::vector<uint8_t>> src{streams()[0].cs};
    ASSERT_TRUE(small);
    ASSERT_EQ(pcwt_decoder_set_option(small.get(), PCWT_OPT_GPU_MEMORY_LIMIT, 4096), PCWT_OK);
    // the handle's device context (and its budget) is made in its first call
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(src[0].data(), src[0].size(), &info), PCWT_OK);
    std::vector<uint8_t> out(pcwt_image_size(&info.desc));
    const pcwt_status first = pcwt_decode(small.get(), src[0].data(), src[0].size(), out.data(), out.size());
    ASSERT_EQ(first, PCWT_OK) << pcwt_decoder_last_error(small.get());
    xc.reset(pcwt_transcoder_create(small.get(), enc.get()));
    dec = std::move(small);
    std::vector<std::string> names;
    src.clear();
    for (const Stream &s : streams()) {
        src.push_back(s.cs);
        names.push_back(s.name);
    }
    checkBatch(src, names);
}
#endif

} // namespace
