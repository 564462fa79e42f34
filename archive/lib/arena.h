/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the host buffers of the batch
 *           coders' codestreams and the files' samples, kept for reuse.
 */

#ifndef PCWT_ARCHIVE_ARENA_H
#define PCWT_ARCHIVE_ARENA_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"
#include "region.h"
#include "pcwt.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace dprc {

/// PCWT_GPU_TRACE=1: the arena pools time their allocations and frees (stderr)
inline bool gpuTrace()
{
  static const bool on = []() {
    const char *v = std::getenv("PCWT_GPU_TRACE");
    return v != NULL && *v != 0 && *v != '0';
  }();
  return on;
}

inline double msSince(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}


/** host buffers for the batch coders' codestreams and the files' original samples, kept for
 *  reuse: a batch's buffer goes with the files of the batch, whose writers' codecs store the
 *  codestreams from it, and comes back when the last of them lets go
 */
class ArenaPool : public DPRCSampleMemory, public std::enable_shared_from_this<ArenaPool>
{
public:
  /** keep: free buffers kept at most (the smallest goes beyond); name: for the profile lines;
   *  pinned: page-locked buffers (pcwt_host_alloc, which the GPU reads and writes directly) for
   *  arenas that get filled, else ordinary memory, committed; minSize: no buffer is smaller, so
   *  that any ordinary request fits any buffer kept
   */
  ArenaPool(std::size_t keep, const char *name, bool pinned, std::size_t minSize = 0)
    : keep_(std::max<std::size_t>(1, keep)), name_(name), pinned_(pinned), minSize_(minSize) {}

  ~ArenaPool()
  {
    for (const auto& a : free_)
      if (!classes_) release(a.second);
    for (const Arena& s : slabs_) release(s);
    for (const std::unique_ptr<Part>& part : parts_) release(part->mem);
  }

