#!/usr/bin/env bash
# Sets up and runs the main job on the bundled sample: installs missing build packages, builds the
# codec and the pcwt tool (Release; CPU-only unless CUDA is found), then compresses
# samples/phantom_ct_512.pgm (a synthetic 512x512 12-bit CT slice), prints the codestream header,
# decompresses it and checks the result is bit-exact. Output goes to out/ in the repository root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
packaging/install-deps.sh build
cmake -S . -B build-demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DPCWT_BUILD_TESTS=OFF -DPCWT_BUILD_BENCH=OFF >/dev/null
cmake --build build-demo -j"$(nproc)" >/dev/null
pcwt=build-demo/cli/pcwt
mkdir -p out
in=samples/phantom_ct_512.pgm
"$pcwt" encode "$in" out/phantom.pcwt
"$pcwt" info out/phantom.pcwt
"$pcwt" decode out/phantom.pcwt out/phantom_decoded.pgm
cmp "$in" out/phantom_decoded.pgm
raw=$((512 * 512 * 2))
coded=$(stat -c %s out/phantom.pcwt)
echo "phantom_ct_512: $raw bytes of samples -> $coded bytes, ratio $(awk "BEGIN{printf \"%.2f\", $raw/$coded}"), decoded bit-exact"
