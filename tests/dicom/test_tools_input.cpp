// Issue 37: native Pixel Data whose length is not what the image pixel module declares (Rows
// halved, BitsAllocated 8 on 16-bit words, 1000 extra bytes) is refused by every encoder with a
// condition callers can tell apart (DPCWTIsPixelDataLengthError); invalid pixel modules are
// failures (EPCEC_InvalidImage), not 'unsupported'; a PCWT file cut before its Pixel Data fails
// in dcmdpcwt; BitsStored 1 (masks) goes to JPEG-LS losslessly and stock dcmdjpls reads it.
#include "dicom_test_util.h"

#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"

using namespace dt;

namespace {

const std::string kCompress = DCMCPCWT_PATH;
const std::string kDecompress = DCMDPCWT_PATH;

ImageSpec ct16()
{
    ImageSpec s;
    s.rows = 64;
    s.columns = 48;
    return s; // 16/16/15, the layout of the CT series of issue 37
}

// lines the tool printed as errors (E: or F:)
size_t errorLineCount(const std::string &out)
{
    std::istringstream in(out);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line))
        if (line.compare(0, 3, "F: ") == 0 || line.compare(0, 3, "E: ") == 0)
            ++n;
    return n;
}

void expectToolRefuses(const TempDir &dir, const std::vector<std::string> &argv, const std::string &needle)
{
    const std::string out = dir / "o.dcm";
    std::vector<std::string> a = argv;
    a.push_back(out);
    const Proc p = run(a);
    EXPECT_NE(p.rc, 0) << describe(a, p);
    EXPECT_LT(p.rc, 128) << "crashed: " << describe(a, p);
    EXPECT_EQ(errorLineCount(p.out), 1u) << "not one error line: " << describe(a, p);
    EXPECT_NE(p.out.find(needle), std::string::npos) << describe(a, p);
    EXPECT_FALSE(exists(out)) << "output left behind: " << describe(a, p);
    for (const auto &e : fs::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

// the condition the PCWT and JPEG-LS encoders return for the data set in process
OFCondition encodeInProcess(DcmFileFormat &ff, E_TransferSyntax xfer)
{
    DPCWTRepresentationParameter rp;
    return ff.getDataset()->chooseRepresentation(xfer, &rp);
}

} // namespace

TEST(DicomInput, PixelDataLengthMismatchRefused)
{
    TempDir dir;
    const ImageSpec s = ct16();
    const std::vector<uint8_t> samples = makeSamples(s);
    struct Case {
        const char *name;
        void (*edit)(DcmDataset *, const std::vector<uint8_t> &);
    };
    const Case cases[] = {
        {"rows_halved.dcm", [](DcmDataset *ds, const std::vector<uint8_t> &) { ds->putAndInsertUint16(DCM_Rows, 32); }},
        {"ba8.dcm",
         [](DcmDataset *ds, const std::vector<uint8_t> &) {
             ds->putAndInsertUint16(DCM_BitsAllocated, 8);
             ds->putAndInsertUint16(DCM_BitsStored, 8);
             ds->putAndInsertUint16(DCM_HighBit, 7);
         }},
        {"extra1000.dcm",
         [](DcmDataset *ds, const std::vector<uint8_t> &px) {
             std::vector<Uint16> w(px.size() / 2 + 500, 0x1234);
             std::memcpy(w.data(), px.data(), px.size());
             ds->putAndInsertUint16Array(DCM_PixelData, w.data(), static_cast<unsigned long>(w.size()));
         }},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
        c.edit(ff->getDataset(), samples);
        ASSERT_TRUE(ff->saveFile((dir / c.name).c_str(), EXS_LittleEndianExplicit).good());
        expectToolRefuses(dir, {kCompress, dir / c.name}, "Pixel Data holds");
        expectToolRefuses(dir, {kCompress, "+el", dir / c.name}, "Pixel Data holds");
        // what pcwt-storescp and pcwt-recompress see: the codec's own condition, recognisable
        for (E_TransferSyntax x : {DPCWT_CARRIER_XFER, EXS_JPEGLSLossless}) {
            DcmFileFormat in;
            ASSERT_TRUE(in.loadFile((dir / c.name).c_str()).good());
            const OFCondition cond = encodeInProcess(in, x);
            EXPECT_TRUE(DPCWTIsPixelDataLengthError(cond)) << cond.module() << "/" << cond.code() << ": " << cond.text();
        }
    }
    // the exact length, and an odd total with its one pad byte, are accepted
    std::unique_ptr<DcmFileFormat> ok(makeFile(s, samples));
    EXPECT_TRUE(encodeInProcess(*ok, DPCWT_CARRIER_XFER).good());
    ImageSpec odd = s;
    odd.rows = odd.columns = 7;
    odd.ba = 8;
    odd.bs = 8;
    odd.hb = 7;
    const std::vector<uint8_t> oddSamples = makeSamples(odd); // 49 bytes: DCMTK pads to 50
    std::unique_ptr<DcmFileFormat> padded(makeFile(odd, oddSamples));
    ASSERT_TRUE(padded->saveFile((dir / "odd.dcm").c_str(), EXS_LittleEndianExplicit).good());
    const Proc p = run({kCompress, "--verify", dir / "odd.dcm", dir / "odd.pcwt"});
    EXPECT_EQ(p.rc, 0) << p.out;
}

TEST(DicomInput, InvalidModulesAreFailures)
{
    TempDir dir;
    const ImageSpec s = ct16();
    const std::vector<uint8_t> samples = makeSamples(s);
    const std::pair<DcmTagKey, Uint16> edits[] = {
        {DCM_BitsAllocated, 0}, {DCM_SamplesPerPixel, 0}, {DCM_SamplesPerPixel, 2}};
    for (const auto &e : edits) {
        SCOPED_TRACE(std::string(DcmTag(e.first).getTagName()) + " " + std::to_string(e.second));
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
        ff->getDataset()->putAndInsertUint16(e.first, e.second);
        ASSERT_TRUE(ff->saveFile((dir / "bad.dcm").c_str(), EXS_LittleEndianExplicit).good());
        expectToolRefuses(dir, {kCompress, dir / "bad.dcm"}, "invalid");
        // pcwt-recompress reports EPCEC_UnsupportedImage as 'unsupported' with exit 0: must not be that
        DcmFileFormat in;
        ASSERT_TRUE(in.loadFile((dir / "bad.dcm").c_str()).good());
        const OFCondition cond = encodeInProcess(in, DPCWT_CARRIER_XFER);
        EXPECT_EQ(cond.module(), OFM_dcmpcwt) << cond.text();
        EXPECT_EQ(cond.code(), EPCEC_InvalidImage) << cond.text();
    }
}

TEST(DicomInput, PcwtFileCutBeforePixelData)
{
    TempDir dir;
    const ImageSpec s = ct16();
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
    ASSERT_TRUE(ff->saveFile((dir / "in.dcm").c_str(), EXS_LittleEndianExplicit).good());
    ASSERT_EQ(run({kCompress, dir / "in.dcm", dir / "p.dcm"}).rc, 0);
    const std::vector<uint8_t> b = readBytes(dir / "p.dcm");
    static const uint8_t tag[] = {0xE0, 0x7F, 0x10, 0x00};
    const auto at = std::search(b.begin(), b.end(), tag, tag + 4);
    ASSERT_NE(at, b.end());
    writeBytes(dir / "cut.dcm", std::vector<uint8_t>(b.begin(), at));
    expectToolRefuses(dir, {kDecompress, dir / "cut.dcm"}, "no Pixel Data");
    // a data set without an image (no Rows, uncompressed) still converts
    std::unique_ptr<DcmFileFormat> plain(makeFile(s, makeSamples(s)));
    DcmDataset *ds = plain->getDataset();
    for (const DcmTagKey &k : {DCM_PixelData, DCM_Rows, DCM_Columns})
        delete ds->remove(k);
    ASSERT_TRUE(plain->saveFile((dir / "noimage.dcm").c_str(), EXS_LittleEndianExplicit).good());
    const Proc p = run({kDecompress, dir / "noimage.dcm", dir / "noimage_out.dcm"});
    EXPECT_EQ(p.rc, 0) << p.out;
}

TEST(DicomInput, BitsStored1ToJpegLsLossless)
{
    TempDir dir;
    ImageSpec s;
    s.rows = 40;
    s.columns = 56;
    s.ba = 8;
    s.bs = 1;
    s.hb = 0;
    s.frames = 2;
    s.fill = ImageSpec::Random;
    std::vector<uint8_t> samples = makeSamples(s);
    for (uint8_t &v : samples)
        v &= 1u; // a segmentation mask: 0 or 1
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
    ASSERT_TRUE(ff->saveFile((dir / "mask.dcm").c_str(), EXS_LittleEndianExplicit).good());
    Proc p = run({kCompress, "+el", "--verify", dir / "mask.dcm", dir / "mask.jls"});
    ASSERT_EQ(p.rc, 0) << p.out;
    DcmFileFormat jf;
    ASSERT_TRUE(jf.loadFile((dir / "mask.jls").c_str()).good());
    EXPECT_EQ(metaTransferSyntax(jf), PCWT_DICOM_JPEGLS_LOSSLESS_UID);
    Pixels px;
    ASSERT_EQ(loadPixels(dir / "mask.jls", px), "");
    EXPECT_TRUE(px.bytes == samples);
    // stock dcmdjpls (DCMTK's own JPEG-LS decoder, CharLS 1.0) gives the same samples back
    p = run({"dcmdjpls", dir / "mask.jls", dir / "mask_d.dcm"});
    ASSERT_EQ(p.rc, 0) << p.out;
    Pixels stock;
    ASSERT_EQ(loadPixels(dir / "mask_d.dcm", stock), "");
    EXPECT_TRUE(stock.bytes == samples);
    EXPECT_EQ(stock.module.bits_stored, 1u);
}
