#!/usr/bin/env bash
# j2kf (issue 34), final run: the confirm on the final tree (main + the -final branches): the JPEG 2000
# folder's timeline with PCWT_GPU_TRACE (one run) and its --stats. cwd = source root, $B build dir, $O output,
# $J2K the run-j2k-bench.sh --pack set (the lead's run-j2k-bench run makes /dev/shm/j2kf-bench/in-600; if it is
# not there, this script makes it with --repeat 1). About 6 s (30 s when the folder must be made; cut at 40 s).
set -u
mkdir -p "$O"
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
IN=$(ls -d "$W"/in-600 2>/dev/null | head -1)
if [ -z "$IN" ]; then
  timeout 40 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 1 --size-mb 600 \
    --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" > "$O/run-j2k-bench.txt" 2>&1
  tail -12 "$O/run-j2k-bench.txt"
  IN=$W/in-600
fi
for k in 1 2; do
  rm -rf "$W/out-t"
  timeout 10 env PCWT_GPU_TRACE=1 "$B/archive/pcwt-recompress" --threads 16 --output "$W/out-t" --stats "$IN" \
    > "$O/trace-final-$k.txt" 2>&1
  grep -E "^timeline|handles freed|JPEG 2000 frames" "$O/trace-final-$k.txt"
done
rm -rf "$W/out-t"
gzip -f "$O"/trace-*.txt
