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

#include "dprcwalk.h"

#include <cstdint>
#include <string>

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

/** install the handlers that remove the temporary files of all workers on SIGINT, SIGTERM,
 *  SIGHUP, SIGQUIT (SIGKILL cannot be caught: the next run removes what is left)
 *  @param workers number of worker slots (0 .. workers-1 for DPRCProcess)
 */
void DPRCInstallSignalHandlers(unsigned workers);

/** process one file
 *  @param slot the worker's slot for the temporary file registry (< workers above)
 */
DPRCResult DPRCProcess(const DPRCEntry& entry, const DPRCOptions& options, unsigned slot);

/// the output path of an entry under options (the entry's path when in place)
std::string DPRCOutputPath(const DPRCEntry& entry, const DPRCOptions& options);

#endif
