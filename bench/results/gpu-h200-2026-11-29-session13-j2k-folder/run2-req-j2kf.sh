#!/usr/bin/env bash
# j2kf (issue 34), run 2: branch j2kf13-ab2 -- the JPEG 2000 batch buffers made at the start.
# cwd = source root, $B build dir, $O output, $J2K the run-j2k-bench.sh --pack set. About 60 s.
set -u
mkdir -p "$O"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
# 0. (~15 s) the tests of what lands: the JPEG 2000 recompress cases, the recompress GPU cases,
#    the slow start (every GPU run now has the buffers' thread waiting for a JPEG 2000 file)
timeout 45 ctest --test-dir "$B" -j8 \
  -R 'j2k\.J2kRecompress|recompress\.RecompressGpu|recompress\.RecompressDevices\.(JpegTwoThousand|SlowStart)' \
  --output-on-failure > "$O/ctest-j2kf.txt" 2>&1
tail -4 "$O/ctest-j2kf.txt"
# 1. (~40 s) the folder: the branch's default (3 buffers made at the start) against main's way
#    (off: none), and with them: 2 JPEG 2000 batches of 320 MB, one per decoder (b320); 3
#    decoders of 208 MB batches (d3); the PCWT side after the decoding (run 1's trace: the
#    encode calls ran 0.44-0.71 s at ~2.2 GB/s, the last 0.17 s after the decoders were done):
#    4 coders (c4), 64 MB coder batches (bm64)
timeout 75 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 3 --baseline-repeat 1 \
  --size-mb 600 --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" \
  --variant "off:PCWT_AB_J2K_EARLY_BUFFERS=0" \
  --variant "b320:--j2k-batch-mb 320" --variant "d3:--j2k-decoders-per-gpu 3 --j2k-batch-mb 208" \
  --variant "c4:--coders-per-gpu 4" --variant "bm64:--batch-mb 64" \
  > "$O/run-j2k-bench.txt" 2>&1
tail -30 "$O/run-j2k-bench.txt"
cp "$W"/recompress-*.log "$O/" 2>/dev/null
# 2. (~3 s) the default's trace
IN=$(ls -d "$W"/in-* | head -1)
rm -rf "$W/out-t"
timeout 20 env PCWT_GPU_TRACE=1 "$B/archive/pcwt-recompress" --threads 16 --output "$W/out-t" --stats "$IN" \
  > "$O/trace-default.txt" 2>&1
grep -E "timeline|j2k arena|j2k batch" "$O/trace-default.txt"
gzip -f "$O"/trace-*.txt
