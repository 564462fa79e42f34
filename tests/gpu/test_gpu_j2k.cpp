// GPU JPEG 2000 decoding (ctest label "gpu"): pcwt_gpu_j2k_decode_batch on batches that the CPU's
// tier-2 parser (j2k_tier2.c) builds gives every sample of the CPU path (tier-1, inverse DWT and
// output of codec/src, run on the same batch) and of OpenJPEG's opj_decompress: streams made with
// opj_compress over sizes, levels, code-block sizes, styles, layers, progressions and precincts,
// bit depths 8-16, signed, three components, rate-truncated; all of them in one batch; the
// corpus's JPEG 2000 codestreams. Where OpenJPEG's tools are absent (the device machine) the
// streams come from PCWT_GPU_J2K_CORPUS (tests/gpu/pack_j2k_corpus.py). Damaged code-block bytes
// decode as on the CPU, damaged fields are refused, a memory budget too small for a frame is
// PCWT_ERR_OUT_OF_MEMORY, the handle keeps its device buffers from call to call. Skips without
// CUDA or a device, or without streams.
#include "gpu_test_util.h"
#include "j2k_ht_refine.h"
#include "j2k_ojph_util.h"
#include "j2k_opj_util.h"

extern "C" {
#include "gpu_backend.h"
#include "j2k_codestream.h"
#include "j2k_decoder.h"
#include "j2k_stages.h"
#include "j2k_t1.h"
#include "j2k_tier2.h"
}

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using j2kt1::Image;

struct GpuCtx {
    pcwt_gpu *g = nullptr;
    std::string why;
    GpuCtx()
    {
        char err[256] = "";
        if (pcwt_gpu_create(&g, 0, err, sizeof err) != PCWT_OK) {
            why = err;
            g = nullptr;
        }
    }
    ~GpuCtx()
    {
        if (g)
            pcwt_gpu_destroy(g);
    }
};

// A batch made by the CPU's tier-2 parser, each frame's samples into its own buffer.
struct Built {
    pcwt_j2k_builder bld{};
    std::vector<std::vector<uint8_t>> out;
    std::vector<pcwt_image_desc> desc;
    Built() = default;
    Built(const Built &) = delete;
    Built &operator=(const Built &) = delete;
    ~Built() { pcwt_j2k_builder_free(&bld); }
    // "" or why the stream cannot be added (the CPU refuses it too).
    std::string add(const std::vector<uint8_t> &cs, pcwt_status *status = nullptr)
    {
        char err[256] = "";
        pcwt_header_info info{};
        auto h = std::make_unique<pcwt_j2k_header>();
        pcwt_status st = pcwt_j2k_read_header(cs.data(), cs.size(), &info, err, sizeof err);
        if (st == PCWT_OK)
            st = pcwt_j2k_read_codestream(cs.data(), cs.size(), h.get(), err, sizeof err);
        if (status)
            *status = st;
        if (st != PCWT_OK)
            return err;
        out.emplace_back(pcwt_image_size(&info.desc), uint8_t(0xA5));
        desc.push_back(info.desc);
        st = pcwt_j2k_tier2(&bld, h.get(), cs.data(), &info.desc, out.back().data(), err, sizeof err);
        if (status)
            *status = st;
        if (st != PCWT_OK) {
            out.pop_back();
            desc.pop_back();
            return err;
        }
        // the vectors may have moved: point every frame at its buffer again
        for (size_t i = 0; i < out.size(); i++)
            bld.b.frames[i].dst = out[i].data();
        return "";
    }
};

// The CPU stages of codec/src on the same batch, into fresh buffers.
std::vector<std::vector<uint8_t>> cpu_decode(const pcwt_j2k_batch &b, std::string &why)
{
    std::vector<std::vector<uint8_t>> out(b.frame_count);
    std::vector<pcwt_j2k_frame> frames(b.frames, b.frames + b.frame_count);
    std::vector<int32_t> coefs(b.coef_count);
    std::vector<uint8_t> scratch(PCWT_J2K_T1_SCRATCH);
    char err[256] = "";
    for (size_t i = 0; i < b.cblk_count; i++)
        if (pcwt_j2k_t1_decode(&b, i, coefs.data(), scratch.data(), err, sizeof err) != PCWT_OK) {
            why = err;
            return {};
        }
    uint64_t tmp_n = 1;
    for (size_t t = 0; t < b.tc_count; t++)
        tmp_n = std::max<uint64_t>(tmp_n, uint64_t(b.tcs[t].width) * b.tcs[t].height);
    std::vector<int32_t> tmp(tmp_n);
    for (size_t t = 0; t < b.tc_count; t++)
        pcwt_j2k_idwt(&b.tcs[t], coefs.data(), tmp.data());
    for (size_t f = 0; f < b.frame_count; f++) {
        out[f].assign(pcwt_image_size(&frames[f].desc), 0x5A);
        frames[f].dst = out[f].data();
        pcwt_j2k_output(&b, &frames[f], coefs.data());
    }
    return out;
}

