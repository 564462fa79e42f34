// The memory pcwt-recompress makes once per run (archive/lib/region.h, arena.h): the cutter of a
// region into buffers of any size (best fit, joined when given back), the pool that lends a
// region's buffers first and serves what the region has no room for as before, and (label gpu,
// RecompressGpu.*) a run on a GPU whose samples and output arenas come from page-locked regions
// within the memory budget, a budget too small for them, and a damaged copy still caught. Skips
// when ../shared/testdata is absent, the GPU test without a device.
#include "recompress_util.h"

#include "arena.h"
#include "coder.h"
#include "region.h"
#include "verifier.h"

#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>

using dprc::ArenaPool;
using dprc::RegionCutter;

namespace {

const std::size_t kG = RegionCutter::kGranule;

// images of 1, 10, 2, 1 frames and a radiograph (7 MB of samples: larger than a small region)
const std::vector<std::pair<std::string, std::string>> kPoolSet = {
    {"debian-python3-pydicom/CT_small.dcm", "ct/CT_small.dcm"},
    {"pydicom-data/emri_small.dcm", "mr/emri_small_10frames.dcm"},
    {"pydicom-data/eCT_Supplemental.dcm", "ct/eCT_2frames.dcm"},
    {"pydicom-data/US1_UNCR.dcm", "us/US1_rgb.dcm"},
    {"pylibjpeg-data/RG2_JLSL.dcm", "cr/RG2_jpegls.dcm"},
};

// the number after `key` in text, after `from` (-1: not there)
long long numberAfter(const std::string &text, const std::string &key, const std::string &from = "")
{
    const size_t f = text.find(from);
    const size_t k = f == std::string::npos ? f : text.find(key, f);
    return k == std::string::npos ? -1 : std::strtoll(text.c_str() + k + key.size(), nullptr, 10);
}

} // namespace

// runs of whole granules, at granule offsets, none overlapping; exhausted, take() says npos and
// changes nothing; every run given back, the region is one free run again
TEST(RecompressPools, CutterLendsDisjointRunsUntilExhaustedAndJoinsThemAgain)
{
    RegionCutter c(10 * kG + 123); // (the tail below a granule is not lent)
    EXPECT_EQ(c.size(), 10 * kG);
    std::vector<std::size_t> at;
    for (std::size_t n : {std::size_t(1), kG, kG + 1, 3 * kG - 7}) {
        at.push_back(c.take(n));
        ASSERT_NE(at.back(), RegionCutter::npos) << n;
        EXPECT_EQ(at.back() % kG, 0u);
    }
    // 1 + 1 + 2 + 3 granules lent, disjoint
    EXPECT_EQ(c.inUse(), 7 * kG);
    EXPECT_EQ(c.lent(), 4u);
    std::set<std::size_t> granules;
    const std::size_t lens[] = {1, 1, 2, 3};
    for (std::size_t k = 0; k < at.size(); ++k)
        for (std::size_t g = 0; g < lens[k]; ++g) EXPECT_TRUE(granules.insert(at[k] / kG + g).second) << k;
    EXPECT_EQ(c.take(4 * kG), RegionCutter::npos); // 3 granules left
    EXPECT_EQ(c.inUse(), 7 * kG);
    const std::size_t last = c.take(3 * kG);
    ASSERT_NE(last, RegionCutter::npos);
    EXPECT_EQ(c.take(1), RegionCutter::npos); // exhausted
    EXPECT_FALSE(c.give(last + kG));          // not a run's start: nothing changes
    EXPECT_EQ(c.lent(), 5u);
    // given back out of order: neighbours joined both ways
    for (std::size_t k : {2u, 0u, 3u, 1u}) EXPECT_TRUE(c.give(at[k]));
    EXPECT_TRUE(c.give(last));
    EXPECT_FALSE(c.give(last)); // twice: refused
    EXPECT_EQ(c.inUse(), 0u);
    EXPECT_EQ(c.freeRuns(), 1u);
    EXPECT_EQ(c.take(10 * kG), 0u); // the whole region in one run again
}

// the smallest free run that fits is taken: a freed hole is reused before the large tail is cut,
// so that mixed sizes (CT slices and radiographs) leave the long runs for the large files
TEST(RecompressPools, CutterTakesTheBestFittingHole)
{
    RegionCutter c(64 * kG);
    const std::size_t a = c.take(4 * kG), b = c.take(2 * kG), d = c.take(kG);
    ASSERT_NE(d, RegionCutter::npos);
    EXPECT_TRUE(c.give(b)); // a hole of 2 between a and d; 57 granules at the end
    EXPECT_EQ(c.take(2 * kG), b);
    EXPECT_TRUE(c.give(a));
    EXPECT_EQ(c.take(3 * kG), a); // the hole of 4, not the tail
    EXPECT_EQ(c.take(kG), a + 3 * kG);
    EXPECT_EQ(c.take(57 * kG), 7 * kG);
    EXPECT_EQ(c.take(1), RegionCutter::npos);
}

