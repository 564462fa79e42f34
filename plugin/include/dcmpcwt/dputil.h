/*
 *  Module:  dcmpcwt (PCWT codec plugin for DCMTK 3.6.7)
 *
 *  Purpose: global definitions of the dcmpcwt module: the private transfer syntax and its
 *           in-memory carrier, logging, enums shared by the codec classes and the tools,
 *           and the error conditions.
 */

#ifndef DCMPCWT_DPUTIL_H
#define DCMPCWT_DPUTIL_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofcond.h"   /* for class OFCondition */
#include "dcmtk/oflog/oflog.h"    /* for OFLogger */
#include "dcmtk/dcmdata/dcxfer.h" /* for E_TransferSyntax */

#include "pcwt_dicom.h" /* PCWT_DICOM_TS_UID: the one place the UID is defined */

/// the private transfer syntax UID written into (0002,0010) of PCWT files
#define DCMPCWT_TRANSFER_SYNTAX_UID PCWT_DICOM_TS_UID

/// a human readable name for the private transfer syntax
#define DCMPCWT_TRANSFER_SYNTAX_NAME PCWT_DICOM_TS_NAME

/** The E_TransferSyntax value that stands for the private transfer syntax inside a process.
 *  DCMTK's transfer syntax table is closed (docs/dcmtk-plugin.md), so the codec works under an
 *  existing encapsulated Explicit VR Little Endian value that no DCMTK codec handles: the retired
 *  JPEG Hierarchical Process 28. It never reaches a file or the network: DPCWTFileFormat writes
 *  DCMPCWT_TRANSFER_SYNTAX_UID instead of its UID and maps the private UID back to it on load.
 */
const E_TransferSyntax DPCWT_CARRIER_XFER = EXS_JPEGProcess28;

/** HTJ2K (JPEG 2000 Part 15) transfer syntaxes, which DCMTK 3.6.7 does not know: like the private
 *  syntax, each is read under a carrier, an encapsulated Explicit VR Little Endian value no DCMTK
 *  codec handles (retired JPEG hierarchical processes). DPCWTFileFormat maps the UID to its carrier
 *  on load and back on save; DPCWTJ2KDecoder decodes them (docs/dcmtk-plugin.md).
 */
#define DCMPCWT_HTJ2K_LOSSLESS_UID      "1.2.840.10008.1.2.4.201"
#define DCMPCWT_HTJ2K_LOSSLESS_RPCL_UID "1.2.840.10008.1.2.4.202"
#define DCMPCWT_HTJ2K_UID               "1.2.840.10008.1.2.4.203"
const E_TransferSyntax DPCWT_HTJ2K_LOSSLESS_XFER = EXS_JPEGProcess24_26;
const E_TransferSyntax DPCWT_HTJ2K_LOSSLESS_RPCL_XFER = EXS_JPEGProcess25_27;
const E_TransferSyntax DPCWT_HTJ2K_XFER = EXS_JPEGProcess29;

/** the carrier of a transfer syntax UID DCMTK does not know (PCWT or HTJ2K), else EXS_Unknown */
E_TransferSyntax DPCWTCarrierOfUID(const char *uid);

/** the UID a carrier stands for (PCWT or HTJ2K), else NULL */
const char *DPCWTUIDOfCarrier(E_TransferSyntax xfer);

/** JPEG 2000 or HTJ2K (.90, .91 or an HTJ2K carrier): whether such a stream is lossless is read from
 *  the codestream by DPCWTJ2KDecoder, not from the transfer syntax */
OFBool DPCWTIsJPEG2000Xfer(E_TransferSyntax xfer);

/** a name for a transfer syntax, carriers included (DcmXfer's name otherwise) */
OFString DPCWTTransferSyntaxName(E_TransferSyntax xfer);

/// the logger of this module ("dcmtk.dcmpcwt")
extern OFLogger DCM_dcmpcwtLogger;

#define DCMPCWT_TRACE(msg) OFLOG_TRACE(DCM_dcmpcwtLogger, msg)
#define DCMPCWT_DEBUG(msg) OFLOG_DEBUG(DCM_dcmpcwtLogger, msg)
#define DCMPCWT_INFO(msg)  OFLOG_INFO(DCM_dcmpcwtLogger, msg)
#define DCMPCWT_WARN(msg)  OFLOG_WARN(DCM_dcmpcwtLogger, msg)
#define DCMPCWT_ERROR(msg) OFLOG_ERROR(DCM_dcmpcwtLogger, msg)
#define DCMPCWT_FATAL(msg) OFLOG_FATAL(DCM_dcmpcwtLogger, msg)

