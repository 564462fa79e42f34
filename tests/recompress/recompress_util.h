// Helpers of the pcwt-recompress tests (test_recompress.cpp, test_recompress_pipeline.cpp): the
// corpus tree, snapshots, decoding and checking a recompressed tree, reports, DICOMDIR records.
#ifndef PCWT_TESTS_RECOMPRESS_UTIL_H
#define PCWT_TESTS_RECOMPRESS_UTIL_H

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
    {"pylibjpeg-data/TOSHIBA_J2K_SIZ1_PixRep0.dcm", "study3/toshiba_j2k.dcm"},   // JPEG 2000 lossless
    {"MANIFEST.md", "study3/notes.txt"},                                         // not DICOM
};

inline bool haveCorpus()
{
    return exists(kTestdata + "/debian-python3-pydicom/CT_small.dcm") &&
           exists(kTestdata + "/pydicom-data/emri_small.dcm");
}

#define REQUIRE_CORPUS()                                                                            \
    do {                                                                                            \
        if (!haveCorpus())                                                                          \
            GTEST_SKIP() << "no corpus under " << kTestdata << ": the pcwt-recompress tests are skipped"; \
    } while (0)

inline void copyFile(const std::string &from, const std::string &to)
{
    fs::create_directories(fs::path(to).parent_path());
    writeBytes(to, readBytes(from));
    chmod(to.c_str(), 0644); // the corpus is read-only
}

// every regular file below root (relative path -> bytes)
inline std::map<std::string, std::vector<uint8_t>> snapshot(const std::string &root)
{
    std::map<std::string, std::vector<uint8_t>> m;
    for (const auto &e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().filename() != ".pcwt-recompress.lock") // the run lock (its run ids differ)
            m[fs::relative(e.path(), root).string()] = readBytes(e.path().string());
    return m;
}

// Two trees recompressed in different ways (batched, one file at a time) hold the same files with
// the same bytes; DICOMDIRs aside.
inline ::testing::AssertionResult sameOutputs(const std::map<std::string, std::vector<uint8_t>> &a,
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

inline std::vector<std::string> tempFilesBelow(const std::string &root)
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

inline std::map<std::string, Original> decodeAll(const std::string &root)
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

inline std::string tsOf(const std::string &path)
{
    DPCWTFileFormat ff;
    if (ff.loadFile(path.c_str()).bad())
        return "";
    return metaTransferSyntax(ff);
}

// the file lines of a JSON report: path -> status
inline std::map<std::string, std::string> reportStatus(const std::string &json)
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
inline void expectVerified(const std::string &root, const std::map<std::string, Original> &originals,
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

const std::set<std::string> kUnsupported = {"study3/sc_rgb_32bit.dcm"};

// the records of a DICOMDIR that reference a file: file ID (with '/') -> Referenced Transfer Syntax
// UID in File. The records are read through DcmDicomDir's tree (which follows the record offsets)
// and must be exactly the records of the flat sequence: a DICOMDIR rewritten with stale offsets
// fails here.
inline std::map<std::string, std::string> dicomdirRecords(const std::string &path)
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
inline long long reportSummary(const std::string &json, const std::string &key)
{
    const auto bytes = readBytes(json);
    const std::string text(bytes.begin(), bytes.end());
    const size_t at = text.find("\"" + key + "\": ");
    if (at == std::string::npos)
        return -1;
    return std::atoll(text.c_str() + at + key.size() + 4);
}

// GPU `device` is there (a CUDA build with that many devices)
inline bool gpuDevice(int device)
{
    pcwt_decoder *probe = pcwt_decoder_create();
    const bool ok = probe && pcwt_decoder_set_backend(probe, PCWT_BACKEND_GPU) == PCWT_OK &&
                    pcwt_decoder_set_device(probe, device) == PCWT_OK;
    pcwt_decoder_destroy(probe);
    return ok;
}

// a string value of the report's summary ("" when absent)
inline std::string reportText(const std::string &json, const std::string &key)
{
    const auto bytes = readBytes(json);
    const std::string text(bytes.begin(), bytes.end());
    const size_t at = text.find("\"" + key + "\": \"");
    if (at == std::string::npos)
        return "";
    const size_t from = at + key.size() + 5;
    return text.substr(from, text.find('"', from) - from);
}

// a 16-bit image of noise in every bit: no lossless coder makes it smaller
inline void writeNoiseImage(const std::string &path)
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

#endif