// a pool with a region lends the region's buffers first (reused as they come back); when the
// region has no room, an arena pool serves the request apart (counted), a pool of files' samples
// (size classes) gives nothing, so that the caller takes the heap, until a further part of the
// region is made; buffers lent outlive the pool's last owner (they hold it), and every byte of
// each is the caller's (written in full here: the sanitizer build sees an overlap or a buffer
// used after its region went)
TEST(RecompressPools, PoolLendsTheRegionFirstAndWhatDoesNotFitGoesElsewhere)
{
    std::shared_ptr<ArenaPool> pool = std::make_shared<ArenaPool>(1, "test", false);
    pool->setSizeClasses();
    ASSERT_TRUE(pool->reserve(3 << 20, false)); // rounded to 2 MB pages: 4 MB
    ArenaPool::RegionUse u = pool->regionUse();
    EXPECT_EQ(u.bytes, std::size_t(4) << 20);
    EXPECT_EQ(u.parts, 1u);
    std::vector<std::shared_ptr<unsigned char>> held;
    for (int k = 0; k < 4; ++k) {
        held.push_back(pool->get(1 << 20));
        ASSERT_TRUE(held.back());
        std::memset(held.back().get(), k + 1, 1 << 20);
    }
    u = pool->regionUse();
    EXPECT_EQ(u.lent, 4u);
    EXPECT_EQ(u.overflows, 0u);
    EXPECT_EQ(u.inUse, std::size_t(4) << 20);
    EXPECT_EQ(pool->allocations(), 0u);
    // exhausted: nothing (the caller's heap), counted, nothing allocated
    EXPECT_FALSE(pool->get(1 << 20));
    u = pool->regionUse();
    EXPECT_EQ(u.overflows, 1u);
    EXPECT_EQ(pool->allocations(), 0u);
    for (int k = 0; k < 4; ++k)
        for (std::size_t i = 0; i < (1u << 20); i += 4099) ASSERT_EQ(held[k].get()[i], k + 1) << k;
    // one back: the next request of its size is that buffer again, from the region
    unsigned char *second = held[1].get();
    held[1].reset();
    std::shared_ptr<unsigned char> again = pool->get(1 << 20);
    EXPECT_EQ(again.get(), second);
    EXPECT_EQ(pool->regionUse().lent, 5u);
    // a second part: lent from as soon as it is there, the first part still full
    EXPECT_FALSE(pool->get(1 << 20));
    EXPECT_EQ(pool->regionUse().overflows, 2u);
    ASSERT_TRUE(pool->reserve(2 << 20, false));
    std::shared_ptr<unsigned char> fromSecond = pool->get(2 << 20);
    ASSERT_TRUE(fromSecond);
    std::memset(fromSecond.get(), 5, 2 << 20);
    u = pool->regionUse();
    EXPECT_EQ(u.parts, 2u);
    EXPECT_EQ(u.bytes, std::size_t(6) << 20);
    EXPECT_EQ(u.lent, 6u);
    EXPECT_EQ(u.overflows, 2u);
    EXPECT_EQ(u.inUse, std::size_t(6) << 20);
    for (int k : {0, 2, 3})
        for (std::size_t i = 0; i < (1u << 20); i += 4099) ASSERT_EQ(held[k].get()[i], k + 1) << k;
    fromSecond.reset();
    // the pool's last owner gone: the buffers lent stay valid until they come back
    pool.reset();
    std::memset(again.get(), 7, 1 << 20);
    std::memset(held[3].get(), 7, 1 << 20);
    held.clear();
    again.reset();

    // an arena pool (the coders' output): what the region has no room for is allocated apart
    std::shared_ptr<ArenaPool> arenas = std::make_shared<ArenaPool>(2, "arenas", false);
    ASSERT_TRUE(arenas->reserve(4 << 20, false));
    std::shared_ptr<unsigned char> a = arenas->get(3 << 20), b = arenas->get(3 << 20);
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    std::memset(a.get(), 1, 3 << 20);
    std::memset(b.get(), 2, 3 << 20);
    EXPECT_EQ(arenas->regionUse().lent, 1u);
    EXPECT_EQ(arenas->regionUse().overflows, 1u);
    EXPECT_EQ(arenas->allocations(), 1u);
    EXPECT_EQ(a.get()[(3 << 20) - 1], 1);
}

