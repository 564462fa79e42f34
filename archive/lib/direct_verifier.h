/*
 *  Module:  archive
 *
 *  Purpose: (internal) a DPRCFrameVerifier that verifies on the caller's thread (pcwt-storescp,
 *           one instance at a time per association): every frame decoded with the coding
 *           backend's decoder (a BatchVerifier lent from a pool), and the CPU decoder's sample of
 *           the frames (sample.h), as pcwt-recompress's verifier stage and writers do.
 */

#ifndef PCWT_ARCHIVE_DIRECT_VERIFIER_H
#define PCWT_ARCHIVE_DIRECT_VERIFIER_H

#include "dcmtk/config/osconfig.h"

#include "verifier.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dprc {

class DirectVerifier : public DPRCFrameVerifier
{
public:
  /** a verifier whose decoders are on backend (device 0; PCWT_BACKEND_AUTO: the GPU where there
   *  is one); every: the CPU decoder's sample of one frame in every (0: none, 1: all)
   */
  DirectVerifier(pcwt_backend backend, std::uint64_t maxSamples, unsigned every)
    : maxSamples_(maxSamples), every_(every), cpu_(maxSamples)
  {
    p_.backend = backend;
    p_.cpuCoderThreads = 1;
    p_.maxSamplesPerFrame = maxSamples;
  }

  /// the decoders can be made (one is, and kept); gpu says whether they decode on a GPU
  bool init(bool& gpu, std::string& error)
  {
    std::unique_ptr<BatchVerifier> v = make(error);
    if (!v) return false;
    gpu = gpu_ = v->gpu();
    free_.push_back(std::move(v));
    return true;
  }

  /// the decoders decode on a GPU (after init)
  bool gpu() const { return gpu_; }

  virtual std::unique_ptr<DPRCVerifyTicket> submit(const std::vector<DPRCCodestream>& frames, std::size_t frameBytes,
                                                   const unsigned char *original, const std::string& sampleKey)
  {
    std::unique_ptr<VerifyRequest> r(new VerifyRequest());
    r->frames = &frames;
    r->frameBytes = frameBytes;
    r->original = original;
    std::string error;
    std::unique_ptr<BatchVerifier> v = take(error);
    if (v)
    {
      std::vector<VerifyRequest *> batch(1, r.get());
      DPRCPipelineStats stats;
      v->verify(batch, stats);
      give(std::move(v));
    }
    else
    {
      r->reason = DPRCR_memory;
      r->error = "the coding backend's decoder: " + error;
    }
    r->done = true;
    std::unique_ptr<VerifyTicket> ticket(new VerifyTicket(std::move(r)));
    ticket->setSample(checkSample(cpu_, frames, frameBytes, original, sampleKey, every_));
    return std::unique_ptr<DPRCVerifyTicket>(ticket.release());
  }

  virtual std::uint64_t maxSamplesPerFrame() const { return maxSamples_; }

  /// the codestreams are copied to the heap (the decoders are lent one instance at a time)
  virtual DPRCSampleMemory *codestreamMemory() { return NULL; }

private:
  std::unique_ptr<BatchVerifier> make(std::string& error)
  {
    std::unique_ptr<BatchVerifier> v(new BatchVerifier());
    if (!v->init(p_, 0, error)) return std::unique_ptr<BatchVerifier>();
    return v;
  }

  /// a verifier of the pool, or a new one: as many as instances are verified at once
  std::unique_ptr<BatchVerifier> take(std::string& error)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty())
      {
        std::unique_ptr<BatchVerifier> v = std::move(free_.back());
        free_.pop_back();
        return v;
      }
    }
    return make(error);
  }

  void give(std::unique_ptr<BatchVerifier> v)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(v));
  }

  DPRCPipelineOptions p_;
  const std::uint64_t maxSamples_;
  const unsigned every_;
  bool gpu_ = false;
  CpuDecoderPool cpu_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<BatchVerifier> > free_;
};

} // namespace dprc

#endif
