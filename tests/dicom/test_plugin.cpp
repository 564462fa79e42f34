// In-process tests of the DCMTK plugin (plugin/): encoder and decoder round trips over the
// accepted pixel modules (synthetic images), JPEG-LS, the entropy profile; refusals, the UID
// policy, files, the decoder, threads and registration: test_plugin_files.cpp.
#include "plugin_test_util.h"

#include "dcmpcwt/dpcodecd.h"
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"

#include "dcmtk/dcmdata/dcsequen.h"
#include "dcmtk/dcmdata/dcvrobow.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace dt;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

struct Case {
    const char *name;
    ImageSpec spec;
};

std::vector<Case> cases()
{
    std::vector<Case> c;
    c.push_back({"mono8", spec(32, 40, 1, 8, 8, 0, "MONOCHROME2")});
    c.push_back({"mono8_bs1", spec(16, 16, 1, 8, 1, 0, "MONOCHROME2", 1, ImageSpec::Random)});
    c.push_back({"mono16_u12_dirty_high_bits", spec(48, 33, 1, 16, 12, 0, "MONOCHROME2", 1, ImageSpec::DirtyHighBits)});
    c.push_back({"mono16_s16_random", spec(31, 17, 1, 16, 16, 1, "MONOCHROME1", 1, ImageSpec::Random)});
    c.push_back({"mono16_s12_sign_extended", spec(40, 40, 1, 16, 12, 1, "MONOCHROME2", 1, ImageSpec::SignExtended)});
    c.push_back({"mono16_s12_dirty", spec(20, 24, 1, 16, 12, 1, "MONOCHROME2", 1, ImageSpec::DirtyHighBits)});
    c.push_back({"rgb8_interleaved", spec(24, 30, 3, 8, 8, 0, "RGB")});
    c.push_back({"rgb8_planar_odd", spec(5, 7, 3, 8, 8, 0, "RGB", 1, ImageSpec::Smooth, 1)});
    c.push_back({"rgb16_planar", spec(18, 14, 3, 16, 16, 0, "RGB", 1, ImageSpec::Smooth, 1)});
    c.push_back({"ybr_full", spec(16, 20, 3, 8, 8, 0, "YBR_FULL", 1, ImageSpec::Smooth, 0)});
    c.push_back({"palette16", spec(25, 21, 1, 16, 16, 0, "PALETTE COLOR")});
    c.push_back({"multiframe8_odd_frames", spec(7, 9, 1, 8, 8, 0, "MONOCHROME2", 5)});
    c.push_back({"multiframe16_rgb", spec(12, 10, 3, 16, 10, 0, "RGB", 3, ImageSpec::Smooth, 1)});
    c.push_back({"one_pixel", spec(1, 1, 1, 16, 16, 0, "MONOCHROME2")});
    ImageSpec hb = spec(16, 16, 1, 16, 12, 0, "MONOCHROME2", 1, ImageSpec::Random);
    hb.hb = 15; // BitsStored 12 in the upper bits
    c.push_back({"highbit15_bitsstored12", hb});
    ImageSpec one = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2", 1);
    one.writeFrames = true; // NumberOfFrames "1" present
    c.push_back({"numberofframes_1", one});
    return c;
}

// Can JPEG-LS carry this image (what the JPEG-LS encoder must accept)?
bool jpeglsCanCode(const ImageSpec &s, const std::vector<uint8_t> &samples)
{
    if (s.hb + 1 != s.bs || s.bs < 2)
        return false;
    pcwt_image_desc d{};
    d.width = s.columns;
    d.height = s.rows;
    d.components = s.spp;
    d.bits_allocated = s.ba;
    d.bits_stored = s.bs;
    d.is_signed = s.pr;
    const size_t fb = frameBytes(s);
    for (int f = 0; f < s.frames; ++f)
        if (!pcwt_dicom_high_bits_clean(&d, samples.data() + f * fb, nullptr))
            return false;
    return true;
}

class PluginRoundTrip : public ::testing::TestWithParam<Case> {};

void PrintTo(const Case &c, std::ostream *os)
{
    *os << c.name;
}

} // namespace

