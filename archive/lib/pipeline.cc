/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: readers -> batch coders -> writers (pipeline.h), one named
 *           function per stage; the stages' pieces are in queue.h, arena.h, coder.h and verifier.h,
 *           the JPEG 2000 stages in j2kstages.cc, what they share in pipeline_run.h.
 */

#include "dcmtk/config/osconfig.h"
#include "pipeline_run.h"

#include "dcmpcwt/dpthrcod.h"
#include "dpmodule.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

using namespace dprc;

namespace {

/// whether the run has a verifier stage (made when its device has one): by default only when the
/// coding backend may be a GPU (the CPU coding, each writer decodes its copies with the CPU decoder)
bool verifierWanted(const Run& run)
{
  const DPRCPipelineOptions& p = run.p;
  return p.verify != DPRCVM_writers && run.writers > 0 && run.opt.target == DPRCT_pcwt &&
         !(p.verify == DPRCVM_auto && p.backend == PCWT_BACKEND_CPU);
}

/// the stages' sizes from the options
void planStages(Run& run)
{
  const DPRCPipelineOptions& p = run.p;
  run.readers = std::max(1u, p.readers);
  run.writers = (run.opt.dryRun || run.files.empty()) ? 0u : std::max(1u, p.writers);
  run.batching = p.batchFrames > 0 && run.opt.target == DPRCT_pcwt && !run.opt.dryRun && !run.files.empty();
  run.devices = p.devices.empty() ? std::vector<int>(1, 0) : p.devices;
  // (DPRCJ2KOnGpu with batch coders that may be on a GPU)
  run.mayDeferJ2K = !run.opt.dryRun && !run.files.empty() &&
                    (p.j2kDecoder == DPRCJD_gpu ||
                     (p.j2kDecoder == DPRCJD_auto && run.batching && p.backend != PCWT_BACKEND_CPU));
  run.copiesWhileReading = !run.opt.outputDir.empty() && run.opt.copyOthers && !run.opt.dryRun;
  // the verifier stage's CPU sample: the files it draws read first (DPRCSampledFirst)
  if (verifierWanted(run)) run.order = DPRCSampledFirst(run.files, p.verifySample);
}

/// the threads' coders (no device needed: their decoders are the CPU's, their decoders and
/// encoders made when first used), and the finishers' when JPEG 2000 may be decoded ahead
void makeHostHandles(Run& run)
{
  const DPRCPipelineOptions& p = run.p;
  for (unsigned t = 0; t < run.readers + run.writers; ++t)
  {
    run.lent.emplace_back(new ThreadCoder());
    run.lent.back()->init(p.backend, p.decodeBackend, run.devices[t % run.devices.size()]);
    run.lent.back()->failBackend = run.opt.testFault == "backend";
  }
  if (run.mayDeferJ2K)
    for (unsigned f = 0; f < run.readers; ++f) run.finishCoders.emplace_back(new J2KAheadCoder());
}

/// whether the batch coders are on a GPU: once made, what they are; until then, whether the
/// backend may be one
bool gpuCodersOf(const Run& run)
{
  return !run.coders.empty() ? run.coders[0]->gpu() : run.p.backend != PCWT_BACKEND_CPU;
}

/** the memory budget with these batch coders (on a GPU or not: gpuCodersOf) and GPU verifiers'
 *  batches of `verifying` bytes in all
 */
std::uint64_t budgetFor(const Run& run, std::size_t coders, std::uint64_t verifying)
{
  const DPRCPipelineOptions& p = run.p;
  // Batches the memory budget admits besides one in each coder: one being read and three being
  // written and verified (with one being written, the readers mostly waited for the budget), for
  // each device: every GPU's batches are in flight at once. With GPU coders two, and the GPU
  // verifiers' batches on top: their samples, output and verified codestreams sit in page-locked
  // regions of the budget's size, which the start pins and the process's end unpins. On one H200
  // the 4 GB tree ran no slower with 256 MB than with 384 and ended earlier, 768 ended later
  // still, and 512 alone was slower; 512 made of the two verifiers' 128 MB batches on top of
  // 256 ended the coders 0.1 s earlier (bench/results/gpu-h200-2026-11-29-session14-recompress.md,
  // session13-recompress.md, session12-recompress.md)
  const std::size_t batchesBesideCoders = (gpuCodersOf(run) ? 2 : 4) * run.devices.size();
  // a batch counts as at least 64 MB: with the default 32 MB batches and two GPU coders, eight in flight
  std::uint64_t bytes = std::max<std::uint64_t>(p.batchBytes, 64u << 20) *
                        (batchesBesideCoders + std::max<std::size_t>(1, coders));
  return bytes + verifying;
}

/// the GPU verifiers' batches in all, once they are made (none on the CPU)
std::uint64_t verifyingOf(const Run& run)
{
  return run.verifying && run.verifiers[0]->gpu() ? run.verifiers.size() * run.verifyBytes : 0;
}

/** what JPEG 2000 input decoded on the GPU adds to the budget, once the first such file comes
 *  (Budget::raiseOnce; a run with none, most runs, has page-locked memory for the budget alone):
 *  a batch being gathered and one in each decoder. An explicit budget stays as it is
 */
std::uint64_t j2kShareFor(const Run& run)
{
  const DPRCPipelineOptions& p = run.p;
  if (p.budgetBytes || !run.mayDeferJ2K) return 0;
  const std::size_t decoders = std::max(1u, p.j2kDecodersPerDevice) * run.devices.size();
  return (decoders + 1) * p.j2kBatchBytes;
}

/// the budget until the devices' handles are made: as with the GPU's coders and decoders, when
/// they may be on one
std::uint64_t plannedBudget(const Run& run)
{
  const DPRCPipelineOptions& p = run.p;
  const std::size_t perDevice = p.codersPerDevice ? p.codersPerDevice : (gpuCodersOf(run) ? kDPRCGpuCodersPerDevice : 1u);
  const std::size_t coders = run.batching ? perDevice * run.devices.size() : 0;
  const std::size_t verifiers = verifierWanted(run) && gpuCodersOf(run)
                                  ? (p.verifiersPerDevice ? p.verifiersPerDevice : kDPRCGpuVerifiersPerDevice) * run.devices.size()
                                  : 0;
  return p.budgetBytes ? p.budgetBytes : budgetFor(run, coders, verifiers * kDPRCGpuVerifyBatchBytes);
}

/** batch coders or verifiers (made by make()) on each device: `asked` on each, or with 0 `onGpu`
 *  where the first made there is on the GPU, else one. Several on a GPU: a call waits mostly for
 *  the coder's latency, which calls on other handles (streams) overlap; the CPU splits each batch
 *  over threads. */
template <typename Handle, typename Make>
bool makePerDevice(Run& run, unsigned asked, unsigned onGpu, std::vector<std::unique_ptr<Handle> >& handles,
                   Make make, std::string& error)
{
  for (int d : run.devices)
    for (unsigned k = 0, per = asked; k == 0 || k < per; ++k)
    {
      handles.emplace_back(make());
      if (!handles.back()->init(run.p, d, error)) return false;
      if (per == 0) per = handles.back()->gpu() ? onGpu : 1u;
    }
  return true;
}

/// the handles on the devices (the batch coders, verifiers, JPEG 2000 decoders), made while the
/// readers read: a missing GPU stops the run here, before any file is written or reported
bool makeDeviceHandles(Run& run, std::vector<std::thread>& threads, std::string& error)
{
  const DPRCPipelineOptions& p = run.p;
  // JPEG 2000 input asked of the GPU: its decoders first, decoding while the rest are made
  if (p.j2kDecoder == DPRCJD_gpu && !startJ2K(run, threads, error)) return false;
  run.arenas = std::make_shared<ArenaPool>(1, "coder", false);
  if (run.batching && !makePerDevice(run, p.codersPerDevice, kDPRCGpuCodersPerDevice, run.coders,
                                     [&run]() { return new BatchCoder(run.arenas); }, error))
    return false;
  run.stats.coders = static_cast<unsigned>(run.coders.size());
  // With a GPU the codestreams go straight into page-locked arenas, and the files' samples come
  // from page-locked buffers: no staging copies on the coder's thread, and the buffers are reused,
  // not faulted in anew for each file.
  run.gpuCoders = !run.coders.empty() && run.coders[0]->gpu();
  run.arenas->setPinned(run.gpuCoders);
  if (run.j2kDecoders.empty() && !startJ2K(run, threads, error)) return false;
  // the verifier stage: a thread per device, decoding with the coding backend (verifierWanted)
  if (verifierWanted(run))
  {
    if (!makePerDevice(run, p.verifiersPerDevice, kDPRCGpuVerifiersPerDevice, run.verifiers,
                       []() { return new BatchVerifier(); }, error))
      return false;
    // (the automatic backend found no GPU)
    if (p.verify == DPRCVM_auto && !run.verifiers[0]->gpu()) run.verifiers.clear();
  }
  run.verifying = !run.verifiers.empty();
  // A verifier batch takes at most about this much (and one file more): with a GPU the samples
  // decoded and the originals stay on the device, compared there (pcwt_verify_batch), and two
  // verifiers' calls of 128 MB ran faster than four's of 32 (with the budget for them)
  run.verifyBytes = run.verifying && run.verifiers[0]->gpu() ? kDPRCGpuVerifyBatchBytes
                                                             : std::min<std::uint64_t>(p.batchBytes, 64u << 20);
  run.budgetBytes = p.budgetBytes ? p.budgetBytes : budgetFor(run, run.coders.size(), verifyingOf(run));
  // output arenas kept: one for each batch the budget admits, one spare (a batch being written
  // holds its arena until its last file is)
  run.arenas->setKeep(static_cast<std::size_t>(run.budgetBytes / std::max<std::uint64_t>(p.batchBytes, 1)) + 1);
  run.stats.verifiers = static_cast<unsigned>(run.verifiers.size());
  run.stats.verifierGpu = run.verifying && run.verifiers[0]->gpu();
  run.stats.sampleEvery = run.verifying ? p.verifySample : 0;
  return true;
}

/// the signal handlers, the budget, the buffer pools and the verifier's client
void connectStages(Run& run)
{
  // temporary file slots: group slots for each writer (its verified copies waiting for their
  // commit), readers after them (--copy-others copies)
  run.group = std::max(1u, run.p.commitGroup);
  DPRCInstallSignalHandlers(run.writers * run.group + run.readers + static_cast<unsigned>(run.finishCoders.size()));
  run.budget.reset(new Budget(plannedBudget(run)));
  // the samples' buffers, reused by file after file (kept until the end: at most what each size
  // had in use at once, and the budget bounds what is in use); page locked once the GPU codes
  run.samples = std::make_shared<ArenaPool>(1, "samples", false);
  run.samples->setSizeClasses();
  run.readersLeft = run.readers;
}

/// `total` bytes of pool's region made in parts, the first of `first` bytes, the others of
/// `part` (each lent as soon as it is made); the first part made switches the pool to
/// page-locked buffers when `pin`
void reserveInParts(ArenaPool& pool, std::size_t total, std::size_t first, std::size_t part, bool pin)
{
  for (std::size_t made = 0, size = first; made < total; made += size, size = part)
  {
    size = std::min(size, total - made);
    if (!pool.reserve(size, true)) return;
    if (made == 0 && pin) pool.setPinned(true);
  }
}

/** with GPU coders: the files' samples and the coders' output arenas each cut from one
 *  page-locked region, made now on a thread each, in parts, beside the warm-up and the reads
 *  (until a part is there, buffers are made as without it; joined with the stages). The samples
 *  the readers hold at once stay within the memory budget, the arenas hold the codestreams of
 *  those samples (a slot of 9/8 of each frame and 4 KB); a small run needs no more than its
 *  files (twice: input compressed before decodes to more). What the parts have no room for is
 *  allocated as before. Each region's first part is small, so that it is there soon: the readers'
 *  page-locked buffers, and the first batches' arenas (each made on its own, on the coder's
 *  thread, until a part is there); the arenas' later parts hold several batches each.
 */
void startRegions(Run& run, std::vector<std::thread>& threads)
{
  if (!run.gpuCoders) return;
  std::uint64_t total = 0;
  for (const DPRCEntry& e : run.files) total += e.size;
  const std::uint64_t cap = 2 * total + (16u << 20);
  const std::uint64_t budget = run.budgetBytes + run.budgetBytes / 8;
  const std::size_t samples = static_cast<std::size_t>(std::min(budget, cap));
  const std::size_t arenas = static_cast<std::size_t>(std::min(budget + (64u << 20), cap + cap / 8));
  std::shared_ptr<ArenaPool> s = run.samples, a = run.arenas;
  threads.emplace_back([s, samples]() { reserveInParts(*s, samples, 64u << 20, 128u << 20, true); });
  if (run.batching) threads.emplace_back([a, arenas]() { reserveInParts(*a, arenas, 64u << 20, 256u << 20, false); });
  // the GPU verifier's codestreams, of the copies waiting for their verdicts, whose samples the
  // budget holds: half of it holds them at a ratio of 2 and more (beyond it, the heap, which the
  // verifier stages). Without it, slabs of 16 buffers were registered one by one on the writers'
  // threads: some 200 registrations in a 4 GB run, each undone at the end
  if (run.verifying && run.verifiers[0]->gpu())
  {
    std::shared_ptr<ArenaPool> c = run.codestreams;
    const std::size_t codestreams = static_cast<std::size_t>(std::min(run.budgetBytes / 2, cap));
    threads.emplace_back([c, codestreams]() { reserveInParts(*c, codestreams, 32u << 20, 128u << 20, false); });
  }
}

/** on the starting thread while the readers read: the caller's checks (the GPUs), the devices'
 *  handles and what follows from them; then the gate opens and the results held are reported
 *  @return false (error) when the run cannot start: the gate fails, the readers stop
 */
bool startDevices(Run& run, std::vector<std::thread>& threads, std::string& error)
{
  // (tests: the readers read ahead of a slow start)
  if (run.opt.testFault == "slow-start") std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (run.p.beforeStart) error = run.p.beforeStart();
  if (!error.empty() || !makeDeviceHandles(run, threads, error))
  {
    run.gate.fail();
    run.budget->setLimit(std::numeric_limits<std::uint64_t>::max()); // the readers waiting see it
    return false;
  }
  DPRCTimelineMark("handles made");
  // the codestreams the writers read back and hand over, copied out of DCMTK's buffers on the
  // writers' threads (not on the verifier's one thread), page locked with a GPU
  run.codestreams =
    std::make_shared<ArenaPool>(1, "codestreams", !run.verifiers.empty() && run.verifiers[0]->gpu());
  run.codestreams->setSizeClasses();
  std::vector<std::thread> regions;
  startRegions(run, regions);
  startBringUp(run, threads);
  // (tests: the regions there before the first batch, so that a small run's files use them)
  if (run.opt.testFault == "regions-first")
    for (std::thread& t : regions) t.join();
  for (std::thread& t : regions)
    if (t.joinable()) threads.push_back(std::move(t));
  run.budget->setLimit(run.budgetBytes);
  run.samples->setPinned(run.gpuCoders);
  run.verifyClient.reset(
    new VerifyClient(run.toVerifier, run.p.maxSamplesPerFrame, run.codestreams.get(), run.p.verifySample));
  if (!run.finishersStarted) run.finishersLeft = static_cast<unsigned>(run.finishCoders.size());
  run.codersLeft = static_cast<unsigned>(run.coders.size());
  run.writersLeft = run.writers;
  // (--stats: the files read before the start and handed on without the GPU's decoding, if any,
  // are not a stage of their own)
  run.stats.j2kThreads = run.j2kGpu ? static_cast<unsigned>(run.j2kDecoders.size()) : 0u;
  run.stats.finishers = run.j2kGpu ? static_cast<unsigned>(run.finishCoders.size()) : 0u;
  for (std::pair<std::size_t, DPRCResult>& h : run.gate.openGate()) run.done(h.first, h.second);
  return true;
}

/// a reader: takes the next file, waits for the budget, reads, decodes and checks it
/// (DPRCPrepare) and hands it to the batch coders, or straight to the writers
void readStage(Run& run, unsigned r)
{
  ThreadCoder& tc = *run.lent[run.writers + r];
  DPCWTSetThreadCoder(&tc);
  for (;;)
  {
    const std::size_t k = run.next.fetch_add(1);
    if (k >= run.files.size()) break;
    const std::size_t i = run.order.empty() ? k : run.order[k];
    std::unique_ptr<Work> w(new Work());
    w->index = i;
    w->reserved = std::max<std::uint64_t>(run.files[i].size, 1);
    {
      DPRCStageTimer wait(DPRCSG_readerWait);
      run.budget->acquire(w->reserved);
      // --copy-others copies the files it skips as it reads them: not before the run has started
      if (run.copiesWhileReading) run.gate.wait();
    }
    const bool open = run.gate.isOpen();
    if (!open && run.gate.failed())
    {
      run.budget->release(w->reserved);
      break;
    }
    // before the gate opens, whether the GPU decodes JPEG 2000 is not known yet
    w->job.deferJ2K = open ? run.j2kGpu : run.mayDeferJ2K;
    // (with GPU coders the pool turns page locked once: what is read after needs no pinSamples)
    w->readUnpinned = !run.samples->pinned();
    if (!DPRCPrepare(w->job, run.files[i], run.opt, run.writers * run.group + r, run.samples.get()))
    {
      run.budget->release(w->reserved);
      if (!run.gate.hold(i, w->job.result)) run.done(i, w->job.result);
      continue;
    }
    once(run.firstRead, "first file read");
    if (w->job.j2kDeferred)
    {
      run.budget->raiseOnce(j2kShareFor(run));
      // its JPEG 2000 frames go to the GPU with other files' (j2kStage; j2kPassStage without it)
      J2KWork *j = new J2KWork();
      j->work = w.release();
      run.toJ2K.push(j);
      continue;
    }
    // decoded, the file may hold more than its size on disk
    const std::uint64_t held = w->job.original.size();
    if (held > w->reserved)
    {
      run.budget->grow(held - w->reserved);
      w->reserved = held;
    }
    if (run.batching) run.toCoder.push(w.release());
    else run.toWriter.push(w.release());
  }
  DPCWTSetThreadCoder(NULL);
  if (--run.readersLeft == 0)
  {
    DPRCTimelineMark("readers done");
    run.gate.wait();
    if (run.mayDeferJ2K) run.toJ2K.close();
    else if (run.batching) run.toCoder.close();
    else run.toWriter.close();
  }
}

/// PCWT_GPU_TRACE: one batch call on the timeline's clock (the calls of all handles side by side)
void traceCall(const char *what, std::size_t handle, double t0, std::uint64_t frames, std::uint64_t bytes)
{
  std::fprintf(stderr, "pcwt-recompress call %s %zu: %.4f-%.4f s, %llu frames, %.1f MB\n", what, handle, t0,
               DPRCTimelineNow(), static_cast<unsigned long long>(frames), static_cast<double>(bytes) / 1e6);
}

/** with GPU coders: the samples of files read before the page-locked region was made (the first
 *  batches' files, read while the CUDA context came up) moved into the region where it has room,
 *  so that neither the encoder nor the verifier stages them: their staging buffers, page locked
 *  too, would grow to a batch each for these few batches and stay until the end. Only those files
 *  are looked at (Work::readUnpinned: the pool's lookup takes its lock and scans its parts); a
 *  later file the region had no room for is staged
 */
void pinSamples(Run& run, const std::vector<Work *>& batch)
{
  for (Work *w : batch)
  {
    DPRCSamples& s = w->job.original;
    if (!w->readUnpinned || s.empty() || run.samples->pinnedAt(s.data())) continue;
    DPRCSamples pinned;
    pinned.allocate(s.size(), run.samples.get());
    if (!run.samples->pinnedAt(pinned.data())) continue; // no room: staged as before
    std::memcpy(pinned.data(), s.data(), s.size());
    s = std::move(pinned);
  }
}

/// a batch coder: gathers the files that come within the batch's limits and codes their frames
/// in one call, then hands them to the writers
void codeStage(Run& run, std::size_t c)
{
  const DPRCPipelineOptions& p = run.p;
  DPRCPipelineStats local;
  // (its device up, or no batch left for it)
  const bool up = run.codersUp.wait(run.coders[c]->device(), [&run]() { return run.toCoder.drained(); });
  for (; up;)
  {
    std::vector<Work *> batch;
    Work *w = NULL;
    DPRCStageTimer timer(DPRCSG_coderWait);
    if (!run.toCoder.pop(w)) break;
    std::uint64_t frames = 0, bytes = 0;
    for (;;)
    {
      batch.push_back(w);
      frames += w->job.module.number_of_frames;
      bytes += w->job.original.size();
      // more files while the batch has room and they come soon (readers keep up with a GPU
      // only in bursts: a short wait fills the batch)
      if (frames >= p.batchFrames || bytes >= p.batchBytes) break;
      if (!run.toCoder.popFor(w, std::chrono::milliseconds(p.batchWaitMs))) break;
    }
    timer.next(DPRCSG_code);
    if (!run.firstBatch.load(std::memory_order_relaxed)) DPRCTimelineMark("first batch in");
    if (run.gpuCoders) pinSamples(run, batch);
    const double t0 = gpuTrace() ? DPRCTimelineNow() : 0.0;
    run.coders[c]->code(batch, local, run.opt.testFault == "backend");
    if (gpuTrace()) traceCall("encode", c, t0, frames, bytes);
    once(run.firstBatch, "first batch coded");
    for (Work *x : batch) run.toWriter.push(x);
  }
  {
    std::lock_guard<std::mutex> lock(run.statsMutex);
    run.stats.calls += local.calls;
    run.stats.frames += local.frames;
    run.stats.files += local.files;
    run.stats.framesCodedOn[run.coders[c]->device()] += local.frames;
  }
  if (--run.codersLeft == 0)
  {
    DPRCTimelineMark("coders done");
    run.toWriter.close();
  }
}

/** a writer's copies written and waiting for their commit: flushed, renamed and their folders
 *  flushed together. With the verifier their verdicts are taken first, as soon as they are in (the
 *  writer goes on meanwhile, so that the verifier gets the copies of many files at once); each
 *  holds its samples until then. The copies verified are committed when no coded file is waiting
 *  and when the group is full (then, with none verified, after the oldest's verdict). The group
 *  bounds how many copies wait for verdicts: with 16 a writer waited for them most of the run on
 *  one H200 (bench/results/gpu-h200-2026-11-28-session8-host.md).
 */
class CommitGroup
{
public:
  CommitGroup(Run& run) : run_(run), slotUsed_(run.group, false) {}

