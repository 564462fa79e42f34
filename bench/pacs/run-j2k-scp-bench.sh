#!/usr/bin/env bash
# JPEG 2000 input through pcwt-storescp: a folder of JPEG 2000 Lossless (.90) DICOM files sent by
# N pcwt-storescu processes at once (N associations, each its share of the files) to pcwt-storescp
# with --j2k-decoder cpu (OpenJPEG on each association's thread) and then --j2k-decoder gpu (the
# frames of the data sets of all associations waiting decoded in one libpcwt call on the GPU), in
# one run, in turn (--repeat); --gpu-args adds further gpu rounds with more options (each its row).
# Every store is answered only after its copy is verified, so the wall time from the first
# association to the last answer is the ingest time. Every gpu archive is compared byte for byte
# with the cpu one. Prints and writes RESULTS_DIR/j2k-scp-bench-<host>-<time>.md: seconds, files/s,
# MB/s of raw pixel data, GPU / CPU, who decoded the frames and the associations' mean wait for the
# batch decoder.
#
#   bench/pacs/run-j2k-scp-bench.sh RESULTS_DIR [options]
#     --src DIR          the source set made by bench/recompress/run-j2k-bench.sh --pack (default .j2kdata)
#     --size-mb M        raw pixel data of the input folder (default 400; copies of the source set,
#                        made as run-j2k-bench.sh makes them and shared with it under --work)
#     --work DIR         default /tmp/pcwt-j2k-bench
#     --build DIR        build folder with archive/pcwt-storescp and archive/pcwt-storescu (default build-gpu)
#     --associations N   pcwt-storescu processes at once, and pcwt-storescp --max-associations (default 8)
#     --repeat R         each measurement R times, in turn; the table has the medians (default 1)
#     --scp-args "ARGS"  more pcwt-storescp options (every round)
#     --gpu-args "ARGS"  a gpu round with these options too (repeatable; without it one gpu round
#                        with none, e.g. --gpu-args "" --gpu-args "--j2k-gpu-min-samples 0")
#
# The copies of the source set hold the same SOP Instance UIDs: each is received, decoded, coded and
# verified, and archived over the one before (the archive holds one file per source file).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[[ $# -ge 1 && $1 != -* ]] || usage
results=$1; shift
src=.j2kdata size_mb=400 work=/tmp/pcwt-j2k-bench build=build-gpu assoc=8 repeat=1 scp_args=""
gpu_variants=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --src) src=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --associations) assoc=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --scp-args) scp_args=$2; shift 2 ;;
    --gpu-args) gpu_variants+=("$2"); shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "unknown option $1" >&2; usage ;;
  esac
done
log() { echo "[j2k-scp-bench] $*" >&2; }
scp=$build/archive/pcwt-storescp
scu=$build/archive/pcwt-storescu
[[ -x $scp && -x $scu ]] || { log "no $scp or $scu (build them: ninja -C $build pcwt-storescp pcwt-storescu)"; exit 1; }
[[ -f $src/pixel_bytes ]] || { log "no source set in $src (bench/recompress/run-j2k-bench.sh --pack $src)"; exit 1; }
mkdir -p "$results" "$work"

