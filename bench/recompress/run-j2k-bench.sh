#!/usr/bin/env bash
# JPEG 2000 input benchmark: pcwt-recompress reading a folder of JPEG 2000 Lossless (.90) DICOM files
# (decoding them with OpenJPEG on its worker threads, coding PCWT, writing and verifying) against
# OpenJPEG decoding the same codestreams alone on N threads, in one run: j2k_decode_loop (the
# codestreams in memory, decoded on N threads through the plugin's OpenJPEG core: the baseline)
# and opj_decompress (N processes, -threads 1, raw files written: for reference). Prints and
# writes RESULTS_DIR/j2k-bench-<host>-<time>.md: MB/s of raw pixel data
# (Rows*Columns*SamplesPerPixel*BitsAllocated/8*frames) and the ratios (the target:
# recompression at least 0.9x OpenJPEG's decoding alone). pcwt-recompress decodes with OpenJPEG on its
# threads (--j2k-decoder cpu: the CPU path); with --gpu-decode a fourth row, pcwt-recompress without
# --j2k-decoder (the default, auto: the GPU path where there is a GPU: the frames of many files
# decoded in one libpcwt call on the GPU) on the same folder and threads, its outputs compared byte
# for byte with the CPU path's, the frames it decoded on the GPU counted (none: the default did not
# take the GPU, said in the table), and the ratios GPU path / CPU path (target: at least 5x) and GPU
# path / OpenJPEG alone.
#
#   bench/recompress/run-j2k-bench.sh RESULTS_DIR [options]
#   bench/recompress/run-j2k-bench.sh --pack [DIR]  only make the JPEG 2000 source files (about 8 MB,
#                                                    with their codestreams) into DIR (default .j2kdata,
#                                                    git-ignored) for a machine without the corpus or
#                                                    pydicom (the GPU machine: carry DIR there)
#     --size-mb M        raw pixel data of the input folder (default 400)
#     --threads N        pcwt-recompress --threads and OpenJPEG processes (default: the CPU cores)
#     --work DIR         input, codestream and output trees (default /tmp/pcwt-j2k-bench; the input
#                        is kept and reused by the next run of the same size)
#     --corpus DIR       the test corpus (default ../shared/testdata)
#     --src DIR          a source set made by --pack (instead of the corpus)
#     --build DIR        build folder with archive/pcwt-recompress and plugin/libdcmpcwt_j2kcore.a
#                        (configured and built there when missing; default build-j2k-bench)
#     --pcwt-args "ARGS" more pcwt-recompress options (e.g. "--gpus 1")
#     --repeat R         the measurements R times, in turn; the table has the medians (default 1)
#     --baseline-repeat N  OpenJPEG alone, opj_decompress and the CPU path in the first N repeats
#                        only (at least 1; default: every one), the GPU rows in all R
#     --gpu-decode       also pcwt-recompress with its default decoder, the GPU (needs a CUDA build and a GPU)
#     --variant "L:WORDS" with --gpu-decode, one more GPU path row labelled L (repeatable), run in
#                        turn with the others: WORDS are VAR=value environment words, then
#                        pcwt-recompress options (after the default's), e.g.
#                        "ramp:PCWT_RECOMPRESS_J2K_RAMP=1", "asked:--j2k-decoder gpu" or
#                        "b64x4:--j2k-batch-mb 64 --j2k-decoders-per-gpu 4"; its outputs compared too
#
# The source set: the corpus's uncompressed CT and MR images (wg04, GE CT series, pydicom), its CR
# (WG04 RG2, JPEG-LS: decoded first) coded with opj_compress (lossless, reversible 5/3, default
# options) and wrapped by pydicom (Debian's /usr/bin/python3), plus its DX file, which is JPEG 2000
# Lossless already. OpenJPEG decodes the very codestreams the DICOM files hold.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[[ $# -ge 1 ]] || usage
pack="" results=""
if [[ $1 == --pack ]]; then
  pack=${2:-.j2kdata}; shift $(( $# >= 2 ? 2 : 1 ))
else
  [[ $1 != -* ]] || usage
  results=$1; shift
fi
size_mb=400 threads=$(nproc) work=/tmp/pcwt-j2k-bench corpus="" srcset="" build=build-j2k-bench pcwt_args="" repeat=1
gpu_decode="" variants=() base_repeat=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --size-mb) size_mb=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --src) srcset=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --pcwt-args) pcwt_args=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --baseline-repeat) base_repeat=$2; shift 2 ;;
    --gpu-decode) gpu_decode=1; shift ;;
    --variant) [[ $2 == *:* ]] || usage; variants+=("$2"); shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "unknown option $1" >&2; usage ;;
  esac
