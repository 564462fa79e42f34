/*
 *  Module:  dcmpcwt
 *
 *  Purpose: singleton class that registers the PCWT decoder (as DJLSDecoderRegistration).
 */

#ifndef DCMPCWT_DPDECODE_H
#define DCMPCWT_DPDECODE_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofstring.h"
#include "dcmpcwt/dputil.h"

#include "pcwt.h"

class DPCWTCodecParameter;
class DPCWTDecoder;
class DPCWTJ2KDecoder;

/** singleton class that registers the decoder of the PCWT private transfer syntax and the JPEG 2000
 *  / HTJ2K decoder (dpj2kdec.h).
 *  Registration and cleanup are serialized by a mutex; a second call without cleanup() is a no-op.
 *
 *  Two lines enable decoding in any DCMTK application that reads files with DPCWTFileFormat:
 *  @code
 *    DPCWTDecoderRegistration::registerCodecs();
 *    ... DPCWTFileFormat ff; ff.loadFile(...); ff.getDataset()->chooseRepresentation(EXS_LittleEndianExplicit, NULL) ...
 *    DPCWTDecoderRegistration::cleanup();
 *  @endcode
 */
class DPCWTDecoderRegistration
{
public:

  /** registers the PCWT decoder.
   *  @param uidCreation SOP Instance UID policy on decompression (default: keep)
   *  @param maxSamplesPerFrame frames with more samples are refused before allocation
   *  @param backend libpcwt backend
   *  @param mode EPCDM_carrier (files read through DPCWTFileFormat) or
   *    EPCDM_unknownEncapsulated (stock tools that read the file with a plain DcmFileFormat;
   *    used by libdcmpcwt_preload.so, see docs/dcmtk-plugin.md)
   *  @param acceptLossyJ2K whether the JPEG 2000 / HTJ2K decoder (DPCWTJ2KDecoder, registered too
   *    when libdcmpcwt is built with OpenJPEG) decodes lossy codestreams: on for a decompressing
   *    application, off for one that recompresses losslessly and must refuse lossy input
   */
  static void registerCodecs(
    DPCWT_UIDCreation uidCreation = EPCUC_default,
    Uint64 maxSamplesPerFrame = OFstatic_cast(Uint64, 1) << 30,
    pcwt_backend backend = PCWT_BACKEND_AUTO,
    DPCWT_DecoderMode mode = EPCDM_carrier,
    OFBool acceptLossyJ2K = OFTrue);

  /** deregisters the decoder. Attention: Must not be called while other threads might still use
   *  the registered codecs, e.g. because they are currently decoding DICOM data sets through
   *  dcmdata.
   */
  static void cleanup();

  /// @return name and version of libpcwt
  static OFString getLibraryVersionString();

private:

  /// flag indicating whether the decoder is already registered.
  static OFBool registered_;

  /// pointer to codec parameter
  static DPCWTCodecParameter *cp_;

  /// pointer to the decoder
  static DPCWTDecoder *decoder_;

  /// the JPEG 2000 decoder's parameter and the decoder (NULL without OpenJPEG)
  static DPCWTCodecParameter *j2kParam_;
  static DPCWTJ2KDecoder *j2kDecoder_;
};

#endif
