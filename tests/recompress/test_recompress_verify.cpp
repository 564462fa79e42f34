// Tests of pcwt-recompress's verification modes: the CPU decoder's deterministic sample of the
// frames (archive/lib/sample.h: 0, 1, N, shards), the verifier stage with the CPU standing in for
// the coding backend (--verify-gpu on a machine without GPU, as in CI), each check catching a
// damaged codestream and a damaged original (PCWT_RECOMPRESS_FAULT), --verify-cpu, and (label
// gpu, RecompressGpu.*) the GPU's verification by default. Skips when ../shared/testdata is absent.
#include "recompress_util.h"

#include "sample.h"
#include "pcwt.h"

namespace {

// a few images: 1, 10, 2 and 1 frames, grey and colour
const std::vector<std::pair<std::string, std::string>> kVerifySet = {
    {"debian-python3-pydicom/CT_small.dcm", "ct/CT_small.dcm"},
    {"pydicom-data/emri_small.dcm", "mr/emri_small_10frames.dcm"},
    {"pydicom-data/eCT_Supplemental.dcm", "ct/eCT_2frames.dcm"},
    {"pydicom-data/US1_UNCR.dcm", "us/US1_rgb.dcm"},
};

// Number of Frames of every DICOM image below root (1 when absent), by relative path
std::map<std::string, long> framesBelow(const std::string &root)
{
    std::map<std::string, long> m;
    for (const auto &e : fs::recursive_directory_iterator(root)) {
        DcmFileFormat ff;
        if (!e.is_regular_file() || ff.loadFile(e.path().c_str()).bad())
            continue;
        long n = 1;
        OFString nf;
        if (ff.getDataset()->findAndGetOFString(DCM_NumberOfFrames, nf).good() && !nf.empty())
            n = std::atol(nf.c_str());
        m[fs::relative(e.path(), root).string()] = n;
    }
    return m;
}

bool gpuHere()
{
    pcwt_decoder *probe = pcwt_decoder_create();
    const bool ok = probe && pcwt_decoder_set_backend(probe, PCWT_BACKEND_GPU) == PCWT_OK;
    pcwt_decoder_destroy(probe);
    return ok;
}

// a run on a fresh tree of kVerifySet (copies times); its report
struct VerifyRun {
    Tree tree;
    std::string report;
    Proc proc;
    VerifyRun(const std::vector<std::string> &options, int copies = 1, const std::vector<std::string> &env = {})
        : tree(kVerifySet, copies), report(tree.dir / "r.json")
    {
        std::vector<std::string> argv = {kTool, "--no-progress", "--report", report};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.push_back(tree.root);
        proc = run(argv, env);
    }
};

} // namespace

TEST(RecompressVerify, SampleIsDeterministicAndHonoursItsRate)
{
    // 0: no frame; 1: every frame
    for (int k = 0; k < 2000; ++k) {
        const std::string key = "study/" + std::to_string(k) + ".dcm";
        EXPECT_FALSE(DPRCSampledFrame(key, static_cast<uint64_t>(k % 7), 0));
        EXPECT_TRUE(DPRCSampledFrame(key, static_cast<uint64_t>(k % 7), 1));
    }
    // one in N, over the frames of many files and over the frames of one long file, the same each time
    for (const unsigned every : {2u, 3u, 64u}) {
        uint64_t files = 0, frames = 0;
        const uint64_t n = 200000;
        for (uint64_t k = 0; k < n; ++k) {
            const std::string key = "p" + std::to_string(k % 977) + "/s/" + std::to_string(k) + ".dcm";
            const bool in = DPRCSampledFrame(key, 0, every);
            EXPECT_EQ(in, DPRCSampledFrame(key, 0, every));
            files += in;
            frames += DPRCSampledFrame("mr/cine.dcm", k, every);
        }
        const double expected = double(n) / every;
        EXPECT_NEAR(double(files), expected, expected * 0.1) << every;
        EXPECT_NEAR(double(frames), expected, expected * 0.1) << every;
    }
    // not tied to the shard (the same path hash): with 64 shards and 1 in 64 every shard has its
    // share of first frames checked
    std::vector<unsigned> perShard(64, 0);
    for (unsigned k = 0; k < 64 * 640; ++k) {
        const std::string key = "ct/" + std::to_string(k) + ".dcm";
        for (unsigned s = 0; s < 64; ++s)
            if (DPRCInShard(key, s, 64) && DPRCSampledFrame(key, 0, 64))
                ++perShard[s];
    }
    for (unsigned s = 0; s < 64; ++s)
        EXPECT_GT(perShard[s], 0u) << "shard " << s << " has no frame in the sample";
}