done
log() { echo "[j2k-bench] $*" >&2; }
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
command -v opj_decompress >/dev/null || { log "opj_decompress (libopenjp2-tools) is needed"; exit 1; }

# --- the source set: JPEG 2000 Lossless DICOM files ---------------------------------------------
# pydicom helper: wrap (native file -> .90 file, each frame coded by opj_compress), extract (every
# frame's codestream of a folder's files into N shard folders), bytes (raw pixel bytes of files)
helper=$(mktemp /tmp/j2k-bench-XXXXXX.py)
trap 'rm -f "$helper"' EXIT
cat >"$helper" <<'EOF'
import os, subprocess, sys, tempfile
import numpy as np, pydicom
from pydicom.encaps import encapsulate, generate_pixel_data_frame
from pydicom.uid import JPEG2000Lossless

def wrap(src, dst):
    ds = pydicom.dcmread(src)
    if ds.file_meta.TransferSyntaxUID.is_compressed or ds.get("SamplesPerPixel", 1) != 1:
        sys.exit("not a native grey image: " + src)
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    arr = ds.pixel_array.reshape(frames, ds.Rows, ds.Columns)
    signed = ds.PixelRepresentation == 1
    bits = int(ds.BitsStored)
    out = []
    with tempfile.TemporaryDirectory() as t:
        for f in range(frames):
            raw = os.path.join(t, "f.rawl")
            a = arr[f].astype("<i2" if signed else "<u2") if ds.BitsAllocated > 8 else arr[f]
            if bits <= 8 and ds.BitsAllocated > 8:
                bits = 9  # opj's raw input: 2-byte samples need more than 8 bits
            a.tofile(raw)
            levels = 5
            while levels > 0 and min(ds.Rows, ds.Columns) >> levels == 0:
                levels -= 1
            subprocess.run(["opj_compress", "-i", raw, "-o", os.path.join(t, "f.j2k"), "-n", str(levels + 1),
                            "-F", "%d,%d,1,%d,%s" % (ds.Columns, ds.Rows, bits, "s" if signed else "u")],
                           check=True, stdout=subprocess.DEVNULL)
            out.append(open(os.path.join(t, "f.j2k"), "rb").read())
    ds.PixelData = encapsulate(out, has_bot=True)
    ds["PixelData"].VR = "OB"
    ds["PixelData"].is_undefined_length = True
    ds.file_meta.TransferSyntaxUID = JPEG2000Lossless
    ds.is_implicit_VR, ds.is_little_endian = False, True
    ds.save_as(dst, write_like_original=False)

def extract(folder, outdir, n):
    k = 0
    for root, _, names in os.walk(folder):
        for name in sorted(n for n in names if n.endswith(".dcm")):
            ds = pydicom.dcmread(os.path.join(root, name))
            frames = int(ds.get("NumberOfFrames", 1) or 1)
            for f, cs in enumerate(generate_pixel_data_frame(ds.PixelData, frames)):
                d = os.path.join(outdir, "s%d" % (k % n))
                os.makedirs(d, exist_ok=True)
                open(os.path.join(d, "%06d.j2k" % k), "wb").write(cs)
                k += 1

def nbytes(paths):
    total = 0
    for p in paths:
        ds = pydicom.dcmread(p, stop_before_pixels=True)
        total += ds.Rows * ds.Columns * ds.get("SamplesPerPixel", 1) * ds.BitsAllocated // 8 * int(ds.get("NumberOfFrames", 1) or 1)
    print(total)

if __name__ == "__main__":
    {"wrap": lambda: wrap(sys.argv[2], sys.argv[3]),
     "extract": lambda: extract(sys.argv[2], sys.argv[3], int(sys.argv[4])),
     "bytes": lambda: nbytes(sys.argv[2:])}[sys.argv[1]]()
EOF

