// Tests of the tools dcmcpcwt and dcmdpcwt and of libdcmpcwt_preload.so with stock DCMTK tools, on
// synthetic files: the DCMTK option conventions, --verify, the SOP Instance UID policy, the coding
// profile (--profile, also on the sample CT study shipped in samples/ct_study), and hostile
// inputs (truncated files, short pixel data, corrupt fragments, 46341 x 46341, unsupported transfer
// syntaxes), which must give an error, a non-zero exit and nothing at the output path.
#include "dicom_test_util.h"

#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"

#include <algorithm>

using namespace dt;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

const std::string kCompress = DCMCPCWT_PATH;
const std::string kDecompress = DCMDPCWT_PATH;
const std::string kPython = PYTHON_PATH;
const std::string kPydicomCheck = PYDICOM_CHECK_PATH;
const std::string kSamples = PCWT_SAMPLES_DIR;

// A native 16-bit image written to dir/name (Explicit VR Little Endian).
std::vector<uint8_t> writeNative(const TempDir &dir, const std::string &name, ImageSpec s)
{
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
    EXPECT_TRUE(ff->saveFile((dir / name).c_str(), EXS_LittleEndianExplicit).good());
    return samples;
}

ImageSpec ct(int frames = 1)
{
    ImageSpec s;
    s.rows = 96;
    s.columns = 80;
    s.bs = 12;
    s.hb = 11;
    s.frames = frames;
    return s;
}

// The failure contract: non-zero exit, a message, nothing at the output path and no temp files.
void expectRefusal(const TempDir &dir, const std::vector<std::string> &argv, const std::string &out,
                   const std::set<std::string> &keep, const std::string &needle = "")
{
    const Proc p = run(argv);
    EXPECT_NE(p.rc, 0) << describe(argv, p);
    EXPECT_LT(p.rc, 128) << "crashed: " << describe(argv, p);
    EXPECT_NE(p.out.find("F: "), std::string::npos) << "no error message: " << describe(argv, p);
    if (!needle.empty()) {
        EXPECT_NE(p.out.find(needle), std::string::npos) << describe(argv, p);
    }
    EXPECT_FALSE(exists(out)) << "output left behind: " << describe(argv, p);
    EXPECT_TRUE(dir.others(keep).empty()) << "temporary files left behind";
}

// The lines of a tool's output that start with "error:" (OFConsoleApplication::printError)
std::vector<std::string> errorLines(const std::string &out)
{
    std::vector<std::string> r;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, 6, "error:") == 0)
            r.push_back(line);
    return r;
}

// pydicom (an independent reader) finds one codestream per frame, each declaring profile
void expectPydicomProfile(const std::string &path, pcwt_profile profile)
{
    if (access(kPython.c_str(), X_OK) != 0)
        return;
    const Proc p = run({kPython, kPydicomCheck, path, PCWT_DICOM_TS_UID, std::to_string(int(profile))});
    if (p.rc != 77) {
        EXPECT_EQ(p.rc, 0) << p.out;
    }
}

} // namespace

TEST(DicomTools, HelpVersionAndOptionErrors)
{
    Proc p = run({kCompress, "--help"});
    EXPECT_EQ(p.rc, 0);
    for (const char *opt : {"--encode-pcwt", "--encode-jpegls", "--verify", "--uid-always", "--accept-lossy",
                            "--levels", "--profile", "baseline | entropy", "--verbose", "--debug"})
        EXPECT_NE(p.out.find(opt), std::string::npos) << opt;
    p = run({kCompress, "--version"});
    EXPECT_EQ(p.rc, 0);
    EXPECT_NE(p.out.find(PCWT_DICOM_TS_UID), std::string::npos) << p.out;
    p = run({kDecompress, "--help"});
    EXPECT_EQ(p.rc, 0);
    EXPECT_NE(p.out.find("--write-xfer-implicit"), std::string::npos);
    p = run({kCompress, "+lv", "11", "a", "b"});
    EXPECT_NE(p.rc, 0) << p.out;
    p = run({kCompress, "onlyone"});
    EXPECT_NE(p.rc, 0) << p.out;
}