// the read order with a sample (DPRCSampledFirst): the files whose first frame is drawn first, then
// the others, each part in the walk's order, every file once; without a sample (0) or with every
// frame in it (1), the walk's order
TEST(RecompressVerify, FilesWhoseFirstFrameIsSampledAreReadFirst)
{
    std::vector<DPRCEntry> files;
    for (int k = 0; k < 3000; ++k)
        files.push_back(DPRCEntry{"in/s" + std::to_string(k % 17) + "/" + std::to_string(k) + ".dcm",
                                  "s" + std::to_string(k % 17) + "/" + std::to_string(k) + ".dcm", 1000, false});
    std::vector<size_t> walk(files.size());
    for (size_t i = 0; i < walk.size(); ++i)
        walk[i] = i;
    EXPECT_EQ(DPRCSampledFirst(files, 0), walk);
    EXPECT_EQ(DPRCSampledFirst(files, 1), walk);
    for (const unsigned every : {2u, 64u}) {
        SCOPED_TRACE(every);
        const std::vector<size_t> order = DPRCSampledFirst(files, every);
        ASSERT_EQ(order.size(), files.size());
        std::vector<size_t> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, walk) << "not every file once";
        size_t drawn = 0;
        while (drawn < order.size() && DPRCSampledFrame(files[order[drawn]].rel, 0, every))
            ++drawn;
        EXPECT_GT(drawn, 0u);
        EXPECT_LT(drawn, files.size());
        for (size_t k = drawn; k < order.size(); ++k)
            EXPECT_FALSE(DPRCSampledFrame(files[order[k]].rel, 0, every)) << "a drawn file after the others: " << k;
        EXPECT_TRUE(std::is_sorted(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(drawn)));
        EXPECT_TRUE(std::is_sorted(order.begin() + static_cast<std::ptrdiff_t>(drawn), order.end()));
    }
}

TEST(RecompressVerify, CpuStandsInForTheCodingBackendAndItsSampleIsTheSameEachRun)
{
    REQUIRE_CORPUS();
    // --verify-gpu: the verifier stage decodes every frame with the coding backend (the CPU
    // here, the GPU on a GPU machine), the writers' CPU decoder the sample
    const std::string backend = gpuHere() ? "gpu+cpu-sample" : "backend-cpu+cpu-sample";
    long long frames = -1;
    {
        VerifyRun all({"--verify-gpu", "--verify-sample", "1"}, 2);
        ASSERT_EQ(all.proc.rc, 0) << all.proc.out;
        const Tree fresh(kVerifySet, 2);
        expectVerified(all.tree.root, decodeAll(fresh.root), {}, kPcwtUid);
        EXPECT_EQ(reportText(all.report, "verification"), backend) << all.proc.out;
        frames = reportSummary(all.report, "batch_verified_frames");
        EXPECT_EQ(frames, 2 * (1 + 10 + 2 + 1)) << all.proc.out;
        EXPECT_EQ(reportSummary(all.report, "cpu_sampled_frames"), frames);
        EXPECT_NE(all.proc.out.find("all " + std::to_string(frames) + " frames + CPU " + std::to_string(frames) +
                                    " of " + std::to_string(frames) + " frames (sample of 1 in 1)"),
                  std::string::npos) << all.proc.out;
    }
    {
        VerifyRun none({"--verify-gpu", "--verify-sample", "0"}, 2);
        ASSERT_EQ(none.proc.rc, 0) << none.proc.out;
        EXPECT_EQ(reportSummary(none.report, "batch_verified_frames"), frames);
        EXPECT_EQ(reportSummary(none.report, "cpu_sampled_frames"), 0);
    }
    // one in 3: the frames drawn by the files' relative paths, the same in a second run
    VerifyRun a({"--verify-gpu", "--verify-sample", "3"}, 3), b({"--verify-gpu", "+vs", "3"}, 3);
    ASSERT_EQ(a.proc.rc, 0) << a.proc.out;
    ASSERT_EQ(b.proc.rc, 0) << b.proc.out;
    long long predicted = 0, total = 0;
    for (const auto &f : framesBelow(a.tree.root)) {
        total += f.second;
        for (long k = 0; k < f.second; ++k)
            predicted += DPRCSampledFrame(f.first, static_cast<uint64_t>(k), 3);
    }
    EXPECT_EQ(reportSummary(a.report, "batch_verified_frames"), total);
    EXPECT_EQ(reportSummary(a.report, "cpu_sampled_frames"), predicted) << a.proc.out;
    EXPECT_EQ(reportSummary(b.report, "cpu_sampled_frames"), predicted) << b.proc.out;
    EXPECT_GT(predicted, 0);
    EXPECT_LT(predicted, total);
    EXPECT_EQ(reportSummary(a.report, "verify_sample_every"), 3);
}