# the input folder, as run-j2k-bench.sh makes it (c0, c1, ...: copies of the source set)
input=$work/in-$size_mb
if [[ ! -f $input/.complete ]]; then
  rm -rf "$input"
  per_copy=$(cat "$src/pixel_bytes")
  copies=$(( (size_mb * 1048576 + per_copy - 1) / per_copy ))
  for ((c = 0; c < copies; c++)); do mkdir -p "$input/c$c"; cp "$src"/*.dcm "$input/c$c/"; done
  echo "$per_copy $copies" > "$input/.complete"
fi
read -r per_copy copies < "$input/.complete"
raw_bytes=$(( per_copy * copies ))
mapfile -t files < <(find "$input" -name '*.dcm' | sort)
nfiles=${#files[@]}
log "input: $nfiles files, $(du -sm "$input" | cut -f1) MB, $(( raw_bytes / 1048576 )) MB of raw pixel data; $assoc associations"

# the shares: file k to association k mod N
for ((a = 0; a < assoc; a++)); do : > "$work/share-$a"; done
for ((k = 0; k < nfiles; k++)); do echo "${files[$k]}" >> "$work/share-$(( k % assoc ))"; done

port=$(( 20000 + RANDOM % 20000 ))
[[ ${#gpu_variants[@]} -gt 0 ]] || gpu_variants=("")
run_scp() { # NAME DECODER [ARGS] -> seconds on stdout; archive in $work/scp-NAME, log in $work/scp-NAME.log
  local name=$1 dec=$2 extra=${3:-} root=$work/scp-$1 pid t0 t1 a
  rm -rf "$root"; mkdir -p "$root"
  # shellcheck disable=SC2086
  "$scp" -v --port "$port" -od "$root" --max-associations "$assoc" --j2k-decoder "$dec" $scp_args $extra \
    >"$work/scp-$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$work/scp-$dec.log" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  kill -0 "$pid" 2>/dev/null || { log "pcwt-storescp --j2k-decoder $dec did not start:"; tail -5 "$work/scp-$dec.log" >&2; exit 1; }
  t0=$(date +%s.%N)
  local pids=()
  for ((a = 0; a < assoc; a++)); do
    xargs -a "$work/share-$a" "$scu" 127.0.0.1 "$port" >"$work/scu-$name-$a.log" 2>&1 &
    pids+=($!)
  done
  local bad=0
  for p in "${pids[@]}"; do wait "$p" || bad=1; done
  t1=$(date +%s.%N)
  kill "$pid"; wait "$pid" || true
  [[ $bad == 0 ]] || { log "a pcwt-storescu failed (--j2k-decoder $dec $extra): $work/scu-$name-*.log"; exit 1; }
  local stored
  stored=$(grep -c "stored " "$work/scp-$name.log" || true)
  [[ $stored == "$nfiles" ]] || { log "pcwt-storescp stored $stored of $nfiles (--j2k-decoder $dec)"; exit 1; }
  awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }'
}

declare -A times
names=(cpu)
for ((v = 0; v < ${#gpu_variants[@]}; v++)); do names+=("gpu$v"); done
for ((r = 0; r < repeat; r++)); do
  s=$(run_scp cpu cpu); times[cpu]+="$s "
  log "round $((r + 1)): --j2k-decoder cpu $(printf %.2f "$s") s"
  for ((v = 0; v < ${#gpu_variants[@]}; v++)); do
    s=$(run_scp "gpu$v" gpu "${gpu_variants[$v]}"); times[gpu$v]+="$s "
    log "round $((r + 1)): --j2k-decoder gpu ${gpu_variants[$v]} $(printf %.2f "$s") s"
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
calc() { awk "BEGIN { printf \"%.${1}f\", $2 }"; }
mbps() { calc 1 "$raw_bytes / 1000000 / $1"; }
fps() { calc 1 "$nfiles / $1"; }
tc=$(median "${times[cpu]}")
# the last round's log of a gpu variant: frames on the GPU, by OpenJPEG (lent ones and those of data
# sets not deferred), the associations' mean wait for the batch decoder and data sets per call
decoded() {
  local f=$work/scp-$1.log g o n w d
  g=$( (grep -o "JPEG 2000 frames of [^:]*: [0-9]* decoded on the" "$f" || true) | awk '{s+=$(NF-3)} END {print s+0}')
  o=$( (grep -o ", [0-9]* by OpenJPEG" "$f" || true) | awk '{s+=$2} END {print s+0}')
  n=$( (grep -c "JPEG 2000 frames of " "$f" || true) )
  w=$( (grep -o "waited [0-9]* ms, a call of [0-9]* data sets" "$f" || true) |
    awk '{w+=$2; d+=$7; n++} END {if (n) printf "%.0f ms, %.1f data sets a call", w/n, d/n; else print "-"}')
  echo "$g decoded on the GPU, $o of the data sets handed over by OpenJPEG, $(( nfiles - n )) data sets not handed over (OpenJPEG); the associations' mean wait for the batch decoder $w"
}
out=$results/j2k-scp-bench-$(hostname -s)-$(date -u +%Y%m%dT%H%M%S).md
{
  echo "# JPEG 2000 input through pcwt-storescp: --j2k-decoder gpu vs cpu"
  echo
  echo "- machine: $(hostname -s), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "  GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo none); $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  gv=""; for v in "${gpu_variants[@]}"; do gv+=" --gpu-args \"$v\""; done
  echo "- command: \`bench/pacs/run-j2k-scp-bench.sh $results --src $src --size-mb $size_mb --build $build --associations $assoc --repeat $repeat${scp_args:+ --scp-args \"$scp_args\"}$gv\`"
  echo "- input: $nfiles JPEG 2000 Lossless files ($(du -sm "$input" | cut -f1) MB, $(( raw_bytes / 1048576 )) MB of raw pixel data), $assoc pcwt-storescu at once"
  echo
  echo "| pcwt-storescp | seconds (median of $repeat) | files/s | MB/s of pixel data | / cpu |"
  echo "|---|---:|---:|---:|---:|"
  echo "| --j2k-decoder cpu (OpenJPEG on the associations' threads) | $(printf %.2f "$tc") | $(fps "$tc") | $(mbps "$tc") | 1.00 |"
  for ((v = 0; v < ${#gpu_variants[@]}; v++)); do
    tg=$(median "${times[gpu$v]}")
    echo "| --j2k-decoder gpu ${gpu_variants[$v]} | $(printf %.2f "$tg") | $(fps "$tg") | $(mbps "$tg") | **$(calc 2 "$tc / $tg")x** |"
  done
  echo
  for ((v = 0; v < ${#gpu_variants[@]}; v++)); do
    if diff -rq -x .incoming "$work/scp-cpu" "$work/scp-gpu$v" >"$work/scp-diff-$v.txt" 2>&1; then
      same="byte for byte the same as cpu's"
    else
      same="**differs** from cpu's ($(wc -l < "$work/scp-diff-$v.txt") files, $work/scp-diff-$v.txt)"
    fi
    echo "- gpu ${gpu_variants[$v]}: frames $(decoded "gpu$v"); archive $same"
  done
} | tee "$out"
log "written $out"
