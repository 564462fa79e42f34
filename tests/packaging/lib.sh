# lib.sh - shared by the packaging test scripts (bash). Sourced; sets -euo pipefail.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step() { echo "-- $*"; }

# pixels FILE DIR: the Pixel Data of a DICOM file as one raw file, extracted by DCMTK's dcmdump
# (+W), and its path on stdout.
pixels() {
  rm -rf "$2"
  mkdir -p "$2"
  dcmdump -q +W "$2" "$1" >/dev/null || fail "dcmdump +W cannot read $1"
  local raw=("$2"/*.raw)
  [[ ${#raw[@]} == 1 && -s ${raw[0]} ]] || fail "no pixel data extracted from $1"
  echo "${raw[0]}"
}

# same_pixels A B: the two DICOM files have identical Pixel Data (as uncompressed bytes).
same_pixels() {
  local a b
  a=$(pixels "$1" "$WORK/px-a") b=$(pixels "$2" "$WORK/px-b")
  cmp -s "$a" "$b" || fail "pixel data of $2 differs from $1"
}

# transfer_syntax FILE: (0002,0010) of a DICOM file.
transfer_syntax() {
  dcmdump -q -Un +P 0002,0010 "$1" | sed -n 's/.*UI \[\([^]]*\)\].*/\1/p'
}

# attributes FILE: dcmdump of the data set without the meta header, pixel data and lengths, to
# compare attribute values across transfer syntaxes.
attributes() {
  dcmdump -q -M +L +E "$1" | sed -e '/^# /d' -e '/^(0002,/d' -e '/^(7fe0,0010)/d' -e '/^  (fffe,e000)/d' \
    -e '/^(fffe,e0dd)/d' -e 's/ *#.*//'
}
