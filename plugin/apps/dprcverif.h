/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (dprcpipe.h): the verifier stage: the writers
 *           hand their copies over (DPRCFrameVerifier) and go on; a verifier per device decodes the
 *           copies waiting in one pcwt_decode_batch call and compares them with the originals.
 */

#ifndef DCMPCWT_DPRCVERIF_H
#define DCMPCWT_DPRCVERIF_H

#include "dcmtk/config/osconfig.h"

#include "dprcarena.h"
#include "dprccoder.h"
#include "dprcfile.h"
#include "dprcpipe.h"
#include "dprcqueue.h"
#include "pcwt.h"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dprc {

/// a writer's copy for the verifier, and the verdict
struct VerifyRequest
{
  const std::vector<DPRCCodestream> *frames = NULL;
  std::size_t frameBytes = 0;
  const unsigned char *original = NULL;
  /// empty: every frame decoded to the original's samples
  std::string error;
  bool done = false;
  std::mutex mutex;
  std::condition_variable cv;
};

/// a writer's copy with the verifier: dropped, it waits until the verifier is done with it
class VerifyTicket : public DPRCVerifyTicket
{
public:
  explicit VerifyTicket(std::unique_ptr<VerifyRequest> r) : r_(std::move(r)) {}
  ~VerifyTicket()
  {
    // every request queued is answered: the verifier stops only when the writers are done
    std::unique_lock<std::mutex> lock(r_->mutex);
    r_->cv.wait(lock, [this]() { return r_->done; });
  }

  virtual bool ready()
  {
    std::lock_guard<std::mutex> lock(r_->mutex);
    return r_->done;
  }

  virtual std::string wait()
  {
    std::unique_lock<std::mutex> lock(r_->mutex);
    r_->cv.wait(lock, [this]() { return r_->done; });
    return r_->error;
  }

private:
  std::unique_ptr<VerifyRequest> r_;
};

/// what a writer hands its copies to: the verifiers' queue (DPRCFrameVerifier)
class VerifyClient : public DPRCFrameVerifier
{
public:
  VerifyClient(Queue<VerifyRequest>& queue, std::uint64_t maxSamples) : queue_(queue), maxSamples_(maxSamples) {}

  virtual std::unique_ptr<DPRCVerifyTicket> submit(const std::vector<DPRCCodestream>& frames, std::size_t frameBytes,
                                                   const unsigned char *original)
  {
    std::unique_ptr<VerifyRequest> r(new VerifyRequest());
    r->frames = &frames;
    r->frameBytes = frameBytes;
    r->original = original;
    queue_.push(r.get());
    return std::unique_ptr<DPRCVerifyTicket>(new VerifyTicket(std::move(r)));
  }

  virtual std::uint64_t maxSamplesPerFrame() const { return maxSamples_; }

private:
  Queue<VerifyRequest>& queue_;
  const std::uint64_t maxSamples_;
};

/** the first byte where a and b differ in each of several byte ranges, or SIZE_MAX where they are
 *  equal, on several threads for large ranges (the comparison is bound by memory bandwidth)
 */
struct CompareRange
{
  const unsigned char *a;
  const unsigned char *b;
  std::size_t size;
  std::size_t firstDiff;
};

