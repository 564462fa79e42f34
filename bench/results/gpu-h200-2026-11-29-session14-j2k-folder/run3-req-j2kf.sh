#!/usr/bin/env bash
# j2kf (issue 34), run 3: branch j2kf14-ab3 (927c25b) = j2kf14-final (the landing candidate: tier-2 room beside
# the parsing, pooled JPEG 2000 device buffers) + one A/B commit (PCWT_AB_J2K_EARLY_FREE, off by default).
# cwd = source root, $B build dir, $O output, $J2K the run-j2k-bench.sh --pack set. About 42 s.
set -u
mkdir -p "$O"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
# 1. the folder, 4 rows in turn, each 4x (CPU path once): the candidate (default) against
#    free2  the JPEG 2000 batch buffers (3 x 340 MB page-locked) and the batch decoders (their pooled device
#           buffers, ~2 GB each) freed once every JPEG 2000 file is finished, beside the coding
#    warm   the coders and verifiers warmed (PCWT_RECOMPRESS_WARM=1, on main): in run 2's trace their first
#           calls (~1 GB of device memory each) took 67 ms and held the third JPEG 2000 batch's launch 41 ms
#    d3     3 JPEG 2000 decoders of 208 MB batches (options): the three batches decoded side by side (run 2:
#           the third, 88 MB of radiographs, starts after the first at 0.395 s and ends at 0.464)
timeout 40 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 4 --baseline-repeat 1 \
  --size-mb 600 --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" \
  --variant "free2:PCWT_AB_J2K_EARLY_FREE=2" --variant "warm:PCWT_RECOMPRESS_WARM=1" \
  --variant "d3:--j2k-decoders-per-gpu 3 --j2k-batch-mb 208" \
  > "$O/run-j2k-bench.txt" 2>&1
tail -26 "$O/run-j2k-bench.txt"
cp "$W"/recompress-*.log "$O/" 2>/dev/null
