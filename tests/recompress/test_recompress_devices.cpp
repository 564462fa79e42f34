// Tests of pcwt-recompress's stages spread over threads and devices: several verifier threads per
// device (--verifiers-per-gpu; on the CPU the verifier stage's CPU decoders stand in, as in CI),
// each device brought up on its own (the first working while the second comes up), and (label
// gpu, RecompressGpu.*) two GPUs writing the same files as one. Skips when
// ../shared/testdata is absent, the GPU tests without the devices they need.
#include "recompress_util.h"

#include "pipeline.h"
#include "walk.h"
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpdecode.h"
#include "dcmpcwt/dpencode.h"
#include "pcwt.h"

#include <condition_variable>
#include <mutex>

namespace {

// a few images: 1, 10, 2 and 1 frames, grey and colour
const std::vector<std::pair<std::string, std::string>> kDeviceSet = {
    {"debian-python3-pydicom/CT_small.dcm", "ct/CT_small.dcm"},
    {"pydicom-data/emri_small.dcm", "mr/emri_small_10frames.dcm"},
    {"pydicom-data/eCT_Supplemental.dcm", "ct/eCT_2frames.dcm"},
    {"pydicom-data/US1_UNCR.dcm", "us/US1_rgb.dcm"},
};
const long long kFramesPerCopy = 1 + 10 + 2 + 1;

// pcwt-recompress over root into out with options; its report
Proc recompressInto(const std::string &root, const std::string &out, const std::string &report,
                    const std::vector<std::string> &options, const std::vector<std::string> &env = {})
{
    std::vector<std::string> argv = {kTool, "--no-progress", "--stats", "--report", report, "--output", out};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(root);
    return run(argv, env);
}

/** the PCWT codecs registered with the CPU backend while it lives (the in-process pipeline's
 *  writers code with them), the test binary's own (CodecEnvironment's) again after it, also when
 *  the test fails: the tests after it decode with those, whatever the order they run in
 */
struct CpuCodecs {
    CpuCodecs()
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTDecoderRegistration::cleanup();
        DPCWTDecoderRegistration::registerCodecs();
        DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS, 0, 0,
                                                 PCWT_BACKEND_CPU);
    }
    ~CpuCodecs()
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTDecoderRegistration::cleanup();
        DPCWTDecoderRegistration::registerCodecs();
        DPCWTEncoderRegistration::registerCodecs();
    }
    CpuCodecs(const CpuCodecs &) = delete;
    CpuCodecs &operator=(const CpuCodecs &) = delete;
};

} // namespace

