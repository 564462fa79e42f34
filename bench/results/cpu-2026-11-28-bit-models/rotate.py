#!/usr/bin/python3
"""rotate.py set|corpus: each one-component frame's stored bits u (read unsigned) coded as
u' = (u - r0) mod 2^bits, r0 the first used value after the largest empty stretch of the circular
value range (the estimate a per-plane modular offset would use); where that is today's reading
(r0 = 0 unsigned, 2^(bits-1) signed) the frame keeps its size."""
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
    if r["components"] != "1": return i, whole, whole, None
    b16 = r["bits_allocated"] == "16"; bs = int(r["bits_stored"]); signed = r["signed"] == "true"
    dt = np.dtype("<u2" if b16 else "u1"); M = 1 << bs
    u = np.fromfile("%s/%04d.raw" % (d, i), dtype=dt).astype(np.int64) & (M - 1)
    used = np.unique(u)
    gaps = np.diff(np.concatenate([used, [used[0] + M]]))     # gap after each used value, circularly
    k = int(np.argmax(gaps)); r0 = int(used[(k + 1) % len(used)])
    today = M // 2 if signed else 0
    # today's reading already wraps inside the largest gap: nothing to do
    if gaps[k] <= 1 or ((today - used[k]) % M) <= gaps[k] and ((used[(k + 1) % len(used)] - today) % M) < gaps[k]:
        return i, whole, whole, r0
    v = (u - r0) % M
    src = "/tmp/mdl/h/ro.%d.raw" % i; dst = src + ".pcwt"
    v.astype(dt).tofile(src)
    args = ["/tmp/mdl/src/b/cli/pcwt", "encode", "--width", r["width"], "--height", r["height"], "--bits", r["bits_allocated"],
            "--bits-stored", r["bits_stored"], "--profile", "compact", src, dst]
    p = subprocess.run(["nice", "-n", "10"] + args, capture_output=True, text=True)
    n = os.path.getsize(dst); os.unlink(src); os.unlink(dst)
    return i, whole, n, r0
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(job, range(len(rows))))
raw = sum(int(r["raw_bytes"]) for r in rows); W = sum(w for _, w, _, _ in res)
E = sum(n for _, _, n, _ in res); B = sum(min(w, n) for _, w, n, _ in res)
for i, w, n, r0 in res:
    if n != w: print("%-60s %s %s r0 %s whole %d rotated %d (%+.1f%%)" % (rows[i]["image"][-60:], rows[i]["modality"], "signed" if rows[i]["signed"] == "true" else "unsigned", r0, w, n, 100 * (w / n - 1)))
print("AGG %s today %.4f rotated where the estimate says %.4f (%+.2f%%), best of both per frame %.4f (%+.2f%%)" % (which, raw / W, raw / E, 100 * (W / E - 1), raw / B, 100 * (W / B - 1)))
