// In-process tests of the DCMTK plugin (plugin/): encoders, decoder, DPCWTFileFormat, frame-wise
// decoding, the unknown-transfer-syntax claim of the preload library, refusals, the SOP Instance UID
// policy and concurrent use. Synthetic images cover the accepted pixel modules.
#include "dicom_test_util.h"

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

ImageSpec spec(uint16_t rows, uint16_t cols, uint16_t spp, uint16_t ba, uint16_t bs, uint16_t pr,
               const char *pi, int frames = 1, ImageSpec::Fill fill = ImageSpec::Smooth, uint16_t planar = 0)
{
    ImageSpec s;
    s.rows = rows;
    s.columns = cols;
    s.spp = spp;
    s.ba = ba;
    s.bs = bs;
    s.hb = static_cast<uint16_t>(bs - 1);
    s.pr = pr;
    s.photometric = pi;
    s.frames = frames;
    s.fill = fill;
    s.planar = planar;
    return s;
}

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

std::string sopInstanceUID(DcmItem *ds)
{
    OFString v;
    ds->findAndGetOFString(DCM_SOPInstanceUID, v);
    return v.c_str();
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

// the encoders registered with the entropy profile for the scope, the defaults again afterwards
class EntropyEncoders {
public:
    EntropyEncoders()
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS,
                                                 0, 0 /* the profile's groups */, PCWT_BACKEND_AUTO,
                                                 OFTrue, PCWT_PROFILE_ENTROPY);
    }
    ~EntropyEncoders()
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTEncoderRegistration::registerCodecs();
    }
};

} // namespace

// Encoders registered with PCWT_PROFILE_ENTROPY: every frame's codestream declares profile 1, the
// file decodes to the same words (every bit) and keeps every attribute; the default registration
// writes profile 0 for the same image.
TEST_P(PluginRoundTrip, EntropyProfile)
{
    const ImageSpec &s = GetParam().spec;
    const std::vector<uint8_t> samples = makeSamples(s);
    TempDir dir;
    uint64_t bytes[2] = {0, 0};
    for (const pcwt_profile profile : {PCWT_PROFILE_BASELINE, PCWT_PROFILE_ENTROPY}) {
        SCOPED_TRACE(profile == PCWT_PROFILE_ENTROPY ? "entropy" : "baseline (default registration)");
        std::unique_ptr<EntropyEncoders> entropy(profile == PCWT_PROFILE_ENTROPY ? new EntropyEncoders : nullptr);
        std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
        DcmDataset *ds = src->getDataset();
        std::unique_ptr<DcmDataset> before(static_cast<DcmDataset *>(ds->clone()));
        DPCWTRepresentationParameter rp;
        OFCondition c = ds->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
        ASSERT_TRUE(c.good()) << c.text();
        const std::string path = dir / (profile == PCWT_PROFILE_ENTROPY ? "entropy.dcm" : "baseline.dcm");
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

// ------------------------------------------------------------------------------------------------
// refusals

namespace {

std::string encodeError(DcmFileFormat &ff, E_TransferSyntax xfer = DPCWT_CARRIER_XFER)
{
    DPCWTRepresentationParameter rp;
    OFCondition c = ff.getDataset()->chooseRepresentation(xfer, &rp);
    return c.good() ? std::string() : std::string(c.text());
}

} // namespace

TEST(PluginRefuses, WhatCannotBeCodedLosslessly)
{
    // 32 bits allocated
    {
        ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        ff->getDataset()->putAndInsertUint16(DCM_BitsAllocated, 32);
        ff->getDataset()->putAndInsertUint16(DCM_BitsStored, 32);
        ff->getDataset()->putAndInsertUint16(DCM_HighBit, 31);
        EXPECT_NE(encodeError(*ff).find("BitsAllocated 32"), std::string::npos) << encodeError(*ff);
    }
    // chroma subsampled colour
    {
        ImageSpec s = spec(8, 8, 3, 8, 8, 0, "RGB");
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        ff->getDataset()->putAndInsertString(DCM_PhotometricInterpretation, "YBR_FULL_422");
        EXPECT_NE(encodeError(*ff).find("YBR_FULL_422"), std::string::npos) << encodeError(*ff);
    }
    // pixel data shorter than the module declares
    {
        ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        ff->getDataset()->putAndInsertUint16(DCM_Rows, 16);
        EXPECT_NE(encodeError(*ff).find("Pixel Data holds 128 bytes"), std::string::npos) << encodeError(*ff);
    }
    // a header declaring 46341 x 46341
    {
        ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        ff->getDataset()->putAndInsertUint16(DCM_Rows, 46341);
        ff->getDataset()->putAndInsertUint16(DCM_Columns, 46341);
        EXPECT_NE(encodeError(*ff).find("4 GiB"), std::string::npos) << encodeError(*ff);
    }
    // a missing attribute
    {
        ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        delete ff->getDataset()->remove(DCM_BitsStored);
        EXPECT_NE(encodeError(*ff).find("BitsStored"), std::string::npos) << encodeError(*ff);
    }
    // float pixel data (DCMTK refuses before any codec is asked)
    {
        ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        const Float32 f[4] = {1, 2, 3, 4};
        ff->getDataset()->putAndInsertFloat32Array(DCM_FloatPixelData, f, 4);
        EXPECT_NE(encodeError(*ff), "");
    }
    // JPEG-LS and bits above BitsStored
    {
        ImageSpec s = spec(16, 16, 1, 16, 12, 0, "MONOCHROME2", 1, ImageSpec::DirtyHighBits);
        std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
        const std::string e = encodeError(*ff, EXS_JPEGLSLossless);
        EXPECT_NE(e.find("bits above BitsStored"), std::string::npos) << e;
        EXPECT_EQ(encodeError(*ff), ""); // PCWT keeps them
    }
}

TEST(PluginRefuses, LossyInputUnlessAccepted)
{
    ImageSpec s = spec(8, 8, 1, 8, 8, 0, "MONOCHROME2");
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, samples));
    ff->getDataset()->putAndInsertString(DCM_LossyImageCompression, "01");
    EXPECT_NE(encodeError(*ff).find("lossy"), std::string::npos) << encodeError(*ff);

    DPCWTEncoderRegistration::cleanup();
    DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, OFTrue /* accept lossy */);
    EXPECT_EQ(encodeError(*ff), "");
    DPCWTEncoderRegistration::cleanup();
    DPCWTEncoderRegistration::registerCodecs();
}

