/*
 *  Module:  dcmpcwt
 *
 *  Purpose: decoder codec class for the PCWT private transfer syntax.
 */

#ifndef DCMPCWT_DPCODECD_H
#define DCMPCWT_DPCODECD_H

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcodecb.h"
#include "dcmpcwt/dputil.h"

#include "pcwt_dicom.h"

#include <vector>

class DcmObject;
class DcmPixelItem;
class DPCWTCodecParameter;
class DPCWTDecoderPool;

/** decoder of the PCWT private transfer syntax. Whole-image decoding (decode) and frame-wise
 *  decoding (decodeFrame, used by DcmPixelData::getUncompressedFrame and DicomImage's partial
 *  access) both find a frame's fragments through the Basic Offset Table, check the codestream
 *  header against the image pixel module and allocate nothing before those checks pass.
 *  Thread-safe: each call uses a libpcwt handle of its own at a time, kept for the next call
 *  after one that succeeds (a GPU backend's context and buffers with it: DCMTK decodes many
 *  images, and frame by frame, with one codec). With the AUTO backend an image (decode) or frame
 *  (decodeFrame) of fewer than 32 MB of samples is decoded on the CPU (dpbackend.h: a GPU context
 *  costs more). Encoding is refused (DPCWTCodecBase).
 */
class DPCWTDecoder : public DPCWTCodecBase
{
public:

  /** constructor.
   *  @param mode which encapsulated pixel data this instance claims (see DPCWT_DecoderMode)
   */
  explicit DPCWTDecoder(DPCWT_DecoderMode mode = EPCDM_carrier);

  /// destructor
  virtual ~DPCWTDecoder();

  /** decompresses the given pixel sequence and stores the result in the given uncompressedPixelData element.
   *  @param fromRepParam current representation parameter of compressed data, may be NULL
   *  @param pixSeq compressed pixel sequence
   *  @param uncompressedPixelData uncompressed pixel data stored in this element
   *  @param cp codec parameters for this codec
   *  @param objStack stack pointing to the location of the pixel data
   *    element in the current dataset.
   *  @param removeOldRep boolean flag that should be set to false before this method call
   *    and will be set to true if the codec modifies the DICOM dataset such
   *    that the pixel data of the original representation may not be usable
   *    anymore.
   *  @return EC_Normal if successful, an error code otherwise.
   */
  virtual OFCondition decode(
    const DcmRepresentationParameter * fromRepParam,
    DcmPixelSequence * pixSeq,
    DcmPolymorphOBOW& uncompressedPixelData,
    const DcmCodecParameter * cp,
    const DcmStack& objStack,
    OFBool& removeOldRep) const;

  /** decompresses a single frame from the given pixel sequence and
   *  stores the result in the given buffer.
   *  @param fromParam representation parameter of current compressed
   *    representation, may be NULL.
   *  @param fromPixSeq compressed pixel sequence
   *  @param cp codec parameters for this codec
   *  @param dataset pointer to dataset in which pixel data element is contained
   *  @param frameNo number of frame, starting with 0 for the first frame
   *  @param startFragment ignored on input (the Basic Offset Table is used); on output the index
   *    of the first fragment after this frame's fragments
   *  @param buffer pointer to buffer where frame is to be stored
   *  @param bufSize size of buffer in bytes
   *  @param decompressedColorModel upon successful return, the color model
   *    of the decompressed image (which may be different from the one used
   *    in the compressed images) is returned in this parameter.
   *  @return EC_Normal if successful, an error code otherwise.
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

  /** determine color model of the decompressed image: PCWT keeps PhotometricInterpretation.
   *  @param fromParam representation parameter of current compressed
   *    representation, may be NULL
   *  @param fromPixSeq compressed pixel sequence
   *  @param cp codec parameters for this codec
   *  @param dataset pointer to dataset in which pixel data element is contained
   *  @param decompressedColorModel upon successful return, the color model
   *    of the decompressed image (which may be different from the one used
   *    in the compressed images) is returned in this parameter
   *  @return EC_Normal if successful, an error code otherwise
   */
  virtual OFCondition determineDecompressedColorModel(
    const DcmRepresentationParameter *fromParam,
    DcmPixelSequence *fromPixSeq,
    const DcmCodecParameter *cp,
    DcmItem *dataset,
    OFString &decompressedColorModel) const;

  /** @return true if the data set containing dataset (or its file) is of the PCWT transfer
   *  syntax: walks up to the DcmFileFormat and reads (0002,0010).
   */
  static OFBool isInPCWTFile(DcmObject *dataset);

private:

  /// the fragments of a pixel sequence, read once per call
  struct Fragments;

  /// collect fragment items, lengths and the Basic Offset Table; checks the structure
  static OFCondition readFragments(DcmPixelSequence *pixSeq, Uint64 frames, Fragments& frags);

  /// one frame's codestream, located and checked
  struct FrameSource;

  /** find the fragments of frame frameNo, join them if there are several, and check the
   *  codestream header against the image pixel module and the decoder's limits (nothing is
   *  decoded or allocated for the image yet)
   */
  static OFCondition locateFrame(
    const Fragments& frags,
    const pcwt_dicom_pixel_module& module,
    const DPCWTCodecParameter *cp,
    Uint64 frameNo,
    FrameSource& source);

  /** a decoder handle set up with the codec parameters for an image of `bytes` bytes of samples
   *  (their backend; AUTO: the CPU for a small image, see dpbackend.h): a kept one, else a new one
   */
  pcwt_decoder *takeDecoder(const DPCWTCodecParameter *cp, Uint64 bytes, OFCondition& result) const;

  /// dec (from takeDecoder with the same cp and bytes) back to the kept handles after a call
  /// that succeeded, else destroyed
  void returnDecoder(pcwt_decoder *dec, const DPCWTCodecParameter *cp, Uint64 bytes, OFBool succeeded) const;

  /// the checks that precede any decoding in EPCDM_unknownEncapsulated mode
  OFCondition checkClaim(DcmItem *dataset, DcmPixelSequence *pixSeq) const;

  /// which pixel data this instance claims
  const DPCWT_DecoderMode mode_;

  /// the idle libpcwt handles kept between calls
  DPCWTDecoderPool *pool_;

  DPCWTDecoder(const DPCWTDecoder&);
  DPCWTDecoder& operator=(const DPCWTDecoder&);
};

#endif