  void setKeep(std::size_t keep)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    keep_ = std::max<std::size_t>(1, keep);
  }

  /** page-locked buffers or not from now on (the samples' pool is made before the GPU is up):
   *  buffers of the other kind are not lent again (those of slabs stay until the pool goes)
   */
  void setPinned(bool pinned)
  {
    std::vector<Arena> drop;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pinned_ = pinned;
      for (auto it = free_.begin(); it != free_.end();)
      {
        if (it->second.pinned == pinned)
        {
          ++it;
          continue;
        }
        if (!classes_) drop.push_back(it->second);
        it = free_.erase(it);
      }
    }
    for (const Arena& d : drop) release(d);
  }

  /** a part of the region, about `bytes`, made now on the calling thread (page locked: pinned),
   *  from which get() cuts its buffers first from now on, while the pool lends buffers of the
   *  region's kind (setPinned). The region comes in parts, so that the first is lent while the
   *  next is made; a buffer lies within one part. A request no part has room for (their buffers
   *  lent, or no free run long enough; regionUse().overflows) is served as without a region,
   *  except with size classes (files' samples): none then, the caller takes the heap.
   *  False: not made (out of memory)
   */
  bool reserve(std::size_t bytes, bool pinned)
  {
    bytes = (bytes + (std::size_t(2) << 20) - 1) & ~((std::size_t(2) << 20) - 1);
    if (bytes == 0) return false;
    const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Part> part(new Part());
    part->mem.p = static_cast<unsigned char *>(pinned ? pcwt_host_alloc(bytes) : committedAlloc(bytes));
    part->mem.size = bytes;
    part->mem.pinned = pinned;
    if (part->mem.p == NULL) return false;
    part->cutter = RegionCutter(bytes);
    const double ms = msSince(t0);
    if (gpuTrace())
      std::fprintf(stderr, "pcwt-recompress %s region (ms): alloc %.0f MB %.1f\n", name_, static_cast<double>(bytes) / 1e6, ms);
    std::lock_guard<std::mutex> lock(mutex_);
    parts_.push_back(std::move(part));
    regionNs_ += static_cast<std::uint64_t>(ms * 1e6);
    return true;
  }

  /** buffers for many requests of many sizes (files' samples): each of about the size asked
   *  (within 1/8), a free one reused for a request of at least half its size. They are cut from
   *  slabs of up to 16 buffers of a size (one registration with the GPU driver for each slab: a
   *  registration per buffer made the reading threads wait for the driver), and kept until the
   *  pool goes.
   */
  void setSizeClasses()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    classes_ = true;
  }

  /// a buffer of at least n bytes (empty when out of memory)
  std::shared_ptr<unsigned char> get(std::size_t n)
  {
    Arena a;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      bool any = false;
      for (const std::unique_ptr<Part>& part : parts_)
      {
        if (part->mem.pinned != pinned_) continue;
        any = true;
        const std::size_t at = part->cutter.take(n);
        if (at == RegionCutter::npos) continue;
        ++regionLent_;
        std::shared_ptr<ArenaPool> self = shared_from_this();
        Part *const from = part.get();
        return std::shared_ptr<unsigned char>(from->mem.p + at, [self, from, at](unsigned char *) { self->giveBack(*from, at); });
      }
      if (any)
      {
        ++overflows_;
        // files' samples beyond the region: the caller's heap (DPRCSamples), which the GPU's
        // coders stage, rather than page-locked slabs, whose pinning the readers wait for
        if (classes_) return std::shared_ptr<unsigned char>();
      }
      const auto best = free_.lower_bound(n);
      if (best != free_.end() && (!classes_ || best->first / 2 <= n))
      {
        a = best->second;
        free_.erase(best);
      }
    }
    if (a.p == NULL && classes_)
    {
      a = newSlab(n);
      if (a.p == NULL) return std::shared_ptr<unsigned char>();
    }
    if (a.p == NULL)
    {
      // room to grow: batches differ in size, and a new buffer is expensive
      a.size = (std::max(n + n / 8, minSize_) + (std::size_t(1) << 20) - 1) & ~((std::size_t(1) << 20) - 1);
      a.p = allocate(a.size, a.pinned);
      if (a.p == NULL) return std::shared_ptr<unsigned char>();
    }
    std::shared_ptr<ArenaPool> self = shared_from_this();
    return std::shared_ptr<unsigned char>(a.p, [self, a](unsigned char *) { self->put(a); });
  }

  /// whether the pool lends page-locked buffers now (setPinned)
  bool pinned() const { return pinned_.load(); }

  /// whether p lies in page-locked memory of this pool's region or slabs (the GPU reads it
  /// without staging)
  bool pinnedAt(const void *p)
  {
    const unsigned char *c = static_cast<const unsigned char *>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::unique_ptr<Part>& part : parts_)
      if (part->mem.pinned && c >= part->mem.p && c < part->mem.p + part->mem.size) return true;
    for (const Arena& s : slabs_)
      if (s.pinned && c >= s.p && c < s.p + s.size) return true;
    return false;
  }

  /// buffers allocated so far besides the region and the milliseconds it took
  std::uint64_t allocations() const { return allocs_.load(); }
  double allocationMs() const { return static_cast<double>(allocNs_.load()) * 1e-6; }

  /// what the region did (reserve()): its size (0: none) and parts, the milliseconds they took
  /// to make, the buffers cut from it, the requests it had no room for, the bytes lent now
  struct RegionUse
  {
    std::size_t bytes = 0, parts = 0;
    double ms = 0;
    std::uint64_t lent = 0, overflows = 0;
    std::size_t inUse = 0;
  };
  RegionUse regionUse()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    RegionUse u;
    for (const std::unique_ptr<Part>& part : parts_)
    {
      u.bytes += part->mem.size;
      u.inUse += part->cutter.inUse();
    }
    u.parts = parts_.size();
    u.ms = static_cast<double>(regionNs_) * 1e-6;
    u.lent = regionLent_;
    u.overflows = overflows_;
    return u;
  }