  /// a free slot of the group for the temporary file (taken until the commit)
  unsigned freeSlot() const
  {
    return static_cast<unsigned>(std::find(slotUsed_.begin(), slotUsed_.end(), false) - slotUsed_.begin());
  }

  /// the file's samples leave the budget
  void release(Work& w)
  {
    run_.budget->release(w.reserved);
    w.reserved = 0;
  }

  /// a copy written joins the group (committed when the group is full)
  void add(std::unique_ptr<Work> w)
  {
    slotUsed_[w->slot] = true;
    pending_.push_back(std::move(w));
    takeVerdicts(false);
    if (pending_.size() < run_.group) return;
    commitVerified();
    // none verified yet: the oldest's verdict (commitVerified leaves only those awaited)
    while (pending_.size() >= run_.group)
    {
      takeVerdict(0, true);
      commitVerified();
    }
  }

  /// take the verdicts that are in (all of them: wait for the rest)
  void takeVerdicts(bool all)
  {
    for (std::size_t k = 0; k < pending_.size();)
      if (!takeVerdict(k, all)) ++k;
  }

  /// copies written whose verdicts are not taken yet
  bool awaiting() const
  {
    for (const std::unique_ptr<Work>& w : pending_)
      if (w->job.pending) return true;
    return false;
  }

