// thread_pool.hpp - a fixed set of worker threads that run one job at a time: run(count, fn)
// calls fn(task, worker) for every task in [0, count), spread over the workers (each takes the
// next task when it is free), and returns when all are done.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pcwtbench {

class ThreadPool {
public:
    using Job = std::function<void(size_t task, unsigned worker)>;

    explicit ThreadPool(unsigned threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    unsigned size() const { return static_cast<unsigned>(threads_.size()); }
    // Runs the job on all workers; rethrows the first exception a task threw.
    void run(size_t count, const Job &job);

private:
    void worker_main(unsigned id);

    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    const Job *job_ = nullptr;
    size_t count_ = 0;
    std::atomic<size_t> next_{0};
    unsigned running_ = 0;
    uint64_t generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

} // namespace pcwtbench