/// SOP Instance UID policy (as dcmjpls' JLS_UIDCreation)
enum DPCWT_UIDCreation
{
  /** compression is lossless: keep the SOP Instance UID on compression and decompression */
  EPCUC_default,
  /// always assign a new SOP Instance UID on compression and decompression
  EPCUC_always,
  /// never assign a new SOP Instance UID
  EPCUC_never
};

/// which encapsulated pixel data the decoder claims
enum DPCWT_DecoderMode
{
  /** pixel data under the in-memory carrier (files read with DPCWTFileFormat): the normal mode */
  EPCDM_carrier,
  /** also encapsulated pixel data that DCMTK read under an unknown transfer syntax and keyed as
   *  Explicit VR Little Endian, provided the file's (0002,0010) is the PCWT UID and the fragments
   *  are PCWT codestreams. For stock DCMTK tools through libdcmpcwt_preload.so only.
   */
  EPCDM_unknownEncapsulated
};

/// module number of dcmpcwt's OFCondition codes ("PC")
const unsigned short OFM_dcmpcwt = 0x5043;

/// condition codes of dcmpcwt (the text of a returned condition says more)
enum DPCWT_ConditionCode
{
  /// the image cannot be coded losslessly with the chosen transfer syntax
  EPCEC_UnsupportedImage = 1,
  /// the image pixel module is missing attributes or contradicts itself
  EPCEC_InvalidImage = 2,
  /** the native Pixel Data element's length is not what the image pixel module declares
   *  (frames x frame bytes, plus one pad byte for an odd total): shorter, or longer (those bytes
   *  would be lost). The rule is pcwt_dicom_check_native_length(); the encoders return this code
   *  for it, so callers of chooseRepresentation() recognise it with
   *  DPCWTIsPixelDataLengthError(). */
  EPCEC_PixelDataLength = 3,
  /// the former name of EPCEC_PixelDataLength (same value)
  EPCEC_PixelDataTooShort = EPCEC_PixelDataLength,
  /// encapsulated pixel data or a codestream is corrupt or truncated
  EPCEC_CorruptData = 4,
  /// the codestream does not match the image pixel module
  EPCEC_HeaderMismatch = 5,
  /// the image has been lossy compressed before and lossy input was not accepted
  EPCEC_LossyInput = 6,
  /// the image exceeds DICOM's 32-bit lengths or the configured limits
  EPCEC_TooLarge = 7,
  /// libpcwt or the JPEG-LS encoder failed
  EPCEC_CodecError = 8,
  /// not a PCWT file (for the decoder in EPCDM_unknownEncapsulated mode)
  EPCEC_NotPCWT = 9,
  /// a file of the private transfer syntax cannot be written this way
  EPCEC_CannotWrite = 10,
  /// the JPEG 2000 decoder is not available (built without OpenJPEG)
  EPCEC_NoDecoder = 11
};

/// make an error condition of this module with a message
inline OFCondition DPCWTMakeError(DPCWT_ConditionCode code, const OFString &text)
{
  return OFCondition(OFM_dcmpcwt, OFstatic_cast(unsigned short, code), OF_error, text.c_str());
}

/** the memory budget of the PCWT decoder codec, in bytes, for every decoder in the process:
 *  0 (the default) is libpcwt's pcwt_default_memory_limit() (physical memory, ulimit -v). Whole
 *  images (all frames in one buffer) that would need more are refused before allocating. */
void DPCWTSetDecodeMemoryLimit(Uint64 bytes);
Uint64 DPCWTGetDecodeMemoryLimit();

/** is c the refusal of native Pixel Data whose length does not match the image pixel module
 *  (EPCEC_PixelDataLength of this module)? An error in the data set as received, not in the codec:
 *  a storage SCP answers it with a failure status rather than storing the image. */
inline OFBool DPCWTIsPixelDataLengthError(const OFCondition &c)
{
  return c.bad() && c.module() == OFM_dcmpcwt && c.code() == EPCEC_PixelDataLength;
}

#endif
