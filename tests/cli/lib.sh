# lib.sh - shared by the pcwt command-line test scripts (POSIX sh). A script starts with
#   . "$(dirname "$0")/lib.sh"; setup "$1" "$2" "$3"; shift 3
# where $1 is the pcwt binary, $2 the pcwt_testgen helper and $3 a scratch folder (emptied).

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

setup() {
    PCWT=$1
    GEN=$2
    WORK=$3
    rm -rf "$WORK"
    mkdir -p "$WORK"
    cd "$WORK" || fail "cannot enter $WORK"
}

# run CMD...: run it with stdout in out.txt and stderr in err.txt; its exit status goes in RC.
run() {
    set +e
    "$@" >out.txt 2>err.txt
    RC=$?
    set -e
}

# expect_rc N CMD...: run CMD and fail unless it exits with N.
expect_rc() {
    want=$1
    shift
    run "$@"
    [ "$RC" = "$want" ] || fail "expected exit $want, got $RC from: $* -- stderr: $(cat err.txt)"
}

# expect_error N PATTERN CMD...: CMD exits with N and prints one line "pcwt: ..." on stderr that
# matches the extended regular expression PATTERN.
expect_error() {
    want=$1
    pattern=$2
    shift 2
    expect_rc "$want" "$@"
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected one line on stderr from: $* -- got: $(cat err.txt)"
    grep -q '^pcwt: ' err.txt || fail "stderr does not start with 'pcwt: ': $(cat err.txt)"
    grep -Eqi -- "$pattern" err.txt || fail "stderr does not match /$pattern/: $(cat err.txt)"
}

# expect_field NAME VALUE: out.txt (from pcwt info) has the line "NAME:   VALUE".
expect_field() {
    grep -Eq "^$1: +$2\$" out.txt || fail "info: expected '$1: $2' in: $(cat out.txt)"
}

# no_file PATH: PATH must not exist.
no_file() {
    [ ! -e "$1" ] || fail "$1 exists but should not"
}

# no_temps [DIR]: no temporary output file (*.tmp.*) left in DIR (default: here).
no_temps() {
    for f in "${1:-.}"/*.tmp.*; do
        [ ! -e "$f" ] || fail "temporary file left behind: $f"
    done
}

# same FILE1 FILE2: byte-identical.
same() {
    cmp "$1" "$2" >/dev/null || fail "$1 and $2 differ ($(cmp "$1" "$2" 2>&1))"
}
