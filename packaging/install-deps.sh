#!/usr/bin/env bash
# Installs the Debian (bookworm) packages the project needs, only those missing.
#   packaging/install-deps.sh build   compiler, CMake, zlib, DCMTK (library, headers, tools), OpenJPEG: enough to
#                                     build libpcwt, the CLI and the DCMTK plugin and to run the demo
#   packaging/install-deps.sh package + dpkg-dev and file (cpack -G DEB with dpkg-shlibdeps)
#   packaging/install-deps.sh test    + those, GoogleTest, CharLS, clang/libFuzzer, pydicom, numpy, GDCM,
#                                     the JPEG 2000/HTJ2K tools, libjxl, Orthanc (+ SDK, DICOMweb), cffi, pytest,
#                                     PyYAML (the Kubernetes Job of docs/recompress.md)
# Runs apt-get as root (directly, or through sudo when not root).
set -euo pipefail
what=${1:-build}
pkgs=(build-essential cmake ninja-build pkg-config zlib1g-dev libdcmtk-dev dcmtk libopenjp2-7-dev)
case $what in
  build) ;;
  package) pkgs+=(dpkg-dev file) ;;
  test) pkgs+=(dpkg-dev file googletest libgtest-dev libcharls-dev clang libclang-rt-14-dev
               python3 python3-pydicom python3-numpy libgdcm-tools
               libopenjph-dev libturbojpeg0-dev openssl libopenjp2-tools openjph-tools libjxl-dev
               orthanc orthanc-dev orthanc-dicomweb python3-cffi python3-pytest python3-yaml) ;;
  *) echo "usage: $0 build|package|test" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
sudo=()
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
