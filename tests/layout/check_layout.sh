#!/bin/sh
# check_layout.sh SOURCE_DIR [includes|lengths] - two rules of the source layout (both by default):
#  1. codec/ never includes a cuda/ header: the codec declares the GPU backend's interface
#     (codec/src/gpu_backend.h) and cuda/ implements it, so the dependency runs one way.
#  2. No source file (.c .h .cu .cpp .cc .hpp .sh .py) is over 800 lines.
# Build folders (build*/), hidden folders and data (test vectors, DICOM samples) are not looked at.
set -u
src=${1:?usage: check_layout.sh SOURCE_DIR [includes|lengths]}
what=${2:-all}
max=800
fail=0

# 1. Every name a codec/ file includes, against the files of cuda/.
if [ "$what" != lengths ]; then
cuda_names=$(cd "$src/cuda" && ls)
for f in $(find "$src/codec" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.cu' \)); do
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f"); do
        base=${inc##*/}
        case "$inc" in
        *cuda/*) bad=1 ;;
        *) bad=0
           for n in $cuda_names; do [ "$n" = "$base" ] && bad=1; done ;;
        esac
        if [ "$bad" = 1 ]; then
            echo "codec includes cuda: ${f#"$src"/} includes \"$inc\""
            fail=1
        fi
    done
done
fi

# 2. Lengths of the source files.
long=
[ "$what" != includes ] && long=$(find "$src" \( -path "$src/build*" -o -path "$src/.*" \) -prune -o -type f \
        \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cpp' -o -name '*.cc' \
           -o -name '*.hpp' -o -name '*.sh' -o -name '*.py' \) -print |
       while read -r f; do
           n=$(wc -l < "$f")
           [ "$n" -gt "$max" ] && echo "over $max lines: ${f#"$src"/} ($n)"
       done)
if [ -n "$long" ]; then
    echo "$long"
    fail=1
fi

if [ "$fail" = 0 ]; then
    [ "$what" != lengths ] && echo "layout: no codec/ file includes a cuda/ header"
    [ "$what" != includes ] && echo "layout: no source file is over $max lines"
fi
exit $fail
