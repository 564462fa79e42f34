/*
 *  Module:  archive
 *
 *  Purpose: pcwt-recompress: a run (recompress.h): the checks before it, the locks, the walk, the
 *           pipeline, the DICOMDIRs and the report.
 */

#include "dcmtk/config/osconfig.h"
#include "recompress.h"

#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/ofstd/ofstd.h"

#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dputil.h"
#include "dpapps.h"
#include "pipeline.h"
#include "report.h"
#include "walk.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

#include <dirent.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static OFLogger recmpLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

namespace fs = std::filesystem;

/// whether path lies at or below root (both made absolute)
static bool isBelow(const std::string& path, const std::string& root)
{
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  const fs::path r = fs::weakly_canonical(fs::absolute(root), ec);
  auto pi = p.begin();
  for (auto ri = r.begin(); ri != r.end(); ++ri, ++pi)
  {
    if (ri->empty()) continue; // trailing separator
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

/** a GPU's CUDA context made and its encoding kernels loaded, by coding a small frame there:
 *  the pipeline's warm-up of the device (its bring-up) then finds them. Each device after the
 *  first on a thread of its own from the GPU check on, beside the first's context, the walk, the
 *  first reads and the first device's batches.
 */
static void makeContext(int device)
{
  pcwt_encoder *e = pcwt_encoder_create();
  if (e == NULL) return;
  const pcwt_image_desc desc = {256, 256, 1, 16, 12, 0, 0};
  std::vector<std::uint16_t> samples(std::size_t(desc.width) * desc.height);
  for (std::size_t k = 0; k < samples.size(); ++k)
    samples[k] = static_cast<std::uint16_t>((k * 7 + (k / desc.width) * 13) & 0xfff);
  std::vector<unsigned char> out(static_cast<std::size_t>(pcwt_encode_bound(&desc)));
  size_t written = 0;
  // (a failure here is the pipeline's to report, when its handles are made)
  if (!out.empty() && pcwt_encoder_set_option(e, PCWT_OPT_BACKEND, PCWT_BACKEND_GPU) == PCWT_OK &&
      pcwt_encoder_set_device(e, device) == PCWT_OK)
  {
    const pcwt_status st = pcwt_encode(e, &desc, samples.data(), samples.size() * sizeof(std::uint16_t), out.data(),
                                       out.size(), &written);
    (void)st;
  }
  pcwt_encoder_destroy(e);
}

/// the CUDA contexts of the devices after the first, being made (makeContext), each on a thread
struct ContextsBeingMade
{
  std::vector<std::pair<int, std::thread> > threads; // device, the thread making its context

  /// device's context made (nothing to wait for on the first device)
  void wait(int device)
  {
    for (std::pair<int, std::thread>& t : threads)
      if (t.first == device && t.second.joinable()) t.second.join();
  }

  ~ContextsBeingMade()
  {
    for (std::pair<int, std::thread>& t : threads)
      if (t.second.joinable()) t.second.join();
  }
};

/** every device there (""): a description of the first that is not; the first device's CUDA
 *  context made, as the readers' page-locked buffers need it; the others' started, a thread each
 *  (contexts), which the pipeline's bring-up of each device waits for: the first device codes
 *  while they come up
 */
static std::string checkGpus(const std::vector<int>& devices, ContextsBeingMade& contexts)
{
  // the library takes device 0 as "the default" even with no device at all: ask for the GPU
  // backend itself, so that an empty folder is no reason to exit 0
  pcwt_decoder *gpu = pcwt_decoder_create();
  if (gpu == NULL) return "out of memory";
  std::string problem;
  if (pcwt_decoder_set_backend(gpu, PCWT_BACKEND_GPU) != PCWT_OK)
    problem = std::string("no GPU is available (") + pcwt_decoder_last_error(gpu) + ")";
  pcwt_decoder_destroy(gpu);
  if (!problem.empty()) return problem;
  DPRCTimelineMark("cuInit"); // (--stats: the GPU found; the context follows)
  pcwt_encoder *probe = pcwt_encoder_create();
  if (probe == NULL) return "out of memory";
  for (int d : devices)
  {
    if (pcwt_encoder_set_device(probe, d) != PCWT_OK)
    {
      problem = "GPU " + std::to_string(d) + " is not available (" + pcwt_encoder_last_error(probe) + ")";
      break;
    }
  }
  pcwt_encoder_destroy(probe);
  if (problem.empty())
  {
    // (the first device's context comes with the page-locked buffer below, as alone: its kernels
    // loaded here delayed the start on one GPU)
    for (std::size_t k = 1; k < devices.size(); ++k)
      contexts.threads.emplace_back(devices[k], std::thread(makeContext, devices[k]));
    pcwt_host_free(pcwt_host_alloc(1));
  }
  return problem;
}

/** an NVIDIA device node in /dev (nvidia0, nvidia1, ...) and no CUDA_VISIBLE_DEVICES hiding every
 *  device: a GPU to plan for, found without CUDA, whose start (cuInit) is the GPU check's, beside
 *  the walk. Tests: PCWT_RECOMPRESS_FAULT=gpu-present reports one on any machine.
 */
static bool gpuNodePresent(const RecompressOptions& o)
{
  if (o.file.testFault == "gpu-present") return true;
  const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != NULL && (*visible == 0 || *visible == '-')) return false;
  DIR *dev = opendir("/dev");
  if (dev == NULL) return false;
  bool found = false;
  while (const dirent *e = readdir(dev))
    if (std::strncmp(e->d_name, "nvidia", 6) == 0 && e->d_name[6] >= '0' && e->d_name[6] <= '9') found = true;
  closedir(dev);
  return found;
}

void RecompressAdjustThreads(RecompressOptions& o)
{
  // Without --gpus or a backend named, a GPU there codes as with --gpus 1, the measured
  // configuration: one GPU (two ran no faster, bench/results/gpu-h200-2026-11-28-session9-
  // recompress.md), checked beside the walk, half the threads. The backend stays automatic: a
  // GPU that CUDA cannot use leaves the CPU coding (RecompressRun).
  // --backend-gpu without --gpus: the same start (device 0, checked beside the walk); a GPU that
  // cannot be used then fails the run.
  const char *env = std::getenv("PCWT_BACKEND");
  if (o.devices.empty() && o.gpus.empty() && pcwt_has_cuda() &&
      (o.backend == PCWT_BACKEND_GPU ||
       (o.backend == PCWT_BACKEND_AUTO && !(env != NULL && std::strcmp(env, "cpu") == 0) && gpuNodePresent(o))))
    o.devices.push_back(0);
  // --gpus: without CUDA the CPU codes (every GPU named is checked below, beside the walk)
  if (!o.devices.empty() && !pcwt_has_cuda())
  {
    OFLOG_WARN(recmpLogger, "--gpus " << o.gpus << ": this build has no CUDA backend; one CPU worker set "
      "codes on the CPU");
    o.devices.clear();
    o.backend = PCWT_BACKEND_CPU;
  }
  // With GPUs coding and verifying, half the cores read and as many write: one each made the
  // readers and writers outnumber the cores (and ran slower)
  if (!o.devices.empty() && !o.threadsGiven) o.threads = std::max(1u, o.threads / 2);
}

void RecompressShowOnlyTheGpusUsed(const RecompressOptions& o)
{
  // cuInit sets up every device it sees, before the first context: a run on fewer GPUs than the
  // host has would wait for the others (bench/results/gpu-h200-2026-11-28-session7-host.md). A
  // list of other numbers, or the variable set by the caller, is left as it is (their numbering
  // would change).
  if (o.backend == PCWT_BACKEND_CPU || std::getenv("CUDA_VISIBLE_DEVICES") != NULL) return;
  const std::vector<int> used = o.devices.empty() ? std::vector<int>(1, 0) : o.devices;
  std::string visible;
  for (std::size_t k = 0; k < used.size(); ++k)
  {
    if (used[k] != static_cast<int>(k)) return;
    visible += (k ? "," : "") + std::to_string(k);
  }
  (void)setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 0);
}

