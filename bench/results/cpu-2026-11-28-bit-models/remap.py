#!/usr/bin/python3
"""remap.py INDEX: a corpus frame's values permuted before coding (what a value map with another
order than the sorted one would code): the most frequent value moved next to the minimum, or all
values ordered by frequency; the coded sizes against the frame as it is."""
import csv, os, subprocess, sys, numpy as np
rows = [r for r in csv.DictReader(open("/tmp/mdl/corp.csv")) if r["raw_bytes"]]
i = int(sys.argv[1]); r = rows[i]
W, H = int(r["width"]), int(r["height"]); b16 = r["bits_allocated"] == "16"
dt = np.dtype("<i2" if r["signed"] == "true" else "<u2") if b16 else np.dtype("i1" if r["signed"] == "true" else "u1")
a = np.fromfile("/tmp/mdl/corpus/%04d.raw" % i, dtype=dt).reshape(H, W).astype(np.int64)
v, c = np.unique(a, return_counts=True)
def enc(x, signed):
    x.astype(dt).tofile("/tmp/mdl/h/rm.raw")
    args = ["/tmp/mdl/src/b/cli/pcwt", "encode", "--width", str(W), "--height", str(H), "--bits", r["bits_allocated"],
            "--bits-stored", r["bits_stored"], "--profile", "compact"] + (["--signed"] if signed else []) + ["/tmp/mdl/h/rm.raw", "/tmp/mdl/h/rm.out"]
    subprocess.run(args, check=True); return os.path.getsize("/tmp/mdl/h/rm.out")
signed = r["signed"] == "true"
base = enc(a, signed)
# the most frequent value moved to just below the minimum (ranks: it becomes rank 0)
top = v[np.argmax(c)]
rank = np.searchsorted(v, a)
lo = v.min()
order1 = np.concatenate([[top], v[v != top]])          # new order of the values
pos1 = {int(x): k for k, x in enumerate(order1)}
m1 = np.vectorize(pos1.get)(a) + lo                     # ranks placed at the old minimum
# all values by frequency
order2 = v[np.argsort(-c, kind="stable")]
pos2 = {int(x): k for k, x in enumerate(order2)}
m2 = np.vectorize(pos2.get)(a) + lo
ok = lambda m: m.max() <= np.iinfo(dt).max
print("%s: distinct %d, most frequent %d (%.1f%%), min %d max %d; sorted %d bytes, top value moved to the bottom %s, by frequency %s" % (
    r["image"], len(v), top, 100 * c.max() / a.size, v.min(), v.max(), base,
    enc(m1, signed) if ok(m1) else "-", enc(m2, signed) if ok(m2) else "-"))
