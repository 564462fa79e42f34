#!/usr/bin/env bash
# Where pcwt-recompress spends its time on one machine: runs it over an input tree that
# run-bench.sh built (WORK/input-*mb), once per option set, with --stats, and prints for each the
# wall seconds, MB/s of raw pixels (from the JSON report), the stage line of every thread kind and
# the timeline. Option sets differ in one thing from the default each, so that their times show
# what that thing costs.
#
#   bench/recompress/probe-stages.sh INPUT_TREE BUILD_DIR [OPTION_SET ...]
#     OPTION_SET  a quoted list of pcwt-recompress options, optionally led by environment settings
#                 (VAR=value; with PCWT_GPU_TRACE=1 the GPU calls' host times are summed per kind)
#                 (default: a fixed list of sets, below)
#
# Every run writes to INPUT_TREE.probe-out (removed before each run) and logs to
# INPUT_TREE.probe-N.log. The default sets assume one GPU.
set -uo pipefail
[[ $# -ge 2 ]] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
input=$1 build=$2; shift 2
recompress=$build/archive/pcwt-recompress
[[ -x $recompress ]] || { echo "probe-stages.sh: no $recompress" >&2; exit 1; }
[[ -d $input ]] || { echo "probe-stages.sh: no input tree $input" >&2; exit 1; }
sets=("$@")
if [[ ${#sets[@]} -eq 0 ]]; then
  sets=("--gpus 1" "--gpus 1" "--gpus 1 --coders-per-gpu 1 --verifiers-per-gpu 1" "--gpus 1 --coders-per-gpu 1"
        "--gpus 1 --coders-per-gpu 3" "--gpus 1 --verifiers-per-gpu 2" "--gpus 1 --verifiers-per-gpu 3"
        "--gpus 1 --verifiers-per-gpu 6" "--gpus 1 --verifiers-per-gpu 8" "--gpus 1 --batch-mb 16"
        "--gpus 1 --batch-mb 64" "--gpus 1 --verify-sample 0" "--gpus 1 --profile baseline"
        "--gpus 1 --threads 12" "PCWT_GPU_TRACE=1 --gpus 1")
fi
raw=""
out=$input.probe-out
find "$input" -name '*.dcm' -print0 | xargs -0 cat >/dev/null
n=0 table=()
for s in "${sets[@]}"; do
  n=$((n + 1)); rm -rf "$out"; log=$input.probe-$n.log
  t0=$(date +%s.%N)
  envs=() opts=()
  for word in $s; do
    if [[ ${#opts[@]} -eq 0 && $word =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$word"); else opts+=("$word"); fi
  done
  env "${envs[@]}" "$recompress" --output "$out" --no-progress --stats --report "$input.probe-$n.json" \
    "${opts[@]}" "$input" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  pix=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["pixel_bytes"])' "$input.probe-$n.json" 2>/dev/null || echo 0)
  echo "== set $n: $s (exit $rc; started $(date -u -d @"$t0" +%H:%M:%S.%N | cut -c1-12) UTC)"
  line=$(awk -v a="$t0" -v b="$t1" -v p="$pix" 'BEGIN {printf "wall %.3f s, %.1f MB/s of raw pixels", b - a, p / 1048576 / (b - a)}')
  echo "$line"
  table+=("| $s | $line | $(grep -o ' code [0-9.]* ([0-9]*%)' "$log" | head -1) | $(grep -o 'verify-batch [0-9.]* ([0-9]*%)' "$log" | head -1) |")
  grep -E '^ *(readers|batch coders|writers|verifiers) \(|^timeline|^verification|^batch (coder|verifier)|^recompressed:|^stage times|^memory: |^pcwt-recompress (samples|coder arenas|[a-z ]* region)|^page-locked regions|^frames per GPU|^handles freed' "$log"
  # PCWT_GPU_TRACE lines: "pcwt gpu encode host (ms): plan 0.9; layout 1.2; ...; total 65.7; 188 frames ..."
  awk '/^pcwt gpu [a-z]+ host \(ms\):/ {
         kind = $3; calls[kind]++; sub(/^[^:]*: /, "")
         n = split($0, part, "; ")
         for (i = 1; i <= n; i++) {
           m = split(part[i], f, " "); name = ""
           for (j = 1; j <= m && f[j] !~ /^[0-9.]+$/; j++) name = name (name == "" ? "" : "-") f[j]
           if (j > m || name == "") continue
           sum[kind, name] += f[j]
           if (!((kind, name) in seen)) { seen[kind, name] = 1; order[kind] = order[kind] " " name }
         }
       }
       END { for (k in calls) { printf "gpu %s calls: %d; host ms summed:", k, calls[k]; m = split(order[k], names, " ")
                                 for (i = 1; i <= m; i++) printf " %s %.1f", names[i], sum[k, names[i]]; printf "\n" } }' "$log"
done
rm -rf "$out"
echo
echo "| options | wall, MB/s | batch coders: code | verifiers: verify-batch |"
echo "|---|---|---|---|"
printf '%s\n' "${table[@]}"
