// Tier-2 of a batch on several threads (pcwt_j2k_tier2_jobs, what the GPU path runs before the
// device): streams made by opj_compress, and one damaged so that its packets do not parse, parsed
// on 1..8 threads give the batch pcwt_j2k_tier2 makes frame by frame (every array, every byte of
// the code-block data), the same statuses and the same message. Skips without
// libopenjp2-tools.
#include "j2k_opj_util.h"

extern "C" {
#include "j2k_codestream.h"
#include "j2k_decoder.h"
#include "j2k_tier2.h"
}

#include "pcwt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

using namespace j2kt1;

namespace {

const OpjCase kStreams[] = {
    {"ct512", 512, 512, 1, 16, true, "-n 6"},
    {"dx", 1000, 1250, 1, 12, false, "-n 6"},
    {"rgb8_mct", 120, 90, 3, 8, false, "-n 4"},
    {"layers3", 200, 150, 1, 12, false, "-n 4 -r 20,10,1"},
    {"precincts_rpcl", 300, 200, 3, 8, false, "-n 4 -p RPCL -c [128,128],[64,64] -r 5,1"},
    {"sop_eph", 200, 150, 1, 12, false, "-n 4 -SOP -EPH -r 10,1"},
    {"tile_parts", 200, 150, 3, 8, false, "-n 4 -TP R"},
    {"bypass_layers", 100, 90, 1, 16, false, "-n 3 -M 1 -r 8,4,1"},
};

struct Batch {
    pcwt_j2k_builder bld{};
    std::vector<pcwt_status> status;
    std::string err;
    size_t added = 0;
    Batch() = default;
    Batch(const Batch &) = delete;
    Batch &operator=(const Batch &) = delete;
    ~Batch() { pcwt_j2k_builder_free(&bld); }
};

class J2kTier2Threads : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        if (!haveOpj())
            return;
        uint32_t seed = 7;
        for (const OpjCase &c : kStreams) {
            auto cs = opjEncode(makeImage(c.w, c.h, c.comps, c.bits, c.sgn, seed++), c.args);
            if (!cs.empty())
                streams_->push_back(cs);
        }
    }
    static void TearDownTestSuite() { streams_->clear(); }
    void SetUp() override
    {
        if (!haveOpj())
            GTEST_SKIP() << "opj_compress/opj_decompress not installed (libopenjp2-tools)";
        ASSERT_EQ(streams_->size(), std::size(kStreams)) << "opj_compress failed";
    }
    static std::unique_ptr<std::vector<std::vector<uint8_t>>> streams_;
};
std::unique_ptr<std::vector<std::vector<uint8_t>>> J2kTier2Threads::streams_ =
    std::make_unique<std::vector<std::vector<uint8_t>>>();

// Each stream's output buffer, of the size its main header gives.
void outputs(const std::vector<const std::vector<uint8_t> *> &cs, std::vector<std::vector<uint8_t>> &out)
{
    out.assign(cs.size(), {});
    for (size_t i = 0; i < cs.size(); i++) {
        pcwt_header_info info{};
        char err[256] = "";
        ASSERT_EQ(pcwt_j2k_read_header(cs[i]->data(), cs[i]->size(), &info, err, sizeof err), PCWT_OK) << err;
        out[i].resize(pcwt_image_size(&info.desc));
    }
}

// The reference: pcwt_j2k_tier2 frame by frame, the last failure's message kept.
void sequential(const std::vector<const std::vector<uint8_t> *> &cs, std::vector<std::vector<uint8_t>> &out,
                Batch &b)
{
    auto h = std::make_unique<pcwt_j2k_header>();
    char err[256] = "";
    for (size_t i = 0; i < cs.size(); i++) {
        pcwt_header_info info{};
        pcwt_status st = pcwt_j2k_read_header(cs[i]->data(), cs[i]->size(), &info, err, sizeof err);
        if (st == PCWT_OK)
            st = pcwt_j2k_read_codestream(cs[i]->data(), cs[i]->size(), h.get(), err, sizeof err);
        if (st == PCWT_OK)
            st = pcwt_j2k_tier2(&b.bld, h.get(), cs[i]->data(), &info.desc, out[i].data(), err, sizeof err);
        b.status.push_back(st);
        b.added += st == PCWT_OK;
    }
    b.err = err;
}

// pool: the decoder handle's kept memory (NULL: this call's); returns the batch made (the pool's
// until its next call, or b's)
const pcwt_j2k_batch &threaded(const std::vector<const std::vector<uint8_t> *> &cs,
                               std::vector<std::vector<uint8_t>> &out, size_t threads, Batch &b,
                               pcwt_j2k_pool *pool = nullptr)
{
    std::vector<pcwt_decode_job> jobs(cs.size());
    std::vector<size_t> idx(cs.size());
    for (size_t i = 0; i < cs.size(); i++) {
        jobs[i] = pcwt_decode_job{cs[i]->data(), cs[i]->size(), out[i].data(), out[i].size(), PCWT_OK};
        idx[i] = i;
    }
    char err[256] = "";
    const pcwt_j2k_route r = {UINT64_MAX, UINT64_MAX, nullptr, err, sizeof err, pool, 0, 0};
    pcwt_j2k_builder *bld = pool ? pcwt_j2k_pool_batch(pool) : &b.bld;
    pcwt_j2k_builder_reset(bld);
    b.added = pcwt_j2k_tier2_jobs(&r, jobs.data(), idx.data(), idx.size(), threads, bld);
    for (const auto &j : jobs)
        b.status.push_back(j.status);
    b.err = err;
    return bld->b;
}

