#!/usr/bin/env bash
# host, session 13, run 1: where the 4 GB tree's steady state goes (probe-stages sets, one H200).
# cwd = source root, $B build dir, $O output, $RC recompress source set. ~45 s.
set -uo pipefail
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
git log --oneline -1 > "$O/commit.txt" 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt" 2>&1
# the 4 GB tree exactly as run-bench.sh --size-gb 4 makes it (188 copies of the 15 source files)
W=/dev/shm/hrc; rm -rf $W; mkdir -p $W/src
for f in "$RC"/*.dcm; do
  if dcmdump -q -Un +P 0002,0010 "$f" 2>/dev/null | grep -q "\[1\.2\.840\.10008\.1\.2\.4\.80\]"; then dcmdjpls "$f" "$W/src/$(basename "$f")"
  else cp "$f" "$W/src/"; fi
done
chmod 644 $W/src/*.dcm
sb=$(cat $W/src/*.dcm | wc -c); copies=$(( (4096 * 1048576 + sb - 1) / sb ))
IN=$W/input-4096mb; mkdir -p $IN
for ((i = 0; i < copies; i++)); do d=$IN/$(printf "study%05d" $i); mkdir -p $d; cp $W/src/*.dcm $d/; done
log "tree: $copies copies, $(find $IN -name '*.dcm' | wc -l) files"
# GPU utilization sampled beside the sets (coarse: whether a kernel ran in each sample period)
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,pcie.link.gen.current --format=csv,noheader --loop-ms=50 > "$O/smi.csv" 2>&1 &
SMI=$!
bench/recompress/probe-stages.sh $IN $B \
  "--gpus 1" \
  "PCWT_GPU_TRACE=1 PCWT_AB_SMAPS=$O/smaps-default.txt --gpus 1" \
  "PCWT_AB_NOVERIFY=1 --gpus 1" \
  "PCWT_AB_SERIAL=1 --gpus 1" \
  "PCWT_RECOMPRESS_BUDGET_MB=768 --gpus 1 --batch-mb 128" \
  "PCWT_RECOMPRESS_BUDGET_MB=1536 --gpus 1 --batch-mb 256" \
  "PCWT_AB_VERIFY_MB=256 PCWT_RECOMPRESS_BUDGET_MB=1536 --gpus 1 --batch-mb 256" \
  "PCWT_RECOMPRESS_BUDGET_MB=768 --gpus 1 --coders-per-gpu 4 --verifiers-per-gpu 8" \
  "PCWT_RECOMPRESS_BUDGET_MB=1536 --gpus 1 --batch-mb 128 --coders-per-gpu 4 --verifiers-per-gpu 8" \
  "PCWT_RECOMPRESS_VERIFY_FILL_MS=2 --gpus 1" \
  "--gpus 1" \
  "PCWT_RECOMPRESS_BUDGET_MB=256 --gpus 1" \
  "PCWT_GPU_TRACE=1 PCWT_RECOMPRESS_BUDGET_MB=768 --gpus 1 --batch-mb 128" \
  "PCWT_AB_NOVERIFY=1 PCWT_GPU_TRACE=1 --gpus 1" \
  "PCWT_GPU_TRACE=1 PCWT_AB_VERIFY_MB=256 PCWT_RECOMPRESS_BUDGET_MB=1536 --gpus 1 --batch-mb 256" \
  > "$O/probe4.txt" 2>&1
rc=$?; kill $SMI 2>/dev/null; log "probe rc $rc"
for n in 2 13 14 15; do gzip -c $IN.probe-$n.log > "$O/probe-$n.log.gz"; done
gzip "$O"/smaps-default.txt 2>/dev/null
rm -rf $W
log done
