/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): JPEG 2000 input decoded on a GPU.
 *           The readers stop before a JPEG 2000 file's pixel data is decoded (DPRCJob::deferJ2K);
 *           a batch decoder gives the frames of many files to one pcwt_decode_batch call on the
 *           device; finisher threads then decode each data set through the JPEG 2000 decoder
 *           codec as the readers would (DPRCPrepareDecoded), lending it the frames decoded
 *           ahead (J2KAheadCoder), so that every DICOM rule of the CPU path is the codec's own.
 *           Frames the device does not take (lossy, what libpcwt refuses, a corrupt codestream)
 *           the codec decodes with OpenJPEG, as without the GPU; HTJ2K is the device's too.
 */

#ifndef PCWT_ARCHIVE_J2KDECODE_H
#define PCWT_ARCHIVE_J2KDECODE_H

#include "dcmtk/config/osconfig.h"

#include "dcmpcwt/dpj2kdec.h"
#include "dcmpcwt/dpthrcod.h"
#include "arena.h"
#include "queue.h"
#include "pcwt.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace dprc {

/// one file's JPEG 2000 frames, those the device decoded with their samples
struct J2KFrames
{
  std::vector<DPCWTJ2KCodestream> streams;
  /// per frame: decoded on the device (then desc and offset into samples)
  std::vector<bool> decoded;
  std::vector<pcwt_image_desc> desc;
  std::vector<std::size_t> offset;
  /// the batch's decoded samples (shared by its files)
  std::shared_ptr<unsigned char> samples;

  /// bytes of the frames decoded
  std::uint64_t decodedBytes() const
  {
    std::uint64_t n = 0;
    for (std::size_t k = 0; k < decoded.size(); ++k)
      if (decoded[k]) n += pcwt_image_size(&desc[k]);
    return n;
  }
};

/// a file between the batch decoder and a finisher
struct J2KWork
{
  Work *work = NULL;
  J2KFrames frames;
};

/// what the JPEG 2000 decoding did: frames decoded on the GPU, by OpenJPEG, by libpcwt on the CPU
struct J2KCounts
{
  std::uint64_t gpu = 0;
  std::uint64_t openjpeg = 0;
  std::uint64_t cpuLibrary = 0;

  void decodedHere(const char *decoder)
  {
    if (decoder && std::strcmp(decoder, "OpenJPEG") == 0) ++openjpeg;
    else ++cpuLibrary;
  }
};

/** the coder a finisher lends the JPEG 2000 decoder codec: the samples of the frames decoded
 *  ahead, for exactly their codestream bytes (the codec asks frame by frame, in order)
 */
class J2KAheadCoder : public DPCWTThreadCoder
{
public:
  void setFrames(const J2KFrames *frames)
  {
    frames_ = frames;
    next_ = 0;
  }

  virtual bool decodedJ2KFrame(const Uint8 *codestream, std::size_t size, pcwt_image_desc& desc,
                               const void *& samples)
  {
    if (!frames_ || codestream == NULL) return false;
    const std::size_t n = frames_->streams.size();
    // in order; a codec asking out of order (an icon's pixel data first) finds it too
    for (std::size_t k = 0; k < n; ++k)
    {
      const std::size_t f = (next_ + k) % n;
      const DPCWTJ2KCodestream& s = frames_->streams[f];
      if (!frames_->decoded[f] || s.size != size || (s.data != codestream && std::memcmp(s.data, codestream, size) != 0))
        continue;
      desc = frames_->desc[f];
      samples = frames_->samples.get() + frames_->offset[f];
      next_ = f + 1;
      ++counts.gpu;
      return true;
    }
    return false;
  }

  virtual void decodedJ2KHere(const char *decoder) { counts.decodedHere(decoder); }

  /// a finisher does not code (the writers do)
  virtual pcwt_status encodeBatch(const pcwt_encoder *, pcwt_frame_job *jobs, std::size_t count, OFString& message)
  {
    for (std::size_t i = 0; i < count; ++i) jobs[i].status = PCWT_ERR_INVALID_ARGUMENT;
    message = "internal: a JPEG 2000 finisher thread does not code";
    return count ? PCWT_ERR_INVALID_ARGUMENT : PCWT_OK;
  }

  J2KCounts counts;

private:
  const J2KFrames *frames_ = NULL;
  std::size_t next_ = 0;
};

/// decodes the JPEG 2000 frames of a batch of files in one pcwt_decode_batch call on a GPU
class J2KBatchDecoder
{
public:
  ~J2KBatchDecoder()
  {
    if (decoder_) pcwt_decoder_destroy(decoder_);
  }

