/*
 *  Module:  dcmpcwt
 *
 *  Purpose: decoder codec class for JPEG 2000 and HTJ2K (see dpj2kdec.h): the DICOM side. The
 *           frames' codestreams are found by dpj2kfrm.cc, decoded by dpj2kcore.cc (OpenJPEG).
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpj2kdec.h"

#include "dcmtk/dcmdata/dcdatset.h"  /* for class DcmDataset */
#include "dcmtk/dcmdata/dcdeftag.h"  /* for tag constants */
#include "dcmtk/dcmdata/dcpixel.h"   /* for class DcmPixelData */
#include "dcmtk/dcmdata/dcpixseq.h"  /* for class DcmPixelSequence */
#include "dcmtk/dcmdata/dcswap.h"    /* for swapIfNecessary() */
#include "dcmtk/dcmdata/dcvrpobw.h"  /* for class DcmPolymorphOBOW */

#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpthrcod.h"
#include "dpj2kfrm.h"
#include "dpmodule.h"

#include <cstring>
#include <sstream>
#include <vector>

#if defined(DCMPCWT_WITH_OPENJPEG)
#include "dpj2kcore.h"
#endif

DPCWTJ2KDecoder::DPCWTJ2KDecoder() : DPCWTCodecBase() {}

DPCWTJ2KDecoder::~DPCWTJ2KDecoder() {}

OFBool DPCWTJ2KDecoder::canChangeCoding(const E_TransferSyntax oldRepType, const E_TransferSyntax newRepType) const
{
  return DPCWTIsJPEG2000Xfer(oldRepType) && DcmXfer(newRepType).isNotEncapsulated();
}

OFBool DPCWTJ2KDecoder::available()
{
#if defined(DCMPCWT_WITH_OPENJPEG)
  return OFTrue;
#else
  return OFFalse;
#endif
}

OFString DPCWTJ2KDecoder::libraryVersion()
{
#if defined(DCMPCWT_WITH_OPENJPEG)
  return OFString("OpenJPEG, Version ") + DPJ2KVersion();
#else
  return "no JPEG 2000 decoder (built without OpenJPEG)";
#endif
}

static OFBool isYBRTransformed(const OFString& pi)
{
  return pi == "YBR_RCT" || pi == "YBR_ICT";
}

OFCondition DPCWTJ2KDecoder::determineDecompressedColorModel(
    const DcmRepresentationParameter * /* fromParam */,
    DcmPixelSequence * /* fromPixSeq */,
    const DcmCodecParameter * /* cp */,
    DcmItem *dataset,
    OFString& decompressedColorModel) const
{
  if (dataset == NULL) return EC_IllegalParameter;
  OFCondition result = dataset->findAndGetOFString(DCM_PhotometricInterpretation, decompressedColorModel);
  if (result.good() && isYBRTransformed(decompressedColorModel)) decompressedColorModel = "RGB";
  return result;
}

#if !defined(DCMPCWT_WITH_OPENJPEG)

static OFCondition noDecoder()
{
  return DPCWTMakeError(EPCEC_NoDecoder, "JPEG 2000 cannot be decoded: libdcmpcwt was built without OpenJPEG "
    "(libopenjp2-7-dev)");
}

OFCondition DPCWTJ2KDecoder::isLossy(DcmItem *, OFBool& lossy)
{
  lossy = OFFalse;
  return noDecoder();
}

OFCondition DPCWTJ2KDecoder::frameCodestreams(DcmItem *, std::vector<DPCWTJ2KCodestream>& frames)
{
  frames.clear();
  return noDecoder();
}

OFCondition DPCWTJ2KDecoder::decode(const DcmRepresentationParameter *, DcmPixelSequence *, DcmPolymorphOBOW&,
                                    const DcmCodecParameter *, const DcmStack&, OFBool&) const
{
  return noDecoder();
}

OFCondition DPCWTJ2KDecoder::decodeFrame(const DcmRepresentationParameter *, DcmPixelSequence *,
                                         const DcmCodecParameter *, DcmItem *, Uint32, Uint32&, void *, Uint32,
                                         OFString&) const
{
  return noDecoder();
}

