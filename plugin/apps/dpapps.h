/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) helpers shared by dcmcpcwt and dcmdpcwt: all-or-nothing output files,
 *           decoder registration, and the sample comparison of --verify.
 */

#ifndef DCMPCWT_DPAPPS_H
#define DCMPCWT_DPAPPS_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofcond.h"
#include "dcmtk/ofstd/ofstring.h"

#include "pcwt.h"
#include "pcwt_dicom.h"

#include <vector>

class DcmDataset;

/** an output file that appears at its path only when complete: it is written to a temporary
 *  file in the same folder, flushed to disk and renamed over the path. Until commit() succeeds
 *  nothing exists at the path; the temporary file is removed on destruction, on error and on
 *  SIGINT/SIGTERM/SIGHUP.
 */
class DPCWTOutputFile
{
public:
  explicit DPCWTOutputFile(const OFString& path);
  ~DPCWTOutputFile();

  /// create the temporary file next to the path
  OFCondition create();

  /// the temporary file to write
  const OFString& tempPath() const { return temp_; }

  /// flush the temporary file to disk and rename it to the path
  OFCondition commit();

  /// remove the temporary file (also done by the destructor)
  void discard();

private:
  DPCWTOutputFile(const DPCWTOutputFile&);
  DPCWTOutputFile& operator=(const DPCWTOutputFile&);

  OFString path_;
  OFString temp_;
  OFBool committed_;
};

/// register DCMTK's JPEG, JPEG-LS and RLE decoders and the PCWT decoder (all with a new SOP
/// Instance UID on decompression when newUID is set; the PCWT decoder on backend)
void DPCWTRegisterDecoders(unsigned long maxSamplesPerFrame, OFBool newUID,
                           pcwt_backend backend = PCWT_BACKEND_AUTO);

/// deregister what DPCWTRegisterDecoders() registered
void DPCWTCleanupDecoders();

/** the uncompressed samples of the data set's top-level Pixel Data, as a byte sequence
 *  (host order words for 16 bits), and its image pixel module, which must validate for target
 */
OFCondition DPCWTGetPixels(DcmDataset *dataset, pcwt_dicom_target target,
                           pcwt_dicom_pixel_module& module, std::vector<unsigned char>& pixels);

/** the same checks, and where the uncompressed Pixel Data of the data set is (bytes: as many as
 *  the module declares), not copied: as DPCWTGetPixels' samples except for 8-bit samples on a
 *  big-endian host (16-bit words in host order)
 */
OFCondition DPCWTFindPixels(DcmDataset *dataset, pcwt_dicom_target target, pcwt_dicom_pixel_module& module,
                            const Uint8 *& data, Uint64& bytes);

/** compare decoded samples with the original ones: every bit for PCWT; for JPEG-LS the
 *  BitsStored-bit values (what JPEG-LS carries), in pixel-interleaved order
 */
OFCondition DPCWTCompareSamples(const pcwt_dicom_pixel_module& originalModule,
                                const unsigned char *original, size_t originalSize,
                                const pcwt_dicom_pixel_module& decodedModule,
                                const std::vector<unsigned char>& decoded,
                                pcwt_dicom_target target);

#endif
