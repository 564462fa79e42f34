#!/usr/bin/env bash
# On the GPU machine: build with CUDA, run the whole test suite (GPU tests included, with the
# packed corpus), compute-sanitizer memcheck and racecheck on a subset, then the GPU benchmark.
# Logs go to $OUT (or ./device-out). Needs .devdeps (../shared/device/prepare-deps.sh) and
# .gpucorpus (tests/gpu/pack_corpus.sh) in the repository root.
#   tests/gpu/run_device.sh [tests|sanitize|bench|jpegls|all]
# (jpegls: only the JPEG-LS encoder's GPU tests, its sanitizer runs and its benchmark.)
set -uo pipefail
what=${1:-all}
out=${OUT:-device-out}
mkdir -p "$out"
source .devdeps/env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DPCWT_WERROR=ON -DPCWT_WITH_DCMTK=OFF >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
targets=()
[[ $what == jpegls ]] && targets=(--target test_gpu_jpegls pcwt_bench_gpu)
cmake --build build-gpu -j16 "${targets[@]}" >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
export PCWT_GPU_CORPUS=$PWD/.gpucorpus
rc=0
if [[ $what == tests || $what == all ]]; then
  ctest --test-dir build-gpu -L gpu --output-on-failure -j1 2>&1 | tee "$out/ctest-gpu.log" | tail -25 || rc=1
  ctest --test-dir build-gpu -LE gpu -j16 2>&1 | tee "$out/ctest-all.log" | tail -4
fi
if [[ $what == sanitize || $what == all ]]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  "$cs" --tool memcheck --error-exitcode 3 build-gpu/tests/test_gpu \
      --gtest_filter='*Gpu.ColourAndParameters/*:*Gpu.CorruptStreamsRejectedInABatch/*:*Gpu.BatchesMixingSizesMatchCpu/*:*Gpu.MemoryBudget*' \
      >"$out/memcheck.log" 2>&1; echo "memcheck exit $?" | tee -a "$out/memcheck.log"; tail -5 "$out/memcheck.log"
  "$cs" --tool memcheck --error-exitcode 3 build-gpu/tests/test_gpu_entropy \
      >"$out/memcheck-entropy.log" 2>&1; echo "memcheck (entropy) exit $?" | tee -a "$out/memcheck-entropy.log"
  tail -5 "$out/memcheck-entropy.log"
  # corrupted JPEG 2000 codestreams through the GPU decoder (tier-1, inverse DWT, output)
  "$cs" --tool memcheck --error-exitcode 3 build-gpu/tests/test_gpu_j2k \
      --gtest_filter='*GpuJ2kDamaged.*:GpuJ2k.DamagedFieldsAreRefused:GpuJ2k.CorpusCodestreams' \
      >"$out/memcheck-j2k.log" 2>&1; echo "memcheck (j2k) exit $?" | tee -a "$out/memcheck-j2k.log"
  tail -5 "$out/memcheck-j2k.log"
  "$cs" --tool racecheck --error-exitcode 3 build-gpu/tests/test_gpu \
      --gtest_filter='*Gpu.ColourAndParameters/*' >"$out/racecheck.log" 2>&1
  echo "racecheck exit $?" | tee -a "$out/racecheck.log"; tail -5 "$out/racecheck.log"
fi
if [[ $what == bench || $what == all ]]; then
  build-gpu/bench/pcwt_bench_gpu .gpucorpus ${BENCH_ARGS:-} 2>&1 | tee "$out/bench-gpu.txt"
fi
if [[ $what == jpegls || $what == all ]]; then
  build-gpu/tests/test_gpu_jpegls 2>&1 | tee "$out/test-gpu-jpegls.log" | tail -15 || rc=1
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  "$cs" --tool memcheck --error-exitcode 3 build-gpu/tests/test_gpu_jpegls \
      --gtest_filter='GpuJpegls.RestartIntervalsAndColour:GpuJpegls.BatchMixingFramesAndErrors' \
      >"$out/memcheck-jpegls.log" 2>&1; echo "memcheck (jpegls) exit $?" | tee -a "$out/memcheck-jpegls.log"
  tail -4 "$out/memcheck-jpegls.log"
  "$cs" --tool racecheck --error-exitcode 3 build-gpu/tests/test_gpu_jpegls \
      --gtest_filter='GpuJpegls.BatchMixingFramesAndErrors' >"$out/racecheck-jpegls.log" 2>&1
  echo "racecheck (jpegls) exit $?" | tee -a "$out/racecheck-jpegls.log"; tail -3 "$out/racecheck-jpegls.log"
  PCWT_GPU_TRACE=1 build-gpu/bench/pcwt_bench_gpu .gpucorpus --codec jpegls ${BENCH_ARGS:-} \
      >"$out/bench-jpegls.txt" 2>"$out/bench-jpegls-trace.txt"; cat "$out/bench-jpegls.txt"
  tail -40 "$out/bench-jpegls-trace.txt"
fi
exit $rc