#else

namespace {

/// the image pixel module of the data set, as far as a JPEG 2000 decoder needs it
OFCondition readModule(DcmItem *dataset, const DPCWTCodecParameter *cp, pcwt_dicom_pixel_module& m)
{
  OFCondition result = DPCWTReadPixelModule(dataset, m);
  if (result.bad()) return result;
  std::ostringstream s;
  if (m.rows == 0 || m.columns == 0 || (m.samples_per_pixel != 1 && m.samples_per_pixel != 3) ||
      (m.bits_allocated != 8 && m.bits_allocated != 16) || m.bits_stored == 0 || m.bits_stored > m.bits_allocated ||
      m.pixel_representation > 1)
  {
    s << "JPEG 2000 pixel data needs Rows and Columns above 0, 1 or 3 samples per pixel and 8 or 16 bits "
      << "allocated holding the bits stored; the image pixel module declares " << DPCWTDescribe(m);
    return DPCWTMakeError(EPCEC_InvalidImage, s.str().c_str());
  }
  const Uint64 samples = OFstatic_cast(Uint64, m.rows) * m.columns * m.samples_per_pixel;
  if (samples > cp->getMaxSamplesPerFrame())
  {
    s << m.columns << "x" << m.rows << "x" << m.samples_per_pixel << " = " << samples
      << " samples per frame exceed the decoder's limit of " << cp->getMaxSamplesPerFrame();
    return DPCWTMakeError(EPCEC_TooLarge, s.str().c_str());
  }
  return EC_Normal;
}

/// bytes of a native frame (pcwt_dicom_frame_bytes() knows only the photometrics PCWT codes)
Uint64 frameBytesOf(const pcwt_dicom_pixel_module& m)
{
  return OFstatic_cast(Uint64, m.rows) * m.columns * m.samples_per_pixel * (m.bits_allocated / 8);
}

/// one frame's codestream, its headers read and checked against the module
struct Frame
{
  DPCWTJ2KFrameData data;
  DPJ2KInfo info;
};

/// what the headers of every frame decided together
struct Outcome
{
  Uint32 precision = 0; ///< the codestreams' precision: the decoded BitsStored
  bool lossy = false;
  bool htj2k = false;
};

OFCondition checkFrame(const DPJ2KInfo& info, const pcwt_dicom_pixel_module& m, Uint64 frameNo, Outcome& out)
{
  std::ostringstream s;
  s << "frame " << (frameNo + 1) << ": ";
  const size_t comps = info.components.size();
  if (info.width != m.columns || info.height != m.rows || comps != m.samples_per_pixel)
  {
    s << "the JPEG 2000 codestream holds " << info.width << "x" << info.height << "x" << comps
      << " samples, the image pixel module declares " << m.columns << "x" << m.rows << "x" << m.samples_per_pixel;
    return DPCWTMakeError(EPCEC_HeaderMismatch, s.str().c_str());
  }
  for (size_t c = 0; c < comps; ++c)
  {
    const DPJ2KComponent& k = info.components[c];
    if (k.dx != 1 || k.dy != 1)
      return DPCWTMakeError(EPCEC_UnsupportedImage,
                            (s.str() + "subsampled JPEG 2000 components are not supported").c_str());
    if (k.precision > m.bits_allocated || k.precision != info.components[0].precision)
    {
      s << "JPEG 2000 component precision " << k.precision << " bits does not fit " << m.bits_allocated
        << " bits allocated (or differs between components)";
      return DPCWTMakeError(EPCEC_HeaderMismatch, s.str().c_str());
    }
  }
  if (out.precision != 0 && out.precision != info.components[0].precision)
    return DPCWTMakeError(EPCEC_HeaderMismatch, (s.str() + "the frames' JPEG 2000 precisions differ").c_str());
  out.precision = info.components[0].precision;
  out.lossy = out.lossy || !info.lossless();
  out.htj2k = out.htj2k || info.htj2k;
  return EC_Normal;
}

/// find, read and check the headers of frame frameNo
OFCondition locate(const DPCWTJ2KFragments& frags, const pcwt_dicom_pixel_module& m, Uint64 frameNo, Frame& frame,
                   Outcome& out)
{
  OFCondition result = DPCWTJ2KFrameCodestream(frags, frameNo, frame.data);
  if (result.bad()) return result;
  std::string error;
  if (!DPJ2KReadInfo(frame.data.data, frame.data.size, frame.info, error))
  {
    std::ostringstream s;
    s << "frame " << (frameNo + 1) << ": JPEG 2000: " << error;
    return DPCWTMakeError(EPCEC_CorruptData, s.str().c_str());
  }
  return checkFrame(frame.info, m, frameNo, out);
}

OFCondition lossyRefused(const DPCWTCodecParameter *cp, const Outcome& out)
{
  if (!out.lossy || cp->getAcceptLossyInput()) return EC_Normal;
  return DPCWTMakeError(EPCEC_LossyInput, "the JPEG 2000 codestream is lossy (irreversible 9/7 wavelet or "
    "quantisation): lossless coding would only preserve its losses; accept lossy input (--accept-lossy) to "
    "decode it anyway");
}

/** whether the samples of a frame decoded ahead (libpcwt's layout: interleaved, unsigned values as
 *  they are, signed ones sign-extended to the bits allocated) are already what decodeInto writes:
 *  the same shape, bits allocated and precision, every component's signedness the Pixel
 *  Representation (masking to the precision and sign-extending then change nothing) */
bool nativeAsDecoded(const pcwt_image_desc& d, const DPJ2KInfo& info, const pcwt_dicom_pixel_module& m,
                     Uint32 precision)
{
  if (d.planar != 0 || d.width != info.width || d.height != info.height || d.components != info.components.size() ||
      d.components != m.samples_per_pixel || d.bits_allocated != m.bits_allocated || d.bits_stored != precision ||
      (d.is_signed != 0) != (m.pixel_representation == 1))
    return false;
  for (const DPJ2KComponent& k : info.components)
    if (k.isSigned != (d.is_signed != 0) || k.precision != precision) return false;
  return true;
}

/** decode one frame into dst: the BitsStored-bit patterns of the decoded values (precision bits),
 *  sign-extended for PixelRepresentation 1, pixel-interleaved; 16-bit samples in host order, 8-bit
 *  ones as bytes */
OFCondition decodeInto(const Frame& frame, const pcwt_dicom_pixel_module& m, Uint32 precision, Uint64 frameNo,
                       void *dst)
{
  DPJ2KImage image;
  std::string error;
  // the samples of a frame decoded ahead (on a GPU, by the thread's coder), else decoded here
  DPCWTThreadCoder *lent = DPCWTGetThreadCoder();
  pcwt_image_desc aheadDesc;
  const void *ahead = NULL;
  const Uint8 *cs = frame.data.data + frame.info.offset;
  const bool lentFrame = lent && lent->decodedJ2KFrame(cs, frame.info.length, aheadDesc, ahead);
  // already the native samples (the usual file): copied as they are, not through int32 planes
  if (lentFrame && nativeAsDecoded(aheadDesc, frame.info, m, precision))
  {
    std::memcpy(dst, ahead, pcwt_image_size(&aheadDesc));
    DCMPCWT_DEBUG("frame " << (frameNo + 1) << ": JPEG 2000 decoded ahead, the native samples as they are");
    return EC_Normal;
  }
  const bool tookAhead = lentFrame &&
    DPJ2KImageFromSamples(aheadDesc, ahead, pcwt_image_size(&aheadDesc), image) &&
    image.width() == frame.info.width && image.height() == frame.info.height &&
    image.components() == frame.info.components.size() &&
    image.precision(0) == frame.info.components[0].precision && image.isSigned(0) == frame.info.components[0].isSigned;
  if (!tookAhead && !DPJ2KDecode(frame.data.data, frame.data.size, frame.info, image, error))
  {
    std::ostringstream s;
    s << "frame " << (frameNo + 1) << ": " << error;
    return DPCWTMakeError(EPCEC_CorruptData, s.str().c_str());
  }
  if (!tookAhead && lent) lent->decodedJ2KHere(image.decoder());
  // which decoder made the frame (libpcwt's, or OpenJPEG for what it does not decode), for -d
  DCMPCWT_DEBUG("frame " << (frameNo + 1) << ": JPEG 2000 decoded by " << image.decoder()
               << (image.fallbackReason().empty() ? "" : " (" + image.fallbackReason() + ")"));
  const size_t pixels = OFstatic_cast(size_t, m.rows) * m.columns;
  const size_t spp = m.samples_per_pixel;
  const Uint32 mask = precision >= 32 ? 0xFFFFFFFFu : (1u << precision) - 1;
  const Uint32 signBit = 1u << (precision - 1);
  const bool extend = m.pixel_representation == 1;
  for (size_t c = 0; c < spp; ++c)
  {
    const int32_t *src = image.plane(OFstatic_cast(uint32_t, c));
    if (m.bits_allocated == 16)
    {
      Uint16 *out = OFstatic_cast(Uint16 *, dst) + c;
      for (size_t i = 0; i < pixels; ++i, out += spp)
      {
        Uint32 v = OFstatic_cast(Uint32, src[i]) & mask;
        if (extend && (v & signBit)) v |= ~mask;
        *out = OFstatic_cast(Uint16, v);
      }
    }
    else
    {
      Uint8 *out = OFstatic_cast(Uint8 *, dst) + c;
      for (size_t i = 0; i < pixels; ++i, out += spp)
      {
        Uint32 v = OFstatic_cast(Uint32, src[i]) & mask;
        if (extend && (v & signBit)) v |= ~mask;
        *out = OFstatic_cast(Uint8, v);
      }
    }
  }
  return EC_Normal;
}

/// the attributes that change with decoding: BitsStored, PhotometricInterpretation, lossy marks
OFCondition updateDataset(DcmItem *dataset, const pcwt_dicom_pixel_module& m, const Outcome& out)
{
  OFCondition result = EC_Normal;
  if (out.precision != m.bits_stored)
  {
    DCMPCWT_DEBUG("BitsStored " << m.bits_stored << " differs from the JPEG 2000 precision " << out.precision
                 << ": BitsStored and HighBit follow the codestream");
    result = dataset->putAndInsertUint16(DCM_BitsStored, OFstatic_cast(Uint16, out.precision));
    if (result.good()) result = dataset->putAndInsertUint16(DCM_HighBit, OFstatic_cast(Uint16, out.precision - 1));
  }
  OFString pi;
  if (result.good() && dataset->findAndGetOFString(DCM_PhotometricInterpretation, pi).good() && isYBRTransformed(pi))
    result = dataset->putAndInsertString(DCM_PhotometricInterpretation, "RGB");
  if (result.good() && m.samples_per_pixel == 3) result = dataset->putAndInsertUint16(DCM_PlanarConfiguration, 0);
  if (result.good() && out.lossy)
  {
    const char *method = out.htj2k ? "ISO_15444_15" : "ISO_15444_1";
    OFString methods;
    result = dataset->putAndInsertString(DCM_LossyImageCompression, "01");
    if (result.good() && (dataset->findAndGetOFStringArray(DCM_LossyImageCompressionMethod, methods).bad() ||
                          methods.find(method) == OFString_npos))
    {
      const OFString value = methods.empty() ? OFString(method) : methods + "\\" + method;
      result = dataset->putAndInsertOFStringArray(DCM_LossyImageCompressionMethod, value);
    }
  }
  return result;
}

} // namespace

