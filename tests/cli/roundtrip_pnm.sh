#!/bin/sh
# roundtrip_pnm.sh PCWT GEN WORK W H C MAXVAL
# PGM (C 1) or PPM (C 3) in, codestream, and back to PGM/PPM and to raw: both bit-exact. Also:
# the same samples given as raw encode to the same codestream, and a PNM named without extension
# is recognised by its magic; for PPM, a planar raw frame decodes to the same (interleaved) PPM.
# MAXVAL must be 2^k-1 (decode writes maxval 2^bits_stored-1).
set -eu
. "$(dirname "$0")/lib.sh"
setup "$1" "$2" "$3"
W=$4 H=$5 C=$6 MAXVAL=$7
ext=pgm
[ "$C" = 3 ] && ext=ppm
B=8
[ "$MAXVAL" -gt 255 ] && B=16
S=0 m=$MAXVAL
while [ "$m" -gt 0 ]; do S=$((S + 1)); m=$((m / 2)); done

"$GEN" pnm "in.$ext" "$W" "$H" "$C" "$MAXVAL" 5 in.raw in_planar.raw
expect_rc 0 "$PCWT" encode "in.$ext" out.pcwt
expect_rc 0 "$PCWT" info out.pcwt
expect_field width "$W"
expect_field height "$H"
expect_field components "$C"
expect_field "bits allocated" "$B"
expect_field "bits stored" "$S"

expect_rc 0 "$PCWT" decode out.pcwt "back.$ext"
same "in.$ext" "back.$ext"
expect_rc 0 "$PCWT" decode out.pcwt back.raw # raw is little-endian, PNM big-endian
same in.raw back.raw

# The same samples as raw give the same codestream.
expect_rc 0 "$PCWT" encode --width "$W" --height "$H" --components "$C" --bits "$B" \
    --bits-stored "$S" in.raw from_raw.pcwt
same out.pcwt from_raw.pcwt

# A PNM without its extension is recognised by the P5/P6 magic.
cp "in.$ext" in.img
expect_rc 0 "$PCWT" encode in.img from_magic.pcwt
same out.pcwt from_magic.pcwt
if [ "$C" = 3 ]; then
    expect_rc 0 "$PCWT" encode --width "$W" --height "$H" --components 3 --bits "$B" \
        --bits-stored "$S" --planar in_planar.raw planar.pcwt
    expect_rc 0 "$PCWT" info planar.pcwt
    expect_field layout planar
    expect_rc 0 "$PCWT" decode planar.pcwt "planar_back.$ext"
    same "in.$ext" "planar_back.$ext"
    expect_rc 0 "$PCWT" decode planar.pcwt planar_back.raw
    same in_planar.raw planar_back.raw
fi
no_temps .
echo "ok: $ext ${W}x${H} maxval $MAXVAL"