TEST(PluginUidPolicy, KeptByDefaultNewWhenAsked)
{
    ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> a(makeFile(s, samples));
    const std::string uid = sopInstanceUID(a->getDataset());
    ASSERT_EQ(encodeError(*a), "");
    EXPECT_EQ(sopInstanceUID(a->getDataset()), uid);

    DPCWTEncoderRegistration::cleanup();
    DPCWTEncoderRegistration::registerCodecs(EPCUC_always);
    std::unique_ptr<DcmFileFormat> b(makeFile(s, samples));
    const std::string uidB = sopInstanceUID(b->getDataset());
    ASSERT_EQ(encodeError(*b), "");
    EXPECT_NE(sopInstanceUID(b->getDataset()), uidB);
    EXPECT_TRUE(b->getDataset()->tagExists(DCM_SourceImageSequence)); // references the predecessor
    EXPECT_FALSE(b->getDataset()->tagExists(DCM_LossyImageCompression));
    DPCWTEncoderRegistration::cleanup();
    DPCWTEncoderRegistration::registerCodecs();
}

TEST(PluginCodecParameter, Profile)
{
    const DPCWTCodecParameter byDefault;
    EXPECT_EQ(byDefault.getProfile(), PCWT_PROFILE_BASELINE);
    EXPECT_EQ(byDefault.getEncodeParams().profile, PCWT_PROFILE_BASELINE);
    const DPCWTCodecParameter entropy(EPCUC_default, OFFalse, OFFalse, 3, 16, 8, PCWT_BACKEND_CPU,
                                      OFstatic_cast(Uint64, 1) << 20, PCWT_PROFILE_ENTROPY);
    EXPECT_EQ(entropy.getProfile(), PCWT_PROFILE_ENTROPY);
    const pcwt_encode_params p = entropy.getEncodeParams();
    EXPECT_EQ(p.profile, PCWT_PROFILE_ENTROPY);
    EXPECT_EQ(p.codec, PCWT_CODEC_PCWT);
    EXPECT_EQ(p.levels, 3u);
    EXPECT_EQ(p.group_rows, 16u);
    EXPECT_EQ(p.group_cols, 8u);
    EXPECT_EQ(p.backend, PCWT_BACKEND_CPU);
    // copies keep it
    std::unique_ptr<DcmCodecParameter> clone(entropy.clone());
    ASSERT_STREQ(clone->className(), "DPCWTCodecParameter");
    EXPECT_EQ(static_cast<DPCWTCodecParameter *>(clone.get())->getProfile(), PCWT_PROFILE_ENTROPY);
    EXPECT_EQ(static_cast<DPCWTCodecParameter *>(clone.get())->getEncodeParams().profile, PCWT_PROFILE_ENTROPY);
    const DPCWTCodecParameter copy(entropy);
    EXPECT_EQ(copy.getProfile(), PCWT_PROFILE_ENTROPY);
}

