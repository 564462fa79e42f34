// Tests of pcwt-recompress as a real process on real files: a temporary tree of corpus files
// (CT and MR slices, multi-frame, RGB, JPEG-LS and JPEG lossless input, unsupported images, a
// non-DICOM file, a DICOMDIR file set) recompressed in place and mirrored, resumed, dry-run,
// sharded, reported, fed hostile and read-only files, and killed with SIGKILL mid-way.
// Skips when ../shared/testdata is absent.
#include "dicom_test_util.h"

#include "dcmtk/dcmdata/dcdicdir.h"
#include "dcmtk/dcmdata/dcdirrec.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dpthrcod.h"
#include "pcwt.h"

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>

using namespace dt;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

const std::string kTool = RECOMPRESS_PATH;
const std::string kDecompress = DCMDPCWT_PATH;
const std::string kTestdata = std::string(PCWT_SHARED_DIR) + "/testdata";
const std::string kPcwtUid = PCWT_DICOM_TS_UID;

// corpus files copied into the tree: source (below testdata) -> name in the tree
const std::vector<std::pair<std::string, std::string>> kSet = {
    {"debian-python3-pydicom/CT_small.dcm", "study1/ct/CT_small.dcm"},
    {"debian-python3-pydicom/MR_small_bigendian.dcm", "study1/mr/MR_small_bigendian.dcm"},
    {"pydicom-data/emri_small.dcm", "study1/mr/emri_small_10frames.dcm"},
    {"pydicom-data/eCT_Supplemental.dcm", "study2/eCT_2frames.dcm"},
    {"pydicom-data/color-pl_PC1.dcm", "study2/us/color_planar1.dcm"},
    {"pydicom-data/US1_UNCR.dcm", "study2/us/US1_rgb.dcm"},
    {"pylibjpeg-data/JPEGLosslessP14SV1_3s_2f_u_08_08_USRGB.dcm", "study2/us/jpeg_lossless_rgb.dcm"},
    {"pylibjpeg-data/RG2_JLSL.dcm", "study3/RG2_jpegls.dcm"},
    {"pydicom-data/SC_rgb_32bit.dcm", "study3/sc_rgb_32bit.dcm"},                // unsupported
    {"pylibjpeg-data/TOSHIBA_J2K_SIZ1_PixRep0.dcm", "study3/toshiba_j2k.dcm"},   // no J2K decoder
    {"MANIFEST.md", "study3/notes.txt"},                                         // not DICOM
};

bool haveCorpus()
{
    return exists(kTestdata + "/debian-python3-pydicom/CT_small.dcm") &&
           exists(kTestdata + "/pydicom-data/emri_small.dcm");
}

#define REQUIRE_CORPUS()                                                                            \
    do {                                                                                            \
        if (!haveCorpus())                                                                          \
            GTEST_SKIP() << "no corpus under " << kTestdata << ": the pcwt-recompress tests are skipped"; \
    } while (0)

void copyFile(const std::string &from, const std::string &to)
{
    fs::create_directories(fs::path(to).parent_path());
    writeBytes(to, readBytes(from));
    chmod(to.c_str(), 0644); // the corpus is read-only
}

// every regular file below root (relative path -> bytes)
std::map<std::string, std::vector<uint8_t>> snapshot(const std::string &root)
{
    std::map<std::string, std::vector<uint8_t>> m;
    for (const auto &e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().filename() != ".pcwt-recompress.lock") // the run lock (its run ids differ)
            m[fs::relative(e.path(), root).string()] = readBytes(e.path().string());
    return m;
}

// Two trees recompressed in different ways (batched, one file at a time) hold the same files with
// the same bytes; DICOMDIRs aside.
::testing::AssertionResult sameOutputs(const std::map<std::string, std::vector<uint8_t>> &a,
                                       const std::map<std::string, std::vector<uint8_t>> &b)
{
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << a.size() << " files against " << b.size();
    for (const auto &f : a) {
        if (f.first.find("DICOMDIR") != std::string::npos)
            continue;
        if (!b.count(f.first))
            return ::testing::AssertionFailure() << f.first << " is missing from the second tree";
        if (f.second != b.at(f.first))
            return ::testing::AssertionFailure() << "batched and single-file outputs differ: " << f.first;
    }
    return ::testing::AssertionSuccess();
}

std::vector<std::string> tempFilesBelow(const std::string &root)
{
    std::vector<std::string> r;
    for (const auto &e : fs::recursive_directory_iterator(root))
        if (e.path().filename().string().find(".pcwt-tmp.") != std::string::npos)
            r.push_back(e.path().string());
    return r;
}