// --verifiers-per-gpu: several verifier threads take the copies from the same queue (here the CPU
// stands in for the coding backend); every frame is verified once, the outputs are those of the
// writers' own verification, a damaged codestream is caught whichever thread decodes it
TEST(RecompressDevices, SeveralVerifiersPerDeviceVerifyEveryFrameOnce)
{
    REQUIRE_CORPUS();
    Tree t(kDeviceSet, 4);
    const std::string ra = t.dir / "a.json", rb = t.dir / "b.json";
    Proc p = recompressInto(t.root, t.dir / "a", ra,
                            {"--verify-gpu", "--verifiers-per-gpu", "3", "--batch-frames", "2", "--threads", "2"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("verifiers (3)"), std::string::npos) << p.out;
    EXPECT_EQ(reportSummary(ra, "batch_verified_frames"), 4 * kFramesPerCopy) << p.out;
    EXPECT_EQ(reportSummary(ra, "batch_verified_files"), 4 * 4) << p.out;
    EXPECT_EQ(reportSummary(ra, "recompressed"), 4 * 4) << p.out;
    p = recompressInto(t.root, t.dir / "b", rb, {"--verify-cpu", "--threads", "2"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "a"), snapshot(t.dir / "b")));
    // a minimum verifier batch (filled one verifier at a time, for a measurement): the same
    const std::string rm = t.dir / "m.json";
    p = recompressInto(t.root, t.dir / "m", rm, {"--verify-gpu", "--verifiers-per-gpu", "3", "--threads", "2"},
                       {"PCWT_RECOMPRESS_VERIFY_MIN_FRAMES=1000", "PCWT_RECOMPRESS_VERIFY_FILL_MS=50"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_EQ(reportSummary(rm, "batch_verified_frames"), 4 * kFramesPerCopy) << p.out;
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "a"), snapshot(t.dir / "m")));

    const std::string rf = t.dir / "f.json";
    p = recompressInto(t.root, t.dir / "f", rf, {"--verify-gpu", "--verifiers-per-gpu", "2", "--verify-sample", "0"},
                       {"PCWT_RECOMPRESS_FAULT=codestream"});
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_EQ(reportSummary(rf, "failed"), 4 * 4) << p.out;
    EXPECT_EQ(reportSummary(rf, "recompressed"), 0) << p.out;
    EXPECT_NE(p.out.find("verification failed"), std::string::npos) << p.out;
    EXPECT_TRUE(snapshot(t.dir / "f").empty()) << "a copy that failed verification was renamed into place";

    // one verifier when the CPU stands in, by default (the CPU codes, also on a GPU machine)
    p = recompressInto(t.root, t.dir / "c", t.dir / "c.json", {"--verify-gpu", "--backend-cpu", "--threads", "2"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("verifiers (1)"), std::string::npos) << p.out;

    for (const char *bad : {"0", "17", "x"}) {
        p = run({kTool, "--verifiers-per-gpu", bad, "--no-progress", "--dry-run", t.root});
        EXPECT_EQ(p.rc, 1) << bad << ": " << p.out;
        EXPECT_NE(p.out.find("verifiers-per-gpu"), std::string::npos) << p.out;
    }
    p = run({kTool, "--verify-cpu", "--verifiers-per-gpu", "2", "--no-progress", "--dry-run", t.root});
    EXPECT_EQ(p.rc, 1) << "--verifiers-per-gpu with --verify-cpu: " << p.out;
}

// Each device comes up on its own (DPRCPipelineOptions::deviceUp: in pcwt-recompress the CUDA
// context of each GPU after the first, made beside the first's batches): a device's coders and
// verifiers take work once it is up, the others' meanwhile. In process, on the CPU: two devices
// of CPU handles, the second up only once every file is reported. Every file is coded and
// verified on the first, nothing on the second; a pipeline that waited for every device before
// its first batch would never report them (the second's wait would time out).
TEST(RecompressDevices, FirstDeviceWorksWhileTheSecondComesUp)
{
    REQUIRE_CORPUS();
    Tree t(kDeviceSet, 3);
    const auto originals = decodeAll(t.root);
    const DPRCWalkResult walk = DPRCWalk({t.root}, 0, 1);
    ASSERT_EQ(walk.files.size(), 3 * kDeviceSet.size());
    const CpuCodecs codecs;
    DPRCOptions opt;
    opt.outputDir = t.dir / "out";
    DPRCPipelineOptions p;
    p.readers = 2;
    p.writers = 2;
    p.batchFrames = 4; // several batches
    p.batchWaitMs = 0;
    p.backend = PCWT_BACKEND_CPU;
    p.devices = {0, 1};
    p.verify = DPRCVM_backend;
    const DPCWTCodecParameter cp(EPCUC_default, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS, 0, 0, PCWT_BACKEND_CPU);
    std::shared_ptr<pcwt_encoder> coding(pcwt_encoder_create(), pcwt_encoder_destroy);
    ASSERT_TRUE(coding && cp.configureEncoder(coding.get(), OFFalse) == PCWT_OK);
    p.coding = coding;
    std::mutex m;
    std::condition_variable cv;
    std::size_t reported = 0;
    bool secondTimedOut = false;
    std::vector<int> upOrder;
    p.deviceUp = [&](int device) {
        std::unique_lock<std::mutex> lock(m);
        if (device == 1)
            secondTimedOut = !cv.wait_for(lock, std::chrono::seconds(60),
                                          [&]() { return reported == walk.files.size(); });
        upOrder.push_back(device);
    };
    std::vector<DPRCResult> results(walk.files.size());
    DPRCPipelineStats stats;
    std::string error;
    const bool started = DPRCRunPipeline(walk.files, opt, p,
                                         [&](std::size_t i, DPRCResult &r) {
                                             std::lock_guard<std::mutex> lock(m);
                                             results[i] = std::move(r);
                                             ++reported;
                                             cv.notify_all();
                                         },
                                         stats, error);
    ASSERT_TRUE(started) << error;
    EXPECT_FALSE(secondTimedOut) << "the first device's coders waited for the second device";
    EXPECT_EQ(upOrder, (std::vector<int>{0, 1}));
    for (const DPRCResult &r : results)
        EXPECT_EQ(r.status, DPRCST_done) << r.path << ": " << r.message;
    EXPECT_EQ(stats.coders, 2u);
    EXPECT_EQ(stats.framesCodedOn[0], stats.frames);
    EXPECT_GE(stats.frames, 3u * kFramesPerCopy);
    EXPECT_EQ(stats.framesCodedOn[1], 0u) << "a coder of the device not up took a batch";
    EXPECT_EQ(stats.verifiedFrames, 3u * kFramesPerCopy);
    EXPECT_EQ(stats.framesVerifiedOn[0], stats.verifiedFrames);
    EXPECT_EQ(stats.framesVerifiedOn[1], 0u) << "a verifier of the device not up took copies";
    expectVerified(opt.outputDir, originals, {}, kPcwtUid);
}

