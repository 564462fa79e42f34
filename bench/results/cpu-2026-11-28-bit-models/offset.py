#!/usr/bin/python3
"""offset.py set|corpus: a per-plane modular offset r0 chosen by an estimate: of today's reading,
the other signedness (r0 = 2^(bits-1) away) and r0 after the largest empty stretch of the circular
value range, the one with the smallest sum of absolute differences to the left and upper
neighbours; the frame coded as u' = (u - r0) mod 2^bits (unsigned). Also the per-frame best."""
import csv, os, subprocess, sys, numpy as np, concurrent.futures as cf
which = sys.argv[1]; MARGIN = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
prefix, d, bf = ("/tmp/mdl/set16", "/tmp/mdl/set", "set") if which == "set" else ("/tmp/mdl/corp", "/tmp/mdl/corpus", "corp")
rows = [r for r in csv.DictReader(open(prefix + ".csv")) if r["raw_bytes"]]
base = {}
for l in open("/tmp/mdl/r/base." + bf):
    f = l.rstrip("\n").split("\t")
    if f[0] != "AGG": base[(f[0], f[1])] = int(f[3])
def enc(r, v, dt, i, tag):
    src = "/tmp/mdl/h/of.%d.%s.raw" % (i, tag); dst = src + ".pcwt"
    v.astype(dt).tofile(src)
    args = ["/tmp/mdl/src/b/cli/pcwt", "encode", "--width", r["width"], "--height", r["height"], "--bits", r["bits_allocated"],
            "--bits-stored", r["bits_stored"], "--profile", "compact", src, dst]
    subprocess.run(["nice", "-n", "10"] + args, check=True, capture_output=True)
    n = os.path.getsize(dst); os.unlink(src); os.unlink(dst); return n
def job(i):
    r = rows[i]; whole = base[(r["image"], r["frame"])]
    if r["components"] != "1": return i, whole, whole, whole, "-"
    b16 = r["bits_allocated"] == "16"; bs = int(r["bits_stored"]); signed = r["signed"] == "true"
    dt = np.dtype("<u2" if b16 else "u1"); M = 1 << bs
    W, H = int(r["width"]), int(r["height"])
    u = (np.fromfile("%s/%04d.raw" % (d, i), dtype=dt).astype(np.int64) & (M - 1)).reshape(H, W)
    used = np.unique(u); gaps = np.diff(np.concatenate([used, [used[0] + M]]))
    today = M // 2 if signed else 0
    cands = {"today": today, "flip": (today + M // 2) % M, "gap": int(used[(int(np.argmax(gaps)) + 1) % len(used)])}
    def sad(r0):
        v = (u - r0) % M
        return np.abs(np.diff(v, axis=1)).sum() + np.abs(np.diff(v, axis=0)).sum()
    costs = {k: sad(x) for k, x in cands.items()}
    pick = min(costs, key=lambda k: (costs[k], k != "today"))
    if costs[pick] > (1 - MARGIN) * costs["today"]: pick = "today"
    print("SAD", r["image"][-40:], {k: round(costs[k] / costs["today"], 3) for k in costs}, file=sys.stderr) if pick != "today" or costs["gap"] < costs["today"] or costs["flip"] < costs["today"] else None
    sizes = {"today": whole}
    for k in ("flip", "gap"):
        sizes[k] = whole if cands[k] == today else enc(r, (u - cands[k]) % M, dt, i, k)
    return i, whole, sizes[pick], min(sizes.values()), pick
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(job, range(len(rows))))
raw = sum(int(r["raw_bytes"]) for r in rows); W = sum(x[1] for x in res); E = sum(x[2] for x in res); B = sum(x[3] for x in res)
for i, w, e, b, pick in res:
    if e != w or b < w * 0.995: print("%-60s %s pick %-5s today %d estimate %d (%+.1f%%) best %d (%+.1f%%)" % (rows[i]["image"][-60:], rows[i]["modality"], pick, w, e, 100 * (w / e - 1), b, 100 * (w / b - 1)))
print("AGG %s today %.4f estimate %.4f (%+.2f%%) best of three per frame %.4f (%+.2f%%)" % (which, raw / W, raw / E, 100 * (W / E - 1), raw / B, 100 * (W / B - 1)))
