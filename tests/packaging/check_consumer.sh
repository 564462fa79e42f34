#!/usr/bin/env bash
# check_consumer.sh PREFIX LIBDIR SOURCE_DIR WORK SAMPLE_DCM [CMAKE_ARGS...]
# Builds tests/packaging/consumer (find_package(dcmpcwt); it includes the samples/dicom project)
# against the PCWT installed under PREFIX (libraries in PREFIX/LIBDIR) and runs it: use_pcwt
# (C API) and compress_example (DCMTK plugin) on SAMPLE_DCM. Then builds the same two sources
# with pkg-config's flags (pcwt.pc, dcmpcwt.pc) and runs them again. PCWT_PC_SYSROOT: a sysroot
# for pkg-config, when the .pc files name their final place (/usr) but lie under PREFIX.
source "$(dirname "$0")/lib.sh"
prefix=$1 libdir=$2 src=$3 WORK=$4 sample=$5
shift 5
mkdir -p "$WORK"
export LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

step "consumer: find_package(dcmpcwt) with CMAKE_PREFIX_PATH=$prefix"
rm -rf "$WORK/consumer"
cmake -S "$src/tests/packaging/consumer" -B "$WORK/consumer" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DPCWT_SAMPLES_DICOM="$src/samples/dicom" "$@" >"$WORK/consumer.log" 2>&1 ||
  { cat "$WORK/consumer.log"; fail "the consumer project does not configure"; }
# The package must come from PREFIX, not from some other installation.
found=$(sed -n 's/^-- consumer: dcmpcwt .* from \(.*\), libpcwt \(.*\), CUDA .*/\1|\2/p' "$WORK/consumer.log")
[[ $found == "$prefix"/*"|$prefix"/* ]] || { cat "$WORK/consumer.log"; fail "dcmpcwt not found under $prefix: $found"; }
cmake --build "$WORK/consumer" -j2 >>"$WORK/consumer.log" 2>&1 ||
  { cat "$WORK/consumer.log"; fail "the consumer project does not build"; }
"$WORK/consumer/use_pcwt" | tee "$WORK/use_pcwt.txt"
grep -q "bit-exact" "$WORK/use_pcwt.txt" || fail "use_pcwt did not round-trip"
"$WORK/consumer/example/compress_example" "$sample" "$WORK/example.dcm" | tee "$WORK/example.txt"
grep -q "lossless round trip ok" "$WORK/example.txt" || fail "compress_example did not round-trip"
[[ $(transfer_syntax "$WORK/example.dcm") == 2.25.* ]] || fail "compress_example did not write the PCWT UID"
# The installed libraries are the ones loaded.
v=$(ldd "$WORK/consumer/example/compress_example") && grep -q "libdcmpcwt.so.0 => $prefix/" <<<"$v" ||
  fail "compress_example does not load libdcmpcwt from $prefix: $v"

step "consumer: pkg-config pcwt, dcmpcwt"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
if [[ -n ${PCWT_PC_SYSROOT:-} ]]; then export PKG_CONFIG_SYSROOT_DIR=$PCWT_PC_SYSROOT; fi
pkg-config --exists --print-errors pcwt dcmpcwt || fail "pkg-config does not find pcwt and dcmpcwt"
ver=$(pkg-config --modversion pcwt)
grep -q "libpcwt $ver " "$WORK/use_pcwt.txt" || fail "pcwt.pc version $ver is not the library's"
# --static: libpcwt may be a static library (then zlib and the CUDA runtime come from Libs.private).
cc -std=c17 $(pkg-config --cflags pcwt) "$src/tests/packaging/consumer/use_pcwt.c" \
   -o "$WORK/use_pcwt_pc" $(pkg-config --libs --static pcwt) || fail "use_pcwt does not build with pkg-config"
v=$("$WORK/use_pcwt_pc") && grep -q "bit-exact" <<<"$v" || fail "use_pcwt (pkg-config) did not round-trip"
c++ -std=c++17 $(pkg-config --cflags dcmpcwt) "$src/samples/dicom/compress_example.cpp" \
    -o "$WORK/example_pc" $(pkg-config --libs dcmpcwt) || fail "compress_example does not build with pkg-config"
v=$("$WORK/example_pc" "$sample" "$WORK/example_pc.dcm") && grep -q "lossless round trip ok" <<<"$v" ||
  fail "compress_example (pkg-config) did not round-trip"
echo "consumer: ok"
