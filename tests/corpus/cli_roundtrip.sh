#!/usr/bin/env bash
# Round trip of every corpus frame through the pcwt command-line tool: encode the raw frame, decode
# it, and compare the files byte for byte (every stored word, bits above BitsStored included).
#   cli_roundtrip.sh PCWT_BINARY MANIFEST WORKDIR      exit 77 (skip) when the manifest is absent
set -uo pipefail
pcwt=$1 man=$2 work=$3
if [[ ! -f $man ]] || head -1 "$man" | grep -q "status=skipped"; then
  echo "cli_roundtrip: no corpus manifest at $man (shared/testdata absent?), skipped"
  exit 77
fi
mkdir -p "$work"
n=0 fail=0
while IFS=$'\t' read -r raw source w h comps alloc stored sgn planar frame rest; do
  [[ $raw == \#* ]] && continue
  args=(--width "$w" --height "$h" --bits "$alloc" --bits-stored "$stored" --components "$comps" --backend cpu)
  [[ $sgn == 1 ]] && args+=(--signed)
  [[ $planar == 1 ]] && args+=(--planar)
  in="$(dirname "$man")/$raw"
  if ! "$pcwt" encode "${args[@]}" "$in" "$work/f.pcwt" || ! "$pcwt" decode "$work/f.pcwt" "$work/f.raw" ||
     ! cmp -s "$in" "$work/f.raw"; then
    echo "cli_roundtrip: FAILED $source frame $frame"
    fail=$((fail + 1))
  fi
  n=$((n + 1))
done < "$man"
rm -f "$work/f.pcwt" "$work/f.raw"
echo "cli_roundtrip: $((n - fail)) of $n frames bit-exact through the pcwt CLI"
[[ $n -gt 0 && $fail -eq 0 ]]
