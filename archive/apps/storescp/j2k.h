/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescp: JPEG 2000 input decoded on a GPU (--j2k-decoder, j2k.cc). An
 *           association's thread stops before its data set's JPEG 2000 pixel data is decoded
 *           (DPRCJob::deferJ2K) and hands the data set to batch decoder threads, which give the
 *           frames of every data set waiting, from all associations, to one pcwt_decode_batch
 *           call on the GPU (J2KBatchDecoder, archive/lib/j2kdecode.h, as pcwt-recompress does).
 *           The association's thread then decodes the data set through the JPEG 2000 decoder
 *           codec, lending it those frames (J2KAheadCoder, DPRCPrepareDecoded): every DICOM rule
 *           stays the codec's, and the frames the GPU did not decode (HTJ2K, lossy, a corrupt
 *           codestream, a failed call) OpenJPEG decodes as without a GPU. The copy is then
 *           written and verified as any other before the store is acknowledged.
 */

#ifndef PCWT_STORESCP_J2K_H
#define PCWT_STORESCP_J2K_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"
#include "j2kdecode.h"
#include "pipeline.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

/// --j2k-gpu-min-samples' default: every data set to the GPU (a CT slice alone is decoded faster
/// there than by OpenJPEG on one thread, and so is a busy server's mix of associations:
/// bench/results/gpu-h200-2026-11-28-j2k-storescp-buffers.md)
const unsigned long kJ2KGpuMinSamples = 0;

/// an association's wait for the batch decoder (its log line; the benchmark's reading)
struct DPSCPJ2KWait
{
  /// from handing the data set over to its frames decoded, milliseconds
  double ms = 0;
  /// the call that decoded them: its data sets (of all associations) and their declared frames
  std::size_t dataSets = 0;
  std::uint64_t frames = 0;
};

class DPSCPJ2KDecoding
{
public:
  DPSCPJ2KDecoding() {}
  ~DPSCPJ2KDecoding() { stop(); }

  /** set up the decoders as choice says: cpu: none (OpenJPEG on the associations' threads);
   *  auto: on the GPU where there is one, else none (autoWithout() says why); gpu: on the GPU
   *  or fail.
   *  The environment's PCWT_RECOMPRESS_J2K_STANDIN=cpu puts the CPU decoder in the GPU's place
   *  and PCWT_RECOMPRESS_FAULT=backend-j2k makes every call fail as a whole (the tests, as for
   *  pcwt-recompress)
   *  @param maxSamples the decoder's limit of samples per frame
   *  @return false (error says why) when gpu was asked for and no decoder could be made
   */
  bool start(DPRC_J2KDecoder choice, std::uint64_t maxSamples, std::string& error);

  /// frames are decoded here (after start)
  bool enabled() const { return !decoders_.empty(); }

  /** data sets of fewer samples (rows x columns x samples per pixel x frames) are decoded by
   *  OpenJPEG on the association's thread: a call on the GPU takes about as long as its slowest
   *  code-block on one GPU thread however few frames it holds, OpenJPEG as long as its samples
   *  (bench/results/gpu-h200-2026-11-28-j2k-storescp-buffers.md, --j2k-gpu-min-samples)
   */
  void setMinSamples(std::uint64_t n) { minSamples_ = n; }
  /// a data set of samples samples (all frames) goes to the batch decoders
  bool takes(std::uint64_t samples) const { return enabled() && samples >= minSamples_; }
  /// on a GPU (not the CPU standing in)
  bool gpu() const { return gpu_; }
  /// auto without a GPU: why (empty otherwise)
  const std::string& autoWithout() const { return autoWithout_; }

  /** the rest of DPRCPrepare() for a job it left j2kDeferred: its frames decoded with those of
   *  the data sets waiting, then the data set decoded, checked and its samples taken on this
   *  thread (DPRCPrepareDecoded, the same return); counts gets who decoded its frames, wait the
   *  time it waited for them and the call's size
   */
  bool prepareDecoded(dprc::Work& work, const DPRCOptions& options, unsigned slot, dprc::J2KCounts& counts,
                      DPSCPJ2KWait& wait);

  /// the decoder threads end (after the associations')
  void stop();

private:
  struct Request;
  void decodeStage(std::size_t k);

  DPRCPipelineOptions limits_; // pcwt-recompress's batch limits and decoders per device
  bool gpu_ = false;
  bool failBackend_ = false;
  std::uint64_t minSamples_ = 0;
  std::string autoWithout_;
  std::vector<std::unique_ptr<dprc::J2KBatchDecoder> > decoders_;
  std::shared_ptr<dprc::ArenaPool> samples_;
  dprc::Queue<Request> queue_;
  std::mutex doneMutex_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
};

#endif
