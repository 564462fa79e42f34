// JPEG 2000 batches on the GPU in groups (ctest label "gpu"): pcwt_j2k_decode_jobs cuts a batch into
// groups of codestream bytes, tier-2 of the next group on a helper thread while the caller submits
// one and the device decodes the one before (codec/src/j2k_decoder_gpu.c). A batch mixing Part 1 and HTJ2K frames of several sizes (a
// radiograph larger than a group), damaged and truncated frames, cut into uneven groups, with and
// without the decoder's tier-2 pool, and on a device budget too small for the radiograph (its group
// falls back to the CPU), gives each job the status and samples of the CPU route, and OpenJPEG's
// samples for the intact frames; tier-2 joins a group's code-block bytes into the pool's
// page-locked memory; pcwt_gpu_j2k_submit / _finish (what the groups run on) queue
// PCWT_GPU_J2K_SLOTS batches and finish them in order. Skips without CUDA or a device, or without OpenJPEG's and
// OpenJPH's tools.
#include "gpu_test_util.h"
#include "j2k_ojph_util.h"
#include "j2k_opj_util.h"

extern "C" {
#include "gpu_backend.h"
#include "j2k_codestream.h"
#include "j2k_decoder.h"
#include "j2k_tier2.h"
}

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Stream {
    std::string name;
    std::vector<uint8_t> cs;
    std::vector<int32_t> opj; // OpenJPEG's values (planar); empty for a damaged stream
};

// Planar values of the library's interleaved output.
std::vector<int32_t> values(const std::vector<uint8_t> &bytes, const pcwt_image_desc &d)
{
    const size_t px = size_t(d.width) * d.height, bps = d.bits_allocated > 8 ? 2 : 1;
    std::vector<int32_t> v(px * d.components);
    for (size_t k = 0; k < px; k++)
        for (uint32_t c = 0; c < d.components; c++) {
            const size_t at = (k * d.components + c) * bps;
            uint32_t w = bytes[at] | (bps == 2 ? uint32_t(bytes[at + 1]) << 8 : 0u);
            w &= (1u << d.bits_stored) - 1;
            v[c * px + k] = d.is_signed && (w >> (d.bits_stored - 1)) ? int32_t(w) - int32_t(1u << d.bits_stored)
                                                                      : int32_t(w);
        }
    return v;
}

Stream coded(const char *name, uint32_t w, uint32_t h, uint32_t comps, uint32_t bits, bool sgn, bool ht,
             const char *args)
{
    const j2kt1::Image im = j2kt1::makeImage(w, h, comps, bits, sgn, w + 3 * h + bits);
    Stream s{name, ht ? j2kt1::ojphEncode(im, args) : j2kt1::opjEncode(im, args), {}};
    if (!s.cs.empty())
        s.opj = j2kt1::opjDecode(s.cs, im);
    return s;
}

// Bytes flipped in the middle of the stream (its code-block data), or the stream cut short.
Stream damaged(const Stream &s, bool truncate)
{
    Stream d{s.name + (truncate ? "_truncated" : "_flipped"), s.cs, {}};
    if (truncate)
        d.cs.resize(d.cs.size() * 3 / 5);
    else
        for (size_t k = d.cs.size() / 2; k < d.cs.size() / 2 + 24; k += 3)
            d.cs[k] ^= 0x5A;
    return d;
}

const std::vector<Stream> &streams()
{
    static const std::vector<Stream> all = [] {
        std::vector<Stream> v;
        if (!j2kt1::haveOpj() || !j2kt1::haveOjph())
            return v;
        v.push_back(coded("p1_ct12", 512, 512, 1, 12, false, false, "-n 5 -b 64,64"));
        v.push_back(coded("ht_ct16", 512, 512, 1, 16, false, true, "-num_decomps 5"));
        v.push_back(coded("p1_dx", 1000, 1250, 1, 14, false, false, "-n 6 -b 64,64"));
        v.push_back(damaged(v[0], false));
        v.push_back(coded("p1_rgb", 160, 120, 3, 8, false, false, "-n 4"));
        v.push_back(coded("ht_dx", 1000, 1250, 1, 14, false, true, "-num_decomps 5"));
        v.push_back(damaged(v[0], true));
        v.push_back(coded("p1_ct16s", 512, 512, 1, 16, true, false, "-n 5"));
        v.push_back(coded("ht_rgb", 120, 90, 3, 8, false, true, "-num_decomps 4 -colour_trans true"));
        v.push_back(damaged(v[1], false));
        v.push_back(coded("p1_termall", 256, 256, 1, 12, false, false, "-n 5 -M 4"));
        v.push_back(v[0]);
        v.push_back(v[1]);
        for (const Stream &s : v)
            if (s.cs.empty())
                return std::vector<Stream>{};
        return v;
    }();
    return all;
}

