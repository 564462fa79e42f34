#!/usr/bin/env bash
# A/B of two source trees on one GPU machine: builds pcwt_bench_gpu and pcwt-bench from BASE (an
# exported older tree) and from this tree, then runs them in turn, ROUNDS times each, so that both
# see the same machine state. Writes OUT_DIR/{base,head}-{gpu,cpu}-N.txt.
#   bench/gpu-ab.sh BASE_DIR OUT_DIR [ROUNDS] [SHARED_DIR]
# GPU: pcwt_bench_gpu .gpucorpus --profile both (compact and baseline). CPU: pcwt-bench --wg04 on
# one thread, libpcwt (its default profile, compact) against CharLS (SHARED_DIR/testdata/wg04;
# skipped when absent). Needs .devdeps on the device.
set -euo pipefail
base=${1:?usage: gpu-ab.sh BASE_DIR OUT_DIR [ROUNDS] [SHARED_DIR]}
out=${2:?usage: gpu-ab.sh BASE_DIR OUT_DIR [ROUNDS] [SHARED_DIR]}
rounds=${3:-2}
shared=${4:-}
mkdir -p "$out"
# pcwt-bench (the CPU side) needs the DCMTK plugin: built only when SHARED_DIR asks for it.
build() { # SRC BUILD
  local args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPCWT_BUILD_TESTS=OFF)
  local targets=(pcwt_bench_gpu)
  if [[ -n $shared ]]; then
    args+=(-DPCWT_SHARED_DIR="$(cd "$shared" && pwd)")
    targets+=(pcwt-bench)
  else
    args+=(-DPCWT_WITH_DCMTK=OFF)
  fi
  cmake -S "$1" -B "$2" "${args[@]}" >"$2.configure.log" 2>&1
  cmake --build "$2" -j"$(nproc)" --target "${targets[@]}" >"$2.build.log" 2>&1
}
build "$base" build-ab-base
build . build-ab-head
for r in $(seq 1 "$rounds"); do
  for side in base head; do
    build-ab-$side/bench/pcwt_bench_gpu .gpucorpus --profile both >"$out/$side-gpu-$r.txt" 2>&1
    if [[ -n $shared && -d $shared/testdata/wg04 ]]; then
      build-ab-$side/bench/pcwt_bench/pcwt-bench --wg04 --codecs pcwt-cpu,charls --no-parallel -n 5 -q \
        -o "/tmp/ab-$side-$r" >"$out/$side-cpu-$r.txt" 2>&1 || true
      cp "/tmp/ab-$side-$r.md" "$out/$side-cpu-$r.md" 2>/dev/null || true
    fi
  done
done
