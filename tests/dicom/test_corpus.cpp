// Every DICOM image of ../shared/testdata through the tools, checked against DCMTK's own decoding
// of the original:
//   PCWT:    dcmcpcwt --verify, then dcmdpcwt (explicit and implicit VR), stock dcmdjpls and dcmconv
//            with libdcmpcwt_preload.so, and frame-wise decoding: the same pixels as the original
//            (every bit), the same attributes; pydicom (up to the raw pixel data) and dcmdump read
//            the PCWT file;
//   entropy: dcmcpcwt --profile entropy --verify: every frame a profile-1 codestream (libpcwt and
//            pydicom read the headers), never larger than the baseline's and smaller on CT images;
//            dcmdpcwt decodes it to the same pixels (every bit) and attributes;
//   JPEG-LS: dcmcpcwt +el --verify, decoded identically by stock dcmdjpls and gdcmconv.
// Images that cannot be coded (32 bits allocated; bits above BitsStored for JPEG-LS) must be
// refused with a message and no output. The JPEG 2000 and HTJ2K files of ../shared/testdata-jpeg2000
// are taken too: the plugin's JPEG 2000 decoder gives the reference (checked against GDCM and
// OpenJPH by tests/j2k), lossy ones are coded with --accept-lossy. An original no decoder here
// reads must be refused by dcmcpcwt; its 'gdcmconv --raw' copy then takes its place.
// Skips cleanly when the corpus is absent.
#include "dicom_test_util.h"

#include "dcmpcwt/dputil.h"

#include <algorithm>

using namespace dt;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

const std::string kCompress = DCMCPCWT_PATH;
const std::string kDecompress = DCMDPCWT_PATH;
const std::string kPython = PYTHON_PATH;
const std::string kPydicomCheck = PYDICOM_CHECK_PATH;
const std::string kTestdata = std::string(PCWT_SHARED_DIR) + "/testdata";
// JPEG 2000 and HTJ2K files kept beside testdata/ (its MANIFEST.md)
const std::string kTestdataJ2k = std::string(PCWT_SHARED_DIR) + "/testdata-jpeg2000";

struct CorpusFile {
    std::string path;
    std::string name; // a test name: the relative path with non-alphanumerics as '_'
};

std::vector<CorpusFile> corpusFiles()
{
    std::vector<CorpusFile> files;
    for (const std::string &root : {kTestdata, kTestdataJ2k})
        for (DcmFile &f : dcmFilesUnder(root, root == kTestdataJ2k ? "jpeg2000_" : ""))
            files.push_back({std::move(f.path), std::move(f.name)});
    std::sort(files.begin(), files.end(), [](const CorpusFile &a, const CorpusFile &b) { return a.name < b.name; });
    return files;
}

// The original as DCMTK decodes it (the reference), or its gdcmconv --raw copy when DCMTK cannot.
struct Original {
    std::string input;                     // the file given to dcmcpcwt
    Pixels ref;                            // DCMTK's decoding of it
    std::unique_ptr<DcmDataset> dataset;   // its attributes after that decoding
    bool convertedByGdcm = false;
    std::vector<std::string> accept;       // {"--accept-lossy"} for a lossy JPEG 2000 original
    std::string skip;                      // set when the test cannot go on (tool missing)
};

// dcmcpcwt's command line for the original: --accept-lossy after the tool when it is lossy
std::vector<std::string> compressArgs(const Original &o, std::vector<std::string> argv)
{
    argv.insert(argv.begin() + 1, o.accept.begin(), o.accept.end());
    return argv;
}

