#!/usr/bin/env bash
# On the GPU machine: build with CUDA, run the whole test suite (GPU tests included, with the
# packed corpus), compute-sanitizer memcheck and racecheck on a subset, then the GPU benchmark.
# Logs go to $OUT (or ./device-out). Needs .devdeps (../shared/device/prepare-deps.sh) and
# .gpucorpus (tests/gpu/pack_corpus.sh) in the repository root.
#   tests/gpu/run_device.sh [tests|sanitize|bench|all]
set -uo pipefail
what=${1:-all}
out=${OUT:-device-out}
mkdir -p "$out"
source .devdeps/env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DPCWT_WERROR=ON -DPCWT_WITH_DCMTK=OFF >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j16 >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
export PCWT_GPU_CORPUS=$PWD/.gpucorpus
rc=0
if [[ $what == tests || $what == all ]]; then
  ctest --test-dir build-gpu -L gpu --output-on-failure -j1 2>&1 | tee "$out/ctest-gpu.log" | tail -25 || rc=1
  ctest --test-dir build-gpu -LE gpu -j16 2>&1 | tee "$out/ctest-all.log" | tail -4
fi
if [[ $what == sanitize || $what == all ]]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  "$cs" --tool memcheck --error-exitcode 3 build-gpu/tests/test_gpu \
      --gtest_filter='Gpu.ColourAndParameters:Gpu.CorruptStreamsRejectedInABatch:Gpu.BatchesMixingSizesMatchCpu:Gpu.MemoryBudget*' \
      >"$out/memcheck.log" 2>&1; echo "memcheck exit $?" | tee -a "$out/memcheck.log"; tail -5 "$out/memcheck.log"
  "$cs" --tool racecheck --error-exitcode 3 build-gpu/tests/test_gpu \
      --gtest_filter='Gpu.ColourAndParameters' >"$out/racecheck.log" 2>&1
  echo "racecheck exit $?" | tee -a "$out/racecheck.log"; tail -5 "$out/racecheck.log"
fi
if [[ $what == bench || $what == all ]]; then
  build-gpu/bench/pcwt_bench_gpu .gpucorpus ${BENCH_ARGS:-} 2>&1 | tee "$out/bench-gpu.txt"
fi
exit $rc
