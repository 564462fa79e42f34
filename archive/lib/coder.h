/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the coders: what a reader or writer
 *           thread lends the codecs (frames coded ahead, its own encoder and decoder) and the batch
 *           coder that codes the frames of several files in one pcwt_encode_batch call.
 */

#ifndef PCWT_ARCHIVE_CODER_H
#define PCWT_ARCHIVE_CODER_H

#include "dcmtk/config/osconfig.h"

#include "dcmpcwt/dpthrcod.h"
#include "arena.h"
#include "engine.h"
#include "j2kdecode.h"
#include "pipeline.h"
#include "queue.h"
#include "pcwt.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace dprc {

inline bool sameDesc(const pcwt_image_desc& a, const pcwt_image_desc& b)
{
  return a.width == b.width && a.height == b.height && a.components == b.components &&
         a.bits_allocated == b.bits_allocated && a.bits_stored == b.bits_stored && a.is_signed == b.is_signed &&
         a.planar == b.planar;
}

inline pcwt_decoder *makeDecoder(pcwt_backend backend, int device, std::string& error)
{
  pcwt_decoder *d = pcwt_decoder_create();
  if (d == NULL)
  {
    error = "out of memory";
    return NULL;
  }
  if (pcwt_decoder_set_backend(d, backend) != PCWT_OK ||
      (pcwt_decoder_backend(d) == PCWT_BACKEND_GPU && pcwt_decoder_set_device(d, device) != PCWT_OK))
  {
    error = std::string("libpcwt decoder: ") + pcwt_decoder_last_error(d);
    pcwt_decoder_destroy(d);
    return NULL;
  }
  return d;
}

/// an encoder that codes as coding does (pcwt_encoder_copy_coding), on backend (and device)
inline pcwt_encoder *makeEncoder(const pcwt_encoder *coding, pcwt_backend backend, int device, std::string& error)
{
  if (coding == NULL)
  {
    error = "no coding settings for the encoder";
    return NULL;
  }
  pcwt_encoder *e = pcwt_encoder_create();
  if (e == NULL)
  {
    error = "out of memory";
    return NULL;
  }
  if (pcwt_encoder_copy_coding(e, coding) != PCWT_OK || pcwt_encoder_set_option(e, PCWT_OPT_BACKEND, backend) != PCWT_OK ||
      (pcwt_encoder_backend(e) == PCWT_BACKEND_GPU && pcwt_encoder_set_device(e, device) != PCWT_OK))
  {
    error = std::string("libpcwt encoder: ") + pcwt_encoder_last_error(e);
    pcwt_encoder_destroy(e);
    return NULL;
  }
  return e;
}


/** runs call(handle, first job, count) for contiguous parts of jobs of about equal weight(job),
 *  one part per handle, each on a thread of its own (a single handle: on this thread, with every
 *  job); the CPU codecs code a batch one frame after another, so a batch is split over several
 *  @return the number of parts
 */
template <class H, class J, class Weight, class Call>
std::size_t runSplit(const std::vector<H>& handles, std::vector<J>& jobs, Weight weight, Call call)
{
  if (handles.size() == 1)
  {
    call(handles[0], jobs.data(), jobs.size());
    return 1;
  }
  const std::size_t parts = std::min(handles.size(), jobs.size());
  std::uint64_t total = 0;
  for (const J& j : jobs) total += weight(j);
  std::vector<std::size_t> cut(1, 0);
  std::uint64_t acc = 0;
  for (std::size_t k = 0; k < jobs.size() && cut.size() < parts; ++k)
  {
    acc += weight(jobs[k]);
    if (acc * parts >= total * cut.size() && k + 1 < jobs.size()) cut.push_back(k + 1);
  }
  cut.push_back(jobs.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t + 1 < cut.size(); ++t)
    threads.emplace_back([&, t]() { call(handles[t], jobs.data() + cut[t], cut[t + 1] - cut[t]); });
  for (std::thread& th : threads) th.join();
  return threads.size();
}

/** what a reader or writer thread lends the codecs: the frames of its current job coded ahead,
 *  an encoder for any other frame (icons, a job the batch could not code, every frame without
 *  the batch coder), and a decoder, both kept across files (with their GPU contexts)
 */
class ThreadCoder : public DPCWTThreadCoder
{
public:
  ThreadCoder() {}
  ~ThreadCoder()
  {
    if (decoder_) pcwt_decoder_destroy(decoder_);
    if (fallback_) pcwt_encoder_destroy(fallback_);
  }

