#!/usr/bin/env bash
# host, session 13, run 2: the first batches without staging (host13 500cf5e) A/B against main's
# start (PCWT_AB_OLDSTART=1), budget 256 MB, on the 4 GB tree; the recompress tests on the GPU.
# cwd = source root, $B build dir, $O output, $RC recompress source set, $TD testdata. ~50 s.
set -uo pipefail
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
# (the 4 GB tree made as in run1-req-host.sh: $IN)
log "tree: $copies copies, $(find $IN -name '*.dcm' | wc -l) files"
# the recompress tests (GPU and CPU), the new staging test among them
timeout 40 ctest --test-dir "$B" -j8 -R '^recompress\.' --output-on-failure > "$O/ctest-recompress.txt" 2>&1
log "ctest rc $? $(grep -E 'tests passed|tests failed' "$O/ctest-recompress.txt")"
grep -E 'SamplesReadBeforeTheRegion|\*\*\*Failed|Skipped' "$O/ctest-recompress.txt" | head -20 | tee -a "$O/log.txt"
bench/recompress/probe-stages.sh $IN $B \
  "--gpus 1" \
  "PCWT_AB_OLDSTART=1 --gpus 1" \
  "PCWT_RECOMPRESS_BUDGET_MB=256 --gpus 1" \
  "--gpus 1" \
  "PCWT_AB_OLDSTART=1 --gpus 1" \
  "PCWT_RECOMPRESS_BUDGET_MB=256 --gpus 1" \
  "--gpus 1" \
  "PCWT_AB_OLDSTART=1 --gpus 1" \
  "PCWT_RECOMPRESS_BUDGET_MB=256 --gpus 1" \
  "PCWT_GPU_TRACE=1 PCWT_AB_SMAPS=$O/smaps-new.txt --gpus 1" \
  "PCWT_AB_VERIFY_MB=64 --gpus 1 --verifiers-per-gpu 2" \
  "PCWT_AB_VERIFY_MB=64 --gpus 1" \
  "PCWT_AB_VERIFY_MB=128 PCWT_RECOMPRESS_BUDGET_MB=512 --gpus 1 --verifiers-per-gpu 2" \
  > "$O/probe4.txt" 2>&1
log "probe rc $?"
gzip -c $IN.probe-10.log > "$O/probe-10.log.gz"; gzip "$O"/smaps-new.txt 2>/dev/null
grep -E '^\| ' "$O/probe4.txt" | tee -a "$O/log.txt"
rm -rf $W
log done
