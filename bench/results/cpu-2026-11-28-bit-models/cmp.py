#!/usr/bin/python3
"""cmp.py NAME... : each candidate against base: aggregate, worst image/frame, CT1/XA1/MR1, modalities."""
import sys, collections
def load(n, w):
    d = {}; agg = None
    for l in open("/tmp/mdl/r/%s.%s" % (n, w)):
        f = l.rstrip("\n").split("\t")
        if f[0] == "AGG": agg = float(f[3]); continue
        d[(f[0], f[1])] = (f[2], int(f[3]), int(f[6]))
    return d, agg
B = {w: load("base", w) for w in ("set", "corp")}
def mod(d):
    m = collections.defaultdict(lambda: [0, 0])
    for k, (md, n, raw) in d.items(): m[md][0] += raw; m[md][1] += n
    return {k: v[0] / v[1] for k, v in m.items()}
bm = mod(B["corp"][0])
for n in sys.argv[1:]:
    out = [n]
    for w in ("set", "corp"):
        try: d, agg = load(n, w)
        except FileNotFoundError: continue
        bd, bagg = B[w]
        worst = min(d, key=lambda k: bd[k][1] / d[k][1])
        out.append("%s %.4f %+.2f%% worst %s#%s %+.2f%%" % (w, agg, 100 * (agg / bagg - 1), worst[0][:14], worst[1], 100 * (bd[worst][1] / d[worst][1] - 1)))
        if w == "set":
            out.append(" ".join("%s %.3f" % (i[:3], d[(i, "1")][2] / d[(i, "1")][1]) for i in ("CT1_UNC.dcm", "XA1_UNC.dcm", "MR1_UNC.dcm")))
        else:
            m = mod(d); out.append(" ".join("%s %+.2f" % (k, 100 * (m[k] / bm[k] - 1)) for k in ("CT", "MR", "XA", "US")))
    print(" | ".join(out))
