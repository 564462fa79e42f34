#!/usr/bin/env bash
# check_deb.sh SOURCE_DIR WORK VERSION SAMPLE_DCM [BUILD_DEB_ARGS...]
# The Debian package, end to end:
#   1. builds it with packaging/build-deb.sh in WORK/build (BUILD_DEB_ARGS go to its configure);
#   2. checks its metadata (dpkg-deb -I/-f: name, version, architecture, Depends from
#      dpkg-shlibdeps, shlibs) and contents (dpkg-deb -c: tools, libraries, headers, CMake and
#      pkg-config files, documents; nothing outside /usr, no build paths inside);
#   3. extracts it with dpkg -x into WORK/root (a clean prefix) and runs the installed tools from
#      there with LD_LIBRARY_PATH: no library may be missing or taken from elsewhere and none
#      may need libcudart.so; dcmcpcwt --verify, dcmdpcwt, dcmcpcwt +el with stock dcmdjpls,
#      stock dcmdjpls with the preload library, and pcwt on the raw pixels of SAMPLE_DCM, all
#      compared with the original pixel data as DCMTK's dcmdump extracts it; the CMake and
#      pkg-config files must not pass CUDA or zlib on (libpcwt is shared);
#   4. builds and runs a consumer against the extracted files (check_consumer.sh).
source "$(dirname "$0")/lib.sh"
src=$1 WORK=$2 version=$3 sample=$4
shift 4
rm -rf "$WORK"
mkdir -p "$WORK"
here=$(cd "$(dirname "$0")" && pwd)

step "build the package (packaging/build-deb.sh $*)"
deb=$(CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} "$src/packaging/build-deb.sh" "$WORK/build" "$@" 2>"$WORK/build.log" | tail -n 1) ||
  { tail -n 40 "$WORK/build.log"; fail "packaging/build-deb.sh failed"; }
[[ -f $deb ]] || { tail -n 40 "$WORK/build.log"; fail "no .deb built"; }
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
[[ $(basename "$deb") == "pcwt_${version}-1_${arch}.deb" ]] || fail "unexpected package file name $(basename "$deb")"

step "metadata (dpkg-deb -I)"
dpkg-deb -I "$deb" >"$WORK/info.txt" || fail "dpkg-deb -I cannot read $deb"
cat "$WORK/info.txt"
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == pcwt ]] || fail "Package is $(field Package)"
[[ $(field Version) == "${version}-1" ]] || fail "Version is $(field Version)"
[[ $(field Architecture) == "$arch" ]] || fail "Architecture is $(field Architecture)"
[[ -n $(field Maintainer) && -n $(field Description) ]] || fail "Maintainer or Description missing"
depends=$(field Depends)
dep_names=$(sed -e 's/([^)]*)//g' -e 's/[|,]/\n/g' <<<"$depends" | tr -d ' ')
for dep in libc6 libdcmtk17 zlib1g libstdc++6 libgcc-s1; do
  grep -qxF "$dep" <<<"$dep_names" || fail "Depends lacks $dep: $depends"
done
grep -Eqi "cuda|nvidia" <<<"$depends" && fail "Depends asks for CUDA: $depends"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./shlibs >"$WORK/shlibs" || fail "no shlibs control file"
grep -q "^libpcwt 0 pcwt" "$WORK/shlibs" || fail "shlibs lacks libpcwt: $(cat "$WORK/shlibs")"
grep -q "^libdcmpcwt 0 pcwt" "$WORK/shlibs" || fail "shlibs lacks libdcmpcwt: $(cat "$WORK/shlibs")"

step "contents (dpkg-deb -c)"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' >"$WORK/contents.txt"
lib=usr/lib/$multiarch
for f in usr/bin/pcwt usr/bin/dcmcpcwt usr/bin/dcmdpcwt \
         usr/bin/pcwt-recompress usr/bin/pcwt-storescp usr/bin/pcwt-storescu \
         "$lib/libpcwt.so.0" "$lib/libpcwt.so" "$lib/libdcmpcwt.so.0" "$lib/libdcmpcwt.so" \
         "$lib/libdcmpcwt_preload.so" "$lib/libpcwt_dicom.a" \
         usr/include/pcwt.h usr/include/pcwt_dicom.h usr/include/dcmpcwt/dpencode.h \
         usr/include/dcmpcwt/dpdecode.h usr/include/dcmpcwt/dpfilefo.h usr/include/dcmpcwt/dprparam.h \
         usr/include/dcmpcwt/dpcparam.h usr/include/dcmpcwt/dputil.h \
         "$lib/cmake/dcmpcwt/dcmpcwtConfig.cmake" "$lib/cmake/dcmpcwt/dcmpcwtConfigVersion.cmake" \
         "$lib/cmake/dcmpcwt/dcmpcwtTargets.cmake" "$lib/pkgconfig/pcwt.pc" "$lib/pkgconfig/dcmpcwt.pc" \
         usr/share/doc/pcwt/copyright usr/share/doc/pcwt/README.md usr/share/doc/pcwt/CONFORMANCE.md \
         usr/share/doc/pcwt/dcmtk-plugin.md usr/share/doc/pcwt/FORMAT.md \
         usr/share/doc/pcwt/examples/compress_example.cpp \
         usr/lib/python3/dist-packages/pcwt/__init__.py usr/lib/python3/dist-packages/pcwt/pydicom/__init__.py; do
  grep -qx "$f" "$WORK/contents.txt" || fail "the package lacks /$f"