void loadOriginal(const CorpusFile &f, const TempDir &dir, Original &o)
{
    o.input = f.path;
    DcmFileFormat ff;
    ASSERT_TRUE(ff.loadFile(f.path.c_str()).good()) << f.path;
    ASSERT_TRUE(DPCWTFileFormat::rekeyPixelData(ff).good()) << f.path; // HTJ2K: onto its carrier
    const bool j2k = DPCWTIsJPEG2000Xfer(ff.getDataset()->getOriginalXfer());
    std::string err = decodePixels(ff.getDataset(), o.ref);
    OFString lossy;
    if (err.empty() && j2k && ff.getDataset()->findAndGetOFString(DCM_LossyImageCompression, lossy).good() &&
        lossy == "01")
        o.accept = {"--accept-lossy"};
    if (!err.empty()) {
        // DCMTK 3.6.7 cannot decode it (JPEG 2000): dcmcpcwt must say so and leave nothing behind
        const std::string out = dir / "refused.dcm";
        const Proc p = run({kCompress, f.path, out});
        EXPECT_NE(p.rc, 0) << describe({kCompress, f.path, out}, p);
        EXPECT_NE(p.out.find("cannot decompress input transfer syntax"), std::string::npos) << p.out;
        EXPECT_FALSE(exists(out));
        if (!onPath("gdcmconv")) {
            o.skip = "DCMTK cannot decode " + f.path + " and gdcmconv (libgdcm-tools) is not installed";
            return;
        }
        o.input = dir / "native.dcm";
        const Proc g = run({"gdcmconv", "--raw", f.path, o.input});
        ASSERT_EQ(g.rc, 0) << g.out;
        o.convertedByGdcm = true;
        DcmFileFormat nf;
        ASSERT_TRUE(nf.loadFile(o.input.c_str()).good());
        err = decodePixels(nf.getDataset(), o.ref);
        ASSERT_EQ(err, "") << o.input;
        o.dataset.reset(static_cast<DcmDataset *>(nf.getDataset()->clone()));
        return;
    }
    o.dataset.reset(static_cast<DcmDataset *>(ff.getDataset()->clone()));
}

std::string validateMessage(const pcwt_dicom_pixel_module &m, pcwt_dicom_target t)
{
    char msg[512];
    return pcwt_dicom_validate(&m, t, msg, sizeof msg) == PCWT_DICOM_OK ? std::string() : std::string(msg);
}

// Each case starts from the original as DCMTK decodes it (skipped when that is impossible here).
class DicomCorpus : public ::testing::TestWithParam<CorpusFile> {
protected:
    void SetUp() override
    {
        ASSERT_NO_FATAL_FAILURE(loadOriginal(GetParam(), dir, o));
        if (!o.skip.empty())
            GTEST_SKIP() << o.skip;
    }

    // Runs dcmcpcwt (argv ends with the output path) into c. An image the target cannot code
    // (refusal not empty) must be refused: a non-zero exit, a message naming why, no output.
    // Returns true when the output was written and the case goes on.
    bool compressed(const std::vector<std::string> &argv, const std::string &refusal, Proc &c)
    {
        c = run(argv);
        if (!refusal.empty()) {
            EXPECT_NE(c.rc, 0) << describe(argv, c);
            EXPECT_NE(c.out.find(refusal), std::string::npos) << "expected: " << refusal << "\n" << c.out;
            EXPECT_FALSE(exists(argv.back()));
            return false;
        }
        EXPECT_EQ(c.rc, 0) << describe(argv, c);
        return c.rc == 0;
    }

    TempDir dir;
    Original o;
};

// How gtest prints a parameter (and so how ctest lists the test): its name.
void PrintTo(const CorpusFile &f, std::ostream *os)
{
    *os << f.name;
}

} // namespace

TEST(DicomCorpusPresent, Files)
{
    if (corpusFiles().empty())
        GTEST_SKIP() << "no DICOM files under " << kTestdata << ": the corpus tests are skipped";
}