// --gpus 2 and --gpus 0,1: a batch coder and a verifier on each device, sharing the readers and
// writers, each device coding some of the frames (--stats' frames per GPU; here every device's
// coders warm before any takes a batch, PCWT_RECOMPRESS_FAULT=devices-together: by default the
// first GPU may code a run this small before the second is up); the files are byte for byte those
// of one GPU, every frame verified once, also by default, where each GPU comes up on its own
TEST(RecompressGpu, TwoGpusWriteTheSameFilesAsOne)
{
    REQUIRE_CORPUS();
    if (!gpuDevice(0) || !gpuDevice(1))
        GTEST_SKIP() << "fewer than two GPUs (a CUDA build with devices 0 and 1 is needed): several GPUs are not tested";
    Tree t(kDeviceSet, 8);
    // small batches, so that both devices' coders take some
    const std::vector<std::string> small = {"--batch-frames", "4", "--batch-wait", "0"};
    auto with = [&](std::vector<std::string> o) {
        o.insert(o.end(), small.begin(), small.end());
        return o;
    };
    Proc p = recompressInto(t.root, t.dir / "one", t.dir / "one.json", with({"--gpus", "1"}));
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("batch coders (" + std::to_string(kDPRCGpuCodersPerDevice) + ")"), std::string::npos)
        << p.out;
    const auto one = snapshot(t.dir / "one");
    EXPECT_EQ(one.size(), 8u * kDeviceSet.size());
    for (const std::string gpus : {"2", "0,1"}) {
        SCOPED_TRACE("--gpus " + gpus);
        const std::string out = t.dir / ("two" + gpus), report = out + ".json";
        p = recompressInto(t.root, out, report, with({"--gpus", gpus}), {"PCWT_RECOMPRESS_FAULT=devices-together"});
        ASSERT_EQ(p.rc, 0) << p.out;
        EXPECT_NE(p.out.find("batch coders (" + std::to_string(2 * kDPRCGpuCodersPerDevice) + ")"), std::string::npos)
            << p.out;
        // (kDPRCGpuVerifiersPerDevice on each by default)
        EXPECT_NE(p.out.find("verifiers (" + std::to_string(2 * kDPRCGpuVerifiersPerDevice) + ")"), std::string::npos)
            << p.out;
        EXPECT_EQ(reportText(report, "verification"), "gpu+cpu-sample");
        EXPECT_EQ(reportSummary(report, "batch_verified_frames"), 8 * kFramesPerCopy) << p.out;
        EXPECT_EQ(reportSummary(report, "batch_coded_files"), reportSummary(report, "recompressed")) << p.out;
        EXPECT_TRUE(sameOutputs(one, snapshot(out)));
        // the work spread: both devices coded, every frame verified once
        long long coded = 0, verified = 0;
        for (int d : {0, 1}) {
            const std::string key = "GPU " + std::to_string(d) + " coded ";
            const size_t at = p.out.find(key, p.out.find("frames per GPU:"));
            ASSERT_NE(at, std::string::npos) << p.out;
            char *end = nullptr;
            const long long c = std::strtoll(p.out.c_str() + at + key.size(), &end, 10);
            const long long v = std::strtoll(end + std::strlen(", verified "), nullptr, 10);
            // (the verifiers fill their batches one at a time, whichever device: few batches
            // here, so one device may verify them all)
            EXPECT_GT(c, 0) << "GPU " << d << " coded nothing: " << p.out;
            coded += c;
            verified += v;
        }
        EXPECT_EQ(coded, reportSummary(report, "batch_coded_frames")) << p.out;
        EXPECT_EQ(verified, 8 * kFramesPerCopy) << p.out;
    }
    // by default: the same files, every frame verified once, both devices up (the first codes
    // while the second makes its context)
    {
        const std::string out = t.dir / "default", report = out + ".json";
        p = recompressInto(t.root, out, report, with({"--gpus", "0,1"}));
        ASSERT_EQ(p.rc, 0) << p.out;
        EXPECT_TRUE(sameOutputs(one, snapshot(out)));
        EXPECT_EQ(reportSummary(report, "batch_verified_frames"), 8 * kFramesPerCopy) << p.out;
        for (const char *up : {"GPU 0 coders up", "GPU 1 coders up", "GPU 1 context", "GPU 0 verifiers up",
                               "GPU 1 verifiers up"})
            EXPECT_NE(p.out.find(up), std::string::npos) << up << ": " << p.out;
    }
    // a damaged codestream is caught on either device
    const std::string rf = t.dir / "f.json";
    p = recompressInto(t.root, t.dir / "f", rf, with({"--gpus", "2", "--verify-sample", "0"}),
                       {"PCWT_RECOMPRESS_FAULT=codestream"});
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_EQ(reportSummary(rf, "failed"), static_cast<long long>(8 * kDeviceSet.size())) << p.out;
    EXPECT_NE(p.out.find("the GPU decoder: "), std::string::npos) << p.out;
    EXPECT_TRUE(snapshot(t.dir / "f").empty()) << "a copy that failed verification was renamed into place";
}

