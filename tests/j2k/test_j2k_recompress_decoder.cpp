// pcwt-recompress's JPEG 2000 decoder choice (--j2k-decoder, archive/lib/j2kdecode.h):
//   J2kRecompressDecoder.*  (label j2k) the option's values, the automatic choice on the CPU
//                           (OpenJPEG), a GPU decoding asked for without a device (the run does
//                           not start, nothing touched), and the batch path with the CPU decoder
//                           standing in for the device (PCWT_RECOMPRESS_J2K_STANDIN=cpu), and its
//                           call failing as a whole (PCWT_RECOMPRESS_FAULT=backend-j2k);
//                           The batch decoders start before the other handles are made
//                           (PCWT_RECOMPRESS_FAULT=slow-devices holds those back until the first
//                           batch is decoded; =fail-devices then fails the start);
//   J2kRecompressGpu.*      (label gpu) the same folder decoded on the GPU: skips without one.
// The folder: every JPEG 2000 / HTJ2K file of the corpus, streams made here by opj_compress
// (signed, unsigned, 8 to 16 bits, RGB with the RCT, several frames and fragments, 6 levels), an
// HTJ2K file (OpenJPEG's, counted as such) and a truncated codestream (that file fails, alone).
// The outputs must equal those of --j2k-decoder cpu byte for byte.
#include "j2k_folder.h"
#include "j2k_test_util.h"
#include "recompress_util.h"

#include <algorithm>

using namespace j2k;

namespace {

struct Outcome {
    Proc proc;
    std::string out, report;
};

Outcome recompress(const std::string &dir, const std::string &name, const std::string &in,
                   const std::vector<std::string> &options, const std::vector<std::string> &env = {})
{
    Outcome o;
    o.out = dir + "/" + name;
    o.report = dir + "/" + name + ".json";
    std::vector<std::string> argv = {kTool, "--threads", "2", "--no-progress", "--accept-lossy", "--output", o.out,
                                     "--report", o.report};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(in);
    o.proc = run(argv, env);
    return o;
}

// the batch path (on the device, or the CPU standing in; by default asked for with --j2k-decoder
// gpu) against --j2k-decoder cpu
void batchEqualsCpuPath(const std::vector<std::string> &env,
                        const std::vector<std::string> &decoder = {"--j2k-decoder", "gpu"})
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), true, f), "");
    const auto inputs = snapshot(f.in);
    if (env.empty() && decoder.empty()) { // the default: a GPU there?
        const Outcome probe = recompress(dir.path(), "probe", f.in, {"--j2k-decoder", "gpu"});
        if (probe.proc.rc == 1 && probe.proc.out.find("JPEG 2000 decoding on the GPU") != std::string::npos)
            GTEST_SKIP() << "no GPU: " << probe.proc.out;
    }
    const Outcome gpu = recompress(dir.path(), "gpu", f.in, decoder, env);
    if (env.empty() && gpu.proc.rc == 1 && gpu.proc.out.find("JPEG 2000 decoding on the GPU") != std::string::npos)
        GTEST_SKIP() << "no GPU: " << gpu.proc.out;
    const Outcome cpu = recompress(dir.path(), "cpu", f.in, {"--j2k-decoder", "cpu"});
    // the truncated file fails in both, alone
    EXPECT_EQ(cpu.proc.rc, 2) << cpu.proc.out;
    EXPECT_EQ(gpu.proc.rc, 2) << gpu.proc.out;
    const auto sc = reportStatus(cpu.report), sg = reportStatus(gpu.report);
    EXPECT_EQ(sc, sg);
    ASSERT_TRUE(sg.count(f.corrupt)) << gpu.proc.out;
    EXPECT_EQ(sg.at(f.corrupt), "failed");
    EXPECT_NE(gpu.proc.out.find("t_truncated.dcm"), std::string::npos) << gpu.proc.out;
    EXPECT_NE(gpu.proc.out.find("cannot decode the pixel data"), std::string::npos) << gpu.proc.out;
    for (const auto &s : sg) {
        if (s.first != f.corrupt) {
            EXPECT_EQ(s.second, "recompressed") << s.first;
        }
    }
    EXPECT_TRUE(sameOutputs(snapshot(cpu.out), snapshot(gpu.out)));
    EXPECT_TRUE(snapshot(f.in) == inputs) << "an input changed";
    // who decoded what: the lossless frames (Part 1 and HTJ2K) on the batch decoder, the corpus's
    // lossy frames by OpenJPEG; the truncated frame by neither
    const long long gpuFrames = reportSummary(gpu.report, "j2k_gpu_frames");
    const long long gpuOpj = reportSummary(gpu.report, "j2k_openjpeg_frames");
    EXPECT_GE(gpuFrames, static_cast<long long>(f.partOneFrames + f.htFrames));
    EXPECT_GE(reportSummary(gpu.report, "j2k_gpu_calls"), 1);
    EXPECT_EQ(reportSummary(cpu.report, "j2k_gpu_frames"), 0);
    EXPECT_EQ(reportSummary(cpu.report, "j2k_openjpeg_frames"), gpuFrames + gpuOpj);
    EXPECT_NE(gpu.proc.out.find("JPEG 2000 frames: " + std::to_string(gpuFrames) + " decoded on the GPU"),
              std::string::npos)
        << gpu.proc.out;

    // in place: the truncated file is left byte for byte, the others replaced by verified copies
    const std::string place = dir / "place";
    fs::create_directories(place);
    copyFile(f.in + "/a_signed16.dcm", place + "/a_signed16.dcm");
    copyFile(f.corrupt, place + "/t_truncated.dcm");
    const std::vector<uint8_t> before = readBytes(place + "/t_truncated.dcm");
    std::vector<std::string> argv = {kTool, "--threads", "2", "--no-progress"};
    argv.insert(argv.end(), decoder.begin(), decoder.end());
    argv.push_back(place);
    const Proc p = run(argv, env);
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_TRUE(readBytes(place + "/t_truncated.dcm") == before) << "the corrupt original changed";
    EXPECT_TRUE(readBytes(place + "/a_signed16.dcm") == snapshot(gpu.out).at("a_signed16.dcm"));
    EXPECT_TRUE(tempFilesBelow(place).empty());
}

} // namespace

