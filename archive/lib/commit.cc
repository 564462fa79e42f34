/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the commit of verified copies: flushed, the original
 *           checked to be the file that was read, kept under a second name that never replaces
 *           anything (--keep-originals), the copy renamed over it, the folders flushed.
 */

#include "dcmtk/config/osconfig.h"
#include "internal.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace dprc;

/** the destination is still the file that was read: an original written to (or replaced) since
 *  is left as it is now, its copy discarded. The time from here to the rename is the window left
 *  (docs/recompress.md).
 */
static bool unchangedSinceRead(DPRCJob& job, const DPRCOptions& opt)
{
  if (opt.testFault == "change-before-commit") testAppend(job.entry.path);
  struct stat st;
  DPRCFileId now;
  if (lstat(job.entry.path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) now = identityOf(st);
  const std::string change = identityChange(job.identity, now);
  if (change.empty()) return true;
  finish(job.result, DPRCST_skippedChanged,
         "changed since it was read (" + change + "): left as it is now, the copy discarded; run again");
  return false;
}

void DPRCCommit(const std::vector<DPRCJob *>& jobs, const DPRCOptions& opt)
{
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  const bool mirror = !opt.outputDir.empty();
  DPRCStageTimer timer(DPRCSG_flush);
  // tests only: a run that stays in the middle of its work (temporary files present) for a while
  if (opt.testFault == "slow-commit") sleep(2);
  // 1. every verified copy on disk (its write-back was started when it was written)
  for (DPRCJob *job : jobs)
  {
    std::string error;
    if (!job->temp) fail(job->result, DPRCR_internal, "internal error: no verified copy to commit");
    else if (!fsyncPath(job->temp->path(), false, error)) fail(job->result, DPRCR_io, error);
    if (job->result.status == DPRCST_failed) job->temp.reset(); // removes it
  }
  // 2. the atomic steps: each destination is the original (or absent) before, the verified
  //    copy after (the original first given its second name with --keep-originals)
  timer.next(DPRCSG_rename);
  std::vector<std::string> dirs;
  for (DPRCJob *job : jobs)
  {
    if (!job->temp) continue;
    DPRCResult& r = job->result;
    if (!unchangedSinceRead(*job, opt))
    {
      job->temp.reset();
      continue;
    }
    std::string keep;
    if (!mirror && opt.keepOriginals)
    {
      // link() never replaces: an existing NAME.pcwt-orig (an earlier run's true original, or a
      // user's file) stays, and so does this original
      keep = job->entry.path + DPRC_ORIG_SUFFIX;
      if (link(job->entry.path.c_str(), keep.c_str()) != 0)
      {
        fail(r, DPRCR_io,
             errno == EEXIST ? keep + " exists already (an original kept by an earlier run?): not replaced, "
                                      "file left unchanged"
                             : errnoText("cannot keep the original as " + keep));
        job->temp.reset();
        continue;
      }
    }
    // in place the original is meant to go; an output appearing since it was looked for stays
    if ((mirror ? renameNoReplace(job->temp->path(), r.output) : rename(job->temp->path().c_str(), r.output.c_str())) != 0)
    {
      fail(r, DPRCR_io, errnoText("cannot rename " + job->temp->path() + " to " + r.output));
      if (!keep.empty()) (void)unlink(keep.c_str()); // our second name of the original, which stays
      job->temp.reset();
      continue;
    }
    job->temp->released();
    if (std::find(dirs.begin(), dirs.end(), job->destDir) == dirs.end()) dirs.push_back(job->destDir);
  }
  // 3. each folder flushed once, for all the files renamed into it
  timer.next(DPRCSG_dirFlush);
  std::vector<std::string> dirErrors(dirs.size());
  for (size_t d = 0; d < dirs.size(); ++d) fsyncPath(dirs[d], true, dirErrors[d]);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (DPRCJob *job : jobs)
  {
    DPRCResult& r = job->result;
    if (job->temp)
    {
      job->temp.reset();
      const size_t d = static_cast<size_t>(std::find(dirs.begin(), dirs.end(), job->destDir) - dirs.begin());
      if (d < dirs.size() && !dirErrors[d].empty()) fail(r, DPRCR_io, dirErrors[d]);
      else finish(r, DPRCST_done);
    }
    else if (r.status == DPRCST_wouldDo)
      fail(r, DPRCR_internal, "internal error: no verified copy to commit");
    r.seconds += seconds;
    if (r.status != DPRCST_done) r.output.clear();
  }
}
