#!/usr/bin/env bash
# rc, session 14, run 1 (branch rc14-ab = rc14 + one A/B commit): (1) the recompress and the
# J2kRecompress tests on the GPU for rc14's pinSamples and startJ2KBuffers changes; (2) the 4 GB
# tree: verifier batch size and count, coders, the CPU sample's cost, in turn x2, one GPU trace.
# cwd = source root, $B build dir, $O output, $RC recompress source set. <= 75 s.
set -uo pipefail
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
git log --oneline -1 > "$O/commit.txt" 2>/dev/null
# (1) the tests: every recompress test (the untagged ones code on the GPU through the automatic
# backend) and pcwt-recompress's JPEG 2000 ones, the GPU's among them
timeout 32 ctest --test-dir "$B" -j8 -R '^recompress\.|J2kRecompress' --output-on-failure > "$O/ctest.txt" 2>&1
log "ctest rc $? $(grep -E 'tests passed|tests failed' "$O/ctest.txt")"
grep -E 'SamplesReadBeforeTheRegion|FirstBatchBuffersMadeAtTheStart|\*\*\*Failed|Timeout|Not Run' "$O/ctest.txt" | head -20 | tee -a "$O/log.txt"
# (2) the 4 GB tree exactly as run-bench.sh --size-gb 4 makes it (188 copies of the 15 source files)
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
left=$(( 74 - ($(date +%s) - T0) ))
timeout $left bench/recompress/probe-stages.sh $IN $B \
  "--gpus 1" \
  "PCWT_AB_VERIFY_MB=128 --gpus 1 --verifiers-per-gpu 2" \
  "PCWT_AB_VERIFY_MB=128 PCWT_RECOMPRESS_BUDGET_MB=512 --gpus 1 --verifiers-per-gpu 2" \
  "--gpus 1 --verifiers-per-gpu 6" \
  "--gpus 1 --coders-per-gpu 3 --verifiers-per-gpu 6" \
  "--gpus 1 --verify-sample 0" \
  "--gpus 1" \
  "PCWT_AB_VERIFY_MB=128 --gpus 1 --verifiers-per-gpu 2" \
  "PCWT_AB_VERIFY_MB=128 PCWT_RECOMPRESS_BUDGET_MB=512 --gpus 1 --verifiers-per-gpu 2" \
  "--gpus 1 --verifiers-per-gpu 6" \
  "--gpus 1 --coders-per-gpu 3 --verifiers-per-gpu 6" \
  "--gpus 1 --verify-sample 0" \
  "PCWT_GPU_TRACE=1 --gpus 1" \
  "PCWT_AB_VERIFY_MB=16 --gpus 1 --verifiers-per-gpu 6" \
  "--gpus 1" \
  > "$O/probe4.txt" 2>&1
log "probe rc $? (cut at $left s)"
gzip -c $IN.probe-13.log > "$O/probe-13-trace.log.gz" 2>/dev/null
grep -E '^== set|^wall' "$O/probe4.txt" | paste - - | tee -a "$O/log.txt"
rm -rf $W
log done
