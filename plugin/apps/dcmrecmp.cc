/*
 *  Module:  dcmpcwt
 *
 *  Purpose: pcwt-recompress: recompress every DICOM image below one or more folders (or referenced
 *           by a DICOMDIR) to the PCWT private transfer syntax, to JPEG-LS Lossless or back to
 *           uncompressed, in place or into a mirrored output tree.
 *
 *  Safe under faults: a file is replaced only by a complete copy that was flushed to disk, decoded
 *  and compared sample by sample with the original (dprcfile.h). Resumable: files already in the
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
#include "dprcfile.h"
#include "dprcrep.h"
#include "dprcwalk.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "pcwt-recompress"
#endif

static OFLogger recmpLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

#define EXITCODE_NO_ERROR       0  /* every file recompressed, skipped or left as unsupported */
#define EXITCODE_FATAL          1  /* command line, nothing to do, report cannot be written */
#define EXITCODE_FILES_FAILED   2  /* at least one file (or folder) failed */

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

int main(int argc, char *argv[])
{
  DPRCOptions opt;
  unsigned opt_threads = std::thread::hardware_concurrency();
  if (opt_threads == 0) opt_threads = 2;
  unsigned opt_shardIndex = 0, opt_shardCount = 1;
  pcwt_backend opt_backend = PCWT_BACKEND_AUTO;
  long opt_gpus = -1;
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

  cmd.addGroup("where the results go:");
    cmd.addOption("--in-place",                 "+ip",    "replace each file by its verified copy (default)");
    cmd.addOption("--keep-originals",           "+ko",    "in place: keep each original as NAME.pcwt-orig");
    cmd.addOption("--output",                   "+od", 1, "[d]irectory: string",
                                                          "write into a mirrored tree below d instead;\nthe inputs are not changed");
    cmd.addOption("--copy-others",              "+co",    "with --output: copy files that are not\nrecompressed unchanged");
    cmd.addOption("--dry-run",                  "-n",     "report what would be done, write nothing");

  cmd.addGroup("processing options:");
    cmd.addOption("--threads",                  "+j",  1, "[n]umber: integer (default: CPU cores)",
                                                          "worker threads reading, coding, writing");
    cmd.addOption("--shard",                    "+sh", 1, "[i]/[n]: shard i of n (0 <= i < n)",
                                                          "only the files whose relative path hashes\nto i modulo n (Slurm arrays, k8s Jobs)");
    cmd.addOption("--backend-auto",             "+ba",    "GPU when available, else CPU (default)");
    cmd.addOption("--backend-cpu",              "+bc",    "always use the CPU codec");
    cmd.addOption("--backend-gpu",              "+bg",    "always use the GPU codec (fail without one)");
    cmd.addOption("--gpus",                     "+g",  1, "[n]umber: integer",
                                                          "0: CPU codec; 1 or more: GPU codec (one GPU\nper process: see docs/recompress.md)");

  cmd.addGroup("progress and report:");
    cmd.addOption("--progress-auto",            "+pa",    "a bar on a terminal, else lines (default)");
    cmd.addOption("--progress-bar",             "+pb",    "always a progress bar");
    cmd.addOption("--progress-lines",           "+pl",    "a plain progress line every 10 seconds");
    cmd.addOption("--no-progress",              "-p",     "no progress display");
    cmd.addOption("--report",                   "+r",  1, "[f]ilename: string",
                                                          "write a report of every file:\nCSV when f ends in .csv, JSON otherwise");

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

    if (cmd.findOption("--threads"))
    {
      OFCmdUnsignedInt t = 0;
      app.checkValue(cmd.getValueAndCheckMinMax(t, 1, 1024));
      opt_threads = static_cast<unsigned>(t);
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
      OFCmdSignedInt g = 0;
      app.checkValue(cmd.getValueAndCheckMinMax(g, 0, 64));
      opt_gpus = static_cast<long>(g);
      opt_backend = opt_gpus == 0 ? PCWT_BACKEND_CPU : PCWT_BACKEND_GPU;
    }

    cmd.beginOptionBlock();
    if (cmd.findOption("--progress-auto")) opt_progress = -1;
    if (cmd.findOption("--progress-bar")) opt_progress = DPRCPM_bar;
    if (cmd.findOption("--progress-lines")) opt_progress = DPRCPM_lines;
    if (cmd.findOption("--no-progress")) opt_progress = DPRCPM_none;
    cmd.endOptionBlock();
    if (cmd.findOption("--report")) app.checkValue(cmd.getValue(opt_report));
  }

  OFLOG_DEBUG(recmpLogger, rcsid << OFendl);
  if (!dcmDataDict.isDictionaryLoaded())
    OFLOG_WARN(recmpLogger, "no data dictionary loaded, check environment variable: " << DCM_DICT_ENVIRONMENT_VARIABLE);
  if (opt_gpus > 1)
    OFLOG_WARN(recmpLogger, "--gpus " << opt_gpus << ": one process drives one GPU; run one process per GPU "
      "with CUDA_VISIBLE_DEVICES and --shard (docs/recompress.md)");

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

  // codecs: every decoder DCMTK 3.6.7 has, PCWT's, and the encoders
  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, 1) << 30, OFFalse);
  DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, opt.acceptLossy ? OFTrue : OFFalse,
    PCWT_DEFAULT_LEVELS, PCWT_DEFAULT_GROUP, PCWT_DEFAULT_GROUP, opt_backend, OFTrue /* JPEG-LS */);

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
    for (const std::string& t : walk.staleTemps)
    {
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
    const unsigned workers = static_cast<unsigned>(
      std::max<size_t>(1, std::min<size_t>(opt_threads, walk.files.size())));
    DPRCInstallSignalHandlers(workers);
    std::atomic<size_t> next(0);
    progress.start();
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
    {
      pool.emplace_back([&, w]() {
        for (;;)
        {
          const size_t i = next.fetch_add(1);
          if (i >= walk.files.size()) break;
          DPRCResult r = DPRCProcess(walk.files[i], opt, w);
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
              case DPRCST_done:
                OFLOG_INFO(recmpLogger, "recompressed: " << r.path << " (" << r.inBytes << " -> " << r.outBytes
                  << " bytes, " << r.inXfer << " -> " << r.outXfer << ")");
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
        }
      });
    }
    for (std::thread& t : pool) t.join();
    progress.stop();

    DPRCSummary sum = progress.summary();
    sum.cleanedTemps = cleaned;
    if (sum.byStatus[DPRCST_failed]) status = EXITCODE_FILES_FAILED;
    COUT << DPRCSummaryText(sum, opt.dryRun) << OFendl;
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
  return status;
}
