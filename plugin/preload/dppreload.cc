/*
 *  Module:  dcmpcwt
 *
 *  Purpose: libdcmpcwt_preload.so: registers the PCWT and JPEG 2000 decoders when loaded, so that
 *           stock DCMTK 3.6.7 tools decompress PCWT, JPEG 2000 and HTJ2K files:
 *
 *             LD_PRELOAD=libdcmpcwt_preload.so dcmdjpls in.dcm out.dcm
 *             LD_PRELOAD=libdcmpcwt_preload.so dcmconv +te in.dcm out.dcm
 *
 *  Stock tools read a file with a plain DcmFileFormat. JPEG 2000 (.90, .91) is keyed by DCMTK's
 *  own values, which the JPEG 2000 decoder claims. A PCWT or HTJ2K file's UID is unknown to DCMTK,
 *  which then keys its encapsulated pixel data as Explicit VR Little Endian and asks the first
 *  codec that claims that pair: only one can. So one decoder registered here claims exactly that
 *  (EPCDM_unknownEncapsulated) and hands the pixel data on by the file's (0002,0010): HTJ2K to the
 *  JPEG 2000 decoder, anything else to the PCWT decoder, which decodes only when the UID is PCWT's
 *  and the first fragment is a PCWT codestream. Neither claims the in-memory carriers, so they
 *  cannot take another codec's transfer syntax. Limits: docs/dcmtk-plugin.md.
 *
 */

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dccodec.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcstack.h"
#include "dcmpcwt/dpcodecd.h"
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpj2kdec.h"

namespace {

/// whether the file an object belongs to declares an HTJ2K transfer syntax
bool inHTJ2KFile(DcmObject *obj)
{
  while (obj != NULL && obj->ident() != EVR_fileFormat) obj = obj->getParent();
  if (obj == NULL) return false;
  DcmMetaInfo *meta = OFstatic_cast(DcmFileFormat *, obj)->getMetaInfo();
  OFString ts;
  if (meta == NULL || meta->findAndGetOFString(DCM_TransferSyntaxUID, ts).bad()) return false;
  const E_TransferSyntax carrier = DPCWTCarrierOfUID(ts.c_str());
  return carrier == DPCWT_HTJ2K_LOSSLESS_XFER || carrier == DPCWT_HTJ2K_LOSSLESS_RPCL_XFER ||
         carrier == DPCWT_HTJ2K_XFER;
}

/** the decoder of encapsulated pixel data of a transfer syntax DCMTK does not know: HTJ2K to the
 *  JPEG 2000 decoder, the rest to the PCWT decoder (each with its own parameters)
 */
class DPCWTPreloadDecoder : public DPCWTCodecBase
{
public:
  DPCWTPreloadDecoder()
  : pcwt_(EPCDM_unknownEncapsulated), pcwtParam_(),
    j2kParam_(EPCUC_default, OFFalse, OFTrue /* lossy streams decoded: decompressing is what is asked */)
  {
  }

  virtual OFBool canChangeCoding(const E_TransferSyntax oldRepType, const E_TransferSyntax newRepType) const
  {
    return pcwt_.canChangeCoding(oldRepType, newRepType);
  }

  virtual OFCondition decode(const DcmRepresentationParameter *fromRepParam, DcmPixelSequence *pixSeq,
                             DcmPolymorphOBOW& uncompressedPixelData, const DcmCodecParameter * /* cp */,
                             const DcmStack& objStack, OFBool& removeOldRep) const
  {
    DcmStack stack(objStack);
    if (!DPCWTJ2KDecoder::available() || stack.empty() || !inHTJ2KFile(stack.top()))
      return pcwt_.decode(fromRepParam, pixSeq, uncompressedPixelData, &pcwtParam_, objStack, removeOldRep);
    return j2k_.decode(fromRepParam, pixSeq, uncompressedPixelData, &j2kParam_, objStack, removeOldRep);
  }

  virtual OFCondition decodeFrame(const DcmRepresentationParameter *fromParam, DcmPixelSequence *fromPixSeq,
                                  const DcmCodecParameter * /* cp */, DcmItem *dataset, Uint32 frameNo,
                                  Uint32& startFragment, void *buffer, Uint32 bufSize,
                                  OFString& decompressedColorModel) const
  {
    if (!DPCWTJ2KDecoder::available() || !inHTJ2KFile(dataset))
      return pcwt_.decodeFrame(fromParam, fromPixSeq, &pcwtParam_, dataset, frameNo, startFragment, buffer, bufSize,
                               decompressedColorModel);
    return j2k_.decodeFrame(fromParam, fromPixSeq, &j2kParam_, dataset, frameNo, startFragment, buffer, bufSize,
                            decompressedColorModel);
  }

  virtual OFCondition determineDecompressedColorModel(const DcmRepresentationParameter *fromParam,
                                                      DcmPixelSequence *fromPixSeq, const DcmCodecParameter * /* cp */,
                                                      DcmItem *dataset, OFString& decompressedColorModel) const
  {
    if (!DPCWTJ2KDecoder::available() || !inHTJ2KFile(dataset))
      return pcwt_.determineDecompressedColorModel(fromParam, fromPixSeq, &pcwtParam_, dataset,
                                                   decompressedColorModel);
    return j2k_.determineDecompressedColorModel(fromParam, fromPixSeq, &j2kParam_, dataset, decompressedColorModel);
  }

private:
  DPCWTDecoder pcwt_;
  DPCWTJ2KDecoder j2k_;
  DPCWTCodecParameter pcwtParam_;
  DPCWTCodecParameter j2kParam_;
};

/* Its own instances, not DPCWTDecoderRegistration's: an application that registers the decoders
 * itself (carrier mode) keeps doing so when this library is preloaded as well. */
DPCWTPreloadDecoder *g_decoder = NULL;
DPCWTCodecParameter *g_param = NULL;
/* JPEG 2000 (.90, .91), which DCMTK 3.6.7 keys by its own enum values. Not registered when an
 * application registered a JPEG 2000 decoder first. */
DPCWTJ2KDecoder *g_j2kDecoder = NULL;
DPCWTCodecParameter *g_j2kParam = NULL;

} // namespace

__attribute__((constructor)) static void dcmpcwt_preload_register()
{
  g_param = new DPCWTCodecParameter();
  g_decoder = new DPCWTPreloadDecoder();
  if (DcmCodecList::registerCodec(g_decoder, NULL, g_param).bad())
  {
    delete g_decoder;
    delete g_param;
    g_decoder = NULL;
    g_param = NULL;
  }
  if (!DPCWTJ2KDecoder::available()) return;
  g_j2kParam = new DPCWTCodecParameter(EPCUC_default, OFFalse, OFTrue /* lossy streams decoded */);
  g_j2kDecoder = new DPCWTJ2KDecoder();
  if (DcmCodecList::registerCodec(g_j2kDecoder, NULL, g_j2kParam).bad())
  {
    delete g_j2kDecoder;
    delete g_j2kParam;
    g_j2kDecoder = NULL;
    g_j2kParam = NULL;
  }
}

__attribute__((destructor)) static void dcmpcwt_preload_cleanup()
{
  if (g_j2kDecoder != NULL)
  {
    DcmCodecList::deregisterCodec(g_j2kDecoder);
    delete g_j2kDecoder;
    delete g_j2kParam;
    g_j2kDecoder = NULL;
    g_j2kParam = NULL;
  }
  if (g_decoder == NULL) return;
  DcmCodecList::deregisterCodec(g_decoder);
  delete g_decoder;
  delete g_param;
  g_decoder = NULL;
  g_param = NULL;
}
