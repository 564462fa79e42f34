#!/usr/bin/env bash
# j2kf (issue 34), run 1: branch j2kf14-ab1 (32b8fef) -- A/B switches on the JPEG 2000 folder.
# cwd = source root, $B build dir, $O output, $J2K the run-j2k-bench.sh --pack set. About 75 s (1: 58 s at most, 2: 4 s, 3: 18 s at most, the part to cut first).
set -u
mkdir -p "$O"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
# 1. (~50 s) the folder, rows in turn, each 3x (CPU path once): the default against
#    prio   the PCWT handles' streams at the greatest priority (J2K decode kernels at the least)
#    warm   the GPU coders/verifiers warmed (device buffers grown) while the J2K decoders start
#    free2  the J2K batch buffers and decoders freed when the finishers are done (beside the coding)
#    t8     8 tier-2 threads a J2K group (2 decoders x 16 threads oversubscribe the 16 cores)
#    pool   the J2K decoders' device buffers from the handle's stream-ordered pool (no cudaFree, which
#           waits for the whole device, when the first batches grow them)
timeout 58 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 3 --baseline-repeat 1 \
  --size-mb 600 --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" \
  --variant "prio:PCWT_AB_STREAM_PRIO=1" --variant "warm:PCWT_RECOMPRESS_WARM=1" \
  --variant "free2:PCWT_AB_J2K_EARLY_FREE=2" --variant "t8:PCWT_AB_J2K_T2_THREADS=8" \
  --variant "pool:PCWT_AB_J2K_POOL=1" \
  > "$O/run-j2k-bench.txt" 2>&1
tail -34 "$O/run-j2k-bench.txt"
cp "$W"/recompress-*.log "$O/" 2>/dev/null
# 2. (~4 s) traces: the default, and pool
IN=$(ls -d "$W"/in-* | head -1)
for v in default "pool:PCWT_AB_J2K_POOL=1"; do
  n=${v%%:*}; e=""; [[ $v == *:* ]] && e=${v#*:}
  rm -rf "$W/out-t"
  timeout 10 env PCWT_GPU_TRACE=1 $e "$B/archive/pcwt-recompress" --threads 16 --output "$W/out-t" --stats "$IN" \
    > "$O/trace-$n.txt" 2>&1
  grep -E "^timeline|handles freed" "$O/trace-$n.txt"
done
rm -rf "$W/out-t"
gzip -f "$O"/trace-*.txt
# 3. (~15 s, last: cut it if short of time) the JPEG 2000 GPU tests with the pool variant on
PCWT_AB_J2K_POOL=1 timeout 18 ctest --test-dir "$B" -j4 -R 'GpuJ2k|J2kRecompressGpu|J2kScpGpu' \
  > "$O/ctest-pool.txt" 2>&1
tail -3 "$O/ctest-pool.txt"
# 4. (0 s) which tools are there for the next run
{ command -v strace perf ltrace gdb /usr/bin/time; nproc; free -m | head -2; } > "$O/tools.txt" 2>&1