bool RecompressCheckOutputTree(const RecompressOptions& o)
{
  // refuse an output tree inside an input: a later run would find the outputs as inputs
  if (!o.file.outputDir.empty())
  {
    for (const std::string& in : o.inputs)
    {
      if (isBelow(o.file.outputDir, in) || isBelow(in, o.file.outputDir))
      {
        OFLOG_FATAL(recmpLogger, "the output folder " << o.file.outputDir << " must not lie inside the input "
          << in << " (or contain it)");
        return false;
      }
    }
  }
  return true;
}

bool RecompressLockFolders(const RecompressOptions& o, RecompressLocks& locks)
{
  // one run per folder (per shard with --shard): a second run would take the first's temporary
  // files for left-overs and replace files under it. The lock files also list the runs whose
  // temporary files may be removed. A dry run writes nothing, and so takes no lock.
  if (o.file.dryRun) return true;
  std::vector<std::string> folders;
  for (const std::string& in0 : o.inputs)
  {
    std::string in = in0;
    while (in.size() > 1 && in.back() == '/') in.pop_back();
    struct stat st;
    if (stat(in.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) folders.push_back(in);
    else folders.push_back(in.find('/') == std::string::npos ? std::string(".") : in.substr(0, std::max<size_t>(1, in.rfind('/'))));
  }
  if (!o.file.outputDir.empty())
  {
    std::string out = o.file.outputDir;
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    folders.push_back(out);
  }
  for (const std::string& f : folders)
  {
    if (locks.count(f)) continue;
    std::unique_ptr<DPRCRunLock> lock(new DPRCRunLock());
    std::string error;
    const DPRCRunLock::Outcome outcome = lock->acquire(f, o.shardIndex, o.shardCount, error);
    if (outcome == DPRCRunLock::busy)
    {
      OFLOG_FATAL(recmpLogger, error);
      return false;
    }
    if (outcome == DPRCRunLock::failed)
    {
      // e.g. a read-only folder: its files are refused anyway; nothing left over is removed there
      OFLOG_WARN(recmpLogger, error << ": working on " << f << " without a lock");
      continue;
    }
    locks[f] = std::move(lock);
  }
  return true;
}

void RecompressRegisterCodecs(const RecompressOptions& o)
{
  // every decoder DCMTK 3.6.7 has, PCWT's, and the encoders
  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, kMaxSamplesPerFrame), OFFalse);
  DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, o.file.acceptLossy ? OFTrue : OFFalse,
    PCWT_DEFAULT_LEVELS, 0, 0 /* the profile's group size */, o.backend, OFTrue /* JPEG-LS */,
    o.profile);
}

