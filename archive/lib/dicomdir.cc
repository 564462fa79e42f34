/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the Referenced Transfer Syntax UIDs of DICOMDIR records
 *           brought up to date, the DICOMDIR rewritten safely under a lock of its folder.
 */

#include "dcmtk/config/osconfig.h"
#include "internal.h"

#include "dcmtk/dcmdata/dcdicdir.h"
#include "dcmtk/dcmdata/dcdirrec.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace dprc;

// ---------------------------------------------------------------------------------------------
// DICOMDIR records

namespace {

/// the records below rec whose referenced file is now in the target syntax get its UID
std::uint64_t updateRecords(DcmDirectoryRecord *rec, const std::string& dir, DPRC_Target target, bool apply)
{
  std::uint64_t changed = 0;
  if (rec == NULL) return 0;
  for (unsigned long i = 0; i < rec->cardSub(); ++i)
  {
    DcmDirectoryRecord *sub = rec->getSub(i);
    if (sub == NULL) continue;
    OFString id;
    if (sub->findAndGetOFStringArray(DCM_ReferencedFileID, id).good() && !id.empty())
    {
      // only regular files confined below the DICOMDIR's folder are looked at (as by the walk)
      std::string path, rel, ts, sopClass, error;
      struct stat st;
      OFString recorded;
      if (DPRCResolveFileId(dir, id.c_str(), path, rel, st, error) && S_ISREG(st.st_mode) &&
          DPRCSniff(path, ts, sopClass, error) == DPRCS_dicom && isTargetUid(ts, target) &&
          (sub->findAndGetOFString(DCM_ReferencedTransferSyntaxUIDInFile, recorded).bad() ||
           ts != recorded.c_str()))
      {
        ++changed;
        if (apply) sub->putAndInsertString(DCM_ReferencedTransferSyntaxUIDInFile, ts.c_str());
      }
    }
    changed += updateRecords(sub, dir, target, apply);
  }
  return changed;
}

/// an exclusive lock of a folder (flock), released on destruction
class FolderLock
{
public:
  explicit FolderLock(const std::string& dir) : fd_(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC))
  {
    if (fd_ >= 0) while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
  }
  ~FolderLock() { if (fd_ >= 0) close(fd_); }
  bool good() const { return fd_ >= 0; }
private:
  int fd_;
};

} // namespace

DPRCDicomdirUpdate DPRCUpdateDicomdir(const std::string& dicomdir, DPRC_Target target, bool dryRun, unsigned slot)
{
  DPRCDicomdirUpdate u;
  const std::string dir = dirOf(dicomdir);
  FolderLock lock(dir);
  if (!lock.good())
  {
    u.error = errnoText("cannot open the folder " + dir);
    return u;
  }
  struct stat st;
  if (stat(dicomdir.c_str(), &st) != 0)
  {
    u.error = errnoText("cannot read " + dicomdir);
    return u;
  }
  {
    // what would change (read only; DcmDicomDir makes an empty one of a file it cannot read)
    DcmFileFormat check;
    OFCondition c = check.loadFile(dicomdir.c_str());
    if (c.bad())
    {
      u.error = std::string("cannot read DICOMDIR: ") + c.text();
      return u;
    }
    DcmDicomDir look(dicomdir.c_str());
    if (look.error().bad())
    {
      u.error = std::string("cannot read DICOMDIR: ") + look.error().text();
      return u;
    }
    u.records = updateRecords(&look.getRootRecord(), dir, target, false);
  }
  if (u.records == 0 || dryRun) return u;
  // a read-only DICOMDIR is left alone, as read-only files are (checked by mode bits too, for root)
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || access(dicomdir.c_str(), W_OK) != 0)
  {
    u.error = "read-only DICOMDIR, " + std::to_string(u.records) + " record(s) not updated";
    u.records = 0;
    return u;
  }

  // a copy next to it (a temporary name with this run's id), updated and written by
  // DcmDicomDir (which writes COPY.tmp and renames it over the copy), flushed, then renamed over
  // the DICOMDIR
  std::string error;
  std::string copy = DPRCTempTemplate(dir, baseOf(dicomdir));
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "dd%04u", OFstatic_cast(unsigned, getpid() % 10000));
  copy.replace(copy.size() - 6, 6, suffix);
  struct Cleanup
  {
    std::string path;
    ~Cleanup()
    {
      if (path.empty()) return;
      unlink(path.c_str());
      unlink((path + DICOMDIR_TEMP_SUFFIX).c_str());
      unlink((path + DICOMDIR_BACKUP_SUFFIX).c_str());
    }
  } cleanup;
  cleanup.path = copy;
  if (!copyFile(dicomdir, copy, slot, false, error))
  {
    u.records = 0;
    u.error = error;
    return u;
  }
  {
    DcmDicomDir dd(copy.c_str());
    OFCondition c = dd.error();
    if (c.good())
    {
      u.records = updateRecords(&dd.getRootRecord(), dir, target, true);
      c = dd.write(DICOMDIR_DEFAULT_TRANSFERSYNTAX, EET_UndefinedLength, EGL_withoutGL);
    }
    if (c.bad())
    {
      u.records = 0;
      u.error = std::string("cannot write the updated DICOMDIR: ") + c.text();
      return u;
    }
  }
  if (!fsyncPath(copy, false, error))
  {
    u.records = 0;
    u.error = error;
    return u;
  }
  (void)chmod(copy.c_str(), st.st_mode & 07777);
  if (chown(copy.c_str(), st.st_uid, st.st_gid) != 0) { /* not ours to change: keep ours */ }
  if (rename(copy.c_str(), dicomdir.c_str()) != 0)
  {
    u.records = 0;
    u.error = errnoText("cannot rename " + copy + " to " + dicomdir);
    return u;
  }
  cleanup.path.clear();
  if (!fsyncPath(dir, true, error)) u.error = error;
  return u;
}