  void init(pcwt_backend backend, pcwt_backend decodeBackend, int device)
  {
    backend_ = backend;
    decodeBackend_ = decodeBackend;
    device_ = device;
  }

  void setJob(DPRCJob *job)
  {
    job_ = job;
    next_ = 0;
    if (job_ && !job_->coded.empty())
    {
      frameBytes_ = static_cast<std::size_t>(pcwt_dicom_frame_bytes(&job_->module));
      if (pcwt_dicom_image_desc(&job_->module, &desc_) != PCWT_DICOM_OK) job_ = NULL;
    }
  }

  /** the next frame coded ahead is the one of exactly these samples, description and coding:
   *  the samples are the frame's in the data set's pixel data they were copied from, which nothing
   *  changes until the file is written (or, elsewhere, the same bytes: 2 reads of every byte)
   */
  bool aheadMatches(const pcwt_encoder *coding, const pcwt_image_desc& desc, const void *samples,
                    size_t samplesSize) const
  {
    if (!job_ || next_ >= job_->coded.size() || !pcwt_encoder_same_coding(coding, job_->codedWith.get()) ||
        !sameDesc(desc, desc_) ||
        samplesSize != frameBytes_ || samples == NULL)
      return false;
    if (job_->pixels && samples == job_->pixels + next_ * frameBytes_) return true;
    return std::memcmp(samples, job_->original.data() + next_ * frameBytes_, frameBytes_) == 0;
  }

  /// the codec stores the codestream coded ahead as it is (in the batch's arena, padded)
  virtual bool codedFrame(const pcwt_encoder *coding, const pcwt_image_desc& desc, const void *samples,
                          size_t samplesSize, const Uint8 *& data, size_t& size)
  {
    if (!aheadMatches(coding, desc, samples, samplesSize)) return false;
    const DPRCJob::CodedFrame& f = job_->coded[next_++];
    data = f.data;
    size = f.size;
    ++taken;
    return true;
  }

  virtual pcwt_status encodeBatch(const pcwt_encoder *coding, pcwt_frame_job *jobs, size_t count,
                                  OFString& message)
  {
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count; ++i)
    {
      pcwt_frame_job& j = jobs[i];
      j.written = 0;
      if (aheadMatches(coding, j.desc, j.samples, j.samples_size) && job_->coded[next_].size <= j.dst_capacity)
      {
        // the frame coded ahead in the batch, for exactly these samples (a codec that does not
        // ask codedFrame() first)
        const DPRCJob::CodedFrame& cs = job_->coded[next_++];
        std::memcpy(j.dst, cs.data, cs.size);
        j.written = cs.size;
        j.status = PCWT_OK;
        ++taken;
        continue;
      }
      // any other frame: coded here, as the codec would have (the handle, with its GPU context,
      // kept and given the codec's coding when it differs)
      std::string error;
      pcwt_status st = PCWT_OK;
      if (fallback_ == NULL)
        fallback_ = makeEncoder(coding, backend_, device_, error);
      else if (!pcwt_encoder_same_coding(fallback_, coding) &&
               (st = pcwt_encoder_copy_coding(fallback_, coding)) != PCWT_OK)
        error = std::string("libpcwt encoder: ") + pcwt_encoder_last_error(fallback_);
      if (fallback_ == NULL || st != PCWT_OK)
      {
        j.status = fallback_ == NULL ? PCWT_ERR_OUT_OF_MEMORY : st;
        message = error.c_str();
      }
      else if (failBackend)
      {
        j.status = PCWT_ERR_BACKEND_UNAVAILABLE;
        message = "the coding backend failed (PCWT_RECOMPRESS_FAULT=backend)";
      }
      else
      {
        j.status = pcwt_encode(fallback_, &j.desc, j.samples, j.samples_size, j.dst, j.dst_capacity, &j.written);
        if (j.status != PCWT_OK) message = pcwt_encoder_last_error(fallback_);
        else if (j.written == 0 || j.written > j.dst_capacity)
        {
          j.status = PCWT_ERR_CORRUPT; // no codestream, or one beyond the buffer: never stored
          message = "the encoder reported an impossible codestream size";
        }
        ++codedHere;
      }
      if (first == PCWT_OK) first = j.status;
    }
    return first;
  }

  /** made when the codec first asks (a reader of files that are not PCWT never does): a handle
   *  made before the run's GPU check is done waits for its cuInit (libpcwt resolves the automatic
   *  backend as a handle is made). NULL when it cannot be made: the codec makes its own and reports.
   */
  virtual pcwt_decoder *decoder()
  {
    if (decoder_ == NULL && !decoderFailed_)
    {
      std::string error;
      decoder_ = makeDecoder(decodeBackend_, device_, error);
      decoderFailed_ = decoder_ == NULL;
    }
    return decoder_;
  }

  /// a reader's JPEG 2000 frames, decoded by the codec on its thread (no GPU decoding)
  virtual void decodedJ2KHere(const char *name) { j2k.decodedHere(name); }

  std::uint64_t taken = 0;
  std::uint64_t codedHere = 0;
  /// tests (PCWT_RECOMPRESS_FAULT=backend): every frame this thread would code fails as a broken GPU's
  bool failBackend = false;
  J2KCounts j2k;