TEST(J2kRecompressDecoder, OptionValues)
{
    const Proc bad = run({kTool, "--j2k-decoder", "nvjpeg2000", "."});
    EXPECT_EQ(bad.rc, 1) << bad.out;
    EXPECT_NE(bad.out.find("--j2k-decoder needs auto, gpu or cpu"), std::string::npos) << bad.out;
    const Proc help = run({kTool, "--help"});
    EXPECT_NE(help.out.find("--j2k-decoder"), std::string::npos) << help.out;
}

// the CPU codes: auto is OpenJPEG on the readers' threads, and the summary says so
TEST(J2kRecompressDecoder, AutoOnTheCpuIsOpenJpeg)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    fs::remove(f.corrupt);
    const Outcome o = recompress(dir.path(), "out", f.in, {"--backend-cpu"});
    EXPECT_EQ(o.proc.rc, 0) << o.proc.out;
    const long long opj = static_cast<long long>(f.partOneFrames + f.htFrames);
    EXPECT_EQ(reportSummary(o.report, "j2k_gpu_frames"), 0);
    EXPECT_EQ(reportSummary(o.report, "j2k_gpu_calls"), 0);
    EXPECT_EQ(reportSummary(o.report, "j2k_openjpeg_frames"), opj);
    EXPECT_NE(o.proc.out.find("JPEG 2000 frames: 0 decoded on the GPU, " + std::to_string(opj) + " by OpenJPEG"),
              std::string::npos)
        << o.proc.out;
}

// --j2k-decoder gpu without a device: the run does not start, nothing is touched
TEST(J2kRecompressDecoder, GpuAskedWithoutDeviceDoesNotStart)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    const auto before = snapshot(f.in);
    const Proc p = run({kTool, "--threads", "2", "--no-progress", "--j2k-decoder", "gpu", f.in});
    if (p.rc != 1 && p.out.find("decoded on the GPU") != std::string::npos)
        GTEST_SKIP() << "a GPU is present (J2kRecompressGpu.* test it): " << p.out;
    EXPECT_EQ(p.rc, 1) << p.out;
    EXPECT_NE(p.out.find("cannot start: JPEG 2000 decoding on the GPU"), std::string::npos) << p.out;
    EXPECT_TRUE(snapshot(f.in) == before) << "a file was touched";
}

