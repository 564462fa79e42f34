#!/usr/bin/python3
"""flip.py set|corpus: each one-component frame's stored bits coded with the other signedness
(unsigned read as two's complement, signed as unsigned); per frame the better of the two."""
import os, sys, concurrent.futures as cf, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
rows, d, suffix = frames.collection(sys.argv[1]); base = frames.base_sizes(suffix)
def job(i):
    r = rows[i]; whole = base[(r["image"], r["frame"])]
    if r["components"] != "1": return i, whole, whole
    a, dt, v = frames.stored_bits(r, d, i); signed = r["signed"] == "true"
    bs = int(r["bits_stored"]); mask = (1 << bs) - 1; full = 0xFFFF if dt.itemsize == 2 else 0xFF
    out = v if signed else np.where(v >> (bs - 1), v | (full & ~mask), v)  # the same stored bits, the other reading
    return i, whole, frames.encode_samples(r, out, dt, "fl%d" % i, signed=not signed)
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(job, range(len(rows))))
raw = sum(int(r["raw_bytes"]) for r in rows); W = sum(w for _, w, _ in res); B = sum(min(w, f) for _, w, f in res)
for i, w, f in res:
    if f < w * 0.995: print("%-60s %s %s whole %d flipped %d (%+.1f%%)" % (rows[i]["image"][-60:], rows[i]["modality"], "signed" if rows[i]["signed"] == "true" else "unsigned", w, f, 100 * (w / f - 1)))
print("AGG %s whole %.4f best of whole and flipped per frame %.4f (%+.2f%%)" % (sys.argv[1], raw / W, raw / B, 100 * (W / B - 1)))
