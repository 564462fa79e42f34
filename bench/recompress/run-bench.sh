#!/usr/bin/env bash
# Batch recompression benchmark: pcwt-recompress (PCWT, on the GPU when there is one) against
# DCMTK's dcmcjpls (JPEG-LS lossless) run as `find | xargs -P16 -n 8`, on the same folder of CT and
# radiograph DICOM files (copies of the corpus CT, CR and DX images; the corpus has no MG), in one
# run. Prints and writes (RESULTS_DIR/recompress-bench-<host>-<time>.md) files/s, MB/s of raw
# pixel data (Rows*Columns*SamplesPerPixel*BitsAllocated/8*frames) and the aggregate size ratios,
# after checking that every output exists and that a sample of them decodes (dcmdpcwt, dcmdjpls)
# to the original pixel data.
#
#   bench/recompress/run-bench.sh RESULTS_DIR [options]
#   bench/recompress/run-bench.sh --pack [DIR]     only pack the source images (about 12 MB) into
#                                                   DIR (default .rcdata, git-ignored) for a machine
#                                                   without the corpus, such as the GPU machine
#     --size-gb G | --size-mb M   size of the input folder to build (default 2 GB)
#     --work DIR                  where the input and output trees go (default /tmp/pcwt-recompress-bench;
#                                 the input tree is kept and reused by the next run of the same size;
#                                 on a tmpfs such as /dev/shm the disk is out of the comparison, and
#                                 pcwt-recompress's flushes cost nothing)
#     --corpus DIR                the test corpus (default ../shared/testdata, else shared/testdata)
#     --src DIR                   a source set made by --pack (default .rcdata when there is no corpus)
#     --build DIR                 build folder holding archive/pcwt-recompress and plugin/dcmdpcwt;
#                                 configured and built there when missing (default build-recompress-bench)
#     --gpus SPEC                 passed to pcwt-recompress (default: 1 when nvidia-smi sees a GPU, else none)
#     --threads N                 pcwt-recompress --threads (default: its own, the CPU cores, half of them with a GPU)
#     --jobs P                    parallel dcmcjpls processes (xargs -P; default 16)
#     --sample K                  outputs of each tool decoded and compared (default 24)
#     --pcwt-args "ARGS"          more pcwt-recompress options (e.g. "--batch-frames 2048")
#     --repeat N                  run both tools N times, in turn (default 1); the table has the
#                                 medians, a line every time (a VM's speed moves from run to run)
#     --jls-repeat N              dcmcjpls in the first N repeats only (default: every one)
#     --also "ARGS"               one more pcwt-recompress row (repeatable), run in turn with the
#                                 others in every repeat, its options instead of --pcwt-args and
#                                 --gpus (e.g. "--gpus 0,1"), optionally led by environment
#                                 settings (e.g. "PCWT_RECOMPRESS_WARM=1 --gpus 0,1"); its outputs checked
#                                 as the first's
#
# The build it makes: cmake -DCMAKE_BUILD_TYPE=Release -DPCWT_WITH_DCMTK=ON -DPCWT_BUILD_TESTS=OFF
# -DPCWT_BUILD_BENCH=OFF (CUDA when nvcc is found, CMAKE_CUDA_ARCHITECTURES=90 unless set in
# CUDAARCHS). On the GPU machine first `source .devdeps/env.sh` (DCMTK, its tools and dictionary;
# ../shared/device/prepare-deps.sh makes .devdeps); the script sources it itself when present.
set -euo pipefail

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[[ $# -ge 1 ]] || usage
pack=""
if [[ $1 == --pack ]]; then
  pack=${2:-.rcdata}; shift $(( $# >= 2 ? 2 : 1 )); results=""
else
  [[ $1 != -* ]] || usage
  results=$1; shift
fi
size_mb=2048 work=/tmp/pcwt-recompress-bench corpus="" srcset="" build=build-recompress-bench gpus=auto threads=""
jobs=16 sample=24 pcwt_args="" repeat=1 jls_repeat="" also=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --size-gb) size_mb=$(( $2 * 1024 )); shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --src) srcset=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --pcwt-args) pcwt_args=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --jls-repeat) jls_repeat=$2; shift 2 ;;
    --also) also+=("$2"); shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "run-bench.sh: unknown option $1" >&2; usage ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "run-bench.sh: --repeat needs a count >= 1" >&2; exit 2; }