TEST(RecompressVerify, EachCheckCatchesADamagedCodestreamAndADamagedOriginal)
{
    REQUIRE_CORPUS();
    // a bit flipped in every copy's first codestream as read back, or in the original samples it
    // is compared with: the coding backend's verifier alone (--verify-sample 0) and the CPU
    // decoder's sample (1: every frame) each fail every file, and name themselves
    const std::string backendName = gpuHere() ? "the GPU decoder: " : "the coding backend's decoder (the CPU): ";
    for (const std::string fault : {"codestream", "original"}) {
        for (const std::string sample : {"0", "1"}) {
            SCOPED_TRACE(fault + " --verify-sample " + sample);
            VerifyRun r({"--verify-gpu", "--verify-sample", sample}, 1, {"PCWT_RECOMPRESS_FAULT=" + fault});
            EXPECT_EQ(r.proc.rc, 2) << r.proc.out;
            const auto status = reportStatus(r.report);
            for (const auto &s : status) // (and the DICOMDIR file set's two images)
                EXPECT_TRUE(s.second == "failed" || s.first.find("DICOMDIR") != std::string::npos) << s.first;
            for (const auto &f : kVerifySet) {
                const std::string path = r.tree.root + "/" + f.second;
                EXPECT_EQ(status.at(path), "failed") << f.second;
                EXPECT_TRUE(readBytes(path) == readBytes(kTestdata + "/" + f.first)) << f.second << " was changed";
            }
            EXPECT_NE(r.proc.out.find(backendName), std::string::npos) << r.proc.out;
            const bool sampled = r.proc.out.find("the CPU decoder (sample of 1 in 1, frame ") != std::string::npos;
            EXPECT_EQ(sampled, sample == "1") << r.proc.out;
            if (fault == "original") {
                EXPECT_NE(r.proc.out.find("differs from the original"), std::string::npos) << r.proc.out;
            }
            EXPECT_TRUE(tempFilesBelow(r.tree.root).empty());
        }
    }
}

