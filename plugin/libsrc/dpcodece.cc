/*
 *  Module:  dcmpcwt
 *
 *  Purpose: encoder codec classes: uncompressed pixel data to PCWT and to JPEG-LS Lossless.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcodece.h"

#include "dcmtk/dcmdata/dcdatset.h"  /* for class DcmDataset */
#include "dcmtk/dcmdata/dcdeftag.h"  /* for tag constants */
#include "dcmtk/dcmdata/dcpixseq.h"  /* for class DcmPixelSequence */
#include "dcmtk/dcmdata/dcpxitem.h"  /* for class DcmPixelItem */
#include "dcmtk/dcmdata/dcswap.h"    /* for swapIfNecessary() */
#include "dcmtk/dcmdata/dcuid.h"     /* for UID constants */

#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpthrcod.h"
#include "dpbackend.h"
#include "dpjpegls.h"
#include "dpmodule.h"

#include <cstring>
#include <memory>
#include <new>
#include <sstream>
#include <vector>

E_TransferSyntax DPCWTEncoder::supportedTransferSyntax() const
{
  return DPCWT_CARRIER_XFER;
}

pcwt_dicom_target DPCWTEncoder::target() const
{
  return PCWT_DICOM_TARGET_PCWT;
}

E_TransferSyntax DPCWTJPEGLSEncoder::supportedTransferSyntax() const
{
  return EXS_JPEGLSLossless;
}

pcwt_dicom_target DPCWTJPEGLSEncoder::target() const
{
  return PCWT_DICOM_TARGET_JPEGLS;
}

// --------------------------------------------------------------------------

DPCWTEncoderBase::DPCWTEncoderBase()
: DPCWTCodecBase()
{
}

DPCWTEncoderBase::~DPCWTEncoderBase()
{
}

OFBool DPCWTEncoderBase::canChangeCoding(
    const E_TransferSyntax oldRepType,
    const E_TransferSyntax newRepType) const
{
  // this codec only handles conversion from uncompressed to its transfer syntax
  DcmXfer oldRep(oldRepType);
  return (oldRep.isNotEncapsulated() && (newRepType == supportedTransferSyntax()));
}

/* the LossyImageCompression flag of the item or of the data set it belongs to */
static OFBool wasLossyCompressed(DcmItem *item)
{
  OFString v;
  if (item->findAndGetOFString(DCM_LossyImageCompression, v).good() && v == "01") return OFTrue;
  DcmItem *root = item->getRootItem();
  if (root != NULL && root != item &&
      root->findAndGetOFString(DCM_LossyImageCompression, v).good() && v == "01") return OFTrue;
  return OFFalse;
}

