/*
 *  Module:  dcmpcwt
 *
 *  Purpose: decoder codec class for the PCWT private transfer syntax.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcodecd.h"

#include "dcmtk/dcmdata/dcdatset.h"  /* for class DcmDataset */
#include "dcmtk/dcmdata/dcdeftag.h"  /* for tag constants */
#include "dcmtk/dcmdata/dcfilefo.h"  /* for class DcmFileFormat */
#include "dcmtk/dcmdata/dcmetinf.h"  /* for class DcmMetaInfo */
#include "dcmtk/dcmdata/dcpixseq.h"  /* for class DcmPixelSequence */
#include "dcmtk/dcmdata/dcpxitem.h"  /* for class DcmPixelItem */
#include "dcmtk/dcmdata/dcswap.h"    /* for swapIfNecessary() */
#include "dcmtk/dcmdata/dcvrpobw.h"  /* for class DcmPolymorphOBOW */

#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpthrcod.h"
#include "dpbackend.h"
#include "dpdecpool.h"
#include "dpmodule.h"

#include <cstring>
#include <sstream>
#include <vector>

struct DPCWTDecoder::Fragments
{
  /// fragment items (the offset table item not included)
  std::vector<DcmPixelItem *> items;
  /// their value lengths
  std::vector<Uint64> lengths;
  /// the Basic Offset Table (frames entries) when present
  std::vector<uint32_t> offsets;
  /// true if the Basic Offset Table is present
  OFBool haveOffsets;
  /// number of frames
  Uint64 frames;

  Fragments() : items(), lengths(), offsets(), haveOffsets(OFFalse), frames(0) {}
};

DPCWTDecoder::DPCWTDecoder(DPCWT_DecoderMode mode)
: DPCWTCodecBase()
, mode_(mode)
, pool_(new DPCWTDecoderPool)
{
}

DPCWTDecoder::~DPCWTDecoder()
{
  delete pool_;
}

OFBool DPCWTDecoder::canChangeCoding(
    const E_TransferSyntax oldRepType,
    const E_TransferSyntax newRepType) const
{
  // this codec only handles conversion from PCWT to uncompressed
  DcmXfer newRep(newRepType);
  if (!newRep.isNotEncapsulated()) return OFFalse;
  if (mode_ == EPCDM_unknownEncapsulated)
  {
    // DCMTK keys encapsulated pixel data read under an unknown transfer syntax as Explicit VR
    // Little Endian and asks for exactly this pair; decode() checks that the file is ours
    return (oldRepType == EXS_LittleEndianExplicit) && (newRepType == EXS_LittleEndianExplicit);
  }
  return oldRepType == DPCWT_CARRIER_XFER;
}

OFBool DPCWTDecoder::isInPCWTFile(DcmObject *dataset)
{
  DcmObject *obj = dataset;
  while (obj != NULL && obj->ident() != EVR_fileFormat) obj = obj->getParent();
  if (obj == NULL) return OFFalse;
  DcmMetaInfo *meta = OFstatic_cast(DcmFileFormat *, obj)->getMetaInfo();
  OFString ts;
  return meta != NULL && meta->findAndGetOFString(DCM_TransferSyntaxUID, ts).good() &&
         ts == DCMPCWT_TRANSFER_SYNTAX_UID;
}

OFCondition DPCWTDecoder::checkClaim(DcmItem *dataset, DcmPixelSequence *pixSeq) const
{
  if (mode_ != EPCDM_unknownEncapsulated) return EC_Normal;
  // only files whose (0002,0010) is the PCWT UID and whose first fragment is a PCWT codestream
  if (!isInPCWTFile(dataset))
  {
    DCMPCWT_DEBUG("encapsulated pixel data of an unknown transfer syntax that is not "
      << DCMPCWT_TRANSFER_SYNTAX_UID << ": not decoding it");
    return EC_CannotChangeRepresentation;
  }
  DcmPixelItem *item = NULL;
  Uint8 *data = NULL;
  if (pixSeq == NULL || pixSeq->card() < 2 || pixSeq->getItem(item, 1).bad() || item == NULL ||
      item->getLength() < 4 || item->getUint8Array(data).bad() || data == NULL ||
      std::memcmp(data, "PCWT", 4) != 0)
    return DPCWTMakeError(EPCEC_NotPCWT, "the file declares the PCWT transfer syntax, but its first "
      "fragment is not a PCWT codestream");
  return EC_Normal;
}

