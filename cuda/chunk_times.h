// chunk_times.h - PCWT_GPU_TRACE's timeline of a batch call's chunks: when each chunk's upload,
// compute and download ran on the device (CUDA events, from the call's start), to show whether
// they overlap. Nothing is recorded when the context does not trace.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

// The call's start and name, and the number of the next chunk, shared by the slots' timelines.
struct ChunkClock {
    cudaEvent_t origin = nullptr;
    const char *what = "";
    size_t next = 0;
};

struct ChunkTimes {
    enum Mark { UP0, UP1, COMPUTE0, COMPUTE1, DOWN0, DOWN1, MARKS };
    ChunkClock *clock = nullptr; // set (with the events) only when the context traces
    cudaEvent_t ev[MARKS] = {};
    bool marked[MARKS] = {};
    size_t chunk = 0;
    // Records mark m on stream s; UP0 starts a chunk.
    void mark(Mark m, cudaStream_t s);
    // Once the chunk is done: one line "pcwt gpu WHAT chunk N (slot S): upload a-b; compute
    // c-d; download e-f ms" on stderr, times from the call's start; the marks are cleared.
    void report(int slot);
    void create(ChunkClock *c);
    void destroy();
};

// Starts a call's timeline on stream s (its first work goes there): the origin, the chunk count.
void gpu_chunk_clock_start(ChunkClock &c, const char *what, cudaStream_t s);
