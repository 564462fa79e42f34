#!/usr/bin/python3
"""Encode each saved frame with --level1-filter F, decode, compare bytes; totals."""
import csv, os, subprocess, sys, concurrent.futures as cf
pcwt = "/work/main/build-x5/cli/pcwt"
which, filt = sys.argv[1], sys.argv[2]
prefix, d = ("/tmp/xf/set16", "/tmp/xf/set") if which == "set" else ("/tmp/xf/corp", "/tmp/xf/corpus")
items = []
with open(prefix + ".csv") as f:
    for r in csv.DictReader(f):
        if not r["raw_bytes"]: continue
        items.append((len(items), r, os.path.join(d, "%04d.raw" % len(items))))
def one(it):
    i, r, path = it
    o = "/tmp/x5/o.%s.%s.%d" % (which, filt, i); back = o + ".raw"
    a = ["encode", "--width", r["width"], "--height", r["height"], "--bits", r["bits_allocated"],
         "--bits-stored", r["bits_stored"], "--components", r["components"], "--profile", "compact",
         "--level1-filter", filt] + os.environ.get("EXTRA", "").split()
    if r["signed"] == "true": a.append("--signed")
    if r["planar"] == "true": a.append("--planar")
    p = subprocess.run([pcwt] + a + [path, o], capture_output=True, text=True)
    if p.returncode: return i, -1, p.stderr, 0
    n = os.path.getsize(o)
    info = subprocess.run([pcwt, "info", o], capture_output=True, text=True).stdout
    k = info.count("5/11-C")
    p = subprocess.run([pcwt, "decode", o, back], capture_output=True, text=True)
    ok = p.returncode == 0 and open(back, "rb").read() == open(path, "rb").read()
    os.unlink(o)
    if os.path.exists(back): os.unlink(back)
    return i, n if ok else -2, p.stderr, k
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(one, items))
raw = sum(int(r["raw_bytes"]) for _, r, _ in items); tot = 0; bad = 0; planes = 0
for (i, r, _), (_, n, e, k) in zip(items, res):
    planes += k
    if n < 0: bad += 1; print("FAIL", n, r["image"], r["frame"], e.strip()); continue
    tot += n
print("%s %s frames %d bad %d planes511 %d total %d agg %.4f" % (which, filt, len(items), bad, planes, tot, raw / tot))