private:
  DPRCJob *job_ = NULL;
  std::size_t next_ = 0;
  std::size_t frameBytes_ = 0;
  pcwt_image_desc desc_;
  pcwt_decoder *decoder_ = NULL;
  bool decoderFailed_ = false;
  pcwt_encoder *fallback_ = NULL;
  pcwt_backend backend_ = PCWT_BACKEND_AUTO;
  pcwt_backend decodeBackend_ = PCWT_BACKEND_CPU;
  int device_ = 0;
};

/// codes the frames of several files in one pcwt_encode_batch call (on the CPU: split over threads)
class BatchCoder
{
public:
  explicit BatchCoder(const std::shared_ptr<ArenaPool>& pool) : pool_(pool) {}
  ~BatchCoder()
  {
    for (pcwt_encoder *e : encoders_) pcwt_encoder_destroy(e);
  }

  bool init(const DPRCPipelineOptions& p, int device, std::string& error)
  {
    device_ = device;
    coding_ = p.coding;
    pcwt_encoder *e = makeEncoder(coding_.get(), p.backend, device, error);
    if (e == NULL) return false;
    encoders_.push_back(e);
    // the GPU codes a batch at once; the CPU codec one frame after another, so split the batch
    if (pcwt_encoder_backend(e) == PCWT_BACKEND_CPU)
    {
      for (unsigned t = 1; t < p.cpuCoderThreads; ++t)
      {
        e = makeEncoder(coding_.get(), PCWT_BACKEND_CPU, 0, error);
        if (e == NULL) return false;
        encoders_.push_back(e);
      }
    }
    return true;
  }

  /// the GPU codes (page-locked host memory is read and written by it directly)
  bool gpu() const { return pcwt_encoder_backend(encoders_[0]) == PCWT_BACKEND_GPU; }
  /// the device it was made for
  int device() const { return device_; }

  /** small frames coded, `repeat` of them in turn, in one call before the first batch, so that
   *  the handle's device state (its context, streams, kernels, and buffers of the largest batch)
   *  is made while the readers read, not grown call after call in the run. frames: samples of
   *  desc (page locked, as the run's are: nothing staged); the codestreams are not kept: one buffer
   *  takes them all, page locked as the run's arenas are (a buffer that is not would make the
   *  handle a staging buffer the run never uses). False: the call failed (the batches then fail
   *  as they would have)
   */
  bool warm(const pcwt_image_desc& desc, const std::vector<const std::uint16_t *>& frames, std::size_t repeat)
  {
    const std::size_t frameBytes = std::size_t(desc.width) * desc.height * desc.components * sizeof(std::uint16_t);
    const std::size_t bound = static_cast<std::size_t>(pcwt_encode_bound(&desc));
    if (bound == 0 || repeat == 0 || frames.empty()) return false;
    std::shared_ptr<void> pinned(pcwt_host_alloc(bound), pcwt_host_free);
    std::vector<unsigned char> heap(pinned ? 0 : bound);
    unsigned char *out = pinned ? static_cast<unsigned char *>(pinned.get()) : heap.data();
    pcwt_frame_job j;
    std::memset(&j, 0, sizeof j);
    j.status = PCWT_ERR_INVALID_ARGUMENT;
    j.desc = desc;
    j.samples_size = frameBytes;
    j.dst = out;
    j.dst_capacity = bound;
    std::vector<pcwt_frame_job> jobs(repeat, j);
    for (std::size_t k = 0; k < repeat; ++k) jobs[k].samples = frames[k % frames.size()];
    return pcwt_encode_batch(encoders_[0], jobs.data(), jobs.size()) == PCWT_OK;
  }

