#!/bin/sh
# info.sh PCWT GEN WORK: pcwt info prints the header fields of a known codestream, says that the
# payload CRCs are not checked, and fails on a file that is not a codestream.
set -eu
. "$(dirname "$0")/lib.sh"
setup "$1" "$2" "$3"

"$GEN" raw in.raw 45 31 3 16 12 1 3 clean
expect_rc 0 "$PCWT" encode --width 45 --height 31 --components 3 --bits 16 --bits-stored 12 \
    --signed --planar --levels 2 --group 8x16 --profile baseline in.raw out.pcwt
expect_rc 0 "$PCWT" info out.pcwt
expect_field "format version" 1
expect_field profile "baseline \\(0\\)"
expect_field width 45
expect_field height 31
expect_field components 3
expect_field "bits allocated" 16
expect_field "bits stored" 12
expect_field signed yes
expect_field layout planar
expect_field levels 2
expect_field "group size" "8x16 \\(rows x columns\\)"
size=$(wc -c <out.pcwt | tr -d ' ')
expect_field "total length" "$size bytes"
expect_field "file size" "$size bytes"
grep -Eq '^header length: +[1-9][0-9]* bytes$' out.txt || fail "no header length: $(cat out.txt)"
for comp in 0 1 2; do
    grep -Eq "^  plane [0-9]+: component $comp, kind 0 \\(samples\\), qmax -?[0-9]+, payload [0-9]+ bytes, crc32 0x[0-9a-f]{8}\$" out.txt ||
        fail "no sample plane for component $comp: $(cat out.txt)"
done
grep -q 'not checked' out.txt || fail "info does not say that payload CRCs are not checked"
[ ! -s err.txt ] || fail "info printed on stderr: $(cat err.txt)"

# 8-bit single component, default parameters: the compact profile (its plane's few values mapped),
# with the entropy profile's columns lifted first and 64x16 groups.
"$GEN" raw small.raw 19 7 1 8 8 0 3 clean
expect_rc 0 "$PCWT" encode --width 19 --height 7 --bits 8 small.raw small.pcwt
expect_rc 0 "$PCWT" info small.pcwt
expect_field profile "compact \\(2\\)"
expect_field width 19
expect_field height 7
expect_field components 1
expect_field "bits allocated" 8
expect_field "bits stored" 8
expect_field signed no
expect_field layout "single component"
expect_field "group size" "64x16 \\(rows x columns\\)"
expect_field "lifting order" "columns first"
# The baseline by name: rows lifted first, 32x32 groups.
expect_rc 0 "$PCWT" encode --width 19 --height 7 --bits 8 --profile baseline small.raw base.pcwt
expect_rc 0 "$PCWT" info base.pcwt
expect_field profile "baseline \\(0\\)"
expect_field "group size" "32x32 \\(rows x columns\\)"
expect_field "lifting order" "rows first"

# The entropy profile's defaults: columns lifted first, 64x16 groups; and the options forcing them.
expect_rc 0 "$PCWT" encode --width 19 --height 7 --bits 8 --profile entropy small.raw ent.pcwt
expect_rc 0 "$PCWT" info ent.pcwt
expect_field profile "entropy \\(1\\)"
expect_field "lifting order" "columns first"
expect_field "group size" "64x16 \\(rows x columns\\)"
expect_rc 0 "$PCWT" encode --width 19 --height 7 --bits 8 --profile entropy --lifting rows small.raw ent.pcwt
expect_rc 0 "$PCWT" info ent.pcwt
expect_field "lifting order" "rows first"
expect_rc 0 "$PCWT" encode --width 19 --height 7 --bits 8 --profile baseline --lifting columns small.raw small.pcwt
expect_rc 0 "$PCWT" info small.pcwt
expect_field "lifting order" "columns first"
expect_field "group size" "32x32 \\(rows x columns\\)"

expect_error 2 "option --lifting: 'diagonal' is not auto, rows or columns" "$PCWT" encode --width 19 \
    --height 7 --bits 8 --lifting diagonal small.raw bad.pcwt
no_file bad.pcwt
expect_error 2 'needs a codestream' "$PCWT" info
expect_error 1 'not a PCWT codestream' "$PCWT" info in.raw
echo ok