jls_repeat=${jls_repeat:-$repeat}
[[ $jls_repeat =~ ^[1-9][0-9]*$ ]] || { echo "run-bench.sh: --jls-repeat needs a count >= 1" >&2; exit 2; }

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
[[ -f .devdeps/env.sh ]] && source .devdeps/env.sh
for t in dcmcjpls dcmdjpls dcmdump; do
  command -v $t >/dev/null || { echo "run-bench.sh: $t (DCMTK) not on PATH" >&2; exit 1; }
done
log() { echo "run-bench: $*" >&2; }
if [[ -z $corpus ]]; then
  for c in ../shared/testdata shared/testdata; do [[ -d $c ]] && { corpus=$c; break; }; done
fi
[[ -z $srcset && -z $corpus && -z $pack && -d .rcdata ]] && srcset=.rcdata
# a folder of flat *.dcm files (what --pack writes) given as --corpus is a source set
if [[ -z $srcset && -z $pack && -n $corpus && ! -d $corpus/dcm_qa_ct ]] && compgen -G "$corpus/*.dcm" >/dev/null; then
  srcset=$corpus corpus=""
fi
if [[ -z $srcset ]]; then
  [[ -n $corpus && -d $corpus ]] || { echo "run-bench.sh: no corpus (../shared/testdata): use --corpus or --src" >&2; exit 1; }
  corpus=$(cd "$corpus" && pwd)
fi

