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
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#ifdef __linux__
#include <unistd.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

static OFLogger recmpLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

/// seconds since the process started (its start time in /proc, 10 ms steps; -1 when unknown):
/// --stats shows what lies before main, the libraries' loading and static set-up
static double secondsSinceProcessStart()
{
#ifdef __linux__
  FILE *f = std::fopen("/proc/self/stat", "r");
  if (!f) return -1;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  // the fields after the command's name, which may hold spaces: the 20th is the start time
  const char *p = std::strrchr(buf, ')');
  unsigned long long start = 0;
  for (int field = 0; p && field < 20; ++field) p = std::strchr(p + 1, ' ');
  if (!p || std::sscanf(p + 1, "%llu", &start) != 1) return -1;
  struct timespec now;
  const long tick = sysconf(_SC_CLK_TCK);
  if (tick <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - double(start) / double(tick);
#else
  return -1;
#endif
}

int main(int argc, char *argv[])
{
  DPRCTimelineMark("start");
  const double beforeMain = secondsSinceProcessStart();
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
  RecompressShowOnlyTheGpusUsed(o);
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
    COUT << "timeline: " << t.back().first << " " << buf;
    if (beforeMain >= 0)
    {
      std::snprintf(buf, sizeof buf, "%.2f", beforeMain);
      COUT << " (the process started " << buf << " s before the start)";
    }
    COUT << OFendl;
  }
  return status;
}
