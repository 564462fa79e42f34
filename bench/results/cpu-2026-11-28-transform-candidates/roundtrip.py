#!/usr/bin/python3
"""roundtrip.py set|corpus: encode each frame with the per-frame filter choice (env PCWTF, PCWTA,
PCWTA_LOWKEEP as given), decode with the logged choices, compare every byte with the raw frame."""
import csv, os, subprocess, sys, concurrent.futures as cf
pcwt = "/tmp/xf/src/b/cli/pcwt"
def rows(prefix, d):
    out = []
    with open(prefix + ".csv") as f:
        for r in csv.DictReader(f):
            if not r["raw_bytes"]: continue
            i = len(out); out.append((i, r, os.path.join(d, "%04d.raw" % i)))
    return out
def one(item):
    i, r, path = item
    base = "/tmp/xf/h/rt.%d" % i
    for s in (".pcwt", ".raw", ".ch"):
        if os.path.exists(base + s): os.unlink(base + s)
    a = [pcwt, "encode", "--width", r["width"], "--height", r["height"], "--bits", r["bits_allocated"],
         "--bits-stored", r["bits_stored"], "--components", r["components"], "--profile", "compact"]
    if r["signed"] == "true": a.append("--signed")
    if r["planar"] == "true": a.append("--planar")
    env = dict(os.environ, PCWTA_CHOICES=base + ".ch")
    p = subprocess.run(a + [path, base + ".pcwt"], capture_output=True, text=True, env=env)
    if p.returncode: return "FAIL-ENC %s %s" % (r["image"], p.stderr.strip())
    env2 = {k: v for k, v in os.environ.items() if not k.startswith("PCWT")}
    env2["PCWTFD_FILE"] = base + ".ch"
    p = subprocess.run([pcwt, "decode", base + ".pcwt", base + ".raw"], capture_output=True, text=True, env=env2)
    if p.returncode: return "FAIL-DEC %s %s" % (r["image"], p.stderr.strip())
    same = open(base + ".raw", "rb").read() == open(path, "rb").read()
    ch = open(base + ".ch").read().split()
    n = os.path.getsize(base + ".pcwt")
    for s in (".pcwt", ".raw", ".ch"): os.unlink(base + s)
    return "%s %s#%s %d %s %s" % ("OK" if same else "DIFF", r["image"], r["frame"], n, int(r["raw_bytes"]) / n, "/".join(ch))
items = rows("/tmp/xf/set16", "/tmp/xf/set") if sys.argv[1] == "set" else rows("/tmp/xf/corp", "/tmp/xf/corpus")
with cf.ThreadPoolExecutor(2) as ex:
    for line in ex.map(one, items): print(line)