/// the files below the inputs, and the temporary files of an interrupted run in the output tree
static DPRCWalkResult walkInputs(const RecompressOptions& o)
{
  DPRCWalkResult walk = DPRCWalk(o.inputs, o.shardIndex, o.shardCount);
  if (!o.file.outputDir.empty())
  {
    struct stat ost;
    if (stat(o.file.outputDir.c_str(), &ost) == 0)
    {
      DPRCWalkResult out = DPRCWalk(std::vector<std::string>(1, o.file.outputDir), o.shardIndex, o.shardCount);
      walk.staleTemps.insert(walk.staleTemps.end(), out.staleTemps.begin(), out.staleTemps.end());
    }
  }
  DPRCTimelineMark("walk");
  return walk;
}

/// the temporary files of an interrupted run (SIGKILL, power loss) removed: never a file's only
/// copy; returns how many
static std::uint64_t removeStaleTemps(const RecompressOptions& o, const DPRCWalkResult& walk,
                                      const RecompressLocks& locks)
{
  std::uint64_t cleaned = 0;
  for (size_t k = 0; k < walk.staleTemps.size(); ++k)
  {
    // provably ours: named with the id of a run that held this folder's lock before; a live
    // run holds the lock, so that run is over (a name of our own run id is not left over)
    const std::string& t = walk.staleTemps[k];
    const auto lock = locks.find(k < walk.staleTempRoots.size() ? walk.staleTempRoots[k] : std::string());
    if (lock == locks.end() || k >= walk.staleTempRuns.size() || walk.staleTempRuns[k] == DPRCRunId() ||
        !lock->second->earlierRuns().count(walk.staleTempRuns[k]))
    {
      OFLOG_DEBUG(recmpLogger, "left alone: " << t << " (named like a temporary file, but of no run "
        "listed in the folder's lock file)");
      continue;
    }
    if (o.file.dryRun)
      OFLOG_INFO(recmpLogger, "would remove the temporary file of an interrupted run: " << t);
    else if (unlink(t.c_str()) == 0)
    {
      ++cleaned;
      OFLOG_INFO(recmpLogger, "removed the temporary file of an interrupted run: " << t);
    }
    else
      OFLOG_WARN(recmpLogger, "cannot remove the temporary file " << t << ": " << std::strerror(errno));
  }
  return cleaned;
}