// A tree of the corpus set (and a DICOMDIR file set made with dcmmkdir when it is installed).
struct Tree {
    TempDir dir;
    std::string root;
    bool dicomdir = false;
    explicit Tree(const std::vector<std::pair<std::string, std::string>> &set = kSet, int copies = 1)
    {
        root = dir / "archive";
        for (int c = 0; c < copies; ++c)
            for (const auto &f : set) {
                if (!exists(kTestdata + "/" + f.first))
                    continue;
                const std::string name = copies > 1 ? "copy" + std::to_string(c) + "/" + f.second : f.second;
                copyFile(kTestdata + "/" + f.first, root + "/" + name);
            }
        if (copies == 1 && onPath("dcmmkdir")) {
            // a file set with DICOM file IDs (upper case, no extension)
            const std::string fsroot = root + "/cd";
            copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", fsroot + "/IMAGES/CT1");
            copyFile(kTestdata + "/pydicom-data/emri_small.dcm", fsroot + "/IMAGES/MR1");
            const Proc p = run({"sh", "-c", "cd '" + fsroot + "' && dcmmkdir -q +I +id . IMAGES/CT1 IMAGES/MR1"});
            dicomdir = p.rc == 0 && exists(fsroot + "/DICOMDIR");
        }
    }
};

// decoded pixels and the data set of every DICOM image below root, by relative path
struct Original {
    Pixels px;
    std::unique_ptr<DcmFileFormat> ff;
};

std::map<std::string, Original> decodeAll(const std::string &root)
{
    std::map<std::string, Original> m;
    for (const auto &e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file() || e.path().filename() == "DICOMDIR")
            continue;
        Original o;
        o.ff.reset(new DcmFileFormat());
        if (loadPixels(e.path().string(), o.px, o.ff.get()).empty())
            m[fs::relative(e.path(), root).string()] = std::move(o);
    }
    return m;
}

std::string tsOf(const std::string &path)
{
    DPCWTFileFormat ff;
    if (ff.loadFile(path.c_str()).bad())
        return "";
    return metaTransferSyntax(ff);
}

// the file lines of a JSON report: path -> status
std::map<std::string, std::string> reportStatus(const std::string &json)
{
    // (plain string search: GCC 12's std::regex trips -Wmaybe-uninitialized in sanitizer builds)
    std::map<std::string, std::string> m;
    const auto bytes = readBytes(json);
    const std::string text(bytes.begin(), bytes.end());
    const std::string kPath = "{\"path\": \"", kStatus = "\"status\": \"";
    for (size_t at = text.find(kPath); at != std::string::npos; at = text.find(kPath, at + 1)) {
        const size_t p0 = at + kPath.size(), p1 = text.find('"', p0);
        const size_t s0 = p1 == std::string::npos ? p1 : text.find(kStatus, p1);
        if (s0 == std::string::npos)
            break;
        const size_t v0 = s0 + kStatus.size(), v1 = text.find('"', v0);
        if (v1 == std::string::npos)
            break;
        m[text.substr(p0, p1 - p0)] = text.substr(v0, v1 - v0);
    }
    return m;
}

// every image of `originals` below `root` is in transfer syntax ts and decodes to the original
// pixels (all bits, or the BitsStored values for JPEG-LS) and attributes
void expectVerified(const std::string &root, const std::map<std::string, Original> &originals,
                    const std::set<std::string> &unsupported, const std::string &ts, bool valuesOnly = false)
{
    for (const auto &o : originals) {
        const std::string path = root + "/" + o.first;
        ASSERT_TRUE(exists(path)) << path;
        if (unsupported.count(o.first))
            continue;
        EXPECT_EQ(tsOf(path), ts) << path;
        DcmFileFormat ff;
        Pixels px;
        ASSERT_EQ(loadPixels(path, px, &ff), "") << path;
        if (valuesOnly)
            EXPECT_TRUE(valuesInterleaved(px) == valuesInterleaved(o.second.px)) << "pixels differ: " << path;
        else
            EXPECT_TRUE(px.bytes == o.second.px.bytes) << "pixels differ: " << path;
        std::set<DcmTagKey> ignore = {DCM_PixelData};
        if (valuesOnly)
            ignore.insert(DCM_PlanarConfiguration); // JPEG-LS output is interleaved (CP 1843)
        EXPECT_EQ(diffAttributes(o.second.ff->getDataset(), ff.getDataset(), ignore), "") << path;
    }
}

const std::set<std::string> kUnsupported = {"study3/sc_rgb_32bit.dcm", "study3/toshiba_j2k.dcm"};

