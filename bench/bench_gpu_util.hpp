// bench_gpu_util.hpp - what pcwt_bench_gpu's files share: the clock, the median of repeats, the
// fatal-error exit and a loop over every core.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace benchgpu {

inline double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median of `repeats` timed calls of f, after one untimed warm-up call.
template <typename F> double median_ms(int repeats, F f)
{
    f(); // warm-up
    std::vector<double> t;
    for (int r = 0; r < repeats; r++) {
        const double a = now_ms();
        f();
        t.push_back(now_ms() - a);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// "<who>: <message>" on stderr, then exit status 1.
[[noreturn]] inline void die_as(const char *who, const std::string &m)
{
    std::fprintf(stderr, "%s: %s\n", who, m.c_str());
    std::exit(1);
}

// f(i) for every i below n, one thread per core taking the next index.
template <typename F> void parallel_for(size_t n, F f)
{
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; t++)
        pool.emplace_back([&]() {
            for (size_t i; (i = next++) < n;)
                f(i);
        });
    for (auto &t : pool)
        t.join();
}

} // namespace benchgpu