/* the decoder's limit, checked on the image pixel module before anything is read or allocated */
static OFCondition checkLimit(const pcwt_dicom_pixel_module& module, const DPCWTCodecParameter *cp)
{
  const Uint64 samples = OFstatic_cast(Uint64, module.rows) * module.columns * module.samples_per_pixel;
  if (samples <= cp->getMaxSamplesPerFrame()) return EC_Normal;
  std::ostringstream s;
  s << module.columns << "x" << module.rows << "x" << module.samples_per_pixel << " = " << samples
    << " samples per frame exceed the decoder's limit of " << cp->getMaxSamplesPerFrame();
  return DPCWTMakeError(EPCEC_TooLarge, s.str().c_str());
}

/* the image pixel module of dataset, checked for PCWT and against the decoder's limit */
static OFCondition readModule(DcmItem *dataset, const DPCWTCodecParameter *cp, pcwt_dicom_pixel_module& module)
{
  OFCondition result = DPCWTReadPixelModule(dataset, module);
  if (result.good()) result = DPCWTValidatePixelModule(module, PCWT_DICOM_TARGET_PCWT);
  if (result.good()) result = checkLimit(module, cp);
  return result;
}

OFCondition DPCWTDecoder::readFragments(DcmPixelSequence *pixSeq, Uint64 frames, Fragments& frags)
{
  frags.frames = frames;
  const unsigned long card = pixSeq ? pixSeq->card() : 0;
  if (card < 2)
    return DPCWTMakeError(EPCEC_CorruptData, "the pixel sequence holds no fragments");
  DcmPixelItem *item = NULL;
  for (unsigned long i = 1; i < card; ++i)
  {
    if (pixSeq->getItem(item, i).bad() || item == NULL)
      return DPCWTMakeError(EPCEC_CorruptData, "cannot access a fragment of the pixel sequence");
    frags.items.push_back(item);
    frags.lengths.push_back(item->getLength());
  }
  // the offset table
  if (pixSeq->getItem(item, 0).bad() || item == NULL)
    return DPCWTMakeError(EPCEC_CorruptData, "the pixel sequence lacks its Basic Offset Table item");
  const Uint32 botLength = item->getLength();
  if (botLength > 0)
  {
    Uint8 *bot = NULL;
    if (item->getUint8Array(bot).bad() || bot == NULL)
      return DPCWTMakeError(EPCEC_CorruptData, "cannot read the Basic Offset Table");
    if (OFstatic_cast(Uint64, botLength) != 4 * frames)
    {
      std::ostringstream s;
      s << "the Basic Offset Table has " << botLength / 4 << " entries for " << frames << " frame(s)";
      return DPCWTMakeError(EPCEC_CorruptData, s.str().c_str());
    }
    frags.offsets.resize(OFstatic_cast(size_t, frames));
    int present = 0;
    if (pcwt_dicom_bot_decode(bot, botLength, frames, frags.offsets.data(), &present) != PCWT_DICOM_OK)
      return DPCWTMakeError(EPCEC_CorruptData, "the Basic Offset Table is corrupt (it must start at 0 and increase)");
    frags.haveOffsets = present ? OFTrue : OFFalse;
  }
  if (frags.items.size() < frames && !frags.haveOffsets)
  {
    std::ostringstream s;
    s << frags.items.size() << " fragment(s) for " << frames << " frame(s)";
    return DPCWTMakeError(EPCEC_CorruptData, s.str().c_str());
  }
  return EC_Normal;
}