// ------------------------------------------------------------------------------------------------
// files and structures

TEST(PluginFileFormat, RefusesToWriteTheCarrierWithoutMetaHeader)
{
    ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
    std::unique_ptr<DcmFileFormat> src(makeFile(s, makeSamples(s)));
    ASSERT_EQ(encodeError(*src), "");
    DPCWTFileFormat ff(src->getDataset());
    TempDir dir;
    OFCondition c = ff.saveFile((dir / "x.dcm").c_str(), DPCWT_CARRIER_XFER, EET_ExplicitLength, EGL_recalcGL,
                                EPD_noChange, 0, 0, EWM_dataset);
    EXPECT_TRUE(c.bad());
    EXPECT_FALSE(exists(dir / "x.dcm"));
}

TEST(PluginFileFormat, IconImagesAreCodedAndRekeyedToo)
{
    ImageSpec s = spec(20, 20, 1, 16, 12, 0, "MONOCHROME2");
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
    ImageSpec is = spec(4, 6, 1, 8, 8, 0, "MONOCHROME2");
    const std::vector<uint8_t> icon = makeSamples(is);
    DcmItem *item = nullptr;
    ASSERT_TRUE(src->getDataset()->findOrCreateSequenceItem(DCM_IconImageSequence, item).good());
    item->putAndInsertUint16(DCM_Rows, is.rows);
    item->putAndInsertUint16(DCM_Columns, is.columns);
    item->putAndInsertUint16(DCM_SamplesPerPixel, 1);
    item->putAndInsertUint16(DCM_BitsAllocated, 8);
    item->putAndInsertUint16(DCM_BitsStored, 8);
    item->putAndInsertUint16(DCM_HighBit, 7);
    item->putAndInsertUint16(DCM_PixelRepresentation, 0);
    item->putAndInsertString(DCM_PhotometricInterpretation, "MONOCHROME2");
    item->putAndInsertUint8Array(DCM_PixelData, icon.data(), static_cast<unsigned long>(icon.size()));
    ASSERT_EQ(encodeError(*src), "");

    TempDir dir;
    DPCWTFileFormat out(src->getDataset());
    ASSERT_TRUE(out.saveFile((dir / "icon.dcm").c_str(), DPCWT_CARRIER_XFER).good());
    DPCWTFileFormat in;
    ASSERT_TRUE(in.loadFile((dir / "icon.dcm").c_str()).good());
    Pixels px;
    ASSERT_EQ(decodePixels(in.getDataset(), px), "");
    EXPECT_TRUE(px.bytes == samples);
    DcmItem *iconItem = nullptr;
    ASSERT_TRUE(in.getDataset()->findAndGetSequenceItem(DCM_IconImageSequence, iconItem).good());
    const Uint8 *iconData = nullptr;
    ASSERT_TRUE(iconItem->findAndGetUint8Array(DCM_PixelData, iconData).good());
    EXPECT_EQ(std::memcmp(iconData, icon.data(), icon.size()), 0);
}

namespace {

// A PCWT file of a small image, and a way to edit it.
struct PcwtFile {
    ImageSpec spec;
    std::vector<uint8_t> samples;
    std::string path;
};

PcwtFile writePcwt(const TempDir &dir, const ImageSpec &s, const std::string &name)
{
    PcwtFile f{s, makeSamples(s), dir / name};
    std::unique_ptr<DcmFileFormat> src(makeFile(s, f.samples));
    DPCWTRepresentationParameter rp;
    EXPECT_TRUE(src->getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp).good());
    DPCWTFileFormat out(src->getDataset());
    EXPECT_TRUE(out.saveFile(f.path.c_str(), DPCWT_CARRIER_XFER).good());
    return f;
}

