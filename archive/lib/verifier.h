/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the verifier stage: the writers
 *           hand their copies over (DPRCFrameVerifier) and go on; a verifier per device decodes the
 *           copies waiting in one pcwt_verify_batch call with the coding backend (the GPU: every
 *           frame), which compares them with the originals. Meanwhile a thread of its own (the
 *           writer goes on) decodes a deterministic sample of the frames with the CPU decoder
 *           (sample.h), an implementation apart from the GPU's, and compares them too.
 */

#ifndef PCWT_ARCHIVE_VERIFIER_H
#define PCWT_ARCHIVE_VERIFIER_H

#include "dcmtk/config/osconfig.h"

#include "coder.h"
#include "engine.h"
#include "pipeline.h"
#include "queue.h"
#include "sample.h"
#include "pcwt.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
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
  /// with an error: DPRCR_memory or DPRCR_verifyFailed
  DPRC_Reason reason = DPRCR_none;
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
    // every request queued is answered: the verifier stops only when the writers are done; the
    // sample's thread is done with the frames and the original too
    std::unique_lock<std::mutex> lock(r_->mutex);
    r_->cv.wait(lock, [this]() { return r_->done; });
    if (aside_.valid()) aside_.wait();
  }

  virtual bool ready()
  {
    {
      std::lock_guard<std::mutex> lock(r_->mutex);
      if (!r_->done) return false;
    }
    return !aside_.valid() || aside_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  virtual std::string wait(DPRC_Reason& reason)
  {
    {
      std::unique_lock<std::mutex> lock(r_->mutex);
      r_->cv.wait(lock, [this]() { return r_->done; });
    }
    if (aside_.valid()) sample_ = aside_.get();
    // both verdicts said: a copy that one check alone caught shows which
    if (r_->error.empty() && sample_.error.empty()) return std::string();
    reason = (r_->reason == DPRCR_verifyFailed || sample_.reason == DPRCR_verifyFailed) ? DPRCR_verifyFailed
                                                                                          : DPRCR_memory;
    if (sample_.error.empty()) return r_->error;
    if (r_->error.empty()) return sample_.error;
    return r_->error + "; " + sample_.error;
  }

  /// the CPU decoder's verdict on the sample (on the writer's thread, before wait())
  void setSample(SampleVerdict sample) { sample_ = std::move(sample); }
  /// ... or the sample's thread, whose verdict wait() takes (before wait())
  void setSample(std::future<SampleVerdict> aside) { aside_ = std::move(aside); }

private:
  std::unique_ptr<VerifyRequest> r_;
  SampleVerdict sample_;
  std::future<SampleVerdict> aside_;
};

/** what a writer hands its copies to (DPRCFrameVerifier): the verifiers' queue, and while a
 *  verifier decodes the copy, the CPU decoder's sample of its frames, on a thread of its own (on
 *  the writer's, a radiograph's frame took the CPU decoder long enough to hold up its next files)
 */
class VerifyClient : public DPRCFrameVerifier
{
public:
  /// every: the sample of one frame in every (0: none; 1: all)
  VerifyClient(Queue<VerifyRequest>& queue, std::uint64_t maxSamples, DPRCSampleMemory *codestreams, unsigned every)
    : queue_(queue), maxSamples_(maxSamples), codestreams_(codestreams), every_(every), cpu_(maxSamples) {}

  virtual std::unique_ptr<DPRCVerifyTicket> submit(const std::vector<DPRCCodestream>& frames, std::size_t frameBytes,
                                                   const unsigned char *original, const std::string& sampleKey)
  {
    std::unique_ptr<VerifyRequest> r(new VerifyRequest());
    r->frames = &frames;
    r->frameBytes = frameBytes;
    r->original = original;
    VerifyRequest *const queued = r.get();
    // the ticket first: whatever happens next, the request outlives the verifier's use of it
    std::unique_ptr<VerifyTicket> ticket(new VerifyTicket(std::move(r)));
    queue_.push(queued);
    bool sampled = false;
    for (std::size_t f = 0; f < frames.size() && !sampled; ++f) sampled = DPRCSampledFrame(sampleKey, f, every_);
    if (!sampled) return std::unique_ptr<DPRCVerifyTicket>(ticket.release());
    // the ticket waits for the thread before the frames and the original go
    const std::string key = sampleKey;
    auto check = [this, &frames, frameBytes, original, key]() {
      SampleVerdict v = checkSample(cpu_, frames, frameBytes, original, key, every_);
      sampledFrames_ += v.frames;
      return v;
    };
    try
    {
      ticket->setSample(std::async(std::launch::async, check));
      return std::unique_ptr<DPRCVerifyTicket>(ticket.release());
    }
    catch (const std::system_error&)
    {
      // no thread to be had: here
    }
    ticket->setSample(check());
    return std::unique_ptr<DPRCVerifyTicket>(ticket.release());
  }

  virtual std::uint64_t maxSamplesPerFrame() const { return maxSamples_; }

  virtual DPRCSampleMemory *codestreamMemory() { return codestreams_; }

  /// the frames the CPU decoder checked so far
  std::uint64_t sampledFrames() const { return sampledFrames_; }

private:
  Queue<VerifyRequest>& queue_;
  const std::uint64_t maxSamples_;
  DPRCSampleMemory *const codestreams_;
  const unsigned every_;
  CpuDecoderPool cpu_;
  std::atomic<std::uint64_t> sampledFrames_{0};
};

