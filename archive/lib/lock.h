/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the lock of each folder a run works on, and the list of
 *           the runs that held it (whose temporary files a later run may remove).
 */

#ifndef PCWT_ARCHIVE_LOCK_H
#define PCWT_ARCHIVE_LOCK_H

#include "dcmtk/config/osconfig.h"

#include <set>
#include <string>

/** the lock of one folder, FOLDER/.pcwt-recompress.lock (DPRC_LOCK_NAME): an open file description
 *  lock (F_OFD_SETLK), released when the process ends however it ends. A run without --shard
 *  locks the whole file; shard I/N only byte I of a range of its own, so that shards run side by
 *  side while a second run of the same shard, or of the whole tree, is refused. The file lists the
 *  run id of every run that held it, one a line: only temporary files named with one of those
 *  (and not this run's) are removed as left over.
 */
class DPRCRunLock
{
public:
  DPRCRunLock() {}
  ~DPRCRunLock();
  DPRCRunLock(const DPRCRunLock&) = delete;
  DPRCRunLock& operator=(const DPRCRunLock&) = delete;

  enum Outcome { locked, busy, failed };

  /** create (O_EXCL when new, never through a symbolic link) and lock the folder's lock file,
   *  read the runs listed, add this run's id
   *  @return busy when another run holds it (error says so), failed when it cannot be made
   */
  Outcome acquire(const std::string& folder, unsigned shardIndex, unsigned shardCount, std::string& error);

  /// the run ids listed before this run added its own
  const std::set<std::string>& earlierRuns() const { return runs_; }
  const std::string& folder() const { return folder_; }

private:
  int fd_ = -1;
  std::string folder_;
  std::set<std::string> runs_;
};

#endif