// the records of a DICOMDIR that reference a file: file ID (with '/') -> Referenced Transfer Syntax
// UID in File. The records are read through DcmDicomDir's tree (which follows the record offsets)
// and must be exactly the records of the flat sequence: a DICOMDIR rewritten with stale offsets
// fails here.
std::map<std::string, std::string> dicomdirRecords(const std::string &path)
{
    std::map<std::string, std::string> m;
    DcmFileFormat flat;
    EXPECT_TRUE(flat.loadFile(path.c_str()).good()) << path;
    DcmSequenceOfItems *seq = nullptr;
    EXPECT_TRUE(flat.getDataset()->findAndGetSequence(DCM_DirectoryRecordSequence, seq).good() && seq) << path;
    const unsigned long flatCount = seq ? seq->card() : 0;
    DcmDicomDir dir(path.c_str());
    EXPECT_TRUE(dir.error().good()) << path;
    unsigned long treeCount = 0;
    std::function<void(DcmDirectoryRecord *)> walk = [&](DcmDirectoryRecord *rec) {
        for (unsigned long i = 0; rec && i < rec->cardSub(); ++i) {
            DcmDirectoryRecord *sub = rec->getSub(i);
            ++treeCount;
            OFString id, ts;
            if (sub->findAndGetOFStringArray(DCM_ReferencedFileID, id).good() && !id.empty()) {
                std::string r = id.c_str();
                std::replace(r.begin(), r.end(), '\\', '/');
                sub->findAndGetOFString(DCM_ReferencedTransferSyntaxUIDInFile, ts);
                m[r] = ts.c_str();
            }
            walk(sub);
        }
    };
    walk(&dir.getRootRecord());
    EXPECT_EQ(treeCount, flatCount) << "the record tree of " << path << " does not hold every record";
    return m;
}

// a JSON report's summary number `key` (-1 when absent)
long long reportSummary(const std::string &json, const std::string &key)
{
    const auto bytes = readBytes(json);
    const std::string text(bytes.begin(), bytes.end());
    const size_t at = text.find("\"" + key + "\": ");
    if (at == std::string::npos)
        return -1;
    return std::atoll(text.c_str() + at + key.size() + 4);
}

// a 16-bit image of noise in every bit: no lossless coder makes it smaller
void writeNoiseImage(const std::string &path)
{
    ImageSpec s;
    s.rows = 128;
    s.columns = 96;
    s.fill = ImageSpec::Random;
    s.seed = 99;
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
    fs::create_directories(fs::path(path).parent_path());
    ASSERT_TRUE(ff->saveFile(path.c_str(), EXS_LittleEndianExplicit).good()) << path;
}

} // namespace

TEST(Recompress, Help)
{
    const Proc p = run({kTool, "--help"});
    EXPECT_EQ(p.rc, 0) << p.out;
    for (const char *opt : {"--output", "--keep-originals", "--dry-run", "--shard", "--threads", "--report",
                            "--decompress", "--encode-jpegls", "--gpus", "--batch-frames", "--batch-mb",
                            "--batch-wait", "--keep-smaller", "--verify-gpu", "--coders-per-gpu"})
        EXPECT_NE(p.out.find(opt), std::string::npos) << opt;
    EXPECT_NE(run({kTool, "--shard", "3/3", "/nonexistent"}).rc, 0);
    EXPECT_NE(run({kTool, "--output"}).rc, 0);
}

