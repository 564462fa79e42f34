#!/usr/bin/env bash
# The group decode's serial chain in range-coder bins, measured on the CPU (no GPU):
#   chain-bins.sh BUILD_DIR FILE.pcwt...      (BUILD_DIR: a Release build with cli/pcwt)
# Builds a copy of the CLI whose entropy-profile group decoder counts its bins (the CPU decoder of
# codec/src/group_coder_ec.c with ec_group_coder.h's row hook and a counting wrapper around the two
# bin decoders), decodes each file with it and runs chain_bins.py on the per-group counts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../../.." && pwd)
build=$(cd "${1:?usage: chain-bins.sh BUILD_DIR FILE.pcwt...}" && pwd)
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/count_hooks.h" <<'H'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "rangecoder.h"
static uint64_t g_bins, g_rows[512];
static int g_nrows;
static inline uint32_t cnt_rc_decode(pcwt_rc_dec *d, pcwt_bit_model *m) { g_bins++; return pcwt_rc_decode(d, m); }
static inline uint32_t cnt_rc_decode_flat(pcwt_rc_dec *d, pcwt_bit_model *m) { g_bins++; return pcwt_rc_decode_flat(d, m); }
#define pcwt_rc_decode cnt_rc_decode
#define pcwt_rc_decode_flat cnt_rc_decode_flat
#define PCWT_EC_ROW_END(b, x) (g_rows[g_nrows++] = g_bins)
H
python3 - "$tree/codec/src/group_coder_ec.c" "$work/gce_count.c" <<'P'
import sys
s = open(sys.argv[1]).read()
s = s.replace('#include "ec_group_coder.h"', '#include "count_hooks.h"\n#include "ec_group_coder.h"', 1)
a = "                const int ok = rec.entropy"
b = "                pos += pcwt_ec_record_bytes(&rec);"
assert a in s and b in s, "group_coder_ec.c changed: update chain-bins.sh"
s = s.replace(a, "                g_bins = 0;\n                g_nrows = 0;\n" + a, 1)
s = s.replace(b, """                fprintf(stderr, "G %u %u %u %u %u %u %d %u %llu :", b, band->level, gx, gy,
                        g.xe - g.gx, g.ye - g.gy, rec.entropy, (unsigned)pcwt_ec_record_bytes(&rec),
                        (unsigned long long)g_bins);
                for (int i = 0; i < g_nrows; i++)
                    fprintf(stderr, " %llu", (unsigned long long)g_rows[i]);
                fprintf(stderr, "\\n");
""" + b, 1)
open(sys.argv[2], 'w').write(s)
P
cc -O2 -std=c17 -I"$work" -I"$tree/codec/include" -I"$tree/codec/src" -c "$work/gce_count.c" -o "$work/gce_count.o"
# the CLI's objects, the counting group coder ahead of the library's
c++ -O2 -o "$work/pcwt_count" "$build"/cli/CMakeFiles/pcwt_cli.dir/*.o "$work/gce_count.o" \
    "$build/codec/libpcwt.a" -lz $(ls /usr/local/cuda/lib/libcudart_static.a 2>/dev/null) -ldl -lrt -lpthread
for f in "$@"; do
  "$work/pcwt_count" decode "$f" "$work/out.raw" 2> "$work/groups.txt" >/dev/null
  python3 "$here/chain_bins.py" "$work/groups.txt" | sed "s|^== .*|== $f|"
done