done
# the Orthanc storage plugin, built where Orthanc's plugin SDK (orthanc-dev) is installed
if [[ -f /usr/include/orthanc/OrthancCPlugin.h ]]; then
  for f in usr/share/orthanc/plugins/libpcwt_orthanc.so usr/bin/pcwt-orthanc-compress usr/share/doc/pcwt/orthanc.md; do
    grep -qx "$f" "$WORK/contents.txt" || fail "the package lacks /$f"
  done
fi
outside=$(grep -v -e '^usr/' -e '^$' "$WORK/contents.txt" || true)
[[ -z $outside ]] || fail "files outside /usr: $outside"
grep -q "libcudart" "$WORK/contents.txt" && fail "the package ships a CUDA runtime library"

step "extract into a clean prefix (dpkg -x)"
root=$WORK/root
dpkg -x "$deb" "$root"
if grep -rIl -e "$WORK/build" -e "$src" "$root" >"$WORK/buildpaths.txt"; then
  fail "build or source paths inside the package: $(cat "$WORK/buildpaths.txt")"
fi
"$(dirname "$0")/check_exports.sh" "$root/$lib/libpcwt.so.0" >"$WORK/exports.txt" 2>&1 ||
  fail "libpcwt.so exports more than pcwt_*: $(cat "$WORK/exports.txt")"
grep -q "^prefix=/usr$" "$root/$lib/pkgconfig/pcwt.pc" || fail "pcwt.pc prefix is not /usr"
# libpcwt is shared in the package: its CMake and pkg-config files must not pass CUDA or zlib on.
grep -l -e "CUDA::" -e "CUDAToolkit)" -e "ZLIB::" "$root/$lib/cmake/dcmpcwt/"*.cmake && fail "the CMake package passes CUDA or zlib on"
grep -l -e "cudart" -e "zlib" "$root/$lib/pkgconfig/"*.pc && fail "the pkg-config files pass CUDA or zlib on"
with_cuda=0
grep -q "set(dcmpcwt_WITH_CUDA ON)" "$root/$lib/cmake/dcmpcwt/dcmpcwtConfig.cmake" && with_cuda=1
export LD_LIBRARY_PATH=$root/$lib
bin=$root/usr/bin
for f in "$bin/pcwt" "$bin/dcmcpcwt" "$bin/dcmdpcwt" "$bin/pcwt-recompress" "$bin/pcwt-storescp" \
         "$bin/pcwt-storescu" "$root/$lib/libdcmpcwt_preload.so"; do
  ldd "$f" >"$WORK/ldd.txt" 2>&1 || fail "ldd $f: $(cat "$WORK/ldd.txt")"
  grep -q "not found" "$WORK/ldd.txt" && fail "$f misses libraries: $(cat "$WORK/ldd.txt")"
  grep -q "libcudart" "$WORK/ldd.txt" && fail "$f needs libcudart: $(cat "$WORK/ldd.txt")"
  grep -q "libpcwt.so.0 => $root/" "$WORK/ldd.txt" || fail "$f does not load libpcwt from the package: $(cat "$WORK/ldd.txt")"
done

