/*
 *  Module:  dcmpcwt
 *
 *  Purpose: singleton class that registers the PCWT encoders.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpencode.h"

#include "dcmtk/dcmdata/dccodec.h"  /* for DcmCodecStruct */
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpcodece.h"
#include "dpjpegls.h"

#include <mutex>

// initialization of static members
OFBool DPCWTEncoderRegistration::registered_              = OFFalse;
DPCWTCodecParameter *DPCWTEncoderRegistration::cp_        = NULL;
DPCWTEncoder *DPCWTEncoderRegistration::encoder_          = NULL;
DPCWTJPEGLSEncoder *DPCWTEncoderRegistration::jpeglsEncoder_ = NULL;

static std::mutex &encoderRegistrationMutex()
{
  static std::mutex m;
  return m;
}

void DPCWTEncoderRegistration::registerCodecs(
    DPCWT_UIDCreation uidCreation,
    OFBool convertToSC,
    OFBool acceptLossyInput,
    Uint32 levels,
    Uint32 groupRows,
    Uint32 groupColumns,
    pcwt_backend backend,
    OFBool registerJPEGLS,
    pcwt_profile profile)
{
  std::lock_guard<std::mutex> lock(encoderRegistrationMutex());
  if (registered_) return;
  cp_ = new DPCWTCodecParameter(uidCreation, convertToSC, acceptLossyInput, levels, groupRows,
                                groupColumns, backend, OFstatic_cast(Uint64, 1) << 30, profile);
  encoder_ = new DPCWTEncoder();
  OFCondition result = DcmCodecList::registerCodec(encoder_, NULL, cp_);
  if (result.good() && registerJPEGLS)
  {
    jpeglsEncoder_ = new DPCWTJPEGLSEncoder();
    result = DcmCodecList::registerCodec(jpeglsEncoder_, NULL, cp_);
  }
  if (result.bad())
  {
    DCMPCWT_ERROR("cannot register the PCWT encoders: " << result.text());
    DcmCodecList::deregisterCodec(encoder_);
    if (jpeglsEncoder_) DcmCodecList::deregisterCodec(jpeglsEncoder_);
    delete encoder_;
    delete jpeglsEncoder_;
    delete cp_;
    encoder_ = NULL;
    jpeglsEncoder_ = NULL;
    cp_ = NULL;
    return;
  }
  registered_ = OFTrue;
}

void DPCWTEncoderRegistration::cleanup()
{
  std::lock_guard<std::mutex> lock(encoderRegistrationMutex());
  if (!registered_) return;
  DcmCodecList::deregisterCodec(encoder_);
  delete encoder_;
  encoder_ = NULL;
  if (jpeglsEncoder_)
  {
    DcmCodecList::deregisterCodec(jpeglsEncoder_);
    delete jpeglsEncoder_;
    jpeglsEncoder_ = NULL;
  }
  delete cp_;
  cp_ = NULL;
  registered_ = OFFalse;
}

OFString DPCWTEncoderRegistration::getLibraryVersionString()
{
  return OFString("libpcwt, Version ") + pcwt_version_string() + "; JPEG-LS: " + DPCWTJPEGLSEncoderName();
}
