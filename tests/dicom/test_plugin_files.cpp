// In-process tests of the DCMTK plugin (plugin/), beside the round trips of test_plugin.cpp:
// refusals, the SOP Instance UID policy, the codec parameter, DPCWTFileFormat and icon images, the
// decoder on corrupt data and fragmented frames, the unknown-transfer-syntax claim of the preload
// library, concurrent use and registration. The codecs are registered by test_plugin.cpp's
// environment.
#include "plugin_test_util.h"

#include "dcmpcwt/dpcodecd.h"
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"

#include "dcmtk/dcmdata/dcsequen.h"
#include "dcmtk/dcmdata/dcvrobow.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>

using namespace dt;

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

// the option of an encoder that a codec parameter configured (-1: refused)
static int64_t configured(const DPCWTCodecParameter& cp, pcwt_option option, OFBool withBackend = OFTrue)
{
  std::unique_ptr<pcwt_encoder, void (*)(pcwt_encoder *)> e(pcwt_encoder_create(), pcwt_encoder_destroy);
  int64_t v = -1;
  if (!e || cp.configureEncoder(e.get(), withBackend) != PCWT_OK ||
      pcwt_encoder_get_option(e.get(), option, &v) != PCWT_OK)
    return -1;
  return v;
}

TEST(PluginCodecParameter, Profile)
{
  const DPCWTCodecParameter byDefault;
  EXPECT_EQ(byDefault.getProfile(), PCWT_PROFILE_COMPACT);
  EXPECT_EQ(configured(byDefault, PCWT_OPT_PROFILE), PCWT_PROFILE_COMPACT);
  const DPCWTCodecParameter entropy(EPCUC_default, OFFalse, OFFalse, 3, 16, 8, PCWT_BACKEND_CPU,
                                    OFstatic_cast(Uint64, 1) << 20, PCWT_PROFILE_ENTROPY);
  EXPECT_EQ(entropy.getProfile(), PCWT_PROFILE_ENTROPY);
  EXPECT_EQ(entropy.getLevels(), 3u);
  EXPECT_EQ(entropy.getGroupRows(), 16u);
  EXPECT_EQ(entropy.getGroupColumns(), 8u);
  EXPECT_EQ(configured(entropy, PCWT_OPT_PROFILE), PCWT_PROFILE_ENTROPY);
  EXPECT_EQ(configured(entropy, PCWT_OPT_CODEC), PCWT_CODEC_PCWT);
  EXPECT_EQ(configured(entropy, PCWT_OPT_LEVELS), 3);
  EXPECT_EQ(configured(entropy, PCWT_OPT_GROUP_ROWS), 16);
  EXPECT_EQ(configured(entropy, PCWT_OPT_GROUP_COLS), 8);
  EXPECT_EQ(configured(entropy, PCWT_OPT_BACKEND), PCWT_BACKEND_CPU);
  // without the backend: the handle's stays (a new one's: automatic)
  EXPECT_EQ(configured(entropy, PCWT_OPT_BACKEND, OFFalse), PCWT_BACKEND_AUTO);
  // copies keep it
  std::unique_ptr<DcmCodecParameter> clone(entropy.clone());
  ASSERT_STREQ(clone->className(), "DPCWTCodecParameter");
  EXPECT_EQ(static_cast<DPCWTCodecParameter *>(clone.get())->getProfile(), PCWT_PROFILE_ENTROPY);
  EXPECT_EQ(configured(*static_cast<DPCWTCodecParameter *>(clone.get()), PCWT_OPT_PROFILE), PCWT_PROFILE_ENTROPY);
  const DPCWTCodecParameter copy(entropy);
  EXPECT_EQ(copy.getProfile(), PCWT_PROFILE_ENTROPY);
}

// settings libpcwt refuses are refused by the codec parameter, with the library's message
TEST(PluginCodecParameter, RefusedSettings)
{
  std::unique_ptr<pcwt_encoder, void (*)(pcwt_encoder *)> e(pcwt_encoder_create(), pcwt_encoder_destroy);
  ASSERT_TRUE(e);
  const DPCWTCodecParameter tooDeep(EPCUC_default, OFFalse, OFFalse, PCWT_MAX_LEVELS + 1);
  EXPECT_EQ(tooDeep.configureEncoder(e.get()), PCWT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pcwt_encoder_last_error(e.get())).find("levels"), std::string::npos)
      << pcwt_encoder_last_error(e.get());
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
