/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress: readers -> batch coders -> writers (dprcpipe.h).
 */

#include "dcmtk/config/osconfig.h"
#include "dprcpipe.h"

#include "dcmpcwt/dpthrcod.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace {

/// PCWT_GPU_PROFILE=1: the arena pools time their allocations and frees (stderr)
bool gpuProfile()
{
  static const bool on = []() {
    const char *v = std::getenv("PCWT_GPU_PROFILE");
    return v != NULL && *v != 0 && *v != '0';
  }();
  return on;
}

double msSince(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// one file in the pipeline
struct Work
{
  std::size_t index = 0;
  DPRCJob job;
  /// bytes reserved in the memory budget
  std::uint64_t reserved = 0;
};

/// a queue between stages; pop fails once it is closed and empty
template <class T>
class Queue
{
public:
  void push(T *w)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(w);
    }
    cv_.notify_one();
  }

  bool pop(T *& w)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this]() { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    w = items_.front();
    items_.pop_front();
    return true;
  }

  /// an item at once (true), or none
  bool tryPop(T *& w)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (items_.empty()) return false;
    w = items_.front();
    items_.pop_front();
    return true;
  }

  /// an item within the time (true), or none: timed out or closed and empty
  bool popFor(T *& w, std::chrono::milliseconds wait)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, wait, [this]() { return !items_.empty() || closed_; }) || items_.empty()) return false;
    w = items_.front();
    items_.pop_front();
    return true;
  }

  void close()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<T *> items_;
  bool closed_ = false;
};

/// the bytes of files between reading and writing: readers wait while the pipeline holds enough
class Budget
{
public:
  explicit Budget(std::uint64_t limit) : limit_(limit) {}

  void acquire(std::uint64_t n)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&]() { return used_ == 0 || used_ + n <= limit_; });
    used_ += n;
  }

  /// take more without waiting (a file turned out larger once decoded)
  void grow(std::uint64_t n)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    used_ += n;
  }

  void release(std::uint64_t n)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      used_ -= std::min(used_, n);
    }
    cv_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::uint64_t used_ = 0;
  const std::uint64_t limit_;
};

/// the parameters that decide the codestream (the backend does not: every backend writes the same bytes)
bool sameCoding(const pcwt_encode_params& a, const pcwt_encode_params& b)
{
  return a.codec == b.codec && a.levels == b.levels && a.group_rows == b.group_rows &&
         a.group_cols == b.group_cols && a.min_ll == b.min_ll && a.profile == b.profile;
}

bool sameDesc(const pcwt_image_desc& a, const pcwt_image_desc& b)
{
  return a.width == b.width && a.height == b.height && a.components == b.components &&
         a.bits_allocated == b.bits_allocated && a.bits_stored == b.bits_stored && a.is_signed == b.is_signed &&
         a.planar == b.planar;
}

pcwt_decoder *makeDecoder(pcwt_backend backend, int device, std::string& error)
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

