/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress: recompressing one file safely.
 */

#include "dcmtk/config/osconfig.h"
#include "dprcfile.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdicdir.h"
#include "dcmtk/dcmdata/dcdirrec.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcpixseq.h"
#include "dcmtk/dcmdata/dcpxitem.h"
#include "dcmtk/dcmdata/dcstack.h"

#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"
#include "dpapps.h"
#include "../libsrc/dpmodule.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

const char *DPRCStatusName(DPRC_Status status)
{
  switch (status)
  {
    case DPRCST_done: return "recompressed";
    case DPRCST_wouldDo: return "would-recompress";
    case DPRCST_skippedDone: return "skipped-done";
    case DPRCST_skippedNotDicom: return "skipped-not-dicom";
    case DPRCST_skippedNonImage: return "skipped-non-image";
    case DPRCST_skippedSymlink: return "skipped-symlink";
    case DPRCST_keptOriginal: return "kept-original-not-smaller";
    case DPRCST_unsupported: return "unsupported";
    case DPRCST_failed: return "failed";
  }
  return "failed";
}

// ---------------------------------------------------------------------------------------------
// stage times (--stats)

static std::atomic<std::int64_t> g_stageNs[DPRCSG_count];

const char *DPRCStageName(DPRC_Stage stage)
{
  static const char *const names[DPRCSG_count] = {
    "check", "load", "decode-input", "samples", "reader-wait", "coder-wait", "code", "writer-wait",
    "encode", "save", "flush", "verify-load", "verify-decode", "verify-compare", "rename", "dir-flush",
    "verifier-wait", "verify-batch"};
  return stage >= 0 && stage < DPRCSG_count ? names[stage] : "?";
}

void DPRCStageAdd(DPRC_Stage stage, std::chrono::steady_clock::duration d)
{
  if (stage >= 0 && stage < DPRCSG_count)
    g_stageNs[stage].fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(),
                               std::memory_order_relaxed);
}

std::vector<double> DPRCStageSeconds()
{
  std::vector<double> s(DPRCSG_count);
  for (int i = 0; i < DPRCSG_count; ++i) s[i] = double(g_stageNs[i].load(std::memory_order_relaxed)) * 1e-9;
  return s;
}

static std::mutex g_timelineMutex;
static std::vector<std::pair<std::string, std::chrono::steady_clock::time_point> > g_timeline;

void DPRCTimelineMark(const char *what)
{
  const std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(g_timelineMutex);
  for (const auto& m : g_timeline)
    if (m.first == what) return;
  g_timeline.emplace_back(what, t);
}

std::vector<std::pair<std::string, double> > DPRCTimeline()
{
  std::lock_guard<std::mutex> lock(g_timelineMutex);
  std::vector<std::pair<std::string, double> > out;
  for (const auto& m : g_timeline)
    out.emplace_back(m.first, std::chrono::duration<double>(m.second - g_timeline.front().second).count());
  return out;
}

// ---------------------------------------------------------------------------------------------
// the temporary files of the workers, removed by the signal handler

