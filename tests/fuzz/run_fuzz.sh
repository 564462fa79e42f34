#!/bin/sh
# run_fuzz.sh BUILD_DIR [SECONDS] - configure and build a clang ASan+UBSan+libFuzzer tree of
# libpcwt and run the fuzzers (ctest label 'fuzz'): the decoder fuzzer for SECONDS (default 60),
# the round-trip fuzzer for SECONDS/2, the DICOM fuzzers (fuzz_dicom, and fuzz_dicom_file when DCMTK
# is found, PCWT_WITH_DCMTK) and the JPEG 2000 decoder fuzzer (fuzz_j2k) for SECONDS/2 each (at most 30).
# Exit status non-zero when a fuzzer finds a problem; the
# reproducer is then in BUILD_DIR/tests/fuzz/artifacts/. JOBS (default 2) sets build parallelism.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [SECONDS]" >&2
    exit 2
fi
BUILD_DIR=$1
SECONDS_DECODE=${2:-60}
case $SECONDS_DECODE in
    '' | *[!0-9]*) echo "run_fuzz.sh: SECONDS must be a whole number" >&2; exit 2 ;;
esac
SECONDS_RT=$((SECONDS_DECODE / 2))
[ "$SECONDS_RT" -ge 1 ] || SECONDS_RT=1
SECONDS_DICOM=$SECONDS_RT
[ "$SECONDS_DICOM" -le 30 ] || SECONDS_DICOM=30
SRC_DIR=$(cd "$(dirname "$0")/../.." && pwd)

CC=clang CXX=clang++ cmake -S "$SRC_DIR" -B "$BUILD_DIR" -G Ninja \
    -DPCWT_BUILD_FUZZERS=ON -DPCWT_SANITIZE=address,undefined -DPCWT_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCWT_WITH_CUDA=OFF \
    -DPCWT_FUZZ_SECONDS="$SECONDS_DECODE" -DPCWT_FUZZ_ROUNDTRIP_SECONDS="$SECONDS_RT" \
    -DPCWT_FUZZ_DICOM_SECONDS="$SECONDS_DICOM" -DPCWT_FUZZ_DICOM_FILE_SECONDS="$SECONDS_DICOM" \
    -DPCWT_FUZZ_J2K_SECONDS="$SECONDS_DICOM"
TARGETS="fuzz_decode fuzz_roundtrip fuzz_dicom fuzz_j2k pcwt_fuzz_make_seeds"
# the DCMTK carrier-read fuzzer exists only with the plugin (fuzz.cmake says so when it is skipped)
if grep -q '^PCWT_WITH_DCMTK:BOOL=ON$' "$BUILD_DIR/CMakeCache.txt"; then
    TARGETS="$TARGETS fuzz_dicom_file pcwt_fuzz_make_dicom_seeds"
fi
# shellcheck disable=SC2086 # a list of target names
cmake --build "$BUILD_DIR" -j "${JOBS:-2}" --target $TARGETS
ctest --test-dir "$BUILD_DIR" -L fuzz --output-on-failure