// Planar values of an interleaved frame (the library's JPEG 2000 output layout).
std::vector<int32_t> values(const std::vector<uint8_t> &bytes, const pcwt_image_desc &d)
{
    const size_t px = size_t(d.width) * d.height, bps = d.bits_allocated > 8 ? 2 : 1;
    std::vector<int32_t> v(px * d.components);
    for (size_t k = 0; k < px; k++)
        for (uint32_t c = 0; c < d.components; c++) {
            const size_t at = (d.planar ? c * px + k : k * d.components + c) * bps;
            uint32_t w = bytes[at] | (bps == 2 ? uint32_t(bytes[at + 1]) << 8 : 0u);
            w &= (1u << d.bits_stored) - 1;
            v[c * px + k] = d.is_signed && (w >> (d.bits_stored - 1)) ? int32_t(w) - int32_t(1u << d.bits_stored)
                                                                      : int32_t(w);
        }
    return v;
}

::testing::AssertionResult same_values(const std::vector<int32_t> &got, const std::vector<int32_t> &want)
{
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
    size_t first;
    const size_t bad = j2kt1::countDifferences(got, want, first);
    if (bad)
        return ::testing::AssertionFailure() << bad << " differ, first at " << first << ": " << got[first]
                                             << " vs " << want[first];
    return ::testing::AssertionSuccess();
}

struct Synth {
    const char *name;
    uint32_t w, h, comps, bits;
    bool sgn;
    const char *args;
};

const Synth kSynth[] = {
    {"ct512_12u", 512, 512, 1, 12, false, "-n 6 -b 64,64"},
    {"ct512_16s", 512, 512, 1, 16, true, "-n 6 -b 64,64"},
    {"dx_1000x1250", 1000, 1250, 1, 14, false, "-n 6 -b 64,64"},
    {"rgb640", 640, 480, 3, 8, false, "-n 6"},
    {"rgb_nomct", 200, 150, 3, 10, false, "-n 4 -mct 0"},
    {"px1", 1, 1, 1, 8, false, "-n 1"},
    {"thin_row", 700, 3, 1, 9, false, "-n 2"},
    {"thin_col", 3, 700, 1, 11, true, "-n 2"},
    {"odd_c32", 257, 129, 1, 12, false, "-n 5 -b 32,32"},
    {"cblk16x64", 300, 200, 1, 15, false, "-n 4 -b 16,64"},
    {"lvl0", 130, 70, 1, 16, false, "-n 1"},
    {"lvl8", 600, 520, 1, 12, false, "-n 9"},
    {"bypass", 256, 256, 1, 16, false, "-n 6 -M 1"},
    {"reset", 256, 256, 1, 12, false, "-n 6 -M 2"},
    {"termall", 256, 256, 1, 12, false, "-n 6 -M 4"},
    {"vsc", 256, 256, 1, 12, true, "-n 6 -M 8"},
    {"pterm", 256, 256, 1, 12, false, "-n 6 -M 16"},
    {"segsym", 256, 256, 1, 12, false, "-n 6 -M 32"},
    {"all_styles", 256, 256, 1, 16, true, "-n 6 -M 63"},
    {"layers", 256, 256, 1, 12, false, "-n 6 -r 40,10,1"},
    {"rpcl_precincts", 256, 256, 1, 12, false, "-n 6 -p RPCL -c [64,64],[32,32]"},
    {"bits8s", 200, 200, 1, 8, true, "-n 5"},
    {"rate10", 256, 256, 1, 12, false, "-n 6 -r 10"},
    {"rate6_rgb", 160, 120, 3, 8, false, "-n 5 -r 6 -M 1"},
};

struct Made {
    std::string name;
    std::vector<uint8_t> cs;
    std::vector<int32_t> opj; // opj_decompress's values (planar), or
    std::string opj_hash;     // "SIZE FNV1A64" of its samples in the library's layout (packed)
};

// "SIZE FNV1A64\n" of bytes, as tests/gpu/pack_j2k_corpus.py writes them.
std::string fnv1a64(const std::vector<uint8_t> &d)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (uint8_t b : d)
        h = (h ^ b) * 0x100000001B3ull;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%zu %016llx\n", d.size(), (unsigned long long)h);
    return buf;
}

std::string read_text(const std::string &path)
{
    const std::vector<uint8_t> d = read_file(path);
    return std::string(d.begin(), d.end());
}