struct DPCWTDecoder::FrameSource
{
  /// the codestream (in a fragment item, or in joined)
  const Uint8 *data;
  /// its length (without the pad byte)
  size_t size;
  /// the fragments of a frame stored in several, concatenated
  std::vector<Uint8> joined;
  /// item index of the fragment after this frame's (the offset table is item 0)
  Uint32 nextFragment;
  /// host bytes its decode occupies at most, decoded samples included (pcwt_decode_memory_bound)
  Uint64 memoryBound;

  FrameSource() : data(NULL), size(0), joined(), nextFragment(0), memoryBound(0) {}
};

OFCondition DPCWTDecoder::locateFrame(
    const Fragments& frags,
    const pcwt_dicom_pixel_module& module,
    const DPCWTCodecParameter *cp,
    Uint64 frameNo,
    FrameSource& source)
{
  size_t first = 0, count = 0;
  if (pcwt_dicom_frame_fragments(frags.haveOffsets ? frags.offsets.data() : NULL, frags.frames,
        frags.lengths.data(), frags.items.size(), frameNo, &first, &count) != PCWT_DICOM_OK)
  {
    std::ostringstream s;
    s << "cannot find the fragments of frame " << (frameNo + 1) << " (" << frags.items.size()
      << " fragment(s) for " << frags.frames << " frame(s), Basic Offset Table "
      << (frags.haveOffsets ? "inconsistent" : "empty") << ")";
    return DPCWTMakeError(EPCEC_CorruptData, s.str().c_str());
  }

  // the codestream: one fragment in place, several concatenated
  const Uint8 *data = NULL;
  Uint64 size = 0;
  for (size_t i = first; i < first + count; ++i)
  {
    Uint8 *frag = NULL;
    if (frags.items[i]->getUint8Array(frag).bad() || (frag == NULL && frags.lengths[i] > 0))
      return DPCWTMakeError(EPCEC_CorruptData, "cannot read a fragment (truncated file?)");
    if (count == 1) { data = frag; size = frags.lengths[i]; }
    else if (frags.lengths[i] > 0) source.joined.insert(source.joined.end(), frag, frag + frags.lengths[i]);
  }
  if (count > 1) { data = source.joined.data(); size = source.joined.size(); }

  std::ostringstream where;
  where << "frame " << (frameNo + 1) << ": ";
  if (data == NULL || size < 4 || std::memcmp(data, "PCWT", 4) != 0)
  {
    const char *what = (data != NULL && size >= 2 && data[0] == 0xFF && data[1] == 0xD8)
      ? "holds a JPEG family codestream, not a PCWT codestream" : "is not a PCWT codestream";
    return DPCWTMakeError(EPCEC_CorruptData, (where.str() + what).c_str());
  }

  // the header must describe exactly the frame the image pixel module declares
  pcwt_header_info info;
  const pcwt_status st = pcwt_read_header(data, OFstatic_cast(size_t, size), &info);
  if (st != PCWT_OK)
    return DPCWTMakeError(EPCEC_CorruptData, (where.str() + "PCWT header: " + pcwt_status_string(st)).c_str());
  pcwt_image_desc want;
  pcwt_dicom_image_desc(&module, &want);
  const pcwt_image_desc& got = info.desc;
  if (got.width != want.width || got.height != want.height || got.components != want.components ||
      got.bits_allocated != want.bits_allocated || got.bits_stored != want.bits_stored ||
      got.is_signed != want.is_signed || got.planar != want.planar)
  {
    std::ostringstream s;
    s << where.str() << "the codestream holds " << got.width << "x" << got.height << "x" << got.components
      << " samples of " << got.bits_allocated << "/" << got.bits_stored << (got.is_signed ? " signed" : " unsigned")
      << (got.planar ? " planar" : "") << " bits, the image pixel module declares " << want.width << "x"
      << want.height << "x" << want.components << " of " << want.bits_allocated << "/" << want.bits_stored
      << (want.is_signed ? " signed" : " unsigned") << (want.planar ? " planar" : "");
    return DPCWTMakeError(EPCEC_HeaderMismatch, s.str().c_str());
  }
  if (info.codestream_length > size)
    return DPCWTMakeError(EPCEC_CorruptData, (where.str() + "the codestream is truncated").c_str());
  const Uint64 samples = OFstatic_cast(Uint64, got.width) * got.height * got.components;
  if (samples > cp->getMaxSamplesPerFrame())
  {
    std::ostringstream s;
    s << where.str() << samples << " samples exceed the decoder's limit of " << cp->getMaxSamplesPerFrame();
    return DPCWTMakeError(EPCEC_TooLarge, s.str().c_str());
  }
  source.data = data;
  source.size = info.codestream_length;
  source.memoryBound = pcwt_decode_memory_bound(&info);
  source.nextFragment = OFstatic_cast(Uint32, first + count + 1);
  return EC_Normal;
}

