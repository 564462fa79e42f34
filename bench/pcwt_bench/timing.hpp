// timing.hpp - monotonic clock, medians, throughput.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace pcwtbench {

inline double now_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median_of(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// MB/s of raw samples, 1 MB = 1e6 bytes.
inline double mb_per_s(double bytes, double seconds)
{
    return seconds > 0.0 ? bytes / seconds / 1e6 : 0.0;
}

} // namespace pcwtbench
