/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: reading a file: the checks before coding, its original
 *           samples (DPRCPrepare), the codestreams of a PCWT copy (DPRCReadCodestreams).
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
#include "dcmpcwt/dpj2kdec.h"
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

static DPRCResult& prepareInner(DPRCJob& job, const DPRCOptions& opt, DPRCSampleMemory *memory);
static DPRCResult& readAndCheck(DPRCJob& job, const DPRCOptions& opt);
static DPRCResult& decodeAndTakeSamples(DPRCJob& job, const DPRCOptions& opt, DPRCSampleMemory *memory);
static bool prepared(DPRCJob& job, const DPRCOptions& opt, unsigned slot);

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
  job.j2kDeferred = false;
  prepareInner(job, opt, memory);
  return prepared(job, opt, slot);
}

bool DPRCPrepareDecoded(DPRCJob& job, const DPRCOptions& opt, unsigned slot, DPRCSampleMemory *memory)
{
  job.j2kDeferred = false;
  decodeAndTakeSamples(job, opt, memory);
  return prepared(job, opt, slot);
}

/// the end of DPRCPrepare and DPRCPrepareDecoded: on to coding, or the result final
static bool prepared(DPRCJob& job, const DPRCOptions& opt, unsigned slot)
{
  DPRCResult& r = job.result;
  if (r.status == DPRCST_wouldDo && !opt.dryRun)
  {
    // to be finished (maybe on another thread): its time so far counts
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
    return true;
  }
  complete(job, opt, slot);
  return false;
}

/// everything up to the original samples; status wouldDo when the file is to be coded (or, with
/// job.deferJ2K, JPEG 2000 pixel data is to be decoded first: job.j2kDeferred)
static DPRCResult& prepareInner(DPRCJob& job, const DPRCOptions& opt, DPRCSampleMemory *memory)
{
  if (readAndCheck(job, opt).status != DPRCST_wouldDo) return job.result;
  if (job.deferJ2K && !opt.dryRun && DPCWTIsJPEG2000Xfer(job.file->getDataset()->getOriginalXfer()))
  {
    job.j2kDeferred = true;
    return job.result;
  }
  return decodeAndTakeSamples(job, opt, memory);
}

/// the file read and checked up to decoding its pixel data; status wouldDo when that is next
static DPRCResult& readAndCheck(DPRCJob& job, const DPRCOptions& opt)
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
  const E_TransferSyntax carrier = DPCWTCarrierOfUID(ts.c_str()); // HTJ2K: a name, not the bare UID
  if (carrier != EXS_Unknown) r.inXfer = DPCWTTransferSyntaxName(carrier).c_str();
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
    // JPEG 2000 and HTJ2K: lossless or not is read from the codestreams' headers, not the UID
    bool lossy = ix.isLossy();
    if (DPCWTIsJPEG2000Xfer(ixfer) && DPCWTJ2KDecoder::available() && opt.target != DPRCT_uncompressed &&
        !opt.acceptLossy)
    {
      OFBool j2kLossy = OFFalse;
      c = DPCWTJ2KDecoder::isLossy(ds, j2kLossy);
      if (c.bad() && unsupportedCondition(c)) return finish(r, DPRCST_unsupported, c.text());
      if (c.bad())
        return fail(r, decodeReason(c, DPRCR_corruptInput),
                    std::string("cannot decode the pixel data (corrupt or truncated?): ") + c.text());
      lossy = j2kLossy;
    }
    if (opt.target != DPRCT_uncompressed && ixfer != DPCWT_CARRIER_XFER && lossy && !opt.acceptLossy)
      return finish(r, DPRCST_unsupported, "lossy compressed input (" + r.inXfer +
                    (DPCWTIsJPEG2000Xfer(ixfer) ? ": a lossy codestream" : "") + "); --accept-lossy codes it anyway",
                    DPRCR_lossySyntax);
  }
  return r;
}

/// the pixel data decoded (the thread's coder may hold JPEG 2000 frames decoded ahead), checked,
/// the original samples taken
static DPRCResult& decodeAndTakeSamples(DPRCJob& job, const DPRCOptions& opt, DPRCSampleMemory *memory)
{
  DPRCResult& r = job.result;
  DPRCStageTimer timer(DPRCSG_decodeInput);
  DcmDataset *ds = job.file->getDataset();
  const E_TransferSyntax ixfer = ds->getOriginalXfer();
  DcmXfer ix(ixfer);
  OFCondition c = EC_Normal;
  if (ix.isEncapsulated())
  {
    c = ds->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
    if (c.bad())
    {
      if (DPCWTIsJPEG2000Xfer(ixfer) && unsupportedCondition(c)) return finish(r, DPRCST_unsupported, c.text());
      if (DPCWTIsJPEG2000Xfer(ixfer) && !DPCWTJ2KDecoder::available())
        return finish(r, DPRCST_unsupported, "cannot decode transfer syntax " + r.inXfer + ": " + c.text());
      if (ixfer == DPCWT_CARRIER_XFER || DPCWTIsJPEG2000Xfer(ixfer) || ixfer == EXS_JPEGLSLossless ||
          ixfer == EXS_JPEGLSLossy || ixfer == EXS_RLELossless ||
          (ixfer >= EXS_JPEGProcess1 && ixfer <= EXS_JPEGProcess14SV1))
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