TEST_P(PluginRoundTrip, PrivateSyntax)
{
    const ImageSpec &s = GetParam().spec;
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
    DcmDataset *ds = src->getDataset();
    const std::string uid = sopInstanceUID(ds);
    std::unique_ptr<DcmDataset> before(static_cast<DcmDataset *>(ds->clone()));

    DPCWTRepresentationParameter rp;
    OFCondition c = ds->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
    ASSERT_TRUE(c.good()) << c.text();
    ASSERT_TRUE(ds->canWriteXfer(DPCWT_CARRIER_XFER));

    // every attribute kept (no new UID, no Lossy Image Compression attributes)
    EXPECT_EQ(sopInstanceUID(ds), uid);
    EXPECT_FALSE(ds->tagExists(DCM_LossyImageCompression));
    EXPECT_FALSE(ds->tagExists(DCM_LossyImageCompressionRatio));
    EXPECT_EQ(diffAttributes(before.get(), ds, {DCM_PixelData}), "");

    // one fragment per frame, each a PCWT codestream of the frame; a Basic Offset Table
    DcmPixelSequence *seq = pixelSequence(ds, DPCWT_CARRIER_XFER, &rp);
    ASSERT_NE(seq, nullptr);
    ASSERT_EQ(seq->card(), static_cast<unsigned long>(s.frames + 1));
    DcmPixelItem *item = nullptr;
    ASSERT_TRUE(seq->getItem(item, 0).good());
    ASSERT_EQ(item->getLength(), static_cast<Uint32>(4 * s.frames));
    Uint8 *bot = nullptr;
    ASSERT_TRUE(item->getUint8Array(bot).good());
    uint32_t pos = 0;
    DcmOffsetList dcmtkList;
    for (int f = 0; f < s.frames; ++f) {
        uint32_t off;
        std::memcpy(&off, bot + 4 * f, 4); // little endian host
        EXPECT_EQ(off, pos) << "offset of frame " << f;
        ASSERT_TRUE(seq->getItem(item, static_cast<unsigned long>(f + 1)).good());
        EXPECT_EQ(item->getLength() % 2, 0u);
        Uint8 *cs = nullptr;
        ASSERT_TRUE(item->getUint8Array(cs).good());
        ASSERT_GE(item->getLength(), 4u);
        EXPECT_EQ(std::memcmp(cs, "PCWT", 4), 0);
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(cs, item->getLength(), &info), PCWT_OK);
        EXPECT_EQ(info.desc.width, s.columns);
        EXPECT_EQ(info.desc.height, s.rows);
        EXPECT_EQ(info.desc.components, s.spp);
        EXPECT_EQ(info.desc.planar, s.spp == 3 ? s.planar : 0u);
        pos += 8 + item->getLength();
        dcmtkList.push_back(8 + item->getLength());
    }
    // the table equals the one DCMTK builds from the same fragments
    DcmPixelItem ref(DCM_PixelItemTag);
    ASSERT_TRUE(ref.createOffsetTable(dcmtkList).good());
    Uint8 *refBytes = nullptr;
    ASSERT_TRUE(ref.getUint8Array(refBytes).good());
    EXPECT_EQ(std::memcmp(refBytes, bot, 4 * size_t(s.frames)), 0);

    // the file: the private UID in (0002,0010), never the carrier's
    TempDir dir;
    const std::string path = dir / "img.dcm";
    DPCWTFileFormat out(ds);
    c = out.saveFile(path.c_str(), DPCWT_CARRIER_XFER, EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0,
                     EWM_updateMeta);
    ASSERT_TRUE(c.good()) << c.text();
    EXPECT_EQ(metaTransferSyntax(out), PCWT_DICOM_TS_UID);
    const std::vector<uint8_t> bytes = readBytes(path);
    const std::string carrierUID = DcmXfer(DPCWT_CARRIER_XFER).getXferID();
    EXPECT_EQ(std::search(bytes.begin(), bytes.end(), carrierUID.begin(), carrierUID.end()), bytes.end())
        << "the carrier's UID leaked into the file";

    // read back: keyed to the carrier, decodes to the same words (every bit)
    {
        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(path.c_str()).good());
        EXPECT_EQ(in.getDataset()->getOriginalXfer(), DPCWT_CARRIER_XFER);
        std::unique_ptr<DcmDataset> loaded(static_cast<DcmDataset *>(in.getDataset()->clone()));
        Pixels px;
        ASSERT_EQ(decodePixels(in.getDataset(), px), "");
        EXPECT_TRUE(px.bytes == samples) << "decoded pixels differ";
        EXPECT_EQ(diffAttributes(before.get(), in.getDataset(), {DCM_PixelData}), "");
    }

    // frame-wise decoding (DcmPixelData::getUncompressedFrame -> decodeFrame), frames in any order
    {
        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(path.c_str()).good());
        DcmDataset *d = in.getDataset();
        DcmElement *e = nullptr;
        ASSERT_TRUE(d->findAndGetElement(DCM_PixelData, e).good());
        DcmPixelData *pd = static_cast<DcmPixelData *>(e);
        const size_t fb = frameBytes(s);
        std::vector<uint8_t> buf(fb + 1);
        for (int k = 0; k < s.frames; ++k) {
            const Uint32 f = static_cast<Uint32>((k * 3 + 1) % s.frames); // a permutation for odd counts
            Uint32 start = 0;
            OFString model;
            c = pd->getUncompressedFrame(d, f, start, buf.data(), static_cast<Uint32>(buf.size()), model);
            ASSERT_TRUE(c.good()) << "frame " << f << ": " << c.text();
            EXPECT_EQ(std::memcmp(buf.data(), samples.data() + f * fb, fb), 0) << "frame " << f;
            EXPECT_EQ(std::string(model.c_str()), s.photometric);
            EXPECT_EQ(start, f + 2); // the next frame's fragment
        }
        OFString model;
        ASSERT_TRUE(pd->getDecompressedColorModel(d, model).good());
        EXPECT_EQ(std::string(model.c_str()), s.photometric);
    }

    // pass-through: reading and writing again gives the same file
    {
        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(path.c_str()).good());
        const std::string again = dir / "again.dcm";
        c = in.saveFile(again.c_str(), DPCWT_CARRIER_XFER, EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0,
                        EWM_updateMeta);
        ASSERT_TRUE(c.good()) << c.text();
        EXPECT_TRUE(readBytes(again) == bytes);
    }

    // a stock application's view: plain DcmFileFormat, pixel data keyed Explicit VR Little Endian,
    // decoded by the decoder in EPCDM_unknownEncapsulated mode (what libdcmpcwt_preload.so registers)
    {
        DPCWTCodecParameter cp;
        DPCWTDecoder fallback(EPCDM_unknownEncapsulated);
        ASSERT_TRUE(DcmCodecList::registerCodec(&fallback, nullptr, &cp).good());
        DcmFileFormat plain;
        ASSERT_TRUE(plain.loadFile(path.c_str()).good());
        EXPECT_EQ(plain.getDataset()->getOriginalXfer(), EXS_LittleEndianExplicit);
        Pixels px;
        EXPECT_EQ(decodePixels(plain.getDataset(), px), "");
        EXPECT_TRUE(px.bytes == samples);
        // frame-wise as well
        DcmFileFormat plain2;
        ASSERT_TRUE(plain2.loadFile(path.c_str()).good());
        DcmElement *e = nullptr;
        ASSERT_TRUE(plain2.getDataset()->findAndGetElement(DCM_PixelData, e).good());
        std::vector<uint8_t> buf(frameBytes(s) + 1);
        Uint32 start = 0;
        OFString model;
        c = static_cast<DcmPixelData *>(e)->getUncompressedFrame(plain2.getDataset(), Uint32(s.frames - 1), start,
                                                                  buf.data(), Uint32(buf.size()), model);
        EXPECT_TRUE(c.good()) << c.text();
        EXPECT_EQ(std::memcmp(buf.data(), samples.data() + size_t(s.frames - 1) * frameBytes(s), frameBytes(s)), 0);
        DcmCodecList::deregisterCodec(&fallback);
    }
}