TEST(Recompress, InPlaceVerifiedThenResumeSkipsEverything)
{
    REQUIRE_CORPUS();
    Tree t;
    const auto originals = decodeAll(t.root);
    const auto before = snapshot(t.root);
    const std::string report = t.dir / "report.json";
    std::vector<std::string> argv = {kTool, "--threads", "2", "--keep-originals", "--report", report, t.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    expectVerified(t.root, originals, kUnsupported, kPcwtUid);
    EXPECT_TRUE(tempFilesBelow(t.root).empty());

    // the report lists every file, with its status
    const auto status = reportStatus(report);
    EXPECT_EQ(status.size(), before.size()) << p.out;
    for (const auto &f : before) {
        const std::string path = t.root + "/" + f.first;
        ASSERT_TRUE(status.count(path)) << path;
        const std::string &s = status.at(path);
        std::string want = "recompressed";
        if (f.first == "study3/notes.txt")
            want = "skipped-not-dicom";
        else if (f.first == "cd/DICOMDIR")
            want = "skipped-non-image";
        else if (kUnsupported.count(f.first))
            want = "unsupported";
        EXPECT_EQ(s, want) << path;
        // unchanged files are byte-identical (but the DICOMDIR, whose records now name the new
        // transfer syntax), kept originals are the originals
        if (f.first == "cd/DICOMDIR") {
            const auto records = dicomdirRecords(path);
            EXPECT_EQ(records.at("IMAGES/CT1"), kPcwtUid);
            EXPECT_EQ(records.at("IMAGES/MR1"), kPcwtUid);
        } else if (s != "recompressed") {
            EXPECT_TRUE(readBytes(path) == f.second) << path;
        } else {
            EXPECT_TRUE(readBytes(path + ".pcwt-orig") == f.second) << path;
        }
    }
    if (t.dicomdir) {
        EXPECT_EQ(tsOf(t.root + "/cd/IMAGES/CT1"), kPcwtUid);
    }

    // one file through dcmdpcwt: the tool's output decodes with the stock path too
    const std::string out = t.dir / "ct.dcm";
    ASSERT_EQ(run({kDecompress, t.root + "/study1/ct/CT_small.dcm", out}).rc, 0);
    Pixels px;
    ASSERT_EQ(loadPixels(out, px), "");
    EXPECT_TRUE(px.bytes == originals.at("study1/ct/CT_small.dcm").px.bytes);

    // a second run finds everything done and changes nothing
    const auto after = snapshot(t.root);
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_NE(p.out.find(" 0 recompressed"), std::string::npos) << p.out;
    EXPECT_TRUE(snapshot(t.root) == after);
    for (const auto &s : reportStatus(report))
        EXPECT_NE(s.second, "recompressed") << s.first;
}

TEST(Recompress, MirroredJpegLsThenDecompressBack)
{
    REQUIRE_CORPUS();
    Tree t;
    const auto originals = decodeAll(t.root);
    const auto before = snapshot(t.root);
    const std::string jls = t.dir / "jls", back = t.dir / "back";
    std::vector<std::string> argv = {kTool, "+el", "--output", jls, "--copy-others", "--no-progress", t.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(snapshot(t.root) == before) << "the input tree changed";
    // RG2 is JPEG-LS already: copied as it is
    std::set<std::string> skip = kUnsupported;
    expectVerified(jls, originals, skip, UID_JPEGLSLosslessTransferSyntax, true);
    EXPECT_TRUE(exists(jls + "/study3/notes.txt"));

    // and back to uncompressed: every sample value as in the original
    argv = {kTool, "--decompress", "--output", back, "--no-progress", jls};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    for (const auto &o : originals) {
        if (skip.count(o.first))
            continue;
        EXPECT_EQ(tsOf(back + "/" + o.first), UID_LittleEndianExplicitTransferSyntax) << o.first;
        Pixels px;
        ASSERT_EQ(loadPixels(back + "/" + o.first, px), "") << o.first;
        EXPECT_TRUE(valuesInterleaved(px) == valuesInterleaved(o.second.px)) << o.first;
    }
    // resumable in mirrored mode: outputs that exist are done
    p = run(argv);
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find(" 0 recompressed"), std::string::npos) << p.out;
}

TEST(Recompress, DryRunChangesNothing)
{
    REQUIRE_CORPUS();
    Tree t;
    const auto before = snapshot(t.root);
    const std::string report = t.dir / "dry.json";
    const std::vector<std::string> argv = {kTool, "--dry-run", "--report", report, t.root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(snapshot(t.root) == before);
    const auto status = reportStatus(report);
    EXPECT_EQ(status.at(t.root + "/study1/ct/CT_small.dcm"), "would-recompress");
    EXPECT_EQ(status.at(t.root + "/study3/sc_rgb_32bit.dcm"), "unsupported");
    EXPECT_EQ(status.size(), before.size());
}

TEST(Recompress, ShardsPartitionTheFiles)
{
    REQUIRE_CORPUS();
    Tree t;
    std::set<std::string> all;
    for (const auto &f : snapshot(t.root))
        all.insert(t.root + "/" + f.first);
    std::set<std::string> seen;
    size_t total = 0;
    const unsigned n = 3;
    for (unsigned i = 0; i < n; ++i) {
        const std::string report = t.dir / ("shard" + std::to_string(i) + ".csv");
        const std::vector<std::string> argv = {kTool, "-n", "--shard", std::to_string(i) + "/" + std::to_string(n),
                                               "--report", report, t.root};
        const Proc p = run(argv);
        ASSERT_EQ(p.rc, 0) << describe(argv, p);
        const std::vector<uint8_t> b = readBytes(report);
        std::stringstream csv(std::string(b.begin(), b.end()));
        std::string line;
        std::getline(csv, line);
        EXPECT_EQ(line.rfind("path,output,status,input_bytes,output_bytes,ratio", 0), 0u) << line;
        while (std::getline(csv, line)) {
            const std::string path = line.substr(0, line.find(','));
            EXPECT_TRUE(seen.insert(path).second) << "in two shards: " << path;
            ++total;
        }
    }
    EXPECT_EQ(seen, all);
    EXPECT_EQ(total, all.size());
}

TEST(Recompress, HostileFilesFailAndStayUntouched)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    const std::vector<uint8_t> ct = readBytes(kTestdata + "/debian-python3-pydicom/CT_small.dcm");
    fs::create_directories(root);
    writeBytes(root + "/truncated.dcm", std::vector<uint8_t>(ct.begin(), ct.begin() + ct.size() * 2 / 3));
    // a header declaring a far larger image than the pixel data holds
    {
        DcmFileFormat ff;
        ASSERT_TRUE(ff.loadFile((kTestdata + "/debian-python3-pydicom/CT_small.dcm").c_str()).good());
        ff.getDataset()->putAndInsertUint16(DCM_Rows, 46341);
        ff.getDataset()->putAndInsertUint16(DCM_Columns, 46341);
        ASSERT_TRUE(ff.saveFile((root + "/short_pixels.dcm").c_str(), EXS_LittleEndianExplicit).good());
    }
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/good.dcm");
    const auto before = snapshot(root);
    const std::string report = d / "r.json";
    const std::vector<std::string> argv = {kTool, "--report", report, root};
    const Proc p = run(argv);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_LT(p.rc, 128) << "crashed";
    const auto status = reportStatus(report);
    EXPECT_EQ(status.at(root + "/truncated.dcm"), "failed");
    EXPECT_EQ(status.at(root + "/short_pixels.dcm"), "failed");
    EXPECT_EQ(status.at(root + "/good.dcm"), "recompressed");
    EXPECT_NE(p.out.find("failed: " + root + "/truncated.dcm"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(root + "/truncated.dcm") == before.at("truncated.dcm"));
    EXPECT_TRUE(readBytes(root + "/short_pixels.dcm") == before.at("short_pixels.dcm"));
    EXPECT_TRUE(tempFilesBelow(root).empty());
}

TEST(Recompress, CopiesThatDoNotVerifyFailAndOriginalsStay)
{
    REQUIRE_CORPUS();
    // a bit flipped in the copy read back (its CRC must catch it) or in the samples it is compared
    // with (the comparison must): by the writers' codec, and by the verifier stage that decodes
    // many files' copies together and compares them (the GPU where there is one)
    for (const std::string fault : {"codestream", "original"}) {
        for (const bool stage : {false, true}) {
            SCOPED_TRACE(fault + (stage ? " --verify-gpu" : ""));
            TempDir d;
            const std::string root = d / "in";
            copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ct.dcm");
            copyFile(kTestdata + "/pydicom-data/emri_small.dcm", root + "/mr/emri_10frames.dcm");
            copyFile(kTestdata + "/pylibjpeg-data/RG2_JLSL.dcm", root + "/cr/rg2.dcm");
            const auto before = snapshot(root);
            const std::string report = d / "r.json";
            std::vector<std::string> argv = {kTool, "--no-progress", "--report", report};
            if (stage)
                argv.push_back("--verify-gpu");
            argv.push_back(root);
            const Proc p = run(argv, {"PCWT_RECOMPRESS_FAULT=" + fault});
            EXPECT_EQ(p.rc, 2) << describe(argv, p);
            const auto status = reportStatus(report);
            ASSERT_EQ(status.size(), before.size()) << p.out;
            for (const auto &f : before) {
                EXPECT_EQ(status.at(root + "/" + f.first), "failed") << f.first;
                EXPECT_TRUE(readBytes(root + "/" + f.first) == f.second) << f.first << " was changed";
            }
            EXPECT_NE(p.out.find(fault == "original" ? "differs from the original" : "verification failed"),
                      std::string::npos) << p.out;
            EXPECT_TRUE(tempFilesBelow(root).empty());
        }
    }
}

TEST(Recompress, ReadOnlyFilesAndFoldersAreReported)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/rofile.dcm");
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/rodir/ct.dcm");
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ok/ct.dcm");
    chmod((root + "/rofile.dcm").c_str(), 0444);
    chmod((root + "/rodir").c_str(), 0555);
    const auto before = snapshot(root);
    const std::vector<std::string> argv = {kTool, root};
    const Proc p = run(argv);
    chmod((root + "/rodir").c_str(), 0755);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_NE(p.out.find("read-only file"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("read-only folder"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(root + "/rofile.dcm") == before.at("rofile.dcm"));
    EXPECT_TRUE(readBytes(root + "/rodir/ct.dcm") == before.at("rodir/ct.dcm"));
    EXPECT_EQ(tsOf(root + "/ok/ct.dcm"), kPcwtUid);
}

TEST(Recompress, KillNineLeavesOriginalsOrVerifiedCopies)
{
    REQUIRE_CORPUS();
    // ~40 files of 0.1 .. 1 MB
    const std::vector<std::pair<std::string, std::string>> set = {
        {"debian-python3-pydicom/CT_small.dcm", "a/ct_small.dcm"},
        {"pydicom-data/693_UNCR_CT.dcm", "a/ct693.dcm"},
        {"pydicom-data/emri_small.dcm", "b/emri.dcm"},
        {"pydicom-data/MR-SIEMENS-DICOM-WithOverlays.dcm", "b/mr_overlays.dcm"},
        {"pydicom-data/US1_UNCR.dcm", "c/us1.dcm"},
        {"pydicom-data/eCT_Supplemental.dcm", "c/ect.dcm"},
        {"wg04/dicom_unc/CT1_UNC.dcm", "d/ct1.dcm"},
        {"wg04/dicom_unc/MR1_UNC.dcm", "d/mr1.dcm"},
    };
    Tree t(set, 5);
    const auto originals = snapshot(t.root);
    const auto decoded = decodeAll(t.root);
    ASSERT_GE(originals.size(), 20u);
    std::mt19937 rng(12345);
    int killed = 0, midway = 0;
    // the size of every file when a round starts: a size that changes marks a rename of this round
    auto sizes = [&]() {
        std::map<std::string, uintmax_t> m;
        for (const auto &o : originals) {
            std::error_code ec;
            m[o.first] = fs::file_size(t.root + "/" + o.first, ec);
        }
        return m;
    };
    for (int round = 0; round < 4; ++round) {
        const auto start = sizes();
        const pid_t pid = fork();
        if (pid == 0) {
            const int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 1);
            dup2(devnull, 2);
            // small batches (writes between codings) and, every other round, the default batches
            execl(kTool.c_str(), kTool.c_str(), "--threads", "1", "--no-progress", "--batch-frames",
                  round % 2 ? "1024" : "3", t.root.c_str(), (char *)nullptr);
            _exit(127);
        }
        // the kill lands a little after this round's first rename (however fast the build: under
        // sanitizers reading and batching take a while), or after 30 s
        int st = 0;
        bool exited = false;
        for (int waited = 0; waited < 6000; ++waited) {
            if (waitpid(pid, &st, WNOHANG) == pid) {
                exited = true;
                break;
            }
            if (sizes() != start)
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (!exited) {
            std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 40));
            if (kill(pid, SIGKILL) == 0)
                ++killed;
            waitpid(pid, &st, 0);
        }
        // every file is the original or a complete copy that decodes to the original samples
        size_t untouched = 0, converted = 0;
        for (const auto &o : originals) {
            const std::string path = t.root + "/" + o.first;
            ASSERT_TRUE(exists(path)) << "lost: " << path;
            const std::vector<uint8_t> now = readBytes(path);
            if (now == o.second) {
                ++untouched;
                continue;
            }
            ++converted;
            EXPECT_EQ(tsOf(path), kPcwtUid) << "neither original nor PCWT: " << path;
            Pixels px;
            ASSERT_EQ(loadPixels(path, px), "") << path;
            EXPECT_TRUE(px.bytes == decoded.at(o.first).px.bytes) << "pixels differ: " << path;
        }
        if (untouched > 0 && converted > 0)
            ++midway;
        // the next round starts where this one stopped (and must cope with its temporary files)
    }
    EXPECT_GT(killed, 0);
    EXPECT_GT(midway, 0) << "no kill landed mid-way through a run";
    // a final run finishes the rest and removes the temporary files of the killed runs (and one
    // planted here under the run id of a killed run, listed in the lock file, in case no kill
    // landed inside a write)
    const auto lockText = readBytes(t.root + "/.pcwt-recompress.lock");
    const std::string runId = std::string(lockText.begin(), lockText.end()).substr(4, 16);
    ASSERT_EQ(runId.size(), 16u);
    writeBytes(t.root + "/copy0/a/.ct_small.dcm.pcwt-tmp." + runId + ".AbC123", {1, 2, 3});
    const std::string report = t.dir / "final.json";
    const std::vector<std::string> argv = {kTool, "--threads", "2", "--report", report, t.root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(tempFilesBelow(t.root).empty());
    for (const auto &o : originals) {
        const std::string path = t.root + "/" + o.first;
        EXPECT_EQ(tsOf(path), kPcwtUid) << path;
        Pixels px;
        ASSERT_EQ(loadPixels(path, px), "") << path;
        EXPECT_TRUE(px.bytes == decoded.at(o.first).px.bytes) << path;
    }
}

TEST(Recompress, DicomdirReferencesAreFollowed)
{
    REQUIRE_CORPUS();
    Tree t;
    if (!t.dicomdir)
        GTEST_SKIP() << "dcmmkdir (dcmtk) could not make a DICOMDIR";
    const auto before = snapshot(t.root);
    const std::string report = t.dir / "dd.json";
    const std::vector<std::string> argv = {kTool, "--report", report, t.root + "/cd/DICOMDIR"};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    const auto status = reportStatus(report);
    EXPECT_EQ(status.size(), 3u) << p.out; // the DICOMDIR and the two files it references
    EXPECT_EQ(status.at(t.root + "/cd/DICOMDIR"), "skipped-non-image");
    EXPECT_EQ(status.at(t.root + "/cd/IMAGES/CT1"), "recompressed");
    EXPECT_EQ(status.at(t.root + "/cd/IMAGES/MR1"), "recompressed");
    EXPECT_EQ(tsOf(t.root + "/cd/IMAGES/MR1"), kPcwtUid);
    EXPECT_TRUE(readBytes(t.root + "/study1/ct/CT_small.dcm") == before.at("study1/ct/CT_small.dcm"));
}

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
// cores with the GPUs' feeding); the count is logged (-v) before any work.
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
    EXPECT_EQ(threads({}), std::to_string(cores));
    EXPECT_EQ(threads({"--threads", "3"}), "3");
    const bool gpu = gpuPresent();
    if (!pcwt_has_cuda()) { // no GPUs to feed: all cores read and write
        EXPECT_EQ(threads({"--gpus", "2"}), std::to_string(cores));
    } else if (gpu) {
        EXPECT_EQ(threads({"--gpus", "1"}), std::to_string(std::max(1u, cores / 2)));
    }
    EXPECT_EQ(threads({"--gpus", "0", "--threads", "5"}), "5");
}

TEST(Recompress, DicomdirRecordsFollowTheConvertedFiles)
{
    REQUIRE_CORPUS();
    Tree t;
    if (!t.dicomdir)
        GTEST_SKIP() << "dcmmkdir (dcmtk) could not make a DICOMDIR";
    const std::string dd = t.root + "/cd/DICOMDIR";
    const auto records0 = dicomdirRecords(dd);
    ASSERT_EQ(records0.size(), 2u);
    EXPECT_EQ(records0.at("IMAGES/CT1"), UID_LittleEndianExplicitTransferSyntax);
    const std::string ddBefore = t.dir / "DICOMDIR.before";
    writeBytes(ddBefore, readBytes(dd));

    // mirrored with --copy-others: the output DICOMDIR is updated, the input one is not
    const std::string out = t.dir / "out";
    std::vector<std::string> argv = {kTool, "--output", out, "--copy-others", "--no-progress", dd};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(readBytes(dd) == readBytes(ddBefore)) << "the input DICOMDIR changed";
    auto records = dicomdirRecords(out + "/DICOMDIR");
    EXPECT_EQ(records.at("IMAGES/CT1"), kPcwtUid);
    EXPECT_EQ(records.at("IMAGES/MR1"), kPcwtUid);
    EXPECT_EQ(tsOf(out + "/IMAGES/MR1"), kPcwtUid);

    // in place, one referenced file read-only (fails, not converted): only the other record changes
    chmod((t.root + "/cd/IMAGES/MR1").c_str(), 0444);
    const std::string report = t.dir / "dd.json";
    argv = {kTool, "--no-progress", "--report", report, dd};
    p = run(argv);
    chmod((t.root + "/cd/IMAGES/MR1").c_str(), 0644);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_EQ(reportStatus(report).at(t.root + "/cd/IMAGES/CT1"), "recompressed");
    EXPECT_EQ(reportStatus(report).at(t.root + "/cd/IMAGES/MR1"), "failed");
    records = dicomdirRecords(dd);
    EXPECT_EQ(records.at("IMAGES/CT1"), kPcwtUid);
    EXPECT_EQ(records.at("IMAGES/MR1"), records0.at("IMAGES/MR1"));
    EXPECT_EQ(reportSummary(report, "dicomdir_records_updated"), 1);
    EXPECT_TRUE(tempFilesBelow(t.root).empty());
    // its permissions are kept (the tree's files are 0644)
    struct stat st;
    ASSERT_EQ(stat(dd.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);

    // a read-only DICOMDIR is reported and left alone (the files are converted all the same)
    chmod(dd.c_str(), 0444);
    const auto roBefore = readBytes(dd);
    p = run(argv);
    chmod(dd.c_str(), 0644);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_NE(p.out.find("read-only DICOMDIR"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(dd) == roBefore);
    EXPECT_EQ(tsOf(t.root + "/cd/IMAGES/MR1"), kPcwtUid);

    // the next run updates the record of the file converted meanwhile; a third run changes nothing
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    records = dicomdirRecords(dd);
    EXPECT_EQ(records.at("IMAGES/MR1"), kPcwtUid);
    EXPECT_EQ(reportSummary(report, "dicomdir_records_updated"), 1);
    const auto after = readBytes(dd);
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_EQ(reportSummary(report, "dicomdir_records_updated"), 0);
    EXPECT_TRUE(readBytes(dd) == after);
    // the updated DICOMDIR is still read by DCMTK's own tools
    if (onPath("dcmdump")) {
        const Proc dump = run({"dcmdump", "-q", dd});
        EXPECT_EQ(dump.rc, 0) << dump.out;
        EXPECT_NE(dump.out.find(kPcwtUid), std::string::npos) << dump.out;
    }
}

TEST(Recompress, KeepSmallerKeepsOriginalsThatDoNotShrink)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    writeNoiseImage(root + "/noise.dcm");
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ct.dcm");
    const auto before = snapshot(root);

    // without the option the noise image is replaced by a larger copy: the case is real
    {
        TempDir d2;
        const std::string r2 = d2 / "in";
        copyFile(root + "/noise.dcm", r2 + "/noise.dcm");
        const std::string report = d2 / "r.json";
        const Proc p = run({kTool, "--no-progress", "--report", report, r2});
        ASSERT_EQ(p.rc, 0) << p.out;
        EXPECT_EQ(reportStatus(report).at(r2 + "/noise.dcm"), "recompressed");
        EXPECT_GT(fs::file_size(r2 + "/noise.dcm"), before.at("noise.dcm").size());
    }

    // mirrored: the original goes to the output tree as it is (also when the verifier stage
    // compares the copies and the writers take its verdicts later)
    std::vector<std::string> argv;
    Proc p;
    for (const bool stage : {false, true}) {
        const std::string out = d / (stage ? "out-vg" : "out"), mreport = d / (stage ? "mvg.json" : "m.json");
        argv = {kTool, "--keep-smaller", "--output", out, "--no-progress", "--report", mreport, root};
        if (stage)
            argv.insert(argv.begin() + 1, "--verify-gpu");
        p = run(argv);
        ASSERT_EQ(p.rc, 0) << describe(argv, p);
        EXPECT_EQ(reportStatus(mreport).at(root + "/noise.dcm"), "kept-original-not-smaller");
        EXPECT_TRUE(readBytes(out + "/noise.dcm") == before.at("noise.dcm"));
        EXPECT_EQ(tsOf(out + "/ct.dcm"), kPcwtUid);
        EXPECT_TRUE(tempFilesBelow(out).empty());
    }

    // in place
    const std::string report = d / "r.json";
    argv = {kTool, "--keep-smaller", "--no-progress", "--report", report, root};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    const auto status = reportStatus(report);
    EXPECT_EQ(status.at(root + "/noise.dcm"), "kept-original-not-smaller");
    EXPECT_EQ(status.at(root + "/ct.dcm"), "recompressed");
    EXPECT_EQ(reportSummary(report, "kept-original-not-smaller"), 1);
    EXPECT_TRUE(readBytes(root + "/noise.dcm") == before.at("noise.dcm"));
    EXPECT_EQ(tsOf(root + "/ct.dcm"), kPcwtUid);
    EXPECT_LT(fs::file_size(root + "/ct.dcm"), before.at("ct.dcm").size());
    EXPECT_NE(p.out.find("kept as they were"), std::string::npos) << p.out;
    EXPECT_TRUE(tempFilesBelow(root).empty());
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
    // in place and mirrored, in commit groups (the default) and one file at a time: every verified
    // copy is flushed before its rename and every folder after its files' renames; groups flush a
    // folder once for several files
    std::vector<std::pair<std::string, std::string>> set;
    for (int i = 0; i < 10; ++i) {
        set.push_back({"debian-python3-pydicom/CT_small.dcm", "a/ct" + std::to_string(i) + ".dcm"});
        set.push_back({"pydicom-data/emri_small.dcm", "b/mr" + std::to_string(i) + ".dcm"});
    }
    set.push_back({"pydicom-data/eCT_Supplemental.dcm", "b/ect.dcm"});
    for (const std::string group : {"16", "1"}) {
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
                                             kTool, "--threads", "1", "--batch-wait", "2000", "--commit-group", group,
                                             "--no-progress"};
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
            if (group == "1")
                EXPECT_EQ(ct.folderFlushes, ct.renames) << what << ": one folder flush per file";
            else
                EXPECT_LT(ct.folderFlushes * 2, ct.renames) << what << ": a folder flush for several files";
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
    // without the option one coder (the default with a GPU too)
    TempDir d;
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", d / "in/ct.dcm");
    argv = {kTool, "--stats", "--no-progress", d / "in"};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_NE(p.out.find("batch coders (1)"), std::string::npos) << p.out;
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
    const std::vector<std::string> argv = {kTool, "--stats", "--no-progress", "--report", report, root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_EQ(reportSummary(report, "recompressed"), 2);
    EXPECT_EQ(reportSummary(report, "batch_verified_files"), 0); // each writer verified its own copies
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

    bool codedFrame(const pcwt_encode_params &params, const pcwt_image_desc &desc, const void *samples,
                    size_t samplesSize, const Uint8 *&data, size_t &size) override
    {
        if (!aheadFrames.count(asked++))
            return false;
        pcwt_encode_params p = params;
        p.levels = 1;
        p.backend = PCWT_BACKEND_CPU;
        pcwt_encoder *e = pcwt_encoder_create();
        std::vector<uint8_t> cs(pcwt_encode_bound(&desc) + 2);
        size_t n = 0;
        const bool ok = e && pcwt_encoder_set_params(e, &p) == PCWT_OK &&
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

    pcwt_status encodeBatch(const pcwt_encode_params &params, pcwt_frame_job *jobs, size_t count,
                            OFString &message) override
    {
        codedHere += count;
        pcwt_encoder *e = pcwt_encoder_create();
        pcwt_encode_params p = params;
        p.backend = PCWT_BACKEND_CPU;
        pcwt_status st = e ? pcwt_encoder_set_params(e, &p) : PCWT_ERR_OUT_OF_MEMORY;
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
