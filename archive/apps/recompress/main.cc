/*
 *  Module:  archive
 *
 *  Purpose: pcwt-recompress: recompress every DICOM image below one or more folders (or referenced
 *           by a DICOMDIR) to the PCWT private transfer syntax, to JPEG-LS Lossless or back to
 *           uncompressed, in place or into a mirrored output tree.
 *
 *  Safe under faults: a file is replaced only by a complete copy that was flushed to disk, decoded
 *  and compared sample by sample with the original (engine.h). Resumable: files already in the
 *  target transfer syntax are skipped. docs/recompress.md describes the tool. The command line is
 *  parsed in options.cc, the run in run.cc.
 */

#include "dcmtk/config/osconfig.h"
#include "recompress.h"

#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/ofstd/ofstd.h"

#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dputil.h"
#include "dpapps.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

static OFLogger recmpLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

int main(int argc, char *argv[])
{
  DPRCTimelineMark("start");
#ifdef __GLIBC__
  // every file allocates (and frees) buffers of megabytes on many threads: keep them in the heap
  // instead of a fresh mmap, page faults and zeroing by the kernel, and a munmap per buffer
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  RecompressOptions o;
  if (!RecompressParseCommandLine(argc, argv, o)) return EXITCODE_NO_ERROR;

  DPRCTimelineMark("options");
  OFLOG_DEBUG(recmpLogger, RecompressRcsid << OFendl);
  if (!dcmDataDict.isDictionaryLoaded())
    OFLOG_WARN(recmpLogger, "no data dictionary loaded, check environment variable: " << DCM_DICT_ENVIRONMENT_VARIABLE);
  RecompressAdjustThreads(o);
  if (!RecompressCheckOutputTree(o)) return EXITCODE_FATAL;
  RecompressLocks locks;
  if (!RecompressLockFolders(o, locks)) return EXITCODE_FATAL;

  RecompressRegisterCodecs(o);
  int status = EXITCODE_NO_ERROR;
  const bool ran = RecompressRun(o, locks, status);
  DPCWTEncoderRegistration::cleanup();
  DPCWTCleanupDecoders();
  if (!ran) return EXITCODE_FATAL;
  if (o.stats)
  {
    DPRCTimelineMark("cleanup");
    const std::vector<std::pair<std::string, double> > t = DPRCTimeline();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", t.back().second);
    COUT << "timeline: " << t.back().first << " " << buf << OFendl;
  }
  return status;
}
