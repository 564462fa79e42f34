/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress: recompressing one file safely. The new copy is written to
 *           a temporary file in the destination folder, flushed to disk, decoded and compared
 *           sample by sample with the original, and only then renamed over the destination (and
 *           the folder flushed): at every moment the destination is either the untouched original
 *           or the complete verified copy.
 */

#ifndef DCMPCWT_DPRCFILE_H
#define DCMPCWT_DPRCFILE_H

#include "dcmtk/config/osconfig.h"

#include "dcmpcwt/dpfilefo.h"
#include "dprcwalk.h"
#include "pcwt.h"
#include "pcwt_dicom.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

/// the transfer syntax pcwt-recompress writes
enum DPRC_Target
{
  /// the PCWT private transfer syntax (default)
  DPRCT_pcwt,
  /// JPEG-LS Lossless (standard)
  DPRCT_jpegls,
  /// Explicit VR Little Endian (--decompress)
  DPRCT_uncompressed
};

/// what happened to one file
enum DPRC_Status
{
  /// recompressed, verified and in place (or in the output tree)
  DPRCST_done,
  /// --dry-run: would be recompressed
  DPRCST_wouldDo,
  /// already in the target transfer syntax (or the output exists): nothing to do
  DPRCST_skippedDone,
  /// not a DICOM Part 10 file
  DPRCST_skippedNotDicom,
  /// a DICOM file without image pixel data (DICOMDIR, structured report, ...)
  DPRCST_skippedNonImage,
  /// a symbolic link (not followed)
  DPRCST_skippedSymlink,
  /// --keep-smaller: the verified copy was not smaller than the original, which was kept
  DPRCST_keptOriginal,
  /// an image that cannot be coded (losslessly) to the target: left as it is
  DPRCST_unsupported,
  /// an error: unreadable, truncated, corrupt, read-only, cannot write, verification failed
  DPRCST_failed
};

/// the name of a status in reports ("recompressed", "skipped-done", ...)
const char *DPRCStatusName(DPRC_Status status);

/// what DPRCProcess() is to do
struct DPRCOptions
{
  DPRC_Target target = DPRCT_pcwt;
  /// mirrored output tree; empty: in place
  std::string outputDir;
  /// in place: keep the original beside the new file as NAME.pcwt-orig
  bool keepOriginals = false;
  /// look and report, write nothing
  bool dryRun = false;
  /// code images that were lossy compressed before
  bool acceptLossy = false;
  /// mirrored output: copy files that are not recompressed (skipped, unsupported) unchanged
  bool copyOthers = false;
  /// keep the original when the verified copy is not smaller (with --output: copy it there)
  bool keepSmaller = false;
};

/// the outcome for one file (one line of the report)
struct DPRCResult
{
  std::string path;
  std::string output;
  DPRC_Status status = DPRCST_failed;
  std::uint64_t inBytes = 0;
  std::uint64_t outBytes = 0;
  /// bytes of uncompressed pixel data (0 when not looked at)
  std::uint64_t pixelBytes = 0;
  std::string inXfer;
  std::string outXfer;
  std::string message;
  double seconds = 0.0;
};

/** one file on its way through the steps of DPRCPrepare() and DPRCFinish(), which a pipeline
 *  may run on different threads, with the frames coded in between by a batch coder
 */
struct DPRCJob
{
  DPRCEntry entry;
  DPRCResult result;
  std::chrono::steady_clock::time_point start;
  /// the file, read, its pixel data decoded (uncompressed)
  std::unique_ptr<DPCWTFileFormat> file;
  /// mode, owner and group of the original
  unsigned mode = 0, uid = 0, gid = 0;
  /// the image pixel module and the original samples (DPCWTGetPixels; raw pixel data for --decompress)
  pcwt_dicom_pixel_module module;
  std::vector<unsigned char> original;
  /** PCWT codestreams of the frames of `original`, coded ahead by a batch coder with codedParams
   *  (empty: the codec codes them when the file is written). Used only for frames whose samples
   *  and description match (see DPRCWriterCoder in dprcpipe.h).
   */
  std::vector<std::vector<unsigned char> > coded;
  pcwt_encode_params codedParams;
};

/** the first steps for one file: look at it, read it, decode its pixel data, check it and get
 *  its samples (a dry run stops here)
 *  @return true when the file is to be coded and written (DPRCFinish); false when job.result is
 *    final (skipped, unsupported, failed, would-recompress), the job's file released
 */
bool DPRCPrepare(DPRCJob& job, const DPRCEntry& entry, const DPRCOptions& options, unsigned slot);

/** the last steps for a prepared job: code (or take the frames coded ahead, through the codecs'
 *  thread coder), write the temporary file, flush, verify, rename; job.result is then final and
 *  the job's data released
 *  @param slot the worker's slot for the temporary file registry
 */
void DPRCFinish(DPRCJob& job, const DPRCOptions& options, unsigned slot);

/** install the handlers that remove the temporary files of all workers on SIGINT, SIGTERM,
 *  SIGHUP, SIGQUIT (SIGKILL cannot be caught: the next run removes what is left)
 *  @param workers number of worker slots (0 .. workers-1 for DPRCProcess)
 */
void DPRCInstallSignalHandlers(unsigned workers);

/** process one file (DPRCPrepare and DPRCFinish on this thread)
 *  @param slot the worker's slot for the temporary file registry (< workers above)
 */
DPRCResult DPRCProcess(const DPRCEntry& entry, const DPRCOptions& options, unsigned slot);

/// what DPRCUpdateDicomdir() did
struct DPRCDicomdirUpdate
{
  /// records changed (or, in a dry run, to be changed)
  std::uint64_t records = 0;
  /// an error: the DICOMDIR is left as it was
  std::string error;
};

/** set the Referenced Transfer Syntax UID in File (0004,1512) of every record of a DICOMDIR whose
 *  referenced file is now in the target transfer syntax (recompressed by this run or an earlier,
 *  interrupted one) and whose record says otherwise. The DICOMDIR is rewritten by DCMTK's
 *  DcmDicomDir (record offsets recomputed) into a temporary copy in its folder, flushed, and
 *  renamed over it; under an exclusive lock of the folder, so that shards finishing at the same
 *  time do not undo each other's updates. Nothing is written when nothing changes or in a dry run.
 *  @param slot the temporary file slot (see DPRCInstallSignalHandlers)
 */
DPRCDicomdirUpdate DPRCUpdateDicomdir(const std::string& dicomdir, DPRC_Target target, bool dryRun, unsigned slot);

/// the output path of an entry under options (the entry's path when in place)
std::string DPRCOutputPath(const DPRCEntry& entry, const DPRCOptions& options);

#endif