OFCondition DPCWTJ2KDecoder::frameCodestreams(DcmItem *dataset, std::vector<DPCWTJ2KCodestream>& frames)
{
  frames.clear();
  DcmElement *elem = NULL;
  if (dataset == NULL || dataset->findAndGetElement(DCM_PixelData, elem).bad() || elem == NULL ||
      elem->ident() != EVR_PixelData)
    return DPCWTMakeError(EPCEC_InvalidImage, "no Pixel Data (7FE0,0010)");
  DcmPixelData *pixelData = OFstatic_cast(DcmPixelData *, elem);
  E_TransferSyntax xfer = EXS_Unknown;
  const DcmRepresentationParameter *param = NULL;
  DcmPixelSequence *seq = NULL;
  pixelData->getOriginalRepresentationKey(xfer, param);
  if (!DPCWTIsJPEG2000Xfer(xfer) || pixelData->getEncapsulatedRepresentation(xfer, param, seq).bad() || seq == NULL)
    return DPCWTMakeError(EPCEC_InvalidImage, "the Pixel Data is not JPEG 2000 or HTJ2K");
  const DPCWTCodecParameter cp; // only its frame size limit is read
  pcwt_dicom_pixel_module m;
  OFCondition result = readModule(dataset, &cp, m);
  DPCWTJ2KFragments frags;
  if (result.good()) result = DPCWTJ2KReadFragments(dataset, seq, m.number_of_frames, frags);
  if (result.good()) frames.resize(OFstatic_cast(size_t, m.number_of_frames));
  Outcome out;
  for (size_t f = 0; f < frames.size() && result.good(); ++f)
  {
    Frame frame;
    result = locate(frags, m, f, frame, out);
    if (result.bad()) break;
    DPCWTJ2KCodestream& c = frames[f];
    c.joined.swap(frame.data.joined);
    const Uint8 *base = c.joined.empty() ? frame.data.data : c.joined.data();
    c.data = base + frame.info.offset;
    c.size = frame.info.length;
    c.lossless = frame.info.lossless();
    c.htj2k = frame.info.htj2k;
  }
  if (result.bad()) frames.clear();
  return result;
}