TEST_P(DicomCorpus, Pcwt)
{
    const std::string p = dir / "pcwt.dcm";
    const std::string refusal = validateMessage(o.ref.module, PCWT_DICOM_TARGET_PCWT);
    Proc c;
    if (!compressed(compressArgs(o, {kCompress, "-v", "--verify", o.input, p}), refusal, c))
        return;
    EXPECT_NE(c.out.find("verification passed"), std::string::npos) << c.out;

    // dcmdump reads it
    Proc d = run({"dcmdump", p});
    EXPECT_EQ(d.rc, 0) << d.out;
    EXPECT_NE(d.out.find(PCWT_DICOM_TS_UID), std::string::npos);
    EXPECT_NE(d.out.find("PixelSequence"), std::string::npos);

    // pydicom reads it, up to the raw pixel data
    if (access(kPython.c_str(), X_OK) == 0) {
        d = run({kPython, kPydicomCheck, p, PCWT_DICOM_TS_UID});
        if (d.rc != 77) {
            EXPECT_EQ(d.rc, 0) << d.out;
        }
    }

    const std::set<DcmTagKey> ignore = {DCM_PixelData};
    // dcmdpcwt to Explicit VR Little Endian: every bit, every attribute
    const std::string te = dir / "dec_te.dcm";
    d = run({kDecompress, p, te});
    ASSERT_EQ(d.rc, 0) << d.out;
    {
        DcmFileFormat dec;
        Pixels px;
        ASSERT_EQ(loadPixels(te, px, &dec), "");
        EXPECT_TRUE(px.bytes == o.ref.bytes) << "pixel data differs from DCMTK's decoding of the original";
        EXPECT_EQ(diffAttributes(o.dataset.get(), dec.getDataset(), ignore), "");
    }
    // to Implicit VR Little Endian: the pixels, and the attributes as stock dcmconv +ti writes them
    // (implicit VR loses private VRs and the US/SS choice, for any writer)
    const std::string ti = dir / "dec_ti.dcm";
    d = run({kDecompress, "+ti", p, ti});
    ASSERT_EQ(d.rc, 0) << d.out;
    {
        DcmFileFormat dec;
        Pixels px;
        ASSERT_EQ(loadPixels(ti, px, &dec), "");
        EXPECT_TRUE(px.bytes == o.ref.bytes) << "+ti: pixel data differs from DCMTK's decoding of the original";
        d = run({"dcmconv", "+ti", te, dir / "conv_ti.dcm"});
        ASSERT_EQ(d.rc, 0) << d.out;
        DcmFileFormat conv;
        ASSERT_TRUE(conv.loadFile((dir / "conv_ti.dcm").c_str()).good());
        EXPECT_EQ(diffAttributes(conv.getDataset(), dec.getDataset(), ignore), "") << "+ti";
    }

    // frame-wise decoding returns the same frames
    {
        DPCWTFileFormat ff;
        ASSERT_TRUE(ff.loadFile(p.c_str()).good());
        DcmElement *e = nullptr;
        ASSERT_TRUE(ff.getDataset()->findAndGetElement(DCM_PixelData, e).good());
        const size_t fb = size_t(pcwt_dicom_frame_bytes(&o.ref.module));
        std::vector<uint8_t> buf(fb + 1);
        for (Uint32 fr = 0; fr < o.ref.module.number_of_frames; ++fr) {
            Uint32 start = 0;
            OFString model;
            const OFCondition r = static_cast<DcmPixelData *>(e)->getUncompressedFrame(
                ff.getDataset(), fr, start, buf.data(), Uint32(buf.size()), model);
            ASSERT_TRUE(r.good()) << "frame " << fr << ": " << r.text();
            EXPECT_EQ(std::memcmp(buf.data(), o.ref.bytes.data() + size_t(fr) * fb, fb), 0) << "frame " << fr;
        }
    }

    // stock DCMTK tools with the preload library decompress it identically
    const std::vector<std::vector<std::string>> stock = {{"dcmdjpls", p, dir / "dj.dcm"},
                                                         {"dcmconv", "+te", p, dir / "dc.dcm"}};
    for (const auto &argv : stock) {
        d = run(argv, preloadEnv());
        ASSERT_EQ(d.rc, 0) << describe(argv, d);
        DcmFileFormat dec;
        Pixels px;
        ASSERT_EQ(loadPixels(argv.back(), px, &dec), "");
        EXPECT_TRUE(px.bytes == o.ref.bytes) << argv[0] << " with the preload library: pixel data differs";
        EXPECT_EQ(diffAttributes(o.dataset.get(), dec.getDataset(), ignore), "") << argv[0];
    }
}

