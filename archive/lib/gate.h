/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the start gate. The readers start
 *           at once while the coding devices come up (the GPUs checked, the CUDA contexts and the
 *           coders' handles made) on the starting thread; the stages after the readers start when
 *           the gate opens. What the readers finish before then (files skipped, failed, a dry
 *           run's) is held back and reported when it opens, and dropped when it fails: a run that
 *           cannot start reports no file and touches none.
 */

#ifndef PCWT_ARCHIVE_GATE_H
#define PCWT_ARCHIVE_GATE_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace dprc {

class StartGate
{
public:
  typedef std::vector<std::pair<std::size_t, DPRCResult> > Held;

  /// decided and open (the devices' handles made)
  bool isOpen()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_ == open_;
  }

  bool failed()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_ == failed_;
  }

  /// wait until decided: true when open
  bool wait()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this]() { return state_ != pending_; });
    return state_ == open_;
  }

  /** a file's final result: false when it is to be reported now (the gate is open); else held
   *  until the gate opens, or dropped when it has failed
   */
  bool hold(std::size_t i, DPRCResult& r)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ == open_) return false;
    if (state_ == pending_) held_.emplace_back(i, std::move(r));
    return true;
  }

  /// open the gate; the results held until now, to be reported
  Held openGate()
  {
    Held held;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      state_ = open_;
      held.swap(held_);
    }
    cv_.notify_all();
    return held;
  }

  /// the run cannot start: the results held are dropped
  void fail()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      state_ = failed_;
      Held().swap(held_);
    }
    cv_.notify_all();
  }

private:
  enum State { pending_, open_, failed_ };
  std::mutex mutex_;
  std::condition_variable cv_;
  State state_ = pending_;
  Held held_;
};

} // namespace dprc

#endif