  /// every verdict taken, the verified copies committed together
  void commit()
  {
    takeVerdicts(true);
    commitVerified();
  }

  /// the verdicts that are in taken, the copies verified so far committed together
  void commitVerified()
  {
    takeVerdicts(false);
    std::vector<std::unique_ptr<Work> > verified, waiting;
    for (std::unique_ptr<Work>& w : pending_) (w->job.pending ? waiting : verified).push_back(std::move(w));
    pending_.swap(waiting);
    if (verified.empty()) return;
    std::vector<DPRCJob *> jobs;
    for (const std::unique_ptr<Work>& w : verified) jobs.push_back(&w->job);
    DPRCCommit(jobs, run_.opt);
    for (const std::unique_ptr<Work>& w : verified)
    {
      run_.done(w->index, w->job.result);
      slotUsed_[w->slot] = false;
    }
  }

private:
  /** pending_[k]'s verdict taken when it is in (or waited for) and its samples released
   *  @return true when the copy left the group (it failed, or is not kept)
   */
  bool takeVerdict(std::size_t k, bool wait)
  {
    DPRCJob& job = pending_[k]->job;
    if (!job.pending || (!wait && !DPRCVerifiedReady(job))) return false;
    const bool kept = DPRCAwaitVerified(job, run_.opt);
    release(*pending_[k]);
    if (kept) return false;
    run_.done(pending_[k]->index, job.result);
    slotUsed_[pending_[k]->slot] = false;
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(k));
    return true;
  }

  Run& run_;
  std::vector<std::unique_ptr<Work> > pending_;
  std::vector<bool> slotUsed_;
};

/** the next coded file for a writer (false: none will come); meanwhile the copies verified are
 *  committed as their verdicts come in
 */
bool nextCoded(Run& run, CommitGroup& group, Work *& x)
{
  if (run.toWriter.tryPop(x)) return true;
  group.commitVerified();
  while (group.awaiting())
  {
    {
      DPRCStageTimer wait(DPRCSG_writerWait);
      if (run.toWriter.popFor(x, std::chrono::milliseconds(1))) return true;
    }
    if (run.toWriter.drained()) break;
    group.commitVerified();
  }
  group.commit();
  DPRCStageTimer wait(DPRCSG_writerWait);
  return run.toWriter.pop(x);
}

/// a writer: codes what the batch coders left, writes and verifies each file (DPRCWriteVerified)
/// and commits the verified copies in groups
void writeStage(Run& run, unsigned wi)
{
  ThreadCoder& tc = *run.lent[wi];
  DPCWTSetThreadCoder(&tc);
  CommitGroup group(run);
  Work *x = NULL;
  while (nextCoded(run, group, x))
  {
    std::unique_ptr<Work> w(x);
    tc.setJob(&w->job);
    w->slot = group.freeSlot();
    const bool written = DPRCWriteVerified(w->job, run.opt, wi * run.group + w->slot,
                                           run.verifying ? run.verifyClient.get() : NULL);
    tc.setJob(NULL);
    once(run.firstWritten, "first file written");
    if (!w->job.pending) group.release(*w); // its samples and data set are released
    if (written)
      group.add(std::move(w));
    else
      run.done(w->index, w->job.result);
  }
  group.commit();
  DPCWTSetThreadCoder(NULL);
  if (--run.writersLeft == 0)
  {
    DPRCTimelineMark("writers done");
    run.toVerifier.close();
  }
}

/// a verifier: decodes the copies waiting in one call and compares them with the originals
void verifyStage(Run& run, std::size_t v)
{
  const DPRCPipelineOptions& p = run.p;
  DPRCPipelineStats local;
  const std::size_t maxFrames = p.batchFrames ? p.batchFrames : 1024;
  // (its device up, or no copy left for it)
  const bool up = run.verifiersUp.wait(run.verifiers[v]->device(), [&run]() { return run.toVerifier.drained(); });
  for (; up;)
  {
    DPRCStageTimer timer(DPRCSG_verifierWait);
    // with a minimum batch, one verifier fills its batch at a time while the others' calls run:
    // a call costs about the decoder's latency whatever its size
    std::unique_lock<std::mutex> filling(run.verifyFill, std::defer_lock);
    if (p.verifyMinFrames) filling.lock();
    VerifyRequest *r = NULL;
    if (!run.toVerifier.pop(r)) break;
    // the copies waiting already (more arrive while this batch is decoded: the writers go on),
    // and below the minimum those that come within verifyFillMs, while coded files still come
    const std::chrono::steady_clock::time_point until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(p.verifyFillMs);
    std::vector<VerifyRequest *> batch(1, r);
    std::size_t frames = r->frames->size();
    std::uint64_t bytes = frames * r->frameBytes;
    while (frames < maxFrames && bytes < run.verifyBytes)
    {
      const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
      const bool coming = (run.batching ? run.codersLeft : run.readersLeft).load(std::memory_order_relaxed) > 0;
      const std::chrono::milliseconds wait =
        frames < p.verifyMinFrames && now < until && coming
          ? std::chrono::duration_cast<std::chrono::milliseconds>(until - now) + std::chrono::milliseconds(1)
          : std::chrono::milliseconds(p.verifyWaitMs);
      if (!run.toVerifier.popFor(r, wait)) break;
      batch.push_back(r);
      frames += r->frames->size();
      bytes += r->frames->size() * r->frameBytes;
    }
    if (filling.owns_lock()) filling.unlock();
    timer.next(DPRCSG_verifyBatch);
    const double t0 = gpuTrace() ? DPRCTimelineNow() : 0.0;
    run.verifiers[v]->verify(batch, local, run.opt.testFault == "backend" || run.opt.testFault == "backend-verify");
    if (gpuTrace()) traceCall("verify", v, t0, frames, bytes);
    once(run.firstVerdict, "first verdict");
    for (VerifyRequest *x : batch)
    {
      // notified under the lock: the writer's request lives until it has seen done
      std::lock_guard<std::mutex> lock(x->mutex);
      x->done = true;
      x->cv.notify_one();
    }
  }
  std::lock_guard<std::mutex> lock(run.statsMutex);
  run.stats.verifierBatches += local.verifierBatches;
  run.stats.verifiedFrames += local.verifiedFrames;
  run.stats.verifiedFiles += local.verifiedFiles;
  run.stats.framesVerifiedOn[run.verifiers[v]->device()] += local.verifiedFrames;
}

/// the stages after the readers started (the gate open), and every thread joined
void runStages(Run& run, std::vector<std::thread>& threads)
{
  startJ2KFinishers(run, threads);
  for (std::size_t c = 0; c < run.coders.size(); ++c) threads.emplace_back(codeStage, std::ref(run), c);
  for (unsigned w = 0; w < run.writers; ++w) threads.emplace_back(writeStage, std::ref(run), w);
  for (std::size_t v = 0; v < run.verifiers.size(); ++v) threads.emplace_back(verifyStage, std::ref(run), v);
  for (std::thread& t : threads) t.join();
}

/// the statistics of the threads' coders (and, profiling, of the samples' buffers)
void reportStages(Run& run)
{
  DPRCTimelineMark("pipeline done");
  if (gpuTrace())
    for (ArenaPool *pool : {run.samples.get(), run.arenas.get()})
    {
      if (pool == NULL) continue;
      const ArenaPool::RegionUse u = pool->regionUse();
      std::fprintf(stderr,
                   "pcwt-recompress %s (ms): %llu buffers allocated, %.1f; region %.0f MB made in %.1f, %llu buffers "
                   "cut from it, %llu requests beyond it\n",
                   pool == run.samples.get() ? "samples" : "coder arenas",
                   static_cast<unsigned long long>(pool->allocations()), pool->allocationMs(),
                   static_cast<double>(u.bytes) / 1e6, u.ms, static_cast<unsigned long long>(u.lent),
                   static_cast<unsigned long long>(u.overflows));
    }
  run.stats.sampledFrames = run.verifyClient->sampledFrames();
  run.stats.budgetBytes = run.budgetBytes;
  const ArenaPool::RegionUse s = run.samples->regionUse();
  run.stats.sampleRegionBytes = s.bytes;
  run.stats.sampleRegionBuffers = s.lent;
  run.stats.sampleRegionBeyond = s.overflows;
  if (run.arenas)
  {
    const ArenaPool::RegionUse a = run.arenas->regionUse();
    run.stats.arenaRegionBytes = a.bytes;
    run.stats.arenaRegionBuffers = a.lent;
    run.stats.arenaRegionBeyond = a.overflows;
  }
  if (run.codestreams)
  {
    const ArenaPool::RegionUse c = run.codestreams->regionUse();
    run.stats.codestreamRegionBytes = c.bytes;
    run.stats.codestreamRegionBuffers = c.lent;
    run.stats.codestreamRegionBeyond = c.overflows;
  }
  for (const std::unique_ptr<ThreadCoder>& tc : run.lent)
  {
    run.stats.framesTaken += tc->taken;
    run.stats.framesCodedByWriters += tc->codedHere;
    run.stats.j2kOpenjpegFrames += tc->j2k.openjpeg;
    run.stats.j2kCpuLibraryFrames += tc->j2k.cpuLibrary;
  }
  for (const std::unique_ptr<J2KAheadCoder>& c : run.finishCoders)
  {
    run.stats.j2kGpuFrames += c->counts.gpu;
    run.stats.j2kOpenjpegFrames += c->counts.openjpeg;
    run.stats.j2kCpuLibraryFrames += c->counts.cpuLibrary;
  }
  for (const std::unique_ptr<J2KBatchDecoder>& d : run.j2kDecoders) run.stats.j2kCalls += d->calls;
}

} // namespace

bool DPRCRunPipeline(const std::vector<DPRCEntry>& files, const DPRCOptions& opt, const DPRCPipelineOptions& p,
                     const std::function<void(std::size_t, DPRCResult&)>& done, DPRCPipelineStats& stats,
                     std::string& error)
{
  Run run(files, opt, p, done, stats);
  planStages(run);
  makeHostHandles(run);
  connectStages(run);
  // the readers start at once, the devices come up beside them (startDevices)
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < run.readers; ++r) threads.emplace_back(readStage, std::ref(run), r);
  startJ2KBuffers(run, threads);
  if (!startDevices(run, threads, error))
  {
    // what the readers handed on is dropped, untouched
    dropJ2K(run, threads);
    for (Queue<Work> *q : {&run.toCoder, &run.toWriter})
    {
      Work *w = NULL;
      while (q->tryPop(w)) delete w;
    }
    return false;
  }
  runStages(run, threads);
  reportStages(run);
  endHandles(run);
  // (--stats: what follows, to 'pipeline freed', is the run's own end)
  DPRCTimelineMark("handles handed over");
  return true;
}