// a region of another kind than the pool lends (page locked or not, setPinned) is not used: the
// samples' pool lends ordinary memory until the GPU codes
TEST(RecompressPools, RegionOfTheOtherKindIsNotLent)
{
    std::shared_ptr<ArenaPool> pool = std::make_shared<ArenaPool>(2, "test", true);
    ASSERT_TRUE(pool->reserve(2 << 20, false));
    std::shared_ptr<unsigned char> b = pool->get(4096);
    ASSERT_TRUE(b);
    EXPECT_EQ(pool->regionUse().lent, 0u);
    b.reset();
    pool->setPinned(false);
    b = pool->get(4096);
    ASSERT_TRUE(b);
    EXPECT_EQ(pool->regionUse().lent, 1u);
}

// label gpu: a run on a GPU cuts the files' samples and the coders' output arenas from a
// page-locked region each, within the memory budget (the regions made before the first batch
// here, PCWT_RECOMPRESS_FAULT=regions-first: a run this small is read before they are there
// otherwise); with a budget too small for the radiograph the rest is allocated apart and the
// files are the same; a damaged codestream or original is still caught by the GPU's
// verification, and nothing failed is renamed into place
TEST(RecompressGpu, RegionsHoldTheSamplesAndArenasWithinTheBudget)
{
    REQUIRE_CORPUS();
    if (!gpuDevice(0)) GTEST_SKIP() << "no GPU (a CUDA build with a device is needed): the regions are not tested";
    Tree t(kPoolSet, 3);
    const long long files = 3 * static_cast<long long>(kPoolSet.size());
    auto go = [&](const std::string &name, std::vector<std::string> options, const std::vector<std::string> &env) {
        // (--copy-others: the readers wait for the start, so that the regions are there first)
        std::vector<std::string> argv = {kTool, "--no-progress", "--stats", "--report", t.dir / (name + ".json"),
                                         "--output", t.dir / name, "--copy-others"};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.push_back(t.root);
        return run(argv, env);
    };
    const Proc cpu = go("cpu", {"--backend-cpu"}, {});
    ASSERT_EQ(cpu.rc, 0) << cpu.out;
    const Proc gpu = go("gpu", {"--gpus", "1"}, {"PCWT_RECOMPRESS_FAULT=regions-first"});
    ASSERT_EQ(gpu.rc, 0) << gpu.out;
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "cpu"), snapshot(t.dir / "gpu")));
    EXPECT_EQ(reportSummary(t.dir / "gpu.json", "recompressed"), files) << gpu.out;
    const std::string line = "page-locked regions (memory budget ";
    const long long budget = numberAfter(gpu.out, line);
    ASSERT_GT(budget, 0) << gpu.out;
    const long long samples = numberAfter(gpu.out, "): samples ", line), arenas = numberAfter(gpu.out, "; coder arenas ", line);
    EXPECT_GT(samples, 0) << gpu.out;
    EXPECT_LE(samples, budget + budget / 8 + 2) << gpu.out;
    EXPECT_LE(arenas, budget + budget / 8 + 64 + 2) << gpu.out;
    EXPECT_GE(numberAfter(gpu.out, " MB, ", line), files) << "the samples not cut from the region: " << gpu.out;
    EXPECT_EQ(numberAfter(gpu.out, " buffers cut, ", line), 0) << "a sample buffer beyond the region: " << gpu.out;
    EXPECT_EQ(numberAfter(gpu.out, "GPU 0 coded ", "frames per GPU:"), reportSummary(t.dir / "gpu.json", "batch_coded_frames"))
        << gpu.out;

    // a budget of 1 MB: regions of 2 MB, the radiographs' samples apart; the same files
    const Proc small = go("small", {"--gpus", "1"}, {"PCWT_RECOMPRESS_BUDGET_MB=1", "PCWT_RECOMPRESS_FAULT=regions-first"});
    ASSERT_EQ(small.rc, 0) << small.out;
    EXPECT_EQ(numberAfter(small.out, line), 1) << small.out;
    EXPECT_EQ(numberAfter(small.out, "): samples ", line), 2) << small.out;
    EXPECT_GE(numberAfter(small.out, " buffers cut, ", line), 3) << "the radiographs in the samples' region: " << small.out;
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "cpu"), snapshot(t.dir / "small")));

    for (const std::string fault : {"codestream", "original"}) {
        const Proc d = go("f-" + fault, {"--gpus", "1", "--verify-sample", "0"}, {"PCWT_RECOMPRESS_FAULT=" + fault});
        EXPECT_EQ(d.rc, 2) << fault << ": " << d.out;
        EXPECT_NE(d.out.find("the GPU decoder: "), std::string::npos) << fault << ": " << d.out;
        EXPECT_EQ(reportSummary(t.dir / ("f-" + fault + ".json"), "recompressed"), 0) << fault << ": " << d.out;
        EXPECT_EQ(reportSummary(t.dir / ("f-" + fault + ".json"), "failed"), files) << fault << ": " << d.out;
        EXPECT_TRUE(snapshot(t.dir / ("f-" + fault)).empty()) << fault << ": a copy that failed was renamed into place";
    }
}