# the source images from the corpus: uncompressed CT, CR and DX (CR, DX as JPEG-LS when packing)
corpus_set() { # DEST pack(0|1)
  local dest=$1 packing=$2 f g
  for f in dcm_qa_ct/GE_CT_series/*.dcm wg04/dicom_unc/CT1_UNC.dcm wg04/dicom_unc/CT2_UNC.dcm \
           pydicom-data/693_UNCR_CT.dcm pydicom-data/eCT_Supplemental.dcm debian-python3-pydicom/CT_small.dcm; do
    for g in "$corpus"/$f; do [[ -f $g ]] && cp "$g" "$dest/ct_$(echo "${g#"$corpus"/}" | tr '/' '_')"; done
  done
  # CR (WG04 RG2): JPEG-LS in the corpus
  if [[ -f $corpus/pylibjpeg-data/RG2_JLSL.dcm ]]; then
    if [[ $packing == 1 ]]; then cp "$corpus/pylibjpeg-data/RG2_JLSL.dcm" "$dest/cr_RG2.dcm"
    else dcmdjpls "$corpus/pylibjpeg-data/RG2_JLSL.dcm" "$dest/cr_RG2.dcm"; fi
  fi
  # DX: JPEG 2000 in the corpus (DCMTK 3.6.7 cannot decode it): uncompressed by GDCM when present
  if [[ -f $corpus/pylibjpeg-data/966_fixed_DX.dcm ]] && command -v gdcmconv >/dev/null; then
    gdcmconv --raw "$corpus/pylibjpeg-data/966_fixed_DX.dcm" "$dest/dx_966.dcm"
    if [[ $packing == 1 ]]; then dcmcjpls "$dest/dx_966.dcm" "$dest/dx_966.jls" && mv "$dest/dx_966.jls" "$dest/dx_966.dcm"; fi
  fi
  chmod 644 "$dest"/*.dcm
}

if [[ -n $pack ]]; then
  rm -rf "$pack"; mkdir -p "$pack"
  corpus_set "$pack" 1
  top_rel=${pack#./}
  [[ $top_rel == /* ]] || { grep -qxF "/$top_rel/" .git/info/exclude 2>/dev/null || echo "/$top_rel/" >> .git/info/exclude; }
  log "packed $(ls "$pack"/*.dcm | wc -l) source images ($(du -sh "$pack" | cut -f1)) into $pack;" \
      "carry it to the GPU machine and run there: bench/recompress/run-bench.sh RESULTS_DIR --src $pack"
  exit 0
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)

# --- the tools -------------------------------------------------------------------------------
if [[ ! -x $build/archive/pcwt-recompress || ! -x $build/plugin/dcmdpcwt ]]; then
  log "building pcwt-recompress and dcmdpcwt in $build"
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  cuda=(); command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] && cuda=(-DCMAKE_CUDA_ARCHITECTURES="${CUDAARCHS:-90}")
  cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DPCWT_WITH_DCMTK=ON -DPCWT_BUILD_TESTS=OFF \
        -DPCWT_BUILD_BENCH=OFF "${cuda[@]}" >"$results/bench-configure.log" 2>&1 \
    || { tail -20 "$results/bench-configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target pcwt-recompress dcmdpcwt >"$results/bench-build.log" 2>&1 \
    || { grep -E "error" "$results/bench-build.log" | head -20; exit 1; }
fi
recompress=$(cd "$build/archive" && pwd)/pcwt-recompress
dcmdpcwt=$(cd "$build/plugin" && pwd)/dcmdpcwt

# --- the source images: uncompressed CT, CR and DX ---------------------------------------------
src=$work/src
from=${srcset:-$corpus}
if [[ ! -f $src/.done || $(cat "$src/.done") != "$from" ]]; then
  rm -rf "$src" "$work"/input-* "$work"/out-*; mkdir -p "$src"
  if [[ -n $srcset ]]; then
    # a packed set: JPEG-LS files decoded to uncompressed
    for f in "$srcset"/*.dcm; do
      if dcmdump -q -Un +P 0002,0010 "$f" 2>/dev/null | grep -q "\[1\.2\.840\.10008\.1\.2\.4\.80\]"; then
        dcmdjpls "$f" "$src/$(basename "$f")"
      else
        cp "$f" "$src/"
      fi
    done
    chmod 644 "$src"/*.dcm
  else
    corpus_set "$src" 0
  fi
  echo "$from" >"$src/.done"
fi
nsrc=$(ls "$src"/*.dcm 2>/dev/null | wc -l)
[[ $nsrc -gt 0 ]] || { echo "run-bench.sh: no source images found in $from" >&2; exit 1; }

# raw pixel bytes of one file (Rows*Columns*SamplesPerPixel*BitsAllocated/8*frames)
rawbytes() {
  dcmdump -q +P 0028,0010 +P 0028,0011 +P 0028,0002 +P 0028,0100 +P 0028,0008 "$1" 2>/dev/null | awk '
    /\(0028,0010\)/ {r=$3} /\(0028,0011\)/ {c=$3} /\(0028,0002\)/ {s=$3} /\(0028,0100\)/ {b=$3}
    /\(0028,0008\)/ {gsub(/[\[\]]/, "", $3); f=$3}
    END {if (f == "") f = 1; printf "%.0f\n", r * c * s * b / 8 * f}'
}
declare -A rawof
src_bytes=0 src_raw=0
for f in "$src"/*.dcm; do
  rawof[$(basename "$f")]=$(rawbytes "$f")
  src_bytes=$(( src_bytes + $(stat -c %s "$f") ))
  src_raw=$(( src_raw + ${rawof[$(basename "$f")]} ))
done
kinds=$(ls "$src" | sed -n 's/^\(ct\|cr\|dx\)_.*/\1/p' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, toupper($2); sep=", "}')

