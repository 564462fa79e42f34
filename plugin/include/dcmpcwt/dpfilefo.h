/*
 *  Module:  dcmpcwt
 *
 *  Purpose: a DcmFileFormat that reads and writes files of the PCWT private transfer syntax (and
 *           reads HTJ2K files, whose UIDs DCMTK 3.6.7 does not know either).
 */

#ifndef DCMPCWT_DPFILEFO_H
#define DCMPCWT_DPFILEFO_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcfilefo.h" /* for class DcmFileFormat */
#include "dcmpcwt/dputil.h"

/** DcmFileFormat for the PCWT private transfer syntax (DCMTK 3.6.7 cannot register a transfer
 *  syntax; docs/dcmtk-plugin.md explains the design):
 *
 *  - saving with DPCWT_CARRIER_XFER writes DCMPCWT_TRANSFER_SYNTAX_UID into (0002,0010)
 *    (validateMetaInfo() is overridden), never the carrier's own UID;
 *  - loading a file whose (0002,0010) is DCMPCWT_TRANSFER_SYNTAX_UID moves its encapsulated pixel
 *    data (which DCMTK keys as Explicit VR Little Endian, having no entry for the UID) onto
 *    DPCWT_CARRIER_XFER, where the registered DPCWTDecoder finds it;
 *  - the same for the HTJ2K UIDs (1.2.840.10008.1.2.4.201-203): their pixel data goes onto
 *    DPCWT_HTJ2K_*_XFER (dputil.h), where DPCWTJ2KDecoder finds it, and saving under such a carrier
 *    writes its UID;
 *  - everything else behaves as DcmFileFormat.
 *
 *  Never read PCWT files with ERM_fileOnly/ERM_metaOnly: DCMTK 3.6.7 rejects an unknown transfer
 *  syntax in those modes ("File meta information header missing").
 */
class DPCWTFileFormat : public DcmFileFormat
{
public:

  /// default constructor: empty meta header and data set
  DPCWTFileFormat();

  /** constructor from a data set (as DcmFileFormat's)
   *  @param dataset data set to copy (or to take over, see deepCopy)
   *  @param deepCopy copy the data set, otherwise take ownership
   */
  DPCWTFileFormat(DcmDataset *dataset, OFBool deepCopy = OFTrue);

  /// destructor
  virtual ~DPCWTFileFormat();

  /** as DcmFileFormat::validateMetaInfo(); for DPCWT_CARRIER_XFER the transfer syntax UID becomes
   *  DCMPCWT_TRANSFER_SYNTAX_UID and the group length is recomputed.
   */
  virtual OFCondition validateMetaInfo(const E_TransferSyntax oxfer,
                                       const E_FileWriteMode writeMode = EWM_fileformat);

  /** as DcmFileFormat::loadFile(), then rekeyPixelData() */
  virtual OFCondition loadFile(const OFFilename &fileName,
                               const E_TransferSyntax readXfer = EXS_Unknown,
                               const E_GrpLenEncoding groupLength = EGL_noChange,
                               const Uint32 maxReadLength = DCM_MaxReadLength,
                               const E_FileReadMode readMode = ERM_autoDetect);

  /** as DcmFileFormat::loadFileUntilTag(), then rekeyPixelData() */
  virtual OFCondition loadFileUntilTag(const OFFilename &fileName,
                                       const E_TransferSyntax readXfer = EXS_Unknown,
                                       const E_GrpLenEncoding groupLength = EGL_noChange,
                                       const Uint32 maxReadLength = DCM_MaxReadLength,
                                       const E_FileReadMode readMode = ERM_autoDetect,
                                       const DcmTagKey &stopParsingAtElement = DCM_UndefinedTagKey);

  /** as DcmFileFormat::saveFile(); refuses to write DPCWT_CARRIER_XFER without file meta
   *  information (EWM_dataset), where the private UID could not be recorded.
   */
  virtual OFCondition saveFile(const OFFilename &fileName,
                               const E_TransferSyntax writeXfer = EXS_Unknown,
                               const E_EncodingType encodingType = EET_UndefinedLength,
                               const E_GrpLenEncoding groupLength = EGL_recalcGL,
                               const E_PaddingEncoding padEncoding = EPD_noChange,
                               const Uint32 padLength = 0,
                               const Uint32 subPadLength = 0,
                               const E_FileWriteMode writeMode = EWM_createNewMeta);

  /** @return true if the meta header's (0002,0010) is DCMPCWT_TRANSFER_SYNTAX_UID */
  static OFBool isPCWTFile(DcmFileFormat &fileformat);

  /** For a file of the PCWT (or an HTJ2K) transfer syntax read by any DcmFileFormat (or through a
   *  stream): move the encapsulated pixel data of every Pixel Data element (icons included) onto
   *  its carrier (DPCWTCarrierOfUID()) and update the data set's original transfer syntax. Does
   *  nothing for other files or pixel data already on the carrier.
   *  @return EC_Normal, or an error if a PCWT file holds native (not encapsulated) pixel data
   */
  static OFCondition rekeyPixelData(DcmFileFormat &fileformat);
};

#endif