std::string decodeError(const std::string &path)
{
    DPCWTFileFormat in;
    OFCondition c = in.loadFile(path.c_str());
    if (c.bad())
        return std::string("load: ") + c.text();
    c = in.getDataset()->chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
    return c.good() ? std::string() : std::string(c.text());
}

// Offset of the first fragment's codestream in the file ("PCWT" magic).
size_t codestreamOffset(const std::vector<uint8_t> &b)
{
    static const uint8_t magic[] = {'P', 'C', 'W', 'T', 1}; // magic and format version
    return static_cast<size_t>(std::search(b.begin(), b.end(), magic, magic + 5) - b.begin());
}

} // namespace

TEST(PluginDecoder, RefusesCorruptAndMismatchedData)
{
    TempDir dir;
    ImageSpec s = spec(64, 64, 1, 16, 12, 0, "MONOCHROME2", 2);
    PcwtFile f = writePcwt(dir, s, "ok.dcm");
    ASSERT_EQ(decodeError(f.path), "");
    const std::vector<uint8_t> good = readBytes(f.path);
    const size_t cs = codestreamOffset(good);
    ASSERT_LT(cs, good.size());

    // a flipped payload byte: the payload CRC catches it
    std::vector<uint8_t> b = good;
    b[cs + 200] ^= 0x5A;
    writeBytes(dir / "payload.dcm", b);
    std::string e = decodeError(dir / "payload.dcm");
    EXPECT_NE(e, "");
    EXPECT_NE(e.find("frame 1"), std::string::npos) << e;

    // a flipped header byte (the width): the header CRC catches it
    b = good;
    b[cs + 9] ^= 0x01;
    writeBytes(dir / "header.dcm", b);
    EXPECT_NE(decodeError(dir / "header.dcm"), "");

    // not a PCWT codestream
    b = good;
    b[cs] = 0xFF;
    b[cs + 1] = 0xD8;
    writeBytes(dir / "magic.dcm", b);
    e = decodeError(dir / "magic.dcm");
    EXPECT_NE(e.find("JPEG"), std::string::npos) << e;

    // the data set and the codestream disagree; and a header declaring 46341 x 46341
    for (uint16_t rows : {uint16_t(63), uint16_t(46341)}) {
        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(f.path.c_str()).good());
        in.getDataset()->putAndInsertUint16(DCM_Rows, rows);
        if (rows == 46341)
            in.getDataset()->putAndInsertUint16(DCM_Columns, rows);
        const std::string p = dir / ("rows" + std::to_string(rows) + ".dcm");
        ASSERT_TRUE(in.saveFile(p.c_str(), DPCWT_CARRIER_XFER).good());
        e = decodeError(p);
        EXPECT_NE(e, "") << rows;
        if (rows == 46341) {
            EXPECT_NE(e.find("4 GiB"), std::string::npos) << e;
        } else {
            EXPECT_NE(e.find("codestream holds"), std::string::npos) << e;
        }
    }
    // 8-bit 46341 x 46341 is below 4 GiB: the decoder's sample limit refuses it before allocation
    {
        ImageSpec s8 = spec(16, 16, 1, 8, 8, 0, "MONOCHROME2");
        PcwtFile f8 = writePcwt(dir, s8, "ok8.dcm");
        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(f8.path.c_str()).good());
        in.getDataset()->putAndInsertUint16(DCM_Rows, 46341);
        in.getDataset()->putAndInsertUint16(DCM_Columns, 46341);
        ASSERT_TRUE(in.saveFile((dir / "big8.dcm").c_str(), DPCWT_CARRIER_XFER).good());
        e = decodeError(dir / "big8.dcm");
        EXPECT_NE(e.find("limit"), std::string::npos) << e;
    }
    // fewer frames than declared
    {
        DPCWTFileFormat in;
        ASSERT_TRUE(in.loadFile(f.path.c_str()).good());
        in.getDataset()->putAndInsertString(DCM_NumberOfFrames, "3");
        ASSERT_TRUE(in.saveFile((dir / "frames.dcm").c_str(), DPCWT_CARRIER_XFER).good());
        e = decodeError(dir / "frames.dcm");
        EXPECT_NE(e, "");
    }
}

