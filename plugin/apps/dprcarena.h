/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (dprcpipe.h): the host buffers of the batch
 *           coders' codestreams and the verifiers' decoded frames, kept for reuse.
 */

#ifndef DCMPCWT_DPRCARENA_H
#define DCMPCWT_DPRCARENA_H

#include "dcmtk/config/osconfig.h"

#include "pcwt.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace dprc {

/// PCWT_GPU_PROFILE=1: the arena pools time their allocations and frees (stderr)
inline bool gpuProfile()
{
  static const bool on = []() {
    const char *v = std::getenv("PCWT_GPU_PROFILE");
    return v != NULL && *v != 0 && *v != '0';
  }();
  return on;
}

inline double msSince(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}


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

} // namespace dprc

#endif
