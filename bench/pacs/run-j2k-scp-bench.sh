#!/usr/bin/env bash
# JPEG 2000 input through pcwt-storescp: a folder of JPEG 2000 Lossless (.90) DICOM files sent by
# N pcwt-storescu processes at once (N associations, each its share of the files) to pcwt-storescp
# with --j2k-decoder cpu (OpenJPEG on each association's thread) and then --j2k-decoder gpu (the
# frames of the data sets of all associations waiting decoded in one libpcwt call on the GPU), in
# one run, in turn (--repeat). Every store is answered only after its copy is verified, so the wall
# time from the first association to the last answer is the ingest time. The two archives are
# compared byte for byte. Prints and writes RESULTS_DIR/j2k-scp-bench-<host>-<time>.md: seconds,
# files/s, MB/s of raw pixel data, GPU / CPU.
#
#   bench/pacs/run-j2k-scp-bench.sh RESULTS_DIR [options]
#     --src DIR          the source set made by bench/recompress/run-j2k-bench.sh --pack (default .j2kdata)
#     --size-mb M        raw pixel data of the input folder (default 400; copies of the source set,
#                        made as run-j2k-bench.sh makes them and shared with it under --work)
#     --work DIR         default /tmp/pcwt-j2k-bench
#     --build DIR        build folder with archive/pcwt-storescp and archive/pcwt-storescu (default build-gpu)
#     --associations N   pcwt-storescu processes at once, and pcwt-storescp --max-associations (default 8)
#     --repeat R         each measurement R times, in turn; the table has the medians (default 1)
#     --scp-args "ARGS"  more pcwt-storescp options
#
# The copies of the source set hold the same SOP Instance UIDs: each is received, decoded, coded and
# verified, and archived over the one before (the archive holds one file per source file).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[[ $# -ge 1 && $1 != -* ]] || usage
results=$1; shift
src=.j2kdata size_mb=400 work=/tmp/pcwt-j2k-bench build=build-gpu assoc=8 repeat=1 scp_args=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --src) src=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --associations) assoc=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --scp-args) scp_args=$2; shift 2 ;;
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
run_scp() { # DECODER -> seconds on stdout; archive in $work/scp-DECODER, log in $work/scp-DECODER.log
  local dec=$1 root=$work/scp-$1 pid t0 t1 a
  rm -rf "$root"; mkdir -p "$root"
  # shellcheck disable=SC2086
  "$scp" -v --port "$port" -od "$root" --max-associations "$assoc" --j2k-decoder "$dec" $scp_args \
    >"$work/scp-$dec.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$work/scp-$dec.log" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  kill -0 "$pid" 2>/dev/null || { log "pcwt-storescp --j2k-decoder $dec did not start:"; tail -5 "$work/scp-$dec.log" >&2; exit 1; }
  t0=$(date +%s.%N)
  local pids=()
  for ((a = 0; a < assoc; a++)); do
    xargs -a "$work/share-$a" "$scu" 127.0.0.1 "$port" >"$work/scu-$dec-$a.log" 2>&1 &
    pids+=($!)
  done
  local bad=0
  for p in "${pids[@]}"; do wait "$p" || bad=1; done
  t1=$(date +%s.%N)
  kill "$pid"; wait "$pid" || true
  [[ $bad == 0 ]] || { log "a pcwt-storescu failed (--j2k-decoder $dec): $work/scu-$dec-*.log"; exit 1; }
  local stored
  stored=$(grep -c "stored " "$work/scp-$dec.log" || true)
  [[ $stored == "$nfiles" ]] || { log "pcwt-storescp stored $stored of $nfiles (--j2k-decoder $dec)"; exit 1; }
  awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }'
}

declare -A times
for ((r = 0; r < repeat; r++)); do
  for dec in cpu gpu; do
    s=$(run_scp "$dec"); times[$dec]+="$s "
    log "round $((r + 1)): --j2k-decoder $dec $(printf %.2f "$s") s"
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
tc=$(median "${times[cpu]}") tg=$(median "${times[gpu]}")
gpu_frames=$( (grep -o "JPEG 2000 frames of [^:]*: [0-9]* decoded on the" "$work/scp-gpu.log" || true) |
  awk '{s+=$(NF-3)} END {print s+0}')
opj_frames=$( (grep -o ", [0-9]* by OpenJPEG" "$work/scp-gpu.log" || true) | awk '{s+=$2} END {print s+0}')
if diff -rq -x .incoming "$work/scp-cpu" "$work/scp-gpu" >"$work/scp-diff.txt" 2>&1; then
  same="byte for byte the same"
else
  same="**differ** ($(wc -l < "$work/scp-diff.txt") files, $work/scp-diff.txt)"
fi
calc() { awk "BEGIN { printf \"%.${1}f\", $2 }"; }
mbps() { calc 1 "$raw_bytes / 1000000 / $1"; }
fps() { calc 1 "$nfiles / $1"; }
out=$results/j2k-scp-bench-$(hostname -s)-$(date -u +%Y%m%dT%H%M%S).md
{
  echo "# JPEG 2000 input through pcwt-storescp: --j2k-decoder gpu vs cpu"
  echo
  echo "- machine: $(hostname -s), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "  GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo none); $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- command: \`bench/pacs/run-j2k-scp-bench.sh $results --src $src --size-mb $size_mb --build $build --associations $assoc --repeat $repeat${scp_args:+ --scp-args \"$scp_args\"}\`"
  echo "- input: $nfiles JPEG 2000 Lossless files ($(du -sm "$input" | cut -f1) MB, $(( raw_bytes / 1048576 )) MB of raw pixel data), $assoc pcwt-storescu at once"
  echo
  echo "| pcwt-storescp | seconds (median of $repeat) | files/s | MB/s of pixel data |"
  echo "|---|---:|---:|---:|"
  echo "| --j2k-decoder cpu (OpenJPEG on the associations' threads) | $(printf %.2f "$tc") | $(fps "$tc") | $(mbps "$tc") |"
  echo "| --j2k-decoder gpu (batches across associations) | $(printf %.2f "$tg") | $(fps "$tg") | $(mbps "$tg") |"
  echo
  echo "- GPU / CPU: **$(calc 2 "$tc / $tg")x**"
  echo "- frames of the last gpu run: $gpu_frames decoded on the GPU, $opj_frames by OpenJPEG"
  echo "- the archives: $same"
} | tee "$out"
log "written $out"