// Without --gpus, a GPU there (a device node; PCWT_RECOMPRESS_FAULT=gpu-present says there is one)
// plans what --gpus 1 does: the GPU checked beside the walk (the timeline's 'gpu check'), half the
// threads. Here CUDA then finds no device: the automatic backend codes on the CPU, the files as a
// plain run writes them. No device node, --gpus 0, a backend named or PCWT_BACKEND=cpu: the CPU's
// plan, every thread.
TEST(RecompressDevices, DefaultPlansOneGpuWhereADeviceIsThere)
{
    REQUIRE_CORPUS();
    if (!pcwt_has_cuda())
        GTEST_SKIP() << "a build without CUDA plans no GPU";
    if (gpuDevice(0))
        GTEST_SKIP() << "a GPU is there: RecompressGpu.DefaultCodesAsOneGpu tests the default on it";
    Tree t(kDeviceSet);
    // (the tool's threads: the cores, 2 when unknown)
    const unsigned cores = std::thread::hardware_concurrency() ? std::thread::hardware_concurrency() : 2u;
    const unsigned files = static_cast<unsigned>(snapshot(t.root).size());
    const std::string all = "readers (" + std::to_string(std::min(cores, files)) + ")";
    const std::string half = "readers (" + std::to_string(std::min(std::max(1u, cores / 2), files)) + ")";
    const std::vector<std::string> present = {"PCWT_RECOMPRESS_FAULT=gpu-present"};
    Proc p = recompressInto(t.root, t.dir / "plain", t.dir / "plain.json", {});
    ASSERT_EQ(p.rc, 0) << p.out;
    const auto plain = snapshot(t.dir / "plain");
    EXPECT_GE(plain.size(), kDeviceSet.size());
    if (!exists("/dev/nvidia0")) {
        EXPECT_EQ(p.out.find("gpu check"), std::string::npos) << p.out;
        EXPECT_NE(p.out.find(all), std::string::npos) << all << ": " << p.out;
    }
    p = recompressInto(t.root, t.dir / "gpu", t.dir / "gpu.json", {}, present);
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("gpu check"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find(half), std::string::npos) << half << ": " << p.out;
    EXPECT_NE(p.out.find("coding on the CPU"), std::string::npos) << p.out;
    EXPECT_EQ(reportSummary(t.dir / "gpu.json", "recompressed"), reportSummary(t.dir / "plain.json", "recompressed"))
        << p.out;
    EXPECT_TRUE(sameOutputs(plain, snapshot(t.dir / "gpu")));
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cpu = {
        {{"--gpus", "0"}, present},
        {{"--backend-cpu"}, present},
        {{}, {"PCWT_RECOMPRESS_FAULT=gpu-present", "PCWT_BACKEND=cpu"}}};
    for (size_t k = 0; k < cpu.size(); ++k) {
        SCOPED_TRACE(k);
        const std::string out = t.dir / ("cpu" + std::to_string(k));
        p = recompressInto(t.root, out, out + ".json", cpu[k].first, cpu[k].second);
        ASSERT_EQ(p.rc, 0) << p.out;
        EXPECT_EQ(p.out.find("gpu check"), std::string::npos) << p.out;
        EXPECT_NE(p.out.find(all), std::string::npos) << all << ": " << p.out;
        EXPECT_TRUE(sameOutputs(plain, snapshot(out)));
    }
}