struct Result {
    std::vector<pcwt_status> st;
    std::vector<std::vector<uint8_t>> out;
};

// Every stream as one call of pcwt_j2k_decode_jobs on the route (gpu NULL: the CPU).
Result decode(pcwt_gpu *gpu, uint64_t group_bytes, bool pool, size_t tier2_threads = 0)
{
    char err[256] = "";
    pcwt_j2k_pool *p = pool ? pcwt_j2k_pool_create() : nullptr;
    const pcwt_j2k_route r = {UINT64_MAX, uint64_t(1) << 40, gpu, err, sizeof err, p, group_bytes, tier2_threads};
    Result res;
    std::vector<pcwt_decode_job> jobs;
    for (const Stream &s : streams()) {
        pcwt_header_info info{};
        size_t size = 16;
        if (pcwt_j2k_read_header(s.cs.data(), s.cs.size(), &info, err, sizeof err) == PCWT_OK)
            size = pcwt_image_size(&info.desc);
        res.out.emplace_back(size, uint8_t(0xA5));
    }
    for (size_t i = 0; i < streams().size(); i++)
        jobs.push_back(pcwt_decode_job{streams()[i].cs.data(), streams()[i].cs.size(), res.out[i].data(),
                                       res.out[i].size(), PCWT_OK});
    pcwt_j2k_decode_jobs(&r, jobs.data(), jobs.size());
    for (const pcwt_decode_job &j : jobs)
        res.st.push_back(j.status);
    pcwt_j2k_pool_free(p);
    return res;
}

class GpuJ2kGroups : public ::testing::Test {
  protected:
    void SetUp() override
    {
        SKIP_WITHOUT_GPU();
        if (streams().empty())
            GTEST_SKIP() << "opj_compress/opj_decompress (libopenjp2-tools) or ojph_compress (openjph-tools) missing";
        cpu = decode(nullptr, 0, false);
    }
    // The GPU route on a context whose memory budget is `budget` bytes ("" for the default).
    void check(const std::string &budget, uint64_t group_bytes, bool pool, size_t tier2_threads = 0)
    {
        SCOPED_TRACE("budget '" + budget + "', group bytes " + std::to_string(group_bytes) + ", tier-2 threads " +
                     std::to_string(tier2_threads) + (pool ? ", pool" : ""));
        pcwt_gpu *g = nullptr;
        char err[256] = "";
        const pcwt_status made = pcwt_gpu_create(&g, 0, err, sizeof err);
        ASSERT_EQ(made, PCWT_OK) << err;
        if (!budget.empty())
            pcwt_gpu_set_memory_budget(g, std::stoull(budget));
        const Result gpu = decode(g, group_bytes, pool, tier2_threads);
        pcwt_gpu_destroy(g);
        for (size_t i = 0; i < streams().size(); i++) {
            const Stream &s = streams()[i];
            EXPECT_EQ(gpu.st[i], cpu.st[i]) << s.name;
            if (gpu.st[i] != PCWT_OK || cpu.st[i] != PCWT_OK)
                continue;
            EXPECT_TRUE(gpu.out[i] == cpu.out[i]) << s.name << ": samples differ from the CPU route's";
            if (s.opj.empty())
                continue;
            pcwt_header_info info{};
            ASSERT_EQ(pcwt_j2k_read_header(s.cs.data(), s.cs.size(), &info, err, sizeof err), PCWT_OK) << s.name;
            size_t first = 0;
            EXPECT_EQ(j2kt1::countDifferences(values(gpu.out[i], info.desc), s.opj, first), 0u)
                << s.name << ": samples differ from OpenJPEG's, first at " << first;
        }
    }
    Result cpu;
};