/// a number from the environment (absent or not a number: fallback)
static unsigned long envNumber(const char *name, unsigned long fallback)
{
  const char *v = std::getenv(name);
  char *end = NULL;
  const unsigned long n = v ? std::strtoul(v, &end, 10) : 0;
  return (v && *v && end && *end == 0) ? n : fallback;
}

/// the pipeline's settings from the command line
static DPRCPipelineOptions pipelineOptions(const RecompressOptions& o, std::size_t files)
{
  DPRCPipelineOptions popt;
  popt.readers = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(o.threads, files)));
  popt.writers = popt.readers;
  popt.cpuCoderThreads = o.threads;
  popt.batchFrames = static_cast<size_t>(o.batchFrames);
  popt.batchBytes = static_cast<std::uint64_t>(o.batchMB) << 20;
  popt.batchWaitMs = static_cast<unsigned>(o.batchWait);
  popt.commitGroup = static_cast<unsigned>(o.commitGroup);
  popt.codersPerDevice = static_cast<unsigned>(o.codersPerGpu);
  popt.verifiersPerDevice = static_cast<unsigned>(o.verifiersPerGpu);
  popt.backend = o.backend;
  popt.devices = o.devices;
  popt.decodeBackend = PCWT_BACKEND_CPU;
  popt.verify = o.verify;
  popt.verifySample = static_cast<unsigned>(o.verifySample);
  popt.j2kDecoder = o.j2kDecoder;
  popt.j2kBatchBytes = static_cast<std::uint64_t>(o.j2kBatchMB) << 20;
  popt.j2kDecodersPerDevice = static_cast<unsigned>(o.j2kDecodersPerGpu);
  popt.maxSamplesPerFrame = kMaxSamplesPerFrame;
  // for measurements (bench/recompress/probe-stages.sh, docs/recompress.md), not options: the
  // verifiers' minimum batch and its wait, the memory budget, the JPEG 2000 batches' ramp, and the
  // two warm-ups apart, as their defaults differ: the GPU coders' and verifiers' off (no faster,
  // pipeline.h), the JPEG 2000 batch decoders' on (their first batch's page-locked buffer made
  // beside it)
  popt.verifyMinFrames = static_cast<unsigned>(envNumber("PCWT_RECOMPRESS_VERIFY_MIN_FRAMES", popt.verifyMinFrames));
  popt.verifyFillMs = static_cast<unsigned>(envNumber("PCWT_RECOMPRESS_VERIFY_FILL_MS", popt.verifyFillMs));
  popt.budgetBytes = static_cast<std::uint64_t>(envNumber("PCWT_RECOMPRESS_BUDGET_MB", 0)) << 20;
  popt.j2kRamp = envNumber("PCWT_RECOMPRESS_J2K_RAMP", 0) != 0;
  popt.warm = envNumber("PCWT_RECOMPRESS_WARM", 0) != 0;
  popt.j2kWarm = envNumber("PCWT_RECOMPRESS_J2K_WARM", 1) != 0;
  return popt;
}

/** the batch coders code what the plugin's encoder would: its settings as RecompressRegisterCodecs
 *  registers them (NULL when out of memory: the pipeline refuses to start). Made once the GPU check
 *  is done: libpcwt resolves the automatic backend as a handle is made, which waits for its cuInit.
 */
