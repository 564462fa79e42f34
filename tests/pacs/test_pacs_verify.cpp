// Tests of pcwt-storescp's verification of what it archives: every frame by the coding backend's
// decoder (the GPU by default where the GPU codes; --verify-gpu on the CPU: a CPU decoder stands
// in, as in CI), a sample of the frames by the CPU decoder (--verify-sample), --verify-cpu; a
// damaged codestream and a damaged original (PCWT_RECOMPRESS_FAULT) refused by each check, the
// received original kept under failed/. PacsGpu.* (label gpu) skips without a device. Skips when
// ../shared/testdata or the stock tools are absent.
#include "pacs_util.h"

#include "pcwt.h"

namespace {

bool gpuHere()
{
    pcwt_decoder *probe = pcwt_decoder_create();
    const bool ok = probe && pcwt_decoder_set_backend(probe, PCWT_BACKEND_GPU) == PCWT_OK;
    pcwt_decoder_destroy(probe);
    return ok;
}

// a server with these options (and the environment's fault) receives the CT slice and the
// 10-frame MR; whether both were archived, and the server's log
struct Ingest {
    bool stored = false;
    bool refused = false;
    std::string log;
};

Ingest ingest(const std::vector<std::string> &options, const std::string &fault = "")
{
    Ingest r;
    std::vector<std::string> argv = {"-v"};
    argv.insert(argv.end(), options.begin(), options.end());
    ArchiveScp scp;
    if (!scp.listen(argv, "127.0.0.1", {"env", "PCWT_RECOMPRESS_FAULT=" + fault})) {
        ADD_FAILURE() << "pcwt-storescp did not start: " << scp.log();
        return r;
    }
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm"), mr = td("pydicom-data/emri_small.dcm");
    // (-nh: on after a failure)
    const Proc p = runLimited({"storescu", "-nh", "127.0.0.1", std::to_string(scp.port()), ct, mr});
    r.stored = p.rc == 0 && exists(archivePath(scp.root, ct)) && exists(archivePath(scp.root, mr));
    if (r.stored) {
        EXPECT_EQ(fileTransferSyntax(archivePath(scp.root, mr)), kPcwtUid);
        expectSameImage(ct, archivePath(scp.root, ct), true);
        expectSameImage(mr, archivePath(scp.root, mr), true);
    }
    // refused (a failure status each; storescu -nh goes on): nothing archived, both received
    // originals kept under failed/, byte for byte
    r.refused = !exists(archivePath(scp.root, ct)) && !exists(archivePath(scp.root, mr)) &&
                filesBelow(scp.root + "/failed").size() == 2;
    for (const std::string &f : filesBelow(scp.root + "/failed")) {
        Pixels px;
        EXPECT_EQ(loadPixels(f, px), "") << f;
    }
    EXPECT_TRUE(scp.running()) << scp.log();
    scp.stop();
    r.log = scp.log();
    return r;
}

} // namespace

TEST(PacsVerify, CpuStandsInForTheCodingBackendAndTheSampleCatchesDamage)
{
    REQUIRE_SETUP();
    const std::string backend = gpuHere() ? "the GPU decoder" : "the coding backend's decoder (the CPU)";
    Ingest ok = ingest({"--verify-gpu", "--verify-sample", "1"});
    EXPECT_TRUE(ok.stored) << ok.log;
    EXPECT_NE(ok.log.find("verification: every frame by the " + std::string(gpuHere() ? "GPU" : "CPU (standing in"
                          " for the coding backend)") + " decoder, one frame in 1 by the CPU decoder too"),
              std::string::npos) << ok.log;
    for (const std::string fault : {"codestream", "original"}) {
        for (const std::string sample : {"0", "1"}) {
            SCOPED_TRACE(fault + " --verify-sample " + sample);
            const Ingest r = ingest({"--verify-gpu", "--verify-sample", sample}, fault);
            EXPECT_TRUE(r.refused) << r.log;
            EXPECT_NE(r.log.find(backend + ": "), std::string::npos) << r.log;
            EXPECT_EQ(r.log.find("the CPU decoder (sample of 1 in 1, frame ") != std::string::npos, sample == "1")
                << r.log;
        }
    }
}

TEST(PacsVerify, CpuVerifiesEveryFrameWhenTheCpuCodesOrWhenAsked)
{
    REQUIRE_SETUP();
    std::vector<std::vector<std::string>> runs = {{"--verify-cpu"}};
    if (!gpuHere())
        runs.push_back({}); // the default without a GPU
    for (const auto &options : runs) {
        const Ingest ok = ingest(options);
        EXPECT_TRUE(ok.stored) << ok.log;
        EXPECT_NE(ok.log.find("verification: every frame by the CPU decoder\n"), std::string::npos) << ok.log;
        const Ingest bad = ingest(options, "original");
        EXPECT_TRUE(bad.refused) << bad.log;
        EXPECT_EQ(bad.log.find("the CPU decoder (sample"), std::string::npos) << bad.log;
    }
    TempDir tmp;
    // (refused while the command line is read, before it listens)
    const Proc p = runLimited({kStoreScp, "--verify-cpu", "--verify-sample", "2", "-od", tmp.path(), "11112"}, 10);
    EXPECT_EQ(p.rc, 1) << p.out;
    EXPECT_NE(p.out.find("--verify-sample"), std::string::npos) << p.out;
}

// label gpu (pacs.cmake): the GPU verifies every frame by default, the CPU a sample
TEST(PacsGpu, GpuVerifiesByDefault)
{
    REQUIRE_SETUP();
    if (!gpuHere())
        GTEST_SKIP() << "no GPU (a CUDA build with a device is needed): the GPU verification is not tested";
    const Ingest ok = ingest({});
    EXPECT_TRUE(ok.stored) << ok.log;
    EXPECT_NE(ok.log.find("verification: every frame by the GPU decoder, one frame in 64 by the CPU decoder too"),
              std::string::npos) << ok.log;
    for (const std::string fault : {"codestream", "original"}) {
        const Ingest r = ingest({}, fault);
        EXPECT_TRUE(r.refused) << r.log;
        EXPECT_NE(r.log.find("the GPU decoder: "), std::string::npos) << r.log;
    }
}