TEST(J2kRecompressDecoder, CpuStandInBatchEqualsCpuPath)
{
    batchEqualsCpuPath({"PCWT_RECOMPRESS_J2K_STANDIN=cpu"});
}

// the JPEG 2000 batch decoder's call failing as a whole, as a GPU context lost mid-run makes it
// (PCWT_RECOMPRESS_FAULT=backend-j2k): every frame goes to OpenJPEG, the files come out as the CPU
// path writes them, the truncated one fails alone, no crash
TEST(J2kRecompressDecoder, FailingBatchDecoderFallsBackToOpenJpeg)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    const Outcome cpu = recompress(dir.path(), "cpu", f.in, {"--j2k-decoder", "cpu"});
    const Outcome bad = recompress(dir.path(), "bad", f.in, {"--j2k-decoder", "gpu"},
                                   {"PCWT_RECOMPRESS_J2K_STANDIN=cpu", "PCWT_RECOMPRESS_FAULT=backend-j2k"});
    EXPECT_EQ(cpu.proc.rc, 2) << cpu.proc.out;
    EXPECT_EQ(bad.proc.rc, 2) << bad.proc.out;
    EXPECT_EQ(reportStatus(cpu.report), reportStatus(bad.report));
    EXPECT_TRUE(sameOutputs(snapshot(cpu.out), snapshot(bad.out)));
    EXPECT_EQ(reportSummary(bad.report, "j2k_gpu_frames"), 0);
    EXPECT_GE(reportSummary(bad.report, "j2k_gpu_calls"), 1);
    EXPECT_EQ(reportSummary(bad.report, "j2k_openjpeg_frames"), static_cast<long long>(f.partOneFrames + f.htFrames));
}

TEST(J2kRecompressGpu, GpuDecodingEqualsCpuPath)
{
    batchEqualsCpuPath({});
}

// Without --j2k-decoder (auto) a GPU decodes the JPEG 2000 input: the same outputs, the lossless
// frames counted as the GPU's
TEST(J2kRecompressGpu, DefaultDecodesOnTheGpu)
{
    batchEqualsCpuPath({}, {});
}

// The readers start before the coding devices are up and leave JPEG 2000 files undecoded while it
// is not known whether the GPU decodes them (PCWT_RECOMPRESS_FAULT=slow-start holds the start back
// until every file is read). With a GPU they are decoded there; without one they go to OpenJPEG
// after all: either way the outputs are the CPU path's byte for byte, every frame decoded once.
TEST(J2kRecompressDecoder, FilesReadBeforeTheStartEqualTheCpuPath)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    const Outcome cpu = recompress(dir.path(), "cpu", f.in, {"--j2k-decoder", "cpu"});
    const Outcome slow = recompress(dir.path(), "slow", f.in, {"--stats"}, {"PCWT_RECOMPRESS_FAULT=slow-start"});
    EXPECT_EQ(cpu.proc.rc, 2) << cpu.proc.out;
    EXPECT_EQ(slow.proc.rc, 2) << slow.proc.out;
    EXPECT_EQ(reportStatus(cpu.report), reportStatus(slow.report));
    EXPECT_TRUE(sameOutputs(snapshot(cpu.out), snapshot(slow.out)));
    EXPECT_EQ(reportSummary(slow.report, "j2k_gpu_frames") + reportSummary(slow.report, "j2k_openjpeg_frames"),
              reportSummary(cpu.report, "j2k_openjpeg_frames"));
    const size_t read = slow.proc.out.find("first file read"), made = slow.proc.out.find("handles made");
    ASSERT_NE(made, std::string::npos) << slow.proc.out;
    EXPECT_LT(read, made) << slow.proc.out;
}

// the position of a timeline mark in --stats' output (npos when absent)
size_t mark(const Outcome &o, const std::string &name)
{
    const size_t t = o.proc.out.find("timeline (s since the start):");
    return t == std::string::npos ? t : o.proc.out.find(" " + name + " ", t);
}

