/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: coding, writing and verifying a copy (DPRCWriteVerified),
 *           the verdict on it (DPRCAwaitVerified); the commit is in commit.cc.
 */

#include "dcmtk/config/osconfig.h"
#include "internal.h"

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
#include "dpmodule.h"

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

using namespace dprc;

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

static DPRCResult& writeInner(DPRCJob& job, const DPRCOptions& opt, unsigned slot, DPRCFrameVerifier *verifier);

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
    job.codedWith.reset();
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
    DPRC_Reason reason = DPRCR_verifyFailed;
    const std::string error = pc->ticket->wait(reason);
    if (!error.empty())
      fail(r, reason, "verification failed: " + error);
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
  if (!job.file) return fail(r, DPRCR_internal, "internal error: the file was not read");
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
      return fail(r, conditionReason(c, DPRCR_encodeFailed), std::string("cannot encode: ") + c.text());
    }
  }
  if (!ds->canWriteXfer(oxfer)) return finish(r, DPRCST_unsupported, "cannot be written in " + r.outXfer);

  // write the temporary file next to the destination
  const std::string destDir = dirOf(r.output);
  if (mirror)
  {
    std::error_code ec;
    fs::create_directories(destDir, ec);
    if (ec) return fail(r, DPRCR_io, "cannot create folder " + destDir + ": " + ec.message());
  }
  timer.next(DPRCSG_save);
  std::shared_ptr<DPRCTempFile> temp(new DPRCTempFile(slot));
  DPRCTempFile& tmp = *temp;
  if (!tmp.create(destDir, baseOf(r.output), error)) return fail(r, DPRCR_io, error);
  c = ff.saveFile(tmp.path().c_str(), oxfer, EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0, EWM_updateMeta);
  if (c.bad())
    return fail(r, c == EC_MemoryExhausted ? DPRCR_memory : DPRCR_io,
                std::string("cannot write ") + tmp.path() + ": " + c.text());
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
      if (!sameModule)
        return fail(r, DPRCR_verifyFailed,
                    "verification failed: the decoded image pixel module differs from the original");
      if (job.original.size() != frames.size() * frameBytes)
        return fail(r, DPRCR_verifyFailed, "verification failed: the decoded pixel data has a different size");
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
      pc->ticket = verifier->submit(pc->frames, frameBytes, job.original.data(),
                                    job.sampleKey.empty() ? job.entry.rel : job.sampleKey);
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
      // (our copy's pixel module is ours: only memory is not the copy's fault)
      if (c.bad())
        return fail(r, decodeReason(c, DPRCR_verifyFailed) == DPRCR_memory ? DPRCR_memory : DPRCR_verifyFailed,
                    std::string("verification failed, cannot decode the new copy: ") + c.text());
      if (opt.target == DPRCT_uncompressed)
      {
        if (decoded.size() != job.original.size() ||
            std::memcmp(decoded.data(), job.original.data(), decoded.size()) != 0)
          return fail(r, DPRCR_verifyFailed, "verification failed: decoded pixel data differs from the original");
      }
      else
      {
        c = DPCWTCompareSamples(job.module, job.original.data(), job.original.size(), dm, decoded, ptarget);
        if (c.bad()) return fail(r, DPRCR_verifyFailed, std::string("verification failed: ") + c.text());
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
