#!/bin/bash
# stats.sh INDEX W H BITS_STORED s|u : where the bits go, by band class and part
i=$1; sg=""; [ "$5" = s ] && sg=--signed
PCWTSTATS=1 nice -n 10 ./src/b/cli/pcwt encode --width $2 --height $3 --bits 16 --bits-stored $4 $sg --profile compact ${PCWT_ARGS} set/$(printf %04d $i).raw /tmp/mdl/h/st.$i 2> /tmp/mdl/h/st.$i.txt
sz=$(stat -c %s /tmp/mdl/h/st.$i); rm -f /tmp/mdl/h/st.$i
/usr/bin/python3 - $sz $2 $3 /tmp/mdl/h/st.$i.txt <<'PY'
import sys
sz, W, H = map(int, sys.argv[1:4]); N = W * H; src = open(sys.argv[4])
rows = [list(map(float, l.split()[2:])) for l in src if l.startswith("XSTATS")]
parts = ["ZERO", "MQD", "MAG", "MANT", "SIGN", "vmap", "raw", "rawmode"]
tot = sz * 8
print("file %.4f bpp; shares of the file:" % (tot / N))
print("%-10s" % "band" + "".join("%8s" % p for p in parts) + "   total")
for b, r in enumerate(rows):
    print("%-10s" % ["LL", "level 1", "level 2", "levels 3+"][b] + "".join("%7.1f%%" % (100 * x / tot) for x in r) + "  %6.1f%%" % (100 * sum(r) / tot))
cols = [sum(r[c] for r in rows) for c in range(8)]
print("%-10s" % "all" + "".join("%7.1f%%" % (100 * x / tot) for x in cols) + "  %6.1f%%" % (100 * sum(cols) / tot))
PY
