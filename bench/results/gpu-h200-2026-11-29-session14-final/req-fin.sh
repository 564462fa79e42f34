#!/usr/bin/env bash
# Final numbers of main (session 14): default PCWT batches (shifted copies, the bench's default), the old
# equal copies for comparison with earlier sessions, HTJ2K and Part 1 GPU decode.
set -u; mkdir -p "$O"; t0=$SECONDS
log() { echo "[$((SECONDS - t0)) s] $*"; }
bg="$B/bench/pcwt_bench_gpu"
timeout 70 "$bg" "$GC" --batches abc --repeats 3 > "$O/bench-default.txt" 2>&1; log "default rc $?"
grep -E "^\| \(|ms:|copies" "$O/bench-default.txt" | cut -c1-230
timeout 45 "$bg" "$GC" --codec htj2k --batches ab --repeats 3 > "$O/bench-htj2k.txt" 2>&1; log "htj2k rc $?"
grep -E "^\| \(" "$O/bench-htj2k.txt" | cut -c1-230
timeout 45 "$bg" "$GC" --codec j2k --batches ab --repeats 3 > "$O/bench-j2k.txt" 2>&1; log "j2k rc $?"
grep -E "^\| \(" "$O/bench-j2k.txt" | cut -c1-230
timeout 40 "$bg" "$GC" --batches ab --repeats 3 --copies equal --only device > "$O/bench-equal.txt" 2>&1; log "equal copies rc $?"
grep -E "^\| \(|ms:" "$O/bench-equal.txt" | cut -c1-230