// Refusals are logged at debug level only: chooseRepresentation() hands the condition and its
// text to the caller, which reports it once (a tool's error is then one line, not two).
OFCondition DPCWTEncoderBase::encode(
    const Uint16 * pixelData,
    const Uint32 length,
    const DcmRepresentationParameter * /* toRepParam */,
    DcmPixelSequence * & pixSeq,
    const DcmCodecParameter *cp,
    DcmStack& objStack,
    OFBool& removeOldRep) const
{
  pixSeq = NULL;
  const DPCWTCodecParameter *pcp = dynamic_cast<const DPCWTCodecParameter *>(cp);
  if (pcp == NULL) return EC_IllegalCall;

  DcmItem *dataset = DPCWTItemFromStack(objStack);
  if (dataset == NULL) return EC_InvalidTag;

  // the image pixel module, checked for this target before anything else
  pcwt_dicom_pixel_module module;
  OFCondition result = DPCWTReadPixelModule(dataset, module);
  if (result.good()) result = DPCWTValidatePixelModule(module, target());
  if (result.bad())
  {
    DCMPCWT_DEBUG("cannot encode: " << result.text());
    return result;
  }
  DCMPCWT_DEBUG("encoding " << DPCWTDescribe(module) << " to "
    << (target() == PCWT_DICOM_TARGET_PCWT ? DCMPCWT_TRANSFER_SYNTAX_NAME : "JPEG-LS Lossless"));

  if (!pcp->getAcceptLossyInput() && wasLossyCompressed(dataset))
  {
    result = DPCWTMakeError(EPCEC_LossyInput,
      "the image has been lossy compressed before (LossyImageCompression \"01\"): lossless coding "
      "would only preserve those losses; accept it explicitly to code it anyway");
    DCMPCWT_DEBUG("cannot encode: " << result.text());
    return result;
  }

  // the one length rule of pcwt_dicom.h: shorter data cannot be coded, longer would be dropped
  const Uint64 totalBytes = pcwt_dicom_pixel_bytes(&module);
  char msg[256];
  if (pixelData == NULL ||
      pcwt_dicom_check_native_length(&module, length, msg, sizeof msg) != PCWT_DICOM_OK)
  {
    result = DPCWTMakeError(EPCEC_PixelDataLength, pixelData ? msg : "no native Pixel Data");
    DCMPCWT_DEBUG("cannot encode: " << result.text());
    return result;
  }

  // DCMTK keeps 8-bit samples in 16-bit words of local byte order; make them a byte sequence
  const Uint8 *pixels = OFreinterpret_cast(const Uint8 *, pixelData);
  std::vector<Uint8> swapped;
  if (gLocalByteOrder == EBO_BigEndian && module.bits_allocated == 8)
  {
    swapped.assign(pixels, pixels + length);
    swapIfNecessary(EBO_LittleEndian, gLocalByteOrder, swapped.data(), length, sizeof(Uint16));
    pixels = swapped.data();
  }

  Uint64 compressedBytes = 0;
  result = encodeFrames(pixels, module, pcp, pixSeq, compressedBytes);
  if (result.bad())
  {
    DCMPCWT_DEBUG("cannot encode: " << result.text());
    return result;
  }

  // JPEG-LS: CP 1843 requires PlanarConfiguration 0 for RGB and YBR_FULL; the frames were
  // converted to pixel-interleaved order, so the uncompressed representation no longer matches.
  removeOldRep = OFFalse;
  if (target() == PCWT_DICOM_TARGET_JPEGLS && module.samples_per_pixel == 3 &&
      module.has_planar_configuration && module.planar_configuration == 1)
  {
    result = dataset->putAndInsertUint16(DCM_PlanarConfiguration, 0);
    removeOldRep = OFTrue;
  }

  // SOP Common module: only on the main level of the data set (not for icons)
  if (result.good() && dataset->ident() == EVR_dataset)
  {
    if (pcp->getConvertToSC() || pcp->getUIDCreation() == EPCUC_always)
      result = DcmCodec::newInstance(dataset, "DCM", "121320", "Uncompressed predecessor");
    if (result.good() && pcp->getConvertToSC())
      result = DcmCodec::convertToSecondaryCapture(dataset);
  }

  if (result.good())
  {
    DCMPCWT_DEBUG("encoded " << totalBytes << " bytes to " << compressedBytes << " bytes, ratio "
      << (compressedBytes ? OFstatic_cast(double, totalBytes) / OFstatic_cast(double, compressedBytes) : 0.0));
  }
  else
  {
    delete pixSeq;
    pixSeq = NULL;
  }
  return result;
}

/* append one frame's codestream of len bytes; an odd len is made even with the zero byte that
 * follows it in data (PCWT ignores trailing bytes, JPEG-LS is even already). DCMTK copies it into
 * the fragment item (as storeCompressedFrame() does, with one fragment). */
static OFCondition storeFrame(DcmPixelSequence *seq, DcmOffsetList& offsetList,
                              const Uint8 *data, size_t len, std::vector<Uint64>& lengths)
{
  if (len & 1) ++len;
  if (len > PCWT_DICOM_MAX_VALUE_LENGTH)
    return DPCWTMakeError(EPCEC_TooLarge, "a compressed frame exceeds the 4 GiB item limit");
  lengths.push_back(len);
  return seq->storeCompressedFrame(offsetList, OFconst_cast(Uint8 *, data), OFstatic_cast(Uint32, len),
                                   0 /* one fragment */);
}

/* ... from a buffer that may need room for the pad byte */
static OFCondition storeFrame(DcmPixelSequence *seq, DcmOffsetList& offsetList,
                              std::vector<Uint8>& buf, size_t len, std::vector<Uint64>& lengths)
{
  if ((len & 1) && buf.size() < len + 1) buf.resize(len + 1);
  if (len & 1) buf[len] = 0;
  return storeFrame(seq, offsetList, buf.data(), len, lengths);
}