TEST(PluginDecoder, FramesSplitIntoSeveralFragments)
{
    // PCWT writers store one fragment per frame; a decoder also follows a Basic Offset Table over
    // frames split into several fragments
    ImageSpec s = spec(30, 26, 1, 16, 12, 0, "MONOCHROME2", 3);
    const std::vector<uint8_t> samples = makeSamples(s);
    std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
    DPCWTRepresentationParameter rp;
    ASSERT_TRUE(src->getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp).good());
    DcmPixelSequence *one = pixelSequence(src->getDataset(), DPCWT_CARRIER_XFER, &rp);
    ASSERT_NE(one, nullptr);

    DcmPixelSequence *split = new DcmPixelSequence(DCM_PixelSequenceTag);
    DcmPixelItem *botItem = new DcmPixelItem(DCM_PixelItemTag);
    split->insert(botItem);
    std::vector<uint64_t> frameLengths;
    for (unsigned long f = 1; f < one->card(); ++f) {
        DcmPixelItem *item = nullptr;
        ASSERT_TRUE(one->getItem(item, f).good());
        Uint8 *data = nullptr;
        ASSERT_TRUE(item->getUint8Array(data).good());
        const Uint32 len = item->getLength();
        const Uint32 cut = (len / 3) & ~1u; // two fragments of even length
        DcmPixelItem *a = new DcmPixelItem(DCM_PixelItemTag);
        DcmPixelItem *b = new DcmPixelItem(DCM_PixelItemTag);
        ASSERT_TRUE(a->putUint8Array(data, cut).good());
        ASSERT_TRUE(b->putUint8Array(data + cut, len - cut).good());
        split->insert(a);
        split->insert(b);
        frameLengths.push_back(8 + cut + 8 + (len - cut) - 8); // offsets step over both items
    }
    std::vector<uint32_t> offsets(frameLengths.size());
    ASSERT_EQ(pcwt_dicom_bot_offsets(frameLengths.data(), frameLengths.size(), offsets.data()), PCWT_DICOM_OK);
    std::vector<uint8_t> bot(4 * offsets.size());
    pcwt_dicom_bot_encode(offsets.data(), offsets.size(), bot.data());
    ASSERT_TRUE(botItem->putUint8Array(bot.data(), static_cast<unsigned long>(bot.size())).good());

    DcmElement *e = nullptr;
    ASSERT_TRUE(src->getDataset()->findAndGetElement(DCM_PixelData, e).good());
    static_cast<DcmPixelData *>(e)->putOriginalRepresentation(DPCWT_CARRIER_XFER, nullptr, split);
    TempDir dir;
    DPCWTFileFormat out(src->getDataset());
    ASSERT_TRUE(out.saveFile((dir / "split.dcm").c_str(), DPCWT_CARRIER_XFER).good());

    Pixels px;
    ASSERT_EQ(loadPixels(dir / "split.dcm", px), "");
    EXPECT_TRUE(px.bytes == samples);
    DPCWTFileFormat in;
    ASSERT_TRUE(in.loadFile((dir / "split.dcm").c_str()).good());
    ASSERT_TRUE(in.getDataset()->findAndGetElement(DCM_PixelData, e).good());
    const size_t fb = frameBytes(s);
    std::vector<uint8_t> buf(fb);
    for (Uint32 f : {2u, 0u, 1u}) {
        Uint32 start = 0;
        OFString model;
        ASSERT_TRUE(static_cast<DcmPixelData *>(e)
                        ->getUncompressedFrame(in.getDataset(), f, start, buf.data(), Uint32(fb), model)
                        .good());
        EXPECT_EQ(std::memcmp(buf.data(), samples.data() + f * fb, fb), 0) << f;
        EXPECT_EQ(start, 2 * f + 3);
    }
}

