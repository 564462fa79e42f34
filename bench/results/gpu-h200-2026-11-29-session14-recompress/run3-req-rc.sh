#!/usr/bin/env bash
# rc, session 14, run 3 (branch rc14-ab = rc14 6481d7e + the A/B commit PCWT_AB_VERIFY_MB): the tests
# of rc14's new verifier shape (2 GPU verifiers, 128 MB batches, budget 512 MB) on the GPU, then the
# 4 GB tree new shape against the old (4 verifiers, 32 MB, 256 MB) in turn x2.
# cwd = source root, $B, $O, $RC. <= 45 s.
set -uo pipefail
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
# (1) every recompress test: the gpu-labelled ones and those coding on the GPU through the automatic backend
timeout 26 ctest --test-dir "$B" -j8 -R '^recompress\.' --output-on-failure > "$O/ctest.txt" 2>&1
log "ctest rc $? $(grep -E 'tests passed|tests failed' "$O/ctest.txt")"
grep -E '\*\*\*Failed|Timeout|Not Run' "$O/ctest.txt" | head -20 | tee -a "$O/log.txt"
# (2) the 4 GB tree exactly as run-bench.sh --size-gb 4 makes it
W=/dev/shm/rc14; rm -rf $W; mkdir -p $W/src
for f in "$RC"/*.dcm; do
  if dcmdump -q -Un +P 0002,0010 "$f" 2>/dev/null | grep -q "\[1\.2\.840\.10008\.1\.2\.4\.80\]"; then dcmdjpls "$f" "$W/src/$(basename "$f")"
  else cp "$f" "$W/src/"; fi
done
chmod 644 $W/src/*.dcm
sb=$(cat $W/src/*.dcm | wc -c); copies=$(( (4096 * 1048576 + sb - 1) / sb ))
IN=$W/input-4096mb; mkdir -p $IN
for ((i = 0; i < copies; i++)); do d=$IN/$(printf "study%05d" $i); mkdir -p $d; cp $W/src/*.dcm $d/; done
log "tree: $copies copies"
old="PCWT_AB_VERIFY_MB=32 PCWT_RECOMPRESS_BUDGET_MB=256 --gpus 1 --verifiers-per-gpu 4"
timeout $(( 44 - ($(date +%s) - T0) )) bench/recompress/probe-stages.sh $IN $B "--gpus 1" "$old" "--gpus 1" "$old" > "$O/probe4.txt" 2>&1
log "probe rc $?"
grep -E '^== set|^wall' "$O/probe4.txt" | paste - - | tee -a "$O/log.txt"
rm -rf $W
log done