# --- the input tree: copies of the source set until the size is reached ------------------------
copies=$(( (size_mb * 1048576 + src_bytes - 1) / src_bytes ))
input=$work/input-${size_mb}mb
if [[ ! -f $input.done ]]; then
  log "making $input: $copies copies of $nsrc files ($(( src_bytes / 1048576 )) MB each)"
  rm -rf "$work"/input-* "$work"/out-*; mkdir -p "$input"
  for ((i = 0; i < copies; i++)); do
    d=$input/$(printf "study%05d" "$i"); mkdir -p "$d"; cp "$src"/*.dcm "$d/"
  done
  touch "$input.done"
fi
nfiles=$(( copies * nsrc ))
in_bytes=$(( copies * src_bytes ))
raw_bytes=$(( copies * src_raw ))
log "input: $nfiles files, $(( in_bytes / 1048576 )) MB, $(( raw_bytes / 1048576 )) MB of raw pixel data ($kinds per copy)"

# both tools read from the page cache, and neither writes behind the write-back of the input
# tree just made or of an earlier run's outputs
sync
find "$input" -name '*.dcm' -print0 | xargs -0 cat >/dev/null

now() { date +%s.%N; }
out_pcwt=$work/out-pcwt out_jls=$work/out-jls

# --- pcwt-recompress ---------------------------------------------------------------------------
if [[ $gpus == auto ]]; then
  gpus=""; command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU && gpus=1
  if [[ " $pcwt_args " == *" --gpus "* ]]; then # --pcwt-args "--gpus ..." decides then
    gpus=$(sed -n 's/.*--gpus \([^ ]*\).*/\1/p' <<<"$pcwt_args")
    pcwt_args=$(sed 's/--gpus [^ ]*//' <<<"$pcwt_args")
  fi
