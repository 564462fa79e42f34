/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: what the engine files that handle one file share:
 *           temporary files (temp.cc), file identities (ident.cc), conditions, transfer syntaxes
 *           and results (engine.cc).
 */

#ifndef PCWT_ARCHIVE_INTERNAL_H
#define PCWT_ARCHIVE_INTERNAL_H

#include "dcmtk/config/osconfig.h"
#include "engine.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/ofstd/ofcond.h"

#include <string>
#include <vector>

#include <sys/stat.h>

namespace dprc {

// ---- temp.cc: temporary files, flushes, copies

/// a temporary file next to its destination (created exclusively by mkstemp, its name embedding
/// the run id), registered for removal on signals
class TempFile
{
public:
  explicit TempFile(unsigned slot);
  ~TempFile() { discard(); }
  bool create(const std::string& dir, const std::string& base, std::string& error);
  const std::string& path() const { return path_; }
  /// start writing the file's data back to disk, without waiting (a hint: a later fsync waits)
  void startWriteback() const;
  /// the file was renamed away: forget it
  void released();
  void discard();
private:
  unsigned slot_;
  std::string path_;
};

std::string errnoText(const std::string& what);
bool fsyncPath(const std::string& path, bool directory, std::string& error);
std::string dirOf(const std::string& path);
std::string baseOf(const std::string& path);
/// rename that never replaces an existing `to` (renameat2 RENAME_NOREPLACE; where the file system
/// lacks it, link + unlink, which fails on an existing name too); 0 or -1 with errno
int renameNoReplace(const std::string& from, const std::string& to);
/// copy a regular file to dest atomically (temporary file, fsync, rename; an existing dest is
/// replaced only when replace is true)
bool copyFile(const std::string& src, const std::string& dest, unsigned slot, bool replace, std::string& error);

// ---- ident.cc: who a file is, opening only regular files

/// the identity of a file: inode, size, modification and change times
DPRCFileId identityOf(const struct stat& st);
/// empty when equal, else what changed ("size 100 -> 120", "modified", "replaced by another file")
std::string identityChange(const DPRCFileId& before, const DPRCFileId& now);
/** open a regular file to read: never follows a final symbolic link, never blocks on a FIFO, never
 *  opens a device or socket (lstat first, O_NOFOLLOW | O_NONBLOCK, then fstat of what was opened)
 *  @return the descriptor, or -1: error says why; symlink/notRegular tell those cases apart
 */
int openRegular(const std::string& path, struct stat& st, std::string& error, bool& symlink, bool& notRegular);
/// PCWT_RECOMPRESS_FAULT=change-*: a concurrent writer simulated (bytes appended to path)
void testAppend(const std::string& path);

// ---- engine.cc: transfer syntaxes, conditions and results (for read.cc and write.cc)

bool isTargetUid(const std::string& ts, DPRC_Target target);
/// a transfer syntax's name for the report ("(none)" when empty, the UID when unknown)
std::string xferName(const std::string& uid);
/// the uncompressed Pixel Data bytes of the top-level data set (after chooseRepresentation)
OFCondition rawPixels(DcmDataset *ds, std::vector<unsigned char>& out);
/// is the condition from the PCWT codecs one that says "cannot code this image" (not an error)?
bool unsupportedCondition(const OFCondition& c);
/** the reason of a failed DCMTK or codec step by the condition's module and code: memory and the
 *  pixel module's checks wherever they fail, else the step's own reason
 */
DPRC_Reason conditionReason(const OFCondition& c, DPRC_Reason step);
/// decoding: EPCEC_TooLarge is the decoder's memory budget or frame size limit, a limit of ours
DPRC_Reason decodeReason(const OFCondition& c, DPRC_Reason step);
/// the target as pcwt_dicom.h names it (PCWT for --decompress: only its checks are used)
pcwt_dicom_target dicomTarget(const DPRCOptions& opt);
/// the transfer syntax written
E_TransferSyntax outputXfer(const DPRCOptions& opt);
/// the end of every file's processing: copies of files that are not recompressed (--copy-others),
/// the output path, the time; the job's data released
void complete(DPRCJob& job, const DPRCOptions& opt, unsigned slot);

/// a failure: the reason is required, so that no failure goes without one
inline DPRCResult& fail(DPRCResult& r, DPRC_Reason reason, const std::string& message)
{
  r.status = DPRCST_failed;
  r.reason = reason;
  r.message = message;
  return r;
}

/// any other outcome; unsupported and changed get their reason (DPRCR_none: the status's own)
inline DPRCResult& finish(DPRCResult& r, DPRC_Status status, const std::string& message = std::string(),
                          DPRC_Reason reason = DPRCR_none)
{
  r.status = status;
  r.reason = reason != DPRCR_none ? reason
           : status == DPRCST_unsupported ? DPRCR_unsupported
           : status == DPRCST_skippedChanged ? DPRCR_changed : DPRCR_none;
  r.message = message;
  return r;
}

} // namespace dprc

/// a temporary file of a verified copy, waiting for its commit (removed when dropped before)
class DPRCTempFile : public dprc::TempFile
{
public:
  explicit DPRCTempFile(unsigned slot) : dprc::TempFile(slot) {}
};

#endif
