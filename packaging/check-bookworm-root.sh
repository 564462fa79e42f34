#!/usr/bin/env bash
# Checks a built package on a clean Debian bookworm system: a minimal root made by debootstrap.
#   packaging/check-bookworm-root.sh DEB [ROOT]       (as root; needs debootstrap and the network)
# 1. debootstrap --variant=minbase bookworm ROOT (default /tmp/pcwt-bookworm-root; an existing
#    ROOT is reused only if it has no pcwt installed yet);
# 2. apt-get install DEB in a chroot: its Depends must come from Debian's archive;
# 3. ldd: no library missing, no libcudart.so; no CUDA and no GPU in the root;
# 4. dcmcpcwt --verify, dcmdpcwt, dcmcpcwt +el and pcwt on every slice of samples/ct_study, run
#    in the chroot; the pixel data compared with the originals' by this machine's dcmdump
#    (and the JPEG-LS files decoded by this machine's stock dcmdjpls);
# 5. apt-get install dcmtk cmake g++ libdcmtk-dev pkg-config in the root, then stock dcmdjpls
#    with the preload library, and the installed example (/usr/share/doc/pcwt/examples) built
#    with find_package(dcmpcwt) and with pkg-config, and run.
# Not a ctest test (root, network, minutes); tests/packaging does the same in a dpkg -x prefix.
set -euo pipefail
deb=$(realpath "$1")
root=${2:-/tmp/pcwt-bookworm-root}
src=$(cd "$(dirname "$0")/.." && pwd)
[[ $(id -u) == 0 ]] || { echo "run as root" >&2; exit 1; }
fail() { echo "FAIL: $*" >&2; exit 1; }

if [[ ! -f $root/etc/debian_version ]]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1 ||
    fail "debootstrap failed, see $root.debootstrap.log"
fi
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive /bin/bash -c "$1"; }
in_root 'dpkg -s pcwt >/dev/null 2>&1' && fail "$root already has pcwt installed: give a fresh ROOT"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
work=$root/tmp/pcwt-check
rm -rf "$work"
mkdir -p "$work"
cp "$deb" "$src"/samples/ct_study/*.dcm "$work/"

echo "== install $(basename "$deb") on $(cat "$root/etc/debian_version")"
in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/pcwt-check/$(basename "$deb")" >"$work/apt.log" 2>&1 ||
  { tail -20 "$work/apt.log"; fail "apt-get install failed"; }
in_root 'dpkg -s pcwt | grep -E "^(Version|Depends):"'
in_root '! command -v nvcc && ! ls -d /usr/local/cuda* /usr/lib/x86_64-linux-gnu/libcuda* 2>/dev/null' ||
  fail "the root has CUDA"
for f in /usr/bin/pcwt /usr/bin/dcmcpcwt /usr/bin/dcmdpcwt /usr/lib/x86_64-linux-gnu/libdcmpcwt_preload.so; do
  in_root "ldd $f" >"$work/ldd.txt"
  grep -q "not found" "$work/ldd.txt" && fail "$f misses libraries: $(cat "$work/ldd.txt")"
  grep -q "libcudart" "$work/ldd.txt" && fail "$f needs libcudart"
done
echo "ldd: no library missing, no libcudart"

echo "== the tools in the root"
raw_of() { rm -rf "$2"; mkdir -p "$2"; dcmdump -q +W "$2" "$1" >/dev/null; echo "$2"/*.raw; }
for dcm in "$work"/*.dcm; do
  n=$(basename "$dcm" .dcm)
  in_root "cd /tmp/pcwt-check && dcmcpcwt --verify $n.dcm $n.pcwt.dcm && dcmdpcwt $n.pcwt.dcm $n.dec.dcm &&
           dcmcpcwt +el --verify $n.dcm $n.jls.dcm"
  orig=$(raw_of "$dcm" "$work/raw-$n")
  cmp -s "$orig" "$(raw_of "$work/$n.dec.dcm" "$work/raw-$n-dec")" || fail "$n: dcmdpcwt pixels differ"
  dcmdjpls "$work/$n.jls.dcm" "$work/$n.jlsdec.dcm"
  cmp -s "$orig" "$(raw_of "$work/$n.jlsdec.dcm" "$work/raw-$n-jls")" || fail "$n: JPEG-LS pixels differ"
  cp "$orig" "$work/$n.raw"
  in_root "cd /tmp/pcwt-check && pcwt encode --width 512 --height 512 --bits 16 --signed $n.raw $n.raw.pcwt &&
           pcwt decode $n.raw.pcwt $n.raw.dec && cmp $n.raw $n.raw.dec"
  echo "$n: $(stat -c %s "$dcm") -> $(stat -c %s "$work/$n.pcwt.dcm") bytes (PCWT), $(stat -c %s "$work/$n.jls.dcm") (JPEG-LS); pixels identical after dcmdpcwt, stock dcmdjpls, pcwt"
done
in_root 'cd /tmp/pcwt-check && dcmcpcwt +bg 01.dcm gpu.dcm' 2>/dev/null && fail "+bg succeeded without a GPU"
[[ ! -e $work/gpu.dcm ]] || fail "dcmcpcwt +bg left an output"
echo "dcmcpcwt +bg: refused without a GPU, no output left"

echo "== stock DCMTK and the developer files in the root"
in_root 'apt-get install -y -qq --no-install-recommends dcmtk cmake make g++ libdcmtk-dev pkg-config' >"$work/apt2.log" 2>&1 ||
  { tail -20 "$work/apt2.log"; fail "apt-get install of the developer packages failed"; }
in_root 'cd /tmp/pcwt-check && LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libdcmpcwt_preload.so dcmdjpls 01.pcwt.dcm 01.preload.dcm'
cmp -s "$work/raw-01/"*.raw "$(raw_of "$work/01.preload.dcm" "$work/raw-01-pre")" || fail "preload: pixels differ"
echo "stock dcmdjpls with libdcmpcwt_preload.so: pixels identical"
in_root 'cd /tmp/pcwt-check && cp -r /usr/share/doc/pcwt/examples ex && cmake -S ex -B ex/build >ex.log 2>&1 &&
         cmake --build ex/build >>ex.log 2>&1 && ex/build/compress_example 02.dcm ex.dcm &&
         c++ -std=c++17 ex/compress_example.cpp $(pkg-config --cflags --libs dcmpcwt) -o expc && ./expc 03.dcm ex_pc.dcm' ||
  fail "the installed example does not build or run"
echo "== ok: $(basename "$deb") installs and works on a clean bookworm root ($root)"