static std::shared_ptr<const pcwt_encoder> codingSettings(const RecompressOptions& o)
{
  const DPCWTCodecParameter cp(EPCUC_default, OFFalse, o.file.acceptLossy ? OFTrue : OFFalse, PCWT_DEFAULT_LEVELS,
                               0, 0 /* the profile's group size */, o.backend, kMaxSamplesPerFrame, o.profile);
  std::shared_ptr<pcwt_encoder> coding(pcwt_encoder_create(), pcwt_encoder_destroy);
  if (coding && cp.configureEncoder(coding.get(), OFFalse) == PCWT_OK) return coding;
  return NULL;
}

/// the log line of a file's result
static void logResult(const DPRCResult& r)
{
  switch (r.status)
  {
    case DPRCST_failed:
      OFLOG_ERROR(recmpLogger, "failed: " << r.path << ": " << r.message);
      break;
    case DPRCST_unsupported:
      OFLOG_WARN(recmpLogger, "unsupported, left as it is: " << r.path << ": " << r.message);
      break;
    case DPRCST_skippedChanged:
      OFLOG_WARN(recmpLogger, "skipped, changed: " << r.path << ": " << r.message);
      break;
    case DPRCST_done:
      OFLOG_INFO(recmpLogger, "recompressed: " << r.path << " (" << r.inBytes << " -> " << r.outBytes
        << " bytes, " << r.inXfer << " -> " << r.outXfer << ")");
      break;
    case DPRCST_keptOriginal:
      OFLOG_INFO(recmpLogger, "kept the original: " << r.path << ": " << r.message);
      break;
    case DPRCST_wouldDo:
      OFLOG_INFO(recmpLogger, "would recompress: " << r.path << " (" << r.inXfer << " -> " << r.outXfer << ")");
      break;
    default:
      OFLOG_DEBUG(recmpLogger, DPRCStatusName(r.status) << ": " << r.path
        << (r.message.empty() ? std::string() : ": " + r.message));
  }
}

/// DICOMDIRs: records of files now in the target transfer syntax get its UID (also those of an
/// interrupted earlier run; nothing changes when nothing is to change); returns the records
static std::uint64_t updateDicomdirs(const RecompressOptions& o, const DPRCWalkResult& walk, int& status)
{
  std::uint64_t dicomdirRecords = 0;
  for (size_t k = 0; k < walk.dicomdirs.size() && k < walk.dicomdirRels.size(); ++k)
  {
    DPRCEntry de;
    de.path = walk.dicomdirs[k];
    de.rel = walk.dicomdirRels[k];
    de.size = 0;
    de.symlink = false;
    const std::string target = DPRCOutputPath(de, o.file);
    struct stat dst;
    if (lstat(target.c_str(), &dst) != 0 || !S_ISREG(dst.st_mode))
    {
      OFLOG_INFO(recmpLogger, "DICOMDIR " << target << " not there"
        << (o.file.outputDir.empty() ? std::string() : std::string(" (--copy-others copies it into the output tree)"))
        << ": not updated");
      continue;
    }
    const DPRCDicomdirUpdate u = DPRCUpdateDicomdir(target, o.file.target, o.file.dryRun, 0);
    if (!u.error.empty())
    {
      OFLOG_ERROR(recmpLogger, "failed: DICOMDIR " << target << ": " << u.error << " (left as it was)");
      status = EXITCODE_FILES_FAILED;
    }
    else if (u.records)
      OFLOG_INFO(recmpLogger, (o.file.dryRun ? "would update " : "updated ") << u.records
        << " record(s) of DICOMDIR " << target << " to the new transfer syntax");
    dicomdirRecords += u.records;
  }
  return dicomdirRecords;
}

/** --stats: the process's memory at the summary: its peak and current resident set (page-locked
 *  memory counts there too), minor page faults and system time so far, and the heap (glibc's
 *  arenas: what they hold, what of it is in use)
 */
