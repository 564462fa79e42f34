/*
 *  Module:  dcmpcwt
 *
 *  Purpose: base class of the PCWT codec classes: what DcmCodec asks of every codec and a codec
 *           of one direction refuses.
 */

#ifndef DCMPCWT_DPCODECB_H
#define DCMPCWT_DPCODECB_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dccodec.h" /* for class DcmCodec */

/** base class of DPCWTEncoderBase and DPCWTDecoder. Each operation of DcmCodec that a codec of
 *  one direction does not offer refuses here with EC_IllegalCall: the decoder overrides decode(),
 *  decodeFrame() and determineDecompressedColorModel(), the encoders the encode() of uncompressed
 *  pixel data. None transcodes (DCMTK then decodes and encodes); canChangeCoding() is each
 *  codec's own.
 */
class DPCWTCodecBase : public DcmCodec
{
public:

  /// default constructor
  DPCWTCodecBase();

  /// destructor
  virtual ~DPCWTCodecBase();

  /** decompresses the given pixel sequence and stores the result in the given uncompressedPixelData element.
   *  @return EC_IllegalCall unless a decoder overrides it
   */
  virtual OFCondition decode(
    const DcmRepresentationParameter * fromRepParam,
    DcmPixelSequence * pixSeq,
    DcmPolymorphOBOW& uncompressedPixelData,
    const DcmCodecParameter * cp,
    const DcmStack& objStack,
    OFBool& removeOldRep) const;

  /** decompresses a single frame.
   *  @return EC_IllegalCall unless a decoder overrides it
   */
  virtual OFCondition decodeFrame(
    const DcmRepresentationParameter * fromParam,
    DcmPixelSequence * fromPixSeq,
    const DcmCodecParameter * cp,
    DcmItem *dataset,
    Uint32 frameNo,
    Uint32& startFragment,
    void *buffer,
    Uint32 bufSize,
    OFString& decompressedColorModel) const;

  /** compresses the given uncompressed DICOM image.
   *  @return EC_IllegalCall unless an encoder overrides it
   */
  virtual OFCondition encode(
    const Uint16 * pixelData,
    const Uint32 length,
    const DcmRepresentationParameter * toRepParam,
    DcmPixelSequence * & pixSeq,
    const DcmCodecParameter *cp,
    DcmStack & objStack,
    OFBool& removeOldRep) const;

  /** transcodes (re-compresses) the given compressed DICOM image.
   *  @return always EC_IllegalCall: DCMTK then decodes and encodes
   */
  virtual OFCondition encode(
    const E_TransferSyntax fromRepType,
    const DcmRepresentationParameter * fromRepParam,
    DcmPixelSequence * fromPixSeq,
    const DcmRepresentationParameter * toRepParam,
    DcmPixelSequence * & toPixSeq,
    const DcmCodecParameter * cp,
    DcmStack & objStack,
    OFBool& removeOldRep) const;

  /** determine color model of the decompressed image
   *  @return EC_IllegalCall unless a decoder overrides it
   */
  virtual OFCondition determineDecompressedColorModel(
    const DcmRepresentationParameter *fromParam,
    DcmPixelSequence *fromPixSeq,
    const DcmCodecParameter *cp,
    DcmItem *dataset,
    OFString &decompressedColorModel) const;

#if PACKAGE_VERSION_NUMBER >= 370
  /// DCMTK 3.7.0+: PCWT and its JPEG-LS fallback decode to the stored bits allocated
  virtual Uint16 decodedBitsAllocated(Uint16 bitsAllocated, Uint16 bitsStored) const;
#endif
};

#endif
