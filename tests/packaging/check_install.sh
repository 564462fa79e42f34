#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR WORK LIBDIR SAMPLE_DCM [CMAKE_ARGS...]
# cmake --install of this build tree into WORK/prefix (libpcwt as this tree builds it: static by
# default, with the CUDA backend when the tree has it), checks what is installed, then builds and
# runs the consumer against it with find_package(dcmpcwt) and pkg-config (check_consumer.sh).
source "$(dirname "$0")/lib.sh"
build=$1 src=$2 WORK=$3 libdir=$4 sample=$5
shift 5
rm -rf "$WORK"
mkdir -p "$WORK"
prefix=$WORK/prefix

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "cmake --install failed"; }
for f in bin/pcwt bin/dcmcpcwt bin/dcmdpcwt bin/pcwt-recompress bin/pcwt-storescp bin/pcwt-storescu include/pcwt.h include/pcwt_dicom.h include/dcmpcwt/dpencode.h \
         "$libdir/libdcmpcwt.so.0" "$libdir/libdcmpcwt_preload.so" "$libdir/cmake/dcmpcwt/dcmpcwtConfig.cmake" \
         "$libdir/cmake/dcmpcwt/dcmpcwtTargets.cmake" "$libdir/pkgconfig/pcwt.pc" "$libdir/pkgconfig/dcmpcwt.pc" \
         share/doc/pcwt/CONFORMANCE.md share/doc/pcwt/copyright; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
[[ -e $prefix/$libdir/libpcwt.a || -e $prefix/$libdir/libpcwt.so.0 ]] || fail "libpcwt not installed"
grep -q "^prefix=$prefix\$" "$prefix/$libdir/pkgconfig/pcwt.pc" || fail "pcwt.pc does not name the install prefix"
# The installed tool runs (libdcmpcwt from the prefix).
LD_LIBRARY_PATH=$prefix/$libdir "$prefix/bin/dcmcpcwt" --verify "$sample" "$WORK/pcwt.dcm" || fail "installed dcmcpcwt failed"
# The installed Python module (docs/python.md) finds its libpcwt: the libpcwt.so.0 installed beside
# it (a static build) or the prefix's (a shared build), and pydicom reads the file as the original.
if /usr/bin/python3 -c "import numpy, cffi, pydicom" 2>/dev/null; then
  env -u PCWT_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" LD_LIBRARY_PATH="$prefix/$libdir" \
    /usr/bin/python3 -c '
import sys, numpy, pydicom, pcwt, pcwt.pydicom
assert pcwt.__file__.startswith(sys.argv[1]), pcwt.__file__
assert pcwt.library_path.startswith(sys.argv[1]) or pcwt.library_path == "libpcwt.so.0", pcwt.library_path
ref, got = pydicom.dcmread(sys.argv[2]).pixel_array, pydicom.dcmread(sys.argv[3]).pixel_array
assert numpy.array_equal(got, ref), "pixel_array differs from the original"
print("python: ok (%s)" % pcwt.library_path)' "$prefix/" "$sample" "$WORK/pcwt.dcm" || fail "the installed Python module does not read the PCWT file"
fi

"$(dirname "$0")/check_consumer.sh" "$prefix" "$libdir" "$src" "$WORK/consumer" "$sample" "$@"
echo "install: ok"