/* the settings of a handle for an image of `bytes` bytes of samples: the codec's, with the
 * backend for its size when AUTO (dpbackend.h: a small image on the CPU) */
static DPCWTDecoderSettings settingsOf(const DPCWTCodecParameter *cp, Uint64 bytes)
{
  const DPCWTDecoderSettings s = {DPCWTBackendForSize(cp->getBackend(), bytes), cp->getMaxSamplesPerFrame(),
                                  DPCWTGetDecodeMemoryLimit()};
  return s;
}

void DPCWTDecoder::returnDecoder(pcwt_decoder *dec, const DPCWTCodecParameter *cp, Uint64 bytes,
                                 OFBool succeeded) const
{
  // a handle that failed may hold a device in an unknown state: never kept
  if (succeeded) pool_->give(dec, settingsOf(cp, bytes));
  else pcwt_decoder_destroy(dec);
}

pcwt_decoder *DPCWTDecoder::takeDecoder(const DPCWTCodecParameter *cp, Uint64 bytes, OFCondition& result) const
{
  const DPCWTDecoderSettings settings = settingsOf(cp, bytes);
  pcwt_decoder *dec = pool_->take(settings);
  if (dec != NULL)
  {
    result = EC_Normal;
    return dec;
  }
  dec = pcwt_decoder_create();
  if (dec == NULL)
  {
    result = EC_MemoryExhausted;
    return NULL;
  }
  pcwt_status st = pcwt_decoder_set_max_samples(dec, settings.maxSamples);
  if (st == PCWT_OK) st = pcwt_decoder_set_backend(dec, settings.backend);
  if (st == PCWT_OK) st = pcwt_decoder_set_memory_limit(dec, settings.memoryLimit);
  if (st != PCWT_OK)
  {
    result = DPCWTMakeError(EPCEC_CodecError, OFString("libpcwt: ") + pcwt_decoder_last_error(dec));
    pcwt_decoder_destroy(dec);
    return NULL;
  }
  result = EC_Normal;
  return dec;
}

/* a libpcwt decoding failure as a condition naming the frame */
static OFCondition decodeFailure(pcwt_decoder *dec, Uint64 frameNo, pcwt_status st)
{
  std::ostringstream s;
  s << "frame " << (frameNo + 1) << ": libpcwt: " << pcwt_status_string(st);
  const char *detail = pcwt_decoder_last_error(dec);
  if (detail && *detail) s << " (" << detail << ")";
  return DPCWTMakeError(st == PCWT_ERR_LIMIT_EXCEEDED ? EPCEC_TooLarge : EPCEC_CorruptData, s.str().c_str());
}