TEST(PluginDecoder, UnknownSyntaxClaimOnlyForPcwtFiles)
{
    TempDir dir;
    DPCWTCodecParameter cp;
    DPCWTDecoder fallback(EPCDM_unknownEncapsulated);
    ASSERT_TRUE(DcmCodecList::registerCodec(&fallback, nullptr, &cp).good());

    // a JPEG-LS file whose (0002,0010) names another unknown syntax: not ours, not claimed
    ImageSpec s = spec(16, 16, 1, 16, 16, 0, "MONOCHROME2");
    std::unique_ptr<DcmFileFormat> src(makeFile(s, makeSamples(s)));
    DPCWTRepresentationParameter rp;
    ASSERT_TRUE(src->getDataset()->chooseRepresentation(EXS_JPEGLSLossless, &rp).good());
    ASSERT_TRUE(src->saveFile((dir / "jls.dcm").c_str(), EXS_JPEGLSLossless).good());
    for (const char *uid : {"1.2.3.4.5.6.7", PCWT_DICOM_TS_UID}) {
        DcmFileFormat f;
        ASSERT_TRUE(f.loadFile((dir / "jls.dcm").c_str()).good());
        // retag: DcmFileFormat with EWM_dontUpdateMeta keeps the UID we put
        f.getMetaInfo()->putAndInsertString(DCM_TransferSyntaxUID, uid);
        const std::string p = dir / "retagged.dcm";
        ASSERT_TRUE(f.saveFile(p.c_str(), EXS_JPEGLSLossless, EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0,
                               EWM_dontUpdateMeta)
                        .good());
        DcmFileFormat plain;
        ASSERT_TRUE(plain.loadFile(p.c_str()).good());
        OFCondition c = plain.getDataset()->chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
        EXPECT_TRUE(c.bad()) << uid;
        if (std::string(uid) == PCWT_DICOM_TS_UID) {
            EXPECT_NE(std::string(c.text()).find("not a PCWT codestream"), std::string::npos) << c.text();
            EXPECT_NE(decodeError(p), ""); // and through DPCWTFileFormat
        }
    }
    DcmCodecList::deregisterCodec(&fallback);
}

// ------------------------------------------------------------------------------------------------
// concurrency: DcmCodecList calls codecs under a shared read lock, so several threads may be inside
// the encoder and decoder at once

TEST(PluginThreads, ConcurrentEncodeAndDecode)
{
    TempDir dir;
    const int threads = 6, rounds = 4;
    std::atomic<int> failures{0};
    std::vector<std::string> errors(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t]() {
            for (int r = 0; r < rounds; ++r) {
                ImageSpec s = spec(static_cast<uint16_t>(40 + t), static_cast<uint16_t>(50 + r), t % 2 ? 3 : 1,
                                   t % 3 ? 16 : 8, t % 3 ? 12 : 8, 0, t % 2 ? "RGB" : "MONOCHROME2", 1 + r % 3,
                                   ImageSpec::Smooth, static_cast<uint16_t>(t % 2 ? r % 2 : 0));
                s.seed = static_cast<unsigned>(t * 100 + r);
                const std::vector<uint8_t> samples = makeSamples(s);
                std::unique_ptr<DcmFileFormat> src(makeFile(s, samples));
                DPCWTRepresentationParameter rp;
                OFCondition c = src->getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
                const std::string p = dir / ("t" + std::to_string(t) + "_" + std::to_string(r) + ".dcm");
                DPCWTFileFormat out(src->getDataset());
                if (c.good())
                    c = out.saveFile(p.c_str(), DPCWT_CARRIER_XFER);
                Pixels px;
                std::string e = c.good() ? loadPixels(p, px) : std::string(c.text());
                if (e.empty() && px.bytes != samples)
                    e = "pixels differ";
                if (!e.empty()) {
                    ++failures;
                    errors[t] = e;
                }
            }
        });
    }
    for (std::thread &th : pool)
        th.join();
    EXPECT_EQ(failures.load(), 0);
    for (const std::string &e : errors)
        EXPECT_EQ(e, "");
}

TEST(PluginRegistration, TwiceIsANoOpAndVersionsAreNamed)
{
    DPCWTEncoderRegistration::registerCodecs(); // already registered by the environment
    DPCWTDecoderRegistration::registerCodecs();
    ImageSpec s = spec(8, 8, 1, 16, 16, 0, "MONOCHROME2");
    std::unique_ptr<DcmFileFormat> ff(makeFile(s, makeSamples(s)));
    EXPECT_EQ(encodeError(*ff), "");
    EXPECT_NE(std::string(DPCWTEncoderRegistration::getLibraryVersionString().c_str()).find("libpcwt"),
              std::string::npos);
    EXPECT_NE(std::string(DPCWTEncoderRegistration::getLibraryVersionString().c_str()).find("JPEG-LS"),
              std::string::npos);
}
