#!/usr/bin/env bash
# check_exports.sh LIBRARY: the dynamic symbols a shared libpcwt defines are its API, pcwt_*,
# and nothing else: no internal function, no symbol of the static CUDA runtime or the C++ runtime
# linked into it. Allowed besides: the version node of codec/libpcwt.map (PCWT_0) and the ELF
# sections' markers _init and _fini.
set -euo pipefail
lib=$1
[[ -f $lib ]] || { echo "FAIL: no library $lib"; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
bad=$(grep -Ev '^(pcwt_[a-z0-9_]+|PCWT_0|_init|_fini)$' <<<"$syms" || true)
count=$(grep -c '^pcwt_' <<<"$syms" || true)
echo "$lib: $count pcwt_* symbols defined"
nm -D --defined-only "$lib" | awk '{ print "  " $0 }'
if [[ -n $bad ]]; then
  echo "FAIL: symbols other than pcwt_* exported:"
  sed 's/^/  /' <<<"$bad"
  exit 1
fi
# every function of pcwt.h is there
header=$(dirname "$0")/../../codec/include/pcwt.h
missing=$(grep -o 'pcwt_[a-z0-9_]*(' "$header" | tr -d '(' | sort -u | comm -23 - <(grep '^pcwt_' <<<"$syms") || true)
if [[ -n $missing ]]; then
  echo "FAIL: declared in pcwt.h, not exported:"
  sed 's/^/  /' <<<"$missing"
  exit 1
fi
echo "OK: only pcwt_* exported, every function of pcwt.h among them"
