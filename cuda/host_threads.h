// host_threads.h - a host-side job split over a few threads made for it (the staging copies, the
// JPEG 2000 layout's checks and sort).
#ifndef PCWT_HOST_THREADS_H
#define PCWT_HOST_THREADS_H

#include <cstddef>
#include <thread>
#include <vector>

// fn(t) for t in [0, parts) on parts threads, this one included.
template <typename Fn> void gpu_on_threads(size_t parts, Fn fn)
{
    std::vector<std::thread> th;
    for (size_t t = 1; t < parts; t++)
        th.emplace_back(fn, t);
    fn(size_t(0));
    for (std::thread &x : th)
        x.join();
}

#endif