OFCondition DPCWTJ2KDecoder::isLossy(DcmItem *dataset, OFBool& lossy)
{
  lossy = OFFalse;
  std::vector<DPCWTJ2KCodestream> frames;
  const OFCondition result = frameCodestreams(dataset, frames);
  for (const DPCWTJ2KCodestream& f : frames)
    if (!f.lossless) lossy = OFTrue;
  return result;
}

OFCondition DPCWTJ2KDecoder::decode(
    const DcmRepresentationParameter * /* fromRepParam */,
    DcmPixelSequence *pixSeq,
    DcmPolymorphOBOW& uncompressedPixelData,
    const DcmCodecParameter *cp,
    const DcmStack& objStack,
    OFBool& removeOldRep) const
{
  const DPCWTCodecParameter *pcp = dynamic_cast<const DPCWTCodecParameter *>(cp);
  if (pcp == NULL) return EC_IllegalCall;
  DcmItem *dataset = DPCWTItemFromStack(objStack);
  if (dataset == NULL) return EC_InvalidTag;

  pcwt_dicom_pixel_module m;
  OFCondition result = readModule(dataset, pcp, m);
  DPCWTJ2KFragments frags;
  if (result.good()) result = DPCWTJ2KReadFragments(dataset, pixSeq, m.number_of_frames, frags);
  // every frame located and its headers checked before anything is allocated for the image
  const size_t frames = OFstatic_cast(size_t, m.number_of_frames);
  std::vector<Frame> sources;
  Outcome out;
  if (result.good()) sources.resize(frames);
  for (size_t f = 0; f < frames && result.good(); ++f) result = locate(frags, m, f, sources[f], out);
  if (result.good()) result = lossyRefused(pcp, out);

  const Uint64 frameBytes = frameBytesOf(m);
  const Uint64 totalBytes = frameBytes * m.number_of_frames;
  if (result.good())
  {
    // the image, plus OpenJPEG's 32-bit planes of one frame (twice: its tile buffers)
    const Uint64 limit = DPCWTGetDecodeMemoryLimit() ? DPCWTGetDecodeMemoryLimit() : pcwt_default_memory_limit();
    const Uint64 need = totalBytes + 8 * OFstatic_cast(Uint64, m.rows) * m.columns * m.samples_per_pixel;
    if (totalBytes > 0xFFFFFFFEu || need > limit)
    {
      std::ostringstream s;
      s << "decoding " << frames << " frame(s) of " << frameBytes << " bytes needs " << need
        << " bytes, more than the memory limit of " << limit << " bytes or DICOM's 32-bit length";
      result = DPCWTMakeError(EPCEC_TooLarge, s.str().c_str());
    }
  }
  Uint16 *words = NULL;
  if (result.good())
    result = uncompressedPixelData.createUint16Array(OFstatic_cast(Uint32, (totalBytes + 1) / 2), words);
  if (result.good())
  {
    Uint8 *bytes = OFreinterpret_cast(Uint8 *, words);
    for (size_t f = 0; f < frames && result.good(); ++f)
      result = decodeInto(sources[f], m, out.precision, f, bytes + f * frameBytes);
    if (totalBytes & 1) bytes[totalBytes] = 0; // pad byte
    // 8-bit samples: DCMTK keeps them in 16-bit words of local byte order
    if (result.good() && m.bits_allocated == 8)
      result = swapIfNecessary(gLocalByteOrder, EBO_LittleEndian, words,
                               OFstatic_cast(Uint32, (totalBytes + 1) & ~OFstatic_cast(Uint64, 1)), sizeof(Uint16));
  }
  if (result.good()) result = updateDataset(dataset, m, out);
  if (result.bad())
  {
    DCMPCWT_DEBUG("cannot decode JPEG 2000: " << result.text()); // the caller reports the condition
    return result;
  }
  removeOldRep = OFTrue; // as dcmjpls: the native pixel data replaces the compressed
  if (dataset->ident() == EVR_dataset && pcp->getUIDCreation() == EPCUC_always)
    result = DcmCodec::newInstance(dataset, NULL, NULL, NULL);
  return result;
}