make_source_set() { # DEST
  local dest=$1 f g n=0 tmp
  [[ -n $corpus ]] || corpus=../shared/testdata
  [[ -d $corpus ]] || { log "no corpus at $corpus (--corpus, or --src with a --pack set)"; exit 1; }
  $PY -c "import pydicom, numpy" 2>/dev/null || { log "$PY lacks pydicom/numpy (python3-pydicom)"; exit 1; }
  tmp=$(mktemp -d)
  for f in dcm_qa_ct/GE_CT_series/*.dcm wg04/dicom_unc/CT1_UNC.dcm wg04/dicom_unc/CT2_UNC.dcm \
           wg04/dicom_unc/MR1_UNC.dcm wg04/dicom_unc/MR3_UNC.dcm wg04/dicom_unc/MR4_UNC.dcm \
           pydicom-data/693_UNCR_CT.dcm debian-python3-pydicom/CT_small.dcm; do
    for g in "$corpus"/$f; do
      [[ -f $g ]] || continue
      $PY "$helper" wrap "$g" "$dest/$(echo "${g#"$corpus"/}" | tr '/' '_')" && n=$((n + 1))
    done
  done
  if [[ -f $corpus/pylibjpeg-data/RG2_JLSL.dcm ]]; then # CR: JPEG-LS in the corpus
    dcmdjpls "$corpus/pylibjpeg-data/RG2_JLSL.dcm" "$tmp/cr.dcm" && $PY "$helper" wrap "$tmp/cr.dcm" "$dest/cr_RG2.dcm" && n=$((n + 1))
  fi
  [[ -f $corpus/pylibjpeg-data/966_fixed_DX.dcm ]] && cp "$corpus/pylibjpeg-data/966_fixed_DX.dcm" "$dest/dx_966.dcm" && n=$((n + 1))
  rm -rf "$tmp"
  chmod 644 "$dest"/*.dcm
  # what the runs need without pydicom: every frame's codestream, the raw pixel bytes of the set
  $PY "$helper" extract "$dest" "$dest/streams" 1
  $PY "$helper" bytes "$dest"/*.dcm > "$dest/pixel_bytes"
  log "source set: $n JPEG 2000 Lossless files ($(du -ch "$dest"/*.dcm | tail -1 | cut -f1)) in $dest"
}

if [[ -n $pack ]]; then
  rm -rf "$pack"; mkdir -p "$pack"
  make_source_set "$pack"
  top_rel=${pack#./}
  [[ $top_rel == /* ]] || { grep -qxF "/$top_rel/" .git/info/exclude 2>/dev/null || echo "/$top_rel/" >> .git/info/exclude; }
  log "carry $pack to the other machine and run: bench/recompress/run-j2k-bench.sh RESULTS_DIR --src $pack"
  exit 0
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)

# --- the tool -----------------------------------------------------------------------------------
if [[ ! -x $build/archive/pcwt-recompress || ! -f $build/plugin/libdcmpcwt_j2kcore.a ]]; then
  log "building pcwt-recompress in $build"
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  cuda=(); command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] && cuda=(-DCMAKE_CUDA_ARCHITECTURES="${CUDAARCHS:-90}")
  cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DPCWT_WITH_DCMTK=ON -DPCWT_BUILD_TESTS=OFF \
        -DPCWT_BUILD_BENCH=OFF "${cuda[@]}" >"$results/j2k-bench-configure.log" 2>&1 \
    || { tail -20 "$results/j2k-bench-configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target pcwt-recompress dcmpcwt_j2kcore pcwt >"$results/j2k-bench-build.log" 2>&1 \
    || { grep -E "error" "$results/j2k-bench-build.log" | head -20; exit 1; }
fi
recompress=$(cd "$build/archive" && pwd)/pcwt-recompress
loop=$work/j2k_decode_loop
mkdir -p "$work"
# the plugin's JPEG 2000 core calls libpcwt (its own decoder first; the loop asks for OpenJPEG)
pcwt_libs=("$build/codec/libpcwt.a" -lz)
if grep -q '^PCWT_WITH_CUDA:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  pcwt_libs+=(-L"${CUDA_HOME:-/usr/local/cuda}/lib64" -lcudart_static -ldl -lrt)
fi
# shellcheck disable=SC2046
c++ -O2 -std=c++17 -Iplugin/libsrc bench/recompress/j2k_decode_loop.cpp "$build/plugin/libdcmpcwt_j2kcore.a" \
    "${pcwt_libs[@]}" $(pkg-config --libs libopenjp2 2>/dev/null || echo -lopenjp2) -pthread -o "$loop"

# --- the input folder: copies of the source set up to --size-mb of pixel data --------------------
input=$work/in-$size_mb
if [[ ! -f $input/.complete ]]; then
  rm -rf "$input" "$work"/streams-* "$work/src"; mkdir -p "$work/src"
  if [[ -n $srcset ]]; then cp -r "$srcset"/. "$work/src/"; else make_source_set "$work/src"; fi
  per_copy=$(cat "$work/src/pixel_bytes")
  copies=$(( (size_mb * 1048576 + per_copy - 1) / per_copy ))
  log "making $input: $copies copies of $(ls "$work/src"/*.dcm | wc -l) files ($(( per_copy / 1048576 )) MB of pixels each)"
  for ((c = 0; c < copies; c++)); do mkdir -p "$input/c$c"; cp "$work/src"/*.dcm "$input/c$c/"; done
  echo "$per_copy $copies" > "$input/.complete"
fi
read -r per_copy copies < "$input/.complete"
raw_bytes=$(( per_copy * copies ))
nfiles=$(find "$input" -name '*.dcm' | wc -l)
# every frame's codestream (the source set's, once per copy), in one folder per opj_decompress
streams=$work/streams-$size_mb-$threads
if [[ ! -d $streams ]]; then
  log "copying the codestreams into $threads folders"
  k=0
  for ((c = 0; c < copies; c++)); do
    for f in "$work/src/streams/s0"/*.j2k; do
      d=$streams/s$((k % threads)); mkdir -p "$d"; cp "$f" "$d/c${c}_${f##*/}"; k=$((k + 1))
    done
  done