// With a GPU, no option codes as --gpus 1: the GPU checked beside the walk, the same threads, every
// frame coded on GPU 0, the same files
TEST(RecompressGpu, DefaultCodesAsOneGpu)
{
    REQUIRE_CORPUS();
    if (!gpuDevice(0))
        GTEST_SKIP() << "no GPU (a CUDA build with device 0 is needed): the default on a GPU is not tested";
    Tree t(kDeviceSet, 4);
    Proc one = recompressInto(t.root, t.dir / "one", t.dir / "one.json", {"--gpus", "1"});
    ASSERT_EQ(one.rc, 0) << one.out;
    Proc p = recompressInto(t.root, t.dir / "default", t.dir / "default.json", {});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "one"), snapshot(t.dir / "default")));
    for (const Proc *q : {&one, &p}) {
        EXPECT_NE(q->out.find("gpu check"), std::string::npos) << q->out;
        EXPECT_NE(q->out.find("frames per GPU: GPU 0 coded "), std::string::npos) << q->out;
    }
    const size_t at = one.out.find("readers (");
    ASSERT_NE(at, std::string::npos) << one.out;
    const std::string readers = one.out.substr(at, one.out.find(')', at) + 1 - at);
    EXPECT_NE(p.out.find(readers), std::string::npos) << readers << ": " << p.out;
    EXPECT_EQ(reportText(t.dir / "default.json", "verification"), "gpu+cpu-sample");
}

