#!/usr/bin/python3
"""compare.py OFF.csv AUTO.csv: pcwt-bench CSVs of the same frames, the offset off (OFF.csv, with the
peers charls and jpegxl) and auto (AUTO.csv, pcwt-compact-cpu only). Prints the frames whose size
changed, the aggregates (total raw / total coded) and the aggregates by modality, as markdown."""
import csv, sys, collections
def load(path):
    rows = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if not r["codec"]:  # a file the bench does not read (as rtdose's 32-bit words)
            continue
        if r["status"] != "ok" or r["lossless"] != "true":
            sys.exit("not ok: %s %s %s" % (r["image"], r["frame"], r["codec"]))
        rows[(r["image"], r["frame"])][r["codec"]] = r
    return rows
off, auto = load(sys.argv[1]), load(sys.argv[2])
assert off.keys() == auto.keys()
C = "pcwt-compact-cpu"
def agg(keys, table, codec):
    raw = sum(int(table[k][codec]["raw_bytes"]) for k in keys)
    return raw / sum(int(table[k][codec]["coded_bytes"]) for k in keys)
print("| frame | modality | bits | JPEG-LS | JPEG XL e7 | off | auto | change |")
print("|---|---|---|---:|---:|---:|---:|---:|")
worse = 0
for k in sorted(off):
    a, b = int(off[k][C]["coded_bytes"]), int(auto[k][C]["coded_bytes"])
    if a != b:
        r = off[k][C]
        worse += b > a
        print("| %s | %s | %s%s | %.3f | %.3f | %.3f | %.3f | %+.1f%% |" % (
            k[0], r["modality"], r["bits_stored"], "s" if r["signed"] == "true" else "u",
            float(off[k]["charls"]["ratio"]), float(off[k]["jpegxl"]["ratio"]), float(r["ratio"]),
            float(auto[k][C]["ratio"]), 100.0 * (a / b - 1)))
print("\nframes changed: %d, larger: %d\n" % (sum(int(off[k][C]["coded_bytes"]) != int(auto[k][C]["coded_bytes"]) for k in off), worse))
keys = list(off)
print("| set | frames | JPEG-LS | JPEG XL e7 | off | auto | change |")
print("|---|---:|---:|---:|---:|---:|---:|")
def line(name, ks):
    o, n = agg(ks, off, C), agg(ks, auto, C)
    print("| %s | %d | %.3f | %.3f | %.4f | %.4f | %+.2f%% |" % (name, len(ks), agg(ks, off, "charls"), agg(ks, off, "jpegxl"), o, n, 100 * (n / o - 1)))
line("all", keys)
by = collections.defaultdict(list)
for k in keys:
    by[off[k][C]["modality"]].append(k)
for m in sorted(by):
    line(m, by[m])
