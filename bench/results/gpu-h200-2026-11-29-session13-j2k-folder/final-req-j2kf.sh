#!/usr/bin/env bash
# j2kf (issue 34), final run (run 4): the confirm on the final tree (main + the -final branches).
# cwd = source root, $B build dir, $O output, $J2K the run-j2k-bench.sh --pack set. About 32 s.
set -u
mkdir -p "$O"
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
# the JPEG 2000 folder, 3 in turn: the default, and the ramp (first JPEG 2000 batches 1/16 .. 1/2
# of 256 MB; a measurement env on main) now that the batch buffers are made at the start
timeout 38 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 3 --baseline-repeat 1 \
  --size-mb 600 --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" \
  --variant "ramp:PCWT_RECOMPRESS_J2K_RAMP=1" > "$O/run-j2k-bench.txt" 2>&1
tail -32 "$O/run-j2k-bench.txt"
cp "$W"/recompress-*.log "$O/" 2>/dev/null