TEST_P(PluginRoundTrip, JpeglsLossless)
{
    const ImageSpec &s = GetParam().spec;
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
    DcmDataset *ds = src->getDataset();
    Pixels original;
    readModule(ds, original.module);
    original.bytes = samples;

    DPCWTRepresentationParameter rp;
    OFCondition c = ds->chooseRepresentation(EXS_JPEGLSLossless, &rp);
    if (!jpeglsCanCode(s, samples)) {
        ASSERT_TRUE(c.bad()) << "JPEG-LS must refuse " << GetParam().name;
        const std::string msg = c.text();
        EXPECT_TRUE(msg.find("above BitsStored") != std::string::npos || msg.find("HighBit") != std::string::npos ||
                    msg.find("BitsStored 1") != std::string::npos)
            << msg;
        return;
    }
    ASSERT_TRUE(c.good()) << c.text();
    EXPECT_FALSE(ds->tagExists(DCM_LossyImageCompression));
    if (s.spp == 3) {
        Uint16 pc = 9;
        ASSERT_TRUE(ds->findAndGetUint16(DCM_PlanarConfiguration, pc).good());
        EXPECT_EQ(pc, 0) << "CP 1843: JPEG-LS RGB has PlanarConfiguration 0";
    }
    TempDir dir;
    const std::string path = dir / "jls.dcm";
    ASSERT_TRUE(src->saveFile(path.c_str(), EXS_JPEGLSLossless).good());
    DcmFileFormat in;
    ASSERT_TRUE(in.loadFile(path.c_str()).good());
    EXPECT_EQ(metaTransferSyntax(in), PCWT_DICOM_JPEGLS_LOSSLESS_UID);
    Pixels px;
    ASSERT_EQ(decodePixels(in.getDataset(), px), ""); // DCMTK's own JPEG-LS decoder (dcmjpls)
    EXPECT_TRUE(valuesInterleaved(px) == valuesInterleaved(original));
}

