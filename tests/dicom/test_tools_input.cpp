// Issue 37: native Pixel Data whose length is not what the image pixel module declares (Rows
// halved, BitsAllocated 8 on 16-bit words, 1000 extra bytes) is refused by every encoder with a
// condition callers can tell apart (DPCWTIsPixelDataLengthError); invalid pixel modules are
// failures (EPCEC_InvalidImage), not 'unsupported'; a PCWT file cut before its Pixel Data fails
// in dcmdpcwt; BitsStored 1 (masks) goes to JPEG-LS losslessly and stock dcmdjpls reads it; a
// small file declaring a 32768 x 32768 frame is refused by the memory budget, not allocated.
#include "dicom_test_util.h"
#include "../sanitizer.h"

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

namespace {

uint32_t crc32Ieee(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = static_cast<uint8_t>(v >> (8 * k));
}

} // namespace

TEST(DicomInput, DecompressionBombRefusedByMemoryBudget)
{
    TempDir dir;
    ImageSpec s = ct16();
    s.rows = s.columns = 16;
    s.bs = 12;
    s.hb = 11;
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
    DPCWTRepresentationParameter rp;
    ASSERT_TRUE(ff->getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp).good());
    ff->getDataset()->putAndInsertUint16(DCM_Rows, 32768);
    ff->getDataset()->putAndInsertUint16(DCM_Columns, 32768);
    DPCWTFileFormat pf(ff->getDataset());
    ASSERT_TRUE(pf.saveFile((dir / "bomb.dcm").c_str(), DPCWT_CARRIER_XFER).good());
    // the codestream header then says 32768 x 32768 too (2 GiB of samples), with a valid CRC
    std::vector<uint8_t> b = readBytes(dir / "bomb.dcm");
    static const uint8_t magic[] = {'P', 'C', 'W', 'T', 1};
    const size_t at = size_t(std::search(b.begin(), b.end(), magic, magic + 5) - b.begin());
    ASSERT_LT(at, b.size());
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(&b[at], b.size() - at, &info), PCWT_OK);
    const size_t hs = info.header_length;
    ASSERT_EQ(crc32Ieee(&b[at], hs - 4), uint32_t(b[at + hs - 4] | b[at + hs - 3] << 8 | b[at + hs - 2] << 16 |
                                                 uint32_t(b[at + hs - 1]) << 24))
        << "the header CRC is not CRC-32";
    put32(&b[at + 8], 32768);
    put32(&b[at + 12], 32768);
    put32(&b[at + hs - 4], crc32Ieee(&b[at], hs - 4));
    ASSERT_EQ(pcwt_read_header(&b[at], b.size() - at, &info), PCWT_OK);
    ASSERT_EQ(info.desc.width, 32768u);
    writeBytes(dir / "bomb.dcm", b);
    ASSERT_LT(b.size(), 30000u);

    // an explicit budget, and the default under ulimit -v 2000000 (2 GB of address space; not
    // under AddressSanitizer, which cannot start with its shadow memory under such a limit)
    expectToolRefuses(dir, {kDecompress, "--max-memory", "100M", dir / "bomb.dcm"}, "memory limit");
    if (kAddressSanitizer)
        return;
    const std::string out = dir / "o.dcm";
    const std::vector<std::string> argv = {"/bin/sh", "-c", "ulimit -v 2000000 && exec \"$0\" \"$1\" \"$2\"",
                                           kDecompress, dir / "bomb.dcm", out};
    const Proc p = run(argv);
    EXPECT_NE(p.rc, 0) << describe(argv, p);
    EXPECT_LT(p.rc, 128) << "crashed: " << describe(argv, p);
    EXPECT_NE(p.out.find("memory limit"), std::string::npos) << describe(argv, p);
    EXPECT_FALSE(exists(out));
}
