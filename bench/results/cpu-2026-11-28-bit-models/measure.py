#!/usr/bin/python3
"""measure.py set|corpus: every saved frame coded with the experimental pcwt (PCWT_ARGS added);
per-frame bytes and the aggregate."""
import os, sys, concurrent.futures as cf
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames
extra = os.environ.get("PCWT_ARGS", "").split()
rows, d, _ = frames.collection(sys.argv[1])
def enc(i):
    n, err = frames.encode_file(frames.geometry_args(rows[i]), "%s/%04d.raw" % (d, i), "m%d" % i, extra)
    return (-1, err) if n is None else (n, "")
with cf.ThreadPoolExecutor(2) as ex: res = list(ex.map(enc, range(len(rows))))
raw = sum(int(r["raw_bytes"]) for r in rows); tot = 0
for r, (n, e) in zip(rows, res):
    if n < 0: print("FAIL", r["image"], e); continue
    tot += n
    print("%s\t%s\t%s\t%d\t%.4f\tbench %s\t%s" % (r["image"], r["frame"], r["modality"], n, int(r["raw_bytes"]) / n, r["coded_bytes"], r["raw_bytes"]))
print("AGG\t%d\t%d\t%.4f" % (raw, tot, raw / tot))
