#!/bin/sh
# limits.sh PCWT GEN WORK SCENARIO: the decoders' memory budget and the header-first reads.
#   bomb        a valid 16 KB codestream of a 32768x32768 image, decoded under ulimit -v 2 GB:
#               refused from its header with one line, not killed, no output left
#   max_memory  --max-memory refuses a small image's decode below its need and allows it above
#   zeros       input that is no codestream (a 1 GB sparse file, /dev/zero) is refused from its
#               first bytes, within an address-space limit far below its size
#   stdin_tail  a codestream followed by endless bytes on standard input: only the declared
#               length is read
. "$(dirname "$0")/lib.sh"
setup "$1" "$2" "$3"
shift 3
set -e

# limit_as KB: an address-space limit for the calling subshell, except under AddressSanitizer
# (PCWT_TEST_ASAN), which cannot start under one; there the budget comes from --max-memory alone.
limit_as() {
    [ -n "${PCWT_TEST_ASAN:-}" ] || ulimit -v "$1"
}
if [ -n "${PCWT_TEST_ASAN:-}" ]; then
    echo "limits.sh: AddressSanitizer build: no ulimit -v, explicit --max-memory 1G for the bomb"
    BOMB_BUDGET="--max-memory 1G"
else
    BOMB_BUDGET=
fi

case "$1" in
bomb)
    "$GEN" bomb bomb.pcwt 32768 32768 6
    expect_rc 0 "$PCWT" info bomb.pcwt
    expect_field width 32768
    # a subshell: the limit stays with the decodes (2 GB, far below the ~15 GB they would need)
    # shellcheck disable=SC2086 # BOMB_BUDGET is empty or two words
    ( limit_as 2000000
      expect_error 1 "needs [0-9]+ MiB, limit [0-9]+ MiB" "$PCWT" decode $BOMB_BUDGET bomb.pcwt out.raw
      expect_error 1 "needs [0-9]+ MiB, limit [0-9]+ MiB" "$PCWT" decode $BOMB_BUDGET - out.raw <bomb.pcwt
      expect_error 1 "needs [0-9]+ MiB, limit [0-9]+ MiB" "$PCWT" decode $BOMB_BUDGET bomb.pcwt out.pgm ) ||
        exit 1
    no_file out.raw
    no_file out.pgm
    no_temps
    ;;
max_memory)
    "$GEN" bomb small.pcwt 512 512 4
    expect_error 1 "needs [0-9]+ MiB, limit 1 MiB" "$PCWT" decode --max-memory 1M small.pcwt out.raw
    no_file out.raw
    no_temps
    expect_rc 0 "$PCWT" decode --max-memory 64M small.pcwt out.raw
    [ "$(wc -c <out.raw)" -eq 262144 ] || fail "decoded size $(wc -c <out.raw), 262144 expected"
    [ "$(tr -d '\000' <out.raw | wc -c)" -eq 0 ] || fail "the all-zero image decoded to non-zero bytes"
    expect_rc 0 "$PCWT" decode --max-memory=1g small.pcwt out2.raw
    same out.raw out2.raw
    expect_error 2 "max-memory" "$PCWT" decode --max-memory 12Q small.pcwt out3.raw
    expect_error 2 "max-memory" "$PCWT" decode --max-memory 0 small.pcwt out3.raw
    no_file out3.raw
    ;;
zeros)
    truncate -s 1G zeros.bin
    ( limit_as 300000
      expect_error 1 "not a PCWT codestream" "$PCWT" info zeros.bin
      expect_error 1 "not a PCWT codestream" "$PCWT" decode zeros.bin out.raw
      expect_error 1 "not a PCWT codestream" timeout 20 "$PCWT" decode - out.raw </dev/zero
      expect_error 1 "not a PCWT codestream" timeout 20 "$PCWT" info - </dev/zero ) || exit 1
    no_file out.raw
    no_temps
    ;;
stdin_tail)
    "$GEN" bomb small.pcwt 300 200 3
    set +e
    cat small.pcwt /dev/zero 2>/dev/null | ( limit_as 300000; timeout 20 "$PCWT" decode - out.raw ) \
        2>err.txt
    RC=$?
    set -e
    [ "$RC" = 0 ] || fail "decode of a codestream with a tail on stdin: exit $RC: $(cat err.txt)"
    [ "$(wc -c <out.raw)" -eq 60000 ] || fail "decoded size $(wc -c <out.raw), 60000 expected"
    ;;
*)
    fail "unknown scenario '$1'"
    ;;
esac
echo "ok: limits $1"