/** verifies the copies of several writers in one pcwt_verify_batch call (on the CPU: split over
 *  threads): every frame decoded and compared with its original, with a GPU on the device (the
 *  originals go up beside the codestreams; nothing decoded comes back)
 */
class BatchVerifier
{
public:
  BatchVerifier() {}
  ~BatchVerifier()
  {
    for (pcwt_decoder *d : decoders_) pcwt_decoder_destroy(d);
  }

  /// decoders of the coding backend (p.backend) on device
  bool init(const DPRCPipelineOptions& p, int device, std::string& error)
  {
    device_ = device;
    const unsigned n = std::max(1u, p.cpuCoderThreads);
    for (unsigned t = 0; t < n; ++t)
    {
      pcwt_decoder *d = makeDecoder(t ? PCWT_BACKEND_CPU : p.backend, device, error);
      if (d == NULL) return false;
      decoders_.push_back(d);
      if (pcwt_decoder_set_max_samples(d, p.maxSamplesPerFrame) != PCWT_OK)
      {
        error = std::string("libpcwt decoder: ") + pcwt_decoder_last_error(d);
        return false;
      }
      // the GPU verifies a batch at once; the CPU decoder one frame after another, so split the batch
      if (pcwt_decoder_backend(d) != PCWT_BACKEND_CPU) break;
    }
    return true;
  }

  /// the GPU decodes (page-locked host memory goes up without staging)
  bool gpu() const { return pcwt_decoder_backend(decoders_[0]) != PCWT_BACKEND_CPU; }
  /// the device it was made for
  int device() const { return device_; }

  /** small frames verified, `repeat` of them in turn, in one call before the first copy, so that
   *  the decoder's device buffers are those of the largest batch from the start
   *  (BatchCoder::warm); expected[k]: codestreams[k]'s samples (expectedBytes), page locked as the
   *  originals are; the outcome is not used
   */
  void warm(const std::vector<std::vector<unsigned char> >& codestreams,
            const std::vector<const std::uint16_t *>& expected, std::size_t expectedBytes, std::size_t repeat)
  {
    if (codestreams.empty() || codestreams.size() != expected.size() || repeat == 0) return;
    pcwt_verify_job j;
    std::memset(&j, 0, sizeof j);
    j.status = PCWT_ERR_INVALID_ARGUMENT;
    j.expected_size = expectedBytes;
    std::vector<pcwt_verify_job> jobs(repeat, j);
    for (std::size_t k = 0; k < repeat; ++k)
    {
      const std::size_t f = k % codestreams.size();
      jobs[k].src = codestreams[f].data();
      jobs[k].src_size = codestreams[f].size();
      jobs[k].expected = expected[f];
    }
    const pcwt_status st = pcwt_verify_batch(decoders_[0], jobs.data(), jobs.size());
    (void)st;
  }

  /** verify every frame of the batch's copies; each request gets its verdict in its error.
   *  failBackend (tests): the call fails as a broken GPU's
   */
  void verify(const std::vector<VerifyRequest *>& batch, DPRCPipelineStats& stats, bool failBackend = false)
  {
    std::vector<pcwt_verify_job> jobs;
    for (const VerifyRequest *r : batch)
    {
      for (std::size_t f = 0; f < r->frames->size(); ++f)
      {
        pcwt_verify_job j;
        std::memset(&j, 0, sizeof j);
        j.src = (*r->frames)[f].data;
        j.src_size = (*r->frames)[f].size;
        j.expected = r->original + f * r->frameBytes;
        j.expected_size = r->frameBytes;
        j.status = PCWT_ERR_INVALID_ARGUMENT; // until the decoder says otherwise
        jobs.push_back(j);
      }
    }
    if (failBackend)
      for (pcwt_verify_job& j : jobs) j.status = PCWT_ERR_BACKEND_UNAVAILABLE;
    else if (!jobs.empty()) // the per-frame statuses decide
      runSplit(decoders_, jobs, [](const pcwt_verify_job& j) { return j.expected_size; },
               [](pcwt_decoder *d, pcwt_verify_job *j, std::size_t n) { const pcwt_status st = pcwt_verify_batch(d, j, n); (void)st; });
    ++stats.verifierBatches;
    std::size_t k = 0;
    for (VerifyRequest *r : batch)
    {
      for (std::size_t f = 0; f < r->frames->size(); ++f, ++k)
      {
        if (jobs[k].status == PCWT_OK || !r->error.empty()) continue;
        // out of memory is the verifier's lack, not the copy's fault
        r->reason = jobs[k].status == PCWT_ERR_OUT_OF_MEMORY ? DPRCR_memory : DPRCR_verifyFailed;
        r->error = gpu() ? "the GPU decoder: " : "the coding backend's decoder (the CPU): ";
        if (jobs[k].status == PCWT_ERR_MISMATCH)
          r->error += "decoded pixel data differs from the original at byte " +
                      std::to_string(f * r->frameBytes + jobs[k].first_difference);
        else
          r->error += "cannot decode the new copy: frame " + std::to_string(f + 1) + ": libpcwt: " +
                      pcwt_status_string(jobs[k].status);
      }
      stats.verifiedFrames += r->frames->size();
      ++stats.verifiedFiles;
    }
  }

private:
  std::vector<pcwt_decoder *> decoders_;
  int device_ = 0;
};

} // namespace dprc

#endif
