// pcwt-storescp's JPEG 2000 decoder choice (--j2k-decoder, archive/apps/storescp/j2k.h):
//   J2kScpDecoder.*  (label j2k) the option's values and --help, gpu without a device (the server
//                    does not start: a PACS admin who asked for the GPU learns at once that it is
//                    not there, instead of a server that is slower than configured), auto (the
//                    default) without a GPU: OpenJPEG, said in the log, nothing deferred, and the
//                    batch path with
//                    the CPU decoder standing in for the device (PCWT_RECOMPRESS_J2K_STANDIN=cpu),
//                    also with its call failing as a whole (PCWT_RECOMPRESS_FAULT=backend-j2k:
//                    every frame then goes to OpenJPEG, nothing lost), and frames below
//                    --j2k-gpu-min-samples left to OpenJPEG on the association's thread;
//   J2kScpGpu.*      (label gpu) the same folder decoded on the GPU, asked for (gpu) and by
//                    default (auto): skips without one.
// pcwt-storescu sends the folder of j2k_folder.h (the corpus's JPEG 2000 / HTJ2K files, opj_compress
// streams, an HTJ2K file, a truncated codestream); the archive must equal byte for byte the one
// --j2k-decoder cpu (OpenJPEG) writes, the truncated instance refused in both and kept under failed/.
#include "j2k_folder.h"
#include "j2k_test_util.h"
#include "pacs_util.h"

#include <functional>

using namespace j2k;

