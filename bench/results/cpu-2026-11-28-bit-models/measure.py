#!/usr/bin/python3
"""Encode every saved frame with a pcwt binary; print per-frame bytes and the aggregate."""
import csv, os, subprocess, sys, concurrent.futures as cf
pcwt = os.environ.get("PCWT", "/tmp/mdl/src/b/cli/pcwt")
extra = os.environ.get("PCWT_ARGS", "").split()
def rows(prefix, d):
    out = []
    with open(prefix + ".csv") as f:
        for r in csv.DictReader(f):
            if not r["raw_bytes"]: continue
            i = len(out); out.append((i, r, os.path.join(d, "%04d.raw" % i)))
    return out
def enc(item):
    i, r, path = item
    o = "/tmp/mdl/h/out.%d.%d" % (os.getpid(), i)
    a = [pcwt, "encode", "--width", r["width"], "--height", r["height"], "--bits", r["bits_allocated"],
         "--bits-stored", r["bits_stored"], "--components", r["components"], "--profile", "compact"] + extra
    if r["signed"] == "true": a.append("--signed")
    if r["planar"] == "true": a.append("--planar")
    p = subprocess.run(["nice", "-n", "10"] + a + [path, o], capture_output=True, text=True)
    if p.returncode: return i, -1, p.stderr.strip()
    n = os.path.getsize(o); os.unlink(o); return i, n, ""
which = sys.argv[1]
items = rows("/tmp/mdl/set16", "/tmp/mdl/set") if which == "set" else rows("/tmp/mdl/corp", "/tmp/mdl/corpus")
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(enc, items))
raw = sum(int(r["raw_bytes"]) for _, r, _ in items); tot = 0
for (i, r, _), (_, n, e) in zip(items, res):
    if n < 0: print("FAIL", r["image"], e); continue
    tot += n
    print("%s\t%s\t%s\t%d\t%.4f\tbench %s\t%s" % (r["image"], r["frame"], r["modality"], n, int(r["raw_bytes"]) / n, r["coded_bytes"], r["raw_bytes"]))
print("AGG\t%d\t%d\t%.4f" % (raw, tot, raw / tot))