step "installed tools on $(basename "$sample")"
v=$("$bin/dcmcpcwt" --version) && grep -q "dcmcpcwt v$version" <<<"$v" || fail "dcmcpcwt --version is not $version: $v"
v=$("$bin/pcwt" --version) && grep -qx "pcwt $version" <<<"$v" || fail "pcwt --version is not $version: $v"
out=$WORK/out
mkdir -p "$out"
"$bin/dcmcpcwt" --verify "$sample" "$out/pcwt.dcm" || fail "dcmcpcwt --verify failed"
[[ $(transfer_syntax "$out/pcwt.dcm") == 2.25.* ]] || fail "dcmcpcwt did not write the PCWT transfer syntax"
[[ $(stat -c %s "$out/pcwt.dcm") -lt $(stat -c %s "$sample") ]] || fail "the PCWT file is not smaller"
diff <(attributes "$sample") <(attributes "$out/pcwt.dcm") >/dev/null || fail "dcmcpcwt changed attributes"
"$bin/dcmdpcwt" "$out/pcwt.dcm" "$out/decoded.dcm" || fail "dcmdpcwt failed"
[[ $(transfer_syntax "$out/decoded.dcm") == 1.2.840.10008.1.2.1 ]] || fail "dcmdpcwt did not write Explicit VR LE"
same_pixels "$sample" "$out/decoded.dcm"
"$bin/dcmcpcwt" +el --verify "$sample" "$out/jls.dcm" || fail "dcmcpcwt +el failed"
[[ $(transfer_syntax "$out/jls.dcm") == 1.2.840.10008.1.2.4.80 ]] || fail "dcmcpcwt +el did not write JPEG-LS"
dcmdjpls "$out/jls.dcm" "$out/jls_stock.dcm" || fail "stock dcmdjpls cannot decode the JPEG-LS output"
same_pixels "$sample" "$out/jls_stock.dcm"
LD_PRELOAD=$root/$lib/libdcmpcwt_preload.so dcmdjpls "$out/pcwt.dcm" "$out/preload.dcm" ||
  fail "stock dcmdjpls with the preload library failed"
same_pixels "$sample" "$out/preload.dcm"
# A corrupt input: an error, and nothing at the output path.
head -c 3000 "$out/pcwt.dcm" >"$out/truncated.dcm"
"$bin/dcmdpcwt" "$out/truncated.dcm" "$out/never.dcm" 2>/dev/null && fail "dcmdpcwt accepted a truncated file"
[[ ! -e $out/never.dcm ]] || fail "dcmdpcwt left an output after an error"
# pcwt on the raw samples (this sample: 512x512, 16 bits, signed).
raw=$(pixels "$sample" "$out/raw")
"$bin/pcwt" encode --width 512 --height 512 --bits 16 --signed "$raw" "$out/slice.pcwt" || fail "pcwt encode failed"
v=$("$bin/pcwt" info "$out/slice.pcwt") && grep -q 512 <<<"$v" || fail "pcwt info does not show the image: $v"
"$bin/pcwt" decode "$out/slice.pcwt" "$out/slice.raw" || fail "pcwt decode failed"
cmp -s "$raw" "$out/slice.raw" || fail "pcwt did not round-trip the pixel data"
echo "tools: ok ($(stat -c %s "$sample") -> $(stat -c %s "$out/pcwt.dcm") bytes)"
# The Python package (docs/python.md) from the package's dist-packages, on the package's
# libpcwt.so.0 (found by its soname): pydicom reads the PCWT file as the original.
if /usr/bin/python3 -c "import numpy, cffi, pydicom" 2>/dev/null; then
  PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 - "$sample" "$out/pcwt.dcm" "$root/" <<'PY' ||
import sys, numpy, pydicom, pcwt, pcwt.pydicom
assert pcwt.library_path == "libpcwt.so.0", pcwt.library_path
maps = open("/proc/self/maps").read()
assert sys.argv[3] + "usr/lib/" in maps and "libpcwt.so.0" in maps, "libpcwt.so.0 not loaded from the package"
assert pcwt.__file__.startswith(sys.argv[3]), pcwt.__file__
ref, got = pydicom.dcmread(sys.argv[1]).pixel_array, pydicom.dcmread(sys.argv[2]).pixel_array
assert got.dtype == ref.dtype and numpy.array_equal(got, ref), "pixel_array differs from the original"
print("python: ok (%s)" % pcwt.__file__)
PY
    fail "the packaged Python module does not read the PCWT file"
else
  echo "python: skipped (/usr/bin/python3 lacks numpy, cffi or pydicom)"
fi

unset LD_LIBRARY_PATH
PCWT_PC_SYSROOT=$root "$here/check_consumer.sh" "$root/usr" "lib/$multiarch" "$src" "$WORK/consumer" "$sample"
grep -q "CUDA $with_cuda)" "$WORK/consumer/use_pcwt.txt" || fail "pcwt_has_cuda() is not $with_cuda"
echo "deb: ok ($deb)"