namespace {

// pcwt-storescp (options, environment) receiving the folder from pcwt-storescu
struct Received {
    bool started = false;
    std::string log;     // pcwt-storescp's
    std::string sender;  // pcwt-storescu's output
    std::map<std::string, std::vector<uint8_t>> archived; // path below the root (failed/ aside) -> bytes
    size_t failed = 0;   // received originals kept under failed/
};

Received receive(const Folder &f, const std::vector<std::string> &options, const std::vector<std::string> &env)
{
    Received r;
    ArchiveScp scp;
    std::vector<std::string> launcher;
    if (!env.empty()) {
        launcher = {"env"};
        launcher.insert(launcher.end(), env.begin(), env.end());
    }
    std::vector<std::string> opts = {"-v", "--accept-lossy"};
    opts.insert(opts.end(), options.begin(), options.end());
    r.started = scp.listen(opts, "127.0.0.1", launcher);
    if (!r.started) {
        r.log = scp.log();
        return r;
    }
    const Proc p = runLimited({STORESCU_PATH, "-v", "127.0.0.1", std::to_string(scp.port()), f.in}, 240);
    r.sender = p.out;
    scp.stop();
    r.log = scp.log();
    const std::string failed = scp.root + "/failed";
    for (const std::string &a : filesBelow(scp.root)) {
        if (a.compare(0, failed.size() + 1, failed + "/") == 0)
            ++r.failed;
        else
            r.archived[a.substr(scp.root.size() + 1)] = readBytes(a);
    }
    return r;
}

// the sum of the counts "JPEG 2000 frames of X: G decoded on the ..., O by OpenJPEG" in the log
void frameCounts(const std::string &log, long long &gpu, long long &openjpeg)
{
    gpu = openjpeg = 0;
    const std::string key = "JPEG 2000 frames of ";
    for (size_t at = log.find(key); at != std::string::npos; at = log.find(key, at + 1)) {
        const size_t colon = log.find(": ", at);
        const size_t by = log.find(" by OpenJPEG", at);
        const size_t comma = log.rfind(", ", by);
        if (colon == std::string::npos || by == std::string::npos || comma == std::string::npos)
            continue;
        gpu += std::atoll(log.c_str() + colon + 2);
        openjpeg += std::atoll(log.c_str() + comma + 2);
    }
}

// the batch path (on the device, or the CPU standing in; faulty: every call failing, the folder
// without the corpus's files) against --j2k-decoder cpu; minSamples: --j2k-gpu-min-samples (with
// none, every data set handed over; above every data set of the folder: nothing, OpenJPEG on the
// associations' threads); handedCheck: what else the server's log must show
void batchEqualsCpuPath(const std::vector<std::string> &env, bool faulty, const char *minSamples = "0",
                        const char *decoder = "gpu",
                        const std::function<void(const std::string &)> &handedCheck = nullptr)
{
    REQUIRE_J2K_TOOLS();
    if (std::string(decoder) == "auto") { // without a GPU auto is OpenJPEG: said at the start
        ArchiveScp probe;
        ASSERT_TRUE(probe.listen({"-v", "--j2k-decoder", "auto"})) << probe.log();
        probe.stop();
        if (probe.log().find("(--j2k-decoder auto, no GPU") != std::string::npos)
            GTEST_SKIP() << "no GPU (auto decodes with OpenJPEG): " << probe.log();
    }
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), !faulty, f), "");
    const bool none = std::string(minSamples) == "100000000";
    const Received gpu = receive(f, {"--j2k-decoder", decoder, "--j2k-gpu-min-samples", minSamples}, env);
    if (env.empty() && !gpu.started && gpu.log.find("JPEG 2000 decoding on the GPU") != std::string::npos)
        GTEST_SKIP() << "no GPU: " << gpu.log;
    ASSERT_TRUE(gpu.started) << gpu.log;
    const Received cpu = receive(f, {"--j2k-decoder", "cpu"}, {});
    ASSERT_TRUE(cpu.started) << cpu.log;
    // every instance but the truncated one archived, the same bytes
    EXPECT_GE(cpu.archived.size(), f.made - 1) << cpu.log;
    EXPECT_EQ(cpu.archived.size(), gpu.archived.size()) << gpu.log;
    for (const auto &a : cpu.archived) {
        SCOPED_TRACE(a.first);
        ASSERT_TRUE(gpu.archived.count(a.first)) << "not archived with --j2k-decoder gpu\n" << gpu.log;
        EXPECT_TRUE(gpu.archived.at(a.first) == a.second) << "archived bytes differ from --j2k-decoder cpu's";
    }
    // the truncated instance: refused (a failure status to the sender) and kept, in both
    EXPECT_EQ(cpu.failed, 1u) << cpu.log;
    EXPECT_EQ(gpu.failed, 1u) << gpu.log;
    EXPECT_NE(gpu.log.find("cannot decode the pixel data"), std::string::npos) << gpu.log;
    // who decoded what: the lossless Part 1 frames on the batch decoder (none when its calls fail),
    // HTJ2K by OpenJPEG
    long long g = 0, o = 0;
    frameCounts(gpu.log, g, o);
    if (none) {
        EXPECT_EQ(g + o, 0) << "a data set of small frames deferred\n" << gpu.log;
        EXPECT_NE(gpu.log.find(std::string("for data sets of fewer than ") + minSamples + " samples"), std::string::npos)
            << gpu.log;
    } else if (handedCheck) {
        handedCheck(gpu.log);
    } else if (faulty) {
        EXPECT_EQ(g, 0) << gpu.log;
        EXPECT_GE(o, static_cast<long long>(f.partOneFrames + f.htFrames)) << gpu.log;
    } else {
        EXPECT_GE(g, static_cast<long long>(f.partOneFrames + f.htFrames)) << gpu.log;
    }
    EXPECT_NE(gpu.log.find("JPEG 2000 input: lossless Part 1 and HTJ2K frames decoded on the"), std::string::npos) << gpu.log;
    frameCounts(cpu.log, g, o);
    EXPECT_EQ(g + o, 0) << "--j2k-decoder cpu deferred a data set\n" << cpu.log;
}

} // namespace

TEST(J2kScpDecoder, OptionValues)
{
    TempDir dir;
    const Proc bad = run({STORESCP_PATH, "--j2k-decoder", "nvjpeg2000", "-od", dir.path(), "11112"});
    EXPECT_NE(bad.rc, 0) << bad.out;
    EXPECT_NE(bad.out.find("--j2k-decoder needs auto, gpu or cpu"), std::string::npos) << bad.out;
    const Proc help = run({STORESCP_PATH, "--help"});
    EXPECT_NE(help.out.find("--j2k-decoder"), std::string::npos) << help.out;
}

// --j2k-decoder gpu without a device: the server does not start (exit 1, the reason logged)
TEST(J2kScpDecoder, GpuAskedWithoutDeviceDoesNotStart)
{
    ArchiveScp scp;
    if (scp.listen({"--j2k-decoder", "gpu"})) {
        scp.stop();
        GTEST_SKIP() << "a GPU is present (J2kScpGpu.* test it): " << scp.log();
    }
    const Proc p = run({STORESCP_PATH, "--j2k-decoder", "gpu", "-od", scp.root, std::to_string(freePort())});
    EXPECT_EQ(p.rc, 1) << p.out;
    EXPECT_NE(p.out.find("cannot start: JPEG 2000 decoding on the GPU"), std::string::npos) << p.out;
}

