// chunk_times.cu - the chunk timeline of PCWT_GPU_TRACE (chunk_times.h).
#include "chunk_times.h"
#include "gpu_check.h"

#include <cstdio>

void ChunkTimes::create(ChunkClock *c)
{
    for (cudaEvent_t &e : ev)
        CUDA_CHECK(cudaEventCreate(&e));
    clock = c;
}

void ChunkTimes::destroy()
{
    for (cudaEvent_t &e : ev)
        if (e)
            cudaEventDestroy(e);
    clock = nullptr;
}

void ChunkTimes::mark(Mark m, cudaStream_t s)
{
    if (!clock)
        return;
    if (m == UP0) {
        chunk = clock->next++;
        for (bool &b : marked)
            b = false;
    }
    CUDA_CHECK(cudaEventRecord(ev[m], s));
    marked[m] = true;
}

void ChunkTimes::report(int slot)
{
    if (!clock || !marked[UP0])
        return;
    float t[MARKS] = {};
    for (int m = 0; m < MARKS; m++)
        if (marked[m]) {
            CUDA_CHECK(cudaEventSynchronize(ev[m]));
            CUDA_CHECK(cudaEventElapsedTime(&t[m], clock->origin, ev[m]));
        }
    char line[256];
    int n = std::snprintf(line, sizeof line, "pcwt gpu %s chunk %zu (slot %d): upload %.3f-%.3f; compute %.3f-%.3f",
                          clock->what, chunk, slot, t[UP0], t[UP1], t[COMPUTE0], t[COMPUTE1]);
    if (marked[DOWN0] && n > 0 && size_t(n) < sizeof line)
        n += std::snprintf(line + n, sizeof line - size_t(n), "; download %.3f-%.3f", t[DOWN0], t[DOWN1]);
    std::fprintf(stderr, "%s ms\n", line);
    for (bool &b : marked)
        b = false;
}

void gpu_chunk_clock_start(ChunkClock &c, const char *what, cudaStream_t s)
{
    if (!c.origin)
        return;
    c.what = what;
    c.next = 0;
    CUDA_CHECK(cudaEventRecord(c.origin, s));
}