// Every synthetic stream, made once for the suite with opj_compress, or read from the packed
// folder (PCWT_GPU_J2K_CORPUS: synth_NAME.j2k and .opj) where OpenJPEG's tools are absent.
const std::vector<Made> &synthetic()
{
    static std::vector<Made> all = [] {
        std::vector<Made> v;
        const char *dir = std::getenv("PCWT_GPU_J2K_CORPUS");
        for (const Synth &s : kSynth) {
            if (j2kt1::haveOpj()) {
                const Image im = j2kt1::makeImage(s.w, s.h, s.comps, s.bits, s.sgn, s.w + 7 * s.h);
                Made m{s.name, j2kt1::opjEncode(im, s.args), {}, {}};
                if (!m.cs.empty())
                    m.opj = j2kt1::opjDecode(m.cs, im);
                v.push_back(std::move(m));
            } else if (dir) {
                const std::string base = std::string(dir) + "/synth_" + s.name;
                Made m{s.name, read_file(base + ".j2k"), {}, read_text(base + ".opj")};
                if (!m.cs.empty())
                    v.push_back(std::move(m));
            }
        }
        return v;
    }();
    return all;
}

const char *kNoStreams = "neither opj_compress/opj_decompress (libopenjp2-tools) nor PCWT_GPU_J2K_CORPUS "
                         "(tests/gpu/pack_j2k_corpus.py) is there";

// Decodes `streams` as one batch on the GPU and on the CPU; checks both and OpenJPEG's values.
void check_batch(pcwt_gpu *g, const std::vector<const Made *> &streams)
{
    Built b;
    for (const Made *m : streams) {
        ASSERT_FALSE(m->cs.empty()) << m->name << ": opj_compress failed";
        ASSERT_EQ(b.add(m->cs), "") << m->name;
    }
    std::string why;
    const auto cpu = cpu_decode(b.bld.b, why);
    ASSERT_EQ(cpu.size(), streams.size()) << why;
    char err[256] = "";
    ASSERT_EQ(pcwt_gpu_j2k_decode_batch(g, &b.bld.b, err, sizeof err), PCWT_OK) << err;
    for (size_t i = 0; i < streams.size(); i++) {
        EXPECT_TRUE(b.out[i] == cpu[i]) << streams[i]->name << ": GPU samples differ from the CPU path's: "
                                        << same_values(values(b.out[i], b.desc[i]), values(cpu[i], b.desc[i])).message();
        if (!streams[i]->opj.empty())
            EXPECT_TRUE(same_values(values(b.out[i], b.desc[i]), streams[i]->opj)) << streams[i]->name << " vs OpenJPEG";
        else if (!streams[i]->opj_hash.empty())
            EXPECT_EQ(fnv1a64(b.out[i]), streams[i]->opj_hash) << streams[i]->name << " vs OpenJPEG's (hash)";
    }
}

class GpuJ2k : public ::testing::Test {
  protected:
    void SetUp() override
    {
        SKIP_WITHOUT_GPU();
        ctx = std::make_unique<GpuCtx>();
        if (!ctx->g)
            GTEST_SKIP() << "GPU test skipped: " << ctx->why;
    }
    std::unique_ptr<GpuCtx> ctx;
};

// Tests of the synthetic streams, skipped without them; m: the first (512 x 512).
class GpuJ2kStreams : public GpuJ2k {
  protected:
    void SetUp() override
    {
        GpuJ2k::SetUp();
        if (IsSkipped())
            return;
        if (synthetic().empty())
            GTEST_SKIP() << kNoStreams;
        m = &synthetic()[0];
    }
    const Made *m = nullptr;
};

TEST_F(GpuJ2kStreams, EachSyntheticStreamEqualsCpuAndOpenJpeg)
{
    for (const Made &s : synthetic()) {
        SCOPED_TRACE(s.name);
        check_batch(ctx->g, {&s});
    }
}

TEST_F(GpuJ2kStreams, AllSyntheticStreamsInOneBatch)
{
    std::vector<const Made *> all;
    for (const Made &s : synthetic())
        all.push_back(&s);
    for (const Made &s : synthetic()) // twice: frames of the same shape side by side
        all.push_back(&s);
    check_batch(ctx->g, all);
}

// Page-locked destinations (pcwt_host_alloc) are written straight from the device, beside
// pageable ones in the same batch.
TEST_F(GpuJ2k, PinnedDestinations)
{
    if (synthetic().size() < 4)
        GTEST_SKIP() << kNoStreams;
    Built b;
    for (size_t i = 0; i < 4; i++)
        ASSERT_EQ(b.add(synthetic()[i].cs), "");
    std::string why;
    const auto cpu = cpu_decode(b.bld.b, why);
    ASSERT_EQ(cpu.size(), 4u) << why;
    std::vector<uint8_t *> pinned(2);
    for (size_t i = 0; i < 2; i++) { // frames 0 and 2 page-locked
        pinned[i] = static_cast<uint8_t *>(pcwt_host_alloc(b.out[2 * i].size()));
        ASSERT_NE(pinned[i], nullptr);
        std::memset(pinned[i], 0xA5, b.out[2 * i].size());
        b.bld.b.frames[2 * i].dst = pinned[i];
    }
    char err[256] = "";
    EXPECT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err), PCWT_OK) << err;
    for (size_t i = 0; i < 4; i++) {
        const std::vector<uint8_t> got = i % 2 ? b.out[i] : std::vector<uint8_t>(pinned[i / 2], pinned[i / 2] + b.out[i].size());
        EXPECT_TRUE(got == cpu[i]) << synthetic()[i].name;
    }
    for (uint8_t *p : pinned)
        pcwt_host_free(p);
}