static std::string memoryText()
{
  struct rusage ru;
  std::memset(&ru, 0, sizeof ru);
  (void)getrusage(RUSAGE_SELF, &ru);
  long resident = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r"))
  {
    long pages = 0;
    if (std::fscanf(f, "%*s %ld", &pages) == 1) resident = pages * (sysconf(_SC_PAGESIZE) >> 10);
    std::fclose(f);
  }
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "memory: peak resident %ld MB, now %ld MB; %ld minor page faults, "
                        "system time %.2f s", ru.ru_maxrss >> 10, resident >> 10, ru.ru_minflt,
                        double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) * 1e-6);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
  const struct mallinfo2 m = mallinfo2();
  if (n > 0 && std::size_t(n) < sizeof buf)
    n += std::snprintf(buf + n, sizeof buf - std::size_t(n), "; heap %zu MB held (%zu MB mapped apart), %zu MB in use",
                       (m.arena + m.hblkhd) >> 20, m.hblkhd >> 20, (m.uordblks + m.hblkhd) >> 20);
#endif
  // the resident set by kind of mapping: anonymous (the heap, the page-locked regions; these in
  // huge pages), the NVIDIA driver's (its own page-locked and device mappings), the rest
  unsigned long long anonKb = 0, hugeKb = 0, nvidiaKb = 0, otherKb = 0;
  if (FILE *f = std::fopen("/proc/self/smaps", "r"))
  {
    char line[512];
    int kind = 0; // 0 anonymous, 1 NVIDIA, 2 other
    while (std::fgets(line, sizeof line, f))
    {
      unsigned long long kb = 0;
      if (std::sscanf(line, "Rss: %llu kB", &kb) == 1)
        (kind == 0 ? anonKb : kind == 1 ? nvidiaKb : otherKb) += kb;
      else if (std::sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
        hugeKb += kb;
      else if (std::isxdigit(static_cast<unsigned char>(line[0])) && std::strchr(line, '-') != NULL &&
               std::strchr(line, '-') < std::strchr(line, ' '))
      {
        // "start-end perms offset dev inode [path]"
        const char *path = line;
        for (int field = 0; field < 5 && path; ++field)
        {
          path = std::strchr(path, ' ');
          if (path) while (*path == ' ') ++path;
        }
        if (path == NULL || *path == '\n' || *path == 0 || std::strncmp(path, "[heap]", 6) == 0 ||
            std::strncmp(path, "[anon", 5) == 0)
          kind = 0;
        else
          kind = std::strstr(path, "/dev/nvidia") != NULL ? 1 : 2;
      }
    }
    std::fclose(f);
    if (n > 0 && std::size_t(n) < sizeof buf)
      std::snprintf(buf + n, sizeof buf - std::size_t(n), "; resident anonymous %llu MB (%llu MB in huge pages), "
                    "NVIDIA mappings %llu MB, other %llu MB", anonKb >> 10, hugeKb >> 10, nvidiaKb >> 10, otherKb >> 10);
  }
  return buf;
}