TEST(DicomTools, RoundTripVerifyAndUidPolicy)
{
    TempDir dir;
    const std::vector<uint8_t> samples = writeNative(dir, "in.dcm", ct(3));
    Proc p = run({kCompress, "-v", "--verify", dir / "in.dcm", dir / "p.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("verification passed"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("ratio"), std::string::npos) << p.out;
    p = run({kDecompress, dir / "p.dcm", dir / "d.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    Pixels px;
    ASSERT_EQ(loadPixels(dir / "d.dcm", px), "");
    EXPECT_TRUE(px.bytes == samples);
    // implicit VR output
    p = run({kDecompress, "+ti", dir / "p.dcm", dir / "di.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    DcmFileFormat di;
    ASSERT_TRUE(di.loadFile((dir / "di.dcm").c_str()).good());
    EXPECT_EQ(metaTransferSyntax(di), UID_LittleEndianImplicitTransferSyntax);

    // SOP Instance UID: kept by default, new with +ua (both directions)
    DcmFileFormat in, pf, ua;
    ASSERT_TRUE(in.loadFile((dir / "in.dcm").c_str()).good());
    ASSERT_TRUE(pf.loadFile((dir / "p.dcm").c_str()).good());
    OFString a, b, c;
    in.getDataset()->findAndGetOFString(DCM_SOPInstanceUID, a);
    pf.getDataset()->findAndGetOFString(DCM_SOPInstanceUID, b);
    EXPECT_EQ(a, b);
    p = run({kCompress, "+ua", dir / "in.dcm", dir / "pua.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    ASSERT_TRUE(ua.loadFile((dir / "pua.dcm").c_str()).good());
    ua.getDataset()->findAndGetOFString(DCM_SOPInstanceUID, c);
    EXPECT_NE(a, c);
    OFString metaUid;
    ua.getMetaInfo()->findAndGetOFString(DCM_MediaStorageSOPInstanceUID, metaUid);
    EXPECT_EQ(metaUid, c);

    // JPEG-LS output, and re-coding a PCWT file (input of the private syntax) to JPEG-LS
    p = run({kCompress, "+el", "--verify", dir / "p.dcm", dir / "j.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    DcmFileFormat jf;
    ASSERT_TRUE(jf.loadFile((dir / "j.dcm").c_str()).good());
    EXPECT_EQ(metaTransferSyntax(jf), PCWT_DICOM_JPEGLS_LOSSLESS_UID);
    // and PCWT options
    p = run({kCompress, "+lv", "0", "+gs", "4", "8", "+bc", "--verify", dir / "in.dcm", dir / "p2.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
}

// The tools' backend options reach the PCWT codecs: with none (+ba) a small image is coded and
// decoded on the CPU (no GPU context: no line of PCWT_GPU_TRACE), also by a stock tool with the
// preload library (the decoder codec's rule); +bg takes the GPU where a device is (its trace
// lines) and is refused with a message where none is; +bc is the CPU.
TEST(DicomTools, BackendOptions)
{
    TempDir dir;
    const std::vector<uint8_t> samples = writeNative(dir, "in.dcm", ct(2));
    const std::vector<std::string> env = {"PCWT_GPU_TRACE=1", "PCWT_BACKEND="};
    pcwt_decoder *probe = pcwt_decoder_create();
    const bool gpu = pcwt_decoder_set_backend(probe, PCWT_BACKEND_GPU) == PCWT_OK;
    pcwt_decoder_destroy(probe);
    Proc p = run({kCompress, dir / "in.dcm", dir / "a.dcm"}, env);
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_EQ(p.out.find("pcwt gpu"), std::string::npos) << "a small image went to the GPU: " << p.out;
    for (const char *b : {"+bc", "+ba"}) {
        const std::string out = dir / (std::string("d") + (b + 1) + ".dcm");
        p = run({kDecompress, b, dir / "a.dcm", out}, env);
        ASSERT_EQ(p.rc, 0) << b << ": " << p.out;
        EXPECT_EQ(p.out.find("pcwt gpu"), std::string::npos) << b << ": the GPU decoded: " << p.out;
        Pixels px;
        ASSERT_EQ(loadPixels(out, px), "");
        EXPECT_TRUE(px.bytes == samples) << b;
    }
    std::vector<std::string> penv = preloadEnv();
    penv.insert(penv.end(), env.begin(), env.end());
    p = run({"dcmdjpls", dir / "a.dcm", dir / "dp.dcm"}, penv);
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_EQ(p.out.find("pcwt gpu"), std::string::npos) << "the preload library decoded on the GPU: " << p.out;
    Pixels pp;
    ASSERT_EQ(loadPixels(dir / "dp.dcm", pp), "");
    EXPECT_TRUE(pp.bytes == samples);
    p = run({kCompress, "+bg", dir / "in.dcm", dir / "g.dcm"}, env);
    Proc q = run({kDecompress, "+bg", dir / "a.dcm", dir / "dg.dcm"}, env);
    if (!gpu) {
        EXPECT_NE(p.rc, 0) << "+bg without a GPU: " << p.out;
        EXPECT_NE(q.rc, 0) << "+bg without a GPU: " << q.out;
        EXPECT_NE(q.out.find("GPU"), std::string::npos) << q.out;
        return;
    }
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("pcwt gpu encode host"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(dir / "g.dcm") == readBytes(dir / "a.dcm")) << "GPU and CPU files differ";
    ASSERT_EQ(q.rc, 0) << q.out;
    EXPECT_NE(q.out.find("pcwt gpu decode host"), std::string::npos) << q.out;
    Pixels px;
    ASSERT_EQ(loadPixels(dir / "dg.dcm", px), "");
    EXPECT_TRUE(px.bytes == samples);
}

TEST(DicomTools, OverwritesOnlyOnSuccess)
{
    TempDir dir;
    writeNative(dir, "in.dcm", ct());
    writeBytes(dir / "out.dcm", {'o', 'l', 'd'});
    // a failing run leaves the existing file alone
    Proc p = run({kCompress, dir / "missing.dcm", dir / "out.dcm"});
    EXPECT_NE(p.rc, 0);
    EXPECT_EQ(readBytes(dir / "out.dcm"), (std::vector<uint8_t>{'o', 'l', 'd'}));
    // a successful one replaces it
    p = run({kCompress, dir / "in.dcm", dir / "out.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    EXPECT_GT(readBytes(dir / "out.dcm").size(), 100u);
    EXPECT_TRUE(dir.others({"in.dcm", "out.dcm"}).empty());
    // an output folder that does not exist
    p = run({kCompress, dir / "in.dcm", dir / "no/such/dir/out.dcm"});
    EXPECT_NE(p.rc, 0);
}

TEST(DicomHostile, TruncatedFiles)
{
    TempDir dir;
    writeNative(dir, "in.dcm", ct(2));
    ASSERT_EQ(run({kCompress, dir / "in.dcm", dir / "p.dcm"}).rc, 0);
    const std::vector<uint8_t> native = readBytes(dir / "in.dcm");
    const std::vector<uint8_t> pcwt = readBytes(dir / "p.dcm");
    const std::set<std::string> keep = {"in.dcm", "p.dcm", "tn.dcm", "tp.dcm"};
    for (double frac : {0.9, 0.5, 0.2}) {
        writeBytes(dir / "tn.dcm", std::vector<uint8_t>(native.begin(), native.begin() + long(double(native.size()) * frac)));
        writeBytes(dir / "tp.dcm", std::vector<uint8_t>(pcwt.begin(), pcwt.begin() + long(double(pcwt.size()) * frac)));
        SCOPED_TRACE(frac);
        expectRefusal(dir, {kCompress, dir / "tn.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
        expectRefusal(dir, {kDecompress, dir / "tp.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
        expectRefusal(dir, {kCompress, dir / "tp.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
        // stock dcmdjpls with the preload library: an error, no crash
        const Proc p = run({"dcmdjpls", dir / "tp.dcm", dir / "o.dcm"}, preloadEnv());
        EXPECT_NE(p.rc, 0) << p.out;
        EXPECT_LT(p.rc, 128) << "crashed: " << p.out;
        std::remove((dir / "o.dcm").c_str());
    }
    // a PCWT file cut inside the last fragment's codestream (the file ends early)
    writeBytes(dir / "tp.dcm", std::vector<uint8_t>(pcwt.begin(), pcwt.end() - 40));
    expectRefusal(dir, {kDecompress, dir / "tp.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
}

TEST(DicomHostile, PixelDataShorterThanDeclared)
{
    TempDir dir;
    ImageSpec s = ct();
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
    // half the pixel data
    std::vector<Uint16> half(samples.size() / 4);
    std::memcpy(half.data(), samples.data(), half.size() * 2);
    ff->getDataset()->putAndInsertUint16Array(DCM_PixelData, half.data(), static_cast<unsigned long>(half.size()));
    ASSERT_TRUE(ff->saveFile((dir / "short.dcm").c_str(), EXS_LittleEndianExplicit).good());
    expectRefusal(dir, {kCompress, dir / "short.dcm", dir / "o.dcm"}, dir / "o.dcm", {"short.dcm"}, "Pixel Data holds");
    expectRefusal(dir, {kCompress, "+el", dir / "short.dcm", dir / "o.dcm"}, dir / "o.dcm", {"short.dcm"},
                  "Pixel Data holds");
}

TEST(DicomHostile, CorruptFragments)
{
    TempDir dir;
    const std::vector<uint8_t> samples = writeNative(dir, "in.dcm", ct(2));
    ASSERT_EQ(run({kCompress, dir / "in.dcm", dir / "p.dcm"}).rc, 0);
    const std::vector<uint8_t> good = readBytes(dir / "p.dcm");
    static const uint8_t magic[] = {'P', 'C', 'W', 'T', 1}; // magic and format version
    // the second frame's codestream
    auto first = std::search(good.begin(), good.end(), magic, magic + 5);
    auto second = std::search(first + 5, good.end(), magic, magic + 5);
    ASSERT_NE(second, good.end());
    const std::set<std::string> keep = {"in.dcm", "p.dcm", "c.dcm"};
    const size_t positions[] = {size_t(first - good.begin()) + 300, size_t(second - good.begin()) + 100,
                                size_t(second - good.begin()) + 2 /* magic */, size_t(first - good.begin()) + 12};
    for (size_t pos : positions) {
        std::vector<uint8_t> b = good;
        b[pos] ^= 0x40;
        writeBytes(dir / "c.dcm", b);
        SCOPED_TRACE(pos);
        expectRefusal(dir, {kDecompress, dir / "c.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
        expectRefusal(dir, {kCompress, dir / "c.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
        const Proc p = run({"dcmdjpls", dir / "c.dcm", dir / "o.dcm"}, preloadEnv());
        EXPECT_NE(p.rc, 0) << p.out;
        EXPECT_LT(p.rc, 128) << "crashed: " << p.out;
        std::remove((dir / "o.dcm").c_str());
    }
    // frame-wise decoding of the intact frame still works, the corrupt one fails
    std::vector<uint8_t> b = good;
    b[size_t(second - good.begin()) + 100] ^= 0x40;
    writeBytes(dir / "c.dcm", b);
    DPCWTFileFormat ff;
    ASSERT_TRUE(ff.loadFile((dir / "c.dcm").c_str()).good());
    DcmElement *e = nullptr;
    ASSERT_TRUE(ff.getDataset()->findAndGetElement(DCM_PixelData, e).good());
    const size_t fb = frameBytes(ct());
    std::vector<uint8_t> buf(fb);
    Uint32 start = 0;
    OFString model;
    EXPECT_TRUE(static_cast<DcmPixelData *>(e)
                    ->getUncompressedFrame(ff.getDataset(), 0, start, buf.data(), Uint32(fb), model)
                    .good());
    EXPECT_EQ(std::memcmp(buf.data(), samples.data(), fb), 0);
    start = 0;
    EXPECT_TRUE(static_cast<DcmPixelData *>(e)
                    ->getUncompressedFrame(ff.getDataset(), 1, start, buf.data(), Uint32(fb), model)
                    .bad());
}

TEST(DicomHostile, Declares46341x46341)
{
    TempDir dir;
    for (uint16_t ba : {uint16_t(16), uint16_t(8)}) {
        ImageSpec s = ct();
        s.ba = ba;
        s.bs = ba == 8 ? 8 : 12;
        s.hb = static_cast<uint16_t>(s.bs - 1);
        const std::vector<uint8_t> samples = makeSamples(s);
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
        ff->getDataset()->putAndInsertUint16(DCM_Rows, 46341);
        ff->getDataset()->putAndInsertUint16(DCM_Columns, 46341);
        const std::string name = "big" + std::to_string(ba) + ".dcm";
        ASSERT_TRUE(ff->saveFile((dir / name).c_str(), EXS_LittleEndianExplicit).good());
        SCOPED_TRACE(name);
        // native input: too large (16 bits) or pixel data shorter than declared (8 bits)
        expectRefusal(dir, {kCompress, dir / name, dir / "o.dcm"}, dir / "o.dcm", {"big16.dcm", "big8.dcm", "pb.dcm"});

        // a PCWT file whose header then declares 46341 x 46341
        std::unique_ptr<DcmFileFormat> ok(makeFile(s, samples));
        DPCWTRepresentationParameter rp;
        ASSERT_TRUE(ok->getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp).good());
        ok->getDataset()->putAndInsertUint16(DCM_Rows, 46341);
        ok->getDataset()->putAndInsertUint16(DCM_Columns, 46341);
        DPCWTFileFormat pf(ok->getDataset());
        ASSERT_TRUE(pf.saveFile((dir / "pb.dcm").c_str(), DPCWT_CARRIER_XFER).good());
        expectRefusal(dir, {kDecompress, dir / "pb.dcm", dir / "o.dcm"}, dir / "o.dcm", {"big16.dcm", "big8.dcm", "pb.dcm"});
        const Proc p = run({"dcmdjpls", dir / "pb.dcm", dir / "o.dcm"}, preloadEnv());
        EXPECT_NE(p.rc, 0) << p.out;
        EXPECT_LT(p.rc, 128) << "crashed: " << p.out;
        std::remove((dir / "o.dcm").c_str());
    }
}

TEST(DicomHostile, UnsupportedTransferSyntaxes)
{
    TempDir dir;
    writeNative(dir, "in.dcm", ct());
    ASSERT_EQ(run({kCompress, "+el", dir / "in.dcm", dir / "j.dcm"}).rc, 0);
    // an unknown UID on encapsulated data
    DcmFileFormat f;
    ASSERT_TRUE(f.loadFile((dir / "j.dcm").c_str()).good());
    f.getMetaInfo()->putAndInsertString(DCM_TransferSyntaxUID, "1.2.3.4.5.6.7.8");
    ASSERT_TRUE(f.saveFile((dir / "u.dcm").c_str(), EXS_JPEGLSLossless, EET_ExplicitLength, EGL_recalcGL,
                           EPD_noChange, 0, 0, EWM_dontUpdateMeta)
                    .good());
    const std::set<std::string> keep = {"in.dcm", "j.dcm", "u.dcm", "x.dcm"};
    expectRefusal(dir, {kCompress, dir / "u.dcm", dir / "o.dcm"}, dir / "o.dcm", keep, "unsupported transfer syntax");
    expectRefusal(dir, {kDecompress, dir / "u.dcm", dir / "o.dcm"}, dir / "o.dcm", keep, "unsupported transfer syntax");
    // a JPEG-LS codestream under the PCWT UID
    f.getMetaInfo()->putAndInsertString(DCM_TransferSyntaxUID, PCWT_DICOM_TS_UID);
    ASSERT_TRUE(f.saveFile((dir / "x.dcm").c_str(), EXS_JPEGLSLossless, EET_ExplicitLength, EGL_recalcGL,
                           EPD_noChange, 0, 0, EWM_dontUpdateMeta)
                    .good());
    expectRefusal(dir, {kDecompress, dir / "x.dcm", dir / "o.dcm"}, dir / "o.dcm", keep, "JPEG");
    expectRefusal(dir, {kCompress, dir / "x.dcm", dir / "o.dcm"}, dir / "o.dcm", keep);
    // a lossy compressed input is refused unless accepted
    ImageSpec s = ct();
    s.ba = 8;
    s.bs = 8;
    s.hb = 7;
    writeNative(dir, "in8.dcm", s);
    const Proc p = run({"dcmcjpeg", "+eb", dir / "in8.dcm", dir / "lossy.dcm"}); // JPEG baseline
    if (p.rc == 0) {
        const std::set<std::string> keep2 = {"in.dcm", "j.dcm", "u.dcm", "x.dcm", "in8.dcm", "lossy.dcm", "ok.dcm"};
        expectRefusal(dir, {kCompress, dir / "lossy.dcm", dir / "o.dcm"}, dir / "o.dcm", keep2, "lossy");
        const Proc q = run({kCompress, "+al", dir / "lossy.dcm", dir / "ok.dcm"});
        EXPECT_EQ(q.rc, 0) << q.out;
    }
    // 32 bits allocated
    ImageSpec s32 = ct();
    std::unique_ptr<DcmFileFormat> ff(makeFile(s32, makeSamples(s32)));
    ff->getDataset()->putAndInsertUint16(DCM_BitsAllocated, 32);
    ff->getDataset()->putAndInsertUint16(DCM_BitsStored, 32);
    ff->getDataset()->putAndInsertUint16(DCM_HighBit, 31);
    ff->getDataset()->putAndInsertUint16(DCM_Rows, 48);
    ASSERT_TRUE(ff->saveFile((dir / "b32.dcm").c_str(), EXS_LittleEndianExplicit).good());
    const std::set<std::string> keep3 = {"in.dcm", "j.dcm", "u.dcm", "x.dcm", "in8.dcm", "lossy.dcm", "ok.dcm", "b32.dcm"};
    expectRefusal(dir, {kCompress, dir / "b32.dcm", dir / "o.dcm"}, dir / "o.dcm", keep3, "BitsAllocated 32");
}

// --profile entropy: every frame coded in profile 1 (read from each codestream's header, by libpcwt
// and by pydicom), decoded back by dcmdpcwt to the same words, every bit, with the same attributes;
// on synthetic images of the kinds the codec takes. --profile baseline: profile 0; the default:
// profile 2 (compact).
TEST(DicomTools, ProfileEntropyRoundTrip)
{
    struct Case {
        const char *name;
        ImageSpec spec;
        std::vector<std::string> options;
    };
    std::vector<Case> cases;
    cases.push_back({"ct12_3frames", ct(3), {}});
    {
        ImageSpec s = ct(2);
        s.pr = 1;
        s.fill = ImageSpec::SignExtended;
        cases.push_back({"signed12_sign_extended", s, {}});
    }
    {
        ImageSpec s = ct();
        s.fill = ImageSpec::DirtyHighBits;
        cases.push_back({"u12_dirty_high_bits", s, {}});
    }
    {
        ImageSpec s = ct();
        s.bs = 16;
        s.hb = 15;
        s.pr = 1;
        s.fill = ImageSpec::Random;
        cases.push_back({"s16_random", s, {}});
    }
    {
        ImageSpec s = ct();
        s.ba = s.bs = 8;
        s.hb = 7;
        cases.push_back({"mono8", s, {}});
    }
    for (uint16_t planar : {uint16_t(0), uint16_t(1)}) {
        ImageSpec s = ct(2);
        s.spp = 3;
        s.ba = s.bs = 8;
        s.hb = 7;
        s.photometric = "RGB";
        s.planar = planar;
        cases.push_back({planar ? "rgb8_planar" : "rgb8_interleaved", s, {}});
    }
    cases.push_back({"ct12_levels0_groups4x8", ct(2), {"+lv", "0", "+gs", "4", "8", "+bc"}});

    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        TempDir dir;
        const std::vector<uint8_t> samples = writeNative(dir, "in.dcm", c.spec);
        DcmFileFormat in;
        ASSERT_TRUE(in.loadFile((dir / "in.dcm").c_str()).good());
        const uint64_t frames = uint64_t(c.spec.frames);
        uint64_t bytes[2] = {0, 0};
        struct Run {
            std::vector<std::string> profileArgs;
            pcwt_profile expected;
            const char *out;
        };
        const Run runs[] = {{{"--profile", "entropy"}, PCWT_PROFILE_ENTROPY, "e.dcm"},
                            {{"+pr", "baseline"}, PCWT_PROFILE_BASELINE, "b.dcm"},
                            {{}, PCWT_PROFILE_COMPACT, "d.dcm"}};
        for (const Run &r : runs) {
            SCOPED_TRACE(r.out);
            std::vector<std::string> argv = {kCompress, "-v", "--verify"};
            argv.insert(argv.end(), c.options.begin(), c.options.end());
            argv.insert(argv.end(), r.profileArgs.begin(), r.profileArgs.end());
            argv.push_back(dir / "in.dcm");
            argv.push_back(dir / r.out);
            Proc p = run(argv);
            ASSERT_EQ(p.rc, 0) << describe(argv, p);
            EXPECT_NE(p.out.find("verification passed"), std::string::npos) << p.out;
            EXPECT_NE(p.out.find(std::string("(") + pcwt_profile_name(r.expected) + " profile)"), std::string::npos)
                << p.out;
            uint64_t cs = 0;
            const bool default_groups = std::find(c.options.begin(), c.options.end(), "+gs") == c.options.end();
            EXPECT_EQ(expectProfile(dir / r.out, r.expected, frames, &cs, default_groups), "");
            if (r.profileArgs.size())
                bytes[r.expected] = cs;
            if (r.expected == PCWT_PROFILE_ENTROPY)
                expectPydicomProfile(dir / r.out, r.expected);

            // dcmdpcwt decodes it to the original words and attributes
            const std::string dec = dir / (std::string("dec_") + r.out);
            p = run({kDecompress, dir / r.out, dec});
            ASSERT_EQ(p.rc, 0) << p.out;
            DcmFileFormat df;
            Pixels px;
            ASSERT_EQ(loadPixels(dec, px, &df), "");
            EXPECT_TRUE(px.bytes == samples) << "pixel data differs from the original";
            EXPECT_EQ(diffAttributes(in.getDataset(), df.getDataset(), {DCM_PixelData}), "");
        }
        // a profile-1 plane is never larger than the baseline plane (docs/FORMAT.md Sec. 5.1);
        // colour planes differ between the profiles (the entropy profile's colour transform)
        if (c.spec.spp == 1) {
            EXPECT_LE(bytes[PCWT_PROFILE_ENTROPY], bytes[PCWT_PROFILE_BASELINE]);
        }
    }
}

// The real CT slices shipped in samples/ct_study: the entropy profile gives profile-1 codestreams
// that are smaller than the baseline's, and both decode to DCMTK's reading of the original.
TEST(DicomTools, ProfileEntropySmallerOnSampleCT)
{
    const std::string study = kSamples + "/ct_study";
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(study, ec))
        if (e.path().extension() == ".dcm")
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty()) << "no sample CT slices under " << study;
    for (const std::string &f : files) {
        SCOPED_TRACE(f);
        TempDir dir;
        Pixels ref;
        DcmFileFormat orig;
        ASSERT_EQ(loadPixels(f, ref, &orig), "");
        OFString modality;
        orig.getDataset()->findAndGetOFString(DCM_Modality, modality);
        ASSERT_EQ(std::string(modality.c_str()), "CT");
        uint64_t cs[2] = {0, 0}, fileBytes[2] = {0, 0};
        for (const pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY}) {
            const std::string name = profile == PCWT_PROFILE_ENTROPY ? "entropy" : "baseline";
            const std::string out = dir / (name + ".dcm");
            Proc p = run({kCompress, "--verify", "--profile", name, f, out});
            ASSERT_EQ(p.rc, 0) << p.out;
            EXPECT_EQ(expectProfile(out, profile, ref.module.number_of_frames, &cs[profile]), "");
            fileBytes[profile] = readBytes(out).size();
            p = run({kDecompress, out, dir / ("dec_" + name + ".dcm")});
            ASSERT_EQ(p.rc, 0) << p.out;
            Pixels px;
            ASSERT_EQ(loadPixels(dir / ("dec_" + name + ".dcm"), px), "");
            EXPECT_TRUE(px.bytes == ref.bytes) << name << ": pixel data differs from the original";
        }
        expectPydicomProfile(dir / "entropy.dcm", PCWT_PROFILE_ENTROPY);
        EXPECT_LT(cs[PCWT_PROFILE_ENTROPY], cs[PCWT_PROFILE_BASELINE]);
        EXPECT_LT(fileBytes[PCWT_PROFILE_ENTROPY], fileBytes[PCWT_PROFILE_BASELINE]);
        std::printf("%s: codestream %llu bytes (entropy) vs %llu (baseline)\n", fs::path(f).filename().c_str(),
                    static_cast<unsigned long long>(cs[PCWT_PROFILE_ENTROPY]),
                    static_cast<unsigned long long>(cs[PCWT_PROFILE_BASELINE]));
    }
}

// An unknown profile, a missing value, or --profile with JPEG-LS output: a one-line error, a
// non-zero exit, nothing at the output path.
TEST(DicomTools, ProfileOptionErrors)
{
    TempDir dir;
    writeNative(dir, "in.dcm", ct());
    const std::string out = dir / "o.dcm";
    struct Bad {
        std::vector<std::string> args;
        std::string needle;
    };
    const Bad bad[] = {{{"--profile", "fast"}, "'fast'"},
                       {{"+pr", "1"}, "'1'"},
                       {{"--profile", "Entropy"}, "'Entropy'"},
                       {{"--profile", ""}, "''"},
                       {{"+el", "--profile", "entropy"}, "--encode-jpegls"}};
    for (const Bad &b : bad) {
        std::vector<std::string> argv = {kCompress};
        argv.insert(argv.end(), b.args.begin(), b.args.end());
        argv.push_back(dir / "in.dcm");
        argv.push_back(out);
        const Proc p = run(argv);
        EXPECT_NE(p.rc, 0) << describe(argv, p);
        EXPECT_LT(p.rc, 128) << "crashed: " << describe(argv, p);
        const std::vector<std::string> errors = errorLines(p.out);
        ASSERT_EQ(errors.size(), 1u) << describe(argv, p);
        EXPECT_NE(errors[0].find("--profile"), std::string::npos) << errors[0];
        EXPECT_NE(errors[0].find(b.needle), std::string::npos) << errors[0];
        EXPECT_FALSE(exists(out)) << describe(argv, p);
        EXPECT_TRUE(dir.others({"in.dcm"}).empty()) << "files left behind: " << describe(argv, p);
    }
    // the value missing altogether
    const Proc p = run({kCompress, dir / "in.dcm", out, "--profile"});
    EXPECT_NE(p.rc, 0) << p.out;
    EXPECT_EQ(errorLines(p.out).size(), 1u) << p.out;
    EXPECT_FALSE(exists(out));
}
