/*
 *  Module:  archive
 *
 *  Purpose: pcwt-recompress: recompress every DICOM image below one or more folders (or referenced
 *           by a DICOMDIR) to the PCWT private transfer syntax, to JPEG-LS Lossless or back to
 *           uncompressed, in place or into a mirrored output tree.
 *
 *  Safe under faults: a file is replaced only by a complete copy that was flushed to disk, decoded
 *  and compared sample by sample with the original (engine.h). Resumable: files already in the
 *  target transfer syntax are skipped. docs/recompress.md describes the tool.
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/dcmdata/cmdlnarg.h"
#include "dcmtk/ofstd/ofconapp.h"
#include "dcmtk/ofstd/ofstd.h"
#include "dcmtk/dcmdata/dcuid.h"      /* for dcmtk version name */

#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dputil.h"
#include "dpappopt.h"
#include "dpapps.h"
#include "engine.h"
#include "lock.h"
#include "pipeline.h"
#include "report.h"
#include "walk.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "pcwt-recompress"
#endif

static OFLogger recmpLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

#define EXITCODE_NO_ERROR       0  /* every file recompressed, skipped or left as unsupported */
#define EXITCODE_FATAL          1  /* command line, nothing to do, report cannot be written */
#define EXITCODE_FILES_FAILED   2  /* at least one file (or folder) failed */

/// the decoders' limit of samples per frame (the PCWT codec's and the verifier's)
static const std::uint64_t kMaxSamplesPerFrame = std::uint64_t(1) << 30;

#define SHORTCOL 3
#define LONGCOL 21

namespace fs = std::filesystem;

static bool parseShard(const char *s, unsigned& index, unsigned& count)
{
  unsigned long i = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(s, "%lu%c%lu%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n == 0 || i >= n || n > 1000000)
    return false;
  index = static_cast<unsigned>(i);
  count = static_cast<unsigned>(n);
  return true;
}

/** --gpus: a count N (0: the CPU codec; N: devices 0 .. N-1) or a list of device numbers with
 *  at least one comma ("0,2"; a single device d is "d,")
 */
static bool parseGpus(const char *s, std::vector<int>& devices, std::string& error)
{
  devices.clear();
  const std::string v = s ? s : "";
  if (v.find(',') == std::string::npos)
  {
    unsigned long n = 0;
    char extra = 0;
    if (std::sscanf(v.c_str(), "%lu%c", &n, &extra) != 1 || n > 64)
    {
      error = "--gpus needs a count 0..64 or a list of device numbers such as 0,2";
      return false;
    }
    for (unsigned long d = 0; d < n; ++d) devices.push_back(static_cast<int>(d));
    return true;
  }
  size_t at = 0;
  while (at < v.size())
  {
    const size_t comma = v.find(',', at);
    const std::string item = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? v.size() : comma + 1;
    if (item.empty()) continue;
    unsigned long d = 0;
    char extra = 0;
    if (std::sscanf(item.c_str(), "%lu%c", &d, &extra) != 1 || d > 1023)
    {
      error = "--gpus: \"" + item + "\" is not a device number";
      return false;
    }
    for (int known : devices)
      if (known == static_cast<int>(d))
      {
        error = "--gpus: device " + item + " is named twice";
        return false;
      }
    devices.push_back(static_cast<int>(d));
  }
  if (devices.empty())
  {
    error = "--gpus: no device in \"" + v + "\"";
    return false;
  }
  return true;
}

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

/** every device there (""): a description of the first that is not; the CUDA context made, as
 *  the readers' page-locked buffers need it
 */
static std::string checkGpus(const std::vector<int>& devices)
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
  if (problem.empty()) pcwt_host_free(pcwt_host_alloc(1));
  return problem;
}