TEST_P(DicomCorpus, PcwtEntropy)
{
    const std::string e = dir / "entropy.dcm";
    const std::string refusal = validateMessage(o.ref.module, PCWT_DICOM_TARGET_PCWT);
    Proc c;
    if (!compressed(compressArgs(o, {kCompress, "-v", "--verify", "--profile", "entropy", o.input, e}), refusal, c))
        return;
    EXPECT_NE(c.out.find("(entropy profile)"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("verification passed"), std::string::npos) << c.out;

    // every frame a profile-1 codestream: read by libpcwt, and by pydicom from the raw bytes
    uint64_t entropyBytes = 0;
    EXPECT_EQ(expectProfile(e, PCWT_PROFILE_ENTROPY, o.ref.module.number_of_frames, &entropyBytes), "");
    if (access(kPython.c_str(), X_OK) == 0) {
        const Proc d = run({kPython, kPydicomCheck, e, PCWT_DICOM_TS_UID, "1"});
        if (d.rc != 77) {
            EXPECT_EQ(d.rc, 0) << d.out;
        }
    }

    // dcmdpcwt: every bit of every sample, every attribute
    const std::string te = dir / "dec_entropy.dcm";
    Proc d = run({kDecompress, e, te});
    ASSERT_EQ(d.rc, 0) << d.out;
    {
        DcmFileFormat dec;
        Pixels px;
        ASSERT_EQ(loadPixels(te, px, &dec), "");
        EXPECT_TRUE(px.bytes == o.ref.bytes) << "pixel data differs from DCMTK's decoding of the original";
        EXPECT_EQ(diffAttributes(o.dataset.get(), dec.getDataset(), {DCM_PixelData}), "");
    }

    // against the baseline profile: not larger for grey images (docs/FORMAT.md Sec. 5.1 guarantees
    // it group by group for the same transform and groups; the profiles' defaults differ in lifting
    // order and group shape, which move sizes by tenths of a percent; colour planes differ more:
    // the entropy profile's colour transform), smaller on CT
    const std::string b = dir / "baseline.dcm";
    d = run(compressArgs(o, {kCompress, "--profile", "baseline", o.input, b}));
    ASSERT_EQ(d.rc, 0) << d.out;
    uint64_t baselineBytes = 0;
    EXPECT_EQ(expectProfile(b, PCWT_PROFILE_BASELINE, o.ref.module.number_of_frames, &baselineBytes), "");
    if (o.ref.module.samples_per_pixel == 1) {
        EXPECT_LE(entropyBytes, baselineBytes);
    }
    OFString modality;
    o.dataset->findAndGetOFString(DCM_Modality, modality);
    if (modality == "CT") {
        EXPECT_LT(entropyBytes, baselineBytes) << "CT image: the entropy profile is not smaller";
    }
    std::printf("%s (%s): codestreams %llu bytes (entropy) vs %llu (baseline)\n", GetParam().name.c_str(),
                modality.c_str(), static_cast<unsigned long long>(entropyBytes),
                static_cast<unsigned long long>(baselineBytes));
}

TEST_P(DicomCorpus, Jpegls)
{
    // what JPEG-LS must refuse: the module, or bits above BitsStored in any frame
    std::string refusal = validateMessage(o.ref.module, PCWT_DICOM_TARGET_JPEGLS);
    if (refusal.empty()) {
        pcwt_image_desc desc;
        pcwt_dicom_image_desc(&o.ref.module, &desc);
        const size_t fb = pcwt_image_size(&desc);
        for (size_t fr = 0; fr < o.ref.module.number_of_frames; ++fr)
            if (!pcwt_dicom_high_bits_clean(&desc, o.ref.bytes.data() + fr * fb, nullptr))
                refusal = "bits above BitsStored";
    }
    const std::string j = dir / "jls.dcm";
    Proc c;
    if (!compressed(compressArgs(o, {kCompress, "+el", "--verify", o.input, j}), refusal, c))
        return;
    DcmFileFormat jf;
    ASSERT_TRUE(jf.loadFile(j.c_str()).good());
    EXPECT_EQ(metaTransferSyntax(jf), PCWT_DICOM_JPEGLS_LOSSLESS_UID);

    // stock dcmdjpls (DCMTK's CharLS 1.0) and GDCM decode the same BitsStored-bit values
    const std::vector<uint8_t> want = valuesInterleaved(o.ref);
    Proc d = run({"dcmdjpls", j, dir / "dj.dcm"});
    ASSERT_EQ(d.rc, 0) << d.out;
    DcmFileFormat dj;
    Pixels a;
    ASSERT_EQ(loadPixels(dir / "dj.dcm", a, &dj), "");
    EXPECT_TRUE(valuesInterleaved(a) == want) << "dcmdjpls decodes other values";
    // attributes: only PlanarConfiguration may change (CP 1843: 0 for JPEG-LS colour)
    EXPECT_EQ(diffAttributes(o.dataset.get(), dj.getDataset(), {DCM_PixelData, DCM_PlanarConfiguration}), "");

    if (!onPath("gdcmconv"))
        GTEST_SKIP() << "gdcmconv (libgdcm-tools) not installed: GDCM decoding not checked";
    d = run({"gdcmconv", "--raw", j, dir / "gd.dcm"});
    ASSERT_EQ(d.rc, 0) << d.out;
    Pixels b;
    ASSERT_EQ(loadPixels(dir / "gd.dcm", b), "");
    EXPECT_TRUE(valuesInterleaved(b) == want) << "gdcmconv decodes other values";
    EXPECT_TRUE(valuesInterleaved(a) == valuesInterleaved(b));
}

INSTANTIATE_TEST_SUITE_P(Corpus, DicomCorpus, ::testing::ValuesIn(corpusFiles()),
                         [](const ::testing::TestParamInfo<CorpusFile> &i) { return i.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DicomCorpus);
