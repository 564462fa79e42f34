/*
 *  Module:  archive
 *
 *  Purpose: pcwt-recompress: its command line (recompress.h).
 */

#include "dcmtk/config/osconfig.h"
#include "recompress.h"

#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/dcmdata/cmdlnarg.h"
#include "dcmtk/ofstd/ofconapp.h"
#include "dcmtk/ofstd/ofstd.h"
#include "dcmtk/dcmdata/dcuid.h"      /* for dcmtk version name */

#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dputil.h"
#include "dpappopt.h"
#include "report.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

const char RecompressRcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

#define SHORTCOL 3
#define LONGCOL 21

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

bool RecompressParseCommandLine(int argc, char *argv[], RecompressOptions& o)
{
  o.threads = std::thread::hardware_concurrency();
  if (o.threads == 0) o.threads = 2;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION,
    "Recompress the DICOM images of folders to PCWT lossless (or JPEG-LS, or uncompressed), safely", RecompressRcsid);
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
    cmd.addOption("--threads",                  "+j",  1, "[n]umber: integer (default: CPU cores,\nhalf of them with a GPU)",
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
    cmd.addOption("--coders-per-gpu",           "+cp", 1, "[n]umber: integer (default: 2 on a GPU)",
                                                          "batch coder threads per device, each with its\nown encoder: one stages and lays out a batch\nwhile another's is on the GPU");
    cmd.addOption("--batch-wait",               "+bw", 1, "[m]illiseconds: integer (default: 20)",
                                                          "how long a batch that is not full waits for\nthe next file");
    cmd.addOption("--commit-group",             "+cg", 1, "[n]umber: integer (default: 64)",
                                                          "a writer flushes and renames up to n verified\ncopies together, then flushes their folders\nonce (1: each file on its own)");
    cmd.addOption("--j2k-decoder",              "+jd", 1, "[d]ecoder: auto, gpu or cpu (default: auto)",
                                                          "JPEG 2000 input: gpu decodes the frames of\nmany files in one libpcwt call on the GPU\n(OpenJPEG what it does not take: HTJ2K, lossy);\ncpu: OpenJPEG on the reading threads; auto:\nthe GPU when the PCWT coder is on one");
    cmd.addOption("--j2k-batch-mb",             "+jb", 1, "[n]umber: integer (default: 256)",
                                                          "--j2k-decoder gpu: decode the JPEG 2000 frames\nof up to about n MB of samples in one call");
    cmd.addOption("--j2k-decoders-per-gpu",     "+jp", 1, "[n]umber: integer (default: 2)",
                                                          "--j2k-decoder gpu: batch decoder threads per\ndevice, one parsing a batch while another's\nis on the GPU");
    cmd.addOption("--verify-gpu",               "+vg",    "verify (decode the new copies, every frame) with\nthe coding backend, the copies of several\nwriters in one call, and a sample of the frames\nwith the CPU decoder (default when the GPU\ncodes; on the CPU, CPU decoders stand in)");
    cmd.addOption("--verify-cpu",               "+vc",    "verify every frame with the CPU decoder, in each\nwriter (default when the CPU codes)");
    cmd.addOption("--verifiers-per-gpu",        "+vp", 1, "[n]umber: integer (default: 4 on a GPU)",
                                                          "with --verify-gpu: verifier threads per device,\neach with its own decoder");
    cmd.addOption("--verify-sample",            "+vs", 1, "[n]umber: integer (default: 64)",
                                                          "with --verify-gpu: the CPU decoder checks one\nframe in n too, the same frames in every run\n(0: none, 1: all)");

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
      return false;
    const int n = cmd.getParamCount();
    for (int i = 1; i <= n; ++i)
    {
      const char *p = NULL;
      cmd.getParam(i, p);
      if (p && *p) o.inputs.push_back(p);
    }
    OFLog::configureFromCommandLine(cmd, app);

    cmd.beginOptionBlock();
    if (cmd.findOption("--encode-pcwt")) o.file.target = DPRCT_pcwt;
    if (cmd.findOption("--encode-jpegls")) o.file.target = DPRCT_jpegls;
    if (cmd.findOption("--decompress")) o.file.target = DPRCT_uncompressed;
    cmd.endOptionBlock();
    DPCWTEvaluateProfileOption(app, cmd, o.profile,
      o.file.target == DPRCT_jpegls ? "--encode-jpegls" : "--decompress", o.file.target != DPRCT_pcwt);
    if (cmd.findOption("--accept-lossy")) o.file.acceptLossy = true;

    cmd.beginOptionBlock();
    if (cmd.findOption("--in-place")) o.file.outputDir.clear();
    if (cmd.findOption("--output"))
    {
      const char *d = NULL;
      app.checkValue(cmd.getValue(d));
      o.file.outputDir = d ? d : "";
      while (o.file.outputDir.size() > 1 && o.file.outputDir.back() == '/') o.file.outputDir.pop_back();
      if (o.file.outputDir.empty()) app.printError("--output needs a folder");
    }
    cmd.endOptionBlock();
    if (cmd.findOption("--keep-originals"))
    {
      app.checkConflict("--keep-originals", "--output", !o.file.outputDir.empty());
      o.file.keepOriginals = true;
    }
    if (cmd.findOption("--copy-others"))
    {
      app.checkDependence("--copy-others", "--output", !o.file.outputDir.empty());
      o.file.copyOthers = true;
    }
    if (cmd.findOption("--dry-run")) o.file.dryRun = true;
    if (cmd.findOption("--keep-smaller")) o.file.keepSmaller = true;
    if (const char *fault = std::getenv("PCWT_RECOMPRESS_FAULT")) o.file.testFault = fault;

    if (cmd.findOption("--threads"))
    {
      OFCmdUnsignedInt t = 0;
      app.checkValue(cmd.getValueAndCheckMinMax(t, 1, 1024));
      o.threads = static_cast<unsigned>(t);
      o.threadsGiven = true;
    }
    if (cmd.findOption("--shard"))
    {
      const char *s = NULL;
      app.checkValue(cmd.getValue(s));
      if (!s || !parseShard(s, o.shardIndex, o.shardCount))
        app.printError("--shard needs I/N with 0 <= I < N, e.g. --shard 3/16");
    }
    cmd.beginOptionBlock();
    if (cmd.findOption("--backend-auto")) o.backend = PCWT_BACKEND_AUTO;
    if (cmd.findOption("--backend-cpu")) o.backend = PCWT_BACKEND_CPU;
    if (cmd.findOption("--backend-gpu")) o.backend = PCWT_BACKEND_GPU;
    cmd.endOptionBlock();
    if (cmd.findOption("--gpus"))
    {
      const char *gpus = NULL;
      app.checkValue(cmd.getValue(gpus));
      o.gpus = gpus ? gpus : "";
      std::string error;
      if (!parseGpus(gpus, o.devices, error)) app.printError(error.c_str());
      o.backend = o.devices.empty() ? PCWT_BACKEND_CPU : PCWT_BACKEND_GPU;
    }
    if (cmd.findOption("--j2k-decoder"))
    {
      const char *d = NULL;
      app.checkValue(cmd.getValue(d));
      if (!DPRCJ2KDecoderFromName(d, o.j2kDecoder))
        app.printError(("--j2k-decoder needs auto, gpu or cpu, not \"" + std::string(d ? d : "") + "\"").c_str());
    }
    if (cmd.findOption("--j2k-batch-mb")) app.checkValue(cmd.getValueAndCheckMinMax(o.j2kBatchMB, 1, 1048576));
    if (cmd.findOption("--j2k-decoders-per-gpu"))
      app.checkValue(cmd.getValueAndCheckMinMax(o.j2kDecodersPerGpu, 1, 16));
    if (cmd.findOption("--batch-frames")) app.checkValue(cmd.getValueAndCheckMinMax(o.batchFrames, 0, 1000000));
    if (cmd.findOption("--batch-mb")) app.checkValue(cmd.getValueAndCheckMinMax(o.batchMB, 1, 1048576));
    cmd.beginOptionBlock();
    if (cmd.findOption("--verify-gpu")) o.verify = DPRCVM_backend;
    if (cmd.findOption("--verify-cpu")) o.verify = DPRCVM_writers;
    cmd.endOptionBlock();
    if (cmd.findOption("--verify-sample"))
    {
      app.checkConflict("--verify-sample", "--verify-cpu", o.verify == DPRCVM_writers);
      app.checkValue(cmd.getValueAndCheckMinMax(o.verifySample, 0, 1000000));
    }
    if (cmd.findOption("--commit-group")) app.checkValue(cmd.getValueAndCheckMinMax(o.commitGroup, 1, 4096));
    if (cmd.findOption("--batch-wait")) app.checkValue(cmd.getValueAndCheckMinMax(o.batchWait, 0, 600000));
    if (cmd.findOption("--coders-per-gpu")) app.checkValue(cmd.getValueAndCheckMinMax(o.codersPerGpu, 1, 16));
    if (cmd.findOption("--verifiers-per-gpu"))
    {
      app.checkConflict("--verifiers-per-gpu", "--verify-cpu", o.verify == DPRCVM_writers);
      app.checkValue(cmd.getValueAndCheckMinMax(o.verifiersPerGpu, 1, 16));
    }

    cmd.beginOptionBlock();
    if (cmd.findOption("--progress-auto")) o.progress = -1;
    if (cmd.findOption("--progress-bar")) o.progress = DPRCPM_bar;
    if (cmd.findOption("--progress-lines")) o.progress = DPRCPM_lines;
    if (cmd.findOption("--no-progress")) o.progress = DPRCPM_none;
    cmd.endOptionBlock();
    if (cmd.findOption("--report"))
    {
      const char *report = NULL;
      app.checkValue(cmd.getValue(report));
      o.reportGiven = report != NULL;
      o.report = report ? report : "";
    }
    if (cmd.findOption("--stats")) o.stats = true;
  }
  return true;
}