int main(int argc, char *argv[])
{
  DPRCTimelineMark("start");
#ifdef __GLIBC__
  // every file allocates (and frees) buffers of megabytes on many threads: keep them in the heap
  // instead of a fresh mmap, page faults and zeroing by the kernel, and a munmap per buffer
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  DPRCOptions opt;
  unsigned opt_threads = std::thread::hardware_concurrency();
  if (opt_threads == 0) opt_threads = 2;
  bool threadsGiven = false;
  unsigned opt_shardIndex = 0, opt_shardCount = 1;
  pcwt_backend opt_backend = PCWT_BACKEND_AUTO;
  const char *opt_gpus = NULL;
  std::vector<int> opt_devices;
  OFCmdUnsignedInt opt_batchFrames = 1024, opt_batchMB = 32, opt_batchWait = 20, opt_commitGroup = 16;
  OFCmdUnsignedInt opt_codersPerGpu = 0;
  bool opt_verifyGpu = false;
  pcwt_profile opt_profile = PCWT_PROFILE_BASELINE;
  bool opt_stats = false;
  int opt_progress = -1; // -1 auto
  const char *opt_report = NULL;
  std::vector<std::string> inputs;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION,
    "Recompress the DICOM images of folders to PCWT lossless (or JPEG-LS, or uncompressed), safely", rcsid);
  OFCommandLine cmd;
  cmd.setOptionColumns(LONGCOL, SHORTCOL);
  cmd.setParamColumn(LONGCOL + SHORTCOL + 4);
  cmd.addParam("path", "folder, DICOM file or DICOMDIR to process", OFCmdParam::PM_MultiMandatory);

  cmd.addGroup("general options:", LONGCOL, SHORTCOL + 2);
    cmd.addOption("--help",                     "-h",     "print this help text and exit", OFCommandLine::AF_Exclusive);
    cmd.addOption("--version",                            "print version information and exit", OFCommandLine::AF_Exclusive);
    OFLog::addOptions(cmd);

  cmd.addGroup("target transfer syntax:");
    cmd.addOption("--encode-pcwt",              "+ep",    "PCWT lossless, private TS (default)");
    cmd.addOption("--encode-jpegls",            "+el",    "JPEG-LS lossless (standard TS)");
    cmd.addOption("--decompress",               "+ed",    "uncompressed, explicit VR little endian\n(for export)");
    cmd.addOption("--accept-lossy",             "+al",    "also code images that were lossy compressed\nbefore (refused by default)");
    DPCWTAddProfileOption(cmd);

  cmd.addGroup("where the results go:");
    cmd.addOption("--in-place",                 "+ip",    "replace each file by its verified copy (default)");
    cmd.addOption("--keep-originals",           "+ko",    "in place: keep each original as NAME.pcwt-orig");
    cmd.addOption("--output",                   "+od", 1, "[d]irectory: string",
                                                          "write into a mirrored tree below d instead;\nthe inputs are not changed");
    cmd.addOption("--copy-others",              "+co",    "with --output: copy files that are not\nrecompressed unchanged");
    cmd.addOption("--keep-smaller",             "+ks",    "keep the original where the verified copy is not\nsmaller (status kept-original-not-smaller;\nwith --output the original is copied there)");
    cmd.addOption("--dry-run",                  "-n",     "report what would be done, write nothing");

  cmd.addGroup("processing options:");
    cmd.addOption("--threads",                  "+j",  1, "[n]umber: integer (default: CPU cores,\nhalf of them with --gpus)",
                                                          "threads reading files, as many writing and\nverifying them (and CPU coding threads)");
    cmd.addOption("--shard",                    "+sh", 1, "[i]/[n]: shard i of n (0 <= i < n)",
                                                          "only the files whose relative path hashes\nto i modulo n (Slurm arrays, k8s Jobs)");
    cmd.addOption("--backend-auto",             "+ba",    "GPU when available, else CPU (default)");
    cmd.addOption("--backend-cpu",              "+bc",    "always use the CPU codec");
    cmd.addOption("--backend-gpu",              "+bg",    "always use the GPU codec (fail without one)");
    cmd.addOption("--gpus",                     "+g",  1, "[n]umber or [l]ist: 0, N or d,d,...",
                                                          "0: CPU codec; N: GPUs 0..N-1; a list (with a\ncomma, e.g. 0,2 or 1,): those GPUs; batch\ncoders on each (--coders-per-gpu)");
    cmd.addOption("--batch-frames",             "+bf", 1, "[n]umber: integer (default: 1024)",
                                                          "PCWT: code up to n frames of several files in\none libpcwt call (0: each file on its own)");
    cmd.addOption("--batch-mb",                 "+bm", 1, "[n]umber: integer (default: 32)",
                                                          "... and up to about n MB of samples");
    cmd.addOption("--coders-per-gpu",           "+cp", 1, "[n]umber: integer (default: 1)",
                                                          "batch coder threads per device, each with its\nown encoder: one stages and lays out a batch\nwhile another's is on the GPU");
    cmd.addOption("--batch-wait",               "+bw", 1, "[m]illiseconds: integer (default: 20)",
                                                          "how long a batch that is not full waits for\nthe next file");
    cmd.addOption("--commit-group",             "+cg", 1, "[n]umber: integer (default: 16)",
                                                          "a writer flushes and renames up to n verified\ncopies together, then flushes their folders\nonce (1: each file on its own)");
    cmd.addOption("--verify-gpu",               "+vg",    "verify (decode the new copies) with the coding\nbackend, e.g. the GPU, the copies of several\nwriters in one call (default: the CPU decoder,\nin each writer)");

  cmd.addGroup("progress and report:");
    cmd.addOption("--progress-auto",            "+pa",    "a bar on a terminal, else lines (default)");
    cmd.addOption("--progress-bar",             "+pb",    "always a progress bar");
    cmd.addOption("--progress-lines",           "+pl",    "a plain progress line every 10 seconds");
    cmd.addOption("--no-progress",              "-p",     "no progress display");
    cmd.addOption("--report",                   "+r",  1, "[f]ilename: string",
                                                          "write a report of every file:\nCSV when f ends in .csv, JSON otherwise");
    cmd.addOption("--stats",                    "+st",    "print the time of each stage (read, code,\nwrite, flush, verify, ...) after the summary");

  prepareCmdLineArgs(argc, argv, OFFIS_CONSOLE_APPLICATION);
  if (app.parseCommandLine(cmd, argc, argv))
  {
    if (DPCWTPrintVersion(app, cmd, DPCWTEncoderRegistration::getLibraryVersionString()))
      return EXITCODE_NO_ERROR;
    const int n = cmd.getParamCount();
    for (int i = 1; i <= n; ++i)
    {
      const char *p = NULL;
      cmd.getParam(i, p);
      if (p && *p) inputs.push_back(p);
    }
    OFLog::configureFromCommandLine(cmd, app);

    cmd.beginOptionBlock();
    if (cmd.findOption("--encode-pcwt")) opt.target = DPRCT_pcwt;
    if (cmd.findOption("--encode-jpegls")) opt.target = DPRCT_jpegls;
    if (cmd.findOption("--decompress")) opt.target = DPRCT_uncompressed;
    cmd.endOptionBlock();
    DPCWTEvaluateProfileOption(app, cmd, opt_profile,
      opt.target == DPRCT_jpegls ? "--encode-jpegls" : "--decompress", opt.target != DPRCT_pcwt);
    if (cmd.findOption("--accept-lossy")) opt.acceptLossy = true;

    cmd.beginOptionBlock();
    if (cmd.findOption("--in-place")) opt.outputDir.clear();
    if (cmd.findOption("--output"))
    {
      const char *d = NULL;
      app.checkValue(cmd.getValue(d));
      opt.outputDir = d ? d : "";
      while (opt.outputDir.size() > 1 && opt.outputDir.back() == '/') opt.outputDir.pop_back();
      if (opt.outputDir.empty()) app.printError("--output needs a folder");
    }
    cmd.endOptionBlock();
    if (cmd.findOption("--keep-originals"))
    {
      app.checkConflict("--keep-originals", "--output", !opt.outputDir.empty());
      opt.keepOriginals = true;
    }
    if (cmd.findOption("--copy-others"))
    {
      app.checkDependence("--copy-others", "--output", !opt.outputDir.empty());
      opt.copyOthers = true;
    }
    if (cmd.findOption("--dry-run")) opt.dryRun = true;
    if (cmd.findOption("--keep-smaller")) opt.keepSmaller = true;
    if (const char *fault = std::getenv("PCWT_RECOMPRESS_FAULT")) opt.testFault = fault;

    if (cmd.findOption("--threads"))
    {
      OFCmdUnsignedInt t = 0;
      app.checkValue(cmd.getValueAndCheckMinMax(t, 1, 1024));
      opt_threads = static_cast<unsigned>(t);
      threadsGiven = true;
    }
    if (cmd.findOption("--shard"))
    {
      const char *s = NULL;
      app.checkValue(cmd.getValue(s));
      if (!s || !parseShard(s, opt_shardIndex, opt_shardCount))
        app.printError("--shard needs I/N with 0 <= I < N, e.g. --shard 3/16");
    }
    cmd.beginOptionBlock();
    if (cmd.findOption("--backend-auto")) opt_backend = PCWT_BACKEND_AUTO;
    if (cmd.findOption("--backend-cpu")) opt_backend = PCWT_BACKEND_CPU;
    if (cmd.findOption("--backend-gpu")) opt_backend = PCWT_BACKEND_GPU;
    cmd.endOptionBlock();
    if (cmd.findOption("--gpus"))
    {
      app.checkValue(cmd.getValue(opt_gpus));
      std::string error;
      if (!parseGpus(opt_gpus, opt_devices, error)) app.printError(error.c_str());
      opt_backend = opt_devices.empty() ? PCWT_BACKEND_CPU : PCWT_BACKEND_GPU;
    }
    if (cmd.findOption("--batch-frames")) app.checkValue(cmd.getValueAndCheckMinMax(opt_batchFrames, 0, 1000000));
    if (cmd.findOption("--batch-mb")) app.checkValue(cmd.getValueAndCheckMinMax(opt_batchMB, 1, 1048576));
    if (cmd.findOption("--verify-gpu")) opt_verifyGpu = true;
    if (cmd.findOption("--commit-group")) app.checkValue(cmd.getValueAndCheckMinMax(opt_commitGroup, 1, 4096));
    if (cmd.findOption("--batch-wait")) app.checkValue(cmd.getValueAndCheckMinMax(opt_batchWait, 0, 600000));
    if (cmd.findOption("--coders-per-gpu")) app.checkValue(cmd.getValueAndCheckMinMax(opt_codersPerGpu, 1, 16));

    cmd.beginOptionBlock();
    if (cmd.findOption("--progress-auto")) opt_progress = -1;
    if (cmd.findOption("--progress-bar")) opt_progress = DPRCPM_bar;
    if (cmd.findOption("--progress-lines")) opt_progress = DPRCPM_lines;
    if (cmd.findOption("--no-progress")) opt_progress = DPRCPM_none;
    cmd.endOptionBlock();
    if (cmd.findOption("--report")) app.checkValue(cmd.getValue(opt_report));
    if (cmd.findOption("--stats")) opt_stats = true;
  }

  DPRCTimelineMark("options");
  OFLOG_DEBUG(recmpLogger, rcsid << OFendl);
  if (!dcmDataDict.isDictionaryLoaded())
    OFLOG_WARN(recmpLogger, "no data dictionary loaded, check environment variable: " << DCM_DICT_ENVIRONMENT_VARIABLE);
  // --gpus: without CUDA the CPU codes (every GPU named is checked below, beside the walk)
  if (!opt_devices.empty() && !pcwt_has_cuda())
  {
    OFLOG_WARN(recmpLogger, "--gpus " << opt_gpus << ": this build has no CUDA backend; one CPU worker set "
      "codes on the CPU");
    opt_devices.clear();
    opt_backend = PCWT_BACKEND_CPU;
  }
  // With GPUs coding and verifying, half the cores read and as many write: one each made the
  // readers and writers outnumber the cores (H200 VM, 16 cores, 8 GB: 8 threads 1.73-1.97 s,
  // 16 threads 1.94-2.32 s)
  if (!opt_devices.empty() && !threadsGiven) opt_threads = std::max(1u, opt_threads / 2);

  // refuse an output tree inside an input: a later run would find the outputs as inputs
  if (!opt.outputDir.empty())
  {
    for (const std::string& in : inputs)
    {
      if (isBelow(opt.outputDir, in) || isBelow(in, opt.outputDir))
      {
        OFLOG_FATAL(recmpLogger, "the output folder " << opt.outputDir << " must not lie inside the input "
          << in << " (or contain it)");
        return EXITCODE_FATAL;
      }
    }
  }

  // one run per folder (per shard with --shard): a second run would take the first's temporary
  // files for left-overs and replace files under it. The lock files also list the runs whose
  // temporary files may be removed. A dry run writes nothing, and so takes no lock.
  std::map<std::string, std::unique_ptr<DPRCRunLock> > locks;
  if (!opt.dryRun)
  {
    std::vector<std::string> folders;
    for (const std::string& in0 : inputs)
    {
      std::string in = in0;
      while (in.size() > 1 && in.back() == '/') in.pop_back();
      struct stat st;
      if (stat(in.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) folders.push_back(in);
      else folders.push_back(in.find('/') == std::string::npos ? std::string(".") : in.substr(0, std::max<size_t>(1, in.rfind('/'))));
    }
    if (!opt.outputDir.empty())
    {
      std::string out = opt.outputDir;
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
      const DPRCRunLock::Outcome o = lock->acquire(f, opt_shardIndex, opt_shardCount, error);
      if (o == DPRCRunLock::busy)
      {
        OFLOG_FATAL(recmpLogger, error);
        return EXITCODE_FATAL;
      }
      if (o == DPRCRunLock::failed)
      {
        // e.g. a read-only folder: its files are refused anyway; nothing left over is removed there
        OFLOG_WARN(recmpLogger, error << ": working on " << f << " without a lock");
        continue;
      }
      locks[f] = std::move(lock);
    }
  }

  // codecs: every decoder DCMTK 3.6.7 has, PCWT's, and the encoders
  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, kMaxSamplesPerFrame), OFFalse);
  DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, opt.acceptLossy ? OFTrue : OFFalse,
    PCWT_DEFAULT_LEVELS, 0, 0 /* the profile's group size */, opt_backend, OFTrue /* JPEG-LS */,
    opt_profile);

  // the GPUs are checked (cuInit) and the CUDA context made on a thread of their own while the
  // folders are walked (0.2-0.3 s on the GPU machine)
  std::string gpuProblem;
  std::thread gpuCheck;
  if (!opt_devices.empty())
  {
    gpuCheck = std::thread([&]() {
      gpuProblem = checkGpus(opt_devices);
      DPRCTimelineMark("gpu check");
    });
  }

  int status = EXITCODE_NO_ERROR;
  {
    // find the files
    DPRCWalkResult walk = DPRCWalk(inputs, opt_shardIndex, opt_shardCount);
    if (!opt.outputDir.empty())
    {
      // temporary files of an interrupted run lie in the output tree
      struct stat ost;
      if (stat(opt.outputDir.c_str(), &ost) == 0)
      {
        DPRCWalkResult out = DPRCWalk(std::vector<std::string>(1, opt.outputDir), opt_shardIndex, opt_shardCount);
        walk.staleTemps.insert(walk.staleTemps.end(), out.staleTemps.begin(), out.staleTemps.end());
      }
    }
    DPRCTimelineMark("walk");
    if (gpuCheck.joinable()) gpuCheck.join();
    if (!gpuProblem.empty())
    {
      OFLOG_FATAL(recmpLogger, "--gpus " << opt_gpus << ": " << gpuProblem);
      DPCWTEncoderRegistration::cleanup();
      DPCWTCleanupDecoders();
      return EXITCODE_FATAL;
    }
    for (const std::string& p : walk.problems) OFLOG_ERROR(recmpLogger, p);
    if (!walk.problems.empty()) status = EXITCODE_FILES_FAILED;
    std::uint64_t totalBytes = 0;
    for (const DPRCEntry& e : walk.files) totalBytes += e.size;
    OFLOG_INFO(recmpLogger, walk.files.size() << " files (" << DPRCBytes(double(totalBytes)) << ") to look at"
      << (opt_shardCount > 1 ? " in shard " + std::to_string(opt_shardIndex) + "/" + std::to_string(opt_shardCount) +
          " (" + std::to_string(walk.otherShards) + " in other shards)" : std::string())
      << ", " << opt_threads << " threads" << (opt.dryRun ? ", dry run" : ""));

    // temporary files of an interrupted run (SIGKILL, power loss): never a file's only copy
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
      if (opt.dryRun)
        OFLOG_INFO(recmpLogger, "would remove the temporary file of an interrupted run: " << t);
      else if (unlink(t.c_str()) == 0)
      {
        ++cleaned;
        OFLOG_INFO(recmpLogger, "removed the temporary file of an interrupted run: " << t);
      }
      else
        OFLOG_WARN(recmpLogger, "cannot remove the temporary file " << t << ": " << std::strerror(errno));
    }

    DPRC_ProgressMode mode = opt_progress < 0 ? (isatty(2) ? DPRCPM_bar : DPRCPM_lines)
                                              : static_cast<DPRC_ProgressMode>(opt_progress);
    DPRCProgress progress(mode, walk.files.size(), totalBytes);
    std::vector<DPRCResult> results(walk.files.size());
    DPRCPipelineOptions popt;
    popt.readers = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(opt_threads, walk.files.size())));
    popt.writers = popt.readers;
    popt.cpuCoderThreads = opt_threads;
    popt.batchFrames = static_cast<size_t>(opt_batchFrames);
    popt.batchBytes = static_cast<std::uint64_t>(opt_batchMB) << 20;
    popt.batchWaitMs = static_cast<unsigned>(opt_batchWait);
    popt.commitGroup = static_cast<unsigned>(opt_commitGroup);
    popt.codersPerDevice = static_cast<unsigned>(opt_codersPerGpu);
    popt.backend = opt_backend;
    popt.devices = opt_devices;
    popt.decodeBackend = opt_verifyGpu ? opt_backend : PCWT_BACKEND_CPU;
    popt.verifyBatches = opt_verifyGpu; // the copies of several writers decoded together
    popt.maxSamplesPerFrame = kMaxSamplesPerFrame;
    popt.params.levels = PCWT_DEFAULT_LEVELS;
    popt.params.group_rows = popt.params.group_cols = 0; // the profile's size
    popt.params.profile = opt_profile; // the batch coder codes what the plugin's encoder would
    OFLOG_INFO(recmpLogger, (popt.batchFrames && opt.target == DPRCT_pcwt
      ? "batches of up to " + std::to_string(popt.batchFrames) + " frames / " + std::to_string(opt_batchMB) +
        " MB, batch coders on " + (opt_devices.empty() ? std::string("the default device")
                                                       : std::to_string(opt_devices.size()) + " GPU(s)") +
        (opt_codersPerGpu ? ", " + std::to_string(opt_codersPerGpu) + " per device" : std::string())
      : std::string("no batch coder: each file coded on its own")));
    DPRCPipelineStats pstats;
    std::string perror;
    progress.start();
    const bool started = DPRCRunPipeline(walk.files, opt, popt, [&](size_t i, DPRCResult& r) {
          progress.add(r);
          progress.print([&]() {
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
          });
          results[i] = std::move(r);
        }, pstats, perror);
    if (!started)
    {
      progress.stop();
      OFLOG_FATAL(recmpLogger, "cannot start: " << perror);
      DPCWTEncoderRegistration::cleanup();
      DPCWTCleanupDecoders();
      return EXITCODE_FATAL;
    }
    OFLOG_DEBUG(recmpLogger, "batch coder: " << pstats.calls << " calls, " << pstats.frames << " frames of "
      << pstats.files << " files; the writers took " << pstats.framesTaken << " frames from batches and coded "
      << pstats.framesCodedByWriters << " themselves");
    progress.stop();

    // DICOMDIRs: records of files now in the target transfer syntax get its UID (also those of an
    // interrupted earlier run; nothing changes when nothing is to change)
    std::uint64_t dicomdirRecords = 0;
    for (size_t k = 0; k < walk.dicomdirs.size() && k < walk.dicomdirRels.size(); ++k)
    {
      DPRCEntry de;
      de.path = walk.dicomdirs[k];
      de.rel = walk.dicomdirRels[k];
      de.size = 0;
      de.symlink = false;
      const std::string target = DPRCOutputPath(de, opt);
      struct stat dst;
      if (lstat(target.c_str(), &dst) != 0 || !S_ISREG(dst.st_mode))
      {
        OFLOG_INFO(recmpLogger, "DICOMDIR " << target << " not there"
          << (opt.outputDir.empty() ? std::string() : std::string(" (--copy-others copies it into the output tree)"))
          << ": not updated");
        continue;
      }
      const DPRCDicomdirUpdate u = DPRCUpdateDicomdir(target, opt.target, opt.dryRun, 0);
      if (!u.error.empty())
      {
        OFLOG_ERROR(recmpLogger, "failed: DICOMDIR " << target << ": " << u.error << " (left as it was)");
        status = EXITCODE_FILES_FAILED;
      }
      else if (u.records)
        OFLOG_INFO(recmpLogger, (opt.dryRun ? "would update " : "updated ") << u.records
          << " record(s) of DICOMDIR " << target << " to the new transfer syntax");
      dicomdirRecords += u.records;
    }

    DPRCSummary sum = progress.summary();
    sum.cleanedTemps = cleaned;
    sum.codeCalls = pstats.calls;
    sum.codedFrames = pstats.frames;
    sum.codedFiles = pstats.files;
    sum.verifierBatches = pstats.verifierBatches;
    sum.verifiedFrames = pstats.verifiedFrames;
    sum.verifiedFiles = pstats.verifiedFiles;
    sum.dicomdirRecords = dicomdirRecords;
    sum.stageSeconds = DPRCStageSeconds();
    DPRCTimelineMark("summary");
    sum.timeline = DPRCTimeline();
    // a file that changed under the run is not done: exit status 2, as for failures, so that it is run again
    if (sum.byStatus[DPRCST_failed] || sum.byStatus[DPRCST_skippedChanged]) status = EXITCODE_FILES_FAILED;
    COUT << DPRCSummaryText(sum, opt.dryRun) << OFendl;
    if (opt_stats)
      COUT << DPRCStageText(sum, popt.readers, pstats.coders, opt.dryRun ? 0u : popt.writers, pstats.verifiers)
           << OFendl;
    if (opt_report)
    {
      std::string error;
      if (!DPRCWriteReport(opt_report, results, sum, opt.dryRun, error))
      {
        OFLOG_FATAL(recmpLogger, "cannot write the report: " << error);
        if (status == EXITCODE_NO_ERROR) status = EXITCODE_FATAL;
      }
      else
        OFLOG_INFO(recmpLogger, "report written to " << opt_report);
    }
  }

  DPCWTEncoderRegistration::cleanup();
  DPCWTCleanupDecoders();
  if (opt_stats)
  {
    DPRCTimelineMark("cleanup");
    const std::vector<std::pair<std::string, double> > t = DPRCTimeline();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", t.back().second);
    COUT << "timeline: " << t.back().first << " " << buf << OFendl;
  }
  return status;
}