fi
pcwt_cmd=("$recompress" --output "$out_pcwt" --no-progress --report "$work/pcwt-report.json")
[[ -n $gpus ]] && pcwt_cmd+=(--gpus "$gpus")
[[ -n $threads ]] && pcwt_cmd+=(--threads "$threads")
# shellcheck disable=SC2206
[[ -n $pcwt_args ]] && pcwt_cmd+=($pcwt_args)
pcwt_cmd+=("$input")
jls_cmd="find $input -name '*.dcm' | xargs -P$jobs -n 8 (dcmcjpls IN OUT for each)"
log "${pcwt_cmd[*]}"
# the --also rows: command k with options also[k], output out-also-k, times t_also[k] (a list)
also_cmd() { # k -> the command line, one word a line
  local envs=() opts=() word
  # shellcheck disable=SC2086
  for word in ${also[$1]}; do
    if [[ ${#opts[@]} -eq 0 && $word =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$word"); else opts+=("$word"); fi
  done
  printf '%s\n' env "${envs[@]}" "$recompress" --output "$work/out-also-$1" --no-progress --report "$work/also-$1-report.json"
  [[ -n $threads ]] && printf '%s\n' --threads "$threads"
  printf '%s\n' "${opts[@]}" "$input"
}
t_also=()
for k in "${!also[@]}"; do t_also[k]=""; log "$(also_cmd "$k" | tr '\n' ' ')"; done
log "$jls_cmd"
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f\n", b - a}'; }
t_pcwt=() t_jls=() t_jls_sync=() pcwt_rc=0 jls_rc=0 problems_also=()
for ((r = 1; r <= repeat; r++)); do
  rm -rf "$out_pcwt"; ((r <= jls_repeat)) && rm -rf "$out_jls"; sync
  # --- pcwt-recompress -------------------------------------------------------------------------
  t0=$(now)
  set +e
  "${pcwt_cmd[@]}" >"$work/pcwt.log" 2>&1
  rc=$?
  set -e
  t1=$(now)
  [[ $rc -eq 0 ]] || pcwt_rc=$rc
  tail -4 "$work/pcwt.log" >&2
  for k in "${!also[@]}"; do
    rm -rf "$work/out-also-$k"; sync
    mapfile -t cmd < <(also_cmd "$k")
    ta=$(now)
    set +e
    "${cmd[@]}" >"$work/also-$k.log" 2>&1
    rc=$?
    set -e
    tb=$(now)
    [[ $rc -eq 0 ]] || problems_also+=("pcwt-recompress ${also[k]} exited with $rc (see $work/also-$k.log)")
    t_also[k]="${t_also[k]} $(secs "$ta" "$tb")"
    log "run $r of $repeat: pcwt-recompress ${also[k]} $(secs "$ta" "$tb") s"
  done
  # --- dcmcjpls with xargs ---------------------------------------------------------------------
  if ((r > jls_repeat)); then
    t_pcwt+=("$(secs "$t0" "$t1")")
    log "run $r of $repeat: pcwt-recompress ${t_pcwt[-1]} s"
    continue
  fi
  sync
  t2=$(now)
  set +e
  (cd "$input" && find . -name '*.dcm' -print0 | xargs -0 -P"$jobs" -n 8 sh -c '
    for f; do o="$0/${f#./}"; mkdir -p "${o%/*}"; dcmcjpls "$f" "$o" || echo "FAIL $f"; done' "$out_jls") \
    >"$work/jls.log" 2>&1
  rc=$?
  set -e
  t3=$(now)
  [[ $rc -eq 0 ]] || jls_rc=$rc
  # pcwt-recompress flushed every copy before its rename; dcmcjpls flushes nothing: the time
  # until its outputs are on disk too
  sync
  t4=$(now)
  t_pcwt+=("$(secs "$t0" "$t1")") t_jls+=("$(secs "$t2" "$t3")") t_jls_sync+=("$(secs "$t2" "$t4")")
  log "run $r of $repeat: pcwt-recompress ${t_pcwt[-1]} s, dcmcjpls ${t_jls[-1]} s (${t_jls_sync[-1]} s with sync)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# --- checks: every output there, a sample decodes to the original pixels ----------------------
problems=("${problems_also[@]}")
count() { find "$1" -type f -name '*.dcm' 2>/dev/null | wc -l; }
bytes() { find "$1" -type f -name '*.dcm' -printf '%s\n' 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
n_pcwt=$(count "$out_pcwt"); n_jls=$(count "$out_jls")
[[ $pcwt_rc -eq 0 ]] || problems+=("pcwt-recompress exited with $pcwt_rc (see $work/pcwt.log)")
grep -q FAIL "$work/jls.log" && problems+=("dcmcjpls failed on $(grep -c FAIL "$work/jls.log") files")
[[ $n_pcwt -eq $nfiles ]] || problems+=("pcwt-recompress wrote $n_pcwt of $nfiles files")
[[ $n_jls -eq $nfiles ]] || problems+=("dcmcjpls wrote $n_jls of $nfiles files")
for k in "${!also[@]}"; do
  n=$(count "$work/out-also-$k")
  [[ $n -eq $nfiles ]] || problems+=("pcwt-recompress ${also[k]} wrote $n of $nfiles files")
done
check=$work/check; rm -rf "$check"; mkdir -p "$check"
pixels() { # file dir -> path of its raw pixel data
  mkdir -p "$2"; dcmdump -q +W "$2" "$1" >/dev/null 2>&1; ls "$2"/*.raw 2>/dev/null | head -1
}
step=$(( nfiles / sample )); [[ $step -ge 1 ]] || step=1
checked=0 k=0
while IFS= read -r rel; do
  k=$((k + 1)); (( (k - 1) % step == 0 )) || continue
  [[ $checked -lt $sample ]] || break
  rel=${rel#./}; c=$check/$checked
  orig=$(pixels "$input/$rel" "$c/orig")
  if ! "$dcmdpcwt" "$out_pcwt/$rel" "$c/pcwt.dcm" >/dev/null 2>&1; then
    problems+=("dcmdpcwt cannot decode $out_pcwt/$rel")
  elif ! cmp -s "$orig" "$(pixels "$c/pcwt.dcm" "$c/pcwt")"; then
    problems+=("PCWT output differs from the original: $rel")
  fi
  if ! dcmdjpls "$out_jls/$rel" "$c/jls.dcm" >/dev/null 2>&1; then
    problems+=("dcmdjpls cannot decode $out_jls/$rel")
  elif ! cmp -s "$orig" "$(pixels "$c/jls.dcm" "$c/jls")"; then
    problems+=("JPEG-LS output differs from the original: $rel")
  fi
  for k in "${!also[@]}"; do
    if ! "$dcmdpcwt" "$work/out-also-$k/$rel" "$c/also-$k.dcm" >/dev/null 2>&1; then
      problems+=("dcmdpcwt cannot decode $work/out-also-$k/$rel")
    elif ! cmp -s "$orig" "$(pixels "$c/also-$k.dcm" "$c/also-$k")"; then
      problems+=("PCWT output of ${also[k]} differs from the original: $rel")
    fi
  done
  checked=$((checked + 1))
done < <(cd "$input" && find . -name '*.dcm' | sort)

# --- results -----------------------------------------------------------------------------------
o_pcwt=$(bytes "$out_pcwt"); o_jls=$(bytes "$out_jls")
row() { # name seconds outbytes
  awk -v n="$1" -v s="$2" -v o="$3" -v f="$nfiles" -v raw="$raw_bytes" -v inb="$in_bytes" 'BEGIN {
    printf "| %s | %d | %.1f | %.1f | %.1f | %.3f | %.3f |\n", n, f, s, f / s, raw / 1048576 / s,
           (o > 0 ? inb / o : 0), (o > 0 ? raw / o : 0) }'
}
s_pcwt=$(median "${t_pcwt[@]}")
s_jls=$(median "${t_jls[@]}")
s_jls_sync=$(median "${t_jls_sync[@]}")
gpu=$(command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | paste -sd, - || true)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
summary=$(grep -E "^(batch coder|recompressed:)" "$work/pcwt.log" | tr '\n' ' ' || true)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$results/recompress-bench-$(hostname -s)-$stamp.md
{
  echo "# pcwt-recompress against dcmcjpls ($stamp)"
  echo
  echo "- machine: $(hostname -s); GPU: ${gpu:-none}; $(nproc) CPU threads ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1))"
  echo "- commit: $commit; DCMTK: $(dcmcjpls --version 2>/dev/null | head -1 | sed 's/^\$dcmtk: //; s/ \$$//')"
  echo "- input: $nfiles files in $copies folders ($kinds per folder), $(( in_bytes / 1048576 )) MB on disk," \
       "$(( raw_bytes / 1048576 )) MB of raw pixel data; read from the page cache"
  echo "- pcwt-recompress: \`${pcwt_cmd[*]}\` (PCWT; every file written to a temporary file, flushed," \
       "decoded and compared with the original before its rename)"
  echo "- dcmcjpls: \`$jls_cmd\` (JPEG-LS lossless, DCMTK defaults; no verification, no flush;" \
       "the second row adds the \`sync\` after it, which writes its outputs to disk)"
  echo "- the output trees: $(df -PT "$work" | awk 'NR == 2 {print $2 " (" $1 ")"}')"
  echo
  echo "| tool | files | seconds | files/s | MB/s raw pixels | ratio (file bytes in/out) | ratio (raw pixels/out) |"
  echo "|---|---|---|---|---|---|---|"
  row "pcwt-recompress${gpus:+ --gpus $gpus}" "$s_pcwt" "$o_pcwt"
  for k in "${!also[@]}"; do
    # shellcheck disable=SC2086
    row "pcwt-recompress ${also[k]}" "$(median ${t_also[k]})" "$(bytes "$work/out-also-$k")"
  done
  row "dcmcjpls x$jobs" "$s_jls" "$o_jls"
  row "dcmcjpls x$jobs, then sync (its outputs on disk)" "$s_jls_sync" "$o_jls"
  echo
  if [[ $repeat -gt 1 ]]; then
    echo "Medians of $repeat runs (dcmcjpls: $jls_repeat), each tool in turn; seconds: pcwt-recompress ${t_pcwt[*]}; dcmcjpls ${t_jls[*]};" \
         "dcmcjpls with sync ${t_jls_sync[*]}."
    for k in "${!also[@]}"; do echo "pcwt-recompress ${also[k]}:${t_also[k]}."; done
    echo
  fi
  echo "pcwt-recompress: $summary"
  echo
  echo "Checked: every output present ($n_pcwt and $n_jls of $nfiles); $checked files of each tool" \
       "decoded (dcmdpcwt, dcmdjpls) and their pixel data compared byte for byte with the original's."
  if [[ ${#problems[@]} -gt 0 ]]; then
    echo; echo "**Problems:**"; for p in "${problems[@]}"; do echo "- $p"; done
  else
    echo "No problems."
  fi
} >"$md"
cat "$md"
log "written $md"
[[ ${#problems[@]} -eq 0 ]]
