// pinned_alloc.cu - micro-benchmark of page-locked host memory on the GPU machine: cudaMallocHost
// against mmap (4 KB or 2 MB pages) + commit + cudaHostRegister, and the transfer speed of each.
// nvcc -O2 -arch=sm_90 -o pinned_alloc bench/pinned/pinned_alloc.cu (results: bench/results/
// gpu-h100-2026-11-25-recompress-pinned.md)
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  cudaFree(0);
  void *d; cudaMalloc(&d, 1ull << 30);
  for (size_t mb : {84, 343, 1024}) {
    size_t n = mb << 20;
    double t0 = now(); void *p; cudaMallocHost(&p, n); double t1 = now();
    cudaMemcpy(p, d, n, cudaMemcpyDeviceToHost); double t2 = now();
    cudaFreeHost(p); double t3 = now();
    printf("%zu MB cudaMallocHost %.1f ms, d2h %.1f ms (%.1f GB/s), free %.1f ms\n", mb, t1 - t0, t2 - t1, n / 1e6 / (t2 - t1), t3 - t2);
    for (int thp = 0; thp < 2; thp++) {
      t0 = now();
      void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (thp) madvise(q, n, MADV_HUGEPAGE);
      for (size_t o = 0; o < n; o += 4096) ((volatile char *)q)[o] = 0;
      t1 = now();
      cudaError_t e = cudaHostRegister(q, n, cudaHostRegisterDefault);
      t2 = now();
      cudaMemcpy(q, d, n, cudaMemcpyDeviceToHost); double t25 = now();
      cudaMemcpy(d, q, n, cudaMemcpyHostToDevice); double t26 = now();
      cudaHostUnregister(q); t3 = now();
      munmap(q, n); double t4 = now();
      printf("%zu MB thp=%d touch %.1f ms, register %.1f ms (%s), d2h %.1f GB/s h2d %.1f GB/s, unregister %.1f ms, munmap %.1f ms\n", mb, thp, t1 - t0, t2 - t1,
             cudaGetErrorString(e), n / 1e6 / (t25 - t2), n / 1e6 / (t26 - t25), t3 - t26, t4 - t3);
    }
    // pageable memcpy for reference
    std::vector<char> a(n, 1), b(n, 2);
    t0 = now(); memcpy(b.data(), a.data(), n); t1 = now();
    printf("%zu MB memcpy warm %.1f ms (%.1f GB/s)\n", mb, t1 - t0, n / 1e6 / (t1 - t0));
  }
}
