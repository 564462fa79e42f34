#!/usr/bin/python3
"""tiles.py set|corpus T [extra args]: each one-component frame coded as TxT tiles (each its own
codestream, value maps etc. auto per tile); per frame the tiles' total against the whole frame's
size (from runs/base); frames of 3 components keep the whole frame's size."""
import csv, os, subprocess, sys, numpy as np, concurrent.futures as cf
which, T = sys.argv[1], int(sys.argv[2]); extra = sys.argv[3:]
pcwt = "/tmp/mdl/src/b/cli/pcwt"
prefix, d = ("/tmp/mdl/set16", "/tmp/mdl/set") if which == "set" else ("/tmp/mdl/corp", "/tmp/mdl/corpus")
rows = [r for r in csv.DictReader(open(prefix + ".csv")) if r["raw_bytes"]]
base = {}
for l in open("/tmp/mdl/r/base." + ("set" if which == "set" else "corp")):
    f = l.rstrip("\n").split("\t")
    if f[0] != "AGG": base[(f[0], f[1])] = int(f[3])
def enc_tile(args):
    arr, r, k = args
    h, w = arr.shape
    src = "/tmp/mdl/h/tile.%d.%d.raw" % (os.getpid(), k); out = src + ".pcwt"
    arr.tofile(src)
    a = [pcwt, "encode", "--width", str(w), "--height", str(h), "--bits", r["bits_allocated"], "--bits-stored", r["bits_stored"], "--profile", "compact"] + extra
    if r["signed"] == "true": a.append("--signed")
    p = subprocess.run(["nice", "-n", "10"] + a + [src, out], capture_output=True, text=True)
    n = os.path.getsize(out) if p.returncode == 0 else None
    for f in (src, out):
        if os.path.exists(f): os.unlink(f)
    if n is None: raise RuntimeError(p.stderr)
    return n
tot_raw = tot_whole = tot_tiled = tot_best = 0; k = 0
with cf.ThreadPoolExecutor(2) as ex:
    for i, r in enumerate(rows):
        key = (r["image"], r["frame"]); whole = base[key]; raw = int(r["raw_bytes"])
        if r["components"] != "1":
            tiled = whole
        else:
            dt = {"16": np.uint16, "8": np.uint8}[r["bits_allocated"]]
            if r["signed"] == "true": dt = {np.uint16: np.int16, np.uint8: np.int8}[dt]
            W, H = int(r["width"]), int(r["height"])
            a = np.fromfile("%s/%04d.raw" % (d, i), dtype=np.dtype(dt).newbyteorder("<")).reshape(H, W)
            jobs = []
            for y in range(0, H, T):
                for x in range(0, W, T):
                    jobs.append((np.ascontiguousarray(a[y:y + T, x:x + T]), r, k)); k += 1
            tiled = sum(ex.map(enc_tile, jobs))
        tot_raw += raw; tot_whole += whole; tot_tiled += tiled; tot_best += min(whole, tiled)
        if tiled < whole * 0.97 or tiled > whole * 1.10 or r["image"][:3] in ("CT1", "XA1", "MR1"):
            print("%-60s %s whole %8d tiled %8d (%+.1f%%)" % (r["image"][-60:], r["modality"], whole, tiled, 100 * (whole / tiled - 1)))
print("AGG %s T=%d whole %.4f tiled %.4f best-of-both per frame %.4f" % (which, T, tot_raw / tot_whole, tot_raw / tot_tiled, tot_raw / tot_best))