// The packed codestreams: PCWT_GPU_J2K_CORPUS (tests/gpu/pack_j2k_corpus.py), each NAME.j2k with,
// where OpenJPEG decodes it, NAME.opj (the hash of its samples as the library lays them out).
TEST_F(GpuJ2k, CorpusCodestreams)
{
    const char *dir = std::getenv("PCWT_GPU_J2K_CORPUS");
    if (!dir)
        GTEST_SKIP() << "PCWT_GPU_J2K_CORPUS not set (tests/gpu/pack_j2k_corpus.py makes it)";
    std::vector<std::string> names;
    if (DIR *d = opendir(dir)) {
        while (dirent *e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 4 && n.compare(n.size() - 4, 4, ".j2k") == 0)
                names.push_back(n.substr(0, n.size() - 4));
        }
        closedir(d);
    }
    ASSERT_FALSE(names.empty()) << "no .j2k files in " << dir;
    size_t decoded = 0;
    for (const std::string &n : names) {
        SCOPED_TRACE(n);
        const std::vector<uint8_t> cs = read_file(std::string(dir) + "/" + n + ".j2k");
        Built b;
        pcwt_status st = PCWT_OK;
        const std::string why = b.add(cs, &st);
        if (!why.empty()) { // refused by the CPU path too (lossy, unsupported): nothing to compare
            EXPECT_TRUE(st == PCWT_ERR_UNSUPPORTED) << why;
            continue;
        }
        std::string cwhy;
        const auto cpu = cpu_decode(b.bld.b, cwhy);
        ASSERT_EQ(cpu.size(), 1u) << cwhy;
        char err[256] = "";
        ASSERT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err), PCWT_OK) << err;
        EXPECT_TRUE(b.out[0] == cpu[0]) << same_values(values(b.out[0], b.desc[0]), values(cpu[0], b.desc[0])).message();
        const std::string opj = read_text(std::string(dir) + "/" + n + ".opj");
        if (!opj.empty())
            EXPECT_EQ(fnv1a64(b.out[0]), opj) << "vs OpenJPEG's samples (hash)";
        decoded++;
    }
    EXPECT_GT(decoded, 0u) << "no codestream of the packed corpus was decodable";
}

// Damaged code-block bytes: the GPU decodes them as the CPU does (same garbage, nothing outside).
// One test per stream, so that compute-sanitizer memcheck can take them a few at a time.
class GpuJ2kDamaged : public GpuJ2k, public ::testing::WithParamInterface<const char *> {};

TEST_P(GpuJ2kDamaged, DataDecodesAsOnCpu)
{
    if (synthetic().empty())
        GTEST_SKIP() << kNoStreams;
    const char *name = GetParam();
    const Made *m = nullptr;
    for (const Made &x : synthetic())
        if (x.name == name)
            m = &x;
    ASSERT_NE(m, nullptr);
    for (int round = 0; round < 6; round++) {
        SCOPED_TRACE(std::string(name) + " round " + std::to_string(round));
        Built b;
        ASSERT_EQ(b.add(m->cs), "");
        Rng r(uint64_t(round) * 977 + 13);
        uint8_t *data = const_cast<uint8_t *>(b.bld.b.data);
        for (int k = 0; k < 20 * (round + 1); k++)
            data[r.next() % b.bld.b.data_size] ^= uint8_t(1u << (r.next() % 8));
        if (round % 3 == 2) // cut segments: the decoders read 0xFF past them
            for (size_t s = 0; s < b.bld.b.seg_count; s++)
                b.bld.b.segs[s].length = b.bld.b.segs[s].length * 2 / 3;
        std::string why;
        const auto cpu = cpu_decode(b.bld.b, why);
        ASSERT_EQ(cpu.size(), 1u) << why;
        char err[256] = "";
        ASSERT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err), PCWT_OK) << err;
        EXPECT_TRUE(b.out[0] == cpu[0]);
    }
}

INSTANTIATE_TEST_SUITE_P(Streams, GpuJ2kDamaged, ::testing::Values("ct512_12u", "all_styles", "bypass", "layers"),
                         [](const ::testing::TestParamInfo<const char *> &i) { return std::string(i.param); });

