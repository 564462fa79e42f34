#!/usr/bin/python3
"""flip.py set|corpus: each one-component frame's stored bits coded with the other signedness
(unsigned read as two's complement, signed as unsigned: what a rotated value map or a signalled
reading would code); per frame the better of the two against the frame as it is."""
import csv, os, subprocess, sys, numpy as np, concurrent.futures as cf
which = sys.argv[1]
prefix, d, bf = ("/tmp/mdl/set16", "/tmp/mdl/set", "set") if which == "set" else ("/tmp/mdl/corp", "/tmp/mdl/corpus", "corp")
rows = [r for r in csv.DictReader(open(prefix + ".csv")) if r["raw_bytes"]]
base = {}
for l in open("/tmp/mdl/r/base." + bf):
    f = l.rstrip("\n").split("\t")
    if f[0] != "AGG": base[(f[0], f[1])] = int(f[3])
def job(i):
    r = rows[i]; whole = base[(r["image"], r["frame"])]
    if r["components"] != "1": return i, whole, whole
    b16 = r["bits_allocated"] == "16"; bs = int(r["bits_stored"]); signed = r["signed"] == "true"
    dt = np.dtype("<u2" if b16 else "u1")
    a = np.fromfile("%s/%04d.raw" % (d, i), dtype=dt).astype(np.int64)
    mask = (1 << bs) - 1
    full = 0xFFFF if b16 else 0xFF
    v = a & mask
    out = v if signed else np.where(v >> (bs - 1), v | (full & ~mask), v)  # the same stored bits, the other reading
    src = "/tmp/mdl/h/fl.%d.raw" % i; dst = src + ".pcwt"
    out.astype(dt).tofile(src)
    args = ["/tmp/mdl/src/b/cli/pcwt", "encode", "--width", r["width"], "--height", r["height"], "--bits", r["bits_allocated"],
            "--bits-stored", r["bits_stored"], "--profile", "compact"] + ([] if signed else ["--signed"]) + [src, dst]
    p = subprocess.run(["nice", "-n", "10"] + args, capture_output=True, text=True)
    n = os.path.getsize(dst) if p.returncode == 0 else None
    os.unlink(src); 
    if os.path.exists(dst): os.unlink(dst)
    if n is None: print("FAIL", r["image"], p.stderr.strip()); n = whole * 10
    return i, whole, n
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(job, range(len(rows))))
raw = sum(int(r["raw_bytes"]) for r in rows); W = sum(w for _, w, _ in res); B = sum(min(w, f) for _, w, f in res)
for i, w, f in res:
    if f < w * 0.995: print("%-60s %s %s whole %d flipped %d (%+.1f%%)" % (rows[i]["image"][-60:], rows[i]["modality"], "signed" if rows[i]["signed"] == "true" else "unsigned", w, f, 100 * (w / f - 1)))
print("AGG %s whole %.4f best of whole and flipped per frame %.4f (%+.2f%%)" % (which, raw / W, raw / B, 100 * (W / B - 1)))
