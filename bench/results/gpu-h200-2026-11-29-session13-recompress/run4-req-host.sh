#!/usr/bin/env bash
# host, session 13, run 4 (final tree, host13-final = main + the 256 MB budget with GPU coders):
# the recompress tests the lead's `ctest -L gpu` does not run (the pcwt-recompress runs that code on
# the GPU through the automatic backend), then, if time is left, the 4 GB tree with the new default
# and with 384 MB (PCWT_RECOMPRESS_BUDGET_MB, a test setting on main) in turn. <= 40 s.
# cwd = source root, $B build dir, $O output, $RC recompress source set, $TD testdata.
set -uo pipefail
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
timeout 28 ctest --test-dir "$B" -j8 -R '^recompress\.' -LE gpu --output-on-failure > "$O/ctest-recompress.txt" 2>&1
log "ctest rc $? $(grep -E 'tests passed|tests failed' "$O/ctest-recompress.txt")"
grep -E '\*\*\*Failed|Timeout' "$O/ctest-recompress.txt" | head | tee -a "$O/log.txt"
[[ $(( $(date +%s) - T0 )) -le 27 ]] || { log "no time left for the tree"; exit 0; }
# (the 4 GB tree made as in run1-req-host.sh: $IN)
log "tree: $copies copies"
timeout $(( 39 - ($(date +%s) - T0) )) bench/recompress/probe-stages.sh $IN $B \
  "--gpus 1" "PCWT_RECOMPRESS_BUDGET_MB=384 --gpus 1" "--gpus 1" "PCWT_RECOMPRESS_BUDGET_MB=384 --gpus 1" \
  > "$O/probe4.txt" 2>&1
log "probe rc $?"
grep -E '^== set|^wall' "$O/probe4.txt" | tee -a "$O/log.txt"
rm -rf $W
