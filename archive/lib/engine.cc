/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: recompressing one file safely.
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

namespace {

bool isUncompressedUid(const std::string& ts)
{
  return ts == UID_LittleEndianImplicitTransferSyntax || ts == UID_LittleEndianExplicitTransferSyntax ||
         ts == UID_BigEndianExplicitTransferSyntax || ts == UID_DeflatedExplicitVRLittleEndianTransferSyntax;
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

/// is the condition from the PCWT codecs one that says "cannot code this image" (not an error)?
bool unsupportedCondition(const OFCondition& c)
{
  return c.module() == OFM_dcmpcwt && (c.code() == EPCEC_UnsupportedImage || c.code() == EPCEC_LossyInput);
}

/** the reason of a failed DCMTK or codec step by the condition's module and code: memory and the
 *  pixel module's checks wherever they fail, else the step's own reason
 */
DPRC_Reason conditionReason(const OFCondition& c, DPRC_Reason step)
{
  if (c == EC_MemoryExhausted) return DPRCR_memory;
  if (c.module() == OFM_dcmpcwt && (c.code() == EPCEC_InvalidImage || DPCWTIsPixelDataLengthError(c)))
    return DPRCR_pixelData;
  return step;
}

/// decoding: EPCEC_TooLarge is the decoder's memory budget or frame size limit, a limit of ours
DPRC_Reason decodeReason(const OFCondition& c, DPRC_Reason step)
{
  if (c.module() == OFM_dcmpcwt && c.code() == EPCEC_TooLarge) return DPRCR_memory;
  return conditionReason(c, step);
}

} // namespace

bool dprc::isTargetUid(const std::string& ts, DPRC_Target target)
{
  switch (target)
  {
    case DPRCT_pcwt: return ts == DCMPCWT_TRANSFER_SYNTAX_UID;
    case DPRCT_jpegls: return ts == UID_JPEGLSLosslessTransferSyntax;
    case DPRCT_uncompressed: return isUncompressedUid(ts);
  }
  return false;
}

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
    if (!copyFile(job.entry.path, r.output, slot, true, error))
      fail(r, DPRCR_io, "cannot copy to the output tree: " + error);
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
  // the descriptor everything is read through: a regular file, no link followed, no FIFO waited on
  struct stat st;
  std::string error;
  bool symlink = false, notRegular = false;
  const int fd = openRegular(entry.path, st, error, symlink, notRegular);
  if (fd < 0)
    return symlink ? finish(r, DPRCST_skippedSymlink, "symbolic link, not followed") : fail(r, DPRCR_io, error);
  struct Closer { int fd; ~Closer() { close(fd); } } closer{fd};
  job.identity = identityOf(st);
  r.inBytes = static_cast<std::uint64_t>(st.st_size);
  job.mode = static_cast<unsigned>(st.st_mode);
  job.uid = static_cast<unsigned>(st.st_uid);
  job.gid = static_cast<unsigned>(st.st_gid);

  // a look at the file meta information first: most files of a second run stop here
  std::string ts, sopClass;
  const DPRC_Sniff sniff = DPRCSniffFd(fd, ts, sopClass, error);
  if (sniff == DPRCS_unreadable) return fail(r, DPRCR_io, "unreadable file: " + error);
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
      return fail(r, DPRCR_io, "read-only file, left unchanged");
    struct stat dst;
    const std::string dir = dirOf(entry.path);
    if (stat(dir.c_str(), &dst) == 0 &&
        ((dst.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || access(dir.c_str(), W_OK) != 0))
      return fail(r, DPRCR_io, "read-only folder " + dir + ", file left unchanged");
    // a new file would take the place of one name only: the others would keep the old content
    if (st.st_nlink > 1)
      return finish(r, DPRCST_unsupported, "hard link (" + std::to_string(st.st_nlink) + " names): recompressing "
                    "in place would separate the names; left as it is");
    if (opt.keepOriginals && lstat((entry.path + DPRC_ORIG_SUFFIX).c_str(), &dst) == 0)
      return fail(r, DPRCR_io,
                  entry.path + DPRC_ORIG_SUFFIX + " exists already (an original kept by an earlier run?): not "
                  "replaced, file left unchanged");
  }

  // read the whole file
  timer.next(DPRCSG_load);
  job.file.reset(new DPCWTFileFormat());
  DPCWTFileFormat& ff = *job.file;
  // through the descriptor (its /proc name opens the same inode): a name swapped since is not read
  const std::string byFd = "/proc/self/fd/" + std::to_string(fd);
  struct stat pst;
  OFCondition c = ff.loadFile((stat(byFd.c_str(), &pst) == 0 && pst.st_ino == st.st_ino ? byFd : entry.path).c_str());
  if (c.good()) c = ff.loadAllDataIntoMemory();
  if (c.bad())
    return fail(r, conditionReason(c, DPRCR_corruptInput),
                std::string("cannot read DICOM data (truncated or corrupt file?): ") + c.text());
  // written to while it was read: what was read may be a mix of old and new content
  if (opt.testFault == "change-while-read") testAppend(entry.path);
  struct stat after;
  const std::string change = identityChange(job.identity, fstat(fd, &after) == 0 ? identityOf(after) : DPRCFileId());
  if (!change.empty())
    return finish(r, DPRCST_skippedChanged, "changed while it was read (" + change + "): left as it is; run again");
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
      return finish(r, DPRCST_unsupported, "lossy compressed input (" + r.inXfer + "); --accept-lossy codes it anyway",
                    DPRCR_lossySyntax);
    c = ds->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
    if (c.bad())
    {
      if (ixfer == DPCWT_CARRIER_XFER || ixfer == EXS_JPEGLSLossless || ixfer == EXS_JPEGLSLossy ||
          ixfer == EXS_RLELossless || (ixfer >= EXS_JPEGProcess1 && ixfer <= EXS_JPEGProcess14SV1))
        return fail(r, decodeReason(c, DPRCR_corruptInput),
                    std::string("cannot decode the pixel data (corrupt or truncated?): ") + c.text());
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
    // (the checks of the module against the pixel data: their codes vary with the check)
    return fail(r, conditionReason(c, DPRCR_pixelData), c.text());
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

