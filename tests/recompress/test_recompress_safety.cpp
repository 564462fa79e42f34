// Tests of pcwt-recompress against what happens around it (issue 37): files changed between their
// reading and their replacement, kept originals that exist, hostile DICOMDIR file IDs, FIFOs, two
// runs on one folder, files named like temporary files, hard links. Each runs the real tool on
// copies of shared/testdata, under timeout(1) where a hang is the failure; skips without the corpus.
#include "dicom_test_util.h"

#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcitem.h"
#include "dcmtk/dcmdata/dcsequen.h"

#include <chrono>
#include <map>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace dt;

namespace {

const std::string kTool = RECOMPRESS_PATH;
const std::string kCt = std::string(PCWT_SHARED_DIR) + "/testdata/debian-python3-pydicom/CT_small.dcm";
const std::string kMr = std::string(PCWT_SHARED_DIR) + "/testdata/pydicom-data/emri_small.dcm";
const std::string kPcwt = PCWT_DICOM_TS_UID;

#define REQUIRE_CT()                                                                                \
    do {                                                                                            \
        if (!exists(kCt) || !exists(kMr))                                                           \
            GTEST_SKIP() << "no corpus under " PCWT_SHARED_DIR "/testdata";                         \
    } while (0)

void put(const std::string &from, const std::string &to)
{
    fs::create_directories(fs::path(to).parent_path());
    writeBytes(to, readBytes(from));
    chmod(to.c_str(), 0644); // the corpus is read-only
}

std::vector<uint8_t> bytesOf(const std::string &s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string tsOf(const std::string &path)
{
    DcmFileFormat ff;
    OFString ts;
    if (ff.loadFile(path.c_str()).bad() || ff.getMetaInfo()->findAndGetOFString(DCM_TransferSyntaxUID, ts).bad())
        return "";
    return ts.c_str();
}

// the statuses of a JSON report: path -> status
std::map<std::string, std::string> statuses(const std::string &json)
{
    std::map<std::string, std::string> m;
    const auto b = readBytes(json);
    const std::string t(b.begin(), b.end()), kPath = "{\"path\": \"", kStatus = "\"status\": \"";
    for (size_t at = t.find(kPath); at != std::string::npos; at = t.find(kPath, at + 1)) {
        const size_t p0 = at + kPath.size(), p1 = t.find('"', p0), s0 = t.find(kStatus, p1);
        if (p1 == std::string::npos || s0 == std::string::npos)
            break;
        const size_t v0 = s0 + kStatus.size();
        m[t.substr(p0, p1 - p0)] = t.substr(v0, t.find('"', v0) - v0);
    }
    return m;
}

// pcwt-recompress under timeout(1): rc 124 means it hung
Proc tool(std::vector<std::string> args, const std::vector<std::string> &env = {})
{
    args.insert(args.begin(), {"timeout", "60", kTool, "--no-progress"});
    return run(args, env);
}

// a file set made by dcmmkdir in dir (IMAGES/CT1, IMAGES/MR1) whose image records then get the
// given Referenced File IDs, in order
bool hostileDicomdir(const std::string &dir, const std::vector<std::string> &ids)
{
    put(kCt, dir + "/IMAGES/CT1");
    put(kMr, dir + "/IMAGES/MR1");
    if (!onPath("dcmmkdir") ||
        run({"sh", "-c", "cd '" + dir + "' && dcmmkdir -q +I +id . IMAGES/CT1 IMAGES/MR1"}).rc != 0)
        return false;
    DcmFileFormat ff;
    DcmSequenceOfItems *seq = nullptr;
    if (ff.loadFile((dir + "/DICOMDIR").c_str()).bad() ||
        ff.getDataset()->findAndGetSequence(DCM_DirectoryRecordSequence, seq).bad() || !seq)
        return false;
    size_t k = 0;
    for (unsigned long i = 0; i < seq->card() && k < ids.size(); ++i) {
        DcmItem *rec = seq->getItem(i);
        OFString id;
        if (rec->findAndGetOFStringArray(DCM_ReferencedFileID, id).good() && !id.empty())
            rec->putAndInsertString(DCM_ReferencedFileID, ids[k++].c_str());
    }
    return k == ids.size() &&
           ff.saveFile((dir + "/DICOMDIR").c_str(), EXS_LittleEndianExplicit).good();
}

} // namespace

// Issue 37.2: a file written to after it was read is not overwritten with its old content.
// PCWT_RECOMPRESS_FAULT=change-before-commit appends to each original just before the identity
// check (a writer racing the commit), =change-while-read after DCMTK has read it.
TEST(RecompressSafety, FileChangedAfterReadKeepsItsNewContent)
{
    REQUIRE_CT();
    for (const std::string fault : {"change-before-commit", "change-while-read"}) {
        TempDir d;
        const std::string root = d / "in";
        put(kCt, root + "/a.dcm");
        put(kMr, root + "/b.dcm");
        const auto ct = readBytes(root + "/a.dcm");
        const std::string report = d / "r.json";
        const Proc p = tool({"--report", report, root}, {"PCWT_RECOMPRESS_FAULT=" + fault});
        EXPECT_EQ(p.rc, 2) << fault << ": " << p.out; // not done: run again
        std::vector<uint8_t> want = ct;
        const auto more = bytesOf("PCWT-TEST-CHANGED");
        want.insert(want.end(), more.begin(), more.end());
        EXPECT_TRUE(readBytes(root + "/a.dcm") == want) << fault << ": the new content was lost";
        auto st = statuses(report);
        EXPECT_EQ(st[root + "/a.dcm"], "skipped-changed") << fault << ": " << p.out;
        EXPECT_EQ(st[root + "/b.dcm"], "skipped-changed") << fault;
        EXPECT_NE(p.out.find("changed"), std::string::npos) << p.out;
    }
}

// Issue 37.3: --keep-originals never replaces an existing NAME.pcwt-orig.
TEST(RecompressSafety, KeepOriginalsNeverReplacesAKeptOriginal)
{
    REQUIRE_CT();
    TempDir d;
    const std::string root = d / "in";
    put(kCt, root + "/f.dcm");
    const auto original = readBytes(root + "/f.dcm");
    Proc p = tool({"--keep-originals", root});
    ASSERT_EQ(p.rc, 0) << p.out;
    ASSERT_EQ(tsOf(root + "/f.dcm"), kPcwt);
    ASSERT_TRUE(readBytes(root + "/f.dcm.pcwt-orig") == original);
    const auto pcwtCopy = readBytes(root + "/f.dcm");
    // back again, keeping originals: the true original must survive
    p = tool({"--decompress", "--keep-originals", root});
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_NE(p.out.find("exists already"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(root + "/f.dcm.pcwt-orig") == original) << "the true original was replaced";
    EXPECT_TRUE(readBytes(root + "/f.dcm") == pcwtCopy);

    // a user's unrelated file of that name stays, and so does the file
    put(kMr, root + "/keep.dcm");
    writeBytes(root + "/keep.dcm.pcwt-orig", bytesOf("a user's notes\n"));
    const auto mr = readBytes(root + "/keep.dcm");
    p = tool({"--keep-originals", root + "/keep.dcm"});
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_TRUE(readBytes(root + "/keep.dcm.pcwt-orig") == bytesOf("a user's notes\n"));
    EXPECT_TRUE(readBytes(root + "/keep.dcm") == mr);
}

// Issue 37.4: DICOMDIR file IDs stay below the DICOMDIR's folder, follow no symbolic link, and
// with --output land below the output folder.
TEST(RecompressSafety, DicomdirFileIdsAreConfined)
{
    REQUIRE_CT();
    TempDir d;
    const std::string cd = d / "root/cd";
    put(kCt, d / "OUTSIDE/VICTIM");
    put(kCt, d / "OUTSIDE/VICTIM2");
    fs::create_directories(cd);
    fs::create_directory_symlink(d / "OUTSIDE", cd + "/LINK");
    if (!hostileDicomdir(cd, {"..\\OUTSIDE\\VICTIM", "LINK\\VICTIM2"}))
        GTEST_SKIP() << "dcmmkdir (dcmtk) could not make a DICOMDIR";
    const auto victim = readBytes(d / "OUTSIDE/VICTIM");
    const std::string report = d / "r.json";
    Proc p = tool({"--report", report, cd + "/DICOMDIR"});
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_TRUE(readBytes(d / "OUTSIDE/VICTIM") == victim) << "a file outside the file set was rewritten";
    EXPECT_TRUE(readBytes(d / "OUTSIDE/VICTIM2") == victim) << "a symbolic link was followed";
    EXPECT_NE(p.out.find("leaves the folder of the DICOMDIR"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("passes the symbolic link"), std::string::npos) << p.out;
    EXPECT_EQ(statuses(report).size(), 1u) << p.out; // the DICOMDIR only

    // mirrored: nothing is written outside the output folder
    const std::string out = d / "out/deep/er";
    p = tool({"--output", out, cd + "/DICOMDIR"});
    EXPECT_EQ(p.rc, 2) << p.out;
    ASSERT_TRUE(exists(d / "out")) << p.out;
    for (const auto &e : fs::recursive_directory_iterator(d / "out")) {
        if (e.is_regular_file()) {
            EXPECT_EQ(e.path().string().rfind(out + "/", 0), 0u) << e.path() << " lies outside " << out;
        }
    }
    EXPECT_FALSE(exists(d / "out/deep/OUTSIDE/VICTIM"));
}

// Issue 37.5: a FIFO, given or referenced by a DICOMDIR, is refused at once instead of waited on.
TEST(RecompressSafety, FifosAreRefusedNotWaitedOn)
{
    REQUIRE_CT();
    TempDir d;
    ASSERT_EQ(mkfifo((d / "x.dcm").c_str(), 0644), 0);
    Proc p = tool({d / "x.dcm"});
    EXPECT_EQ(p.rc, 2) << p.out; // 124: timeout(1) ended a hang
    EXPECT_NE(p.out.find("FIFO"), std::string::npos) << p.out;

    const std::string cd = d / "root/cd";
    fs::create_directories(cd + "/IMAGES");
    ASSERT_EQ(mkfifo((cd + "/IMAGES/FIFO").c_str(), 0644), 0);
    if (!hostileDicomdir(cd, {"IMAGES\\FIFO"}))
        GTEST_SKIP() << "dcmmkdir (dcmtk) could not make a DICOMDIR";
    p = tool({d / "root"});
    EXPECT_EQ(p.rc, 2) << p.out;
    EXPECT_NE(p.out.find("FIFO"), std::string::npos) << p.out;
    EXPECT_EQ(tsOf(cd + "/IMAGES/MR1"), kPcwt); // the rest of the folder is done
}

// Issue 37.9: user files named like temporary files stay; a temporary file of an earlier run
// listed in the lock file goes; a second run on a folder being worked on is refused.
TEST(RecompressSafety, LockAndTemporaryNames)
{
    REQUIRE_CT();
    TempDir d;
    const std::string root = d / "in";
    for (int i = 0; i < 6; ++i)
        put(i % 2 ? kMr : kCt, root + "/f" + std::to_string(i) + ".dcm");
    writeBytes(root + "/.f0.dcm.pcwt-tmp.abcdef", bytesOf("user file, old temporary pattern"));
    writeBytes(root + "/.f1.dcm.pcwt-tmp.0123456789abcdef.ABCDEF", bytesOf("user file, no run of this folder"));
    // a run killed earlier: listed in the lock file, its temporary file left over
    writeBytes(root + "/.pcwt-recompress.lock", bytesOf("run 00112233aabbccdd pid 1\n"));
    writeBytes(root + "/.f2.dcm.pcwt-tmp.00112233aabbccdd.XyZ123", bytesOf("left over"));

    Proc second;
    bool sawTemp = false;
    std::thread first([&]() {
        // wait for the first run's temporary files (PCWT_RECOMPRESS_FAULT=slow-commit holds each
        // commit 2 s), then start the second
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(50);
        while (!sawTemp && std::chrono::steady_clock::now() < until) {
            for (const auto &e : fs::directory_iterator(root)) {
                const std::string n = e.path().filename().string();
                if (n.find(".pcwt-tmp.") != std::string::npos && n.find("abcdef") == std::string::npos &&
                    n.find("00112233aabbccdd") == std::string::npos)
                    sawTemp = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        second = tool({root});
    });
    const Proc p = tool({"--commit-group", "1", "--threads", "1", root}, {"PCWT_RECOMPRESS_FAULT=slow-commit"});
    first.join();
    ASSERT_TRUE(sawTemp) << "the first run never had a temporary file: " << p.out;
    EXPECT_EQ(second.rc, 1) << second.out;
    EXPECT_NE(second.out.find("another pcwt-recompress run"), std::string::npos) << second.out;
    EXPECT_EQ(p.rc, 0) << p.out;
    for (int i = 0; i < 6; ++i)
        EXPECT_EQ(tsOf(root + "/f" + std::to_string(i) + ".dcm"), kPcwt) << i << ": " << p.out;
    EXPECT_TRUE(readBytes(root + "/.f0.dcm.pcwt-tmp.abcdef") == bytesOf("user file, old temporary pattern"));
    EXPECT_TRUE(readBytes(root + "/.f1.dcm.pcwt-tmp.0123456789abcdef.ABCDEF") ==
                bytesOf("user file, no run of this folder"));
    EXPECT_FALSE(exists(root + "/.f2.dcm.pcwt-tmp.00112233aabbccdd.XyZ123")) << p.out;
}

// Issue 37.12: a hard-linked file is not recompressed in place (its other names would keep the
// old content as a separate file); both names stay one file with the original content.
TEST(RecompressSafety, HardLinkedFilesAreLeftAsTheyAre)
{
    REQUIRE_CT();
    TempDir d;
    const std::string root = d / "in";
    put(kCt, root + "/a/f.dcm");
    fs::create_directories(root + "/b");
    ASSERT_EQ(link((root + "/a/f.dcm").c_str(), (root + "/b/g.dcm").c_str()), 0);
    const auto before = readBytes(root + "/a/f.dcm");
    const std::string report = d / "r.json";
    const Proc p = tool({"--report", report, root});
    EXPECT_EQ(p.rc, 0) << p.out;
    auto st = statuses(report);
    EXPECT_EQ(st[root + "/a/f.dcm"], "unsupported") << p.out;
    EXPECT_NE(p.out.find("hard link"), std::string::npos) << p.out;
    struct stat s;
    ASSERT_EQ(stat((root + "/a/f.dcm").c_str(), &s), 0);
    EXPECT_EQ(s.st_nlink, 2u);
    EXPECT_TRUE(readBytes(root + "/b/g.dcm") == before);
    // mirrored, the inputs are not changed: hard links are no concern
    EXPECT_EQ(tool({"--output", d / "out", root}).rc, 0);
    EXPECT_EQ(tsOf(d / "out/a/f.dcm"), kPcwt);
}
