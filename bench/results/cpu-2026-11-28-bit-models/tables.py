#!/usr/bin/python3
import collections, sys
def load(n, w):
    d = {}
    for l in open("/tmp/mdl/r/%s.%s" % (n, w)):
        f = l.rstrip("\n").split("\t")
        if f[0] != "AGG": d[(f[0], f[1])] = (f[2], int(f[3]), int(f[6]))
    return d
names = sys.argv[1:]
S = [load(n, "set") for n in names]
print("| image | " + " | ".join(names) + " |"); print("|---|" + "---:|" * len(names))
for k in S[0]:
    b = S[0][k][1]
    print("| %s | " % k[0].replace(".dcm", "") + " | ".join("%.3f" % (d[k][2] / d[k][1]) + ("" if i == 0 else " (%+.2f%%)" % (100 * (b / d[k][1] - 1))) for i, d in enumerate(S)) + " |")
print("| **aggregate** | " + " | ".join("**%.4f**" % (sum(v[2] for v in d.values()) / sum(v[1] for v in d.values())) for d in S) + " |")
print()
C = [load(n, "corp") for n in names]
mods = sorted(set(v[0] for v in C[0].values()))
print("| modality | frames | " + " | ".join(names) + " |"); print("|---|---:|" + "---:|" * len(names))
for m in mods + ["all"]:
    row = []
    for d in C:
        raw = sum(v[2] for v in d.values() if m in ("all", v[0])); n = sum(v[1] for v in d.values() if m in ("all", v[0]))
        row.append("%.3f" % (raw / n))
    print("| %s | %d | " % (m, sum(1 for v in C[0].values() if m in ("all", v[0]))) + " | ".join(row) + " |")
