/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: counting, the progress display (a bar on a terminal,
 *           plain lines otherwise), the final summary and the JSON/CSV report.
 */

#ifndef PCWT_ARCHIVE_REPORT_H
#define PCWT_ARCHIVE_REPORT_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

/// the totals of a run
struct DPRCSummary
{
  std::uint64_t files = 0;         // files looked at
  std::uint64_t byStatus[DPRCST_failed + 1] = {};
  std::uint64_t inBytes = 0;       // bytes of all files looked at
  std::uint64_t doneInBytes = 0;   // bytes of the recompressed files before
  std::uint64_t doneOutBytes = 0;  // and after
  std::uint64_t pixelBytes = 0;    // uncompressed pixel data of the recompressed files
  std::uint64_t cleanedTemps = 0;  // temporary files of interrupted runs removed
  std::uint64_t codeCalls = 0;     // batch coder: pcwt_encode_batch calls (with the GPU: one per batch)
  std::uint64_t codedFrames = 0;   //   frames and files they coded together
  std::uint64_t codedFiles = 0;
  std::uint64_t verifierBatches = 0; // verifiers: batches (with the GPU: a pcwt_verify_batch call each)
  std::uint64_t verifiedFrames = 0; //   frames and files (copies read back) they decoded together
  std::uint64_t verifiedFiles = 0;
  bool verifierGpu = false;         //   on a GPU (else the CPU stood in for the coding backend)
  std::uint64_t sampledFrames = 0;  //   of those frames, the ones the CPU decoder checked too,
  unsigned sampleEvery = 0;         //   one in sampleEvery (0: no verifier stage, or no sample)
  std::uint64_t dicomdirRecords = 0; // DICOMDIR records updated to the new transfer syntax
  std::uint64_t j2kGpuFrames = 0;   // JPEG 2000 input frames decoded on the GPU (in j2kCalls
  std::uint64_t j2kCalls = 0;       //   pcwt_decode_batch calls), by OpenJPEG, by libpcwt on the CPU
  std::uint64_t j2kOpenjpegFrames = 0;
  std::uint64_t j2kCpuLibraryFrames = 0;
  double seconds = 0.0;
  /// thread-seconds per stage (index: DPRC_Stage; empty: not recorded)
  std::vector<double> stageSeconds;
  /// moments of the run (DPRCTimeline(): name, seconds since the start; empty: not recorded)
  std::vector<std::pair<std::string, double> > timeline;
};

/// how progress is shown
enum DPRC_ProgressMode
{
  DPRCPM_none,
  DPRCPM_bar,
  DPRCPM_lines
};

/** counts results and shows progress on stderr from its own thread. Every message printed while
 *  the bar is shown must go through print(), which clears the bar line first.
 */
class DPRCProgress
{
public:
  DPRCProgress(DPRC_ProgressMode mode, std::uint64_t totalFiles, std::uint64_t totalBytes,
               double lineInterval = 10.0);
  ~DPRCProgress();

  /// start the display thread
  void start();
  /// stop it and clear the bar
  void stop();

  /// count one result (thread-safe)
  void add(const DPRCResult& r);

  /// run fn (which writes to stderr) with the bar line cleared
  void print(const std::function<void()>& fn);

  /// the totals so far
  DPRCSummary summary();

private:
  void loop();
  std::string line(bool bar);

  DPRC_ProgressMode mode_;
  std::uint64_t totalFiles_;
  std::uint64_t totalBytes_;
  double lineInterval_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_;
  bool barShown_;
  std::thread thread_;
  DPRCSummary sum_;
  std::chrono::steady_clock::time_point start_;
};

/** which verification ran, for the summary: "GPU all N frames + CPU k of N frames (sample of 1
 *  in 64)", or the CPU decoder in each writer for every frame
 */
std::string DPRCVerificationText(const DPRCSummary& s);

/// a human readable summary, several lines
std::string DPRCSummaryText(const DPRCSummary& s, bool dryRun);

/** the time of each stage (--stats): thread-seconds and their share of the threads of its kind
 *  (readers, batch coders, writers, verifiers, JPEG 2000 batch decoders, finishers) over the
 *  run's seconds, several lines (a kind without threads: none)
 */
std::string DPRCStageText(const DPRCSummary& s, unsigned readers, unsigned coders, unsigned writers,
                          unsigned verifiers = 0, unsigned j2kDecoders = 0, unsigned finishers = 0);

/** write the report: CSV when path ends in .csv, JSON otherwise (written to a temporary file
 *  and renamed)
 */
bool DPRCWriteReport(const std::string& path, const std::vector<DPRCResult>& results, const DPRCSummary& s,
                     bool dryRun, std::string& error);

/// "12.3 MB" and the like
std::string DPRCBytes(double bytes);

#endif