void expect_same(const Batch &a, const Batch &b, const pcwt_j2k_batch &y)
{
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.err, b.err);
    EXPECT_EQ(a.added, b.added);
    const pcwt_j2k_batch &x = a.bld.b;
    ASSERT_EQ(x.data_size, y.data_size);
    EXPECT_EQ(std::memcmp(x.data, y.data, x.data_size), 0) << "code-block data";
    ASSERT_EQ(x.seg_count, y.seg_count);
    for (size_t i = 0; i < x.seg_count; i++)
        ASSERT_TRUE(x.segs[i].offset == y.segs[i].offset && x.segs[i].length == y.segs[i].length &&
                    x.segs[i].passes == y.segs[i].passes)
            << "segment " << i;
    ASSERT_EQ(x.cblk_count, y.cblk_count);
    for (size_t i = 0; i < x.cblk_count; i++) {
        const pcwt_j2k_cblk &p = x.cblks[i], &q = y.cblks[i];
        ASSERT_TRUE(p.out_offset == q.out_offset && p.out_stride == q.out_stride && p.seg_first == q.seg_first &&
                    p.seg_count == q.seg_count && p.width == q.width && p.height == q.height &&
                    p.orientation == q.orientation && p.mb == q.mb && p.zero_msbs == q.zero_msbs &&
                    p.style == q.style && p.passes == q.passes)
            << "code-block " << i;
    }
    ASSERT_EQ(x.tc_count, y.tc_count);
    for (size_t i = 0; i < x.tc_count; i++)
        ASSERT_TRUE(x.tcs[i].coef_offset == y.tcs[i].coef_offset && x.tcs[i].width == y.tcs[i].width &&
                    x.tcs[i].height == y.tcs[i].height && x.tcs[i].levels == y.tcs[i].levels)
            << "tile-component " << i;
    ASSERT_EQ(x.frame_count, y.frame_count);
    for (size_t i = 0; i < x.frame_count; i++) {
        const pcwt_j2k_frame &p = x.frames[i], &q = y.frames[i];
        ASSERT_TRUE(p.tc_first == q.tc_first && p.components == q.components && p.rct == q.rct &&
                    p.precision == q.precision && p.is_signed == q.is_signed && p.dst == q.dst &&
                    p.cblk_first == q.cblk_first && p.cblk_count == q.cblk_count &&
                    std::memcmp(&p.desc, &q.desc, sizeof p.desc) == 0)
            << "frame " << i;
    }
    EXPECT_EQ(x.coef_count, y.coef_count);
}

// A copy of cs whose packet data after the first SOD is all ones (packet headers that claim more
// than the tile holds): it passes the header checks, tier-2 refuses it.
std::vector<uint8_t> damaged(const std::vector<uint8_t> &cs)
{
    std::vector<uint8_t> d = cs;
    for (size_t i = 0; i + 1 < d.size(); i++)
        if (d[i] == 0xFF && d[i + 1] == 0x93) {
            for (size_t k = i + 2; k < d.size() && k < i + 2 + 64; k++)
                d[k] = 0xFF;
            break;
        }
    return d;
}

// A copy of cs cut halfway through its tile data (its tile-part is truncated).
std::vector<uint8_t> cut(const std::vector<uint8_t> &cs)
{
    std::vector<uint8_t> d = cs;
    for (size_t i = 0; i + 1 < d.size(); i++)
        if (d[i] == 0xFF && d[i + 1] == 0x90) {
            d.resize(i + (d.size() - i) / 2);
            break;
        }
    return d;
}

TEST_F(J2kTier2Threads, SameBatchAsFrameByFrame)
{
    // every stream twice, the CT slice four times: 19 frames of different sizes
    std::vector<const std::vector<uint8_t> *> cs;
    for (int rep = 0; rep < 2; rep++)
        for (const auto &s : *streams_)
            cs.push_back(&s);
    cs.push_back(&(*streams_)[0]);
    cs.push_back(&(*streams_)[0]);
    cs.push_back(&(*streams_)[1]);
    std::vector<std::vector<uint8_t>> out;
    ASSERT_NO_FATAL_FAILURE(outputs(cs, out));
    Batch ref;
    sequential(cs, out, ref);
    ASSERT_EQ(ref.added, cs.size()) << ref.err;
    for (size_t threads : {1, 2, 3, 5, 8, 0}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        Batch b;
        expect_same(ref, b, threaded(cs, out, threads, b));
    }
    // a decoder's kept memory: a smaller batch, then this one, on as many or fewer threads
    std::unique_ptr<pcwt_j2k_pool, void (*)(pcwt_j2k_pool *)> pool(pcwt_j2k_pool_create(), pcwt_j2k_pool_free);
    ASSERT_NE(pool, nullptr);
    const std::vector<const std::vector<uint8_t> *> few(cs.begin(), cs.begin() + 3);
    Batch small_ref;
    sequential(few, out, small_ref);
    for (size_t threads : {8, 3, 1, 2}) {
        SCOPED_TRACE("kept memory, threads " + std::to_string(threads));
        Batch s, b;
        expect_same(small_ref, s, threaded(few, out, threads, s, pool.get()));
        expect_same(ref, b, threaded(cs, out, threads, b, pool.get()));
    }
}

