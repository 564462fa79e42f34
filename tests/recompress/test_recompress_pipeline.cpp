// Tests of pcwt-recompress's pipeline as a real process: frames of several files coded together,
// the entropy profile, small batches, --gpus and --threads, commit groups traced with strace,
// several coders per device, --stats, and (in process) the hand-over of frames coded ahead to the
// PCWT encoder codec. Skips when ../shared/testdata is absent.
#include "recompress_util.h"

#include "pipeline.h"
#include "dcmpcwt/dpthrcod.h"
#include "pcwt.h"

TEST(Recompress, FramesOfSeveralFilesAreCodedTogetherIntoTheSameFiles)
{
    REQUIRE_CORPUS();
    // the same tree twice: batches across files (one reader, batches waiting long enough to
    // collect every file) and each file on its own; the files must come out byte for byte equal
    Tree a(kSet, 3), b(kSet, 3);
    const auto originals = decodeAll(a.root);
    const std::string ra = a.dir / "batched.json", rb = b.dir / "single.json";
    std::vector<std::string> argv = {kTool, "--threads", "1", "--batch-wait", "5000", "--batch-frames", "1000",
                                     "--no-progress", "--debug", "--report", ra, a.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    std::set<std::string> unsupported;
    for (const auto &u : kUnsupported)
        for (int c = 0; c < 3; ++c)
            unsupported.insert("copy" + std::to_string(c) + "/" + u);
    expectVerified(a.root, originals, unsupported, kPcwtUid);
    EXPECT_TRUE(tempFilesBelow(a.root).empty());

    const long long calls = reportSummary(ra, "batch_coder_calls");
    const long long files = reportSummary(ra, "batch_coded_files");
    const long long frames = reportSummary(ra, "batch_coded_frames");
    const long long recompressed = reportSummary(ra, "recompressed");
    EXPECT_GE(recompressed, 20) << p.out;
    // every recompressed file went through the batch coder, several files per libpcwt call
    EXPECT_EQ(files, recompressed) << p.out;
    EXPECT_GE(calls, 1);
    EXPECT_LT(calls * 4, files) << "files were not batched together: " << p.out;
    EXPECT_GT(frames, files) << "the multi-frame files' frames are coded too";
    EXPECT_NE(p.out.find("batch coder: "), std::string::npos) << p.out;
    // the writers' codecs stored every frame coded ahead, none coded again
    EXPECT_NE(p.out.find("the writers took " + std::to_string(frames) + " frames from batches and coded 0 themselves"),
              std::string::npos) << p.out;

    // (and each verified copy flushed and renamed on its own, not in commit groups)
    argv = {kTool, "--threads", "2", "--batch-frames", "0", "--commit-group", "1", "--no-progress", "--report", rb,
            b.root};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_EQ(reportSummary(rb, "batch_coder_calls"), 0);
    EXPECT_EQ(reportSummary(rb, "recompressed"), recompressed);
    EXPECT_TRUE(sameOutputs(snapshot(a.root), snapshot(b.root)));
}

// Counts the files whose pixel data holds a PCWT codestream header of the given profile.
size_t filesWithProfile(const std::map<std::string, std::vector<uint8_t>> &files, uint8_t profile)
{
    const uint8_t magic[6] = {'P', 'C', 'W', 'T', 1, profile};
    size_t n = 0;
    for (const auto &f : files)
        n += std::search(f.second.begin(), f.second.end(), magic, magic + 6) != f.second.end();
    return n;
}

TEST(Recompress, EntropyProfileBatchedAndPerFileAgree)
{
    REQUIRE_CORPUS();
    // --profile entropy: every image in profile 1, verified; the batch coder codes the profile the
    // plugin's encoder would (else the per-file encoder would code every frame again), so batched
    // and per-file outputs are byte for byte equal
    Tree a, b;
    const auto originals = decodeAll(a.root);
    const std::string ra = a.dir / "batched.json";
    std::vector<std::string> argv = {kTool, "--profile", "entropy", "--threads", "1", "--batch-wait", "5000",
                                     "--no-progress", "--report", ra, a.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    expectVerified(a.root, originals, kUnsupported, kPcwtUid);
    const long long recompressed = reportSummary(ra, "recompressed");
    EXPECT_GE(recompressed, 8);
    EXPECT_EQ(reportSummary(ra, "batch_coded_files"), recompressed) << p.out;
    const auto sa = snapshot(a.root);
    EXPECT_EQ(filesWithProfile(sa, 1), size_t(recompressed));
    EXPECT_EQ(filesWithProfile(sa, 0), 0u);
    argv = {kTool, "+pr", "entropy", "--batch-frames", "0", "--no-progress", b.root};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    const auto sb = snapshot(b.root);
    EXPECT_TRUE(sameOutputs(sa, sb));
    // a profile with JPEG-LS output is a conflict, an unknown one an error; nothing is touched
    for (const auto &bad : std::vector<std::vector<std::string>>{
             {kTool, "--profile", "entropy", "--encode-jpegls", "--no-progress", b.root},
             {kTool, "--profile", "fast", "--no-progress", b.root}}) {
        p = run(bad);
        EXPECT_NE(p.rc, 0) << describe(bad, p);
        EXPECT_TRUE(snapshot(b.root) == sb) << describe(bad, p);
    }
}

TEST(Recompress, SmallBatchesAndMirroredOutputAgree)
{
    REQUIRE_CORPUS();
    // batches cut after 2 frames (multi-frame files alone), several readers, a mirrored tree
    Tree t;
    const auto before = snapshot(t.root);
    const std::string out = t.dir / "out", report = t.dir / "r.json";
    // (--verify-gpu: the coding backend verifies, the GPU where there is one)
    const std::vector<std::string> argv = {kTool, "--threads", "3", "--batch-frames", "2", "--batch-mb", "1",
                                           "--verify-gpu", "--output", out, "--no-progress", "--report", report,
                                           t.root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(snapshot(t.root) == before);
    std::map<std::string, Original> images; // the unsupported ones are not copied (no --copy-others)
    for (auto &o : decodeAll(t.root))
        if (!kUnsupported.count(o.first))
            images[o.first] = std::move(o.second);
    ASSERT_GE(images.size(), 8u);
    expectVerified(out, images, {}, kPcwtUid);
    EXPECT_GE(reportSummary(report, "batch_coder_calls"), 2);
    EXPECT_EQ(reportSummary(report, "batch_coded_files"), reportSummary(report, "recompressed"));
    // --verify-gpu: the verifier stage decoded every copy (several writers' copies per batch)
    EXPECT_EQ(reportSummary(report, "batch_verified_files"), reportSummary(report, "recompressed"));
    EXPECT_GE(reportSummary(report, "batch_verifier_batches"), 1);
    EXPECT_LE(reportSummary(report, "batch_verifier_batches"), reportSummary(report, "batch_verified_files"));
}

// Whether libpcwt's GPU backend can run here (a CUDA build with a device).
static bool gpuPresent()
{
    pcwt_decoder *probe = pcwt_decoder_create();
    const bool ok = probe && pcwt_decoder_set_backend(probe, PCWT_BACKEND_GPU) == PCWT_OK;
    pcwt_decoder_destroy(probe);
    return ok;
}

TEST(Recompress, GpusOptionIsCheckedAndExplained)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ct.dcm");
    const auto before = snapshot(root);
    // malformed lists are command line errors, nothing is touched
    for (const char *bad : {"x", "1,1", "0,,-2", "65", ","}) {
        const Proc p = run({kTool, "--gpus", bad, root});
        EXPECT_EQ(p.rc, 1) << bad << ": " << p.out;
        EXPECT_NE(p.out.find("--gpus"), std::string::npos) << p.out;
    }
    EXPECT_TRUE(snapshot(root) == before);
    if (!pcwt_has_cuda()) {
        // a CPU-only build says so and codes on the CPU
        const std::vector<std::string> argv = {kTool, "--gpus", "2", "--no-progress", root};
        const Proc p = run(argv);
        EXPECT_EQ(p.rc, 0) << describe(argv, p);
        EXPECT_NE(p.out.find("no CUDA backend"), std::string::npos) << p.out;
        EXPECT_EQ(tsOf(root + "/ct.dcm"), kPcwtUid);
    } else {
        const bool gpu = gpuPresent();
        // more GPUs than the machine has: a clear error before any file is touched
        const std::vector<std::string> argv = {kTool, "--gpus", "0,63", "--no-progress", root};
        const Proc p = run(argv);
        EXPECT_EQ(p.rc, 1) << describe(argv, p);
        EXPECT_NE(p.out.find(gpu ? "GPU 63 is not available" : "no GPU is available"), std::string::npos)
            << p.out;
        EXPECT_TRUE(snapshot(root) == before);
        // GPU 0 where there is none: refused too, also over a folder with nothing to do
        const std::string empty = d / "empty";
        ASSERT_EQ(::mkdir(empty.c_str(), 0755), 0);
        const std::vector<std::string> one = {kTool, "--gpus", "1", "--no-progress", empty};
        const Proc q = run(one);
        EXPECT_EQ(q.rc, gpu ? 0 : 1) << describe(one, q);
        if (!gpu) {
            EXPECT_NE(q.out.find("no GPU is available"), std::string::npos) << q.out;
        }
    }
}

// --threads: the CPU cores by default, half of them when GPUs code (readers and writers share the
// cores with the GPUs' feeding; also without --gpus where a GPU is there); the count is logged (-v)
// before any work.
TEST(Recompress, ThreadsDefaultToTheCores)
{
    TempDir d;
    const std::string empty = d / "empty";
    ASSERT_EQ(::mkdir(empty.c_str(), 0755), 0);
    const unsigned hw = std::thread::hardware_concurrency(), cores = hw ? hw : 2; // as the tool counts
    const auto threads = [&](std::vector<std::string> argv) {
        argv.insert(argv.begin(), {kTool, "-v", "--no-progress"});
        argv.push_back(empty);
        const Proc p = run(argv);
        EXPECT_EQ(p.rc, 0) << describe(argv, p);
        const size_t at = p.out.find(" threads");
        const size_t from = p.out.rfind(' ', at == std::string::npos ? 0 : at - 1);
        return at == std::string::npos ? std::string("(none)") : p.out.substr(from + 1, at - from - 1);
    };
    const bool gpu = gpuPresent();
    // (no options with a GPU there: as --gpus 1)
    EXPECT_EQ(threads({}), std::to_string(gpu && pcwt_has_cuda() ? std::max(1u, cores / 2) : cores));
    EXPECT_EQ(threads({"--threads", "3"}), "3");
    if (!pcwt_has_cuda()) { // no GPUs to feed: all cores read and write
        EXPECT_EQ(threads({"--gpus", "2"}), std::to_string(cores));
    } else if (gpu) {
        EXPECT_EQ(threads({"--gpus", "1"}), std::to_string(std::max(1u, cores / 2)));
    }
    EXPECT_EQ(threads({"--gpus", "0", "--threads", "5"}), "5");
}

namespace {

// the file system calls of one thread of an strace -ff log: a verified copy (a temporary file
// renamed over a destination) must have been flushed after its last write and before its
// rename, and every folder that received a file must be flushed after it, on the same thread
struct CommitTrace {
    int renames = 0, folderFlushes = 0;
    std::vector<std::string> problems;
};

// the first quoted string of a strace line after `from`, and where it ends
std::string quoted(const std::string &line, size_t from, size_t *end = nullptr)
{
    const size_t a = line.find('"', from);
    const size_t b = a == std::string::npos ? a : line.find('"', a + 1);
    if (b == std::string::npos)
        return "";
    if (end)
        *end = b + 1;
    return line.substr(a + 1, b - a - 1);
}

long resultOf(const std::string &line)
{
    const size_t eq = line.rfind(" = ");
    return eq == std::string::npos ? -1 : std::atol(line.c_str() + eq + 3);
}

void traceThread(const std::string &log, CommitTrace &t)
{
    const auto bytes = readBytes(log);
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    std::map<long, std::string> fdPath;
    std::set<std::string> flushed, unflushedFolders;
    std::string line;
    while (std::getline(in, line)) {
        const long rc = resultOf(line);
        if (line.rfind("openat(", 0) == 0 && rc >= 0) {
            const std::string path = quoted(line, 0);
            fdPath[rc] = path;
            if (line.find("O_WRONLY") != std::string::npos || line.find("O_RDWR") != std::string::npos)
                flushed.erase(path); // written (again) after any earlier flush
        } else if ((line.rfind("fsync(", 0) == 0 || line.rfind("fdatasync(", 0) == 0) && rc == 0) {
            const std::string path = fdPath[std::atol(line.c_str() + line.find('(') + 1)];
            flushed.insert(path);
            if (unflushedFolders.erase(path))
                ++t.folderFlushes;
        } else if (line.rfind("close(", 0) == 0) {
            fdPath.erase(std::atol(line.c_str() + 6));
        } else if (line.rfind("rename", 0) == 0 && rc == 0) {
            size_t end = 0;
            const std::string from = quoted(line, 0, &end), to = quoted(line, end);
            // verified copies only (not a temporary name given to another, not the second name
            // of a kept original, which is the original itself)
            if (from.find(".pcwt-tmp.") == std::string::npos || to.find(".pcwt-tmp.") != std::string::npos ||
                to.size() < 10 || to.compare(to.size() - 10, 10, ".pcwt-orig") == 0)
                continue;
            ++t.renames;
            if (!flushed.count(from))
                t.problems.push_back("renamed without a flush after its last write: " + from + " -> " + to);
            unflushedFolders.insert(fs::path(to).parent_path().string());
        }
    }
    for (const std::string &d : unflushedFolders)
        t.problems.push_back("folder not flushed after a file was renamed into it: " + d + " (" + log + ")");
}

bool straceWorks()
{
    return onPath("strace") && run({"strace", "-f", "-o", "/dev/null", "true"}).rc == 0;
}

} // namespace

TEST(Recompress, CommitGroupsFlushEachCopyBeforeItsRenameAndEachFolderAfter)
{
    REQUIRE_CORPUS();
    if (!straceWorks())
        GTEST_SKIP() << "strace is not installed or cannot trace here";
    // in place and mirrored, in commit groups (the default) and one file at a time, and with the
    // verifier stage (the CPU standing in), whose copies are committed as their verdicts come in:
    // every verified copy is flushed before its rename and every folder after its files'
    // renames; groups flush a folder once for several files
    std::vector<std::pair<std::string, std::string>> set;
    for (int i = 0; i < 10; ++i) {
        set.push_back({"debian-python3-pydicom/CT_small.dcm", "a/ct" + std::to_string(i) + ".dcm"});
        set.push_back({"pydicom-data/emri_small.dcm", "b/mr" + std::to_string(i) + ".dcm"});
    }
    set.push_back({"pydicom-data/eCT_Supplemental.dcm", "b/ect.dcm"});
    for (const std::string group : {"16", "1", "4 --verify-gpu"}) {
        for (const bool mirror : {false, true}) {
            Tree t(set);
            const auto originals = decodeAll(t.root);
            const std::string trace = t.dir / "trace", out = t.dir / "out";
            fs::create_directories(trace);
            // (LeakSanitizer cannot run under ptrace: off for the traced tool of a sanitizer build)
            const char *asan = std::getenv("ASAN_OPTIONS");
            const std::string asan_env = std::string("ASAN_OPTIONS=") + (asan && *asan ? std::string(asan) + ":" : "") +
                                         "detect_leaks=0";
            std::vector<std::string> argv = {"strace", "-f", "-ff", "-s", "4096", "-o", trace + "/t", "-E", asan_env,
                                             "-e", "trace=openat,close,fsync,fdatasync,rename,renameat,renameat2",
                                             kTool, "--threads", "1", "--batch-wait", "2000", "--commit-group",
                                             group.substr(0, group.find(' ')), "--no-progress"};
            if (group.find(' ') != std::string::npos)
                argv.push_back(group.substr(group.find(' ') + 1));
            if (mirror) {
                argv.push_back("--output");
                argv.push_back(out);
            }
            argv.push_back(t.root);
            const Proc p = run(argv);
            ASSERT_EQ(p.rc, 0) << describe(argv, p);
            expectVerified(mirror ? out : t.root, originals, {}, kPcwtUid);
            CommitTrace ct;
            for (const auto &e : fs::directory_iterator(trace))
                traceThread(e.path().string(), ct);
            const std::string what = "--commit-group " + group + (mirror ? " --output" : " in place");
            EXPECT_TRUE(ct.problems.empty()) << what << ": " << ct.problems.size() << " problem(s), the first: "
                                             << (ct.problems.empty() ? "" : ct.problems[0]);
            EXPECT_GE(ct.renames, 20) << what;
            EXPECT_GE(ct.folderFlushes, 1) << what;
            if (group == "1") {
                EXPECT_EQ(ct.folderFlushes, ct.renames) << what << ": one folder flush per file";
            } else if (group == "16") {
                EXPECT_LT(ct.folderFlushes * 2, ct.renames) << what << ": a folder flush for several files";
            }
        }
    }
}

// --coders-per-gpu: several batch coder threads (here on the CPU backend, where the option applies
// when given) take one-file batches from the same queue; every file is coded by a batch coder,
// verified, and byte for byte what per-file coding writes; --stats counts the coder threads
TEST(Recompress, SeveralCodersPerDeviceAgreeWithPerFileCoding)
{
    REQUIRE_CORPUS();
    Tree a, b;
    const auto originals = decodeAll(a.root);
    const std::string ra = a.dir / "coders.json";
    std::vector<std::string> argv = {kTool, "--coders-per-gpu", "3", "--batch-frames", "1", "--threads", "2",
                                     "--stats", "--no-progress", "--report", ra, a.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_NE(p.out.find("batch coders (3)"), std::string::npos) << p.out;
    expectVerified(a.root, originals, kUnsupported, kPcwtUid);
    const long long recompressed = reportSummary(ra, "recompressed");
    EXPECT_GE(recompressed, 8);
    EXPECT_EQ(reportSummary(ra, "batch_coded_files"), recompressed) << p.out;
    EXPECT_GE(reportSummary(ra, "batch_coder_calls"), recompressed) << "one-file batches";
    argv = {kTool, "--batch-frames", "0", "--no-progress", b.root};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(sameOutputs(snapshot(a.root), snapshot(b.root)));
    // without the option one coder with the CPU codec, kDPRCGpuCodersPerDevice with a GPU
    TempDir d;
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", d / "in/ct.dcm");
    argv = {kTool, "--stats", "--no-progress", d / "in"};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    const unsigned coders = gpuDevice(0) ? kDPRCGpuCodersPerDevice : 1;
    EXPECT_NE(p.out.find("batch coders (" + std::to_string(coders) + ")"), std::string::npos) << p.out;
    for (const char *bad : {"0", "17", "x"}) {
        const std::vector<std::string> args = {kTool, "--coders-per-gpu", bad, "--no-progress", b.root};
        p = run(args);
        EXPECT_EQ(p.rc, 1) << describe(args, p);
        EXPECT_NE(p.out.find("coders-per-gpu"), std::string::npos) << p.out;
    }
}

TEST(Recompress, StatsShowTheStagesAndCommitGroupIsChecked)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in", report = d / "r.json";
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/a/ct.dcm");
    copyFile(kTestdata + "/pydicom-data/eCT_Supplemental.dcm", root + "/b/ect.dcm");
    const auto before = snapshot(root);
    for (const char *bad : {"0", "x", "4097"}) {
        const Proc p = run({kTool, "--commit-group", bad, "--no-progress", root});
        EXPECT_EQ(p.rc, 1) << bad << ": " << p.out;
        EXPECT_NE(p.out.find("commit-group"), std::string::npos) << p.out;
    }
    EXPECT_TRUE(snapshot(root) == before);
    // the CPU codes, so each writer verifies its own copies (where a GPU codes, the verifier stage
    // decodes them instead, and the writers only a sample)
    const std::vector<std::string> argv = {kTool, "--backend-cpu", "--stats", "--no-progress", "--report",
                                           report, root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_EQ(reportSummary(report, "recompressed"), 2);
    EXPECT_EQ(reportSummary(report, "batch_verified_files"), 0);
    EXPECT_NE(p.out.find("stage times"), std::string::npos) << p.out;
    for (const char *stage : {"load", "code", "save", "flush", "verify-decode", "rename", "dir-flush"}) {
        EXPECT_NE(p.out.find(std::string(" ") + stage + " "), std::string::npos) << stage << ": " << p.out;
        EXPECT_GE(reportSummary(report, stage), 0) << stage;
    }
    // the files were read, coded, flushed and verified: those stages took time
    const auto bytes = readBytes(report);
    const std::string text(bytes.begin(), bytes.end());
    const size_t at = text.find("\"stage_seconds\": {");
    ASSERT_NE(at, std::string::npos) << text;
    for (const char *stage : {"load", "code", "save", "flush", "verify-decode", "rename"}) {
        const std::string key = std::string("\"") + stage + "\": ";
        const size_t k = text.find(key, at);
        ASSERT_NE(k, std::string::npos) << stage;
        EXPECT_GT(std::strtod(text.c_str() + k + key.size(), nullptr), 0.0) << stage;
    }
}

namespace {

// A coder lent to the codec, as pcwt-recompress's writers lend theirs, that holds some frames
// "coded ahead": it codes them itself when asked, with one wavelet level (which the codec never
// chooses), so that the file shows whose codestreams it holds, and always with an odd length (a
// trailing byte, which decoders ignore) followed by the pad byte.
class AheadCoder : public DPCWTThreadCoder {
public:
    std::set<size_t> aheadFrames; // the frames it holds, by the order of the codec's questions
    size_t asked = 0, codedHere = 0;
    std::deque<std::vector<uint8_t>> handed; // what it handed over (codestream and pad byte)

    bool codedFrame(const pcwt_encoder *coding, const pcwt_image_desc &desc, const void *samples,
                    size_t samplesSize, const Uint8 *&data, size_t &size) override
    {
        if (!aheadFrames.count(asked++))
            return false;
        pcwt_encoder *e = pcwt_encoder_create();
        std::vector<uint8_t> cs(pcwt_encode_bound(&desc) + 2);
        size_t n = 0;
        const bool ok = e && pcwt_encoder_copy_coding(e, coding) == PCWT_OK &&
                        pcwt_encoder_set_option(e, PCWT_OPT_LEVELS, 1) == PCWT_OK &&
                        pcwt_encoder_set_option(e, PCWT_OPT_BACKEND, PCWT_BACKEND_CPU) == PCWT_OK &&
                        pcwt_encode(e, &desc, samples, samplesSize, cs.data(), cs.size() - 2, &n) == PCWT_OK;
        pcwt_encoder_destroy(e);
        if (!ok)
            return false;
        if (n % 2 == 0)
            cs[n++] = 0xA5;
        cs[n] = 0; // the pad byte
        cs.resize(n + 1);
        handed.push_back(std::move(cs));
        data = handed.back().data();
        size = n;
        return true;
    }

    pcwt_status encodeBatch(const pcwt_encoder *coding, pcwt_frame_job *jobs, size_t count,
                            OFString &message) override
    {
        codedHere += count;
        pcwt_encoder *e = pcwt_encoder_create();
        pcwt_status st = e ? pcwt_encoder_copy_coding(e, coding) : PCWT_ERR_OUT_OF_MEMORY;
        if (st == PCWT_OK)
            st = pcwt_encoder_set_option(e, PCWT_OPT_BACKEND, PCWT_BACKEND_CPU);
        if (st == PCWT_OK)
            st = pcwt_encode_batch(e, jobs, count);
        if (st != PCWT_OK && e)
            message = pcwt_encoder_last_error(e);
        pcwt_encoder_destroy(e);
        return st;
    }
};

} // namespace

// The hand-over of frames coded ahead (dcmpcwt/dpthrcod.h): the PCWT encoder codec asks the lent
// coder for each frame in order, stores the codestreams it gets as they are (an odd one with its pad
// byte) and codes only the others, with the lent coder's encodeBatch
TEST(Recompress, CodecStoresFramesCodedAheadAsTheyAre)
{
    ImageSpec s;
    s.rows = 256;
    s.columns = 192;
    s.frames = 5;
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
    AheadCoder coder;
    coder.aheadFrames = {0, 2, 3};
    DPCWTRepresentationParameter rp;
    DPCWTSetThreadCoder(&coder);
    const OFCondition c = ff->getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
    DPCWTSetThreadCoder(nullptr);
    ASSERT_TRUE(c.good()) << c.text();
    EXPECT_EQ(coder.asked, 5u);
    EXPECT_EQ(coder.handed.size(), 3u);
    EXPECT_EQ(coder.codedHere, 2u) << "the frames handed over were coded again";
    DcmPixelSequence *seq = pixelSequence(ff->getDataset(), DPCWT_CARRIER_XFER, &rp);
    ASSERT_NE(seq, nullptr);
    ASSERT_EQ(seq->card(), 6u); // the Basic Offset Table and a fragment per frame
    pcwt_decoder *dec = pcwt_decoder_create();
    ASSERT_NE(dec, nullptr);
    size_t h = 0;
    for (size_t f = 0; f < 5; ++f) {
        DcmPixelItem *item = nullptr;
        Uint8 *v = nullptr;
        ASSERT_TRUE(seq->getItem(item, static_cast<unsigned long>(f + 1)).good() && item);
        ASSERT_TRUE(item->getUint8Array(v).good() && v);
        const std::vector<uint8_t> frag(v, v + item->getLength());
        EXPECT_EQ(frag.size() % 2, 0u) << "frame " << f;
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(frag.data(), frag.size(), &info), PCWT_OK) << "frame " << f;
        if (coder.aheadFrames.count(f)) {
            EXPECT_TRUE(frag == coder.handed[h++]) << "frame " << f << " is not the codestream handed over";
            EXPECT_EQ(info.levels, 1u) << "frame " << f;
        } else {
            EXPECT_GT(info.levels, 1u) << "frame " << f << " was not coded by the codec's parameters";
        }
        std::vector<uint8_t> out(frameBytes(s));
        ASSERT_EQ(pcwt_decode(dec, frag.data(), frag.size(), out.data(), out.size()), PCWT_OK) << "frame " << f;
        EXPECT_TRUE(std::equal(out.begin(), out.end(), samples.begin() + static_cast<long>(f * out.size())))
            << "frame " << f;
    }
    pcwt_decoder_destroy(dec);
}
