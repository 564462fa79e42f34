// thread_pool.cpp - see thread_pool.hpp.
#include "thread_pool.hpp"

namespace pcwtbench {

ThreadPool::ThreadPool(unsigned threads)
{
    if (threads == 0)
        threads = 1;
    threads_.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        threads_.emplace_back([this, i] { worker_main(i); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto &t : threads_)
        t.join();
}

void ThreadPool::run(size_t count, const Job &job)
{
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = &job;
    count_ = count;
    next_.store(0);
    error_ = nullptr;
    running_ = size();
    ++generation_;
    wake_.notify_all();
    done_.wait(lock, [this] { return running_ == 0; });
    job_ = nullptr;
    if (error_)
        std::rethrow_exception(error_);
}

void ThreadPool::worker_main(unsigned id)
{
    uint64_t seen = 0;
    for (;;) {
        const Job *job;
        size_t count;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_)
                return;
            seen = generation_;
            job = job_;
            count = count_;
        }
        for (size_t t = next_.fetch_add(1); t < count; t = next_.fetch_add(1)) {
            try {
                (*job)(t, id);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!error_)
                    error_ = std::current_exception();
            }
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (--running_ == 0)
                done_.notify_all();
        }
    }
}

} // namespace pcwtbench