// Inconsistent fields are refused before anything reaches the device.
TEST_F(GpuJ2kStreams, DamagedFieldsAreRefused)
{
    Built b;
    ASSERT_EQ(b.add(m->cs), "");
    pcwt_j2k_cblk *cb = b.bld.b.cblks;
    size_t k = 0;
    while (k < b.bld.b.cblk_count && cb[k].passes < 3)
        k++;
    ASSERT_LT(k, b.bld.b.cblk_count);
    const pcwt_j2k_cblk keep = cb[k];
    char err[256];
    auto expect = [&](pcwt_status want, const char *what) {
        err[0] = 0;
        EXPECT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err), want) << what;
        EXPECT_NE(err[0], 0) << what;
        cb[k] = keep;
    };
    cb[k].zero_msbs = uint8_t(keep.mb + 1);
    expect(PCWT_ERR_CORRUPT, "missing planes above Mb");
    cb[k].out_offset = b.bld.b.coef_count;
    expect(PCWT_ERR_CORRUPT, "rectangle outside the coefficients");
    cb[k].seg_first = uint32_t(b.bld.b.seg_count);
    expect(PCWT_ERR_CORRUPT, "segments outside the list");
    cb[k].style |= PCWT_J2K_STYLE_HT; // an HT code-block beyond what OpenJPEG decodes
    cb[k].mb = 40;
    expect(PCWT_ERR_UNSUPPORTED, "HTJ2K block coder");
    b.bld.b.tcs[0].width += 1;
    expect(PCWT_ERR_INVALID_ARGUMENT, "tile-component not the frame's size");
    b.bld.b.tcs[0].width -= 1;
    char ok[256] = "";
    EXPECT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, ok, sizeof ok), PCWT_OK) << ok;
}

// A batch with tens of thousands of code-blocks: the host checks and orders them on several
// threads (a run of frames each, the runs' orders merged); the samples equal the CPU's, and of two
// damaged code-blocks in different runs the message names the first, as one thread would.
TEST_F(GpuJ2kStreams, LargeBatchLaidOutOnThreads)
{
    Built one;
    ASSERT_EQ(one.add(m->cs), "");
    std::string why;
    const auto cpu = cpu_decode(one.bld.b, why);
    ASSERT_EQ(cpu.size(), 1u) << why;
    const size_t per = one.bld.b.cblk_count, frames = 4 * 8192 / per + 1; // four runs of 8192 or more
    Built b;
    for (size_t i = 0; i < frames; i++)
        ASSERT_EQ(b.add(m->cs), "");
    pcwt_j2k_cblk *cb = b.bld.b.cblks;
    auto damaged_in = [&](size_t frame) {
        size_t k = frame * per;
        while (cb[k].passes < 3)
            k++;
        return k;
    };
    const size_t early = damaged_in(frames / 3), late = damaged_in(frames - 2);
    const pcwt_j2k_cblk keep_early = cb[early], keep_late = cb[late];
    cb[late].zero_msbs = uint8_t(keep_late.mb + 1);
    cb[early].zero_msbs = uint8_t(keep_early.mb + 1);
    char err[256] = "";
    EXPECT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err), PCWT_ERR_CORRUPT);
    EXPECT_NE(std::string(err).find("code-block " + std::to_string(early) + " "), std::string::npos) << err;
    cb[early] = keep_early;
    cb[late] = keep_late;
    ASSERT_EQ(pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err), PCWT_OK) << err;
    for (size_t i = 0; i < frames; i++)
        ASSERT_TRUE(b.out[i] == cpu[0]) << "frame " << i << " of " << frames;
}

// HTJ2K streams (ojph_compress; issue 34's HT part): sizes, levels, code-block sizes, depths,
// signed, three components; each alone and all in one batch beside the Part 1 streams (the HT
// code-blocks get their own kernel) equal the CPU path's samples and OpenJPEG's.
const std::vector<Made> &ht_synthetic()
{
    static const Synth kHt[] = {
        {"ht_ct512_16u", 512, 512, 1, 16, false, "-num_decomps 5"},
        {"ht_ct512_12s", 512, 512, 1, 12, true, "-num_decomps 6 -block_size '{32,32}'"},
        {"ht_dx_1000x1250", 1000, 1250, 1, 14, false, "-num_decomps 6"},
        {"ht_one_pixel", 1, 1, 1, 8, false, "-num_decomps 0"},
        {"ht_odd17x9_cblk4", 17, 9, 1, 8, false, "-num_decomps 2 -block_size '{4,4}'"},
        {"ht_cblk4x1024", 1023, 7, 1, 16, false, "-num_decomps 2 -block_size '{4,1024}'"},
        {"ht_rgb8_ct", 120, 90, 3, 8, false, "-num_decomps 4 -colour_trans true"},
        {"ht_rgb16_noct", 67, 45, 3, 16, false, "-num_decomps 3 -colour_trans false"},
    };
    static std::vector<Made> all = [] {
        std::vector<Made> v;
        if (!j2kt1::haveOpj() || !j2kt1::haveOjph())
            return v;
        for (const Synth &s : kHt) {
            const Image im = j2kt1::makeImage(s.w, s.h, s.comps, s.bits, s.sgn, s.w + 5 * s.h);
            Made m{s.name, j2kt1::ojphEncode(im, s.args), {}, {}};
            if (!m.cs.empty())
                m.opj = j2kt1::opjDecode(m.cs, im);
            v.push_back(std::move(m));
        }
        return v;
    }();
    return all;
}

