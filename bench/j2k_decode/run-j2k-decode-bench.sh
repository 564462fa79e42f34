#!/bin/bash
# run-j2k-decode-bench.sh - libpcwt's JPEG 2000 decoder against OpenJPEG on one thread, in one run
# (j2k_decode_bench.cpp), on codestreams coded with DICOM-typical settings: corpus images (CT, MR,
# NM, XA of NEMA WG04, GE CT slices, a CR) coded by opj_compress (64x64 code-blocks, 5 or 6 levels,
# one tile, LRCP, lossless), and the corpus's own JPEG 2000 lossless DX frame as it was coded.
#
#   bench/j2k_decode/run-j2k-decode-bench.sh [--build DIR] [--repeat N] [--out FILE.md]
#
# --build: a build folder with plugin/libdcmpcwt_j2kcore.a and codec/libpcwt.a (CPU build; made
# with the j2k core's targets when missing). Needs ../shared/testdata, /usr/bin/python3 with
# pydicom and numpy, gdcmconv (libgdcm-tools) and opj_compress (libopenjp2-tools).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build-j2k-bench
repeat=7
out=
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--repeat N] [--out FILE.md]" >&2; exit 2 ;;
  esac
done
shared=${SHARED_DIR:-../shared}/testdata
[[ -d $shared ]] || { echo "no corpus at $shared" >&2; exit 1; }
if [[ ! -f $build/plugin/libdcmpcwt_j2kcore.a || ! -f $build/codec/libpcwt.a ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPCWT_WITH_CUDA=OFF -DPCWT_WITH_DCMTK=ON \
        -DPCWT_BUILD_TESTS=OFF -DPCWT_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" --target dcmpcwt_j2kcore pcwt >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
c++ -O2 -std=c++17 -Iplugin/libsrc -Icodec/include bench/j2k_decode/j2k_decode_bench.cpp \
    "$build/plugin/libdcmpcwt_j2kcore.a" "$build/codec/libpcwt.a" \
    $(pkg-config --libs libopenjp2 2>/dev/null || echo -lopenjp2) -lz -pthread -o "$work/j2k_decode_bench"

# native copies (gdcmconv --raw), then raw little-endian samples and opj_compress
mkdir -p "$work/streams"
for f in wg04/dicom_unc/CT1_UNC.dcm wg04/dicom_unc/CT2_UNC.dcm wg04/dicom_unc/MR1_UNC.dcm \
         wg04/dicom_unc/MR4_UNC.dcm wg04/dicom_unc/NM1_UNC.dcm wg04/dicom_unc/XA1_UNC.dcm \
         dcm_qa_ct/GE_CT_series/01.dcm dcm_qa_ct/GE_CT_series/02.dcm pylibjpeg-data/RG2_JLSL.dcm; do
  name=$(echo "$f" | tr '/' '_' | sed 's/\.dcm$//')
  gdcmconv --raw "$shared/$f" "$work/$name.dcm"
  args=$(/usr/bin/python3 - "$work/$name.dcm" "$work/$name.rawl" <<'PY'
import sys, pydicom, numpy as np
ds = pydicom.dcmread(sys.argv[1])
a = ds.pixel_array
bits = int(ds.BitsStored); signed = int(ds.PixelRepresentation) == 1
a = a.astype(np.int32)
# the BitsStored-bit values (pixel_array already sign-extends signed samples)
a.astype('<i2' if bits > 8 else '<i1').tofile(sys.argv[2]) if signed else a.astype('<u2' if bits > 8 else 'u1').tofile(sys.argv[2])
levels = 6 if min(a.shape[0], a.shape[1]) >= 1024 else 5
print(f"{a.shape[1]},{a.shape[0]},1,{bits},{'s' if signed else 'u'} {levels + 1}")
PY
)
  read -r fmt res <<<"$args"
  opj_compress -i "$work/$name.rawl" -o "$work/streams/$name.j2k" -F "$fmt" -n "$res" -b 64,64 -p LRCP >/dev/null
done
# the corpus's JPEG 2000 lossless DX frame, as its producer coded it
/usr/bin/python3 - "$shared/pylibjpeg-data/966_fixed_DX.dcm" "$work/streams/pylibjpeg-data_966_fixed_DX.j2k" <<'PY'
import sys, pydicom
from pydicom.encaps import generate_pixel_data_frame
ds = pydicom.dcmread(sys.argv[1])
open(sys.argv[2], 'wb').write(next(generate_pixel_data_frame(ds.PixelData)))
PY
table=$("$work/j2k_decode_bench" --repeat "$repeat" "$work"/streams/*.j2k)
echo "$table"
if [[ -n $out ]]; then
  {
    echo "# libpcwt's JPEG 2000 decoder against OpenJPEG, CPU, one thread"
    echo
    echo "- machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo "${PCWT_COMMIT:-unknown}")$(git diff --quiet HEAD -- codec plugin 2>/dev/null || echo ' (with uncommitted changes in codec/ or plugin/)')"
    echo "- OpenJPEG $(pkg-config --modversion libopenjp2 2>/dev/null), through plugin/libsrc/dpj2kcore (DPJ2K_OPENJPEG, one thread, strict mode); libpcwt: pcwt_decode, CPU backend"
    echo "- command: bench/j2k_decode/run-j2k-decode-bench.sh --repeat $repeat (medians of $repeat alternating runs per codestream, in memory, timed in the process's CPU time (OpenJPEG's one worker thread included); every sample compared once)"
    echo
    echo "$table"
  } >"$out"
fi
