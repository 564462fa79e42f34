#!/bin/sh
# errors.sh PCWT GEN WORK SCENARIO: one failure scenario of the pcwt tool. Each must exit with
# the documented code, print one line "pcwt: ..." on stderr, and leave neither the output file
# nor a temporary file behind.
set -eu
. "$(dirname "$0")/lib.sh"
setup "$1" "$2" "$3"
SCENARIO=$4

# A 16-bit codestream big enough that its middle byte lies in a payload.
make_codestream() {
    "$GEN" raw in.raw 64 48 1 16 16 0 9 clean
    expect_rc 0 "$PCWT" encode --width 64 --height 48 --bits 16 in.raw good.pcwt
}

# header_length of good.pcwt, from pcwt info.
header_length() {
    expect_rc 0 "$PCWT" info good.pcwt
    sed -n 's/^header length: *\([0-9][0-9]*\) bytes$/\1/p' out.txt
}

case $SCENARIO in
raw_size)
    "$GEN" raw in.raw 10 10 1 8 8 0 1 clean
    expect_error 1 "100 bytes, but 10x11" "$PCWT" encode --width 10 --height 11 --bits 8 in.raw out.pcwt
    expect_error 1 "needs 81 bytes" "$PCWT" encode --width 9 --height 9 --bits 8 in.raw out.pcwt
    expect_error 1 "needs 200 bytes" "$PCWT" encode --width 10 --height 10 --bits 16 in.raw out.pcwt
    expect_error 1 "needs 300 bytes" "$PCWT" encode --width 10 --height 10 --bits 8 --components 3 in.raw out.pcwt
    : >empty.raw
    expect_error 1 "0 bytes" "$PCWT" encode --width 1 --height 1 --bits 8 empty.raw out.pcwt
    no_file out.pcwt
    ;;
missing_input)
    expect_error 1 "cannot open 'nothere.raw'" "$PCWT" encode --width 4 --height 4 --bits 8 nothere.raw out.pcwt
    expect_error 1 "cannot open 'nothere.pcwt'" "$PCWT" decode nothere.pcwt out.raw
    expect_error 1 "cannot open 'nothere.pcwt'" "$PCWT" info nothere.pcwt
    mkdir adir
    expect_error 1 "is a directory" "$PCWT" decode adir out.raw
    no_file out.pcwt
    no_file out.raw
    ;;
corrupt)
    make_codestream
    cp good.pcwt bad.pcwt
    "$GEN" flip bad.pcwt mid
    expect_error 1 "bad.pcwt" "$PCWT" decode bad.pcwt out.raw
    no_file out.raw
    expect_error 1 "bad.pcwt" "$PCWT" decode bad.pcwt out.pgm
    no_file out.pgm
    # info reads only the header, so a damaged payload goes unnoticed there (and it says so).
    expect_rc 0 "$PCWT" info bad.pcwt
    grep -q 'not checked' out.txt || fail "info does not say that payload CRCs are not checked"
    # The last byte too.
    cp good.pcwt bad_end.pcwt
    size=$(wc -c <good.pcwt | tr -d ' ')
    "$GEN" flip bad_end.pcwt $((size - 1))
    expect_error 1 "bad_end.pcwt" "$PCWT" decode bad_end.pcwt out.raw
    no_file out.raw
    ;;
corrupt_header)
    make_codestream
    hl=$(header_length)
    [ -n "$hl" ] || fail "no header length in: $(cat out.txt)"
    for at in 5 $((hl / 2)) $((hl - 1)); do
        cp good.pcwt bad.pcwt
        "$GEN" flip bad.pcwt "$at"
        expect_error 1 "bad.pcwt" "$PCWT" decode bad.pcwt out.raw
        no_file out.raw
        expect_error 1 "bad.pcwt" "$PCWT" info bad.pcwt
    done
    ;;
truncated)
    make_codestream
    hl=$(header_length)
    size=$(wc -c <good.pcwt | tr -d ' ')
    for keep in half $((size - 1)) $((hl + 1)) "$hl" $((hl - 1)) 3 0; do
        "$GEN" truncate good.pcwt cut.pcwt "$keep"
        expect_error 1 "cut.pcwt" "$PCWT" decode cut.pcwt out.raw
        no_file out.raw
    done
    "$GEN" truncate good.pcwt cut.pcwt half
    expect_error 1 "truncated" "$PCWT" info cut.pcwt
    grep -Eq '^file size: +[0-9]+ bytes \(truncated' out.txt || fail "info does not flag the truncation"
    ;;