TEST_F(J2kTier2Threads, DamagedStreamsKeepTheirStatusAndMessage)
{
    // two failures with different messages, the second's the batch's
    const auto bad = damaged((*streams_)[3]);
    const auto bad2 = cut((*streams_)[5]);
    std::vector<const std::vector<uint8_t> *> cs;
    for (const auto &s : *streams_)
        cs.push_back(&s);
    cs.insert(cs.begin() + 2, &bad);
    cs.push_back(&bad2);
    cs.push_back(&(*streams_)[2]);
    std::vector<std::vector<uint8_t>> out;
    ASSERT_NO_FATAL_FAILURE(outputs(cs, out));
    Batch ref;
    sequential(cs, out, ref);
    ASSERT_NE(ref.status[2], PCWT_OK) << "the damaged stream parses";
    ASSERT_NE(ref.status[cs.size() - 2], PCWT_OK) << "the cut stream is read";
    ASSERT_EQ(ref.added, cs.size() - 2);
    for (size_t threads : {1, 2, 4, 8}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        Batch b;
        expect_same(ref, b, threaded(cs, out, threads, b));
    }
}

// Through a decoder on the GPU backend (its tier-2 threaded, its memory kept from call to call):
// batches of every stream, with a damaged one, give the CPU decoder's samples, statuses and
// message, a large batch again after a small one too. Skips without a GPU.
TEST_F(J2kTier2Threads, GpuDecoderBatchesEqualCpu)
{
    using Dec = std::unique_ptr<pcwt_decoder, void (*)(pcwt_decoder *)>;
    Dec gpu(pcwt_decoder_create(), pcwt_decoder_destroy), cpu(pcwt_decoder_create(), pcwt_decoder_destroy);
    if (pcwt_decoder_set_backend(gpu.get(), PCWT_BACKEND_GPU) != PCWT_OK)
        GTEST_SKIP() << "no GPU backend: " << pcwt_decoder_last_error(gpu.get());
    ASSERT_EQ(pcwt_decoder_set_backend(cpu.get(), PCWT_BACKEND_CPU), PCWT_OK);
    const auto bad = damaged((*streams_)[3]);
    std::vector<const std::vector<uint8_t> *> large;
    for (int rep = 0; rep < 3; rep++)
        for (const auto &st : *streams_)
            large.push_back(&st);
    large.insert(large.begin() + 5, &bad);
    const std::vector<const std::vector<uint8_t> *> small(large.begin() + 1, large.begin() + 4);
    auto decode = [](pcwt_decoder *d, const std::vector<const std::vector<uint8_t> *> &cs,
                     std::vector<std::vector<uint8_t>> &out, std::vector<pcwt_status> &status) {
        out.assign(cs.size(), {});
        std::vector<pcwt_decode_job> jobs(cs.size());
        for (size_t i = 0; i < cs.size(); i++) {
            pcwt_header_info info{};
            char err[256] = "";
            if (pcwt_j2k_read_header(cs[i]->data(), cs[i]->size(), &info, err, sizeof err) == PCWT_OK)
                out[i].assign(pcwt_image_size(&info.desc), 0xA5);
            jobs[i] = pcwt_decode_job{cs[i]->data(), cs[i]->size(), out[i].data(), out[i].size(), PCWT_OK};
        }
        const pcwt_status st = pcwt_decode_batch(d, jobs.data(), jobs.size());
        status.clear();
        for (const auto &j : jobs)
            status.push_back(j.status);
        return st;
    };
    using Streams = std::vector<const std::vector<uint8_t> *>;
    for (const Streams *batch : {static_cast<const Streams *>(&large), &small, static_cast<const Streams *>(&large)}) {
        std::vector<std::vector<uint8_t>> a, b;
        std::vector<pcwt_status> sa, sb;
        EXPECT_EQ(decode(gpu.get(), *batch, a, sa), decode(cpu.get(), *batch, b, sb));
        EXPECT_EQ(sa, sb);
        EXPECT_STREQ(pcwt_decoder_last_error(gpu.get()), pcwt_decoder_last_error(cpu.get()));
        for (size_t i = 0; i < a.size(); i++) {
            if (sb[i] == PCWT_OK) {
                EXPECT_TRUE(a[i] == b[i]) << "frame " << i;
            }
        }
    }
}

} // namespace