// The handles' device buffers grow from a stream-ordered pool of their own (cuda/gpu_pool.cu).
// Small batches of mixed frames make the coders' and verifiers' buffers grow several times while
// the other handles on the device run: the files the CPU codec writes, every frame verified on the
// GPU
TEST(RecompressGpu, PooledDeviceMemoryWritesWhatTheCpuWrites)
{
    REQUIRE_CORPUS();
    if (!gpuDevice(0))
        GTEST_SKIP() << "no GPU (a CUDA build with device 0 is needed): the device memory pool is not tested";
    Tree t(kDeviceSet, 6);
    const std::vector<std::string> batches = {"--batch-frames", "5", "--batch-wait", "0"};
    std::vector<std::string> cpu = {"--backend-cpu"}, gpu = {"--gpus", "1"};
    cpu.insert(cpu.end(), batches.begin(), batches.end());
    gpu.insert(gpu.end(), batches.begin(), batches.end());
    Proc plain = recompressInto(t.root, t.dir / "cpu", t.dir / "cpu.json", cpu);
    ASSERT_EQ(plain.rc, 0) << plain.out;
    Proc pooled = recompressInto(t.root, t.dir / "pooled", t.dir / "pooled.json", gpu);
    ASSERT_EQ(pooled.rc, 0) << pooled.out;
    EXPECT_EQ(snapshot(t.dir / "pooled").size(), 6u * kDeviceSet.size());
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "cpu"), snapshot(t.dir / "pooled")));
    EXPECT_EQ(reportText(t.dir / "pooled.json", "verification"), "gpu+cpu-sample");
    EXPECT_EQ(reportSummary(t.dir / "pooled.json", "batch_verified_frames"), 6 * kFramesPerCopy);
    for (const char *r : {"cpu.json", "pooled.json"}) {
        SCOPED_TRACE(r);
        EXPECT_EQ(reportSummary(t.dir / r, "recompressed"), static_cast<long long>(6 * kDeviceSet.size()));
    }
}

// A coding backend that fails every call (as a GPU whose context is lost mid-run), simulated by
// PCWT_RECOMPRESS_FAULT=backend (the batch coders and the writers' own encoders fail, no frame
// status set) and =backend-verify (only the verifiers fail): every file fails, exit status 2, no
// crash, every original byte for byte as it was, no temporary file left
TEST(RecompressDevices, FailingCodingBackendFailsEveryFileCleanly)
{
    REQUIRE_CORPUS();
    // (the verifiers fail only where there is a verifier stage: --verify-gpu on the CPU)
    const std::vector<std::string> stage = {"--verify-gpu", "--coders-per-gpu", "2", "--verifiers-per-gpu", "3"};
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"backend", stage}, {"backend", {"--batch-frames", "0"}}, {"backend", {}},
        {"backend-verify", stage}, {"backend-verify", {"--verify-gpu", "--batch-frames", "0"}}};
    for (const auto &c : cases) {
        const std::string &fault = c.first;
        const std::vector<std::string> &options = c.second;
        SCOPED_TRACE(fault + " with " + std::to_string(options.size()) + " options");
        Tree t(kDeviceSet, 2);
        const auto before = snapshot(t.root);
        const std::string report = t.dir / "r.json";
        std::vector<std::string> argv = {kTool, "--no-progress", "--threads", "2", "--report", report};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.push_back(t.root);
        const Proc p = run(argv, {"PCWT_RECOMPRESS_FAULT=" + fault});
        EXPECT_EQ(p.rc, 2) << p.out;
        EXPECT_EQ(reportSummary(report, "failed"), static_cast<long long>(2 * kDeviceSet.size())) << p.out;
        EXPECT_EQ(reportSummary(report, "recompressed"), 0) << p.out;
        EXPECT_TRUE(snapshot(t.root) == before) << "an original was changed";
        EXPECT_TRUE(tempFilesBelow(t.root).empty());
    }
}

