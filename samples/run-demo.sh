#!/usr/bin/env bash
# Sets up and runs the main job on the bundled samples. Installs the missing Debian packages
# (packaging/install-deps.sh build), builds PCWT (Release; the CUDA backend when nvcc is found)
# with its DCMTK plugin, then:
#   1. compresses the sample CT study (samples/ct_study/*.dcm, three slices of a real GE CT series,
#      see samples/README.md) with dcmcpcwt --verify in the compact profile (the smallest), which
#      decodes each output and compares every sample before keeping it, and prints the size ratio
#      and the time of each file, beside the size and ratio of the same file in JPEG-LS (DCMTK's
#      dcmcjpls, or libpcwt's JPEG-LS encoder, dcmcpcwt +el, where dcmcjpls is missing);
#   2. decompresses each file with dcmdpcwt and checks its pixel data equals the original's, as
#      DCMTK's dcmdump extracts them;
#   3. round-trips samples/phantom_ct_512.pgm (synthetic 12-bit CT) through the pcwt tool.
# Output goes to out/ in the repository root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
packaging/install-deps.sh build
cmake -S . -B build-demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DPCWT_WITH_DCMTK=ON \
      -DPCWT_BUILD_TESTS=OFF -DPCWT_BUILD_BENCH=OFF >/dev/null
cmake --build build-demo -j"$(nproc)" >/dev/null
dcmcpcwt=build-demo/plugin/dcmcpcwt
dcmdpcwt=build-demo/plugin/dcmdpcwt
pcwt=build-demo/cli/pcwt
out=out/ct_study
rm -rf "$out"
mkdir -p "$out"

now_ns() { date +%s%N; }
# The Pixel Data of a DICOM file as raw bytes (DCMTK's dcmdump, independent of our code).
pixels() { # file dir
  mkdir -p "$2"
  dcmdump -q +W "$2" "$1" >/dev/null
  ls "$2"/*.raw
}

# JPEG-LS of the same files, for comparison: DCMTK's dcmcjpls, else libpcwt's JPEG-LS encoder.
jpegls() { # in out
  if command -v dcmcjpls >/dev/null; then dcmcjpls "$1" "$2"; else "$dcmcpcwt" +el "$1" "$2"; fi
}

echo "== PCWT lossless compression of the sample CT study (dcmcpcwt --verify --profile compact)"
printf '%-8s %10s %10s %7s %9s %10s %7s\n' file bytes_in bytes_out ratio time_ms jpegls_out ratio
total_in=0 total_out=0 total_ns=0 total_jls=0
for in in samples/ct_study/*.dcm; do
  name=$(basename "$in" .dcm)
  t0=$(now_ns)
  "$dcmcpcwt" --verify --profile compact "$in" "$out/$name.pcwt.dcm"
  t1=$(now_ns)
  jpegls "$in" "$out/$name.jls.dcm"
  bin=$(stat -c %s "$in") bout=$(stat -c %s "$out/$name.pcwt.dcm") bjls=$(stat -c %s "$out/$name.jls.dcm")
  awk -v f="$name.dcm" -v a="$bin" -v b="$bout" -v ns=$((t1 - t0)) -v j="$bjls" \
      'BEGIN { printf "%-8s %10d %10d %7.2f %9.1f %10d %7.2f\n", f, a, b, a / b, ns / 1e6, j, a / j }'
  total_in=$((total_in + bin)) total_out=$((total_out + bout)) total_ns=$((total_ns + t1 - t0))
  total_jls=$((total_jls + bjls))
done
awk -v a=$total_in -v b=$total_out -v ns=$total_ns -v j=$total_jls \
    'BEGIN { printf "%-8s %10d %10d %7.2f %9.1f %10d %7.2f\n", "total", a, b, a / b, ns / 1e6, j, a / j }'
echo "(time: wall clock of each dcmcpcwt run: start, read, compress, verify, write; JPEG-LS: $(command -v dcmcjpls >/dev/null && echo dcmcjpls || echo 'dcmcpcwt +el'))"

echo "== decompression (dcmdpcwt) compared with the originals' pixel data (dcmdump +W)"
for in in samples/ct_study/*.dcm; do
  name=$(basename "$in" .dcm)
  "$dcmdpcwt" "$out/$name.pcwt.dcm" "$out/$name.decoded.dcm"
  cmp "$(pixels "$in" "$out/raw-$name-in")" "$(pixels "$out/$name.decoded.dcm" "$out/raw-$name-out")"
  echo "$name.dcm: decompressed pixel data identical to the original"
done

echo "== pcwt tool on a synthetic slice"
in=samples/phantom_ct_512.pgm
"$pcwt" encode --profile compact "$in" out/phantom.pcwt
"$pcwt" decode out/phantom.pcwt out/phantom_decoded.pgm
cmp "$in" out/phantom_decoded.pgm
raw=$((512 * 512 * 2))
coded=$(stat -c %s out/phantom.pcwt)
echo "phantom_ct_512: $raw bytes of samples -> $coded bytes, ratio $(awk "BEGIN{printf \"%.2f\", $raw/$coded}"), decoded bit-exact"