pcwt_encoder *makeEncoder(const pcwt_encode_params& params, pcwt_backend backend, int device, std::string& error)
{
  pcwt_encoder *e = pcwt_encoder_create();
  if (e == NULL)
  {
    error = "out of memory";
    return NULL;
  }
  pcwt_encode_params p = params;
  p.backend = backend;
  if (pcwt_encoder_set_params(e, &p) != PCWT_OK ||
      (pcwt_encoder_backend(e) == PCWT_BACKEND_GPU && pcwt_encoder_set_device(e, device) != PCWT_OK))
  {
    error = std::string("libpcwt encoder: ") + pcwt_encoder_last_error(e);
    pcwt_encoder_destroy(e);
    return NULL;
  }
  return e;
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

  bool init(pcwt_backend backend, pcwt_backend decodeBackend, int device, std::string& error)
  {
    backend_ = backend;
    device_ = device;
    decoder_ = makeDecoder(decodeBackend, device, error);
    return decoder_ != NULL;
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

  /// the next frame coded ahead is the one of exactly these samples, description and parameters
  bool aheadMatches(const pcwt_encode_params& params, const pcwt_image_desc& desc, const void *samples,
                    size_t samplesSize) const
  {
    return job_ && next_ < job_->coded.size() && sameCoding(params, job_->codedParams) && sameDesc(desc, desc_) &&
           samplesSize == frameBytes_ && samples != NULL &&
           std::memcmp(samples, job_->original.data() + next_ * frameBytes_, frameBytes_) == 0;
  }

  /// the codec stores the codestream coded ahead as it is (in the batch's arena, padded)
  virtual bool codedFrame(const pcwt_encode_params& params, const pcwt_image_desc& desc, const void *samples,
                          size_t samplesSize, const Uint8 *& data, size_t& size)
  {
    if (!aheadMatches(params, desc, samples, samplesSize)) return false;
    const DPRCJob::CodedFrame& f = job_->coded[next_++];
    data = f.data;
    size = f.size;
    ++taken;
    return true;
  }

  virtual pcwt_status encodeBatch(const pcwt_encode_params& params, pcwt_frame_job *jobs, size_t count,
                                  OFString& message)
  {
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count; ++i)
    {
      pcwt_frame_job& j = jobs[i];
      j.written = 0;
      if (aheadMatches(params, j.desc, j.samples, j.samples_size) && job_->coded[next_].size <= j.dst_capacity)
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
      // any other frame: coded here, as the codec would have
      std::string error;
      if (fallback_ == NULL || !sameCoding(params, fallbackParams_))
      {
        if (fallback_) pcwt_encoder_destroy(fallback_);
        fallback_ = makeEncoder(params, backend_, device_, error);
        fallbackParams_ = params;
      }
      if (fallback_ == NULL)
      {
        j.status = PCWT_ERR_OUT_OF_MEMORY;
        message = error.c_str();
      }
      else
      {
        j.status = pcwt_encode(fallback_, &j.desc, j.samples, j.samples_size, j.dst, j.dst_capacity, &j.written);
        if (j.status != PCWT_OK) message = pcwt_encoder_last_error(fallback_);
        ++codedHere;
      }
      if (first == PCWT_OK) first = j.status;
    }
    return first;
  }

  virtual pcwt_decoder *decoder() { return decoder_; }

  std::uint64_t taken = 0;
  std::uint64_t codedHere = 0;

private:
  DPRCJob *job_ = NULL;
  std::size_t next_ = 0;
  std::size_t frameBytes_ = 0;
  pcwt_image_desc desc_;
  pcwt_decoder *decoder_ = NULL;
  pcwt_encoder *fallback_ = NULL;
  pcwt_encode_params fallbackParams_;
  pcwt_backend backend_ = PCWT_BACKEND_AUTO;
  int device_ = 0;
};

/** host buffers for the batch coders' codestreams (and the verifiers' decoded frames), kept for
 *  reuse: a batch's buffer goes with the files of the batch, whose writers' codecs store the
 *  codestreams from it, and comes back when the last of them lets go
 */
class ArenaPool : public std::enable_shared_from_this<ArenaPool>
{
public:
  /** keep: free buffers kept at most (the smallest goes beyond); name: for the profile lines;
   *  pinned: page-locked buffers (pcwt_host_alloc, written by the GPU directly) for arenas that
   *  get filled, else ordinary heap memory, of which only the pages written are committed;
   *  minSize: no buffer is smaller, so that any ordinary request fits any buffer kept
   */
  ArenaPool(std::size_t keep, const char *name, bool pinned, std::size_t minSize = 0)
    : keep_(std::max<std::size_t>(1, keep)), name_(name), pinned_(pinned), minSize_(minSize) {}

  void setKeep(std::size_t keep)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    keep_ = std::max<std::size_t>(1, keep);
  }
  ~ArenaPool()
  {
    for (const Arena& a : free_) release(a);
  }

  /// a buffer of at least n bytes (empty when out of memory)
  std::shared_ptr<unsigned char> get(std::size_t n)
  {
    Arena a;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::size_t best = free_.size();
      for (std::size_t i = 0; i < free_.size(); ++i)
        if (free_[i].size >= n && (best == free_.size() || free_[i].size < free_[best].size)) best = i;
      if (best < free_.size())
      {
        a = free_[best];
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
      }
    }
    if (a.p == NULL)
    {
      // room to grow: batches differ in size, and a new page-locked buffer is expensive
      a.size = (std::max(n + n / 8, minSize_) + (std::size_t(1) << 20) - 1) & ~((std::size_t(1) << 20) - 1);
      const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
      a.p = static_cast<unsigned char *>(pinned_ ? pcwt_host_alloc(a.size) : committedAlloc(a.size));
      if (gpuProfile())
        std::fprintf(stderr, "pcwt-recompress %s arena (ms): alloc %.0f MB %.1f\n", name_, static_cast<double>(a.size) / 1e6, msSince(t0));
      if (a.p == NULL) return std::shared_ptr<unsigned char>();
    }
    std::shared_ptr<ArenaPool> self = shared_from_this();
    return std::shared_ptr<unsigned char>(a.p, [self, a](unsigned char *) { self->put(a); });
  }

