#!/usr/bin/env bash
# On the GPU machine: build pcwt-bench with CUDA and DCMTK, then run it on the corpus, end-to-end
# and device-resident figures for the GPU codecs (pcwt-gpu, pcwt-jpegls-gpu) beside the CPU ones:
#   1. the whole corpus (TESTDATA)                      -> $OUT/pcwt-bench-corpus.{txt,csv,json,html}
#   2. WG04: TESTDATA/wg04/jls (9 JPEG-LS codestreams,   -> $OUT/pcwt-bench-wg04.{txt,csv,json,html}
#      sign and modality from their DICOM originals in wg04/dicom_unc) and wg04/dicom_unc/MR1_UNC.dcm
#      (no JPEG-LS copy of MR1): the 10 WG04 images, as in bench/results/gpu-h100-*-pcwt-bench.md
# with --gpu on (the run stops if the GPU codecs cannot run). Logs: $OUT/{gpu.txt,configure.log,
# build.log,*.stderr}; $OUT defaults to ./device-out.
#
#   bench/pcwt_bench/run-device.sh [TESTDATA]
#
# TESTDATA defaults to the first of ../shared/testdata, shared/testdata, .testdata that exists.
# Needs .devdeps in the repository root (../shared/device/prepare-deps.sh: DCMTK, CharLS, OpenJPEG,
# OpenJPH, TurboJPEG for a machine without them). Environment: BENCH_ARGS (more pcwt-bench options,
# e.g. "-n 11"), BUILD_DIR (default build-pcwt-bench-gpu), CUDA_ARCH (default 90: H100/H200).
# Exit status: 0 when both runs were exact, else the first failing step's status.
set -uo pipefail
out=${OUT:-device-out}
mkdir -p "$out"
testdata=${1:-}
if [[ -z $testdata ]]; then
  for d in ../shared/testdata shared/testdata .testdata; do
    if [[ -d $d/wg04 ]]; then testdata=$d; break; fi
  done
fi
if [[ -z $testdata || ! -d $testdata/wg04/jls ]]; then
  echo "run-device.sh: no corpus (give TESTDATA, a copy of shared/testdata with wg04/)" >&2
  exit 2
fi
if [[ ! -f .devdeps/env.sh ]]; then
  echo "run-device.sh: .devdeps/env.sh missing (../shared/device/prepare-deps.sh, then carry .devdeps)" >&2
  exit 2
fi
source .devdeps/env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
build=${BUILD_DIR:-build-pcwt-bench-gpu}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
      -DPCWT_WITH_CUDA=ON -DPCWT_WITH_DCMTK=ON -DPCWT_BUILD_TESTS=OFF -DPCWT_BUILD_BENCH=ON -DPCWT_WERROR=ON \
      >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
if ! grep -q "bench: pcwt-bench (" "$out/configure.log"; then
  grep "bench:" "$out/configure.log"
  echo "run-device.sh: pcwt-bench is not configured (missing libraries above)" >&2
  exit 1
fi
cmake --build "$build" -j"$(nproc)" --target pcwt-bench >"$out/build.log" 2>&1 ||
  { grep -E "error" "$out/build.log" | head -30; exit 1; }
tool=$build/bench/pcwt_bench/pcwt-bench
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "pcwt-bench at $commit${gpu:+ on $gpu}; corpus $testdata" | tee "$out/run.txt"

rc=0
bench() { # NAME PATH...
  local name=$1
  shift
  echo "== $name: $tool --gpu on -q ${BENCH_ARGS:-} -o $out/$name $*" | tee -a "$out/run.txt"
  # shellcheck disable=SC2086 # BENCH_ARGS is a list of options
  "$tool" --gpu on -q ${BENCH_ARGS:-} --title "pcwt-bench $name ($commit${gpu:+, $gpu})" -o "$out/$name" "$@" \
      >"$out/$name.txt" 2>"$out/$name.stderr"
  local st=$?
  cat "$out/$name.txt"
  if [[ $st -ne 0 ]]; then
    echo "run-device.sh: $name: pcwt-bench exit status $st" | tee -a "$out/run.txt"
    tail -20 "$out/$name.stderr"
    [[ $rc -eq 0 ]] && rc=$st
  fi
}
bench pcwt-bench-corpus "$testdata"
bench pcwt-bench-wg04 "$testdata/wg04/jls" "$testdata/wg04/dicom_unc/MR1_UNC.dcm"
ls -la "$out" | tee -a "$out/run.txt"
exit $rc