  /// a decoder on the GPU device (fails without one), or on the CPU standing in for it (tests)
  bool init(bool gpu, int device, std::uint64_t maxSamplesPerFrame, std::string& error)
  {
    decoder_ = pcwt_decoder_create();
    if (decoder_ == NULL)
    {
      error = "out of memory";
      return false;
    }
    if (pcwt_decoder_set_backend(decoder_, gpu ? PCWT_BACKEND_GPU : PCWT_BACKEND_CPU) != PCWT_OK ||
        (gpu && pcwt_decoder_set_device(decoder_, device) != PCWT_OK) ||
        pcwt_decoder_set_max_samples(decoder_, maxSamplesPerFrame) != PCWT_OK)
    {
      error = std::string("JPEG 2000 decoding on the GPU: ") + pcwt_decoder_last_error(decoder_);
      return false;
    }
    return true;
  }

  /** find every frame's codestream (the codec's checks: a file that fails them gets no frames,
   *  and its decoding fails as without the GPU), decode the lossless Part 1 ones on the device.
   *  failBackend (tests): the call fails as a broken GPU's, with no per-frame status set
   *  @return the decoded samples' bytes
   */
  std::uint64_t decode(std::vector<J2KWork *>& batch, ArenaPool& memory, bool failBackend = false)
  {
    struct Slot { J2KWork *w; std::size_t frame; };
    std::vector<pcwt_decode_job> jobs;
    std::vector<Slot> where;
    std::size_t total = 0, codestreamBytes = 0;
    const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    for (J2KWork *w : batch)
    {
      J2KFrames& f = w->frames;
      if (DPCWTJ2KDecoder::frameCodestreams(w->work->job.file->getDataset(), f.streams).bad()) continue;
      const std::size_t n = f.streams.size();
      f.decoded.assign(n, false);
      f.desc.resize(n);
      f.offset.assign(n, 0);
      for (std::size_t k = 0; k < n; ++k)
      {
        const DPCWTJ2KCodestream& s = f.streams[k];
        pcwt_header_info info;
        // lossy streams are OpenJPEG's; the library refuses what else it does not decode
        if (!s.lossless || pcwt_read_header(s.data, s.size, &info) != PCWT_OK) continue;
        const std::size_t bytes = pcwt_image_size(&info.desc);
        if (bytes == 0) continue;
        f.desc[k] = info.desc;
        f.offset[k] = total;
        pcwt_decode_job j;
        std::memset(&j, 0, sizeof j);
        j.status = PCWT_ERR_INVALID_ARGUMENT; // until the decoder says otherwise (a failed call)
        j.src = s.data;
        j.src_size = s.size;
        j.dst_capacity = bytes;
        jobs.push_back(j);
        where.push_back(Slot{w, k});
        codestreamBytes += s.size;
        total += (bytes + 63) & ~std::size_t(63);
      }
    }
    if (jobs.empty()) return 0;
    const double findMs = msSince(t0);
    std::shared_ptr<unsigned char> arena = memory.get(total);
    if (!arena) return 0; // the codec decodes every frame itself
    const double arenaMs = msSince(t0) - findMs;
    for (std::size_t k = 0; k < jobs.size(); ++k)
      jobs[k].dst = arena.get() + where[k].w->frames.offset[where[k].frame];
    if (!failBackend)
    {
      const pcwt_status st = pcwt_decode_batch(decoder_, jobs.data(), jobs.size()); // the jobs' statuses decide
      (void)st;
    }
    ++calls;
    if (gpuTrace())
      std::fprintf(stderr, "pcwt-recompress j2k batch (ms): %zu frames, %.1f MB of samples from %.1f MB; "
                   "codestreams found %.1f, buffer %.1f, decode call %.1f\n", jobs.size(), double(total) / 1048576,
                   double(codestreamBytes) / 1048576, findMs, arenaMs, msSince(t0) - findMs - arenaMs);
    for (std::size_t k = 0; k < jobs.size(); ++k)
    {
      J2KFrames& f = where[k].w->frames;
      f.samples = arena;
      if (jobs[k].status == PCWT_OK) f.decoded[where[k].frame] = true;
    }
    return total;
  }

  /// one small codestream decoded (j2kwarm.cc): the decoder's device state made before the first
  /// batch. false when it failed (the batches then go as they would)
  bool warm();

  /// add the frames of a file and their bytes as its image pixel module declares them (a batch's
  /// limits, before decoding; nothing when not readable)
  static void declared(const Work& w, std::uint64_t& frames, std::uint64_t& bytes);

  std::uint64_t calls = 0;

private:
  pcwt_decoder *decoder_ = NULL;
};

} // namespace dprc

#endif
