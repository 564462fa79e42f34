// JPEG 2000 and HTJ2K streams made at test time with OpenJPEG (opj_compress) and OpenJPH
// (ojph_compress) over sizes, bit depths 8-16, signed and unsigned, one and three components,
// levels, code-block sizes, progression orders, tiles and precincts, wrapped as DICOM (one or more
// fragments per frame, Basic, Extended or no offset table): the plugin's decoder gives back the
// source samples, whole-image and frame by frame, and dcmcpcwt --verify / dcmdpcwt keep them.
#include "j2k_test_util.h"

using namespace j2k;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

struct Case {
    Spec spec;
    E_TransferSyntax xfer;
    bool tools; // also through dcmcpcwt --verify and dcmdpcwt
};

Spec spec(const std::string &name, uint32_t w, uint32_t h, uint32_t comps, uint32_t bits, bool sgn, bool ht,
          std::vector<std::string> args)
{
    Spec s;
    s.name = name;
    s.width = w;
    s.height = h;
    s.comps = comps;
    s.bits = bits;
    s.sgn = sgn;
    s.ht = ht;
    s.args = std::move(args);
    return s;
}

std::vector<Case> cases()
{
    std::vector<Case> c;
    const E_TransferSyntax lo = EXS_JPEG2000LosslessOnly, any = EXS_JPEG2000;
    // OpenJPEG: Part 1
    c.push_back({spec("opj_u8_gray", 64, 48, 1, 8, false, false, {}), lo, true});
    c.push_back({spec("opj_u12_levels0", 33, 17, 1, 12, false, false, {"-n", "1"}), lo, false});
    c.push_back({spec("opj_u16_levels5_cb16", 130, 70, 1, 16, false, false, {"-n", "6", "-b", "16,16"}), lo, true});
    c.push_back({spec("opj_s16_rpcl", 96, 40, 1, 16, true, false, {"-p", "RPCL"}), lo, true});
    c.push_back({spec("opj_s12_cprl_tiles", 100, 60, 1, 12, true, false, {"-p", "CPRL", "-t", "32,24", "-n", "4"}), any,
                 true});
    c.push_back({spec("opj_u10_precincts", 80, 80, 1, 10, false, false, {"-c", "[32,32],[16,16]", "-p", "PCRL"}), any,
                 false});
    c.push_back({spec("opj_s10_rlcp", 31, 45, 1, 10, true, false, {"-p", "RLCP", "-b", "32,16", "-n", "4"}), lo, false});
    c.push_back({spec("opj_u8_rgb_rct", 64, 48, 3, 8, false, false, {"-mct", "1"}), lo, true});
    c.push_back({spec("opj_u16_rgb_nomct_tiles", 70, 50, 3, 16, false, false, {"-mct", "0", "-t", "32,32"}), lo, false});
    c.push_back({spec("opj_u12_sop_eph", 57, 3, 1, 12, false, false, {"-SOP", "-EPH", "-n", "2"}), any, false});
    c.push_back({spec("opj_u14_one_pixel_rows", 1, 9, 1, 14, false, false, {"-n", "1"}), lo, false});
    // OpenJPH: HTJ2K under its three UIDs
    c.push_back({spec("ojph_u8_gray", 64, 48, 1, 8, false, true, {}), DPCWT_HTJ2K_LOSSLESS_XFER, true});
    c.push_back({spec("ojph_u12_levels1_cb16", 75, 31, 1, 12, false, true, {"-num_decomps", "1", "-block_size", "{16,16}"}),
                 DPCWT_HTJ2K_LOSSLESS_RPCL_XFER, false});
    c.push_back({spec("ojph_u16_cprl", 64, 64, 1, 16, false, true, {"-prog_order", "CPRL"}), DPCWT_HTJ2K_XFER, true});
    c.push_back({spec("ojph_u12_tiles_precincts", 90, 70, 1, 12, false, true,
                      {"-tile_size", "{32,32}", "-precincts", "{64,64},{32,32}", "-prog_order", "PCRL"}),
                 DPCWT_HTJ2K_LOSSLESS_XFER, false});
    c.push_back({spec("ojph_u8_rgb_rct", 48, 32, 3, 8, false, true, {}), DPCWT_HTJ2K_LOSSLESS_XFER, true});
    c.push_back({spec("ojph_u16_rgb_rct", 40, 24, 3, 16, false, true, {"-num_decomps", "3"}), DPCWT_HTJ2K_XFER, false});
    c.push_back({spec("ojph_u8_rgb_no_rct", 40, 24, 3, 8, false, true, {"-colour_trans", "false"}),
                 DPCWT_HTJ2K_LOSSLESS_XFER, false});
    // signed HTJ2K (made as j2k_test_util.h's encode() says: ojph_compress 0.9 cannot code signed raw input)
    c.push_back({spec("ojph_s16_gray", 64, 48, 1, 16, true, true, {}), DPCWT_HTJ2K_LOSSLESS_XFER, true});
    c.push_back({spec("ojph_s12_levels2_cb32", 70, 33, 1, 12, true, true, {"-num_decomps", "2", "-block_size", "{32,32}"}),
                 DPCWT_HTJ2K_LOSSLESS_RPCL_XFER, false});
    c.push_back({spec("ojph_s8_gray", 40, 40, 1, 8, true, true, {}), DPCWT_HTJ2K_XFER, false});
    c.push_back({spec("ojph_s10_three", 36, 20, 3, 10, true, true, {}), DPCWT_HTJ2K_LOSSLESS_XFER,
                 true});
    // frames: several fragments each, with and without offset tables
    Spec mf = spec("opj_frames_bot", 40, 30, 1, 16, true, false, {"-n", "3"});
    mf.frames = 3;
    mf.fragmentsPerFrame = 2;
    mf.table = Spec::Basic;
    c.push_back({mf, lo, true});
    mf.name = "opj_frames_eot";
    mf.table = Spec::Extended;
    c.push_back({mf, lo, false});
    mf.name = "opj_frames_notable";
    mf.table = Spec::None;
    mf.fragmentsPerFrame = 3;
    c.push_back({mf, any, true});
    mf.name = "opj_frames_onefragment";
    mf.fragmentsPerFrame = 1;
    c.push_back({mf, lo, false});
    Spec hf = spec("ojph_frames_bot", 32, 32, 1, 12, false, true, {});
    hf.frames = 2;
    hf.fragmentsPerFrame = 3;
    hf.table = Spec::Basic;
    c.push_back({hf, DPCWT_HTJ2K_LOSSLESS_XFER, true});
    return c;
}

