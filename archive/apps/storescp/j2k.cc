/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescp: JPEG 2000 input decoded on a GPU (j2k.h).
 */

#include "dcmtk/config/osconfig.h"
#include "j2k.h"

#include "dcmpcwt/dpthrcod.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace dprc;

/// one data set waiting for the decoder threads, and the association's thread waiting for it
struct DPSCPJ2KDecoding::Request
{
  J2KWork work;
  /// the call's data sets and declared frames (set before decoded)
  std::size_t dataSets = 0;
  std::uint64_t frames = 0;
  /// set under the service's doneMutex_: the decoder thread touches the request no more
  bool decoded = false;
};

bool DPSCPJ2KDecoding::start(DPRC_J2KDecoder choice, std::uint64_t maxSamples, std::string& error)
{
  // auto is the GPU where there is one (1.88x OpenJPEG with 8 associations; bench/results/
  // gpu-h200-2026-11-28-j2k-storescp-buffers.md), else OpenJPEG; the CPU stands in for the GPU
  // only when gpu is asked for
  if (choice == DPRCJD_cpu) return true;
  const char *standIn = std::getenv("PCWT_RECOMPRESS_J2K_STANDIN");
  const char *fault = std::getenv("PCWT_RECOMPRESS_FAULT");
  gpu_ = choice == DPRCJD_auto || !(standIn && std::strcmp(standIn, "cpu") == 0);
  failBackend_ = fault && (std::strcmp(fault, "backend") == 0 || std::strcmp(fault, "backend-j2k") == 0);
  for (unsigned k = 0; k < std::max(1u, limits_.j2kDecodersPerDevice); ++k)
  {
    std::unique_ptr<J2KBatchDecoder> d(new J2KBatchDecoder());
    if (!d->init(gpu_, 0, maxSamples, error))
    {
      decoders_.clear();
      gpu_ = false;
      if (choice != DPRCJD_auto) return false;
      autoWithout_ = error;
      error.clear();
      return true;
    }
    decoders_.push_back(std::move(d));
  }
  // the decoded samples of a batch in one buffer (page-locked for the GPU), each data set's until
  // its association's thread has taken them
  samples_ = std::make_shared<ArenaPool>(3, "j2k", gpu_);
  for (std::size_t k = 0; k < decoders_.size(); ++k) threads_.emplace_back(&DPSCPJ2KDecoding::decodeStage, this, k);
  return true;
}

void DPSCPJ2KDecoding::stop()
{
  queue_.close();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

/// a batch decoder thread: the data sets waiting now (no waiting for more: a sender waits for
/// each answer), within pcwt-recompress's batch limits, in one call
void DPSCPJ2KDecoding::decodeStage(std::size_t k)
{
  // the decoder's device state (context, kernels, buffers) made before the first data set comes
  decoders_[k]->warm();
  Request *r = NULL;
  while (queue_.pop(r))
  {
    std::vector<Request *> requests;
    std::vector<J2KWork *> batch;
    std::uint64_t frames = 0, bytes = 0;
    for (;;)
    {
      requests.push_back(r);
      batch.push_back(&r->work);
      J2KBatchDecoder::declared(*r->work.work, frames, bytes);
      if (frames >= limits_.j2kBatchFrames || bytes >= limits_.j2kBatchBytes || !queue_.tryPop(r)) break;
    }
    decoders_[k]->decode(batch, *samples_, failBackend_);
    {
      std::lock_guard<std::mutex> lock(doneMutex_);
      for (Request *q : requests)
      {
        q->dataSets = requests.size();
        q->frames = frames;
        q->decoded = true;
      }
    }
    done_.notify_all();
  }
}

bool DPSCPJ2KDecoding::prepareDecoded(Work& work, const DPRCOptions& options, unsigned slot, J2KCounts& counts,
                                      DPSCPJ2KWait& wait)
{
  const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  Request request;
  request.work.work = &work;
  queue_.push(&request);
  {
    std::unique_lock<std::mutex> lock(doneMutex_);
    done_.wait(lock, [&request]() { return request.decoded; });
  }
  wait.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  wait.dataSets = request.dataSets;
  wait.frames = request.frames;
  // the codec takes the frames decoded ahead, OpenJPEG decodes the others
  J2KAheadCoder coder;
  coder.setFrames(&request.work.frames);
  DPCWTThreadCoder *before = DPCWTSetThreadCoder(&coder);
  const bool go = DPRCPrepareDecoded(work.job, options, slot);
  DPCWTSetThreadCoder(before);
  coder.setFrames(NULL);
  counts = coder.counts;
  return go;
}