OFCondition DPCWTDecoder::decode(
    const DcmRepresentationParameter * /* fromRepParam */,
    DcmPixelSequence * pixSeq,
    DcmPolymorphOBOW& uncompressedPixelData,
    const DcmCodecParameter * cp,
    const DcmStack& objStack,
    OFBool& removeOldRep) const
{
  const DPCWTCodecParameter *pcp = dynamic_cast<const DPCWTCodecParameter *>(cp);
  if (pcp == NULL) return EC_IllegalCall;
  DcmItem *dataset = DPCWTItemFromStack(objStack);
  if (dataset == NULL) return EC_InvalidTag;

  OFCondition result = checkClaim(dataset, pixSeq);
  if (result.bad()) return result;

  pcwt_dicom_pixel_module module;
  result = readModule(dataset, pcp, module);
  Fragments frags;
  if (result.good()) result = readFragments(pixSeq, module.number_of_frames, frags);
  if (result.bad())
  {
    DCMPCWT_DEBUG("cannot decode: " << result.text()); // the caller reports the condition
    return result;
  }
  DCMPCWT_DEBUG("decoding " << DPCWTDescribe(module) << ", " << frags.items.size() << " fragment(s)");

  const Uint64 frameBytes = pcwt_dicom_frame_bytes(&module);
  const Uint64 totalBytes = frameBytes * module.number_of_frames;
  // every frame is located and its codestream header checked against the module and the limits
  // before the image is allocated
  const size_t frames = OFstatic_cast(size_t, module.number_of_frames);
  std::vector<FrameSource> sources(frames);
  for (size_t f = 0; f < frames && result.good(); ++f)
    result = locateFrame(frags, module, pcp, f, sources[f]);
  // the decoder the application lent this thread (dpthrcod.h), or one of our own
  DPCWTThreadCoder *lent = DPCWTGetThreadCoder();
  pcwt_decoder *lentDecoder = lent ? lent->decoder() : NULL;
  pcwt_decoder *dec = lentDecoder;
  if (result.good() && dec == NULL) dec = takeDecoder(pcp, totalBytes, result);

  // the image buffer holds all frames at once, and libpcwt decodes them in one batch: their
  // bounds together (each includes its frame's samples) must fit the budget before we allocate
  if (result.good())
  {
    const Uint64 limit = DPCWTGetDecodeMemoryLimit() ? DPCWTGetDecodeMemoryLimit() : pcwt_default_memory_limit();
    Uint64 need = 0;
    for (size_t f = 0; f < frames && need <= limit; ++f)
      need = (sources[f].memoryBound > limit) ? limit + 1 : need + sources[f].memoryBound;
    if (need > limit)
    {
      std::ostringstream s;
      s << "decoding " << frames << " frame(s) of " << frameBytes << " bytes needs more than the memory limit of "
        << limit << " bytes (dcmdpcwt --max-memory)";
      result = DPCWTMakeError(EPCEC_TooLarge, s.str().c_str());
    }
  }
  Uint16 *words = NULL;
  if (result.good())
    result = uncompressedPixelData.createUint16Array(OFstatic_cast(Uint32, (totalBytes + 1) / 2), words);
  if (result.good())
  {
    // all frames in one call: the GPU backend decodes them together
    Uint8 *bytes = OFreinterpret_cast(Uint8 *, words);
    std::vector<pcwt_decode_job> jobs(frames);
    for (size_t f = 0; f < frames; ++f)
    {
      std::memset(&jobs[f], 0, sizeof jobs[f]);
      jobs[f].src = sources[f].data;
      jobs[f].src_size = sources[f].size;
      jobs[f].dst = bytes + f * frameBytes;
      jobs[f].dst_capacity = OFstatic_cast(size_t, frameBytes);
    }
    const pcwt_status st = pcwt_decode_batch(dec, jobs.data(), jobs.size());
    if (st != PCWT_OK)
    {
      size_t f = 0;
      while (f + 1 < frames && jobs[f].status == PCWT_OK) ++f;
      result = decodeFailure(dec, f, jobs[f].status != PCWT_OK ? jobs[f].status : st);
    }
    if (totalBytes & 1) bytes[totalBytes] = 0; // pad byte
    // 8-bit samples: DCMTK keeps them in 16-bit words of local byte order
    if (result.good() && module.bits_allocated == 8)
      result = swapIfNecessary(gLocalByteOrder, EBO_LittleEndian, words,
                               OFstatic_cast(Uint32, (totalBytes + 1) & ~OFstatic_cast(Uint64, 1)), sizeof(Uint16));
  }
  if (dec && dec != lentDecoder) returnDecoder(dec, pcp, totalBytes, result.good());
  if (result.bad())
  {
    DCMPCWT_DEBUG("cannot decode: " << result.text()); // the caller reports the condition
    return result;
  }

  // as dcmjpls: drop the compressed representation, so that changes made to the uncompressed
  // pixel data can never be undone by writing a stale compressed copy (and, for pixel data read
  // under an unknown transfer syntax, the Explicit VR Little Endian key of encapsulated data goes)
  removeOldRep = OFTrue;

  if (dataset->ident() == EVR_dataset && pcp->getUIDCreation() == EPCUC_always)
    result = DcmCodec::newInstance(dataset, NULL, NULL, NULL);
  return result;
}

