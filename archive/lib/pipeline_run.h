/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): what the stages of one run share
 *           (Run), for pipeline.cc and the JPEG 2000 stages (j2kstages.cc).
 */

#ifndef PCWT_ARCHIVE_PIPELINE_RUN_H
#define PCWT_ARCHIVE_PIPELINE_RUN_H

#include "dcmtk/config/osconfig.h"
#include "pipeline.h"

#include "arena.h"
#include "coder.h"
#include "devices_up.h"
#include "gate.h"
#include "j2kdecode.h"
#include "queue.h"
#include "verifier.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dprc {

/// what the stages of one run share: the handles, the queues between the stages and the memory
/// budget. Declared in the order they are made, so that they go in the reverse order.
struct Run
{
  Run(const std::vector<DPRCEntry>& f, const DPRCOptions& o, const DPRCPipelineOptions& po,
      const std::function<void(std::size_t, DPRCResult&)>& d, DPRCPipelineStats& s)
    : files(f), opt(o), p(po), done(d), stats(s)
  {
  }

  const std::vector<DPRCEntry>& files;
  const DPRCOptions& opt;
  const DPRCPipelineOptions& p;
  const std::function<void(std::size_t, DPRCResult&)>& done;
  DPRCPipelineStats& stats;

  unsigned readers = 1;
  unsigned writers = 0;
  /// the files' indices in the order they are read (empty: the walk's; planStages)
  std::vector<std::size_t> order;
  bool batching = false;
  std::vector<int> devices;
  /** before the gate opens the readers stop before decoding JPEG 2000 when the GPU may decode it
   *  (toJ2K; j2kPassStage when it does not), and with --copy-others they wait for it
   */
  bool mayDeferJ2K = false;
  bool copiesWhileReading = false;
  StartGate gate;
  /// the devices whose batch coders, and whose verifiers, are up (bringUp): they take work
  DevicesUp codersUp, verifiersUp;
  std::atomic<std::size_t> devicesUp{0}, codersWarm{0};

  // makeHostHandles(): the readers' and writers' coders, the finishers' (with mayDeferJ2K)
  std::vector<std::unique_ptr<ThreadCoder> > lent;
  std::vector<std::unique_ptr<J2KAheadCoder> > finishCoders;

  // makeDeviceHandles(), beside the first reads
  std::vector<std::unique_ptr<BatchCoder> > coders;
  std::shared_ptr<ArenaPool> arenas;
  bool gpuCoders = false;
  std::uint64_t budgetBytes = 0;
  bool verifying = false;
  std::vector<std::unique_ptr<BatchVerifier> > verifiers;
  std::uint64_t verifyBytes = 0;
  // JPEG 2000 input decoded on the GPU: batch decoders on each device
  bool j2kGpu = false;
  /// (not the CPU standing in for the device: PCWT_RECOMPRESS_J2K_STANDIN)
  bool j2kOnDevice = false;
  std::vector<std::unique_ptr<J2KBatchDecoder> > j2kDecoders;
  /// the decoders' and the finishers' threads started (startJ2K: before the
  /// gate opens, the finishers' results held by it)
  bool j2kStarted = false, finishersStarted = false;

  // connectStages()
  unsigned group = 1;
  Queue<Work> toCoder, toWriter;
  std::unique_ptr<Budget> budget;
  std::shared_ptr<ArenaPool> samples;
  std::atomic<std::size_t> next{0};
  // --stats' timeline: the first of each (a flag each, not the timeline's lock for every file)
  std::atomic<bool> firstRead{false}, firstBatch{false}, firstWritten{false}, firstVerdict{false};
  std::atomic<bool> firstJ2K{false}, j2kWarm{false}, firstFinished{false};
  Queue<VerifyRequest> toVerifier;
  std::shared_ptr<ArenaPool> codestreams;
  std::unique_ptr<VerifyClient> verifyClient;
  std::atomic<unsigned> readersLeft{0}, codersLeft{0}, writersLeft{0};
  std::mutex verifyFill;
  Queue<J2KWork> toJ2K, toFinish;
  std::shared_ptr<ArenaPool> j2kSamples;
  /// ready once the first batch buffers made at the start are in j2kSamples (startJ2KBuffers)
  std::shared_future<void> j2kBuffers;
  std::atomic<unsigned> j2kLeft{0}, finishersLeft{0}, j2kBatches{0};
  std::mutex statsMutex;
};

/// a timeline mark for the first time only
inline void once(std::atomic<bool>& seen, const char *what)
{
  if (!seen.exchange(true, std::memory_order_relaxed)) DPRCTimelineMark(what);
}

// The JPEG 2000 stages (j2kstages.cc): JPEG 2000 input decoded on the GPU.

/** the batch decoders on each device when the GPU decodes JPEG 2000 input (DPRCJ2KOnGpu), their
 *  threads and the finishers' started at once (each decoder warms first): they
 *  decode and finish what the readers hand on while the other handles are made and warmed; the
 *  finishers' results wait for the gate (StartGate::hold), as the readers' do
 *  @return false (error) when a decoder cannot be made
 */
bool startJ2K(Run& run, std::vector<std::thread>& threads, std::string& error);
/// the JPEG 2000 stages after the gate opened: those not started yet (without the GPU's
/// decoding: the stage handing on the files read before the gate) and the finishers
void startJ2KFinishers(Run& run, std::vector<std::thread>& threads);
/** with JPEG 2000 input that the GPU may decode, on the first device: its batch decoders'
 *  first page-locked buffers made on threads of their own from the first JPEG 2000 file read,
 *  so that their pages are committed while the CUDA context comes up (their registration,
 *  a tenth of the time, follows it), and one more for the batch after (each about 70 ms when
 *  the decoder waited for it: bench/results/gpu-h200-2026-11-29-session13-j2k-folder.md)
 */
void startJ2KBuffers(Run& run, std::vector<std::thread>& threads);
/// when the run does not start: the decoders stopped and joined, what they held dropped
void dropJ2K(Run& run, std::vector<std::thread>& threads);

/// every device brought up (bringup.cc), each on a thread of its own (in threads) when there is
/// something to wait for, the first device's stages taking work as soon as it is up
void startBringUp(Run& run, std::vector<std::thread>& threads);

/** the end of the run's handles and buffers (teardown.cc): they leave the run and are freed
 *  together, or handed to p.keepHandles
 */
void endHandles(Run& run);

} // namespace dprc

#endif
