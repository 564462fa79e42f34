/*
 *  Module:  archive
 *
 *  Purpose: pcwt-recompress: what its command line (options.cc), its run (run.cc) and main()
 *           (main.cc) share.
 */

#ifndef PCWT_ARCHIVE_RECOMPRESS_H
#define PCWT_ARCHIVE_RECOMPRESS_H

#include "dcmtk/config/osconfig.h"

#include "dcmtk/ofstd/ofcmdln.h"

#include "engine.h"
#include "lock.h"
#include "pipeline.h"
#include "pcwt.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "pcwt-recompress"
#endif

#define EXITCODE_NO_ERROR       0  /* every file recompressed, skipped or left as unsupported */
#define EXITCODE_FATAL          1  /* command line, nothing to do, report cannot be written */
#define EXITCODE_FILES_FAILED   2  /* at least one file (or folder) failed */

/// the decoders' limit of samples per frame (the PCWT codec's and the verifier's)
static const std::uint64_t kMaxSamplesPerFrame = std::uint64_t(1) << 30;

/// the tool's version line ($dcmtk: pcwt-recompress v... $)
extern const char RecompressRcsid[];

/// what the command line asks for
struct RecompressOptions
{
  /// what is done with each file
  DPRCOptions file;
  /// threads reading (as many write); CPU cores by default, half of them with GPUs
  unsigned threads = 0;
  bool threadsGiven = false;
  unsigned shardIndex = 0;
  unsigned shardCount = 1;
  pcwt_backend backend = PCWT_BACKEND_AUTO;
  /// --gpus as given, and the devices it names (without it: device 0 when a GPU is there)
  std::string gpus;
  std::vector<int> devices;
  OFCmdUnsignedInt batchFrames = 1024;
  OFCmdUnsignedInt batchMB = 32;
  OFCmdUnsignedInt batchWait = 20;
  OFCmdUnsignedInt commitGroup = 64;
  OFCmdUnsignedInt codersPerGpu = 0;
  OFCmdUnsignedInt verifiersPerGpu = 0;
  /// --verify-gpu, --verify-cpu (default: the coding backend's verifier when it is a GPU)
  DPRC_VerifyMode verify = DPRCVM_auto;
  /// --verify-sample: the CPU decoder's sample, one frame in n (0: none)
  OFCmdUnsignedInt verifySample = kDPRCDefaultVerifySample;
  pcwt_profile profile = PCWT_PROFILE_COMPACT;
  /// --j2k-decoder: who decodes JPEG 2000 input (auto: the GPU when the batch coders are on one)
  DPRC_J2KDecoder j2kDecoder = DPRCJD_auto;
  /// --j2k-batch-mb: a GPU decoding batch's samples
  OFCmdUnsignedInt j2kBatchMB = 256;
  /// --j2k-decoders-per-gpu
  OFCmdUnsignedInt j2kDecodersPerGpu = 2;
  bool stats = false;
  /// a DPRC_ProgressMode, -1: a bar on a terminal, else lines
  int progress = -1;
  /// --report and its file name
  bool reportGiven = false;
  std::string report;
  std::vector<std::string> inputs;
};

/// the run locks held, by folder
typedef std::map<std::string, std::unique_ptr<DPRCRunLock> > RecompressLocks;

/** parse the command line (errors and --help end the process there)
 *  @return false when the tool is to exit at once with status 0 (--version)
 */
bool RecompressParseCommandLine(int argc, char *argv[], RecompressOptions& o);

/// no --gpus with a GPU there is --gpus 1; --gpus without a CUDA build is the CPU; GPUs leave half
/// the threads (run.cc)
void RecompressAdjustThreads(RecompressOptions& o);

/** CUDA_VISIBLE_DEVICES, unless set, to the devices the run uses when they are 0 .. N-1 (their
 *  numbers unchanged), before anything starts CUDA (run.cc)
 */
void RecompressShowOnlyTheGpusUsed(const RecompressOptions& o);

/// false (logged) when the output tree lies inside an input or contains one (run.cc)
bool RecompressCheckOutputTree(const RecompressOptions& o);

/// the run lock of each folder worked on; false (logged) when another run holds one (run.cc)
bool RecompressLockFolders(const RecompressOptions& o, RecompressLocks& locks);

/// the codecs registered as the options ask (run.cc)
void RecompressRegisterCodecs(const RecompressOptions& o);

/** walk, recompress, update the DICOMDIRs and report (run.cc)
 *  @param status set to EXITCODE_FILES_FAILED (or EXITCODE_FATAL for the report) as files fail
 *  @return false (logged) when the run could not start: exit status EXITCODE_FATAL
 */
bool RecompressRun(const RecompressOptions& o, const RecompressLocks& locks, int& status);

#endif
