#!/usr/bin/python3
"""fill.py SETINDEX|cINDEX: the frame's background (its most frequent value) replaced by a smooth extension of the content (repeated neighbour averaging), the filled
frame coded, plus the background mask coded as a 1-bit plane; against the frame as it is."""
import os, sys, numpy as np, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
arg = sys.argv[1]; which = "corpus" if arg.startswith("c") else "set"; i = int(arg.lstrip("c"))
rows, d, suffix = frames.collection(which); r = rows[i]; base = frames.base_sizes(suffix)[(r["image"], r["frame"])]
a, dt, u = frames.stored_bits(r, d, i); H, W = int(r["height"]), int(r["width"]); a = a.reshape(H, W)
v, c = np.unique(a, return_counts=True); bg = v[np.argmax(c)]
mask = a == bg          # the background value everywhere (the frames tried use it nowhere else)
f = np.where(mask, 0.0, a.astype(np.float64)); have = ~mask
while not have.all():     # grow the content into the background, a ring at a time (the mean of known 4-neighbours)
    p = np.pad(f, 1); h = np.pad(have, 1).astype(np.float64)
    ssum = p[:-2, 1:-1] * h[:-2, 1:-1] + p[2:, 1:-1] * h[2:, 1:-1] + p[1:-1, :-2] * h[1:-1, :-2] + p[1:-1, 2:] * h[1:-1, 2:]
    cnt = h[:-2, 1:-1] + h[2:, 1:-1] + h[1:-1, :-2] + h[1:-1, 2:]
    new = ~have & (cnt > 0)
    f[new] = ssum[new] / cnt[new]; have = have | new
for _ in range(30):      # smooth inside the background only
    p = np.pad(f, 1, mode="edge"); sm = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) / 4
    f[mask] = sm[mask]
fi = np.rint(f).astype(np.int64)
filled = frames.encode_samples(r, fi, dt, "fi%d" % i)
m8 = mask.astype(np.uint8)
rm = dict(r); rm["bits_allocated"] = "8"; rm["bits_stored"] = "1"; rm["signed"] = "false"
mcost = frames.encode_samples(rm, m8, np.uint8, "fm%d" % i)
print("%s: background %d (%.1f%% of the frame); today %d bytes; filled %d + mask %d = %d (%+.2f%%)" % (
    r["image"], bg, 100 * mask.mean(), base, filled, mcost, filled + mcost, 100 * (base / (filled + mcost) - 1)))
