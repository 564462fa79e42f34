#!/usr/bin/env bash
# Sets up and runs the whole test suite on a fresh Debian bookworm machine:
#   1. installs missing Debian packages (packaging/install-deps.sh test)
#   2. builds with warnings as errors and runs every test (ctest)
#   3. builds with AddressSanitizer + UndefinedBehaviorSanitizer and runs the tests again
#   4. fuzzes the decoder for a bounded time (PCWT_FUZZ_SECONDS, default 60) with ASan + UBSan
# Build trees go to build-test*/ in the repository root. GPU tests (label gpu) skip without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
packaging/install-deps.sh test
jobs=$(nproc)

echo "== build (Release, -Werror)"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Release -DPCWT_WERROR=ON
cmake --build build-test -j"$jobs"
echo "== tests"
ctest --test-dir build-test --output-on-failure -j"$jobs"

echo "== build with ASan + UBSan"
cmake -S . -B build-test-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCWT_WERROR=ON \
      -DPCWT_SANITIZE=address,undefined -DPCWT_BUILD_BENCH=OFF -DPCWT_WITH_CUDA=OFF
cmake --build build-test-asan -j"$jobs"
echo "== tests under ASan + UBSan"
ctest --test-dir build-test-asan --output-on-failure -j"$jobs"

echo "== decoder fuzzing (${PCWT_FUZZ_SECONDS:-60} s, ASan + UBSan)"
tests/fuzz/run_fuzz.sh build-test-fuzz "${PCWT_FUZZ_SECONDS:-60}"
echo "== all tests passed"
