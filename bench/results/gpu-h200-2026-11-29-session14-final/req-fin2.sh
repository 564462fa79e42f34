#!/usr/bin/env bash
# Final (session 14), main: the 4 GB and 8 GB recompress against dcmcjpls x16 and the JPEG 2000 folder recompress.
set -u; mkdir -p "$O"; t0=$SECONDS
timeout 80 bench/recompress/run-bench.sh "$O/bench4" --src "$RC" --size-gb 4 --work /dev/shm/rc --build "$B" \
  --repeat 3 --jls-repeat 1 --gpus "" --sample 8 > "$O/bench4.txt" 2>&1
echo "[$((SECONDS - t0)) s] run-bench 4 GB rc $?"; grep -E "^\| pcwt|^\| dcmcjpls|x dcmcjpls|median|^pcwt-recompress.*: [0-9]" "$O/bench4.txt" | cut -c1-220
rm -rf /dev/shm/rc
timeout 90 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 3 --baseline-repeat 3 --size-mb 600 \
  --gpu-decode --build "$B" --work /dev/shm/j2kf-bench --pcwt-args "--stats" > "$O/run-j2k-bench.txt" 2>&1
echo "[$((SECONDS - t0)) s] run-j2k-bench rc $?"; tail -12 "$O/run-j2k-bench.txt" | cut -c1-250
: keep /dev/shm/j2kf-bench for the j2kf confirm
timeout 120 bench/recompress/run-bench.sh "$O/bench8" --src "$RC" --size-gb 8 --work /dev/shm/rc8 --build "$B" \
  --repeat 3 --jls-repeat 1 --gpus "" --sample 8 > "$O/bench8.txt" 2>&1
echo "[$((SECONDS - t0)) s] run-bench 8 GB rc $?"; grep -E "^\| pcwt|^\| dcmcjpls|x dcmcjpls|median|^pcwt-recompress.*: [0-9]" "$O/bench8.txt" | cut -c1-220
rm -rf /dev/shm/rc8
