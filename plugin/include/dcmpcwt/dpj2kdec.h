/*
 *  Module:  dcmpcwt
 *
 *  Purpose: decoder codec class for JPEG 2000 (1.2.840.10008.1.2.4.90, .91) and HTJ2K (.201, .202,
 *           .203, under their carriers) on OpenJPEG 2.5.
 */

#ifndef DCMPCWT_DPJ2KDEC_H
#define DCMPCWT_DPJ2KDEC_H

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcodecb.h"
#include "dcmpcwt/dputil.h"

#include <vector>

/** one frame's codestream as the decoder finds it (DPCWTJ2KDecoder::frameCodestreams()) */
struct DPCWTJ2KCodestream
{
  /// the codestream (of a JP2 file: its jp2c box's content), in the data set or in joined
  const Uint8 *data = NULL;
  size_t size = 0;
  /// its headers say: reversible 5/3 wavelet, no quantisation
  bool lossless = false;
  /// HTJ2K (Part 15)
  bool htj2k = false;
  /// a frame of several fragments: them joined (data points in here)
  std::vector<Uint8> joined;
};

/** decoder of JPEG 2000 and HTJ2K encapsulated pixel data to native pixel data. What it does with
 *  the files real archives hold (docs/CONFORMANCE.md, "JPEG 2000 input"):
 *  - whether a stream is lossless is read from its headers (reversible 5/3 wavelet in every COD/COC,
 *    no quantisation in every QCD/QCC), not from the UID; lossy streams are refused with
 *    EPCEC_LossyInput unless the codec parameter accepts lossy input, and decoded ones get
 *    LossyImageCompression "01" and the method ISO_15444_1 (ISO_15444_15 for HTJ2K);
 *  - a JP2 file where a codestream is expected is read (its jp2c box);
 *  - frames: one or more fragments each, found through the Basic Offset Table, the Extended Offset
 *    Table or, without either, the fragments that start a codestream;
 *  - the codestream's SIZ must match Rows, Columns and Samples per Pixel, without subsampling, and
 *    its precision must fit BitsAllocated (checked before OpenJPEG allocates anything); a precision
 *    other than BitsStored becomes BitsStored and HighBit, as GDCM does;
 *  - samples are the decoded values' BitsStored-bit patterns, sign-extended when
 *    PixelRepresentation is 1; colour comes pixel-interleaved with the colour transform undone:
 *    YBR_RCT and YBR_ICT become RGB.
 *  Thread-safe: each call decodes on its own OpenJPEG handles. Encoding is refused.
 */
class DPCWTJ2KDecoder : public DPCWTCodecBase
{
public:
  DPCWTJ2KDecoder();
  virtual ~DPCWTJ2KDecoder();

  /// decompresses every frame into uncompressedPixelData (see DcmCodec::decode)
  virtual OFCondition decode(
    const DcmRepresentationParameter *fromRepParam,
    DcmPixelSequence *pixSeq,
    DcmPolymorphOBOW& uncompressedPixelData,
    const DcmCodecParameter *cp,
    const DcmStack& objStack,
    OFBool& removeOldRep) const;

  /// decompresses one frame into buffer (see DcmCodec::decodeFrame)
  virtual OFCondition decodeFrame(
    const DcmRepresentationParameter *fromParam,
    DcmPixelSequence *fromPixSeq,
    const DcmCodecParameter *cp,
    DcmItem *dataset,
    Uint32 frameNo,
    Uint32& startFragment,
    void *buffer,
    Uint32 bufSize,
    OFString& decompressedColorModel) const;

  /// JPEG 2000 (.90, .91) or an HTJ2K carrier to native
  virtual OFBool canChangeCoding(const E_TransferSyntax oldRepType, const E_TransferSyntax newRepType) const;

  /// RGB for YBR_RCT and YBR_ICT, else PhotometricInterpretation
  virtual OFCondition determineDecompressedColorModel(
    const DcmRepresentationParameter *fromParam,
    DcmPixelSequence *fromPixSeq,
    const DcmCodecParameter *cp,
    DcmItem *dataset,
    OFString& decompressedColorModel) const;

  /** whether the JPEG 2000 / HTJ2K pixel data of a data set (its original representation) is lossy,
   *  read from the headers of every frame's codestream without decoding: for tools that refuse
   *  lossy input before they decode (dcmcpcwt, pcwt-recompress, pcwt-storescp).
   *  @param dataset the data set (its Pixel Data under a JPEG 2000 or HTJ2K representation)
   *  @param lossy set when some frame is lossy (irreversible wavelet or quantisation)
   *  @return EC_Normal, or the condition decoding would return for these headers
   */
  static OFCondition isLossy(DcmItem *dataset, OFBool& lossy);

  /** the codestream of every frame of a data set's JPEG 2000 / HTJ2K pixel data, found and its
   *  headers checked against the image pixel module as decoding does, without decoding: for a
   *  tool that decodes the frames of many files together (pcwt-recompress on a GPU) and hands
   *  the samples back through DPCWTThreadCoder::decodedJ2KFrame(), so that decoding the data set
   *  then applies the codec's DICOM rules to them
   *  @return EC_Normal, or the condition decoding would return for these headers (frames empty)
   */
  static OFCondition frameCodestreams(DcmItem *dataset, std::vector<DPCWTJ2KCodestream>& frames);

  /// @return OFTrue when built with OpenJPEG (otherwise decoding fails with EPCEC_NoDecoder)
  static OFBool available();

  /// @return "OpenJPEG, Version x.y.z", or a sentence saying it is not built in
  static OFString libraryVersion();
};

#endif
