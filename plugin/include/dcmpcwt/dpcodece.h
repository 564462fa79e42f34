/*
 *  Module:  dcmpcwt
 *
 *  Purpose: encoder codec classes: uncompressed pixel data to the PCWT private transfer syntax
 *           (under its in-memory carrier) and to JPEG-LS Lossless.
 */

#ifndef DCMPCWT_DPCODECE_H
#define DCMPCWT_DPCODECE_H

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcodecb.h"
#include "dcmpcwt/dputil.h"

#include "pcwt_dicom.h"

class DPCWTCodecParameter;

/** encoder base class: one fragment per frame and a Basic Offset Table; the image pixel module
 *  is checked first (pcwt_dicom_validate) and anything that cannot be coded losslessly is refused
 *  with a message naming the attribute. Every attribute is kept; no Lossy Image Compression
 *  attributes are added. Thread-safe: each call uses its own libpcwt handle.
 */
class DPCWTEncoderBase : public DPCWTCodecBase
{
public:

  /// default constructor
  DPCWTEncoderBase();

  /// destructor
  virtual ~DPCWTEncoderBase();

  // the transcoding encode() stays DPCWTCodecBase's (refused), as do the decoding operations
  using DPCWTCodecBase::encode;

  /** compresses the given uncompressed DICOM image and stores
   *  the result in the given pixSeq element.
   *  @param pixelData pointer to the uncompressed image data in OW format
   *    and local byte order
   *  @param length of the pixel data field in bytes
   *  @param toRepParam representation parameter describing the desired
   *    compressed representation (may be NULL)
   *  @param pixSeq compressed pixel sequence (pointer to new DcmPixelSequence object
   *    allocated on heap) returned in this parameter upon success.
   *  @param cp codec parameters for this codec
   *  @param objStack stack pointing to the location of the pixel data
   *    element in the current dataset.
   *  @param removeOldRep boolean flag that should be set to false before this method call
   *    and will be set to true if the codec modifies the DICOM dataset such
   *    that the pixel data of the original representation may not be usable
   *    anymore.
   *  @return EC_Normal if successful, an error code otherwise.
   */
  virtual OFCondition encode(
    const Uint16 * pixelData,
    const Uint32 length,
    const DcmRepresentationParameter * toRepParam,
    DcmPixelSequence * & pixSeq,
    const DcmCodecParameter *cp,
    DcmStack & objStack,
    OFBool& removeOldRep) const;

  /** checks if this codec is able to convert from the
   *  given current transfer syntax to the given new
   *  transfer syntax
   *  @param oldRepType current transfer syntax
   *  @param newRepType desired new transfer syntax
   *  @return true if transformation is supported by this codec, false otherwise.
   */
  virtual OFBool canChangeCoding(
    const E_TransferSyntax oldRepType,
    const E_TransferSyntax newRepType) const;

  /** returns the transfer syntax that this particular codec
   *  is able to encode
   *  @return supported transfer syntax
   */
  virtual E_TransferSyntax supportedTransferSyntax() const = 0;

  /// @return the coding this encoder writes
  virtual pcwt_dicom_target target() const = 0;

private:

  /// encode all frames of one pixel data element into a new pixel sequence
  OFCondition encodeFrames(
    const Uint8 *pixels,
    const pcwt_dicom_pixel_module& module,
    const DPCWTCodecParameter *cp,
    DcmPixelSequence *& pixSeq,
    Uint64& compressedBytes) const;
};

/** encoder to the PCWT private transfer syntax (under DPCWT_CARRIER_XFER)
 */
class DPCWTEncoder : public DPCWTEncoderBase
{
  /// @return DPCWT_CARRIER_XFER
  virtual E_TransferSyntax supportedTransferSyntax() const;
  /// @return PCWT_DICOM_TARGET_PCWT
  virtual pcwt_dicom_target target() const;
};

/** encoder to JPEG-LS Lossless Image Compression (1.2.840.10008.1.2.4.80), the standard
 *  fallback: decoded by stock dcmdjpls, GDCM and pydicom. JPEG-LS codes BitsStored-bit samples,
 *  so images with bits above BitsStored that are not a plain zero or sign extension are refused.
 */
class DPCWTJPEGLSEncoder : public DPCWTEncoderBase
{
  /// @return EXS_JPEGLSLossless
  virtual E_TransferSyntax supportedTransferSyntax() const;
  /// @return PCWT_DICOM_TARGET_JPEGLS
  virtual pcwt_dicom_target target() const;
};

#endif
