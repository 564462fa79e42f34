#!/usr/bin/python3
"""remap.py INDEX: a corpus frame's values permuted before coding (what a value map in another
order than the sorted one would code): the most frequent value moved next to the minimum, or all
values ordered by frequency; the coded sizes against the frame as it is."""
import os, sys, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
rows, d, _ = frames.collection("corpus")
i = int(sys.argv[1]); r = rows[i]
signed = r["signed"] == "true"
b16 = r["bits_allocated"] == "16"
dt = np.dtype(("<i2" if b16 else "i1") if signed else ("<u2" if b16 else "u1"))
a = np.fromfile("%s/%04d.raw" % (d, i), dtype=dt).astype(np.int64)
v, c = np.unique(a, return_counts=True); lo = v.min(); top = v[np.argmax(c)]
def permuted(order):
    pos = np.empty(len(v), dtype=np.int64); pos[np.searchsorted(v, order)] = np.arange(len(v))
    return pos[np.searchsorted(v, a)] + lo
fits = lambda m: m.max() <= np.iinfo(dt).max
m1 = permuted(np.concatenate([[top], v[v != top]])); m2 = permuted(v[np.argsort(-c, kind="stable")])
enc = lambda x, t: frames.encode_samples(r, x, dt, "rm" + t)
print("%s: distinct %d, most frequent %d (%.1f%%), min %d max %d; sorted %d bytes, top value moved to the bottom %s, by frequency %s" % (
    r["image"], len(v), top, 100 * c.max() / a.size, v.min(), v.max(), enc(a, "0"),
    enc(m1, "1") if fits(m1) else "-", enc(m2, "2") if fits(m2) else "-"))