const char *kNoHt = "ojph_compress (openjph-tools) or opj_decompress (libopenjp2-tools) missing";

TEST_F(GpuJ2k, HtStreamsEqualCpuAndOpenJpeg)
{
    if (ht_synthetic().empty())
        GTEST_SKIP() << kNoHt;
    std::vector<const Made *> all;
    for (const Made &m : ht_synthetic()) {
        SCOPED_TRACE(m.name);
        check_batch(ctx->g, {&m});
        all.push_back(&m);
    }
    for (const Made &m : synthetic())
        all.push_back(&m);
    check_batch(ctx->g, all);
}

// The HT kernel with 1..32 code-blocks a warp (pcwt_gpu_j2k_set_ht_lanes; the lanes' scratch
// rows packed for the busy lanes only) and by the chunk's count (0, the default): every HT stream
// and the Part 1 ones in one batch, and each HT stream alone, equal the CPU path's samples and
// OpenJPEG's; 33 lanes are refused.
TEST_F(GpuJ2k, HtLanesEqualCpuAndOpenJpeg)
{
    // by count: 8 a warp, fewer when the code-blocks are fewer than the device's warps
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(70, 4752), 1u);    // a CT slice alone: a warp each
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(1200, 4752), 3u);  // a radiograph alone
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(4752, 4752), 8u);
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(29000, 4752), 8u); // a group of 410 CT slices
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(1000000, 4752), 8u);
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(0, 4752), 1u);
    EXPECT_EQ(pcwt_gpu_j2k_ht_lanes(100, 0), 8u);
    if (ht_synthetic().empty())
        GTEST_SKIP() << kNoHt;
    std::vector<const Made *> all;
    for (const Made &m : ht_synthetic())
        all.push_back(&m);
    for (const Made &m : synthetic())
        all.push_back(&m);
    for (uint32_t lanes : {1u, 3u, 8u, 16u, 32u, 0u}) {
        SCOPED_TRACE("HT lanes " + std::to_string(lanes));
        GpuCtx fixed;
        ASSERT_NE(fixed.g, nullptr) << fixed.why;
        char err[256] = "";
        ASSERT_EQ(pcwt_gpu_j2k_set_ht_lanes(fixed.g, lanes, err, sizeof err), PCWT_OK) << err;
        check_batch(fixed.g, all);
        for (const Made *m : all)
            if (m->name.rfind("ht_", 0) == 0)
                check_batch(fixed.g, {m}); // alone: a chunk of few HT code-blocks
    }
    char err[256] = "";
    EXPECT_EQ(pcwt_gpu_j2k_set_ht_lanes(ctx->g, 33, err, sizeof err), PCWT_ERR_INVALID_ARGUMENT);
}

// SigProp and MagRef on the GPU (ojph_compress writes neither): the refinement streams of
// j2k_ht_refine.h, with and without the vertically causal style, all in one batch, equal the CPU
// path's samples and OpenJPEG's; those OpenJPEG refuses are left out.
TEST_F(GpuJ2k, HtRefinementEqualsCpuAndOpenJpeg)
{
    if (ht_synthetic().empty())
        GTEST_SKIP() << kNoHt;
    std::vector<Made> made;
    for (uint32_t seed = 0; seed < j2kt1::kRefinementSeeds; seed++) {
        Image im;
        std::vector<uint8_t> refine;
        const std::vector<uint8_t> cs = j2kt1::refinementSource(seed, im, refine);
        ASSERT_FALSE(cs.empty());
        for (bool vsc : {false, true}) {
            Made m{"refine" + std::to_string(seed) + (vsc ? "_vsc" : ""), j2kt1::withRefinement(cs, refine, vsc), {}, {}};
            ASSERT_FALSE(m.cs.empty());
            m.opj = j2kt1::opjDecode(m.cs, im);
            if (!m.opj.empty())
                made.push_back(std::move(m));
        }
    }
    ASSERT_GT(made.size(), size_t(j2kt1::kRefinementSeeds));
    std::vector<const Made *> all;
    for (const Made &m : made)
        all.push_back(&m);
    check_batch(ctx->g, all);
}

