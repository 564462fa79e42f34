#!/usr/bin/env bash
# Final (session 14): GPU JPEG-LS batches on the shifted copies (the bench's default since 827eb5c).
set -u; mkdir -p "$O"
timeout 60 "$B/bench/pcwt_bench_gpu" "$GC" --codec jpegls --batches ab --repeats 3 > "$O/bench-jpegls.txt" 2>&1
echo "jpegls rc $?"; grep -E "^\| \(|ms:|copies|identical|equal" "$O/bench-jpegls.txt" | cut -c1-230