namespace {

// the encoders registered with a profile for the scope, the defaults again afterwards
class ProfileEncoders {
public:
    explicit ProfileEncoders(pcwt_profile profile)
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS,
                                                 0, 0 /* the profile's groups */, PCWT_BACKEND_AUTO,
                                                 OFTrue, profile);
    }
    ~ProfileEncoders()
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTEncoderRegistration::registerCodecs();
    }
};

} // namespace

// Encoders registered with PCWT_PROFILE_ENTROPY or PCWT_PROFILE_BASELINE: every frame's codestream
// declares that profile, the file decodes to the same words (every bit) and keeps every attribute;
// the default registration writes profile 2 (compact) for the same image.
TEST_P(PluginRoundTrip, EntropyProfile)
{
    const ImageSpec &s = GetParam().spec;
    const std::vector<uint8_t> samples = makeSamples(s);
    TempDir dir;
    uint64_t bytes[3] = {0, 0, 0};
    for (const pcwt_profile profile : {PCWT_PROFILE_COMPACT, PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY}) {
        SCOPED_TRACE(profile == PCWT_PROFILE_COMPACT ? "compact (default registration)" : pcwt_profile_name(profile));
        std::unique_ptr<ProfileEncoders> registered(profile == PCWT_PROFILE_COMPACT ? nullptr : new ProfileEncoders(profile));
        std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
        DcmDataset *ds = src->getDataset();
        std::unique_ptr<DcmDataset> before(static_cast<DcmDataset *>(ds->clone()));
        DPCWTRepresentationParameter rp;
        OFCondition c = ds->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
        ASSERT_TRUE(c.good()) << c.text();
        const std::string path = dir / (std::string(pcwt_profile_name(profile)) + ".dcm");
        DPCWTFileFormat out(ds);
        ASSERT_TRUE(out.saveFile(path.c_str(), DPCWT_CARRIER_XFER).good());
        EXPECT_EQ(expectProfile(path, profile, uint64_t(s.frames), &bytes[profile]), "");

        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(path.c_str()).good());
        Pixels px;
        ASSERT_EQ(decodePixels(in.getDataset(), px), "");
        EXPECT_TRUE(px.bytes == samples) << "decoded pixels differ";
        EXPECT_EQ(diffAttributes(before.get(), in.getDataset(), {DCM_PixelData}), "");
    }
    // a profile-1 plane is not larger than the baseline plane (docs/FORMAT.md Sec. 5.1, group by
    // group for the same transform and groups; the defaults differ in lifting order and group shape
    // by tenths of a percent); colour planes differ more (the entropy profile's colour transform)
    if (s.spp == 1) {
        EXPECT_LE(bytes[PCWT_PROFILE_ENTROPY], bytes[PCWT_PROFILE_BASELINE]);
    }
}

INSTANTIATE_TEST_SUITE_P(Images, PluginRoundTrip, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });
