/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: readers -> batch coders -> writers (pipeline.h); the
 *           stages' pieces are in queue.h, arena.h, coder.h and verifier.h.
 */

#include "dcmtk/config/osconfig.h"
#include "pipeline.h"

#include "dcmpcwt/dpthrcod.h"
#include "arena.h"
#include "coder.h"
#include "queue.h"
#include "verifier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

using namespace dprc;

bool DPRCRunPipeline(const std::vector<DPRCEntry>& files, const DPRCOptions& opt, const DPRCPipelineOptions& p,
                     const std::function<void(std::size_t, DPRCResult&)>& done, DPRCPipelineStats& stats,
                     std::string& error)
{
  const unsigned readers = std::max(1u, p.readers);
  const unsigned writers = (opt.dryRun || files.empty()) ? 0u : std::max(1u, p.writers);
  const bool batching = p.batchFrames > 0 && opt.target == DPRCT_pcwt && !opt.dryRun && !files.empty();
  const std::vector<int> devices = p.devices.empty() ? std::vector<int>(1, 0) : p.devices;

  // every handle is made before the first file is touched: a missing GPU stops the run here
  std::vector<std::unique_ptr<BatchCoder> > coders;
  std::shared_ptr<ArenaPool> arenas = std::make_shared<ArenaPool>(1, "coder", false);
  if (batching)
  {
    for (int d : devices)
    {
      coders.emplace_back(new BatchCoder(arenas));
      if (!coders.back()->init(p, d, error)) return false;
      // several coders on a device when asked: one stages and lays out a batch while another's is
      // on the device (on an H100 two were slower than one, so one is the default)
      const unsigned per = p.codersPerDevice ? p.codersPerDevice : 1u;
      for (unsigned k = 1; k < per; ++k)
      {
        coders.emplace_back(new BatchCoder(arenas));
        if (!coders.back()->init(p, d, error)) return false;
      }
    }
  }
  stats.coders = static_cast<unsigned>(coders.size());
  // With a GPU the codestreams go straight into page-locked arenas, and the files' samples come
  // from page-locked buffers: no staging copies on the coder's thread (unpack 0.44 s and stage
  // 0.76 s per 8 GB on the H100), and the buffers are reused, not faulted in anew for each file.
  // Page-locked memory is cheap to get now (host_pinned.cu: 0.2 s per GB).
  const bool gpuCoders = !coders.empty() && coders[0]->gpu();
  arenas->setPinned(gpuCoders);
  // Batches the memory budget admits besides one in each coder: one being read and three being
  // written and verified; with one being written, the readers waited for the budget most of their
  // time (H100, 8 GB: 76%; 65% with three)
  const std::size_t batchesBesideCoders = 4;
  // a batch counts as at least 64 MB: with the default 32 MB batches, ten in flight
  const std::uint64_t budgetBytes = std::max<std::uint64_t>(p.batchBytes, 64u << 20) *
                                    (batchesBesideCoders + std::max<std::size_t>(1, coders.size()));
  // output arenas kept: one for each batch the budget admits, one spare (a batch being written
  // holds its arena until its last file is)
  arenas->setKeep(static_cast<std::size_t>(budgetBytes / std::max<std::uint64_t>(p.batchBytes, 1)) + 1);
  // the verifier stage: a thread per device
  const bool verifying = p.verifyBatches && writers > 0 && opt.target == DPRCT_pcwt;
  std::vector<std::unique_ptr<BatchVerifier> > verifiers;
  // A verifier batch takes at most about this much (and one file more): with a GPU the samples
  // decoded and the originals stay on the device, compared there (pcwt_verify_batch)
  // (128 MB measured the same on the H100: 2.71 against 2.81-3.25 s per 8 GB)
  const std::uint64_t verifyBytes = std::min<std::uint64_t>(p.batchBytes, 64u << 20);
  if (verifying)
  {
    for (int d : devices)
    {
      verifiers.emplace_back(new BatchVerifier());
      if (!verifiers.back()->init(p, d, error)) return false;
    }
  }
  stats.verifiers = static_cast<unsigned>(verifiers.size());
  std::vector<std::unique_ptr<ThreadCoder> > lent;
  for (unsigned t = 0; t < readers + writers; ++t)
  {
    lent.emplace_back(new ThreadCoder());
    if (!lent.back()->init(p.backend, p.decodeBackend, devices[t % devices.size()], error)) return false;
  }

  // temporary file slots: group slots for each writer (its verified copies waiting for their
  // commit), readers after them (--copy-others copies)
  const unsigned group = std::max(1u, p.commitGroup);
  DPRCInstallSignalHandlers(writers * group + readers);
  Queue<Work> toCoder, toWriter;
  Budget budget(budgetBytes);
  // the samples' buffers, reused by file after file (kept until the end: at most what each size
  // had in use at once, and the budget bounds what is in use)
  std::shared_ptr<ArenaPool> samples = std::make_shared<ArenaPool>(1, "samples", gpuCoders);
  samples->setSizeClasses();
  std::atomic<std::size_t> next(0);
  DPRCTimelineMark("handles made");
  // --stats' timeline: the first of each (a flag each, not the timeline's lock for every file)
  std::atomic<bool> firstRead(false), firstBatch(false), firstWritten(false), firstVerdict(false);
  auto once = [](std::atomic<bool>& seen, const char *what) {
    if (!seen.exchange(true, std::memory_order_relaxed)) DPRCTimelineMark(what);
  };
  Queue<VerifyRequest> toVerifier;
  // the codestreams the writers read back and hand over, copied out of DCMTK's buffers on the
  // writers' threads, page locked with a GPU (staged on the verifier's one thread instead, they
  // took 0.49 s per 8 GB in a profiled run on the H200, where the verifier is busy 1.5-1.7 s)
  std::shared_ptr<ArenaPool> codestreams =
    std::make_shared<ArenaPool>(1, "codestreams", !verifiers.empty() && verifiers[0]->gpu());
  codestreams->setSizeClasses();
  VerifyClient verifyClient(toVerifier, p.maxSamplesPerFrame, codestreams.get());
  std::atomic<unsigned> readersLeft(readers), codersLeft(static_cast<unsigned>(coders.size())), writersLeft(writers);
  std::mutex statsMutex;

  std::vector<std::thread> threads;
  for (unsigned r = 0; r < readers; ++r)
  {
    threads.emplace_back([&, r]() {
      ThreadCoder& tc = *lent[writers + r];
      DPCWTSetThreadCoder(&tc);
      for (;;)
      {
        const std::size_t i = next.fetch_add(1);
        if (i >= files.size()) break;
        std::unique_ptr<Work> w(new Work());
        w->index = i;
        w->reserved = std::max<std::uint64_t>(files[i].size, 1);
        {
          DPRCStageTimer wait(DPRCSG_readerWait);
          budget.acquire(w->reserved);
        }
        if (!DPRCPrepare(w->job, files[i], opt, writers * group + r, samples.get()))
        {
          budget.release(w->reserved);
          done(i, w->job.result);
          continue;
        }
        once(firstRead, "first file read");
        // decoded, the file may hold more than its size on disk
        const std::uint64_t held = w->job.original.size();
        if (held > w->reserved)
        {
          budget.grow(held - w->reserved);
          w->reserved = held;
        }
        if (batching) toCoder.push(w.release());
        else toWriter.push(w.release());
      }
      DPCWTSetThreadCoder(NULL);
      if (--readersLeft == 0)
      {
        DPRCTimelineMark("readers done");
        if (batching) toCoder.close();
        else toWriter.close();
      }
    });
  }
  for (std::size_t c = 0; c < coders.size(); ++c)
  {
    threads.emplace_back([&, c]() {
      DPRCPipelineStats local;
      for (;;)
      {
        std::vector<Work *> batch;
        Work *w = NULL;
        DPRCStageTimer timer(DPRCSG_coderWait);
        if (!toCoder.pop(w)) break;
        std::uint64_t frames = 0, bytes = 0;
        for (;;)
        {
          batch.push_back(w);
          frames += w->job.module.number_of_frames;
          bytes += w->job.original.size();
          // more files while the batch has room and they come soon (readers keep up with a GPU
          // only in bursts: a short wait fills the batch)
          if (frames >= p.batchFrames || bytes >= p.batchBytes) break;
          if (!toCoder.popFor(w, std::chrono::milliseconds(p.batchWaitMs))) break;
        }
        timer.next(DPRCSG_code);
        if (!firstBatch.load(std::memory_order_relaxed)) DPRCTimelineMark("first batch in");
        coders[c]->code(batch, local);
        once(firstBatch, "first batch coded");
        for (Work *x : batch) toWriter.push(x);
      }
      {
        std::lock_guard<std::mutex> lock(statsMutex);
        stats.calls += local.calls;
        stats.frames += local.frames;
        stats.files += local.files;
      }
      if (--codersLeft == 0)
      {
        DPRCTimelineMark("coders done");
        toWriter.close();
      }
    });
  }
  for (unsigned wi = 0; wi < writers; ++wi)
  {
    threads.emplace_back([&, wi]() {
      ThreadCoder& tc = *lent[wi];
      DPCWTSetThreadCoder(&tc);
      // copies written wait here for their commit: flushed, renamed and their folders flushed
      // together, when the group is full or no coded file is waiting. With the verifier their
      // verdicts are taken first, as soon as they are in (the writer goes on meanwhile, so that
      // the verifier gets the copies of many files at once); each holds its samples until then.
      std::vector<std::unique_ptr<Work> > pending;
      std::vector<bool> slotUsed(group, false);
      auto release = [&](Work& w) {
        budget.release(w.reserved);
        w.reserved = 0;
      };
      // take the verdicts that are in (all of them: wait for the rest)
      auto takeVerdicts = [&](bool all) {
        for (std::size_t k = 0; k < pending.size();)
        {
          DPRCJob& job = pending[k]->job;
          if (!job.pending || (!all && !DPRCVerifiedReady(job)))
          {
            ++k;
            continue;
          }
          const bool kept = DPRCAwaitVerified(job, opt);
          release(*pending[k]); // its samples are released
          if (kept)
          {
            ++k;
            continue;
          }
          done(pending[k]->index, job.result);
          slotUsed[pending[k]->slot] = false;
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        }
      };
      auto commit = [&]() {
        takeVerdicts(true);
        if (pending.empty()) return;
        std::vector<DPRCJob *> jobs;
        for (const std::unique_ptr<Work>& w : pending) jobs.push_back(&w->job);
        DPRCCommit(jobs, opt);
        for (const std::unique_ptr<Work>& w : pending) done(w->index, w->job.result);
        pending.clear();
        std::fill(slotUsed.begin(), slotUsed.end(), false);
      };
      Work *x = NULL;
      for (;;)
      {
        if (!toWriter.tryPop(x))
        {
          commit();
          DPRCStageTimer wait(DPRCSG_writerWait);
          if (!toWriter.pop(x)) break;
        }
        std::unique_ptr<Work> w(x);
        tc.setJob(&w->job);
        // a free slot of this writer's group for the temporary file (taken until the commit)
        w->slot = static_cast<unsigned>(std::find(slotUsed.begin(), slotUsed.end(), false) - slotUsed.begin());
        const bool written = DPRCWriteVerified(w->job, opt, wi * group + w->slot, verifying ? &verifyClient : NULL);
        tc.setJob(NULL);
        once(firstWritten, "first file written");
        if (!w->job.pending) release(*w); // its samples and data set are released
        if (written)
        {
          slotUsed[w->slot] = true;
          pending.push_back(std::move(w));
          takeVerdicts(false);
          if (pending.size() >= group) commit();
        }
        else
          done(w->index, w->job.result);
      }
      commit();
      DPCWTSetThreadCoder(NULL);
      if (--writersLeft == 0)
      {
        DPRCTimelineMark("writers done");
        toVerifier.close();
      }
    });
  }
  for (std::size_t v = 0; v < verifiers.size(); ++v)
  {
    threads.emplace_back([&, v]() {
      DPRCPipelineStats local;
      const std::size_t maxFrames = p.batchFrames ? p.batchFrames : 1024;
      for (;;)
      {
        DPRCStageTimer timer(DPRCSG_verifierWait);
        VerifyRequest *r = NULL;
        if (!toVerifier.pop(r)) break;
        // the copies waiting already (more arrive while this batch is decoded: the writers go on)
        std::vector<VerifyRequest *> batch(1, r);
        std::size_t frames = r->frames->size();
        std::uint64_t bytes = frames * r->frameBytes;
        while (frames < maxFrames && bytes < verifyBytes &&
               toVerifier.popFor(r, std::chrono::milliseconds(p.verifyWaitMs)))
        {
          batch.push_back(r);
          frames += r->frames->size();
          bytes += r->frames->size() * r->frameBytes;
        }
        timer.next(DPRCSG_verifyBatch);
        verifiers[v]->verify(batch, local);
        once(firstVerdict, "first verdict");
        for (VerifyRequest *x : batch)
        {
          // notified under the lock: the writer's request lives until it has seen done
          std::lock_guard<std::mutex> lock(x->mutex);
          x->done = true;
          x->cv.notify_one();
        }
      }
      std::lock_guard<std::mutex> lock(statsMutex);
      stats.verifierBatches += local.verifierBatches;
      stats.verifiedFrames += local.verifiedFrames;
      stats.verifiedFiles += local.verifiedFiles;
    });
  }
  for (std::thread& t : threads) t.join();
  DPRCTimelineMark("pipeline done");
  if (gpuProfile())
    std::fprintf(stderr, "pcwt-recompress samples (ms): %llu buffers allocated, %.1f\n",
                 static_cast<unsigned long long>(samples->allocations()), samples->allocationMs());
  for (const std::unique_ptr<ThreadCoder>& tc : lent)
  {
    stats.framesTaken += tc->taken;
    stats.framesCodedByWriters += tc->codedHere;
  }
  return true;
}
