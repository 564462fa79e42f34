/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): on which devices a stage's
 *           handles are up. Each device comes up on a thread of its own (its CUDA context, its
 *           handles warmed) while the stages run; a device's batch coders (and verifiers) take
 *           work only once they are up there, so that the first device codes while the others
 *           come up, and the work goes to whichever device is ready.
 */

#ifndef PCWT_ARCHIVE_DEVICES_UP_H
#define PCWT_ARCHIVE_DEVICES_UP_H

#include "dcmtk/config/osconfig.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace dprc {

class DevicesUp
{
public:
  /// the device is up: its threads take work from now on
  void up(int device)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      up_.insert(device);
    }
    cv_.notify_all();
  }

  /** wait until the device is up (true), or until nothingLeft() says that no work will come for
   *  it any more (false; asked every few milliseconds: the queues do not tell this class)
   */
  template <class NothingLeft>
  bool wait(int device, NothingLeft nothingLeft)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!up_.count(device))
    {
      lock.unlock();
      const bool over = nothingLeft();
      lock.lock();
      if (up_.count(device)) break;
      if (over) return false;
      cv_.wait_for(lock, std::chrono::milliseconds(2));
    }
    return true;
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::set<int> up_;
};

} // namespace dprc

#endif