// A batch of the given streams by the CPU's tier-2, each frame into its own buffer.
struct Built {
    pcwt_j2k_builder bld{};
    std::vector<std::vector<uint8_t>> out;
    Built(const Built &) = delete;
    Built &operator=(const Built &) = delete;
    explicit Built(const std::vector<size_t> &which)
    {
        auto h = std::make_unique<pcwt_j2k_header>();
        char err[256] = "";
        for (size_t i : which) {
            const Stream &s = streams()[i];
            pcwt_header_info info{};
            EXPECT_EQ(pcwt_j2k_read_header(s.cs.data(), s.cs.size(), &info, err, sizeof err), PCWT_OK) << s.name;
            EXPECT_EQ(pcwt_j2k_read_codestream(s.cs.data(), s.cs.size(), h.get(), err, sizeof err), PCWT_OK) << s.name;
            out.emplace_back(pcwt_image_size(&info.desc), uint8_t(0xA5));
            EXPECT_EQ(pcwt_j2k_tier2(&bld, h.get(), s.cs.data(), &info.desc, out.back().data(), err, sizeof err), PCWT_OK)
                << s.name;
        }
        for (size_t k = 0; k < out.size(); k++)
            bld.b.frames[k].dst = out[k].data();
    }
    ~Built() { pcwt_j2k_builder_free(&bld); }
};

// The intact frames decode on both routes; the truncated one is refused alike.
TEST_F(GpuJ2kGroups, CpuRouteDecodesTheIntactFrames)
{
    for (size_t i = 0; i < streams().size(); i++)
        if (!streams()[i].opj.empty())
            EXPECT_EQ(cpu.st[i], PCWT_OK) << streams()[i].name;
}

TEST_F(GpuJ2kGroups, OneGroupEqualsCpu) { check("", UINT64_MAX, true); }

TEST_F(GpuJ2kGroups, FrameAGroupEqualsCpu) { check("", 1, false); }

// Groups of a few frames each, uneven: the radiographs fill a group alone, the slices share one.
TEST_F(GpuJ2kGroups, UnevenGroupsEqualCpu)
{
    const uint64_t slice = streams()[0].cs.size();
    check("", 2 * slice + slice / 3, true);
    check("", 3 * slice + 1, false);
}

// Tier-2 of each group on as many threads as asked for (16: more than the default's 8, more than a
// group's jobs), into the pool and without it.
TEST_F(GpuJ2kGroups, Tier2ThreadsAskedForEqualCpu)
{
    check("", UINT64_MAX, true, 16);
    check("", 3 * streams()[0].cs.size() + 1, false, 16);
}

// A device budget a 512x512 slice fits but a 1000x1250 radiograph does not: the radiographs'
// groups fall back to the CPU, the other groups decode on the device.
TEST_F(GpuJ2kGroups, GroupsTheDeviceCannotTakeFallBack)
{
    uint64_t data = 0;
    for (const Stream &s : streams())
        data += s.cs.size();
    check(std::to_string(data + (uint64_t(6) << 20)), 2 * streams()[0].cs.size(), true);
}

