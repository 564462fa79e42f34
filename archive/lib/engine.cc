/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: recompressing one file safely (engine.h): what reading
 *           (read.cc) and writing (write.cc) share, the end of a file's processing, DPRCProcess.
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


using namespace dprc;

static bool isUncompressedUid(const std::string& ts)
{
  return ts == UID_LittleEndianImplicitTransferSyntax || ts == UID_LittleEndianExplicitTransferSyntax ||
         ts == UID_BigEndianExplicitTransferSyntax || ts == UID_DeflatedExplicitVRLittleEndianTransferSyntax;
}

std::string dprc::xferName(const std::string& uid)
{
  if (uid == DCMPCWT_TRANSFER_SYNTAX_UID) return DCMPCWT_TRANSFER_SYNTAX_NAME;
  DcmXfer x(uid.c_str());
  if (x.getXfer() == EXS_Unknown) return uid.empty() ? std::string("(none)") : uid;
  return x.getXferName();
}

OFCondition dprc::rawPixels(DcmDataset *ds, std::vector<unsigned char>& out)
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

bool dprc::unsupportedCondition(const OFCondition& c)
{
  return c.module() == OFM_dcmpcwt && (c.code() == EPCEC_UnsupportedImage || c.code() == EPCEC_LossyInput);
}

DPRC_Reason dprc::conditionReason(const OFCondition& c, DPRC_Reason step)
{
  if (c == EC_MemoryExhausted) return DPRCR_memory;
  if (c.module() == OFM_dcmpcwt && (c.code() == EPCEC_InvalidImage || DPCWTIsPixelDataLengthError(c)))
    return DPRCR_pixelData;
  return step;
}

DPRC_Reason dprc::decodeReason(const OFCondition& c, DPRC_Reason step)
{
  if (c.module() == OFM_dcmpcwt && c.code() == EPCEC_TooLarge) return DPRCR_memory;
  return conditionReason(c, step);
}

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

pcwt_dicom_target dprc::dicomTarget(const DPRCOptions& opt)
{
  return (opt.target == DPRCT_jpegls) ? PCWT_DICOM_TARGET_JPEGLS : PCWT_DICOM_TARGET_PCWT;
}

E_TransferSyntax dprc::outputXfer(const DPRCOptions& opt)
{
  return opt.target == DPRCT_pcwt ? DPCWT_CARRIER_XFER
       : opt.target == DPRCT_jpegls ? EXS_JPEGLSLossless : EXS_LittleEndianExplicit;
}

std::string DPRCOutputPath(const DPRCEntry& entry, const DPRCOptions& options)
{
  if (options.outputDir.empty()) return entry.path;
  return options.outputDir + "/" + entry.rel;
}

void dprc::complete(DPRCJob& job, const DPRCOptions& opt, unsigned slot)
{
  DPRCResult& r = job.result;
  job.pending.reset(); // before the original: its decoder may still read it
  job.file.reset();
  job.original.reset();
  std::vector<DPRCJob::CodedFrame>().swap(job.coded);
  job.codedWith.reset();
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

void DPRCFinish(DPRCJob& job, const DPRCOptions& opt, unsigned slot, DPRCFrameVerifier *verifier)
{
  if (DPRCWriteVerified(job, opt, slot, verifier) && DPRCAwaitVerified(job, opt))
    DPRCCommit(std::vector<DPRCJob *>(1, &job), opt);
}

DPRCResult DPRCProcess(const DPRCEntry& entry, const DPRCOptions& opt, unsigned slot)
{
  DPRCJob job;
  if (DPRCPrepare(job, entry, opt, slot)) DPRCFinish(job, opt, slot);
  return job.result;
}