inline void compareRanges(std::vector<CompareRange>& ranges)
{
  std::size_t total = 0;
  for (CompareRange& r : ranges)
  {
    r.firstDiff = SIZE_MAX;
    total += r.size;
  }
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  // a thread per 2 MB (a verifier batch is often 5-20 MB; one thread compared 10 MB in ~2 ms)
  const std::size_t parts = std::min<std::size_t>({total / (std::size_t(2) << 20) + 1, 8, std::max<std::size_t>(1, cores / 2)});
  std::vector<std::vector<std::size_t> > found(parts, std::vector<std::size_t>(ranges.size(), SIZE_MAX));
  // part t compares bytes [t * total / parts, (t + 1) * total / parts) of the ranges end to end
  auto run = [&](std::size_t t) {
    const std::size_t b = total / parts * t + std::min(t, total % parts);
    const std::size_t e = b + total / parts + (t < total % parts);
    std::size_t at = 0;
    for (std::size_t k = 0; k < ranges.size() && at < e; at += ranges[k].size, ++k)
    {
      const std::size_t lo = std::max(at, b), hi = std::min(at + ranges[k].size, e);
      if (lo >= hi) continue;
      const unsigned char *x = ranges[k].a + (lo - at), *y = ranges[k].b + (lo - at);
      if (std::memcmp(x, y, hi - lo) == 0) continue;
      std::size_t i = 0;
      while (x[i] == y[i]) ++i;
      found[t][k] = lo - at + i;
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < parts; ++t) threads.emplace_back(run, t);
  run(0);
  for (std::thread& th : threads) th.join();
  for (std::size_t t = 0; t < parts; ++t)
    for (std::size_t k = 0; k < ranges.size(); ++k) ranges[k].firstDiff = std::min(ranges[k].firstDiff, found[t][k]);
}

/// decodes the copies of several writers in one pcwt_decode_batch call (on the CPU: split over
/// threads) and compares them with their originals
class BatchVerifier
{
public:
  explicit BatchVerifier(const std::shared_ptr<ArenaPool>& pool) : pool_(pool) {}
  ~BatchVerifier()
  {
    for (pcwt_decoder *d : decoders_) pcwt_decoder_destroy(d);
  }

  bool init(const DPRCPipelineOptions& p, int device, std::string& error)
  {
    const unsigned n = std::max(1u, p.cpuCoderThreads);
    for (unsigned t = 0; t < n; ++t)
    {
      pcwt_decoder *d = makeDecoder(t ? PCWT_BACKEND_CPU : p.decodeBackend, device, error);
      if (d == NULL) return false;
      decoders_.push_back(d);
      if (pcwt_decoder_set_max_samples(d, p.maxSamplesPerFrame) != PCWT_OK)
      {
        error = std::string("libpcwt decoder: ") + pcwt_decoder_last_error(d);
        return false;
      }
      // the GPU decodes a batch at once; the CPU decoder one frame after another, so split the batch
      if (pcwt_decoder_backend(d) != PCWT_BACKEND_CPU) break;
    }
    return true;
  }

  /// decode every frame of the batch's copies and compare them; each request gets its verdict
  void decode(const std::vector<VerifyRequest *>& batch, DPRCPipelineStats& stats)
  {
    std::vector<std::size_t> at(batch.size());
    std::size_t total = 0;
    for (std::size_t i = 0; i < batch.size(); ++i)
    {
      at[i] = total;
      total += (batch[i]->frames->size() * batch[i]->frameBytes + 63) & ~std::size_t(63);
    }
    // the decoded frames in an arena (page-locked with a GPU: written by the device directly), back
    // in the pool after the comparison here
    std::shared_ptr<unsigned char> arena = pool_->get(total ? total : 1);
    if (!arena)
    {
      for (VerifyRequest *r : batch) r->error = "out of memory for the decoded frames";
      return;
    }
    std::vector<pcwt_decode_job> jobs;
    for (std::size_t i = 0; i < batch.size(); ++i)
    {
      const VerifyRequest& r = *batch[i];
      for (std::size_t f = 0; f < r.frames->size(); ++f)
      {
        unsigned char *dst = arena.get() + at[i] + f * r.frameBytes;
        // the arena holds earlier batches' frames (copies of the same image too): the first and
        // last bytes of each frame differ from the original until the decoder writes the frame
        const unsigned char *orig = r.original + f * r.frameBytes;
        const std::size_t n = std::min<std::size_t>(8, r.frameBytes);
        for (std::size_t k = 0; k < n; ++k)
        {
          dst[k] = static_cast<unsigned char>(~orig[k]);
          dst[r.frameBytes - 1 - k] = static_cast<unsigned char>(~orig[r.frameBytes - 1 - k]);
        }
        pcwt_decode_job j;
        std::memset(&j, 0, sizeof j);
        j.src = (*r.frames)[f].data;
        j.src_size = (*r.frames)[f].size;
        j.dst = dst;
        j.dst_capacity = r.frameBytes;
        j.status = PCWT_ERR_INVALID_ARGUMENT; // until the decoder says otherwise
        jobs.push_back(j);
      }
    }
    if (!jobs.empty()) // the per-frame statuses decide
      runSplit(decoders_, jobs, [](const pcwt_decode_job& j) { return j.dst_capacity; },
               [](pcwt_decoder *d, pcwt_decode_job *j, std::size_t n) { const pcwt_status st = pcwt_decode_batch(d, j, n); (void)st; });
    ++stats.verifierBatches;
    // every sample of each copy whose frames all decoded, against its original
    std::vector<CompareRange> ranges;
    std::vector<std::size_t> rangeOf(batch.size(), SIZE_MAX);
    std::size_t k = 0;
    for (std::size_t i = 0; i < batch.size(); ++i)
    {
      VerifyRequest& r = *batch[i];
      for (std::size_t f = 0; f < r.frames->size(); ++f, ++k)
        if (jobs[k].status != PCWT_OK && r.error.empty())
          r.error = "cannot decode the new copy: frame " + std::to_string(f + 1) + ": libpcwt: " +
                    pcwt_status_string(jobs[k].status);
      if (r.error.empty())
      {
        rangeOf[i] = ranges.size();
        ranges.push_back(CompareRange{arena.get() + at[i], r.original, r.frames->size() * r.frameBytes, SIZE_MAX});
      }
      stats.verifiedFrames += r.frames->size();
      ++stats.verifiedFiles;
    }
    compareRanges(ranges);
    for (std::size_t i = 0; i < batch.size(); ++i)
      if (rangeOf[i] != SIZE_MAX && ranges[rangeOf[i]].firstDiff != SIZE_MAX)
        batch[i]->error = "decoded pixel data differs from the original at byte " + std::to_string(ranges[rangeOf[i]].firstDiff);
  }

private:
  std::vector<pcwt_decoder *> decoders_;
  std::shared_ptr<ArenaPool> pool_;
};

} // namespace dprc

#endif