// Damaged HT code-block bytes: the GPU gives the CPU's samples, or fails where the CPU fails
// (compute-sanitizer memcheck runs this one for the device's reads).
TEST_F(GpuJ2k, HtDamagedDecodesAsOnCpu)
{
    if (ht_synthetic().empty())
        GTEST_SKIP() << kNoHt;
    size_t failed = 0;
    for (const Made &m : ht_synthetic())
        for (int round = 0; round < 6; round++) {
            SCOPED_TRACE(m.name + " round " + std::to_string(round));
            Built b;
            ASSERT_EQ(b.add(m.cs), "");
            Rng r(uint64_t(round) * 1009 + 5);
            uint8_t *data = const_cast<uint8_t *>(b.bld.b.data);
            for (int k = 0; k < 4 * (round + 1) && b.bld.b.data_size; k++)
                data[r.next() % b.bld.b.data_size] ^= uint8_t(1u << (r.next() % 8));
            if (round % 3 == 2)
                for (size_t s = 0; s < b.bld.b.seg_count; s++)
                    b.bld.b.segs[s].length = b.bld.b.segs[s].length * 2 / 3;
            std::string why;
            const auto cpu = cpu_decode(b.bld.b, why);
            char err[256] = "";
            const pcwt_status st = pcwt_gpu_j2k_decode_batch(ctx->g, &b.bld.b, err, sizeof err);
            if (cpu.empty()) {
                EXPECT_NE(st, PCWT_OK) << "the CPU refuses it: " << why;
                EXPECT_NE(err[0], 0);
                failed++;
                continue;
            }
            ASSERT_EQ(st, PCWT_OK) << err;
            EXPECT_TRUE(b.out[0] == cpu[0]);
        }
    std::printf("HT damaged: %zu of %zu refused by both\n", failed, ht_synthetic().size() * 6);
}

// A device budget smaller than one frame: PCWT_ERR_OUT_OF_MEMORY (the caller decodes it on the
// CPU); a budget of a little more than one frame cuts the batch into chunks that decode exactly.
TEST_F(GpuJ2kStreams, MemoryBudget)
{
    const int frames = 4;
    Built b;
    for (int i = 0; i < frames; i++)
        ASSERT_EQ(b.add(m->cs), "");
    // what cuda/j2k_decode_gpu.cu counts: the code-block data and segments of the whole batch,
    // then per frame two coefficient buffers, the samples and tier-1's state (a 16-bit word per
    // coefficient, stripes padded), with room for the tables
    const uint64_t px = uint64_t(b.desc[0].width) * b.desc[0].height;
    const uint64_t shared = b.bld.b.data_size + b.bld.b.seg_count * sizeof(pcwt_j2k_seg);
    const uint64_t frame = 8 * px + b.out[0].size() + 2 * px + 64 * 1024;
    auto with_budget = [&](uint64_t bytes, pcwt_status want) {
        GpuCtx small;
        ASSERT_NE(small.g, nullptr) << small.why;
        pcwt_gpu_set_memory_budget(small.g, bytes);
        for (auto &o : b.out)
            std::fill(o.begin(), o.end(), uint8_t(0xA5));
        char err[256] = "";
        ASSERT_EQ(pcwt_gpu_j2k_decode_batch(small.g, &b.bld.b, err, sizeof err), want) << err << " (budget " << bytes << ")";
        if (want == PCWT_OK) {
            std::string why;
            const auto cpu = cpu_decode(b.bld.b, why);
            ASSERT_EQ(cpu.size(), size_t(frames)) << why;
            for (int i = 0; i < frames; i++)
                EXPECT_TRUE(b.out[i] == cpu[i]) << "frame " << i;
        }
    };
    with_budget(shared + frame / 2, PCWT_ERR_OUT_OF_MEMORY);
    with_budget(shared + frame + frame / 5, PCWT_OK); // one frame a chunk: 4 chunks
}

