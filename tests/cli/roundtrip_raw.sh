#!/bin/sh
# roundtrip_raw.sh PCWT GEN WORK W H C BITS STORED SIGNED garbage|clean [encode options...]
# Generate a raw frame, encode it, decode it, and require the output to be bit-exact; check that
# pcwt info reports the description (and the --levels/--group/--planar given).
set -eu
. "$(dirname "$0")/lib.sh"
setup "$1" "$2" "$3"
shift 3
W=$1 H=$2 C=$3 B=$4 S=$5 SIGNED=$6 GARBAGE=$7
shift 7

"$GEN" raw in.raw "$W" "$H" "$C" "$B" "$S" "$SIGNED" 7 "$GARBAGE"
signed_opt=
[ "$SIGNED" = 1 ] && signed_opt=--signed
# shellcheck disable=SC2086
expect_rc 0 "$PCWT" encode --width "$W" --height "$H" --components "$C" --bits "$B" \
    --bits-stored "$S" $signed_opt "$@" in.raw out.pcwt
[ -s out.pcwt ] || fail "no codestream written"
expect_rc 0 "$PCWT" decode out.pcwt back.raw
same in.raw back.raw

expect_rc 0 "$PCWT" info out.pcwt
expect_field width "$W"
expect_field height "$H"
expect_field components "$C"
expect_field "bits allocated" "$B"
expect_field "bits stored" "$S"
if [ "$SIGNED" = 1 ]; then expect_field signed yes; else expect_field signed no; fi
layout="pixel-interleaved"
[ "$C" = 1 ] && layout="single component"
profile=compact colour=auto
while [ $# -gt 0 ]; do
    case $1 in
    --levels) expect_field levels "$2"; shift ;;
    --group) expect_field "group size" "$2 \\(rows x columns\\)"; shift ;;
    --profile) expect_field profile "$2 \\(.\\)"; profile=$2; shift ;;
    --colour-transform) colour=$2; shift ;;
    --lifting) expect_field "lifting order" "$2 first"; shift ;;
    --low-bits)
        if [ "$2" = on ]; then
            grep -q '^  plane 0: .*, low bits modelled$' out.txt || fail "info: plane 0 without modelled low bits: $(cat out.txt)"
        else
            ! grep -q 'low bits modelled' out.txt || fail "info: modelled low bits with --low-bits $2: $(cat out.txt)"
        fi
        shift ;;
    --value-map)
        if [ "$2" = on ]; then
            grep -q '^  plane 0: .*, value map\(,\|$\)' out.txt || fail "info: plane 0 without a value map: $(cat out.txt)"
        elif [ "$2" = off ]; then
            ! grep -q 'value map' out.txt || fail "info: a value map with --value-map off: $(cat out.txt)"
        fi
        shift ;;
    --offset)
        if [ "$2" = on ]; then
            grep -q '^  plane 0: .*, modular offset$' out.txt || fail "info: plane 0 without a modular offset: $(cat out.txt)"
        elif [ "$2" = off ]; then
            ! grep -q 'modular offset' out.txt || fail "info: a modular offset with --offset off: $(cat out.txt)"
        fi
        shift ;;
    --planar) [ "$C" = 3 ] && layout=planar ;;
    esac
    shift
done
expect_field layout "$layout"
# The colour transform (3 components only): rct, or auto with the entropy profile.
if [ "$C" = 1 ]; then
    ! grep -q '^colour transform' out.txt || fail "info: a colour transform line for one component: $(cat out.txt)"
elif [ "$colour" = rct ] || { [ "$colour" = auto ] && [ "$profile" != baseline ]; }; then
    expect_field "colour transform" "reversible \\(RCT\\)"
else
    expect_field "colour transform" none
fi
no_temps .
echo "ok: ${W}x${H}x${C}, $B/$S bits, signed=$SIGNED, $GARBAGE"