private:
  struct Arena
  {
    unsigned char *p = NULL;
    std::size_t size = 0;
  };

  void put(const Arena& a)
  {
    Arena drop;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(a);
      if (free_.size() > keep_)
      {
        std::size_t smallest = 0;
        for (std::size_t i = 1; i < free_.size(); ++i)
          if (free_[i].size < free_[smallest].size) smallest = i;
        drop = free_[smallest];
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(smallest));
      }
    }
    if (drop.p == NULL) return;
    const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    release(drop);
    if (gpuProfile())
      std::fprintf(stderr, "pcwt-recompress %s arena (ms): free %.0f MB %.1f\n", name_, static_cast<double>(drop.size) / 1e6, msSince(t0));
  }

  /** heap memory whose pages are all there: every batch writes into an arena at other offsets
   *  (its frames differ), and its first writes into untouched pages were page faults that made
   *  the copy of 90 MB out of the GPU's staging take 40-70 ms on the H100 (16 threads faulting);
   *  committed once, in 2 MB pages where the kernel has them, a reused arena faults no more
   */
  static void *committedAlloc(std::size_t n)
  {
#ifdef __linux__
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    (void)madvise(p, n, MADV_HUGEPAGE); // a hint: transparent huge pages may be off
    for (std::size_t o = 0; o < n; o += 4096) static_cast<volatile unsigned char *>(p)[o] = 0;
    return p;
#else
    return std::malloc(n);
#endif
  }

  void release(const Arena& a) const
  {
    if (pinned_)
      pcwt_host_free(a.p);
    else
#ifdef __linux__
      munmap(a.p, a.size);
#else
      std::free(a.p);
#endif
  }

  std::mutex mutex_;
  std::vector<Arena> free_;
  std::size_t keep_;
  const char *name_;
  const bool pinned_;
  const std::size_t minSize_;
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
    params_ = p.params;
    pcwt_encoder *e = makeEncoder(p.params, p.backend, device, error);
    if (e == NULL) return false;
    encoders_.push_back(e);
    // the GPU codes a batch at once; the CPU codec one frame after another, so split the batch
    if (pcwt_encoder_backend(e) == PCWT_BACKEND_CPU)
    {
      for (unsigned t = 1; t < p.cpuCoderThreads; ++t)
      {
        e = makeEncoder(p.params, PCWT_BACKEND_CPU, 0, error);
        if (e == NULL) return false;
        encoders_.push_back(e);
      }
    }
    return true;
  }

  /// code every frame of the batch; a file whose frames all succeed gets them in job.coded
  void code(const std::vector<Work *>& batch, DPRCPipelineStats& stats)
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
      // touched before, not fresh ones (copying 90 MB out took 45-120 ms per batch on the H100
      // with bound-sized slots). A frame that does not fit is coded by its writer's codec.
      const std::size_t bound = std::min<std::size_t>(pcwt_encode_bound(&desc), frameBytes + frameBytes / 8 + 4096);
      if (bound == 0 || frameBytes == 0 || job.original.size() < frames * frameBytes) continue;
      for (std::size_t f = 0; f < frames; ++f)
      {
        pcwt_frame_job j;
        std::memset(&j, 0, sizeof j);
        j.desc = desc;
        j.samples = job.original.data() + f * frameBytes;
        j.samples_size = frameBytes;
        j.dst_capacity = bound;
        jobs.push_back(j);
        where.push_back(Frame{w, total});
        total += (bound + 1 + 63) & ~std::size_t(63); // and the pad byte of an odd codestream
      }
    }
    if (jobs.empty()) return;
    // the batch's output arena, which goes with its files to the writers
    std::shared_ptr<unsigned char> arena = pool_->get(total);
    if (!arena) return; // the writers' codecs code these files themselves
    for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k].dst = arena.get() + where[k].offset;

    if (encoders_.size() == 1)
    {
      const pcwt_status st = pcwt_encode_batch(encoders_[0], jobs.data(), jobs.size());
      (void)st; // the per-frame statuses below decide
      ++stats.calls;
    }
    else
    {
      // contiguous parts of about equal sample bytes, one per thread
      const std::size_t parts = std::min(encoders_.size(), jobs.size());
      std::uint64_t bytes = 0;
      for (const pcwt_frame_job& j : jobs) bytes += j.samples_size;
      std::vector<std::size_t> cut(1, 0);
      std::uint64_t acc = 0;
      for (std::size_t k = 0; k < jobs.size() && cut.size() < parts; ++k)
      {
        acc += jobs[k].samples_size;
        if (acc * parts >= bytes * cut.size() && k + 1 < jobs.size()) cut.push_back(k + 1);
      }
      cut.push_back(jobs.size());
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t + 1 < cut.size(); ++t)
        threads.emplace_back([&, t]() {
          const pcwt_status st = pcwt_encode_batch(encoders_[t], jobs.data() + cut[t], cut[t + 1] - cut[t]);
          (void)st; // the per-frame statuses decide
        });
      for (std::thread& th : threads) th.join();
      stats.calls += threads.size();
    }

    // the codestreams go with their files; a file with a failed frame is coded again by the
    // writer's codec, which reports the failure as for a single file
    std::vector<bool> ok(batch.size(), true), any(batch.size(), false);
    for (std::size_t k = 0; k < jobs.size(); ++k)
    {
      any[where[k].work] = true;
      if (jobs[k].status != PCWT_OK) ok[where[k].work] = false;
    }
    for (std::size_t k = 0; k < jobs.size(); ++k)
    {
      const std::size_t w = where[k].work;
      if (!ok[w]) continue;
      DPRCJob& job = batch[w]->job;
      unsigned char *cs = static_cast<unsigned char *>(jobs[k].dst);
      if (jobs[k].written & 1) cs[jobs[k].written] = 0; // the pad byte (the slot has room for it)
      job.coded.push_back(DPRCJob::CodedFrame{cs, jobs[k].written});
      job.codedParams = params_;
      job.codedArena = arena;
    }
    for (std::size_t w = 0; w < batch.size(); ++w)
      if (ok[w] && any[w]) ++stats.files;
    stats.frames += jobs.size();
  }

