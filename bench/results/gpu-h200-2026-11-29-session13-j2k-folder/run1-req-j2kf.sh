#!/usr/bin/env bash
# j2kf (issue 34), run 1: branch j2kf13's tests, the JPEG 2000 folder (pcwt-recompress,
# run-j2k-bench.sh) with variants; a probe of the page-locked buffer's cost; traces.
# cwd = source root, $B build dir, $O output, $J2K the run-j2k-bench.sh --pack set. About 75 s.
set -u
mkdir -p "$O"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
# 0. (~10 s) the tests of what lands: the JPEG 2000 recompress cases (CPU stand-in and GPU)
timeout 40 ctest --test-dir "$B" -j8 -R 'j2k\.J2kRecompress|recompress\.RecompressDevices\.JpegTwoThousand' \
  --output-on-failure > "$O/ctest-j2kf.txt" 2>&1
tail -4 "$O/ctest-j2kf.txt"
# 1. (~45 s) the folder: the branch's default (the finishers decode files of <= 1 MB, the CT/MR
#    slices, with OpenJPEG beside the GPU, from the start), against main's behaviour (off:
#    --j2k-cpu-kb 0), 128 MB JPEG 2000 batches, one JPEG 2000 decoder (less page-locked memory)
timeout 100 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 3 --baseline-repeat 1 \
  --size-mb 600 --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" \
  --variant "off:--j2k-cpu-kb 0" --variant "b128:--j2k-batch-mb 128" --variant "d1:--j2k-decoders-per-gpu 1" \
  > "$O/run-j2k-bench.txt" 2>&1
tail -30 "$O/run-j2k-bench.txt"
cp "$W"/recompress-*.log "$O/" 2>/dev/null
# 2. (~12 s) where a 288 MB page-locked buffer's time goes (commit / register, before / after
#    the context), D2H into pageable memory, the end's unregister
cat > /tmp/pinprobe.cu <<'PROBE'
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>
static double ms(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count(); }
static unsigned char *mapHuge(size_t n) {
  const size_t H = 2u << 20; size_t span = n + H;
  unsigned char *m = (unsigned char *)mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned char *a = (unsigned char *)(((uintptr_t)m + H - 1) & ~(uintptr_t)(H - 1));
  madvise(a, n, MADV_HUGEPAGE); return a; }
static void touch(unsigned char *a, size_t n, int threads) {
  std::vector<std::thread> t; size_t per = (n / threads + 4095) & ~size_t(4095);
  for (int k = 0; k < threads; ++k) t.emplace_back([=]() { for (size_t o = k * per; o < n && o < (k + 1) * per; o += 4096) ((volatile unsigned char *)a)[o] = 0; });
  for (auto &x : t) x.join(); }
int main() {
  const size_t n = size_t(288) << 20;
  auto t = std::chrono::steady_clock::now();
  unsigned char *a = mapHuge(n); touch(a, n, 1); double commit1 = ms(t);
  t = std::chrono::steady_clock::now(); unsigned char *a4 = mapHuge(n); touch(a4, n, 4); double commit4 = ms(t);
  t = std::chrono::steady_clock::now(); cudaFree(0); double ctx = ms(t);
  t = std::chrono::steady_clock::now(); cudaHostRegister(a, n, 0); double reg = ms(t);
  t = std::chrono::steady_clock::now(); cudaHostRegister(a4, n, 0); double reg4 = ms(t);
  t = std::chrono::steady_clock::now(); unsigned char *b = mapHuge(n); touch(b, n, 1); double commitAfter = ms(t);
  t = std::chrono::steady_clock::now(); cudaHostRegister(b, n, 0); double regAfter = ms(t);
  void *h = nullptr; t = std::chrono::steady_clock::now(); cudaMallocHost(&h, n); double mallocHost = ms(t);
  unsigned char *c = mapHuge(n); touch(c, n, 1);
  unsigned char *c2 = mapHuge(n);
  void *d = nullptr; cudaMalloc(&d, n); cudaMemset(d, 1, n); cudaDeviceSynchronize();
  double pin[3], pag[3], pagNew = 0;
  for (int r = 0; r < 3; ++r) {
    t = std::chrono::steady_clock::now(); cudaMemcpy(a, d, n, cudaMemcpyDeviceToHost); pin[r] = ms(t);
    t = std::chrono::steady_clock::now(); cudaMemcpy(c, d, n, cudaMemcpyDeviceToHost); pag[r] = ms(t); }
  t = std::chrono::steady_clock::now(); cudaMemcpy(c2, d, n, cudaMemcpyDeviceToHost); pagNew = ms(t);
  t = std::chrono::steady_clock::now(); cudaHostUnregister(a); double unreg = ms(t);
  t = std::chrono::steady_clock::now(); munmap(a, n); double unmapPinned = ms(t);
  t = std::chrono::steady_clock::now(); munmap(c, n); double unmapPlain = ms(t);
  t = std::chrono::steady_clock::now(); cudaFreeHost(h); double freeHost = ms(t);
  std::printf("288 MB: commit before the context 1 thread %.1f ms, 4 threads %.1f; context %.1f; register of committed %.1f (4-thread one %.1f)\n", commit1, commit4, ctx, reg, reg4);
  std::printf("after the context: commit %.1f + register %.1f (pcwt_host_alloc's way); cudaMallocHost %.1f\n", commitAfter, regAfter, mallocHost);
  std::printf("D2H 288 MB: page-locked %.1f %.1f %.1f ms, pageable committed %.1f %.1f %.1f, pageable fresh %.1f\n", pin[0], pin[1], pin[2], pag[0], pag[1], pag[2], pagNew);
  std::printf("end: unregister %.1f, munmap of it %.1f, munmap plain %.1f, cudaFreeHost %.1f\n", unreg, unmapPinned, unmapPlain, freeHost);
  return 0;
}
PROBE
timeout 40 /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o /tmp/pinprobe /tmp/pinprobe.cu > "$O/pinprobe.txt" 2>&1 &&
  for k in 1 2; do timeout 10 /tmp/pinprobe >> "$O/pinprobe.txt" 2>&1; done
cat "$O/pinprobe.txt"
# 3. (~6 s) the traces: default and off, one run each, on the bench's input
IN=$(ls -d "$W"/in-* | head -1)
for v in default off; do
  e=(); [[ $v == off ]] && e=(--j2k-cpu-kb 0)
  rm -rf "$W/out-t"
  timeout 20 env PCWT_GPU_TRACE=1 "$B/archive/pcwt-recompress" --threads 16 --output "$W/out-t" --stats "${e[@]}" "$IN" \
    > "$O/trace-$v.txt" 2>&1
  grep -E "timeline|wall|JPEG 2000 frames" "$O/trace-$v.txt"
done
gzip -f "$O"/trace-*.txt
