#!/usr/bin/python3
"""cmp.py REF CAND [CAND...]: per-frame best of the candidates (one name = that candidate) against REF.
Prints set and corpus aggregates, % vs REF, worst image/frame; -v prints the set per image."""
import sys
args = [a for a in sys.argv[1:] if a != "-v"]; verbose = "-v" in sys.argv
ref, cands = args[0], args[1:]
def load(name, coll):
    rows = []
    for line in open("/tmp/xf/r/%s.%s" % (name, coll)):
        f = line.rstrip("\n").split("\t")
        if f[0] == "AGG": continue
        if f[0].startswith("FAIL"): raise SystemExit("FAIL in %s.%s" % (name, coll))
        rows.append((f[0] + "#" + f[1], int(f[3])))
    return rows
out = []
for coll in ("set", "corp"):
    r = load(ref, coll); cs = [load(c, coll) for c in cands]
    raw = {}
    for line in open("/tmp/xf/r/%s.%s" % (ref, coll)):
        f = line.rstrip("\n").split("\t")
        if f[0] != "AGG": raw[f[0] + "#" + f[1]] = int(f[3]) * float(f[4])
    rawt = sum(raw.values())
    best = [min(c[i][1] for c in cs) for i in range(len(r))]
    which = [min(range(len(cs)), key=lambda k: cs[k][i][1]) for i in range(len(r))]
    rt, bt = sum(x[1] for x in r), sum(best)
    worst = max(range(len(r)), key=lambda i: best[i] / r[i][1])
    bestf = min(range(len(r)), key=lambda i: best[i] / r[i][1])
    out.append("%s %.4f (%+.2f%%) worst %s %+.2f%% best %s %+.2f%%" % (coll, rawt / bt, 100 * (rt / bt - 1),
        r[worst][0], 100 * (r[worst][1] / best[worst] - 1), r[bestf][0], 100 * (r[bestf][1] / best[bestf] - 1)))
    if verbose and coll == "set":
        for i, (n, b) in enumerate(r):
            print("  %-22s %8d %8d %+.2f%% %.4f %s" % (n, b, best[i], 100 * (b / best[i] - 1), raw[n] / best[i], cands[which[i]]))
print(" | ".join(out))