// The readers start before the coding devices are up (archive/lib/gate.h); PCWT_RECOMPRESS_FAULT=
// slow-start holds the start back, so that every file is read (and those it skips are final)
// before the coders start. The results held are reported once the start is done, each once, and the
// outputs (--copy-others' copies too) are byte for byte those of a run that starts at once. A start
// that fails after the files were read (the coding backend asked for is not there) reports no file,
// copies none and writes no report: one line says why.
TEST(RecompressDevices, SlowStartReportsEveryFileOnceAndAFailedStartNone)
{
    REQUIRE_CORPUS();
    Tree t(kDeviceSet);
    writeBytes(t.root + "/notes.txt", std::vector<uint8_t>{'n', 'o', 't', 'e', 's'});
    const auto before = snapshot(t.root);
    const std::vector<std::string> threads = {"--threads", "2"}, copies = {"--threads", "2", "--copy-others"};
    const std::vector<std::string> slow = {"PCWT_RECOMPRESS_FAULT=slow-start"};
    const std::string ra = t.dir / "a.json", rb = t.dir / "b.json";
    Proc a = recompressInto(t.root, t.dir / "a", ra, threads);
    ASSERT_EQ(a.rc, 0) << a.out;
    Proc b = recompressInto(t.root, t.dir / "b", rb, threads, slow);
    ASSERT_EQ(b.rc, 0) << b.out;
    EXPECT_EQ(reportStatus(ra), reportStatus(rb));
    EXPECT_EQ(reportSummary(rb, "files"), static_cast<long long>(before.size())) << b.out;
    EXPECT_EQ(reportStatus(rb)[t.root + "/notes.txt"], "skipped-not-dicom");
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "a"), snapshot(t.dir / "b")));
    // the readers read on before the coders started (the stats' timeline, in run order)
    const size_t read = b.out.find("first file read"), made = b.out.find("handles made");
    ASSERT_NE(read, std::string::npos) << b.out;
    ASSERT_NE(made, std::string::npos) << b.out;
    EXPECT_LT(read, made) << b.out;
    // --copy-others copies what it skips as it reads: only once the start is done
    a = recompressInto(t.root, t.dir / "c", t.dir / "c.json", copies);
    ASSERT_EQ(a.rc, 0) << a.out;
    b = recompressInto(t.root, t.dir / "d", t.dir / "d.json", copies, slow);
    ASSERT_EQ(b.rc, 0) << b.out;
    EXPECT_EQ(snapshot(t.dir / "d").size(), before.size());
    EXPECT_TRUE(sameOutputs(snapshot(t.dir / "c"), snapshot(t.dir / "d")));

    // the start fails: a GPU that is not there (a CUDA build with a GPU: device 63)
    const std::vector<std::string> noDevice =
        gpuDevice(0) ? std::vector<std::string>{"--gpus", "0,63"} : std::vector<std::string>{"--backend-gpu"};
    for (const std::string out : {"--output", ""}) {
        SCOPED_TRACE(out.empty() ? "in place" : "mirrored");
        std::vector<std::string> argv = {kTool, "--no-progress", "--report", t.dir / "f.json", "--threads", "2"};
        if (!out.empty())
            argv.insert(argv.end(), {"--copy-others", "--output", t.dir / "f"});
        argv.insert(argv.end(), noDevice.begin(), noDevice.end());
        argv.push_back(t.root);
        const Proc f = run(argv, {"PCWT_RECOMPRESS_FAULT=slow-start"});
        EXPECT_EQ(f.rc, 1) << f.out;
        // (--backend-gpu takes the GPU check's start, as --gpus does, where the build has CUDA)
        const std::string fails = gpuDevice(0) ? "GPU 63 is not available"
                                  : pcwt_has_cuda() ? "--backend-gpu: no GPU is available" : "cannot start: ";
        EXPECT_NE(f.out.find(fails), std::string::npos) << f.out;
        for (const char *line : {"skipped", "recompressed", "failed:", "notes.txt"}) {
            EXPECT_EQ(f.out.find(line), std::string::npos) << line << " in " << f.out;
        }
        EXPECT_FALSE(exists(t.dir / "f.json")) << "a report was written";
        if (!out.empty() && exists(t.dir / "f")) {
            EXPECT_TRUE(snapshot(t.dir / "f").empty()) << "a file was copied";
        }
        EXPECT_TRUE(snapshot(t.root) == before) << "an input was changed";
        EXPECT_TRUE(tempFilesBelow(t.root).empty());
    }
}

