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

#include <mutex>

// initialization of static members
OFBool DPCWTDecoderRegistration::registered_       = OFFalse;
DPCWTCodecParameter *DPCWTDecoderRegistration::cp_ = NULL;
DPCWTDecoder *DPCWTDecoderRegistration::decoder_   = NULL;

static std::mutex &decoderRegistrationMutex()
{
  static std::mutex m;
  return m;
}

void DPCWTDecoderRegistration::registerCodecs(
    DPCWT_UIDCreation uidCreation,
    Uint64 maxSamplesPerFrame,
    pcwt_backend backend,
    DPCWT_DecoderMode mode)
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
  registered_ = OFTrue;
}

void DPCWTDecoderRegistration::cleanup()
{
  std::lock_guard<std::mutex> lock(decoderRegistrationMutex());
  if (!registered_) return;
  DcmCodecList::deregisterCodec(decoder_);
  delete decoder_;
  delete cp_;
  decoder_ = NULL;
  cp_ = NULL;
  registered_ = OFFalse;
}

OFString DPCWTDecoderRegistration::getLibraryVersionString()
{
  return OFString("libpcwt, Version ") + pcwt_version_string();
}
