/*
 *  Module:  dcmpcwt
 *
 *  Purpose: singleton class that registers the PCWT encoders (as DJLSEncoderRegistration).
 */

#ifndef DCMPCWT_DPENCODE_H
#define DCMPCWT_DPENCODE_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofstring.h"
#include "dcmpcwt/dputil.h"

#include "pcwt.h"

class DPCWTCodecParameter;
class DPCWTEncoder;
class DPCWTJPEGLSEncoder;

/** singleton class that registers the encoders of the PCWT private transfer syntax and (optionally)
 *  of JPEG-LS Lossless. Registration and cleanup are serialized by a mutex; registering twice
 *  without cleanup() in between is a no-op.
 *
 *  Two lines enable encoding in any DCMTK application:
 *  @code
 *    DPCWTEncoderRegistration::registerCodecs();
 *    ... dataset->chooseRepresentation(DPCWT_CARRIER_XFER, NULL); DPCWTFileFormat::saveFile() ...
 *    DPCWTEncoderRegistration::cleanup();
 *  @endcode
 */
class DPCWTEncoderRegistration
{
public:

  /** registers the encoders. Not registered twice: a second call without cleanup() does nothing.
   *  @param uidCreation SOP Instance UID policy (default: keep, the coding is lossless)
   *  @param convertToSC convert images to Secondary Capture (implies a new SOP Instance UID)
   *  @param acceptLossyInput code images that were lossy compressed before (refused by default)
   *  @param levels wavelet levels (PCWT)
   *  @param groupRows elements per group vertically (PCWT; 0x0: the profile's size)
   *  @param groupColumns elements per group horizontally (PCWT)
   *  @param backend libpcwt backend (PCWT)
   *  @param registerJPEGLS also register the JPEG-LS Lossless encoder. Leave it off when the
   *    application registers DCMTK's DJLSEncoderRegistration: the first registered encoder of a
   *    transfer syntax wins.
   *  @param profile coding profile (PCWT): PCWT_PROFILE_COMPACT (the default: range-coded groups
   *    and value maps, the smallest), PCWT_PROFILE_ENTROPY (range-coded groups) or
   *    PCWT_PROFILE_BASELINE (raw bits)
   */
  static void registerCodecs(
    DPCWT_UIDCreation uidCreation = EPCUC_default,
    OFBool convertToSC = OFFalse,
    OFBool acceptLossyInput = OFFalse,
    Uint32 levels = PCWT_DEFAULT_LEVELS,
    Uint32 groupRows = 0,
    Uint32 groupColumns = 0,
    pcwt_backend backend = PCWT_BACKEND_AUTO,
    OFBool registerJPEGLS = OFTrue,
    pcwt_profile profile = PCWT_PROFILE_COMPACT);

  /** deregisters the encoders. Attention: Must not be called while other threads might still use
   *  the registered codecs, e.g. because they are currently encoding DICOM data sets through
   *  dcmdata.
   */
  static void cleanup();

  /// @return name and version of libpcwt and of the JPEG-LS encoder in use
  static OFString getLibraryVersionString();

private:

  /// flag indicating whether the encoders are already registered.
  static OFBool registered_;

  /// pointer to codec parameter shared by all encoders
  static DPCWTCodecParameter *cp_;

  /// pointer to the PCWT encoder
  static DPCWTEncoder *encoder_;

  /// pointer to the JPEG-LS encoder (NULL when not registered)
  static DPCWTJPEGLSEncoder *jpeglsEncoder_;
};

#endif
