/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the bookkeeping of one block of
 *           memory made once for the run and cut into buffers of any size (the files' samples,
 *           the batch coders' output arenas), so that page-locked memory is made and freed once
 *           instead of per buffer (each allocation pins, each free unpins, page by page).
 */

#ifndef PCWT_ARCHIVE_REGION_H
#define PCWT_ARCHIVE_REGION_H

#include <cstddef>
#include <iterator>
#include <map>

namespace dprc {

/** offsets into a region of `size` bytes: best fit among the free runs, in granules of 64 KB
 *  (buffers start aligned for the GPU's copies), a run given back joined with its free neighbours
 */
class RegionCutter
{
public:
  static constexpr std::size_t kGranule = std::size_t(64) << 10;
  static constexpr std::size_t npos = ~std::size_t(0);

  explicit RegionCutter(std::size_t size = 0) : size_(size / kGranule * kGranule)
  {
    if (size_) free_.emplace(0, size_);
  }

  /// the offset of a run of at least n bytes (npos: no free run is long enough)
  std::size_t take(std::size_t n)
  {
    const std::size_t want = (n ? n + kGranule - 1 : kGranule) / kGranule * kGranule;
    if (want < n) return npos; // (n near the end of size_t)
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= want && (best == free_.end() || it->second < best->second)) best = it;
    if (best == free_.end()) return npos;
    const std::size_t at = best->first, len = best->second;
    free_.erase(best);
    if (len > want) free_.emplace(at + want, len - want);
    used_.emplace(at, want);
    inUse_ += want;
    return at;
  }

  /// the run at offset (from take()) is free again; false: no such run (nothing changes)
  bool give(std::size_t offset)
  {
    const auto u = used_.find(offset);
    if (u == used_.end()) return false;
    std::size_t at = u->first, len = u->second;
    inUse_ -= len;
    used_.erase(u);
    auto next = free_.lower_bound(at);
    if (next != free_.end() && next->first == at + len)
    {
      len += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin())
    {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at)
      {
        at = prev->first;
        len += prev->second;
        free_.erase(prev);
      }
    }
    free_.emplace(at, len);
    return true;
  }

  std::size_t size() const { return size_; }
  /// bytes lent (whole granules)
  std::size_t inUse() const { return inUse_; }
  /// buffers lent
  std::size_t lent() const { return used_.size(); }
  /// free runs (1 when nothing is lent: every run given back was joined)
  std::size_t freeRuns() const { return free_.size(); }

private:
  std::size_t size_;
  std::size_t inUse_ = 0;
  std::map<std::size_t, std::size_t> free_, used_;
};

} // namespace dprc

#endif
