#!/usr/bin/env bash
# run-single-file.sh - wall clock of the single-file DICOM tools on one file, each run a fresh
# process as a user runs it, the two tools of a pair alternately: dcmcpcwt against dcmcjpls
# (encode), dcmdpcwt on the PCWT copy
# against dcmdjpls on the JPEG-LS copy (decode), and both with --version (the cost of starting).
# Prints the median, min and max of N runs.
# The decoded files are compared with the original's pixels (pydicom). PCWT_BACKEND=cpu|gpu in the
# environment chooses both PCWT tools' backend (unset: the tools' default).
# usage: run-single-file.sh BUILD_DIR FILE.dcm [RUNS (20)] [extra dcmcpcwt args...]
#   e.g. PCWT_BACKEND=gpu run-single-file.sh build ../shared/testdata/dcm_qa_ct/GE_CT_series/01.dcm 20
set -euo pipefail
build=$1 file=$2 runs=${3:-20}
shift $(( $# < 3 ? $# : 3 ))
extra=("$@")
cpcwt=$build/plugin/dcmcpcwt dpcwt=$build/plugin/dcmdpcwt
for t in "$cpcwt" "$dpcwt" dcmcjpls dcmdjpls; do
    command -v "$t" >/dev/null || { echo "run-single-file.sh: $t not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cpcwt" "${extra[@]}" "$file" "$work/pcwt.dcm"
dcmcjpls "$file" "$work/jls.dcm"

# Runs two commands alternately, `runs` times each (so that both see the same load on a shared
# machine), and prints a line for each: its label, median, min and max ms.
pair() {
    local la=$1 lb=$2
    shift 2
    local -a a=() b=()
    while [[ $1 != -- ]]; do a+=("$1"); shift; done
    shift
    b=("$@")
    local ta=() tb=() i s e
    for ((i = 0; i < runs; i++)); do
        s=$(date +%s%N); "${a[@]}" >/dev/null; e=$(date +%s%N); ta+=($(( (e - s) / 1000 )))
        s=$(date +%s%N); "${b[@]}" >/dev/null; e=$(date +%s%N); tb+=($(( (e - s) / 1000 )))
    done
    for l in a b; do
        local -n t=t$l
        local -n lab=l$l
        printf '%s | ' "$lab"
        printf '%s\n' "${t[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%.2f | %.2f | %.2f\n", v[int((NR+1)/2)]/1000, v[1]/1000, v[NR]/1000}'
    done
}
echo "file: $file ($(stat -c %s "$file") bytes); PCWT copy $(stat -c %s "$work/pcwt.dcm"), JPEG-LS copy $(stat -c %s "$work/jls.dcm") bytes; $runs runs each, alternating"
echo "tool | median ms | min ms | max ms"
pair "dcmcpcwt ${extra[*]}" dcmcjpls "$cpcwt" "${extra[@]}" "$file" "$work/o1.dcm" -- dcmcjpls "$file" "$work/o2.dcm"
pair dcmdpcwt dcmdjpls "$dpcwt" "$work/pcwt.dcm" "$work/o3.dcm" -- dcmdjpls "$work/jls.dcm" "$work/o4.dcm"
pair "dcmdpcwt --version" "dcmdjpls --version" "$dpcwt" --version -- dcmdjpls --version
# the decoded files must hold the original pixels
if ! /usr/bin/python3 -c 'import pydicom' 2>/dev/null; then
    echo "pixel check skipped: /usr/bin/python3 has no pydicom"
    exit 0
fi
/usr/bin/python3 - "$file" "$work/o3.dcm" "$work/o4.dcm" <<'PY'
import sys, pydicom
want = pydicom.dcmread(sys.argv[1]).PixelData
for f in sys.argv[2:]:
    if pydicom.dcmread(f).PixelData[:len(want)] != want:
        sys.exit(f"run-single-file.sh: {f}: decoded pixels differ from the original")
print("decoded pixels of both tools equal the original's")
PY