OFCondition DPCWTEncoderBase::encodeFrames(
    const Uint8 *pixels,
    const pcwt_dicom_pixel_module& module,
    const DPCWTCodecParameter *cp,
    DcmPixelSequence *& pixSeq,
    Uint64& compressedBytes) const
{
  pcwt_image_desc desc;
  if (pcwt_dicom_image_desc(&module, &desc) != PCWT_DICOM_OK) return EC_IllegalCall;
  const Uint64 frames = module.number_of_frames;
  const size_t frameBytes = OFstatic_cast(size_t, pcwt_dicom_frame_bytes(&module));

  std::unique_ptr<DcmPixelSequence> seq(new DcmPixelSequence(DCM_PixelSequenceTag));
  DcmPixelItem *offsetTable = new DcmPixelItem(DCM_PixelItemTag);
  seq->insert(offsetTable);
  DcmOffsetList offsetList;
  std::vector<Uint64> lengths;
  lengths.reserve(OFstatic_cast(size_t, frames));
  OFCondition result = EC_Normal;

  if (target() == PCWT_DICOM_TARGET_PCWT)
  {
    // the frames go to the coder the application lent this thread (dpthrcod.h), or to a handle of our own
    DPCWTThreadCoder *lent = DPCWTGetThreadCoder();
    OFString lentMessage;
    // the codec's settings; the backend only when it codes here: a lent coder takes the coding
    // options from this handle and codes with handles of its own
    pcwt_encoder *enc = pcwt_encoder_create();
    if (enc == NULL) return EC_MemoryExhausted;
    pcwt_status st = cp->configureEncoder(enc, lent == NULL);
    // AUTO: a small image on the CPU (dpbackend.h: a GPU context costs more than it saves)
    const pcwt_backend backend = DPCWTBackendForSize(cp->getBackend(), OFstatic_cast(Uint64, frameBytes) * frames);
    if (st == PCWT_OK && lent == NULL && backend != cp->getBackend())
      st = pcwt_encoder_set_option(enc, PCWT_OPT_BACKEND, OFstatic_cast(int64_t, backend));
    if (st != PCWT_OK)
    {
      result = DPCWTMakeError(EPCEC_CodecError, OFString("libpcwt: ") + pcwt_encoder_last_error(enc));
      pcwt_encoder_destroy(enc);
      return result;
    }
    // the frames go to libpcwt in batches (a GPU backend codes a batch at once), bounded in memory;
    // frames the lent coder holds coded already go into the sequence as they are, without a buffer
    // of ours or a second copy
    const size_t bound = pcwt_encode_bound(&desc);
    const size_t budget = OFstatic_cast(size_t, 256) << 20;
    size_t batch = bound ? budget / bound : 1;
    if (batch < 1) batch = 1;
    if (batch > frames) batch = OFstatic_cast(size_t, frames);
    struct Ahead { const Uint8 *data; size_t size; };
    std::vector<Ahead> ahead(batch);
    // output buffers of the frames coded here (bound and a pad byte; not zero-filled: libpcwt
    // writes the codestream, storeFrame() the pad)
    std::vector<std::unique_ptr<Uint8[]> > out;
    std::vector<pcwt_frame_job> jobs;
    jobs.reserve(batch);
    for (Uint64 first = 0; first < frames && result.good(); first += batch)
    {
      const size_t n = OFstatic_cast(size_t, (frames - first < batch) ? frames - first : batch);
      jobs.clear();
      for (size_t i = 0; i < n; ++i)
      {
        const Uint8 *samples = pixels + (first + i) * frameBytes;
        ahead[i].data = NULL;
        ahead[i].size = 0;
        if (lent && lent->codedFrame(enc, desc, samples, frameBytes, ahead[i].data, ahead[i].size) &&
            ahead[i].data != NULL && ahead[i].size <= bound)
          continue;
        ahead[i].data = NULL;
        const size_t k = jobs.size();
        if (out.size() <= k) out.emplace_back(new (std::nothrow) Uint8[bound + 1]);
        if (!out[k])
        {
          result = EC_MemoryExhausted;
          break;
        }
        pcwt_frame_job j;
        std::memset(&j, 0, sizeof j);
        j.desc = desc;
        j.samples = samples;
        j.samples_size = frameBytes;
        j.dst = out[k].get();
        j.dst_capacity = bound;
        jobs.push_back(j);
      }
      if (result.bad()) break;
      st = PCWT_OK;
      if (!jobs.empty())
        st = lent ? lent->encodeBatch(enc, jobs.data(), jobs.size(), lentMessage)
                  : pcwt_encode_batch(enc, jobs.data(), jobs.size());
      for (size_t i = 0, k = 0; i < n && result.good(); ++i)
      {
        if (ahead[i].data != NULL)
        {
          DCMPCWT_TRACE("PCWT frame " << (first + i + 1) << ": " << ahead[i].size << " bytes (coded ahead)");
          result = storeFrame(seq.get(), offsetList, ahead[i].data, ahead[i].size, lengths);
          continue;
        }
        const pcwt_frame_job& j = jobs[k];
        Uint8 *dst = out[k++].get();
        // out of memory stays EC_MemoryExhausted, so that callers report a resource problem
        // (pcwt-storescp: 0xA700) rather than a codec failure
        if (j.status == PCWT_ERR_OUT_OF_MEMORY)
        {
          result = EC_MemoryExhausted;
          break;
        }
        if (j.status != PCWT_OK)
        {
          std::ostringstream s;
          s << "libpcwt could not encode frame " << (first + i + 1) << ": "
            << pcwt_status_string(j.status) << " (" << (lent ? lentMessage.c_str() : pcwt_encoder_last_error(enc)) << ")";
          result = DPCWTMakeError(EPCEC_CodecError, s.str().c_str());
          break;
        }
        DCMPCWT_TRACE("PCWT frame " << (first + i + 1) << ": " << j.written << " bytes");
        if (j.written & 1) dst[j.written] = 0; // the pad byte
        result = storeFrame(seq.get(), offsetList, dst, j.written, lengths);
      }
      if (result.good() && st == PCWT_ERR_OUT_OF_MEMORY)
        result = EC_MemoryExhausted;
      else if (result.good() && st != PCWT_OK)
        result = DPCWTMakeError(EPCEC_CodecError, OFString("libpcwt: ") + pcwt_status_string(st));
    }
    pcwt_encoder_destroy(enc);
  }
  else
  {
    // JPEG-LS codes BitsStored-bit samples, pixel-interleaved
    const unsigned bps = desc.bits_allocated / 8;
    const size_t pixelsPerFrame = OFstatic_cast(size_t, desc.width) * desc.height;
    pcwt_image_desc jdesc = desc;
    jdesc.planar = 0;
    // 8-bit words with BitsStored below 8 (BitsStored 1: segmentation masks) are coded with
    // sample precision 8, as dcmcjpls does: DCMTK 3.6.7's JPEG-LS decoder (dcmdjpls) refuses
    // precisions below 8 in 8-bit images, and the masked values are the same at any precision
    pcwt_image_desc cdesc = jdesc;
    if (cdesc.bits_allocated == 8 && cdesc.bits_stored < 8) cdesc.bits_stored = 8;
    // libpcwt's JPEG-LS on the GPU only for a large image, as the PCWT branch above decides
    DPCWTJPEGLSFrameEncoder jls(DPCWTBackendForSize(cp->getBackend(), OFstatic_cast(Uint64, frameBytes) * frames));
    std::vector<Uint8> frame(frameBytes), masked(frameBytes), cs;
    for (Uint64 f = 0; f < frames && result.good(); ++f)
    {
      const Uint8 *src = pixels + f * frameBytes;
      if (desc.components == 3 && desc.planar)
      {
        pcwt_dicom_planar_to_interleaved(src, frame.data(), pixelsPerFrame, bps);
        src = frame.data();
      }
      size_t bad = 0;
      if (!pcwt_dicom_high_bits_clean(&jdesc, src, &bad))
      {
        const unsigned word = (bps == 1) ? src[bad] : OFreinterpret_cast(const Uint16 *, src)[bad];
        std::ostringstream s;
        s << "frame " << (f + 1) << ", sample " << bad << " has bits above BitsStored (" << desc.bits_stored
          << ") set (stored word 0x" << std::hex << word << std::dec
          << "): JPEG-LS cannot carry them; use the PCWT transfer syntax, which keeps every bit";
        result = DPCWTMakeError(EPCEC_UnsupportedImage, s.str().c_str());
        break;
      }
      if (desc.bits_stored < desc.bits_allocated)
      {
        pcwt_dicom_mask_to_bits_stored(&jdesc, src, masked.data());
        src = masked.data();
      }
      result = jls.encode(cdesc, src, cs);
      if (result.good()) result = storeFrame(seq.get(), offsetList, cs, cs.size(), lengths);
    }
  }

  // the Basic Offset Table: one entry per frame
  if (result.good())
  {
    std::vector<uint32_t> offsets(lengths.size());
    if (pcwt_dicom_bot_offsets(lengths.data(), lengths.size(), offsets.data()) != PCWT_DICOM_OK)
      result = DPCWTMakeError(EPCEC_TooLarge, "frame offsets exceed the 32 bits of the Basic Offset Table");
    else
    {
      std::vector<Uint8> bot(4 * offsets.size());
      pcwt_dicom_bot_encode(offsets.data(), offsets.size(), bot.data());
      result = offsetTable->putUint8Array(bot.data(), OFstatic_cast(unsigned long, bot.size()));
    }
  }
  if (result.good())
  {
    compressedBytes = 0;
    for (size_t i = 0; i < lengths.size(); ++i) compressedBytes += lengths[i];
    pixSeq = seq.release();
  }
  return result;
}
