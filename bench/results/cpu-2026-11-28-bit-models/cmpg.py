#!/usr/bin/python3
"""cmpg.py BASE NAME...: like cmp.py against another base run."""
import sys
def load(n, w):
    d = {}; agg = None
    for l in open("/tmp/mdl/r/%s.%s" % (n, w)):
        f = l.rstrip("\n").split("\t")
        if f[0] == "AGG": agg = float(f[3]); continue
        d[(f[0], f[1])] = int(f[3])
    return d, agg
for n in sys.argv[2:]:
    out = [n]
    for w in ("set", "corp"):
        try: d, agg = load(n, w)
        except FileNotFoundError: continue
        bd, bagg = load(sys.argv[1], w)
        worst = min(d, key=lambda k: bd[k] / d[k])
        out.append("%s %.4f %+.2f%% worst %s %+.2f%%" % (w, agg, 100 * (agg / bagg - 1), worst[0][:12], 100 * (bd[worst] / d[worst] - 1)))
    print(" | ".join(out))