// allocated by DPRCInstallSignalHandlers before the workers start (a later, larger call allocates
// anew and leaves the old arrays in place: a handler may be reading them)
#define DPRC_MAX_SLOTS 65536
#define DPRC_SLOT_PATH 4096
static char (*volatile g_slotPath)[DPRC_SLOT_PATH] = NULL;
static volatile sig_atomic_t *volatile g_slotActive = NULL;
static volatile unsigned g_slots = 0;
static const int g_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void dprcRemoveTempsOnSignal(int sig)
{
  for (unsigned i = 0; i < g_slots; ++i)
    if (g_slotActive[i]) unlink(g_slotPath[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

void DPRCInstallSignalHandlers(unsigned workers)
{
  const unsigned n = workers < DPRC_MAX_SLOTS ? workers : DPRC_MAX_SLOTS;
  if (n > g_slots)
  {
    // untouched pages of the paths cost no memory; the flags start cleared
    char (*paths)[DPRC_SLOT_PATH] = new char[n][DPRC_SLOT_PATH];
    volatile sig_atomic_t *active = new sig_atomic_t[n]();
    g_slots = 0;
    g_slotPath = paths;
    g_slotActive = active;
    g_slots = n;
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = dprcRemoveTempsOnSignal;
  sigemptyset(&sa.sa_mask);
  for (int s : g_signals) sigaddset(&sa.sa_mask, s);
  for (int s : g_signals) sigaction(s, &sa, NULL);
}

namespace {

/// a temporary file next to its destination, registered for removal on signals
class TempFile
{
public:
  TempFile(unsigned slot) : slot_(slot < DPRC_MAX_SLOTS ? slot : DPRC_MAX_SLOTS) {}
  ~TempFile() { discard(); }

  bool create(const std::string& dir, const std::string& base, std::string& error)
  {
    std::string tmpl = DPRCTempTemplate(dir, base);
    if (tmpl.size() >= DPRC_SLOT_PATH)
    {
      error = "path too long for a temporary file: " + dir;
      return false;
    }
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    // register before the file exists, so that a signal between mkstemp and the registration
    // cannot leave it behind (the handler's unlink of a not yet existing name is harmless)
    const int fd = mkstemp(buf.data());
    if (fd < 0)
    {
      const int e = errno;
      error = std::string((e == EACCES || e == EROFS || e == EPERM) ? "read-only folder: " : "") +
              "cannot create a temporary file in " + dir + ": " + std::strerror(e);
      return false;
    }
    close(fd);
    path_ = buf.data();
    if (slot_ < g_slots)
    {
      std::strcpy(g_slotPath[slot_], path_.c_str());
      g_slotActive[slot_] = 1;
    }
    return true;
  }

  const std::string& path() const { return path_; }

  /// start writing the file's data back to disk, without waiting (a hint: flush() waits)
  void startWriteback() const
  {
    const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    close(fd);
  }

  /// the file was renamed away: forget it
  void released()
  {
    if (slot_ < g_slots) g_slotActive[slot_] = 0;
    path_.clear();
  }

  void discard()
  {
    if (path_.empty()) return;
    if (slot_ < g_slots) g_slotActive[slot_] = 0;
    unlink(path_.c_str());
    path_.clear();
  }

private:
  unsigned slot_;
  std::string path_;
};

std::string errnoText(const std::string& what)
{
  return what + ": " + std::strerror(errno);
}

bool fsyncPath(const std::string& path, bool directory, std::string& error)
{
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0)
  {
    error = errnoText("cannot open " + path + " to flush it");
    return false;
  }
  const int rc = fsync(fd);
  const int e = errno;
  close(fd);
  if (rc != 0 && !(directory && (e == EINVAL || e == EBADF))) // some file systems cannot fsync folders
  {
    error = std::string("cannot flush ") + path + ": " + std::strerror(e);
    return false;
  }
  return true;
}

std::string dirOf(const std::string& path)
{
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string baseOf(const std::string& path)
{
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool isUncompressedUid(const std::string& ts)
{
  return ts == UID_LittleEndianImplicitTransferSyntax || ts == UID_LittleEndianExplicitTransferSyntax ||
         ts == UID_BigEndianExplicitTransferSyntax || ts == UID_DeflatedExplicitVRLittleEndianTransferSyntax;
}

bool isTargetUid(const std::string& ts, DPRC_Target target)
{
  switch (target)
  {
    case DPRCT_pcwt: return ts == DCMPCWT_TRANSFER_SYNTAX_UID;
    case DPRCT_jpegls: return ts == UID_JPEGLSLosslessTransferSyntax;
    case DPRCT_uncompressed: return isUncompressedUid(ts);
  }
  return false;
}

std::string xferName(const std::string& uid)
{
  if (uid == DCMPCWT_TRANSFER_SYNTAX_UID) return DCMPCWT_TRANSFER_SYNTAX_NAME;
  DcmXfer x(uid.c_str());
  if (x.getXfer() == EXS_Unknown) return uid.empty() ? std::string("(none)") : uid;
  return x.getXferName();
}

/// the uncompressed Pixel Data bytes of the top-level data set (after chooseRepresentation)
OFCondition rawPixels(DcmDataset *ds, std::vector<unsigned char>& out)
{
  DcmElement *e = NULL;
  if (ds->findAndGetElement(DCM_PixelData, e).bad() || e == NULL)
    return makeOFCondition(OFM_dcmpcwt, 110, OF_error, "no Pixel Data (7FE0,0010)");
  Uint8 *data = NULL;
  const OFCondition c = e->getUint8Array(data);
  if (c.bad()) return c;
  out.assign(data, data + (data ? e->getLength() : 0));
  return EC_Normal;
}

/// copy a file to dest atomically (temporary file, fsync, rename)
bool copyFile(const std::string& src, const std::string& dest, unsigned slot, std::string& error)
{
  std::error_code ec;
  fs::create_directories(dirOf(dest), ec);
  if (ec)
  {
    error = "cannot create folder " + dirOf(dest) + ": " + ec.message();
    return false;
  }
  TempFile tmp(slot);
  if (!tmp.create(dirOf(dest), baseOf(dest), error)) return false;
  const int in = open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
  {
    error = errnoText("cannot read " + src);
    return false;
  }
  const int out = open(tmp.path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (out < 0)
  {
    error = errnoText("cannot write " + tmp.path());
    close(in);
    return false;
  }
  std::vector<char> buf(1 << 20);
  bool ok = true;
  for (;;)
  {
    const ssize_t n = read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
    {
      error = errnoText("cannot read " + src);
      ok = false;
      break;
    }
    if (n == 0) break;
    ssize_t done = 0;
    while (done < n)
    {
      const ssize_t w = write(out, buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
      {
        error = errnoText("cannot write " + tmp.path());
        ok = false;
        break;
      }
      done += w;
    }
    if (!ok) break;
  }
  if (ok && fsync(out) != 0)
  {
    error = errnoText("cannot flush " + tmp.path());
    ok = false;
  }
  close(in);
  close(out);
  if (!ok) return false;
  const mode_t mask = umask(0);
  umask(mask);
  (void)chmod(tmp.path().c_str(), 0666 & ~mask);
  if (rename(tmp.path().c_str(), dest.c_str()) != 0)
  {
    error = errnoText("cannot rename " + tmp.path() + " to " + dest);
    return false;
  }
  tmp.released();
  return fsyncPath(dirOf(dest), true, error);
}

/// fail with a message
DPRCResult& fail(DPRCResult& r, const std::string& message)
{
  r.status = DPRCST_failed;
  r.message = message;
  return r;
}

DPRCResult& finish(DPRCResult& r, DPRC_Status status, const std::string& message = std::string())
{
  r.status = status;
  r.message = message;
  return r;
}

/// is the condition from the PCWT codecs one that says "cannot code this image" (not an error)?
bool unsupportedCondition(const OFCondition& c)
{
  return c.module() == OFM_dcmpcwt && (c.code() == EPCEC_UnsupportedImage || c.code() == EPCEC_LossyInput);
}

} // namespace

/// a temporary file of a verified copy, waiting for its commit (removed when dropped before)
class DPRCTempFile : public TempFile
{
public:
  explicit DPRCTempFile(unsigned slot) : TempFile(slot) {}
};

/// a copy written and read back, its frames with a DPRCFrameVerifier (DPRCWriteVerified) until
/// DPRCAwaitVerified takes the verdict
struct DPRCPendingCopy
{
  /// the codestreams of the copy as read back (DPRCFrameVerifier::codestreamMemory); `frames`
  /// point into it
  DPRCSamples codestreams;
  std::vector<DPRCCodestream> frames;
  std::shared_ptr<DPRCTempFile> temp;
  std::string destDir;
  /// the writer's slot of the temporary file (a copy of the original under --keep-smaller reuses it)
  unsigned slot = 0;
  /// last, so that it goes first: its decoder is done with frames and the original before they go
  std::unique_ptr<DPRCVerifyTicket> ticket;
};

std::string DPRCOutputPath(const DPRCEntry& entry, const DPRCOptions& options)
{
  if (options.outputDir.empty()) return entry.path;
  return options.outputDir + "/" + entry.rel;
}

/// the end of every file's processing: copies of files that are not recompressed (--copy-others),
/// the output path, the time; the job's data released
static void complete(DPRCJob& job, const DPRCOptions& opt, unsigned slot)
{
  DPRCResult& r = job.result;
  job.pending.reset(); // before the original: its decoder may still read it
  job.file.reset();
  job.original.reset();
  std::vector<DPRCJob::CodedFrame>().swap(job.coded);
  job.codedArena.reset();
  // mirrored output: files that are not recompressed are copied when asked (and originals kept
  // by --keep-smaller always, so that the output tree is complete)
  const bool mirror = !opt.outputDir.empty();
  if (mirror && !opt.dryRun &&
      (r.status == DPRCST_keptOriginal ||
       (opt.copyOthers &&
        (r.status == DPRCST_skippedNotDicom || r.status == DPRCST_skippedNonImage || r.status == DPRCST_unsupported ||
         (r.status == DPRCST_skippedDone && r.message.compare(0, 13, "output exists") != 0)))))
  {
    std::string error;
    if (!copyFile(job.entry.path, r.output, slot, error))
      fail(r, "cannot copy to the output tree: " + error);
    else
      r.outBytes = r.inBytes;
  }
  else if (r.status != DPRCST_done && r.status != DPRCST_skippedDone && r.status != DPRCST_keptOriginal)
  {
    r.output.clear();
  }
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
}

static DPRCResult& prepareInner(DPRCJob& job, const DPRCOptions& opt, DPRCSampleMemory *memory);
static DPRCResult& writeInner(DPRCJob& job, const DPRCOptions& opt, unsigned slot, DPRCFrameVerifier *verifier);

bool DPRCPrepare(DPRCJob& job, const DPRCEntry& entry, const DPRCOptions& opt, unsigned slot,
                 DPRCSampleMemory *memory)
{
  job.start = std::chrono::steady_clock::now();
  job.entry = entry;
  job.result = DPRCResult();
  DPRCResult& r = job.result;
  r.path = entry.path;
  r.output = DPRCOutputPath(entry, opt);
  r.inBytes = entry.size;
  r.status = DPRCST_wouldDo;
  prepareInner(job, opt, memory);
  if (r.status == DPRCST_wouldDo && !opt.dryRun)
  {
    // to be finished (maybe on another thread): its time so far counts
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
    return true;
  }
  complete(job, opt, slot);
  return false;
}

bool DPRCWriteVerified(DPRCJob& job, const DPRCOptions& opt, unsigned slot, DPRCFrameVerifier *verifier)
{
  job.start = std::chrono::steady_clock::now();
  writeInner(job, opt, slot, verifier);
  if (job.result.status == DPRCST_wouldDo && (job.temp || job.pending))
  {
    // verified (or being decoded), waiting for DPRCCommit: the data set and the frames coded
    // ahead are no longer needed, the samples only for the comparison still to come
    job.file.reset();
    if (!job.pending) job.original.reset();
    std::vector<DPRCJob::CodedFrame>().swap(job.coded);
    job.codedArena.reset(); // the batch's arena goes back to its pool with its last file
    job.result.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
    return true;
  }
  job.temp.reset();
  complete(job, opt, slot);
  return false;
}

static DPRCResult& acceptCopy(DPRCJob& job, const DPRCOptions& opt, const std::shared_ptr<DPRCTempFile>& temp,
                              const std::string& destDir, DPRCStageTimer& timer);

bool DPRCVerifiedReady(const DPRCJob& job)
{
  return !job.pending || job.pending->ticket->ready();
}

bool DPRCAwaitVerified(DPRCJob& job, const DPRCOptions& opt)
{
  if (!job.pending) return job.result.status == DPRCST_wouldDo && job.temp;
  job.start = std::chrono::steady_clock::now();
  const std::shared_ptr<DPRCPendingCopy> pc = std::move(job.pending);
  DPRCResult& r = job.result;
  {
    DPRCStageTimer timer(DPRCSG_verifyDecode);
    const std::string error = pc->ticket->wait();
    if (!error.empty())
      fail(r, "verification failed: " + error);
    else
      acceptCopy(job, opt, pc->temp, pc->destDir, timer);
  }
  const unsigned slot = pc->slot;
  pc->ticket.reset();
  job.original.reset();
  if (r.status == DPRCST_wouldDo && job.temp)
  {
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
    return true;
  }
  job.temp.reset();
  pc->temp.reset(); // a copy that failed or is not kept goes before --keep-smaller's copy reuses its slot
  complete(job, opt, slot);
  return false;
}

void DPRCCommit(const std::vector<DPRCJob *>& jobs, const DPRCOptions& opt)
{
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  const bool mirror = !opt.outputDir.empty();
  DPRCStageTimer timer(DPRCSG_flush);
  // 1. every verified copy on disk (its write-back was started when it was written)
  for (DPRCJob *job : jobs)
  {
    std::string error;
    if (!job->temp) fail(job->result, "internal error: no verified copy to commit");
    else if (!fsyncPath(job->temp->path(), false, error)) fail(job->result, error);
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
    if (!mirror && opt.keepOriginals)
    {
      const std::string keep = job->entry.path + DPRC_ORIG_SUFFIX;
      std::string tl = DPRCTempTemplate(job->destDir, baseOf(keep));
      // a name of the temporary pattern (a leftover is only a second name of the original and goes
      // with the next run's cleanup); one per process and file
      char suffix[16];
      std::snprintf(suffix, sizeof suffix, "lk%04u", OFstatic_cast(unsigned, getpid() % 10000));
      tl.replace(tl.size() - 6, 6, suffix);
      unlink(tl.c_str());
      if (link(job->entry.path.c_str(), tl.c_str()) != 0)
      {
        fail(r, errnoText("cannot keep the original as " + keep));
        job->temp.reset();
        continue;
      }
      if (rename(tl.c_str(), keep.c_str()) != 0)
      {
        fail(r, errnoText("cannot keep the original as " + keep));
        unlink(tl.c_str());
        job->temp.reset();
        continue;
      }
    }
    if (rename(job->temp->path().c_str(), r.output.c_str()) != 0)
    {
      fail(r, errnoText("cannot rename " + job->temp->path() + " to " + r.output));
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
      if (d < dirs.size() && !dirErrors[d].empty()) fail(r, dirErrors[d]);
      else finish(r, DPRCST_done);
    }
    else if (r.status == DPRCST_wouldDo)
      fail(r, "internal error: no verified copy to commit");
    r.seconds += seconds;
    if (r.status != DPRCST_done) r.output.clear();
  }
}

void DPRCFinish(DPRCJob& job, const DPRCOptions& opt, unsigned slot)
{
  if (DPRCWriteVerified(job, opt, slot) && DPRCAwaitVerified(job, opt)) DPRCCommit(std::vector<DPRCJob *>(1, &job), opt);
}

DPRCResult DPRCProcess(const DPRCEntry& entry, const DPRCOptions& opt, unsigned slot)
{
  DPRCJob job;
  if (DPRCPrepare(job, entry, opt, slot)) DPRCFinish(job, opt, slot);
  return job.result;
}

static pcwt_dicom_target dicomTarget(const DPRCOptions& opt)
{
  return (opt.target == DPRCT_jpegls) ? PCWT_DICOM_TARGET_JPEGLS : PCWT_DICOM_TARGET_PCWT;
}

static E_TransferSyntax outputXfer(const DPRCOptions& opt)
{
  return opt.target == DPRCT_pcwt ? DPCWT_CARRIER_XFER
       : opt.target == DPRCT_jpegls ? EXS_JPEGLSLossless : EXS_LittleEndianExplicit;
}

/// everything up to the original samples; status wouldDo when the file is to be coded
static DPRCResult& prepareInner(DPRCJob& job, const DPRCOptions& opt, DPRCSampleMemory *memory)
{
  DPRCResult& r = job.result;
  const DPRCEntry& entry = job.entry;
  const bool mirror = !opt.outputDir.empty();
  if (entry.symlink) return finish(r, DPRCST_skippedSymlink, "symbolic link, not followed");

  DPRCStageTimer timer(DPRCSG_check);
  struct stat st;
  if (stat(entry.path.c_str(), &st) != 0) return fail(r, errnoText("cannot read"));
  r.inBytes = static_cast<std::uint64_t>(st.st_size);
  job.mode = static_cast<unsigned>(st.st_mode);
  job.uid = static_cast<unsigned>(st.st_uid);
  job.gid = static_cast<unsigned>(st.st_gid);

  // a look at the file meta information first: most files of a second run stop here
  std::string ts, sopClass, error;
  const DPRC_Sniff sniff = DPRCSniff(entry.path, ts, sopClass, error);
  if (sniff == DPRCS_unreadable) return fail(r, "unreadable file: " + error);
  if (sniff == DPRCS_notDicom) return finish(r, DPRCST_skippedNotDicom, "not a DICOM file (no DICM prefix)");
  r.inXfer = xferName(ts);
  if (sopClass == UID_MediaStorageDirectoryStorage) return finish(r, DPRCST_skippedNonImage, "DICOMDIR");
  if (isTargetUid(ts, opt.target))
  {
    r.outXfer = r.inXfer;
    return finish(r, DPRCST_skippedDone, "already in the target transfer syntax");
  }
  if (mirror)
  {
    struct stat ost;
    if (lstat(r.output.c_str(), &ost) == 0)
    {
      // outputs only ever appear complete (renamed from a verified temporary file)
      r.outBytes = static_cast<std::uint64_t>(ost.st_size);
      return finish(r, DPRCST_skippedDone, "output exists");
    }
  }
  else
  {
    // in place: respect read-only files and folders (checked by mode bits too, for root)
    if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || access(entry.path.c_str(), W_OK) != 0)
      return fail(r, "read-only file, left unchanged");
    struct stat dst;
    const std::string dir = dirOf(entry.path);
    if (stat(dir.c_str(), &dst) == 0 &&
        ((dst.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || access(dir.c_str(), W_OK) != 0))
      return fail(r, "read-only folder " + dir + ", file left unchanged");
  }

  // read the whole file
  timer.next(DPRCSG_load);
  job.file.reset(new DPCWTFileFormat());
  DPCWTFileFormat& ff = *job.file;
  OFCondition c = ff.loadFile(entry.path.c_str());
  if (c.bad()) return fail(r, std::string("cannot read DICOM data (truncated or corrupt file?): ") + c.text());
  c = ff.loadAllDataIntoMemory();
  if (c.bad()) return fail(r, std::string("cannot read DICOM data (truncated or corrupt file?): ") + c.text());
  DcmDataset *ds = ff.getDataset();
  if (ds->tagExists(DCM_FloatPixelData) || ds->tagExists(DCM_DoubleFloatPixelData))
    return finish(r, DPRCST_unsupported, "Float or Double Float Pixel Data cannot be coded losslessly");
  if (!ds->tagExists(DCM_PixelData)) return finish(r, DPRCST_skippedNonImage, "no Pixel Data");

  // decode compressed input
  timer.next(DPRCSG_decodeInput);
  const E_TransferSyntax ixfer = ds->getOriginalXfer();
  DcmXfer ix(ixfer);
  if (ixfer == EXS_Unknown)
    return finish(r, DPRCST_unsupported, "unsupported transfer syntax " + r.inXfer);
  if (ix.isEncapsulated())
  {
    if (opt.target != DPRCT_uncompressed && ixfer != DPCWT_CARRIER_XFER && ix.isLossy() && !opt.acceptLossy)
      return finish(r, DPRCST_unsupported, "lossy compressed input (" + r.inXfer + "); --accept-lossy codes it anyway");
    c = ds->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
    if (c.bad())
    {
      if (ixfer == DPCWT_CARRIER_XFER || ixfer == EXS_JPEGLSLossless || ixfer == EXS_JPEGLSLossy ||
          ixfer == EXS_RLELossless || (ixfer >= EXS_JPEGProcess1 && ixfer <= EXS_JPEGProcess14SV1))
        return fail(r, std::string("cannot decode the pixel data (corrupt or truncated?): ") + c.text());
      return finish(r, DPRCST_unsupported, "cannot decode transfer syntax " + r.inXfer +
                    " (DCMTK 3.6.7 has no decoder; convert it first, e.g. gdcmconv --raw)");
    }
  }
  // lossy before (LossyImageCompression "01"): the codec refuses it too, but before its frames are coded
  OFString lossy;
  if (opt.target != DPRCT_uncompressed && !opt.acceptLossy &&
      ds->findAndGetOFString(DCM_LossyImageCompression, lossy).good() && lossy == "01")
    return finish(r, DPRCST_unsupported, "the image has been lossy compressed before (LossyImageCompression \"01\"); "
                  "--accept-lossy codes it anyway");

  // the original samples
  timer.next(DPRCSG_samples);
  if (opt.target == DPRCT_uncompressed)
  {
    std::vector<unsigned char> raw;
    c = rawPixels(ds, raw);
    job.original.adopt(std::move(raw));
  }
  else
  {
    // copied once, into the memory the coders read (DPCWTGetPixels' checks)
    const Uint8 *data = NULL;
    Uint64 bytes = 0;
    c = DPCWTFindPixels(ds, dicomTarget(opt), job.module, data, bytes);
    if (c.good() && (job.module.bits_allocated != 8 || gLocalByteOrder == EBO_LittleEndian))
    {
      job.original.allocate(static_cast<std::size_t>(bytes), memory);
      std::memcpy(job.original.data(), data, static_cast<std::size_t>(bytes));
      job.pixels = data;
    }
    else if (c.good())
    {
      std::vector<unsigned char> samples; // 8-bit samples in 16-bit words: the byte sequence
      c = DPCWTGetPixels(ds, dicomTarget(opt), job.module, samples);
      job.original.adopt(std::move(samples));
    }
  }
  if (c.bad())
  {
    if (unsupportedCondition(c)) return finish(r, DPRCST_unsupported, c.text());
    return fail(r, c.text());
  }
  r.pixelBytes = job.original.size();
  r.outXfer = opt.target == DPRCT_pcwt ? std::string(DCMPCWT_TRANSFER_SYNTAX_NAME)
                                       : std::string(DcmXfer(outputXfer(opt)).getXferName());
  return finish(r, DPRCST_wouldDo);
}

bool DPRCReadCodestreams(DcmDataset *ds, std::uint64_t maxSamples, pcwt_dicom_pixel_module& module,
                         std::vector<DPRCCodestream>& frames)
{
  frames.clear();
  if (ds == NULL || ds->getOriginalXfer() != DPCWT_CARRIER_XFER) return false;
  // DCMTK decodes every Pixel Data element of a data set (icons too): so does the codec's way
  DcmStack all;
  if (ds->findAndGetElements(DCM_PixelData, all).bad() || all.card() != 1) return false;
  DcmElement *elem = NULL;
  if (ds->findAndGetElement(DCM_PixelData, elem).bad() || elem == NULL || elem->ident() != EVR_PixelData)
    return false;
  DcmPixelSequence *seq = NULL;
  if (OFstatic_cast(DcmPixelData *, elem)->getEncapsulatedRepresentation(DPCWT_CARRIER_XFER, NULL, seq).bad() ||
      seq == NULL)
    return false;
  // the image pixel module, valid for PCWT and within the decoder's limit
  pcwt_image_desc want;
  if (DPCWTReadPixelModule(ds, module).bad() || DPCWTValidatePixelModule(module, PCWT_DICOM_TARGET_PCWT).bad() ||
      pcwt_dicom_image_desc(&module, &want) != PCWT_DICOM_OK ||
      OFstatic_cast(std::uint64_t, want.width) * want.height * want.components > maxSamples)
    return false;
  // the offset table (empty, or an entry per frame) and one fragment per frame
  const std::uint64_t count = module.number_of_frames;
  if (count == 0 || OFstatic_cast(std::uint64_t, seq->card()) != count + 1) return false;
  DcmPixelItem *item = NULL;
  if (seq->getItem(item, 0).bad() || item == NULL) return false;
  if (item->getLength() > 0)
  {
    Uint8 *bot = NULL;
    std::vector<uint32_t> offsets(OFstatic_cast(size_t, count));
    int present = 0;
    if (item->getUint8Array(bot).bad() || bot == NULL || OFstatic_cast(std::uint64_t, item->getLength()) != 4 * count ||
        pcwt_dicom_bot_decode(bot, item->getLength(), count, offsets.data(), &present) != PCWT_DICOM_OK)
      return false;
  }
  // each a PCWT codestream of exactly the frame the module declares, within its fragment
  frames.reserve(OFstatic_cast(size_t, count));
  for (std::uint64_t f = 0; f < count; ++f)
  {
    Uint8 *data = NULL;
    if (seq->getItem(item, OFstatic_cast(unsigned long, f + 1)).bad() || item == NULL ||
        item->getUint8Array(data).bad() || data == NULL)
      return false;
    const std::size_t size = item->getLength();
    pcwt_header_info info;
    if (size < 4 || std::memcmp(data, "PCWT", 4) != 0 || pcwt_read_header(data, size, &info) != PCWT_OK)
      return false;
    const pcwt_image_desc& got = info.desc;
    if (got.width != want.width || got.height != want.height || got.components != want.components ||
        got.bits_allocated != want.bits_allocated || got.bits_stored != want.bits_stored ||
        got.is_signed != want.is_signed || got.planar != want.planar || info.codestream_length > size)
      return false;
    frames.push_back(DPRCCodestream{data, info.codestream_length});
  }
  return true;
}

/// DPRCOptions::testFault: a bit flipped in what the verification compares
static void injectFault(DPCWTFileFormat& check, DPRCJob& job, const DPRCOptions& opt)
{
  if (opt.testFault == "original" && !job.original.empty()) job.original[job.original.size() / 2] ^= 1;
  pcwt_dicom_pixel_module m;
  std::vector<DPRCCodestream> frames;
  if (opt.testFault == "codestream" && DPRCReadCodestreams(check.getDataset(), UINT64_MAX, m, frames) &&
      frames[0].size > 64)
    const_cast<unsigned char *>(frames[0].data)[frames[0].size - 8] ^= 1; // in the last group's record
}

/// code, write and verify; the verified copy goes to job.temp (status still wouldDo) for DPRCCommit
static DPRCResult& writeInner(DPRCJob& job, const DPRCOptions& opt, unsigned slot, DPRCFrameVerifier *verifier)
{
  DPRCResult& r = job.result;
  const bool mirror = !opt.outputDir.empty();
  if (!job.file) return fail(r, "internal error: the file was not read");
  DPCWTFileFormat& ff = *job.file;
  DcmDataset *ds = ff.getDataset();
  const E_TransferSyntax oxfer = outputXfer(opt);
  const pcwt_dicom_target ptarget = dicomTarget(opt);
  std::string error;

  // encode (PCWT frames coded ahead by a batch coder come in through the thread's coder)
  DPRCStageTimer timer(DPRCSG_encode);
  OFCondition c = EC_Normal;
  if (opt.target != DPRCT_uncompressed)
  {
    DPCWTRepresentationParameter rp;
    c = ds->chooseRepresentation(oxfer, &rp);
    if (c.bad())
    {
      if (unsupportedCondition(c)) return finish(r, DPRCST_unsupported, c.text());
      return fail(r, std::string("cannot encode: ") + c.text());
    }
  }
  if (!ds->canWriteXfer(oxfer)) return finish(r, DPRCST_unsupported, "cannot be written in " + r.outXfer);

  // write the temporary file next to the destination
  const std::string destDir = dirOf(r.output);
  if (mirror)
  {
    std::error_code ec;
    fs::create_directories(destDir, ec);
    if (ec) return fail(r, "cannot create folder " + destDir + ": " + ec.message());
  }
  timer.next(DPRCSG_save);
  std::shared_ptr<DPRCTempFile> temp(new DPRCTempFile(slot));
  DPRCTempFile& tmp = *temp;
  if (!tmp.create(destDir, baseOf(r.output), error)) return fail(r, error);
  c = ff.saveFile(tmp.path().c_str(), oxfer, EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0, EWM_updateMeta);
  if (c.bad()) return fail(r, std::string("cannot write ") + tmp.path() + ": " + c.text());
  job.file.reset(); // the coded data set is on disk: its memory goes before the verification's
  // on its way to the disk while it is verified (DPRCCommit waits for it before the rename)
  timer.next(DPRCSG_flush);
  tmp.startWriteback();
  timer.next(DPRCSG_rename);
  // the permissions of the original (in place), or an ordinary file's (mkstemp makes 0600)
  if (mirror)
  {
    const mode_t mask = umask(0);
    umask(mask);
    (void)chmod(tmp.path().c_str(), 0666 & ~mask);
  }
  else
  {
    (void)chmod(tmp.path().c_str(), static_cast<mode_t>(job.mode & 07777));
    if (chown(tmp.path().c_str(), static_cast<uid_t>(job.uid), static_cast<gid_t>(job.gid)) != 0) { /* not ours to change: keep ours */ }
  }

  // verify: decode what is on disk and compare every sample
  {
    timer.next(DPRCSG_verifyLoad);
    std::unique_ptr<DPCWTFileFormat> check(new DPCWTFileFormat());
    c = check->loadFile(tmp.path().c_str());
    if (c.good() && !opt.testFault.empty()) injectFault(*check, job, opt);
    // PCWT copies to the verifier stage (several files in one decoder call), the codestreams read
    // from the file here and checked as the codec checks them
    pcwt_dicom_pixel_module vm;
    std::vector<DPRCCodestream> frames;
    if (c.good() && verifier && opt.target == DPRCT_pcwt &&
        DPRCReadCodestreams(check->getDataset(), verifier->maxSamplesPerFrame(), vm, frames))
    {
      timer.next(DPRCSG_verifyDecode);
      const std::size_t frameBytes = static_cast<std::size_t>(pcwt_dicom_frame_bytes(&vm));
      const bool sameModule = vm.rows == job.module.rows && vm.columns == job.module.columns &&
        vm.samples_per_pixel == job.module.samples_per_pixel && vm.bits_allocated == job.module.bits_allocated &&
        vm.bits_stored == job.module.bits_stored && vm.number_of_frames == job.module.number_of_frames;
      if (!sameModule) return fail(r, "verification failed: the decoded image pixel module differs from the original");
      if (job.original.size() != frames.size() * frameBytes)
        return fail(r, "verification failed: the decoded pixel data has a different size");
      // decoded and compared by the verifier together with other copies while this writer goes
      // on; DPRCAwaitVerified takes the verdict
      std::shared_ptr<DPRCPendingCopy> pc(new DPRCPendingCopy());
      // the codestreams as read back, into the verifier's memory (with a GPU page locked: they go
      // up without a staging copy on the verifier's thread); the copy's data set goes now
      std::size_t total = 0;
      for (const DPRCCodestream& f : frames) total += f.size;
      pc->codestreams.allocate(total, verifier->codestreamMemory());
      std::size_t at = 0;
      for (DPRCCodestream& f : frames)
      {
        std::memcpy(pc->codestreams.data() + at, f.data, f.size);
        f.data = pc->codestreams.data() + at;
        at += f.size;
      }
      check.reset();
      pc->frames = std::move(frames);
      pc->temp = temp;
      pc->destDir = destDir;
      pc->slot = slot;
      pc->ticket = verifier->submit(pc->frames, frameBytes, job.original.data());
      job.pending = pc;
      return r;
    }
    else
    {
      timer.next(DPRCSG_verifyDecode);
      if (c.good()) c = check->getDataset()->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
      timer.next(DPRCSG_verifyCompare);
      std::vector<unsigned char> decoded;
      pcwt_dicom_pixel_module dm;
      if (c.good())
        c = (opt.target == DPRCT_uncompressed) ? rawPixels(check->getDataset(), decoded)
                                               : DPCWTGetPixels(check->getDataset(), ptarget, dm, decoded);
      if (c.bad()) return fail(r, std::string("verification failed, cannot decode the new copy: ") + c.text());
      if (opt.target == DPRCT_uncompressed)
      {
        if (decoded.size() != job.original.size() ||
            std::memcmp(decoded.data(), job.original.data(), decoded.size()) != 0)
          return fail(r, "verification failed: decoded pixel data differs from the original");
      }
      else
      {
        c = DPCWTCompareSamples(job.module, job.original.data(), job.original.size(), dm, decoded, ptarget);
        if (c.bad()) return fail(r, std::string("verification failed: ") + c.text());
      }
    }
  }

  return acceptCopy(job, opt, temp, destDir, timer);
}

/// a copy verified: --keep-smaller compares the sizes; a copy kept waits in job.temp for DPRCCommit
static DPRCResult& acceptCopy(DPRCJob& job, const DPRCOptions& opt, const std::shared_ptr<DPRCTempFile>& temp,
                              const std::string& destDir, DPRCStageTimer& timer)
{
  DPRCResult& r = job.result;
  DPRCTempFile& tmp = *temp;
  timer.next(DPRCSG_rename);
  struct stat tst;
  if (stat(tmp.path().c_str(), &tst) == 0) r.outBytes = static_cast<std::uint64_t>(tst.st_size);

  // --keep-smaller: a copy that is not smaller is not worth the original's place
  if (opt.keepSmaller && r.outBytes >= r.inBytes)
  {
    tmp.discard();
    char buf[160];
    std::snprintf(buf, sizeof buf, "the verified copy (%llu bytes) is not smaller than the original (%llu bytes)",
                  static_cast<unsigned long long>(r.outBytes), static_cast<unsigned long long>(r.inBytes));
    r.outXfer = r.inXfer;
    r.outBytes = 0;
    return finish(r, DPRCST_keptOriginal, buf);
  }

  // verified: flushed and renamed by DPRCCommit
  job.destDir = destDir;
  job.temp = temp;
  return r;
}

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
      std::string r = id.c_str();
      std::replace(r.begin(), r.end(), '\\', '/');
      std::string ts, sopClass, error;
      OFString recorded;
      if (DPRCSniff(dir + "/" + r, ts, sopClass, error) == DPRCS_dicom && isTargetUid(ts, target) &&
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

  // a copy next to it (a name of the temporary pattern, one per process), updated and written by
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
  if (!copyFile(dicomdir, copy, slot, error))
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