class J2kStreams : public ::testing::TestWithParam<Case> {};

void PrintTo(const Case &c, std::ostream *os) { *os << c.spec.name; }

} // namespace

TEST_P(J2kStreams, DecodesToTheSource)
{
    REQUIRE_J2K_TOOLS();
    const Case &c = GetParam();
    TempDir dir;
    const std::string path = dir / (c.spec.name + ".dcm");
    std::vector<uint8_t> want;
    ASSERT_EQ(makeFile(c.spec, c.xfer, dir.path(), path, want), "");

    // whole image
    DcmFileFormat ff;
    Pixels px;
    ASSERT_EQ(loadPixels(path, px, &ff), "") << path;
    EXPECT_EQ(px.module.bits_stored, c.spec.bits);
    EXPECT_TRUE(px.bytes == want) << c.spec.name << ": decoded samples differ from the source";
    OFString lossy;
    EXPECT_TRUE(ff.getDataset()->findAndGetOFString(DCM_LossyImageCompression, lossy).bad()) << "lossless marked lossy";

    // frame by frame (DcmPixelData::getUncompressedFrame through the codec's decodeFrame)
    DPCWTFileFormat fw;
    ASSERT_TRUE(fw.loadFile(path.c_str()).good());
    DcmElement *e = nullptr;
    ASSERT_TRUE(fw.getDataset()->findAndGetElement(DCM_PixelData, e).good());
    const size_t fb = want.size() / c.spec.frames;
    std::vector<uint8_t> buf(fb + 1);
    for (Uint32 f = 0; f < c.spec.frames; ++f) {
        Uint32 start = 0;
        OFString model;
        const OFCondition r = static_cast<DcmPixelData *>(e)->getUncompressedFrame(fw.getDataset(), f, start,
                                                                                   buf.data(), Uint32(buf.size()), model);
        ASSERT_TRUE(r.good()) << "frame " << f << ": " << r.text();
        EXPECT_EQ(std::memcmp(buf.data(), want.data() + f * fb, fb), 0) << "frame " << f;
        EXPECT_EQ(std::string(model.c_str()), c.spec.comps == 3 ? "RGB" : "MONOCHROME2");
    }

    if (!c.tools)
        return;
    // dcmcpcwt --verify, then dcmdpcwt: the source samples, the file's attributes
    const std::string pcwt = dir / "pcwt.dcm", back = dir / "back.dcm";
    Proc p = run({DCMCPCWT_PATH, "--verify", path, pcwt});
    ASSERT_EQ(p.rc, 0) << p.out;
    DcmFileFormat pf;
    ASSERT_TRUE(pf.loadFile(pcwt.c_str()).good());
    EXPECT_EQ(metaTransferSyntax(pf), PCWT_DICOM_TS_UID);
    p = run({DCMDPCWT_PATH, pcwt, back});
    ASSERT_EQ(p.rc, 0) << p.out;
    DcmFileFormat bf;
    Pixels bp;
    ASSERT_EQ(loadPixels(back, bp, &bf), "");
    EXPECT_TRUE(bp.bytes == want) << "dcmcpcwt/dcmdpcwt round trip differs from the source";
    EXPECT_EQ(diffAttributes(ff.getDataset(), bf.getDataset(), {DCM_PixelData, DCM_ExtendedOffsetTable}), "");
}

INSTANTIATE_TEST_SUITE_P(Made, J2kStreams, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &i) { return i.param.spec.name; });
