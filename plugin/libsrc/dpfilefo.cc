/*
 *  Module:  dcmpcwt
 *
 *  Purpose: a DcmFileFormat that reads and writes files of the PCWT private transfer syntax.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpfilefo.h"

#include "dcmtk/dcmdata/dcdatset.h"  /* for class DcmDataset */
#include "dcmtk/dcmdata/dcdeftag.h"  /* for tag constants */
#include "dcmtk/dcmdata/dcmetinf.h"  /* for class DcmMetaInfo */
#include "dcmtk/dcmdata/dcpixel.h"   /* for class DcmPixelData */
#include "dcmtk/dcmdata/dcpixseq.h"  /* for class DcmPixelSequence */
#include "dcmtk/dcmdata/dcpxitem.h"  /* for class DcmPixelItem */
#include "dcmtk/dcmdata/dcstack.h"   /* for class DcmStack */

DPCWTFileFormat::DPCWTFileFormat()
: DcmFileFormat()
{
}

DPCWTFileFormat::DPCWTFileFormat(DcmDataset *dataset, OFBool deepCopy)
: DcmFileFormat(dataset, deepCopy)
{
}

DPCWTFileFormat::~DPCWTFileFormat()
{
}

OFCondition DPCWTFileFormat::validateMetaInfo(const E_TransferSyntax oxfer,
                                              const E_FileWriteMode writeMode)
{
  OFCondition result = DcmFileFormat::validateMetaInfo(oxfer, writeMode);
  const char *uid = DPCWTUIDOfCarrier(oxfer);
  if (result.good() && uid != NULL && writeMode != EWM_dontUpdateMeta && writeMode != EWM_dataset)
  {
    // DcmFileFormat wrote the carrier's own UID: replace it with the one it stands for
    DcmMetaInfo *meta = getMetaInfo();
    if (meta == NULL) return EC_IllegalCall;
    result = meta->putAndInsertString(DCM_TransferSyntaxUID, uid);
    if (result.good())
      result = meta->computeGroupLengthAndPadding(EGL_withGL, EPD_noChange, META_HEADER_DEFAULT_TRANSFERSYNTAX,
                                                  EET_ExplicitLength);
  }
  return result;
}

OFCondition DPCWTFileFormat::loadFile(const OFFilename &fileName,
                                      const E_TransferSyntax readXfer,
                                      const E_GrpLenEncoding groupLength,
                                      const Uint32 maxReadLength,
                                      const E_FileReadMode readMode)
{
  OFCondition result = DcmFileFormat::loadFile(fileName, readXfer, groupLength, maxReadLength, readMode);
  if (result.good()) result = rekeyPixelData(*this);
  return result;
}

OFCondition DPCWTFileFormat::loadFileUntilTag(const OFFilename &fileName,
                                              const E_TransferSyntax readXfer,
                                              const E_GrpLenEncoding groupLength,
                                              const Uint32 maxReadLength,
                                              const E_FileReadMode readMode,
                                              const DcmTagKey &stopParsingAtElement)
{
  OFCondition result = DcmFileFormat::loadFileUntilTag(fileName, readXfer, groupLength, maxReadLength,
                                                       readMode, stopParsingAtElement);
  if (result.good()) result = rekeyPixelData(*this);
  return result;
}

OFCondition DPCWTFileFormat::saveFile(const OFFilename &fileName,
                                      const E_TransferSyntax writeXfer,
                                      const E_EncodingType encodingType,
                                      const E_GrpLenEncoding groupLength,
                                      const E_PaddingEncoding padEncoding,
                                      const Uint32 padLength,
                                      const Uint32 subPadLength,
                                      const E_FileWriteMode writeMode)
{
  E_TransferSyntax xfer = writeXfer;
  if (xfer == EXS_Unknown && getDataset() != NULL) xfer = getDataset()->getOriginalXfer();
  const char *uid = DPCWTUIDOfCarrier(xfer);
  OFString ts;
  if (uid != NULL && (writeMode == EWM_dataset ||
      (writeMode == EWM_dontUpdateMeta && (getMetaInfo() == NULL ||
       getMetaInfo()->findAndGetOFString(DCM_TransferSyntaxUID, ts).bad() || ts != uid))))
    return DPCWTMakeError(EPCEC_CannotWrite, OFString("the ") + DPCWTTransferSyntaxName(xfer) + " transfer "
      "syntax can only be written with file meta information that records its UID (not EWM_dataset; "
      "EWM_dontUpdateMeta only when the meta header already holds it)");
  return DcmFileFormat::saveFile(fileName, writeXfer, encodingType, groupLength, padEncoding, padLength,
                                 subPadLength, writeMode);
}

OFBool DPCWTFileFormat::isPCWTFile(DcmFileFormat &fileformat)
{
  DcmMetaInfo *meta = fileformat.getMetaInfo();
  OFString ts;
  return meta != NULL && meta->findAndGetOFString(DCM_TransferSyntaxUID, ts).good() &&
         ts == DCMPCWT_TRANSFER_SYNTAX_UID;
}

OFCondition DPCWTFileFormat::rekeyPixelData(DcmFileFormat &fileformat)
{
  DcmMetaInfo *meta = fileformat.getMetaInfo();
  OFString ts;
  if (meta == NULL || meta->findAndGetOFString(DCM_TransferSyntaxUID, ts).bad()) return EC_Normal;
  const E_TransferSyntax carrier = DPCWTCarrierOfUID(ts.c_str());
  if (carrier == EXS_Unknown) return EC_Normal;
  const OFString name = DPCWTTransferSyntaxName(carrier);
  DcmDataset *dataset = fileformat.getDataset();
  if (dataset == NULL) return EC_IllegalCall;

  // every Pixel Data element, icons included (DcmDataset::chooseRepresentation visits them all)
  DcmStack stack;
  while (dataset->search(DCM_PixelData, stack, ESM_afterStackTop, OFTrue).good())
  {
    if (stack.top()->ident() != EVR_PixelData) continue;
    DcmPixelData *pixelData = OFstatic_cast(DcmPixelData *, stack.top());
    E_TransferSyntax key = EXS_Unknown;
    const DcmRepresentationParameter *param = NULL;
    pixelData->getOriginalRepresentationKey(key, param);
    if (key == carrier) continue;

    // DCMTK read the element under the (unknown to it) private UID as Explicit VR Little Endian
    DcmPixelSequence *old = NULL;
    if (pixelData->getEncapsulatedRepresentation(key, param, old).bad() || old == NULL)
      return DPCWTMakeError(EPCEC_CorruptData, "the file declares the " + name + " transfer syntax, but "
        "its Pixel Data is not encapsulated");

    // a new sequence of cloned items: a copied DcmPixelSequence would keep the transfer syntax it
    // was read with, and DCMTK could then not write it under the carrier
    DcmPixelSequence *seq = new DcmPixelSequence(DCM_PixelSequenceTag);
    for (unsigned long i = 0; i < old->card(); ++i)
    {
      DcmPixelItem *item = NULL;
      OFCondition c = old->getItem(item, i);
      if (c.good() && item != NULL) c = item->loadAllDataIntoMemory();
      if (c.good() && item != NULL) c = seq->insert(OFstatic_cast(DcmPixelItem *, item->clone()));
      if (c.bad() || item == NULL)
      {
        delete seq;
        return DPCWTMakeError(EPCEC_CorruptData, OFString("cannot read the pixel sequence: ") + c.text());
      }
    }
    pixelData->putOriginalRepresentation(carrier, NULL, seq);
  }
  dataset->updateOriginalXfer();
  return EC_Normal;
}