// The batch decoders and the finishers start first and decode while the other handles are made
// (held back here until the first file is finished), each decoder warmed with a small codestream
// first; what fails meanwhile (the truncated file) is reported once the run starts; the outputs
// are the CPU path's.
TEST(J2kRecompressDecoder, DecodersStartBeforeTheOtherHandles)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    const Outcome cpu = recompress(dir.path(), "cpu", f.in, {"--j2k-decoder", "cpu"});
    const Outcome early = recompress(dir.path(), "early", f.in, {"--j2k-decoder", "gpu", "--stats"},
                                     {"PCWT_RECOMPRESS_J2K_STANDIN=cpu", "PCWT_RECOMPRESS_FAULT=slow-devices"});
    EXPECT_EQ(early.proc.rc, 2) << early.proc.out;
    EXPECT_EQ(reportStatus(cpu.report), reportStatus(early.report));
    EXPECT_TRUE(sameOutputs(snapshot(cpu.out), snapshot(early.out)));
    EXPECT_GE(reportSummary(early.report, "j2k_gpu_frames"), static_cast<long long>(f.partOneFrames));

    const size_t decoded = mark(early, "first JPEG 2000 batch decoded"), made = mark(early, "handles made");
    ASSERT_NE(decoded, std::string::npos) << early.proc.out;
    ASSERT_NE(made, std::string::npos) << early.proc.out;
    EXPECT_LT(decoded, made) << early.proc.out;
    EXPECT_LT(mark(early, "JPEG 2000 decoder warm"), decoded) << early.proc.out;
    EXPECT_NE(mark(early, "JPEG 2000 buffers made"), std::string::npos) << early.proc.out;
    EXPECT_LT(mark(early, "first JPEG 2000 file finished"), made) << early.proc.out;
    EXPECT_NE(early.proc.out.find("t_truncated.dcm"), std::string::npos) << early.proc.out;
}

// the other handles failing after the batch decoders have decoded and the finishers finished a
// file: the run does not start, no file is reported or written, nothing is touched (what the
// decoders and finishers held is dropped)
TEST(J2kRecompressDecoder, HandlesFailingAfterEarlyDecodingTouchNothing)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    const auto before = snapshot(f.in);
    const Outcome o = recompress(dir.path(), "fail", f.in, {"--j2k-decoder", "gpu"},
                                 {"PCWT_RECOMPRESS_J2K_STANDIN=cpu", "PCWT_RECOMPRESS_FAULT=fail-devices"});
    EXPECT_EQ(o.proc.rc, 1) << o.proc.out;
    EXPECT_NE(o.proc.out.find("cannot start: test fault: the devices' handles fail"), std::string::npos) << o.proc.out;
    EXPECT_TRUE(snapshot(f.in) == before) << "a file was touched";
    EXPECT_TRUE(!fs::exists(o.out) || snapshot(o.out).empty()) << "a copy was written";
    EXPECT_FALSE(fs::exists(o.report)) << "a report was written";
    EXPECT_EQ(o.proc.out.find("recompressed"), std::string::npos) << o.proc.out;
    EXPECT_EQ(o.proc.out.find("t_truncated.dcm"), std::string::npos) << o.proc.out;
}

// With a GPU the batch decoders' first page-locked buffers are made from the first JPEG 2000 file
// read, beside the CUDA context, and the first batch takes one of them (it waits for them): their
// mark comes first; the outputs are the CPU path's.
TEST(J2kRecompressGpu, FirstBatchBuffersMadeAtTheStart)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Folder f;
    ASSERT_EQ(makeFolder(dir.path(), false, f), "");
    const Outcome gpu = recompress(dir.path(), "gpu", f.in, {"--j2k-decoder", "gpu", "--stats"});
    if (gpu.proc.rc == 1 && gpu.proc.out.find("JPEG 2000 decoding on the GPU") != std::string::npos)
        GTEST_SKIP() << "no GPU: " << gpu.proc.out;
    const Outcome cpu = recompress(dir.path(), "cpu", f.in, {"--j2k-decoder", "cpu"});
    EXPECT_EQ(gpu.proc.rc, 2) << gpu.proc.out;
    EXPECT_TRUE(sameOutputs(snapshot(cpu.out), snapshot(gpu.out)));
    const size_t made = mark(gpu, "JPEG 2000 buffers made"), in = mark(gpu, "first JPEG 2000 batch in");
    ASSERT_NE(made, std::string::npos) << gpu.proc.out;
    ASSERT_NE(in, std::string::npos) << gpu.proc.out;
    EXPECT_LT(made, in) << gpu.proc.out;
}