OFCondition DPCWTJ2KDecoder::decodeFrame(
    const DcmRepresentationParameter * /* fromParam */,
    DcmPixelSequence *fromPixSeq,
    const DcmCodecParameter *cp,
    DcmItem *dataset,
    Uint32 frameNo,
    Uint32& startFragment,
    void *buffer,
    Uint32 bufSize,
    OFString& decompressedColorModel) const
{
  const DPCWTCodecParameter *pcp = dynamic_cast<const DPCWTCodecParameter *>(cp);
  if (pcp == NULL || dataset == NULL || buffer == NULL) return EC_IllegalCall;
  pcwt_dicom_pixel_module m;
  OFCondition result = readModule(dataset, pcp, m);
  if (result.good() && frameNo >= m.number_of_frames)
    result = DPCWTMakeError(EPCEC_InvalidImage, "frame number beyond NumberOfFrames");
  const Uint64 frameBytes = frameBytesOf(m);
  if (result.good() && OFstatic_cast(Uint64, bufSize) < frameBytes) result = EC_IllegalCall;
  DPCWTJ2KFragments frags;
  if (result.good()) result = DPCWTJ2KReadFragments(dataset, fromPixSeq, m.number_of_frames, frags);
  Frame frame;
  Outcome out;
  if (result.good()) result = locate(frags, m, frameNo, frame, out);
  if (result.good()) result = lossyRefused(pcp, out);
  if (result.good()) result = decodeInto(frame, m, out.precision, frameNo, buffer);
  if (result.good())
  {
    startFragment = frame.data.nextFragment;
    if (m.bits_allocated == 8)
    {
      Uint32 n = OFstatic_cast(Uint32, frameBytes);
      if ((n & 1) && bufSize > n) { OFstatic_cast(Uint8 *, buffer)[n] = 0; ++n; }
      result = swapIfNecessary(gLocalByteOrder, EBO_LittleEndian, buffer, n, sizeof(Uint16));
    }
  }
  if (result.good())
    result = determineDecompressedColorModel(NULL, fromPixSeq, cp, dataset, decompressedColorModel);
  else
    DCMPCWT_ERROR("cannot decode frame " << (frameNo + 1) << ": " << result.text());
  return result;
}

#endif
