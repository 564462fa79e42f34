/*
 *  Module:  dcmpcwt
 *
 *  Purpose: singleton class that registers the PCWT decoder.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpdecode.h"

#include "dcmtk/dcmdata/dccodec.h"  /* for DcmCodecStruct */
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpcodecd.h"
#include "dcmpcwt/dpj2kdec.h"

#include <mutex>

// initialization of static members
OFBool DPCWTDecoderRegistration::registered_       = OFFalse;
DPCWTCodecParameter *DPCWTDecoderRegistration::cp_ = NULL;
DPCWTDecoder *DPCWTDecoderRegistration::decoder_   = NULL;
DPCWTCodecParameter *DPCWTDecoderRegistration::j2kParam_ = NULL;
DPCWTJ2KDecoder *DPCWTDecoderRegistration::j2kDecoder_   = NULL;

static std::mutex &decoderRegistrationMutex()
{
  static std::mutex m;
  return m;
}

void DPCWTDecoderRegistration::registerCodecs(
    DPCWT_UIDCreation uidCreation,
    Uint64 maxSamplesPerFrame,
    pcwt_backend backend,
    DPCWT_DecoderMode mode,
    OFBool acceptLossyJ2K)
{
  std::lock_guard<std::mutex> lock(decoderRegistrationMutex());
  if (registered_) return;
  cp_ = new DPCWTCodecParameter(uidCreation, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS, 0, 0, backend,
                                maxSamplesPerFrame); // the decoder reads the group size from each stream
  decoder_ = new DPCWTDecoder(mode);
  OFCondition result = DcmCodecList::registerCodec(decoder_, NULL, cp_);
  if (result.bad())
  {
    DCMPCWT_ERROR("cannot register the PCWT decoder: " << result.text());
    delete decoder_;
    delete cp_;
    decoder_ = NULL;
    cp_ = NULL;
    return;
  }
  if (DPCWTJ2KDecoder::available())
  {
    j2kParam_ = new DPCWTCodecParameter(uidCreation, OFFalse, acceptLossyJ2K, PCWT_DEFAULT_LEVELS, 0, 0, backend,
                                        maxSamplesPerFrame);
    j2kDecoder_ = new DPCWTJ2KDecoder();
    result = DcmCodecList::registerCodec(j2kDecoder_, NULL, j2kParam_);
    if (result.bad())
    {
      DCMPCWT_ERROR("cannot register the JPEG 2000 decoder: " << result.text());
      delete j2kDecoder_;
      delete j2kParam_;
      j2kDecoder_ = NULL;
      j2kParam_ = NULL;
    }
  }
  registered_ = OFTrue;
}

void DPCWTDecoderRegistration::cleanup()
{
  std::lock_guard<std::mutex> lock(decoderRegistrationMutex());
  if (!registered_) return;
  DcmCodecList::deregisterCodec(decoder_);
  if (j2kDecoder_ != NULL) DcmCodecList::deregisterCodec(j2kDecoder_);
  delete j2kDecoder_;
  delete j2kParam_;
  j2kDecoder_ = NULL;
  j2kParam_ = NULL;
  delete decoder_;
  delete cp_;
  decoder_ = NULL;
  cp_ = NULL;
  registered_ = OFFalse;
}

OFString DPCWTDecoderRegistration::getLibraryVersionString()
{
  return OFString("libpcwt, Version ") + pcwt_version_string() + "; JPEG 2000: " + DPCWTJ2KDecoder::libraryVersion();
}
