#!/usr/bin/python3
"""tilecmp.py SETINDEX T: one frame of the set cut into TxT tiles, each coded by pcwt-bench
(PCWT compact and CharLS) as a raw file; where PCWT loses or wins against JPEG-LS."""
import csv, os, subprocess, sys, shutil, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
rows, d, _ = frames.collection("set"); i, T = int(sys.argv[1]), int(sys.argv[2]); r = rows[i]
a, dt, _ = frames.stored_bits(r, d, i); a = a.astype(dt).reshape(int(r["height"]), int(r["width"]))
out = "%s/h/tc%d" % (frames.ROOT, i); shutil.rmtree(out, ignore_errors=True); os.makedirs(out)
for y in range(0, a.shape[0], T):
    for x in range(0, a.shape[1], T):
        np.ascontiguousarray(a[y:y + T, x:x + T]).tofile("%s/t%04d_%04d.raw" % (out, y, x))
geo = "%dx%dx%s%s" % (T, T, r["bits_stored"], "s" if r["signed"] == "true" else "")
subprocess.run(["nice", "-n", "10", "/work/main/build-x5/bench/pcwt_bench/pcwt-bench", "-q", "-n", "1", "-w", "0", "--no-parallel", "--gpu", "off",
                "--codecs", "pcwt-compact-cpu,charls", "--raw", geo, "-o", out + "/b", out], check=True, capture_output=True)
s = {}
for x in csv.DictReader(open(out + "/b.csv")): s.setdefault(os.path.basename(x["image"]), {})[x["codec"]] = int(x["coded_bytes"])
P = sum(v["pcwt-compact-cpu"] for v in s.values()); C = sum(v["charls"] for v in s.values())
print("%s T=%d: tiles PCWT %d, CharLS %d (%+.1f%%)" % (r["image"], T, P, C, 100 * (C / P - 1)))
grid = {}
for k, v in s.items():
    y, x = int(k[1:5]), int(k[6:10]); grid[(y, x)] = 100 * (v["charls"] / v["pcwt-compact-cpu"] - 1)
ys = sorted({y for y, _ in grid}); xs = sorted({x for _, x in grid})
for y in ys: print(" ".join("%+6.1f" % grid[(y, x)] for x in xs))