// files read before the page-locked region is there (a slow start: every file read first) are
// moved into it before their batch: neither the encoder nor the verifier stages any of them
// (PCWT_GPU_TRACE's host line of each call: "stage 0.0 (0 MB)"), and the outputs are the CPU's
TEST(RecompressGpu, SamplesReadBeforeTheRegionAreNotStaged)
{
    REQUIRE_CORPUS();
    if (!gpuDevice(0)) GTEST_SKIP() << "no GPU (a CUDA build with a device is needed): the staging is not tested";
    Tree t(kPoolSet, 3);
    auto go = [&](const std::string &name, const std::vector<std::string> &options, const std::vector<std::string> &env) {
        std::vector<std::string> argv = {kTool, "--no-progress", "--report", t.dir / (name + ".json"), "--output",
                                         t.dir / name};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.push_back(t.root);
        return run(argv, env);
    };
    const Proc cpu = go("cpu", {"--backend-cpu"}, {});
    ASSERT_EQ(cpu.rc, 0) << cpu.out;
    const Proc gpu = go("gpu", {"--gpus", "1", "--stats"}, {"PCWT_RECOMPRESS_FAULT=slow-start", "PCWT_GPU_TRACE=1"});
    ASSERT_EQ(gpu.rc, 0) << gpu.out;
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "cpu"), snapshot(t.dir / "gpu")));
    // the verifier's codestreams have a region of their own, which had room for every request
    const std::string line = "page-locked regions (memory budget ";
    EXPECT_GT(numberAfter(gpu.out, "; codestreams ", line), 0) << gpu.out;
    EXPECT_EQ(numberAfter(gpu.out, " buffers cut, ", "; codestreams "), 0) << gpu.out;
    int calls[2] = {0, 0};
    std::istringstream lines(gpu.out);
    for (std::string l; std::getline(lines, l);)
        for (int k = 0; k < 2; ++k)
            if (l.rfind(k ? "pcwt gpu verify host (ms): " : "pcwt gpu encode host (ms): ", 0) == 0) {
                ++calls[k];
                EXPECT_NE(l.find("; stage 0.0 (0 MB);"), std::string::npos) << "samples staged: " << l;
            }
    EXPECT_GT(calls[0], 0) << gpu.out;
    EXPECT_GT(calls[1], 0) << gpu.out;
}

// the handles' warm-up (a GPU run's, before the first batch): frames of two kinds in turn, all
// codestreams into one buffer, and the verifier's jobs over both; here on the CPU backend, which
// takes the same jobs (the sanitizer build sees a job reading or writing beyond its buffer)
TEST(RecompressPools, WarmUpCodesAndVerifiesFramesOfTwoKindsInTurn)
{
    DPRCPipelineOptions p;
    p.backend = PCWT_BACKEND_CPU;
    std::shared_ptr<pcwt_encoder> coding(pcwt_encoder_create(), pcwt_encoder_destroy);
    ASSERT_TRUE(coding);
    p.coding = coding;
    const pcwt_image_desc desc = {64, 48, 1, 16, 12, 0, 0};
    std::vector<std::uint16_t> smooth(64 * 48), noise(64 * 48);
    std::uint32_t x = 1;
    for (std::size_t k = 0; k < smooth.size(); ++k) {
        smooth[k] = static_cast<std::uint16_t>((k * 3) & 0xfff);
        x = x * 1664525u + 1013904223u;
        noise[k] = static_cast<std::uint16_t>(x >> 20);
    }
    const std::vector<const std::uint16_t *> frames = {smooth.data(), noise.data()};
    dprc::BatchCoder coder(std::make_shared<ArenaPool>(1, "test", false));
    std::string error;
    ASSERT_TRUE(coder.init(p, 0, error)) << error;
    EXPECT_FALSE(coder.gpu());
    EXPECT_TRUE(coder.warm(desc, frames, 5));
    EXPECT_FALSE(coder.warm(desc, {}, 5));

    std::vector<std::vector<unsigned char>> cs;
    for (const std::uint16_t *f : frames) {
        std::vector<unsigned char> one(pcwt_encode_bound(&desc));
        size_t written = 0;
        ASSERT_EQ(pcwt_encode(coding.get(), &desc, f, smooth.size() * 2, one.data(), one.size(), &written), PCWT_OK);
        one.resize(written);
        cs.push_back(one);
    }
    dprc::BatchVerifier verifier;
    ASSERT_TRUE(verifier.init(p, 0, error)) << error;
    verifier.warm(cs, frames, smooth.size() * 2, 5);
    verifier.warm(cs, {frames[0]}, smooth.size() * 2, 5); // (mismatched: nothing done)
}
