/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the JPEG 2000 stages, for input
 *           decoded on the GPU (j2kdecode.h): readers -> batch decoders -> finishers -> batch
 *           coders. The batch decoders start as soon as they are made, before the other
 *           devices' handles, so that the first batches are decoded while those are made and
 *           warmed (pipeline_run.h).
 */

#include "dcmtk/config/osconfig.h"
#include "pipeline_run.h"

#include "dcmpcwt/dpthrcod.h"
#include "dpmodule.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <thread>

namespace dprc {

namespace {

/// the JPEG 2000 batch buffers kept: one for each decoder's batch and one more, which the next
/// batch takes while the files of the one before are finished
std::size_t keptJ2KBuffers(const DPRCPipelineOptions& p) { return std::max(1u, p.j2kDecodersPerDevice) + 1u; }

/// JPEG 2000 input on the GPU (DPRCJ2KOnGpu): batch decoders on each device
bool makeDecoders(Run& run, std::string& error)
{
  const DPRCPipelineOptions& p = run.p;
  run.j2kGpu = !run.opt.dryRun && !run.files.empty() && DPRCJ2KOnGpu(p.j2kDecoder, run.gpuCoders);
  if (!run.j2kGpu) return true;
  // for the tests without a device: the CPU decoder stands in for the GPU's, batches and all
  const char *standIn = std::getenv("PCWT_RECOMPRESS_J2K_STANDIN");
  const bool gpu = !(standIn && std::strcmp(standIn, "cpu") == 0);
  for (int d : run.devices)
    for (unsigned k = 0; k < std::max(1u, p.j2kDecodersPerDevice); ++k)
    {
      run.j2kDecoders.emplace_back(new J2KBatchDecoder());
      if (!run.j2kDecoders.back()->init(gpu, d, p.maxSamplesPerFrame, error)) return false;
    }
  run.stats.j2kGpu = true;
  run.j2kOnDevice = gpu;
  // the decoded samples of a batch in one page-locked buffer (each file's until finished; made at
  // the start when startJ2KBuffers made its first ones)
  if (!run.j2kSamples) run.j2kSamples = std::make_shared<ArenaPool>(keptJ2KBuffers(p), "j2k", true);
  return true;
}

/// a JPEG 2000 batch decoder: gathers the files that come within the batch's limits and decodes
/// their frames on its GPU in one call, then hands them to the finishers
void j2kStage(Run& run, std::size_t k)
{
  const DPRCPipelineOptions& p = run.p;
  // started early, the decoder warms while the readers read (the first batch's call would), and
  // the page-locked buffer for a full batch's samples is made beside it on a thread of its own
  // (each took about 0.07 s on the H200 machine, one after the other), not in the first batch;
  // held until this decoder's first batch, so that each decoder makes one. With auto (the
  // default), where most runs have no JPEG 2000 input and the buffer would cost them hundreds of
  // MB of page-locked memory and its pinning time, it is made once this decoder has a JPEG 2000
  // file, beside the gathering of its first batch.
  std::shared_ptr<unsigned char> ready;
  std::thread pin;
  bool pinStarted = false;
  auto pinBatch = [&]() {
    pinStarted = true;
    pin = std::thread([&run, &ready, &p]() {
      if (run.j2kBuffers.valid()) run.j2kBuffers.wait(); // (those of the start first)
      ready = run.j2kSamples->get(static_cast<std::size_t>(p.j2kBatchBytes + p.j2kBatchBytes / 8));
    });
  };
  const bool pins = p.j2kWarm && run.j2kOnDevice;
  if (p.j2kWarm)
  {
    if (pins && p.j2kDecoder == DPRCJD_gpu) pinBatch();
    if (run.j2kDecoders[k]->warm()) once(run.j2kWarm, "JPEG 2000 decoder warm");
    if (pin.joinable()) pin.join();
  }
  for (;;)
  {
    DPRCStageTimer timer(DPRCSG_j2kWait);
    std::vector<J2KWork *> batch;
    J2KWork *j = NULL;
    if (!run.toJ2K.pop(j)) break;
    // the run did not start (dropJ2K): nothing more is decoded
    if (run.gate.failed())
    {
      run.toFinish.push(j);
      continue;
    }
    if (pins && !pinStarted) pinBatch();
    // Full batches, the run's first too (a smaller first batch is decoded sooner, but its decoder
    // grows its buffers in the next call and the decoding ends later; j2kRamp: the first four
    // 1/16, 1/8, 1/4, 1/2 of the limit, for measuring)
    const unsigned nth = run.j2kBatches.fetch_add(1);
    const unsigned shift = (p.j2kRamp && nth < 4) ? 4 - nth : 0;
    std::uint64_t limit = std::max<std::uint64_t>(p.j2kBatchBytes >> shift, 1);
    std::uint64_t frames = 0, bytes = 0;
    for (;;)
    {
      batch.push_back(j);
      J2KBatchDecoder::declared(*j->work, frames, bytes);
      if (frames >= p.j2kBatchFrames || bytes >= limit) break;
      if (!run.toJ2K.popFor(j, std::chrono::milliseconds(p.batchWaitMs))) break;
    }
    timer.next(DPRCSG_j2kDecode);
    if (pin.joinable()) pin.join();
    ready.reset();
    if (!run.firstJ2K.load(std::memory_order_relaxed)) DPRCTimelineMark("first JPEG 2000 batch in");
    run.j2kDecoders[k]->decode(batch, *run.j2kSamples,
                               run.opt.testFault == "backend" || run.opt.testFault == "backend-j2k");
    once(run.firstJ2K, "first JPEG 2000 batch decoded");
    for (J2KWork *x : batch)
    {
      // its decoded samples count until it is finished
      const std::uint64_t decoded = x->frames.decodedBytes();
      run.budget->grow(decoded);
      x->work->reserved += decoded;
      run.toFinish.push(x);
    }
  }
  if (pin.joinable()) pin.join();
  if (--run.j2kLeft == 0)
  {
    DPRCTimelineMark("JPEG 2000 decoders done");
    run.toFinish.close();
  }
}

/// without the GPU's decoding: the JPEG 2000 files the readers left before the gate opened go to
/// the finishers as they are, whose codec decodes them as a reader's would (OpenJPEG)
void j2kPassStage(Run& run)
{
  J2KWork *j = NULL;
  while (run.toJ2K.pop(j)) run.toFinish.push(j);
  if (--run.j2kLeft == 0) run.toFinish.close();
}

/// a finisher: decodes a file's data set with its frames decoded ahead (DPRCPrepareDecoded: the
/// codec's DICOM rules, OpenJPEG for the frames the GPU did not decode), then on as a reader would
void finishStage(Run& run, unsigned f)
{
  J2KAheadCoder& coder = *run.finishCoders[f];
  DPCWTSetThreadCoder(&coder);
  DPRCStageOnFinisher(true);
  J2KWork *x = NULL;
  for (;;)
  {
    {
      DPRCStageTimer wait(DPRCSG_finishWait);
      if (!run.toFinish.pop(x)) break;
    }
    std::unique_ptr<J2KWork> j(x);
    std::unique_ptr<Work> w(j->work);
    if (run.gate.failed()) continue; // the run did not start: dropped
    coder.setFrames(&j->frames);
    const bool go = DPRCPrepareDecoded(w->job, run.opt, run.writers * run.group + run.readers + f, run.samples.get());
    coder.setFrames(NULL);
    j.reset(); // the decoded samples
    once(run.firstFinished, "first JPEG 2000 file finished");
    if (!go)
    {
      run.budget->release(w->reserved);
      // (before the gate opens: held until it does)
      if (!run.gate.hold(w->index, w->job.result)) run.done(w->index, w->job.result);
      continue;
    }
    // what it holds now: its samples (at least its size on disk, as a reader counts)
    const std::uint64_t held = std::max<std::uint64_t>(w->job.original.size(), run.files[w->index].size);
    if (held > w->reserved) run.budget->grow(held - w->reserved);
    else run.budget->release(w->reserved - held);
    w->reserved = held;
    if (run.batching) run.toCoder.push(w.release());
    else run.toWriter.push(w.release());
  }
  DPCWTSetThreadCoder(NULL);
  DPRCStageOnFinisher(false);
  if (--run.finishersLeft == 0)
  {
    if (run.batching) run.toCoder.close();
    else run.toWriter.close();
  }
}

/// the batch decoders' threads, once
void startDecoders(Run& run, std::vector<std::thread>& threads)
{
  if (!run.j2kGpu || run.j2kStarted) return;
  run.j2kStarted = true;
  run.j2kLeft = static_cast<unsigned>(run.j2kDecoders.size());
  for (std::size_t k = 0; k < run.j2kDecoders.size(); ++k) threads.emplace_back(j2kStage, std::ref(run), k);
}

/// the finishers' threads, once
void startFinishers(Run& run, std::vector<std::thread>& threads)
{
  if (run.finishersStarted) return;
  run.finishersStarted = true;
  run.finishersLeft = static_cast<unsigned>(run.finishCoders.size());
  for (unsigned f = 0; f < run.finishCoders.size(); ++f) threads.emplace_back(finishStage, std::ref(run), f);
}

} // namespace

bool startJ2K(Run& run, std::vector<std::thread>& threads, std::string& error)
{
  if (!makeDecoders(run, error)) return false;
  if (run.j2kGpu)
  {
    // the files finished now keep their samples until coded: page locked already, as the GPU's
    // coders and verifiers read them (startDevices says what the coders need, once made)
    if (run.j2kOnDevice) run.samples->setPinned(true);
    startDecoders(run, threads);
    startFinishers(run, threads);
  }
  // (tests: the other handles are made once the first file is finished, or fail then)
  const std::string& fault = run.opt.testFault;
  if (run.j2kStarted && (fault == "slow-devices" || fault == "fail-devices"))
  {
    const std::chrono::steady_clock::time_point until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!run.firstFinished.load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (fault == "fail-devices")
    {
      error = "test fault: the devices' handles fail after the first JPEG 2000 file finished";
      return false;
    }
  }
  return true;
}

void startJ2KFinishers(Run& run, std::vector<std::thread>& threads)
{
  // (the decoders, unless they started early)
  startDecoders(run, threads);
  // the JPEG 2000 files read before the gate opened go on without the GPU's decoding
  if (!run.j2kGpu && run.mayDeferJ2K)
  {
    run.j2kLeft = 1;
    threads.emplace_back(j2kPassStage, std::ref(run));
  }
  startFinishers(run, threads);
}

void startJ2KBuffers(Run& run, std::vector<std::thread>& threads)
{
  const DPRCPipelineOptions& p = run.p;
  // (the registration makes the context of the calling thread's device, the first)
  const bool firstDevice = p.devices.empty() || (p.devices.size() == 1 && p.devices[0] == 0);
  if (!run.mayDeferJ2K || !p.j2kWarm || !firstDevice) return;
  // as many as the decoders' first batches and the one after, fewer for a small run (decoded,
  // lossless JPEG 2000 is about 2 to 4 times its size)
  std::uint64_t total = 0;
  for (const DPRCEntry& e : run.files) total += e.size;
  const std::uint64_t batches = (4 * total + p.j2kBatchBytes - 1) / std::max<std::uint64_t>(p.j2kBatchBytes, 1);
  const std::size_t count = static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(keptJ2KBuffers(p), batches)));
  const std::size_t bytes = static_cast<std::size_t>(p.j2kBatchBytes + p.j2kBatchBytes / 8);
  run.j2kSamples = std::make_shared<ArenaPool>(keptJ2KBuffers(p), "j2k", true);
  std::shared_ptr<std::promise<void> > made = std::make_shared<std::promise<void> >();
  run.j2kBuffers = made->get_future().share();
  threads.emplace_back([&run, made, count, bytes]() {
    // once the first JPEG 2000 file is read (none: nothing made; the readers close the queue
    // when they are done, also when the start failed)
    if (run.toJ2K.waitFirst() && !run.gate.failed())
    {
      // each on a thread of its own; given back to the pool at once, which keeps them
      std::vector<std::shared_ptr<unsigned char> > held(count);
      std::vector<std::thread> makers;
      for (std::size_t k = 0; k < count; ++k)
        makers.emplace_back([&run, &held, k, bytes]() { held[k] = run.j2kSamples->get(bytes); });
      for (std::thread& t : makers) t.join();
      DPRCTimelineMark("JPEG 2000 buffers made");
    }
    made->set_value();
  });
}

void dropJ2K(Run& run, std::vector<std::thread>& threads)
{
  for (std::thread& t : threads) t.join();
  threads.clear();
  for (Queue<J2KWork> *q : {&run.toJ2K, &run.toFinish})
  {
    J2KWork *j = NULL;
    while (q->tryPop(j))
    {
      delete j->work;
      delete j;
    }
  }
}

} // namespace dprc