OFCondition DPCWTDecoder::decodeFrame(
    const DcmRepresentationParameter * /* fromParam */,
    DcmPixelSequence * fromPixSeq,
    const DcmCodecParameter * cp,
    DcmItem *dataset,
    Uint32 frameNo,
    Uint32& startFragment,
    void * buffer,
    Uint32 bufSize,
    OFString& decompressedColorModel) const
{
  const DPCWTCodecParameter *pcp = dynamic_cast<const DPCWTCodecParameter *>(cp);
  if (pcp == NULL || dataset == NULL || buffer == NULL) return EC_IllegalCall;
  OFCondition result = checkClaim(dataset, fromPixSeq);
  if (result.bad()) return result;

  pcwt_dicom_pixel_module module;
  result = readModule(dataset, pcp, module);
  if (result.good() && frameNo >= module.number_of_frames)
    result = DPCWTMakeError(EPCEC_InvalidImage, "frame number beyond NumberOfFrames");
  const Uint64 frameBytes = pcwt_dicom_frame_bytes(&module);
  if (result.good() && OFstatic_cast(Uint64, bufSize) < frameBytes) result = EC_IllegalCall;
  Fragments frags;
  if (result.good()) result = readFragments(fromPixSeq, module.number_of_frames, frags);
  FrameSource source;
  if (result.good()) result = locateFrame(frags, module, pcp, frameNo, source);
  pcwt_decoder *dec = NULL;
  if (result.good()) dec = takeDecoder(pcp, frameBytes, result);
  if (result.good())
  {
    const pcwt_status st = pcwt_decode(dec, source.data, source.size, buffer, OFstatic_cast(size_t, frameBytes));
    if (st != PCWT_OK) result = decodeFailure(dec, frameNo, st);
  }
  if (dec) returnDecoder(dec, pcp, frameBytes, result.good());
  if (result.good())
  {
    startFragment = source.nextFragment;
    if (module.bits_allocated == 8)
    {
      // as DcmPixelData expects: bytes in 16-bit words of local byte order (the buffer has room
      // for the pad byte of an odd frame)
      Uint32 n = OFstatic_cast(Uint32, frameBytes);
      if ((n & 1) && bufSize > n) { OFstatic_cast(Uint8 *, buffer)[n] = 0; ++n; }
      result = swapIfNecessary(gLocalByteOrder, EBO_LittleEndian, buffer, n, sizeof(Uint16));
    }
  }
  if (result.good())
    result = dataset->findAndGetOFString(DCM_PhotometricInterpretation, decompressedColorModel);
  else
    DCMPCWT_ERROR("cannot decode frame " << (frameNo + 1) << ": " << result.text());
  return result;
}

OFCondition DPCWTDecoder::determineDecompressedColorModel(
    const DcmRepresentationParameter * /* fromParam */,
    DcmPixelSequence * /* fromPixSeq */,
    const DcmCodecParameter * /* cp */,
    DcmItem * dataset,
    OFString & decompressedColorModel) const
{
  if (dataset == NULL) return EC_IllegalParameter;
  OFCondition result = dataset->findAndGetOFString(DCM_PhotometricInterpretation, decompressedColorModel);
  if (result == EC_TagNotFound)
  {
    DCMPCWT_WARN("mandatory element PhotometricInterpretation " << DCM_PhotometricInterpretation << " is missing");
    result = EC_MissingAttribute;
  }
  else if (result.good() && decompressedColorModel.empty())
  {
    DCMPCWT_WARN("no value for mandatory element PhotometricInterpretation " << DCM_PhotometricInterpretation);
    result = EC_MissingValue;
  }
  return result;
}
