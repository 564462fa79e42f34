#!/usr/bin/python3
"""offset.py set|corpus [MARGIN]: a per-plane modular offset r0 chosen by an estimate: of today's
reading, the other signedness (r0 = 2^(bits-1) away) and r0 after the largest empty stretch of the
circular value range ('gap'), the one with the smallest sum of absolute differences to the left
and upper neighbours, taken only when that sum is below (1 - MARGIN) times today's; the frame coded
as u' = (u - r0) mod 2^bits, unsigned. Also the per-frame best of the three."""
import os, sys, concurrent.futures as cf, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
which = sys.argv[1]; MARGIN = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
rows, d, suffix = frames.collection(which); base = frames.base_sizes(suffix)
def job(i):
    r = rows[i]; whole = base[(r["image"], r["frame"])]
    if r["components"] != "1": return i, whole, whole, whole, "-"
    _, dt, u = frames.stored_bits(r, d, i)
    M = 1 << int(r["bits_stored"]); u = u.reshape(int(r["height"]), int(r["width"]))
    used = np.unique(u); gaps = np.diff(np.concatenate([used, [used[0] + M]]))
    today = M // 2 if r["signed"] == "true" else 0
    cands = {"today": today, "flip": (today + M // 2) % M, "gap": int(used[(int(np.argmax(gaps)) + 1) % len(used)])}
    def sad(r0):
        v = (u - r0) % M
        return np.abs(np.diff(v, axis=1)).sum() + np.abs(np.diff(v, axis=0)).sum()
    costs = {k: sad(x) for k, x in cands.items()}
    pick = min(costs, key=lambda k: (costs[k], k != "today"))
    if costs[pick] > (1 - MARGIN) * costs["today"]: pick = "today"
    sizes = {"today": whole}
    for k in ("flip", "gap"):
        sizes[k] = whole if cands[k] == today else frames.encode_samples(r, (u - cands[k]) % M, dt, "of%d%s" % (i, k), signed=False)
    return i, whole, sizes[pick], min(sizes.values()), pick
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(job, range(len(rows))))
raw = sum(int(r["raw_bytes"]) for r in rows); W = sum(x[1] for x in res); E = sum(x[2] for x in res); B = sum(x[3] for x in res)
for i, w, e, b, pick in res:
    if e != w or b < w * 0.995: print("%-60s %s pick %-5s today %d estimate %d (%+.1f%%) best %d (%+.1f%%)" % (rows[i]["image"][-60:], rows[i]["modality"], pick, w, e, 100 * (w / e - 1), b, 100 * (w / b - 1)))
print("AGG %s today %.4f estimate %.4f (%+.2f%%) best of three per frame %.4f (%+.2f%%)" % (which, raw / W, raw / E, 100 * (W / E - 1), raw / B, 100 * (W / B - 1)))