fi
nstreams=$(find "$streams" -name '*.j2k' | wc -l)
log "input: $nfiles files, $(du -sm "$input" | cut -f1) MB, $(( raw_bytes / 1048576 )) MB of raw pixel data, $nstreams frames"

# --- the runs -------------------------------------------------------------------------------------
now() { date +%s.%N; }
loop_run() {
  local out
  out=$(find "$streams" -name '*.j2k' | "$loop" "$threads") || { log "j2k_decode_loop failed"; exit 1; }
  printf '%.2f\n' "${out%% *}"
}
opj_run() {
  find "$streams" -name '*.rawl' -delete
  local t0 t1
  t0=$(now)
  for d in "$streams"/s*; do opj_decompress -ImgDir "$d" -OutFor RAWL -threads 1 -quiet >/dev/null 2>&1 & done
  wait
  t1=$(now)
  local decoded
  decoded=$(find "$streams" -name '*.rawl' | wc -l)
  [[ $decoded == "$nstreams" ]] || { log "opj_decompress decoded $decoded of $nstreams codestreams"; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
}
pcwt_run() { # DECODER (cpu, gpu; default: no --j2k-decoder) [LABEL VARIANT-WORDS]: output in $work/out-LABEL,
  local dec=$1 name=${2:-$1} words=${3:-} t0 t1 w # report $work/report-LABEL.json
  local envs=() args=() decopt=()
  [[ $dec == default ]] || decopt=(--j2k-decoder "$dec")
  for w in $words; do
    if [[ ${#args[@]} -eq 0 && $w =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then envs+=("$w"); else args+=("$w"); fi
  done
  rm -rf "$work/out-$name"
  t0=$(now)
  # shellcheck disable=SC2086
  env "${envs[@]}" "$recompress" --threads "$threads" --output "$work/out-$name" --report "$work/report-$name.json" \
    "${decopt[@]}" $pcwt_args "${args[@]}" "$input" >"$work/recompress-$name.log" 2>&1 \
    || { tail -5 "$work/recompress-$name.log"; exit 1; }
  t1=$(now)
  local done_files
  done_files=$(grep -c '"status": "recompressed"' "$work/report-$name.json" || true)
  [[ $done_files == "$nfiles" ]] || { log "pcwt-recompress recompressed $done_files of $nfiles files"; tail -5 "$work/recompress-$name.log"; exit 1; }
  # the last run's wall time, beside its --stats timeline (what lies outside main)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$work/wall-$name"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
}
summary_of() { # KEY DECODER: a number of the report's summary
  grep -o "\"$1\": [0-9]*" "$work/report-$2.json" | head -1 | grep -o '[0-9]*$'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
load=$(cut -d' ' -f1-3 /proc/loadavg)
loop_times=() opj_times=() pcwt_times=() gpu_times=() var_times=()
base_repeat=${base_repeat:-$repeat}
(( base_repeat >= 1 )) || usage
for ((r = 0; r < repeat; r++)); do
  if (( r < base_repeat )); then
    t=$(loop_run); loop_times+=("$t"); log "run $((r + 1)): OpenJPEG decoding alone (j2k_decode_loop) $t s"
    t=$(opj_run); opj_times+=("$t"); log "run $((r + 1)): opj_decompress $t s"
    t=$(pcwt_run cpu); pcwt_times+=("$t"); log "run $((r + 1)): pcwt-recompress --j2k-decoder cpu $t s"
  fi
  if [[ -n $gpu_decode ]]; then
    t=$(pcwt_run default gpu); gpu_times+=("$t"); log "run $((r + 1)): pcwt-recompress (default decoder) $t s"
    for ((v = 0; v < ${#variants[@]}; v++)); do
      t=$(pcwt_run default "v-${variants[v]%%:*}" "${variants[v]#*:}"); var_times[v]+="$t "
      log "run $((r + 1)): pcwt-recompress, variant ${variants[v]}: $t s"
    done
  fi
done
loop_s=$(printf '%s\n' "${loop_times[@]}" | median)
opj_s=$(printf '%s\n' "${opj_times[@]}" | median)
pcwt_s=$(printf '%s\n' "${pcwt_times[@]}" | median)
if [[ -n $gpu_decode ]]; then
  gpu_s=$(printf '%s\n' "${gpu_times[@]}" | median)
  # the GPU path writes exactly the CPU path's files
  if diff -rq -x .pcwt-recompress.lock "$work/out-cpu" "$work/out-gpu" >"$work/out-diff.txt" 2>&1; then
    same="byte for byte identical to the CPU path's"
  else
    same="**differ from the CPU path's** ($(wc -l < "$work/out-diff.txt") files, $work/out-diff.txt)"
  fi
  gpu_frames=$(summary_of j2k_gpu_frames gpu) gpu_opj=$(summary_of j2k_openjpeg_frames gpu)
  gpu_calls=$(summary_of j2k_gpu_calls gpu)
fi
mbps() { awk -v n="$raw_bytes" -v s="$1" 'BEGIN { printf "%.1f", n / 1048576 / s }'; }
ratio=$(awk -v a="$loop_s" -v b="$pcwt_s" 'BEGIN { printf "%.2f", a / b }')
ratio_opj=$(awk -v a="$opj_s" -v b="$pcwt_s" 'BEGIN { printf "%.2f", a / b }')
out_mb=$(du -sm "$work/out-cpu" | cut -f1)
in_mb=$(du -sm "$input" | cut -f1)

host=$(hostname -s)
stamp=$(date -u +%Y%m%d-%H%M%S)
file=$results/j2k-bench-$host-$stamp.md
commit=${PCWT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
{
  echo "# JPEG 2000 input: pcwt-recompress vs OpenJPEG decoding alone"
  echo
  echo "- machine: $host, $cpu, $(nproc) CPUs (load average before the runs: $load); $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- commit: $commit; OpenJPEG $(pkg-config --modversion libopenjp2 2>/dev/null || dpkg-query -W -f='${Version}' libopenjp2-7 2>/dev/null || echo '(version unknown)')"
  echo "- command: bench/recompress/run-j2k-bench.sh $results --size-mb $size_mb --threads $threads${pcwt_args:+ --pcwt-args \"$pcwt_args\"} --repeat $repeat --baseline-repeat $base_repeat${gpu_decode:+ --gpu-decode}$(for v in "${variants[@]}"; do printf ' --variant "%s"' "$v"; done)"
  echo "- input: $nfiles JPEG 2000 Lossless files ($in_mb MB; $nstreams frames; $(( raw_bytes / 1048576 )) MB of raw pixel data) in $input"
  echo "- OpenJPEG alone: j2k_decode_loop $threads (bench/recompress/j2k_decode_loop.cpp: the codestreams in memory, $threads threads, the plugin's OpenJPEG core, one OpenJPEG thread per decode); for reference opj_decompress -ImgDir -OutFor RAWL -threads 1, $threads processes at once (raw files written)"
  echo "- pcwt-recompress: --threads $threads --output (mirror) $pcwt_args; decode (OpenJPEG, on its workers), PCWT coding, write, verify; output $out_mb MB"
  echo
  echo "| | seconds (median of $repeat; the OpenJPEG and CPU path rows of $base_repeat) | MB/s of pixel data |"
  echo "|---|---:|---:|"
  echo "| OpenJPEG decoding alone (j2k_decode_loop), $threads threads | $loop_s | $(mbps "$loop_s") |"
  echo "| opj_decompress, $threads processes | $opj_s | $(mbps "$opj_s") |"
  echo "| pcwt-recompress --j2k-decoder cpu (the CPU path), $threads threads | $pcwt_s | $(mbps "$pcwt_s") |"
  if [[ -n $gpu_decode ]]; then
    if [[ ${gpu_frames:-0} -gt 0 ]]; then gpu_label="the GPU path"; else gpu_label="**not the GPU path: no frame decoded on the GPU**"; fi
    echo "| pcwt-recompress without --j2k-decoder (the default: $gpu_label), $threads threads | $gpu_s | $(mbps "$gpu_s") |"
  fi
  for ((v = 0; v < ${#variants[@]}; v++)); do
    # shellcheck disable=SC2086 # (the times, split)
    vs=$(printf '%s\n' ${var_times[v]} | median)
    vname=v-${variants[v]%%:*}
    if diff -rq -x .pcwt-recompress.lock "$work/out-cpu" "$work/out-$vname" >/dev/null 2>&1; then vsame="same bytes"; else vsame="**outputs differ**"; fi
    echo "| GPU path, variant \`${variants[v]}\` | $vs | $(mbps "$vs") ($(awk -v a="$pcwt_s" -v b="$vs" 'BEGIN { printf "%.2f", a / b }')x the CPU path; $vsame) |"
  done
  echo
  echo "pcwt-recompress runs at **${ratio}x** OpenJPEG's decoding speed (target: at least 0.9x);"
  echo "${ratio_opj}x opj_decompress's."
  if [[ -n $gpu_decode ]]; then
    echo
    echo "GPU path / CPU path: **$(awk -v a="$pcwt_s" -v b="$gpu_s" 'BEGIN { printf "%.2f", a / b }')x** (target: at least 5x);"
    echo "GPU path / OpenJPEG alone x $threads: **$(awk -v a="$loop_s" -v b="$gpu_s" 'BEGIN { printf "%.2f", a / b }')x**."
    echo "JPEG 2000 frames of the GPU path: $gpu_frames decoded on the GPU in $gpu_calls batches, $gpu_opj by OpenJPEG;"
    echo "its outputs are $same."
  fi
  echo
  echo "Every run: j2k_decode_loop ${loop_times[*]} s; opj_decompress ${opj_times[*]} s; pcwt-recompress (cpu) ${pcwt_times[*]} s${gpu_decode:+; pcwt-recompress (gpu) ${gpu_times[*]} s}."
  for ((v = 0; v < ${#variants[@]}; v++)); do echo "Variant ${variants[v]}: ${var_times[v]}s."; done
  # with --pcwt-args --stats: where the last run of each path spent its time, and how much of the
  # process's wall time lies outside the timeline (before main's start mark, after cleanup)
  names=(cpu ${gpu_decode:+gpu})
  for ((v = 0; v < ${#variants[@]}; v++)); do names+=("v-${variants[v]%%:*}"); done
  for dec in "${names[@]}"; do
    if grep -q '^stage times' "$work/recompress-$dec.log"; then
      echo
      case $dec in
        cpu) label="--j2k-decoder cpu" ;;
        gpu) label="without --j2k-decoder (the default)" ;;
        *) label="variant ${dec#v-}" ;;
      esac
      echo "pcwt-recompress $label, last run, --stats:"
      echo
      grep -E '^stage times|^  [a-zA-Z0-9 ]+ \([0-9]+\):|^timeline' "$work/recompress-$dec.log" | sed 's/^/    /'
      cleanup=$(grep -o 'timeline: cleanup [0-9.]*' "$work/recompress-$dec.log" | grep -o '[0-9.]*$' || true)
      if [[ -n $cleanup && -f $work/wall-$dec ]]; then
        echo "    wall time $(cat "$work/wall-$dec") s, of it outside the timeline (process start and exit): $(awk -v w="$(cat "$work/wall-$dec")" -v c="$cleanup" 'BEGIN { printf "%.3f", w - c }') s"
      fi
    fi
  done
} | tee "$file"
log "written $file"