// Tier-1's warps: code-blocks (heaviest first) packed so that each warp costs about the chunk's
// total over the warps asked for, at most 32 a warp; every packing, and fixed
// counts of code-blocks a warp (pcwt_gpu_j2k_set_t1_lanes), give
// the CPU's samples.
TEST_F(GpuJ2k, WarpsPackedByCost)
{
    auto pack = [](const std::vector<uint64_t> &cost, uint64_t slots) {
        std::vector<uint32_t> first(cost.size() + 1, 0xFFFFFFFFu);
        const uint32_t warps = pcwt_gpu_j2k_t1_pack(cost.data(), cost.size(), slots, first.data());
        first.resize(warps + 1);
        return first;
    };
    // a CT slice alone (64 like code-blocks) on a device holding 4224 warps: a warp each
    EXPECT_EQ(pack(std::vector<uint64_t>(64, 1000), 4224).size(), 65u);
    // 131072 like code-blocks for 4096 warps: full warps; for 8192, half warps
    const auto full = pack(std::vector<uint64_t>(131072, 1000), 4096);
    ASSERT_EQ(full.size(), 4097u);
    for (size_t w = 0; w + 1 < full.size(); w++)
        ASSERT_EQ(full[w + 1] - full[w], 32u) << "warp " << w;
    const auto half = pack(std::vector<uint64_t>(131072, 1000), 8192);
    ASSERT_EQ(half.size(), 8193u);
    for (size_t w = 0; w + 1 < half.size(); w++)
        ASSERT_EQ(half[w + 1] - half[w], 16u) << "warp " << w;
    // fewer warps than the code-blocks need at 32 a warp: 32 each all the same
    EXPECT_EQ(pack(std::vector<uint64_t>(131072, 1000), 1000).size(), 4097u);
    // heavy code-blocks first: the heavy ones get small warps, the light ones full warps, every
    // warp's cost within the budget unless it holds one code-block
    std::vector<uint64_t> mixed;
    for (int i = 0; i < 100; i++)
        mixed.push_back(100000);
    for (int i = 0; i < 10000; i++)
        mixed.push_back(100);
    uint64_t total = 0;
    for (uint64_t c : mixed)
        total += c;
    const uint64_t slots = 48, budget = (total + slots - 1) / slots;
    const auto m = pack(mixed, slots);
    EXPECT_EQ(m.front(), 0u);
    EXPECT_EQ(m.back(), mixed.size());
    for (size_t w = 0; w + 1 < m.size(); w++) {
        ASSERT_LT(m[w], m[w + 1]);
        ASSERT_LE(m[w + 1] - m[w], 32u);
        uint64_t sum = 0;
        for (uint32_t i = m[w]; i < m[w + 1]; i++)
            sum += mixed[i];
        if (m[w + 1] - m[w] > 1)
            EXPECT_LE(sum, budget) << "warp " << w;
    }
    EXPECT_EQ(m[1] - m[0], 2u) << "two heavy code-blocks fit the budget of " << budget;
    EXPECT_EQ(m[m.size() - 2] - m[m.size() - 3], 32u) << "the light ones fill their warps";
    EXPECT_EQ(pack({}, 4224).size(), 1u);
    if (synthetic().empty())
        GTEST_SKIP() << kNoStreams;
    std::vector<const Made *> all;
    for (const Made &m0 : synthetic())
        all.push_back(&m0);
    for (const Made &m0 : synthetic())
        check_batch(ctx->g, {&m0}); // a warp a code-block
    for (uint32_t lanes : {1u, 3u, 8u, 32u}) {
        SCOPED_TRACE("lanes " + std::to_string(lanes));
        GpuCtx fixed;
        ASSERT_NE(fixed.g, nullptr) << fixed.why;
        char err[256] = "";
        ASSERT_EQ(pcwt_gpu_j2k_set_t1_lanes(fixed.g, lanes, err, sizeof err), PCWT_OK) << err;
        check_batch(fixed.g, all);
    }
}

// The handle keeps its device buffers between calls (cudaFree would wait for the whole device):
// the trace (PCWT_GPU_TRACE=1) counts the allocations of each call. The first call allocates, a
// call of the same or a smaller batch none, a larger one grows them; each decodes exactly, a
// small batch after a large one too (the buffers hold the large one's data).
TEST_F(GpuJ2k, BuffersKeptAcrossCalls)
{
    if (synthetic().size() < 4)
        GTEST_SKIP() << kNoStreams;
    setenv("PCWT_GPU_TRACE", "1", 1);
    GpuCtx traced;
    unsetenv("PCWT_GPU_TRACE");
    ASSERT_NE(traced.g, nullptr) << traced.why;
    // "(N allocs" of the call's trace line; -1 without one
    auto decode = [&](const std::vector<const Made *> &streams) -> long {
        Built b;
        for (const Made *m : streams)
            EXPECT_EQ(b.add(m->cs), "") << m->name;
        std::string why;
        const auto cpu = cpu_decode(b.bld.b, why);
        EXPECT_EQ(cpu.size(), streams.size()) << why;
        char err[256] = "";
        ::testing::internal::CaptureStderr();
        const pcwt_status st = pcwt_gpu_j2k_decode_batch(traced.g, &b.bld.b, err, sizeof err);
        const std::string trace = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(st, PCWT_OK) << err;
        for (size_t i = 0; i < streams.size() && i < cpu.size(); i++)
            EXPECT_TRUE(b.out[i] == cpu[i]) << streams[i]->name;
        const size_t at = trace.find("j2k submit host"); // the call's first half allocates
        const size_t n = trace.find(" allocs", at);
        if (at == std::string::npos || n == std::string::npos)
            return -1;
        const size_t open = trace.rfind('(', n);
        return std::strtol(trace.c_str() + open + 1, nullptr, 10);
    };
    const std::vector<const Made *> one = {&synthetic()[0]};
    const std::vector<const Made *> four = {&synthetic()[0], &synthetic()[1], &synthetic()[2], &synthetic()[3]};
    EXPECT_GT(decode(one), 0) << "the first call makes the buffers";
    EXPECT_EQ(decode(one), 0) << "the same batch again";
    EXPECT_GT(decode(four), 0) << "a larger batch grows them";
    EXPECT_EQ(decode(four), 0);
    EXPECT_EQ(decode(one), 0) << "a smaller batch after a larger one";
    EXPECT_EQ(decode({&synthetic()[3]}), 0);
}

} // namespace
