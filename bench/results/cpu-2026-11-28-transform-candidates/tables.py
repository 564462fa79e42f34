#!/usr/bin/python3
"""tables.py NAME=LABEL...: Markdown tables, the set by image and the corpus by modality, ratios."""
import sys
cands = [a.split("=", 1) for a in sys.argv[1:]]
jls = {"966_fixed_DX.dcm": 2.126, "CT1_UNC.dcm": 3.190, "CT2_UNC.dcm": 4.539, "MR1_UNC.dcm": 2.282, "MR2.JLS": 3.507,
       "MR3_UNC.dcm": 4.437, "MR4_UNC.dcm": 4.490, "NM1_UNC.dcm": 5.885, "RG2.JLS": 4.507, "RG3.JLS": 7.311,
       "XA1_UNC.dcm": 5.368, "crmodlut.dcm": 7.456, "dx16.dcm": 1.698, "ge10.dcm": 4.294, "gh133.dcm": 7.650, "kakadu.dcm": 2.787}
def load(name, coll):
    out = []
    for line in open("/tmp/xf/r/%s.%s" % (name, coll)):
        f = line.rstrip("\n").split("\t")
        if f[0] == "AGG": continue
        n = int(f[3]); out.append((f[0], f[2], n, round(n * float(f[4]))))
    return out
for coll in ("set", "corp"):
    data = [load(n, coll) for n, _ in cands]
    ref = data[0]
    if coll == "set":
        print("| image | JPEG-LS | " + " | ".join(l for _, l in cands) + " |")
        print("|---|---:|" + "---:|" * len(cands))
        for i, (img, mod, n, raw) in enumerate(ref):
            cells = []
            for k, d in enumerate(data):
                r = raw / d[i][2]
                cells.append("%.3f" % r if k == 0 else "%.3f (%+.2f%%)" % (r, 100 * (ref[i][2] / d[i][2] - 1)))
            print("| %s | %.3f | %s |" % (img, jls.get(img, 0), " | ".join(cells)))
        groups = [("**aggregate**", range(len(ref)))]
    else:
        print("| modality | frames | " + " | ".join(l for _, l in cands) + " |")
        print("|---|---:|" + "---:|" * len(cands))
        mods = sorted(set(x[1] for x in ref))
        groups = [(m, [i for i, x in enumerate(ref) if x[1] == m]) for m in mods] + [("**all**", range(len(ref)))]
    for g, idx in groups:
        idx = list(idx); raw = sum(ref[i][3] for i in idx); rb = sum(ref[i][2] for i in idx)
        cells = []
        for k, d in enumerate(data):
            b = sum(d[i][2] for i in idx)
            cells.append("%.4f" % (raw / b) if k == 0 else "%.4f (%+.2f%%)" % (raw / b, 100 * (rb / b - 1)))
        print("| %s |%s %s |" % (g, "" if coll == "set" else " %d |" % len(idx), " | ".join(cells)) if coll != "set" else "| %s | | %s |" % (g, " | ".join(cells)))
    print()
