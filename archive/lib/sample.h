/*
 *  Module:  archive
 *
 *  Purpose: (internal) the frames that the CPU decoder checks besides the coding backend's
 *           verifier (pcwt-recompress --verify-sample, pcwt-storescp): a deterministic sample,
 *           drawn by a hash of the file's identity and the frame's index, so that a run again
 *           over the same files checks the same frames.
 */

#ifndef PCWT_ARCHIVE_SAMPLE_H
#define PCWT_ARCHIVE_SAMPLE_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"
#include "walk.h"
#include "pcwt.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

/// the default sample: one frame in 64
static const unsigned kDPRCDefaultVerifySample = 64;

/** whether frame (0-based) of the file named key is in the sample of one frame in every
 *  (0: none, 1: all). key is the file's relative path (DPRCEntry::rel) or, for a received
 *  instance, its SOP Instance UID. The path's hash (DPRCHash, also the shards') is mixed with the
 *  frame index by a SplitMix64 finaliser, so that the sample is not correlated with the shard:
 *  64 shards with a sample of 1 in 64 still check frames in every shard.
 */
inline bool DPRCSampledFrame(const std::string& key, std::uint64_t frame, unsigned every)
{
  if (every == 0) return false;
  if (every == 1) return true;
  std::uint64_t z = DPRCHash(key) + (frame + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z % every == 0;
}

/** the order to read files in when the CPU decoder checks a sample of one frame in every: the
 *  files whose first frame is in the sample first, then the others, each part in the walk's order
 *  (every 0 or 1: the walk's order). The CPU decodes a sampled frame on one thread (a radiograph's
 *  in tens of milliseconds); a file read late held the run's end back by as long
 *  (bench/results/gpu-h200-2026-11-29-session14-recompress.md). A later frame of a file is not
 *  known before it is read: its sample stays where the file comes.
 */
inline std::vector<std::size_t> DPRCSampledFirst(const std::vector<DPRCEntry>& files, unsigned every)
{
  std::vector<std::size_t> order, rest;
  order.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i)
    (every > 1 && DPRCSampledFrame(files[i].rel, 0, every) ? order : rest).push_back(i);
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

namespace dprc {

/// CPU decoders lent to the threads that check samples (a decoder serves one thread at a time)
class CpuDecoderPool
{
public:
  explicit CpuDecoderPool(std::uint64_t maxSamples) : maxSamples_(maxSamples) {}
  ~CpuDecoderPool()
  {
    for (pcwt_decoder *d : free_) pcwt_decoder_destroy(d);
  }
  CpuDecoderPool(const CpuDecoderPool&) = delete;
  CpuDecoderPool& operator=(const CpuDecoderPool&) = delete;

  /// a decoder (NULL: out of memory, error says so); give() it back
  pcwt_decoder *take(std::string& error)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty())
      {
        pcwt_decoder *d = free_.back();
        free_.pop_back();
        return d;
      }
    }
    pcwt_decoder *d = pcwt_decoder_create();
    if (d == NULL || pcwt_decoder_set_backend(d, PCWT_BACKEND_CPU) != PCWT_OK ||
        pcwt_decoder_set_max_samples(d, maxSamples_) != PCWT_OK)
    {
      error = d ? std::string("libpcwt decoder: ") + pcwt_decoder_last_error(d) : std::string("out of memory");
      pcwt_decoder_destroy(d);
      return NULL;
    }
    return d;
  }

  void give(pcwt_decoder *d)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(d);
  }

private:
  const std::uint64_t maxSamples_;
  std::mutex mutex_;
  std::vector<pcwt_decoder *> free_;
};

/// the verdict of the CPU decoder on a copy's sampled frames
struct SampleVerdict
{
  /// empty: every sampled frame decoded to the original's samples
  std::string error;
  DPRC_Reason reason = DPRCR_none;
  /// frames decoded and compared
  std::uint64_t frames = 0;
};

/** decode the frames of a copy that are in the sample (DPRCSampledFrame of key, one in every)
 *  with a CPU decoder of pool and compare them with original (frames.size() * frameBytes bytes)
 */
inline SampleVerdict checkSample(CpuDecoderPool& pool, const std::vector<DPRCCodestream>& frames,
                                 std::size_t frameBytes, const unsigned char *original, const std::string& key,
                                 unsigned every)
{
  SampleVerdict v;
  std::vector<pcwt_verify_job> jobs;
  std::vector<std::size_t> index;
  for (std::size_t f = 0; f < frames.size(); ++f)
  {
    if (!DPRCSampledFrame(key, f, every)) continue;
    pcwt_verify_job j;
    std::memset(&j, 0, sizeof j);
    j.src = frames[f].data;
    j.src_size = frames[f].size;
    j.expected = original + f * frameBytes;
    j.expected_size = frameBytes;
    j.status = PCWT_ERR_INVALID_ARGUMENT; // until the decoder says otherwise
    jobs.push_back(j);
    index.push_back(f);
  }
  if (jobs.empty()) return v;
  std::string error;
  pcwt_decoder *d = pool.take(error);
  if (d == NULL)
  {
    v.reason = DPRCR_memory;
    v.error = "the CPU decoder for the sample: " + error;
    return v;
  }
  const pcwt_status st = pcwt_verify_batch(d, jobs.data(), jobs.size()); // the per-frame statuses decide
  (void)st;
  pool.give(d);
  v.frames = jobs.size();
  for (std::size_t k = 0; k < jobs.size() && v.error.empty(); ++k)
  {
    if (jobs[k].status == PCWT_OK) continue;
    const std::size_t f = index[k];
    v.reason = jobs[k].status == PCWT_ERR_OUT_OF_MEMORY ? DPRCR_memory : DPRCR_verifyFailed;
    v.error = "the CPU decoder (sample of 1 in " + std::to_string(every) + ", frame " + std::to_string(f + 1) + "): ";
    if (jobs[k].status == PCWT_ERR_MISMATCH)
      v.error += "decoded pixel data differs from the original at byte " +
                 std::to_string(f * frameBytes + jobs[k].first_difference);
    else
      v.error += std::string("cannot decode the new copy: libpcwt: ") + pcwt_status_string(jobs[k].status);
  }
  return v;
}

} // namespace dprc

#endif
