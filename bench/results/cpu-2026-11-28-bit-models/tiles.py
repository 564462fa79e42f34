#!/usr/bin/python3
"""tiles.py set|corpus T: each one-component frame coded as TxT tiles (each its own codestream,
value maps etc. auto per tile); per frame the tiles' total against the whole frame's size; frames of
3 components keep the whole frame's size."""
import os, sys, concurrent.futures as cf, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
which, T = sys.argv[1], int(sys.argv[2])
rows, d, suffix = frames.collection(which); base = frames.base_sizes(suffix)
def enc_tile(job):
    arr, r, k = job
    return frames.encode_samples(r, arr, arr.dtype, "ti%d" % k, width=arr.shape[1], height=arr.shape[0])
tot_raw = tot_whole = tot_tiled = tot_best = 0; k = 0
with cf.ThreadPoolExecutor(2) as ex:
    for i, r in enumerate(rows):
        whole = base[(r["image"], r["frame"])]; tiled = whole
        if r["components"] == "1":
            a, dt, _ = frames.stored_bits(r, d, i)
            a = a.astype(dt).reshape(int(r["height"]), int(r["width"]))
            jobs = []
            for y in range(0, a.shape[0], T):
                for x in range(0, a.shape[1], T):
                    jobs.append((np.ascontiguousarray(a[y:y + T, x:x + T]), r, k)); k += 1
            tiled = sum(ex.map(enc_tile, jobs))
        tot_raw += int(r["raw_bytes"]); tot_whole += whole; tot_tiled += tiled; tot_best += min(whole, tiled)
        if tiled < whole * 0.97 or tiled > whole * 1.10:
            print("%-60s %s whole %8d tiled %8d (%+.1f%%)" % (r["image"][-60:], r["modality"], whole, tiled, 100 * (whole / tiled - 1)))
print("AGG %s T=%d whole %.4f tiled %.4f best-of-both per frame %.4f" % (which, T, tot_raw / tot_whole, tot_raw / tot_tiled, tot_raw / tot_best))
