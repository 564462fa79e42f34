/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): one file on its way, the queues
 *           between the stages and the memory budget the readers wait for.
 */

#ifndef PCWT_ARCHIVE_QUEUE_H
#define PCWT_ARCHIVE_QUEUE_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

namespace dprc {

/// one file in the pipeline
struct Work
{
  std::size_t index = 0;
  DPRCJob job;
  /// bytes reserved in the memory budget
  std::uint64_t reserved = 0;
  /// a writer's slot of the temporary file, among its commit group's (engine.h's slot)
  unsigned slot = 0;
  /// read while the samples' pool lent ordinary memory (before the page-locked region): the
  /// batch coder moves its samples into the region (pinSamples)
  bool readUnpinned = false;
};

/// a queue between stages; pop fails once it is closed and empty
template <class T>
class Queue
{
public:
  void push(T *w)
  {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(w);
      first = ++pushed_ == 1;
    }
    cv_.notify_one();
    if (first) firstCv_.notify_all();
  }

  /// waits for the first item pushed (true) or the close with none (false)
  bool waitFirst()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    firstCv_.wait(lock, [this]() { return pushed_ > 0 || closed_; });
    return pushed_ > 0;
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

  /// items pushed so far
  std::size_t pushed()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return pushed_;
  }

  /// closed, and nothing left in it
  bool drained()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_ && items_.empty();
  }

  void close()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
    firstCv_.notify_all();
  }

private:
  std::mutex mutex_;
  /// items or the close (pop); the first item or the close (waitFirst: apart, so that a push's
  /// one wake-up goes to a pop)
  std::condition_variable cv_, firstCv_;
  std::deque<T *> items_;
  std::size_t pushed_ = 0;
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

  /// a new limit (the readers start before the coders' count, which sets it, is known), and
  /// what raiseOnce() added
  void setLimit(std::uint64_t limit)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      base_ = limit;
      limit_ = limit > UINT64_MAX - extra_ ? UINT64_MAX : limit + extra_;
    }
    cv_.notify_all();
  }

  /// the limit raised by n for the rest of the run, the first time only (JPEG 2000 input's
  /// batches, once the first such file comes)
  void raiseOnce(std::uint64_t n)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (raised_) return;
      raised_ = true;
      extra_ = n;
      limit_ = base_ > UINT64_MAX - extra_ ? UINT64_MAX : base_ + extra_;
    }
    cv_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::uint64_t used_ = 0;
  std::uint64_t limit_;
  std::uint64_t base_ = limit_, extra_ = 0;
  bool raised_ = false;
};

} // namespace dprc

#endif
