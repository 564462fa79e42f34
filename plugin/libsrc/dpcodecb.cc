/*
 *  Module:  dcmpcwt
 *
 *  Purpose: base class of the PCWT codec classes: the operations a codec of one direction refuses.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcodecb.h"

#include "dcmtk/dcmdata/dcerror.h"  /* for EC_IllegalCall */

DPCWTCodecBase::DPCWTCodecBase()
: DcmCodec()
{
}

DPCWTCodecBase::~DPCWTCodecBase()
{
}

OFCondition DPCWTCodecBase::decode(
    const DcmRepresentationParameter * /* fromRepParam */,
    DcmPixelSequence * /* pixSeq */,
    DcmPolymorphOBOW& /* uncompressedPixelData */,
    const DcmCodecParameter * /* cp */,
    const DcmStack& /* objStack */,
    OFBool& /* removeOldRep */) const
{
  return EC_IllegalCall;
}

OFCondition DPCWTCodecBase::decodeFrame(
    const DcmRepresentationParameter * /* fromParam */,
    DcmPixelSequence * /* fromPixSeq */,
    const DcmCodecParameter * /* cp */,
    DcmItem * /* dataset */,
    Uint32 /* frameNo */,
    Uint32& /* startFragment */,
    void * /* buffer */,
    Uint32 /* bufSize */,
    OFString& /* decompressedColorModel */) const
{
  return EC_IllegalCall;
}

OFCondition DPCWTCodecBase::encode(
    const Uint16 * /* pixelData */,
    const Uint32 /* length */,
    const DcmRepresentationParameter * /* toRepParam */,
    DcmPixelSequence * & /* pixSeq */,
    const DcmCodecParameter * /* cp */,
    DcmStack & /* objStack */,
    OFBool& /* removeOldRep */) const
{
  return EC_IllegalCall;
}

OFCondition DPCWTCodecBase::encode(
    const E_TransferSyntax /* fromRepType */,
    const DcmRepresentationParameter * /* fromRepParam */,
    DcmPixelSequence * /* fromPixSeq */,
    const DcmRepresentationParameter * /* toRepParam */,
    DcmPixelSequence * & /* toPixSeq */,
    const DcmCodecParameter * /* cp */,
    DcmStack & /* objStack */,
    OFBool& /* removeOldRep */) const
{
  // no transcoding: DcmPixelData then decodes to uncompressed and calls the other encode()
  return EC_IllegalCall;
}

OFCondition DPCWTCodecBase::determineDecompressedColorModel(
    const DcmRepresentationParameter * /* fromParam */,
    DcmPixelSequence * /* fromPixSeq */,
    const DcmCodecParameter * /* cp */,
    DcmItem * /* dataset */,
    OFString & /* decompressedColorModel */) const
{
  return EC_IllegalCall;
}

#if PACKAGE_VERSION_NUMBER >= 370
Uint16 DPCWTCodecBase::decodedBitsAllocated(Uint16 bitsAllocated, Uint16 /* bitsStored */) const
{
  return bitsAllocated;
}
#endif