not_pcwt)
    "$GEN" pnm img.pgm 16 16 1 255 1
    expect_error 1 "not a PCWT codestream" "$PCWT" decode img.pgm out.raw
    expect_error 1 "not a PCWT codestream" "$PCWT" info img.pgm
    printf 'hello, this is plainly some text and no codestream at all\n' >text.pcwt
    expect_error 1 "not a PCWT codestream" "$PCWT" decode text.pcwt out.raw
    : >empty.pcwt
    expect_error 1 "PCWT" "$PCWT" decode empty.pcwt out.raw
    expect_error 1 "PCWT" "$PCWT" info empty.pcwt
    no_file out.raw
    ;;
keep_existing)
    # A failed run leaves an existing output untouched.
    make_codestream
    cp good.pcwt bad.pcwt
    "$GEN" flip bad.pcwt mid
    echo sentinel >out.raw
    expect_rc 1 "$PCWT" decode bad.pcwt out.raw
    [ "$(cat out.raw)" = sentinel ] || fail "failed decode changed the existing output"
    echo sentinel >out.pcwt
    expect_rc 1 "$PCWT" encode --width 64 --height 47 --bits 16 in.raw out.pcwt
    [ "$(cat out.pcwt)" = sentinel ] || fail "failed encode changed the existing output"
    # ... and a successful one replaces it, keeping the usual file mode.
    expect_rc 0 "$PCWT" decode good.pcwt out.raw
    same in.raw out.raw
    umask 022
    expect_rc 0 "$PCWT" decode good.pcwt fresh.raw
    ls -l fresh.raw | grep -q '^-rw-r--r--' || fail "output mode is $(ls -l fresh.raw)"
    ;;
bad_output)
    make_codestream
    mkdir outdir
    expect_error 1 "outdir" "$PCWT" decode good.pcwt outdir
    [ -d outdir ] || fail "output folder replaced"
    expect_error 1 "missing/out.raw" "$PCWT" decode good.pcwt missing/out.raw
    expect_error 1 "missing/out.pcwt" "$PCWT" encode --width 64 --height 48 --bits 16 in.raw missing/out.pcwt
    no_file missing
    ;;
write_fails)
    # The output cannot be written in full (file size limit): no partial output, no temporary.
    make_codestream
    expect_error 1 "cannot write 'out.raw'" sh -c \
        'trap "" XFSZ; ulimit -f 4 && exec "$0" decode good.pcwt out.raw' "$PCWT"
    no_file out.raw
    expect_error 1 "cannot write 'out.pgm'" sh -c \
        'trap "" XFSZ; ulimit -f 4 && exec "$0" decode good.pcwt out.pgm' "$PCWT"
    no_file out.pgm
    echo sentinel >out.raw
    expect_error 1 "cannot write 'out.raw'" sh -c \
        'trap "" XFSZ; ulimit -f 4 && exec "$0" decode good.pcwt out.raw' "$PCWT"
    [ "$(cat out.raw)" = sentinel ] || fail "failed write changed the existing output"
    expect_error 1 "cannot write 'big.pcwt'" sh -c \
        'trap "" XFSZ; ulimit -f 4 && exec "$0" encode --width 64 --height 48 --bits 16 in.raw big.pcwt' "$PCWT"
    no_file big.pcwt
    ;;
