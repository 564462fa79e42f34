#!/usr/bin/env bash
# Builds the Debian package pcwt_<version>-1_<arch>.deb the way it is released:
#   packaging/build-deb.sh [BUILD_DIR [CMAKE_ARGS...]]     (BUILD_DIR default: build-deb)
# Installs the missing Debian packages (install-deps.sh package), configures BUILD_DIR in Release
# with prefix /usr, libpcwt shared (with CUDA, the static CUDA runtime lives inside libpcwt.so, so
# the package needs no CUDA on the target), the DCMTK plugin on, no tests or benchmarks; builds it
# and runs cpack -G DEB in it (Depends from dpkg-shlibdeps). Extra CMAKE_ARGS go to the configure
# step, e.g. -DPCWT_WITH_CUDA=OFF. Parallel jobs: CMAKE_BUILD_PARALLEL_LEVEL (default nproc).
# Prints the path of the .deb on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-deb}
shift || true
"$root/packaging/install-deps.sh" package >&2
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
      -DBUILD_SHARED_LIBS=ON -DPCWT_WITH_DCMTK=ON -DPCWT_BUILD_TESTS=OFF -DPCWT_BUILD_BENCH=OFF \
      -DPCWT_BUILD_FUZZERS=OFF -DPCWT_SANITIZE= "$@" >&2
cmake --build "$build" -j"${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >&2
rm -f "$build"/pcwt_*.deb
(cd "$build" && cpack -G DEB >&2)
debs=("$build"/pcwt_*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || { echo "build-deb: no single .deb in $build" >&2; exit 1; }
echo "${debs[0]}"