// Tier-2 on several threads into a group builder of a pool with a device: the batch's code-block
// bytes are joined into the pool's page-locked memory (the device reads them without a staging
// copy), and the batch decodes as the CPU route; a second batch in the same builder too.
TEST_F(GpuJ2kGroups, PoolJoinsIntoPageLockedMemory)
{
    pcwt_gpu *g = nullptr;
    char err[256] = "";
    ASSERT_EQ(pcwt_gpu_create(&g, 0, err, sizeof err), PCWT_OK) << err;
    std::unique_ptr<pcwt_gpu, void (*)(pcwt_gpu *)> hold(g, pcwt_gpu_destroy);
    std::unique_ptr<pcwt_j2k_pool, void (*)(pcwt_j2k_pool *)> pool(pcwt_j2k_pool_create(), pcwt_j2k_pool_free);
    ASSERT_NE(pool, nullptr);
    const pcwt_j2k_route r = {UINT64_MAX, uint64_t(1) << 40, g, err, sizeof err, pool.get(), 0, 0};
    std::vector<size_t> intact;
    for (size_t i = 0; i < streams().size(); i++)
        if (!streams()[i].opj.empty())
            intact.push_back(i);
    for (int round = 0; round < 2; round++) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::vector<std::vector<uint8_t>> out;
        std::vector<pcwt_decode_job> jobs;
        for (size_t i : intact) {
            out.emplace_back(cpu.out[i].size(), uint8_t(0xA5));
            jobs.push_back(pcwt_decode_job{streams()[i].cs.data(), streams()[i].cs.size(), out.back().data(),
                                           out.back().size(), PCWT_OK});
        }
        std::vector<size_t> idx(jobs.size());
        for (size_t k = 0; k < idx.size(); k++)
            idx[k] = round ? idx.size() - 1 - k : k; // the second batch in the other order
        pcwt_j2k_builder *bld = pcwt_j2k_pool_group(pool.get(), 1);
        pcwt_j2k_builder_reset(bld);
        ASSERT_EQ(pcwt_j2k_tier2_jobs(&r, jobs.data(), idx.data(), idx.size(), 3, bld), jobs.size()) << err;
        EXPECT_NE(bld->b.data, bld->data) << "the code-block bytes are joined outside the builder's own memory";
        ASSERT_EQ(pcwt_gpu_j2k_decode_batch(g, &bld->b, err, sizeof err), PCWT_OK) << err;
        for (size_t k = 0; k < intact.size(); k++)
            EXPECT_TRUE(out[k] == cpu.out[intact[k]]) << streams()[intact[k]].name;
        pcwt_j2k_builder_reset(bld);
    }
}

// pcwt_gpu_j2k_submit / _finish: three batches queued at once, a fourth refused, each finished in
// order with the CPU route's samples; finishing with none queued and the one-call entry while a
// batch is queued are refused.
TEST_F(GpuJ2kGroups, SubmitAndFinishInOrder)
{
    pcwt_gpu *g = nullptr;
    char err[256] = "";
    ASSERT_EQ(pcwt_gpu_create(&g, 0, err, sizeof err), PCWT_OK) << err;
    std::unique_ptr<pcwt_gpu, void (*)(pcwt_gpu *)> hold(g, pcwt_gpu_destroy);
    static_assert(PCWT_GPU_J2K_SLOTS == 3, "the batches below fill three slots");
    const std::vector<std::vector<size_t>> sets = {{0, 1, 4}, {2, 7, 8, 10}, {11, 12}, {5}};
    std::vector<std::unique_ptr<Built>> built;
    for (const auto &set : sets)
        built.emplace_back(new Built(set));
    EXPECT_EQ(pcwt_gpu_j2k_finish(g, err, sizeof err), PCWT_ERR_INVALID_ARGUMENT);
    for (size_t k = 0; k < 3; k++)
        ASSERT_EQ(pcwt_gpu_j2k_submit(g, &built[k]->bld.b, err, sizeof err), PCWT_OK) << err;
    EXPECT_EQ(pcwt_gpu_j2k_submit(g, &built[3]->bld.b, err, sizeof err), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_gpu_j2k_decode_batch(g, &built[3]->bld.b, err, sizeof err), PCWT_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(pcwt_gpu_j2k_finish(g, err, sizeof err), PCWT_OK) << err;
    ASSERT_EQ(pcwt_gpu_j2k_submit(g, &built[3]->bld.b, err, sizeof err), PCWT_OK) << err;
    for (size_t k = 0; k < 3; k++)
        ASSERT_EQ(pcwt_gpu_j2k_finish(g, err, sizeof err), PCWT_OK) << err;
    EXPECT_EQ(pcwt_gpu_j2k_finish(g, err, sizeof err), PCWT_ERR_INVALID_ARGUMENT);
    for (size_t s = 0; s < sets.size(); s++)
        for (size_t k = 0; k < sets[s].size(); k++)
            EXPECT_TRUE(built[s]->out[k] == cpu.out[sets[s][k]]) << streams()[sets[s][k]].name;
}

} // namespace