private:
  pcwt_encode_params params_;
  std::vector<pcwt_encoder *> encoders_;
  std::shared_ptr<ArenaPool> pool_;
};

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

void compareRanges(std::vector<CompareRange>& ranges)
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
    if (!jobs.empty())
    {
      if (decoders_.size() == 1)
      {
        const pcwt_status st = pcwt_decode_batch(decoders_[0], jobs.data(), jobs.size());
        (void)st; // the per-frame statuses decide
      }
      else
      {
        // contiguous parts of about equal decoded bytes, one per thread
        const std::size_t parts = std::min(decoders_.size(), jobs.size());
        std::uint64_t bytes = 0;
        for (const pcwt_decode_job& j : jobs) bytes += j.dst_capacity;
        std::vector<std::size_t> cut(1, 0);
        std::uint64_t acc = 0;
        for (std::size_t k = 0; k < jobs.size() && cut.size() < parts; ++k)
        {
          acc += jobs[k].dst_capacity;
          if (acc * parts >= bytes * cut.size() && k + 1 < jobs.size()) cut.push_back(k + 1);
        }
        cut.push_back(jobs.size());
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t + 1 < cut.size(); ++t)
          threads.emplace_back([&, t]() {
            const pcwt_status st = pcwt_decode_batch(decoders_[t], jobs.data() + cut[t], cut[t + 1] - cut[t]);
            (void)st; // the per-frame statuses decide
          });
        for (std::thread& th : threads) th.join();
      }
    }
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

} // namespace

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
  // Batches the memory budget admits besides one in each coder: one being read and three being
  // written and verified; with one being written, the readers waited for the budget most of their
  // time (H100, 8 GB: 76%; 65% with three)
  const std::size_t batchesBesideCoders = 4;
  // output arenas kept: one for each coder, one for each other batch the budget admits, one spare
  arenas->setKeep(coders.size() + batchesBesideCoders + 1);
  // the verifier stage: a thread per device
  const bool verifying = p.verifyBatches && writers > 0 && opt.target == DPRCT_pcwt;
  std::vector<std::unique_ptr<BatchVerifier> > verifiers;
  // A verifier batch decodes at most about this much (and one file more), into an arena of one
  // size (page-locked: the GPU writes into it directly), compares, and gives the arena back for the
  // next batch. Arenas of every batch size up to the coder's 256 MB, held until the writers had
  // compared, took the H100's verifier 1.4 s to allocate and the writers 2.0 s to free (2 GB of
  // page-locked memory in 8 GB of samples, in a run of 4.5 s), and held up the coder's driver calls.
  const std::uint64_t verifyBytes = std::min<std::uint64_t>(p.batchBytes, 64u << 20);
  std::shared_ptr<ArenaPool> decodedArenas =
    std::make_shared<ArenaPool>(devices.size() + 1, "verifier", true, static_cast<std::size_t>(verifyBytes + (16u << 20)));
  if (verifying)
  {
    for (int d : devices)
    {
      verifiers.emplace_back(new BatchVerifier(decodedArenas));
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
  Budget budget(std::max<std::uint64_t>(p.batchBytes, 64u << 20) *
                (batchesBesideCoders + std::max<std::size_t>(1, coders.size())));
  std::atomic<std::size_t> next(0);
  Queue<VerifyRequest> toVerifier;
  VerifyClient verifyClient(toVerifier, p.maxSamplesPerFrame);
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
        if (!DPRCPrepare(w->job, files[i], opt, writers * group + r))
        {
          budget.release(w->reserved);
          done(i, w->job.result);
          continue;
        }
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
        coders[c]->code(batch, local);
        for (Work *x : batch) toWriter.push(x);
      }
      {
        std::lock_guard<std::mutex> lock(statsMutex);
        stats.calls += local.calls;
        stats.frames += local.frames;
        stats.files += local.files;
      }
      if (--codersLeft == 0) toWriter.close();
    });
  }
  for (unsigned wi = 0; wi < writers; ++wi)
  {
    threads.emplace_back([&, wi]() {
      ThreadCoder& tc = *lent[wi];
      DPCWTSetThreadCoder(&tc);
      // copies written wait here for their commit: flushed, renamed and their folders flushed
      // together, when the group is full or no coded file is waiting. With the verifier they are
      // compared first, as soon as their frames come back (the writer goes on meanwhile, so that
      // the verifier gets the copies of many files at once); each holds its samples until then.
      std::vector<std::unique_ptr<Work> > pending;
      std::vector<bool> slotUsed(group, false);
      std::vector<unsigned> slotOf;
      auto drop = [&](std::size_t k) {
        slotUsed[slotOf[k]] = false;
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        slotOf.erase(slotOf.begin() + static_cast<std::ptrdiff_t>(k));
      };
      // compare the copies whose frames are back (all of them: wait for the rest)
      auto compare = [&](bool all) {
        for (std::size_t k = 0; k < pending.size();)
        {
          DPRCJob& job = pending[k]->job;
          if (!job.pending || (!all && !DPRCVerifiedReady(job)))
          {
            ++k;
            continue;
          }
          const bool kept = DPRCAwaitVerified(job, opt);
          budget.release(pending[k]->reserved); // its samples are released
          pending[k]->reserved = 0;
          if (kept)
          {
            ++k;
            continue;
          }
          done(pending[k]->index, job.result);
          drop(k);
        }
      };
      auto commit = [&]() {
        compare(true);
        if (pending.empty()) return;
        std::vector<DPRCJob *> jobs;
        for (const std::unique_ptr<Work>& w : pending) jobs.push_back(&w->job);
        DPRCCommit(jobs, opt);
        for (const std::unique_ptr<Work>& w : pending) done(w->index, w->job.result);
        pending.clear();
        slotOf.clear();
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
        const unsigned free = static_cast<unsigned>(std::find(slotUsed.begin(), slotUsed.end(), false) - slotUsed.begin());
        const bool written = DPRCWriteVerified(w->job, opt, wi * group + free, verifying ? &verifyClient : NULL);
        tc.setJob(NULL);
        if (!w->job.pending)
        {
          budget.release(w->reserved); // its samples and data set are released
          w->reserved = 0;
        }
        if (written)
        {
          slotUsed[free] = true;
          slotOf.push_back(free);
          pending.push_back(std::move(w));
          compare(false);
          if (pending.size() >= group) commit();
        }
        else
          done(w->index, w->job.result);
      }
      commit();
      DPCWTSetThreadCoder(NULL);
      if (--writersLeft == 0) toVerifier.close();
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
        verifiers[v]->decode(batch, local);
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
  for (const std::unique_ptr<ThreadCoder>& tc : lent)
  {
    stats.framesTaken += tc->taken;
    stats.framesCodedByWriters += tc->codedHere;
  }
  return true;
}