TEST(RecompressVerify, CpuVerifiesEverythingWhenTheCpuCodesOrWhenAsked)
{
    REQUIRE_CORPUS();
    // the CPU coding (--gpus 0), or --verify-cpu: each writer decodes every frame of its copies
    for (const std::vector<std::string> &options :
         std::vector<std::vector<std::string>>{{"--gpus", "0"}, {"--verify-cpu"}}) {
        VerifyRun r(options);
        ASSERT_EQ(r.proc.rc, 0) << r.proc.out;
        EXPECT_EQ(reportText(r.report, "verification"), "cpu") << r.proc.out;
        EXPECT_EQ(reportSummary(r.report, "batch_verified_files"), 0);
        EXPECT_EQ(reportSummary(r.report, "cpu_sampled_frames"), 0);
        EXPECT_NE(r.proc.out.find("verification: every frame by the CPU decoder"), std::string::npos) << r.proc.out;
    }
    // --verify-cpu decodes every frame: a damaged original still fails every file
    VerifyRun damaged({"--verify-cpu"}, 1, {"PCWT_RECOMPRESS_FAULT=original"});
    EXPECT_EQ(damaged.proc.rc, 2) << damaged.proc.out;
    for (const auto &s : reportStatus(damaged.report))
        EXPECT_TRUE(s.second == "failed" || s.first.find("DICOMDIR") != std::string::npos) << s.first;
    // a sample without the sampling verifier, a value out of range: nothing is touched
    Tree t(kVerifySet);
    const auto before = snapshot(t.root);
    for (const std::vector<std::string> &bad : std::vector<std::vector<std::string>>{
             {kTool, "--verify-cpu", "--verify-sample", "4", t.root},
             {kTool, "--verify-sample", "-1", t.root},
             {kTool, "--verify-sample", "x", t.root}}) {
        const Proc p = run(bad);
        EXPECT_EQ(p.rc, 1) << describe(bad, p);
    }
    EXPECT_TRUE(snapshot(t.root) == before);
    const Proc help = run({kTool, "--help"});
    for (const char *opt : {"--verify-gpu", "--verify-cpu", "--verify-sample"})
        EXPECT_NE(help.out.find(opt), std::string::npos) << opt;
    EXPECT_NE(help.out.find("default when the GPU"), std::string::npos) << help.out;
}

// label gpu (recompress.cmake): the GPU's verification with no option but --gpus 1
TEST(RecompressGpu, GpuVerifiesEveryFrameAndTheCpuASampleByDefault)
{
    REQUIRE_CORPUS();
    if (!gpuHere())
        GTEST_SKIP() << "no GPU (a CUDA build with a device is needed): the GPU verification is not tested";
    VerifyRun r({"--gpus", "1"}, 8);
    ASSERT_EQ(r.proc.rc, 0) << r.proc.out;
    EXPECT_EQ(reportText(r.report, "verification"), "gpu+cpu-sample");
    EXPECT_EQ(reportSummary(r.report, "verify_sample_every"), 64);
    const long long frames = reportSummary(r.report, "batch_verified_frames");
    EXPECT_EQ(frames, 8 * (1 + 10 + 2 + 1));
    long long predicted = 0;
    for (const auto &f : framesBelow(r.tree.root))
        for (long k = 0; k < f.second; ++k)
            predicted += DPRCSampledFrame(f.first, static_cast<uint64_t>(k), 64);
    EXPECT_EQ(reportSummary(r.report, "cpu_sampled_frames"), predicted);
    EXPECT_NE(r.proc.out.find("verification: GPU all " + std::to_string(frames) + " frames + CPU "), std::string::npos)
        << r.proc.out;
    // damage caught by the GPU alone (no sample), and by both (every frame in the sample)
    for (const std::string fault : {"codestream", "original"}) {
        for (const std::string sample : {"0", "1"}) {
            SCOPED_TRACE(fault + " --verify-sample " + sample);
            VerifyRun d({"--gpus", "1", "--verify-sample", sample}, 1, {"PCWT_RECOMPRESS_FAULT=" + fault});
            EXPECT_EQ(d.proc.rc, 2) << d.proc.out;
            for (const auto &s : reportStatus(d.report))
                EXPECT_TRUE(s.second == "failed" || s.first.find("DICOMDIR") != std::string::npos) << s.first;
            EXPECT_NE(d.proc.out.find("the GPU decoder: "), std::string::npos) << d.proc.out;
            EXPECT_EQ(d.proc.out.find("the CPU decoder (sample") != std::string::npos, sample == "1") << d.proc.out;
        }
    }
    // --verify-cpu: every frame by the CPU decoder, the GPU coding
    VerifyRun c({"--gpus", "1", "--verify-cpu"});
    ASSERT_EQ(c.proc.rc, 0) << c.proc.out;
    EXPECT_EQ(reportText(c.report, "verification"), "cpu");
    EXPECT_GT(reportSummary(c.report, "batch_coded_frames"), 0);
}