pnm_hostile)
    # Each of these must fail with one line, before allocating for the image it claims.
    i=0
    check() { # PATTERN (the file is h.pgm)
        i=$((i + 1))
        cp h.pgm "h$i.pgm"
        expect_error 1 "$1" "$PCWT" encode "h$i.pgm" "out$i.pcwt"
        no_file "out$i.pcwt"
    }
    printf 'P5\n2147483647 2147483647\n65535\n0123456789' >h.pgm && check 'truncated'
    printf 'P5\n100000 100000\n255\n0123456789' >h.pgm && check 'truncated'
    printf 'P5\n99999999999 2\n255\n0123456789' >h.pgm && check 'width is larger'
    printf 'P5\n10\n' >h.pgm && check 'ends'
    printf 'P5\n10 10' >h.pgm && check 'ends'
    printf 'P5' >h.pgm && check 'magic'
    printf 'P5\n' >h.pgm && check 'ends before its width'
    printf 'P5\n10 10\n0\n0123456789' >h.pgm && check 'maxval is 0'
    printf 'P5\n10 10\n70000\n0123456789' >h.pgm && check 'maxval is larger'
    printf 'P5\n-3 10\n255\n0123456789' >h.pgm && check 'no valid width'
    printf 'P5\n3x 10\n255\n0123456789' >h.pgm && check 'invalid character'
    printf 'P5\n4 4\n255\n012345678901234' >h.pgm && check 'truncated'
    printf 'P5\n4 4\n255\n01234567890123456' >h.pgm && check 'after the PNM image'
    printf 'P5\n2 2\n65535\n0123456' >h.pgm && check 'truncated'
    printf 'P7\n4 4\n255\n0123456789012345' >h.pgm && check 'magic'
    printf 'P2\n2 2\n255\n1 2 3 4\n' >h.pgm && check 'magic'
    printf 'P6\n4 4\n255\n0123456789012345' >h.pgm && check 'truncated'
    no_temps .
    # Header forms that are valid: comments, everything on one line.
    printf 'P5\n# a comment\n4 # another\n2\n255\n01234567' >c.pgm
    expect_rc 0 "$PCWT" encode c.pgm c.pcwt
    expect_rc 0 "$PCWT" decode c.pcwt c.raw
    [ "$(cat c.raw)" = 01234567 ] || fail "comment header decoded to '$(cat c.raw)'"
    printf 'P6 1 2 255 abcdef' >d.ppm
    expect_rc 0 "$PCWT" encode d.ppm d.pcwt
    expect_rc 0 "$PCWT" decode d.pcwt d.raw
    [ "$(cat d.raw)" = abcdef ] || fail "one-line header decoded to '$(cat d.raw)'"
    ;;
pnm_options)
    "$GEN" pnm in.pgm 12 5 1 255 1
    expect_error 2 "--width disagrees" "$PCWT" encode --width 13 in.pgm out.pcwt
    expect_error 2 "--bits disagrees" "$PCWT" encode --bits 16 in.pgm out.pcwt
    expect_error 2 "--components disagrees" "$PCWT" encode --components 3 in.pgm out.pcwt
    expect_error 2 "--signed does not apply" "$PCWT" encode --signed in.pgm out.pcwt
    expect_error 2 "--planar does not apply" "$PCWT" encode --planar in.pgm out.pcwt
    no_file out.pcwt
    expect_rc 0 "$PCWT" encode --width 12 --height 5 --bits 8 --bits-stored 7 in.pgm out.pcwt
    expect_rc 0 "$PCWT" info out.pcwt
    expect_field "bits stored" 7
    ;;
pnm_refused)
    # Decoding to PGM/PPM is refused for what they cannot hold; raw still works.
    "$GEN" raw s.raw 9 7 1 16 12 1 2 clean
    expect_rc 0 "$PCWT" encode --width 9 --height 7 --bits 16 --bits-stored 12 --signed s.raw s.pcwt
    expect_error 1 "signed" "$PCWT" decode s.pcwt out.pgm
    "$GEN" raw g.raw 9 7 1 16 12 0 2 garbage
    expect_rc 0 "$PCWT" encode --width 9 --height 7 --bits 16 --bits-stored 12 g.raw g.pcwt
    expect_error 1 "exceeds the PNM maxval 4095" "$PCWT" decode g.pcwt out.pgm
    "$GEN" raw c3.raw 9 7 3 8 8 0 2 clean
    expect_rc 0 "$PCWT" encode --width 9 --height 7 --bits 8 --components 3 c3.raw c3.pcwt
    expect_error 1 "3 component" "$PCWT" decode c3.pcwt out.pgm
    expect_error 1 "1 component" "$PCWT" decode g.pcwt out.ppm
    no_file out.pgm
    no_file out.ppm
    no_temps .
    expect_rc 0 "$PCWT" decode s.pcwt s_back.raw
    same s.raw s_back.raw
    expect_rc 0 "$PCWT" decode g.pcwt g_back.raw
    same g.raw g_back.raw
    ;;
*)
    fail "unknown scenario $SCENARIO"
    ;;
esac
no_temps .
echo "ok: $SCENARIO"
