#!/bin/sh
# misc.sh PCWT GEN WORK VERSION: --help (exit 0, documents the exit codes), --version (prints the
# library version), and the usage errors of the command line (exit 2, one line on stderr).
set -eu
. "$(dirname "$0")/lib.sh"
setup "$1" "$2" "$3"
VERSION=$4

expect_rc 0 "$PCWT" --help
grep -q 'pcwt encode' out.txt || fail "--help does not show encode"
grep -q 'pcwt decode' out.txt || fail "--help does not show decode"
grep -q 'pcwt info' out.txt || fail "--help does not show info"
grep -q 'Exit status: 0 success, 1' out.txt || fail "--help does not document the exit codes"
grep -q '2 usage error' out.txt || fail "--help does not document the usage exit code"
expect_rc 0 "$PCWT" encode --help
grep -q -- '--bits-stored' out.txt || fail "encode --help does not list --bits-stored"

expect_rc 0 "$PCWT" --version
[ "$(cat out.txt)" = "pcwt $VERSION" ] || fail "--version printed '$(cat out.txt)', want 'pcwt $VERSION'"

"$GEN" raw in.raw 8 4 1 8 8 0 1 clean
expect_error 2 'missing command' "$PCWT"
expect_error 2 "unknown command 'squash'" "$PCWT" squash in.raw out.pcwt
expect_error 2 "unknown option '--frobnicate'" "$PCWT" --frobnicate
expect_error 2 'needs an input and an output' "$PCWT" encode --width 8 --height 4 --bits 8
expect_error 2 'needs an input and an output' "$PCWT" encode --width 8 --height 4 --bits 8 in.raw
expect_error 2 'needs an input and an output' "$PCWT" decode out.pcwt
expect_error 2 'too many arguments' "$PCWT" encode --width 8 --height 4 --bits 8 in.raw a b
expect_error 2 "unknown option '--widht'" "$PCWT" encode --widht 8 --height 4 --bits 8 in.raw o
expect_error 2 "unknown option '-w'" "$PCWT" encode -w 8 --height 4 --bits 8 in.raw o
expect_error 2 '--bits needs a value' "$PCWT" encode in.raw o --width 8 --height 4 --bits
expect_error 2 '--width needs a value' "$PCWT" encode --width= --height 4 --bits 8 in.raw o
expect_error 2 '--width' "$PCWT" encode --width 8x --height 4 --bits 8 in.raw o
expect_error 2 '--width' "$PCWT" encode --width 0 --height 4 --bits 8 in.raw o
expect_error 2 '--height' "$PCWT" encode --width 8 --height -4 --bits 8 in.raw o
expect_error 2 '--width' "$PCWT" encode --width 99999999999 --height 4 --bits 8 in.raw o
expect_error 2 '8 or 16' "$PCWT" encode --width 8 --height 4 --bits 12 in.raw o
expect_error 2 '--bits-stored' "$PCWT" encode --width 8 --height 4 --bits 8 --bits-stored 9 in.raw o
expect_error 2 '--components' "$PCWT" encode --width 8 --height 4 --bits 8 --components 2 in.raw o
expect_error 2 '--levels' "$PCWT" encode --width 8 --height 4 --bits 8 --levels 11 in.raw o
expect_error 2 '--group' "$PCWT" encode --width 8 --height 4 --bits 8 --group 4x in.raw o
expect_error 2 '--group' "$PCWT" encode --width 8 --height 4 --bits 8 --group 0x8 in.raw o
expect_error 2 '--group' "$PCWT" encode --width 8 --height 4 --bits 8 --group 4x257 in.raw o
expect_error 2 '--signed takes no value' "$PCWT" encode --width 8 --height 4 --bits 8 --signed=1 in.raw o
expect_error 2 '--backend' "$PCWT" encode --width 8 --height 4 --bits 8 --backend tpu in.raw o
expect_error 2 '--profile' "$PCWT" encode --width 8 --height 4 --bits 8 --profile fast in.raw o
expect_error 2 '--colour-transform' "$PCWT" encode --width 8 --height 4 --bits 8 --colour-transform ict in.raw o
expect_error 2 'needs --width, --height and --bits' "$PCWT" encode --width 8 --height 4 in.raw o
expect_error 2 'needs --width, --height and --bits' "$PCWT" encode --width 8 in.raw o
expect_error 2 'needs --width, --height and --bits' "$PCWT" encode in.raw o
expect_error 2 "unknown option '--levels'" "$PCWT" decode --levels 3 in.raw o
expect_error 2 "unknown option '--verbose'" "$PCWT" info --verbose in.raw
no_file o
no_temps .

# "--" ends the options; "--name=value" works like "--name value".
cp in.raw ./-dash.raw
expect_rc 0 "$PCWT" encode --width=8 --height=4 --bits=8 --group=4x8 -- -dash.raw out.pcwt
expect_rc 0 "$PCWT" decode out.pcwt back.raw
same in.raw back.raw
# "-" is standard input for IN and standard output for OUT.
expect_rc 0 "$PCWT" encode --width 8 --height 4 --bits 8 - piped.pcwt <in.raw
expect_rc 0 "$PCWT" decode - piped.raw <piped.pcwt
same in.raw piped.raw
expect_rc 0 "$PCWT" decode piped.pcwt -
same in.raw out.txt
no_file ./-
echo ok