/// the summary and --stats on standard output, and the --report file
static void report(const RecompressOptions& o, DPRCSummary& sum, const DPRCPipelineOptions& popt,
                   const DPRCPipelineStats& pstats, const std::vector<DPRCResult>& results, int& status)
{
  // a file that changed under the run is not done: exit status 2, as for failures, so that it is run again
  if (sum.byStatus[DPRCST_failed] || sum.byStatus[DPRCST_skippedChanged]) status = EXITCODE_FILES_FAILED;
  COUT << DPRCSummaryText(sum, o.file.dryRun) << OFendl;
  if (o.stats)
  {
    COUT << DPRCStageText(sum, popt.readers, pstats.coders, o.file.dryRun ? 0u : popt.writers, pstats.verifiers,
                          pstats.j2kCalls ? pstats.j2kThreads : 0u, pstats.j2kCalls ? pstats.finishers : 0u)
         << OFendl;
    if (pstats.sampleRegionBytes || pstats.arenaRegionBytes)
      COUT << "page-locked regions (memory budget " << (pstats.budgetBytes >> 20) << " MB): samples "
           << (pstats.sampleRegionBytes >> 20) << " MB, " << pstats.sampleRegionBuffers << " buffers cut, "
           << pstats.sampleRegionBeyond << " beyond; coder arenas " << (pstats.arenaRegionBytes >> 20) << " MB, "
           << pstats.arenaRegionBuffers << " buffers cut, " << pstats.arenaRegionBeyond << " beyond; codestreams "
           << (pstats.codestreamRegionBytes >> 20) << " MB, " << pstats.codestreamRegionBuffers << " buffers cut, "
           << pstats.codestreamRegionBeyond << " beyond" << OFendl;
    COUT << memoryText() << OFendl;
    if (!o.devices.empty() && !pstats.framesCodedOn.empty())
    {
      COUT << "frames per GPU:";
      for (const auto& d : pstats.framesCodedOn)
      {
        const auto v = pstats.framesVerifiedOn.find(d.first);
        COUT << " GPU " << d.first << " coded " << d.second << ", verified "
             << (v == pstats.framesVerifiedOn.end() ? 0 : v->second) << ";";
      }
      COUT << OFendl;
    }
  }
  if (o.reportGiven)
  {
    std::string error;
    if (!DPRCWriteReport(o.report, results, sum, o.file.dryRun, error))
    {
      OFLOG_FATAL(recmpLogger, "cannot write the report: " << error);
      if (status == EXITCODE_NO_ERROR) status = EXITCODE_FATAL;
    }
    else
      OFLOG_INFO(recmpLogger, "report written to " << o.report);
  }
}