  /** code every frame of the batch; a file whose frames all succeed gets them in job.coded.
   *  failBackend (tests): every call fails as a broken GPU's, with no per-frame status set
   */
  void code(const std::vector<Work *>& batch, DPRCPipelineStats& stats, bool failBackend = false)
  {
    struct Frame { std::size_t work; std::size_t offset; };
    std::vector<pcwt_frame_job> jobs;
    std::vector<Frame> where;
    std::size_t total = 0;
    for (std::size_t w = 0; w < batch.size(); ++w)
    {
      DPRCJob& job = batch[w]->job;
      pcwt_image_desc desc;
      if (pcwt_dicom_image_desc(&job.module, &desc) != PCWT_DICOM_OK) continue;
      const std::size_t frameBytes = static_cast<std::size_t>(pcwt_dicom_frame_bytes(&job.module));
      const std::size_t frames = static_cast<std::size_t>(job.module.number_of_frames);
      // a slot of the frame's size and a little more, not the bound (about 5x the samples for
      // 16-bit CT): the arenas stay dense, so that a reused one is written into pages it has
      // touched before, not fresh ones (fresh pages fault, and the copy out of the GPU's staging
      // waits for them). A frame that does not fit is coded by its writer's codec.
      const std::size_t slot = std::min<std::size_t>(pcwt_encode_bound(&desc), frameBytes + frameBytes / 8 + 4096);
      if (slot == 0 || frameBytes == 0 || job.original.size() < frames * frameBytes) continue;
      for (std::size_t f = 0; f < frames; ++f)
      {
        pcwt_frame_job j;
        std::memset(&j, 0, sizeof j);
        j.status = PCWT_ERR_INVALID_ARGUMENT; // until the encoder says otherwise
        j.desc = desc;
        j.samples = job.original.data() + f * frameBytes;
        j.samples_size = frameBytes;
        j.dst_capacity = slot;
        jobs.push_back(j);
        where.push_back(Frame{w, total});
        total += (slot + 1 + 63) & ~std::size_t(63); // and the pad byte of an odd codestream
      }
    }
    if (jobs.empty()) return;
    // the batch's output arena, which goes with its files to the writers
    std::shared_ptr<unsigned char> arena = pool_->get(total);
    if (!arena) return; // the writers' codecs code these files themselves
    for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k].dst = arena.get() + where[k].offset;

    // the per-frame statuses below decide
    if (failBackend)
      ++stats.calls;
    else
      stats.calls += runSplit(encoders_, jobs, [](const pcwt_frame_job& j) { return j.samples_size; },
                            [](pcwt_encoder *e, pcwt_frame_job *j, std::size_t n) { const pcwt_status st = pcwt_encode_batch(e, j, n); (void)st; });

    // the codestreams go with their files; a file with a failed frame is coded again by the
    // writer's codec, which reports the failure as for a single file
    std::vector<bool> ok(batch.size(), true), any(batch.size(), false);
    for (std::size_t k = 0; k < jobs.size(); ++k)
    {
      any[where[k].work] = true;
      // (a status left unset, no codestream or one beyond its slot: the writer codes the file)
      if (jobs[k].status != PCWT_OK || jobs[k].written == 0 || jobs[k].written > jobs[k].dst_capacity)
        ok[where[k].work] = false;
    }
    for (std::size_t k = 0; k < jobs.size(); ++k)
    {
      const std::size_t w = where[k].work;
      if (!ok[w]) continue;
      DPRCJob& job = batch[w]->job;
      unsigned char *cs = static_cast<unsigned char *>(jobs[k].dst);
      if (jobs[k].written & 1) cs[jobs[k].written] = 0; // the pad byte (the slot has room for it)
      job.coded.push_back(DPRCJob::CodedFrame{cs, jobs[k].written});
      job.codedWith = coding_;
      job.codedArena = arena;
    }
    for (std::size_t w = 0; w < batch.size(); ++w)
      if (ok[w] && any[w]) ++stats.files;
    stats.frames += jobs.size();
  }

private:
  std::shared_ptr<const pcwt_encoder> coding_;
  std::vector<pcwt_encoder *> encoders_;
  std::shared_ptr<ArenaPool> pool_;
  int device_ = 0;
};

} // namespace dprc

#endif
