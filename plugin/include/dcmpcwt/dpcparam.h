/*
 *  Module:  dcmpcwt
 *
 *  Purpose: codec parameter class of the PCWT codecs: the process-wide settings every
 *           encoder and decoder call receives (as dcmjpls' DJLSCodecParameter).
 */

#ifndef DCMPCWT_DPCPARAM_H
#define DCMPCWT_DPCPARAM_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dccodec.h" /* for DcmCodecParameter */
#include "dcmpcwt/dputil.h"

#include "pcwt.h"

/** codec parameter for the PCWT encoders and decoders. Instances are immutable once registered,
 *  so any number of threads may read them.
 */
class DPCWTCodecParameter : public DcmCodecParameter
{
public:

  /** constructor.
   *  @param uidCreation SOP Instance UID policy (default: keep, the coding is lossless)
   *  @param convertToSC convert to Secondary Capture on compression (implies a new UID)
   *  @param acceptLossyInput code images that were lossy compressed before
   *    (LossyImageCompression "01"); refused by default
   *  @param levels requested wavelet levels, 0 to PCWT_MAX_LEVELS
   *  @param groupRows elements per group vertically, 1 to PCWT_MAX_GROUP; 0 (the default): the
   *    profile's size in that dimension (32x32 baseline, 64x16 entropy)
   *  @param groupColumns elements per group horizontally, 1 to PCWT_MAX_GROUP, or 0
   *  @param backend libpcwt backend for encoding and decoding
   *  @param maxSamplesPerFrame decoder limit: frames with more samples (rows x columns x samples
   *    per pixel) are refused before any memory is allocated
   *  @param profile coding profile of the PCWT encoder: PCWT_PROFILE_COMPACT (the default: the
   *    entropy profile with value maps, the smallest; docs/FORMAT.md Sec. 5.5),
   *    PCWT_PROFILE_ENTROPY (range-coded groups; Sec. 5) or PCWT_PROFILE_BASELINE (raw bits).
   *    The decoder reads the profile from each codestream: this setting only affects encoding.
   */
  DPCWTCodecParameter(
    DPCWT_UIDCreation uidCreation = EPCUC_default,
    OFBool convertToSC = OFFalse,
    OFBool acceptLossyInput = OFFalse,
    Uint32 levels = PCWT_DEFAULT_LEVELS,
    Uint32 groupRows = 0,
    Uint32 groupColumns = 0,
    pcwt_backend backend = PCWT_BACKEND_AUTO,
    Uint64 maxSamplesPerFrame = OFstatic_cast(Uint64, 1) << 30,
    pcwt_profile profile = PCWT_PROFILE_COMPACT);

  /// copy constructor
  DPCWTCodecParameter(const DPCWTCodecParameter& arg);

  /// destructor
  virtual ~DPCWTCodecParameter();

  /** this methods creates a copy of type DcmCodecParameter *
   *  it must be overweritten in every subclass.
   *  @return copy of this object
   */
  virtual DcmCodecParameter *clone() const;

  /** returns the class name as string.
   *  can be used as poor man's RTTI replacement.
   */
  virtual const char *className() const;

  /// @return SOP Instance UID policy
  DPCWT_UIDCreation getUIDCreation() const { return uidCreation_; }

  /// @return true if images are converted to Secondary Capture on compression
  OFBool getConvertToSC() const { return convertToSC_; }

  /// @return true if lossy compressed input may be coded
  OFBool getAcceptLossyInput() const { return acceptLossyInput_; }

  /** give a libpcwt encoder the settings of the PCWT encoder codec, option by option
   *  (pcwt_encoder_set_option): codec PCWT, profile, levels, group size and, with withBackend,
   *  the backend. Options these settings do not name stay as they are (on a new handle: the
   *  library's defaults, as the codec uses them).
   *  @param enc the encoder
   *  @param withBackend also set the backend (leave it off for a handle that only describes the
   *    coding, as the one the codec hands to a lent DPCWTThreadCoder)
   *  @return PCWT_OK, or the status of the first option refused (pcwt_encoder_last_error() of
   *    enc says why)
   */
  pcwt_status configureEncoder(pcwt_encoder *enc, OFBool withBackend = OFTrue) const;

  /// @return requested wavelet levels
  Uint32 getLevels() const { return levels_; }

  /// @return elements per group vertically (0: the profile's)
  Uint32 getGroupRows() const { return groupRows_; }

  /// @return elements per group horizontally (0: the profile's)
  Uint32 getGroupColumns() const { return groupColumns_; }

  /// @return libpcwt backend
  pcwt_backend getBackend() const { return backend_; }

  /// @return the decoder's limit of samples per frame
  Uint64 getMaxSamplesPerFrame() const { return maxSamplesPerFrame_; }

  /// @return coding profile of the PCWT encoder
  pcwt_profile getProfile() const { return profile_; }

private:

  /// private undefined copy assignment operator
  DPCWTCodecParameter& operator=(const DPCWTCodecParameter&);

  const DPCWT_UIDCreation uidCreation_;
  const OFBool convertToSC_;
  const OFBool acceptLossyInput_;
  const Uint32 levels_;
  const Uint32 groupRows_;
  const Uint32 groupColumns_;
  const pcwt_backend backend_;
  const Uint64 maxSamplesPerFrame_;
  const pcwt_profile profile_;
};

#endif