// --stats with JPEG 2000 input decoded in batches (the CPU standing in for the GPU): the batch
// decoders and the finishers have lines of their own, and the readers, which only read those
// files, decode none of them
TEST(RecompressDevices, JpegTwoThousandBatchStagesAreTheirOwn)
{
    const std::string j2k = std::string(PCWT_SHARED_DIR) + "/testdata-jpeg2000";
    if (!exists(j2k + "/explicit_VR-UN.dcm"))
        GTEST_SKIP() << j2k << "/explicit_VR-UN.dcm is absent: the JPEG 2000 batch stages are not tested";
    TempDir d;
    copyFile(j2k + "/explicit_VR-UN.dcm", d / "in/a.dcm"); // lossless, one frame
    copyFile(j2k + "/explicit_VR-UN.dcm", d / "in/b.dcm");
    const std::string report = d / "r.json";
    const Proc p = recompressInto(d / "in", d / "out", report, {"--threads", "2", "--j2k-decoder", "gpu"},
                                  {"PCWT_RECOMPRESS_J2K_STANDIN=cpu"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_EQ(reportSummary(report, "recompressed"), 2) << p.out;
    EXPECT_EQ(reportSummary(report, "j2k_gpu_frames"), 2) << p.out;
    EXPECT_NE(p.out.find("JPEG 2000 decoders (2): j2k-wait "), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("finishers (2): finish-wait "), std::string::npos) << p.out;
    EXPECT_NE(p.out.find(" decode-input 0.00 (0%)"), std::string::npos) << p.out;
    const auto bytes = readBytes(report);
    const std::string text(bytes.begin(), bytes.end());
    for (const char *stage : {"j2k-decode", "finish-decode"}) {
        const std::string key = std::string("\"") + stage + "\": ";
        const size_t k = text.find(key, text.find("\"stage_seconds\": {"));
        ASSERT_NE(k, std::string::npos) << stage << ": " << text;
        EXPECT_GT(std::strtod(text.c_str() + k + key.size(), nullptr), 0.0) << stage;
    }
}

// The run's handles and buffers (GPU handles wait for their device when they go) are freed
// together, a thread each, once every file is committed and the summary and report are out:
// --stats says so after its stage lines.
TEST(RecompressDevices, HandlesAreFreedTogetherAfterTheSummary)
{
    REQUIRE_CORPUS();
    Tree t(kDeviceSet, 2);
    const auto originals = decodeAll(t.root);
    const std::vector<std::string> opts = {"--verify-gpu", "--verifiers-per-gpu", "3", "--threads", "2"};
    const std::string r = t.dir / "d.json";
    Proc p = recompressInto(t.root, t.dir / "d", r, opts);
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_EQ(reportSummary(r, "recompressed"), 2 * 4) << p.out;
    const std::string said = "handles freed after the summary: ";
    const size_t freed = p.out.find(said);
    ASSERT_NE(freed, std::string::npos) << p.out;
    ASSERT_NE(p.out.find("stage times"), std::string::npos) << p.out;
    EXPECT_LT(p.out.find("stage times"), freed) << p.out;
    // and the process's memory at the summary, before them
    const size_t memory = p.out.find("memory: peak resident ");
    ASSERT_NE(memory, std::string::npos) << p.out;
    EXPECT_LT(memory, freed) << p.out;
    EXPECT_GT(std::strtoul(p.out.c_str() + memory + std::strlen("memory: peak resident "), nullptr, 10), 0ul) << p.out;
    // at least the 2 readers' and 2 writers' coders, the batch coder and the 3 verifiers
    EXPECT_GE(std::strtoul(p.out.c_str() + freed + said.size(), nullptr, 10), 8ul) << p.out;
    // nothing written is lost in the end: every output decodes to its original, nothing temporary left
    expectVerified(t.dir / "d", originals, {}, kPcwtUid);
    EXPECT_TRUE(tempFilesBelow(t.dir / "d").empty());
}