// auto (the default) without a GPU is OpenJPEG: said at the start with the reason, no data set
// deferred to the batch decoder (with a GPU, J2kScpGpu.AutoTakesTheGpu)
TEST(J2kScpDecoder, AutoWithoutGpuIsOpenJpeg)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Spec s = plainSpec("auto");
    std::vector<uint8_t> want;
    const std::string file = dir / "auto.dcm";
    ASSERT_EQ(makeFile(s, EXS_JPEG2000LosslessOnly, dir.path(), file, want), "");
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"-v"})) << scp.log();
    const Proc p = runLimited({STORESCU_PATH, "127.0.0.1", std::to_string(scp.port()), file});
    EXPECT_EQ(p.rc, 0) << p.out;
    scp.stop();
    const std::string log = scp.log();
    if (log.find("JPEG 2000 input: lossless Part 1 and HTJ2K frames decoded on the GPU") != std::string::npos)
        GTEST_SKIP() << "a GPU is present (J2kScpGpu.AutoTakesTheGpu tests auto with it)";
    EXPECT_NE(log.find("JPEG 2000 input: decoded by OpenJPEG (--j2k-decoder auto, no GPU: "), std::string::npos) << log;
    EXPECT_NE(log.find("stored "), std::string::npos) << log;
    EXPECT_EQ(log.find("JPEG 2000 frames of "), std::string::npos) << log;
}

TEST(J2kScpDecoder, CpuStandInEqualsCpuPath)
{
    batchEqualsCpuPath({"PCWT_RECOMPRESS_J2K_STANDIN=cpu"}, false);
}

// the batch decoder's call failing as a whole (a GPU context lost mid-run): OpenJPEG decodes every
// frame, each instance archived as --j2k-decoder cpu archives it
TEST(J2kScpDecoder, FailingBatchDecoderFallsBackToOpenJpeg)
{
    batchEqualsCpuPath({"PCWT_RECOMPRESS_J2K_STANDIN=cpu", "PCWT_RECOMPRESS_FAULT=backend-j2k"}, true);
}

// --j2k-gpu-min-samples above every frame of the folder: each data set decoded by OpenJPEG on its
// association's thread, none handed to the batch decoder, the same archive
TEST(J2kScpDecoder, SmallFramesStayWithOpenJpeg)
{
    batchEqualsCpuPath({"PCWT_RECOMPRESS_J2K_STANDIN=cpu"}, false, "100000000");
}

// the samples of all of a data set's frames count: with a threshold of 12289 the folder's 3-frame
// 96x64 file (18432 samples) goes to the batch decoder, its 2-frame one (12288) and its one-frame
// slices (6144) stay with OpenJPEG
TEST(J2kScpDecoder, SamplesOfAllFramesDecide)
{
    batchEqualsCpuPath({"PCWT_RECOMPRESS_J2K_STANDIN=cpu"}, false, "12289", "gpu", [](const std::string &log) {
        const std::string uid = "1.2.826.0.1.3680043.10.1078.3."; // j2k_folder.h's instances
        auto handed = [&](int k) {
            const std::string key = "JPEG 2000 frames of ", file = uid + std::to_string(k) + ".dcm: ";
            for (size_t at = log.find(key); at != std::string::npos; at = log.find(key, at + 1))
                if (log.compare(log.find(": ", at) - file.size() + 2, file.size(), file) == 0)
                    return true;
            return false;
        };
        EXPECT_TRUE(handed(2)) << "b_unsigned12 (3 frames) not handed over\n" << log;
        EXPECT_TRUE(handed(4)) << "d_ct (512x512) not handed over\n" << log;
        EXPECT_FALSE(handed(1)) << "a_signed16 (2 frames) handed over\n" << log;
        EXPECT_FALSE(handed(5)) << "e_slice0 handed over\n" << log;
    });
}

TEST(J2kScpGpu, GpuDecodingEqualsCpuPath)
{
    batchEqualsCpuPath({}, false);
}

// auto with a GPU: the batch decoder on the device, the same archive
TEST(J2kScpGpu, AutoTakesTheGpu)
{
    batchEqualsCpuPath({}, false, "0", "auto");
}