bool RecompressRun(const RecompressOptions& o, const RecompressLocks& locks, int& status)
{
  // the GPUs are checked (cuInit) and the CUDA context made on a thread of their own while the
  // folders are walked and the first files read; the pipeline waits for it before its devices'
  // handles are made (beforeStart)
  std::string gpuProblem;
  ContextsBeingMade contexts;
  std::thread gpuCheck;
  if (!o.devices.empty())
  {
    gpuCheck = std::thread([&]() {
      gpuProblem = checkGpus(o.devices, contexts);
      // (the GPU planned without --gpus: CUDA found none to use, the automatic backend the CPU)
      if (!gpuProblem.empty() && o.backend == PCWT_BACKEND_AUTO)
      {
        OFLOG_WARN(recmpLogger, "a GPU device node is there, but " << gpuProblem << ": coding on the CPU "
          "(--gpus 0 for every thread)");
        gpuProblem.clear();
      }
      DPRCTimelineMark("gpu check");
    });
  }
  DPRCWalkResult walk = walkInputs(o);
  struct JoinCheck
  {
    std::thread& t;
    ~JoinCheck() { if (t.joinable()) t.join(); }
  } joinCheck{gpuCheck};
  std::uint64_t totalBytes = 0;
  for (const DPRCEntry& e : walk.files) totalBytes += e.size;
  DPRC_ProgressMode mode = o.progress < 0 ? (isatty(2) ? DPRCPM_bar : DPRCPM_lines)
                                          : static_cast<DPRC_ProgressMode>(o.progress);
  DPRCProgress progress(mode, walk.files.size(), totalBytes);
  std::vector<DPRCResult> results(walk.files.size());
  DPRCPipelineOptions popt = pipelineOptions(o, walk.files.size());
  // when the GPUs are there (the readers reading meanwhile): what the walk found is said, and the
  // temporary files of an interrupted run are removed; nothing of it when the GPUs fail
  std::uint64_t cleaned = 0;
  popt.beforeStart = [&]() {
    if (gpuCheck.joinable()) gpuCheck.join();
    if (!gpuProblem.empty()) return gpuProblem;
    popt.coding = codingSettings(o);
    for (const std::string& p : walk.problems) OFLOG_ERROR(recmpLogger, p);
    OFLOG_INFO(recmpLogger, walk.files.size() << " files (" << DPRCBytes(double(totalBytes)) << ") to look at"
      << (o.shardCount > 1 ? " in shard " + std::to_string(o.shardIndex) + "/" + std::to_string(o.shardCount) +
          " (" + std::to_string(walk.otherShards) + " in other shards)" : std::string())
      << ", " << o.threads << " threads" << (o.file.dryRun ? ", dry run" : ""));
    cleaned = removeStaleTemps(o, walk, locks);
    OFLOG_INFO(recmpLogger, (popt.batchFrames && o.file.target == DPRCT_pcwt
      ? "batches of up to " + std::to_string(popt.batchFrames) + " frames / " + std::to_string(o.batchMB) +
        " MB, batch coders on " + (o.devices.empty() ? std::string("the default device")
                                                     : std::to_string(o.devices.size()) + " GPU(s)") +
        (o.codersPerGpu ? ", " + std::to_string(o.codersPerGpu) + " per device" : std::string())
      : std::string("no batch coder: each file coded on its own")));
    return std::string();
  };
  // each device after the first comes up with its context made beside the first's batches
  // (one GPU, or the CPU: nothing to wait for)
  if (o.devices.size() > 1) popt.deviceUp = [&contexts](int device) { contexts.wait(device); };
  // the pipeline's handles and buffers, freed together once everything is reported (freed one
  // after another, or left to the process's exit, they took as long: the kernel unpinning the
  // page-locked memory; bench/results/gpu-h200-2026-11-28-session6-host.md, and the _exit of
  // gpu-h200-2026-11-29-session12-recompress.md)
  std::shared_ptr<DPRCPipelineHandles> handles;
  popt.keepHandles = &handles;
  DPRCPipelineStats pstats;
  std::string perror;
  progress.start();
  const bool started = DPRCRunPipeline(walk.files, o.file, popt, [&](size_t i, DPRCResult& r) {
        progress.add(r);
        progress.print([&]() { logResult(r); });
        results[i] = std::move(r);
      }, pstats, perror);
  // (--stats: after 'pipeline done' the pipeline's handles and buffers were freed)
  DPRCTimelineMark("pipeline freed");
  if (!started)
  {
    progress.stop();
    if (!gpuProblem.empty())
      OFLOG_FATAL(recmpLogger, (o.gpus.empty() ? std::string("--backend-gpu") : "--gpus " + o.gpus) << ": " << gpuProblem);
    else
      OFLOG_FATAL(recmpLogger, "cannot start: " << perror);
    return false;
  }
  if (!walk.problems.empty()) status = EXITCODE_FILES_FAILED;
  OFLOG_DEBUG(recmpLogger, "batch coder: " << pstats.calls << " calls, " << pstats.frames << " frames of "
    << pstats.files << " files; the writers took " << pstats.framesTaken << " frames from batches and coded "
    << pstats.framesCodedByWriters << " themselves");
  progress.stop();

  const std::uint64_t dicomdirRecords = updateDicomdirs(o, walk, status);

  DPRCSummary sum = progress.summary();
  sum.cleanedTemps = cleaned;
  sum.codeCalls = pstats.calls;
  sum.codedFrames = pstats.frames;
  sum.codedFiles = pstats.files;
  sum.verifierBatches = pstats.verifierBatches;
  sum.verifiedFrames = pstats.verifiedFrames;
  sum.verifiedFiles = pstats.verifiedFiles;
  sum.verifierGpu = pstats.verifierGpu;
  sum.sampledFrames = pstats.sampledFrames;
  sum.sampleEvery = pstats.sampleEvery;
  sum.dicomdirRecords = dicomdirRecords;
  sum.j2kGpuFrames = pstats.j2kGpuFrames;
  sum.j2kCalls = pstats.j2kCalls;
  sum.j2kOpenjpegFrames = pstats.j2kOpenjpegFrames;
  sum.j2kCpuLibraryFrames = pstats.j2kCpuLibraryFrames;
  sum.stageSeconds = DPRCStageSeconds();
  DPRCTimelineMark("summary");
  sum.timeline = DPRCTimeline();
  report(o, sum, popt, pstats, results, status);
  if (handles)
  {
    const std::size_t parts = DPRCPipelineHandleParts(*handles);
    const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    handles.reset();
    if (o.stats)
    {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3f", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      COUT << "handles freed after the summary: " << parts << " parts together in " << buf << " s" << OFendl;
    }
  }
  return true;
}
