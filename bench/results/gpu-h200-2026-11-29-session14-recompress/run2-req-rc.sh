#!/usr/bin/env bash
# rc, session 14, run 2 (branch rc14-ab = rc14 4bcfe4a + one A/B commit): the 4 GB tree in turn x3:
# the default (files whose first frame the CPU sample draws read first), the walk's order
# (PCWT_AB_WALK_ORDER=1, main's), budget 512 MB, budget 512 + verifier batches 128 MB x 2 verifiers,
# --verify-sample 0; then the RecompressGpu tests. cwd = source root, $B, $O, $RC. <= 70 s.
set -uo pipefail
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
W=/dev/shm/rc14; rm -rf $W; mkdir -p $W/src
for f in "$RC"/*.dcm; do
  if dcmdump -q -Un +P 0002,0010 "$f" 2>/dev/null | grep -q "\[1\.2\.840\.10008\.1\.2\.4\.80\]"; then dcmdjpls "$f" "$W/src/$(basename "$f")"
  else cp "$f" "$W/src/"; fi
done
chmod 644 $W/src/*.dcm
sb=$(cat $W/src/*.dcm | wc -c); copies=$(( (4096 * 1048576 + sb - 1) / sb ))
IN=$W/input-4096mb; mkdir -p $IN
for ((i = 0; i < copies; i++)); do d=$IN/$(printf "study%05d" $i); mkdir -p $d; cp $W/src/*.dcm $d/; done
log "tree: $copies copies, $(find $IN -name '*.dcm' | wc -l) files"
sets=()
for r in 1 2 3; do
  sets+=("--gpus 1" "PCWT_AB_WALK_ORDER=1 --gpus 1" "PCWT_RECOMPRESS_BUDGET_MB=512 --gpus 1"
         "PCWT_AB_VERIFY_MB=128 PCWT_RECOMPRESS_BUDGET_MB=512 --gpus 1 --verifiers-per-gpu 2" "--gpus 1 --verify-sample 0")
done
timeout 45 bench/recompress/probe-stages.sh $IN $B "${sets[@]}" > "$O/probe4.txt" 2>&1
log "probe rc $?"
grep -E '^== set|^wall' "$O/probe4.txt" | paste - - | tee -a "$O/log.txt"
rm -rf $W
left=$(( 68 - ($(date +%s) - T0) ))
[[ $left -gt 5 ]] && { timeout $left ctest --test-dir "$B" -j8 -R '^recompress\.RecompressGpu' --output-on-failure > "$O/ctest.txt" 2>&1
  log "ctest rc $? $(grep -E 'tests passed|tests failed' "$O/ctest.txt")"; }
log done