private:
  struct Arena
  {
    unsigned char *p = NULL;
    std::size_t size = 0;
    bool pinned = false;
  };

  /// a part of the region (reserve())
  struct Part
  {
    Arena mem;
    RegionCutter cutter;
  };

  /// n bytes, page locked or committed (pinned: which), counted and timed (allocations(); the arenas' profile lines)
  unsigned char *allocate(std::size_t n, bool& pinned)
  {
    const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    pinned = pinned_.load();
    unsigned char *p = static_cast<unsigned char *>(pinned ? pcwt_host_alloc(n) : committedAlloc(n));
    if (gpuTrace() && !classes_)
      std::fprintf(stderr, "pcwt-recompress %s arena (ms): alloc %.0f MB %.1f\n", name_, static_cast<double>(n) / 1e6, msSince(t0));
    if (p == NULL) return NULL;
    allocs_.fetch_add(1, std::memory_order_relaxed);
    allocNs_.fetch_add(static_cast<std::uint64_t>(msSince(t0) * 1e6), std::memory_order_relaxed);
    return p;
  }

  /// a slab of buffers of n's size class: one to return, the others free
  Arena newSlab(std::size_t n)
  {
    const std::size_t size = classSize(n);
    const std::size_t count = std::min<std::size_t>(16, std::max<std::size_t>(1, (std::size_t(32) << 20) / size));
    Arena slab;
    slab.size = size * count;
    slab.p = allocate(slab.size, slab.pinned);
    if (slab.p == NULL) return Arena();
    std::lock_guard<std::mutex> lock(mutex_);
    slabs_.push_back(slab);
    for (std::size_t k = 1; k < count; ++k)
    {
      Arena b;
      b.p = slab.p + k * size;
      b.size = size;
      b.pinned = slab.pinned;
      if (b.pinned == pinned_) free_.emplace(size, b); // (else made just before setPinned)
    }
    Arena first;
    first.p = slab.p;
    first.size = size;
    first.pinned = slab.pinned;
    return first;
  }

  /// n rounded up to an eighth of its power of two (at least 64 KB)
  static std::size_t classSize(std::size_t n)
  {
    std::size_t need = std::max<std::size_t>(n, 64u << 10), p2 = 1;
    while (p2 <= need / 2) p2 *= 2;
    const std::size_t step = std::max<std::size_t>(p2 / 8, 4096);
    return (need + step - 1) / step * step;
  }

  /// a buffer of the region given back
  void giveBack(Part& part, std::size_t at)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool known = part.cutter.give(at);
    (void)known; // (always: the deleter holds the offset take() gave)
  }

  void put(const Arena& a)
  {
    std::vector<Arena> drop;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (a.pinned == pinned_) free_.emplace(a.size, a);
      else if (!classes_) drop.push_back(a);
      while (!classes_ && free_.size() > keep_)
      {
        drop.push_back(free_.begin()->second);
        free_.erase(free_.begin());
      }
    }
    for (const Arena& d : drop)
    {
      const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
      release(d);
      if (gpuTrace())
        std::fprintf(stderr, "pcwt-recompress %s arena (ms): free %.0f MB %.1f\n", name_, static_cast<double>(d.size) / 1e6, msSince(t0));
    }
  }

  /** memory whose pages are all there: every batch writes into an arena at other offsets
   *  (its frames differ), and first writes into untouched pages are page faults that slow the
   *  copy out of the GPU's staging many times over; committed once, in 2 MB pages where the
   *  kernel has them, a reused arena faults no more
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
    if (a.pinned)
      pcwt_host_free(a.p);
    else
#ifdef __linux__
      munmap(a.p, a.size);
#else
      std::free(a.p);
#endif
  }

  std::mutex mutex_;
  std::multimap<std::size_t, Arena> free_;
  /// setSizeClasses(): the slabs the free and lent buffers are cut from
  std::vector<Arena> slabs_;
  std::size_t keep_;
  bool classes_ = false;
  const char *name_;
  std::atomic<bool> pinned_;
  const std::size_t minSize_;
  std::atomic<std::uint64_t> allocs_{0}, allocNs_{0};
  /// reserve(): the region's parts and their bookkeeping (under mutex_; a part stays until the pool goes)
  std::vector<std::unique_ptr<Part> > parts_;
  std::uint64_t regionNs_ = 0, regionLent_ = 0, overflows_ = 0;
};

} // namespace dprc

#endif
