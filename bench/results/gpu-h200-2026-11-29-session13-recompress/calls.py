#!/usr/bin/env python3
# the call timeline of a PCWT_GPU_TRACE recompress log: per kind sums, concurrency, busy unions
import re, sys, gzip
f = sys.argv[1]
op = gzip.open if f.endswith('.gz') else open
calls = []
host = {}
for line in op(f, 'rt'):
    m = re.match(r'pcwt-recompress call (\w+) (\d+): ([\d.]+)-([\d.]+) s, (\d+) frames, ([\d.]+) MB', line)
    if m:
        calls.append((m[1], int(m[2]), float(m[3]), float(m[4]), int(m[5]), float(m[6])))
    m = re.match(r'pcwt gpu (\w+) host \(ms\): (.*)', line)
    if m:
        host.setdefault(m[1], []).append(line)
def union(iv):
    iv = sorted(iv); tot = 0; cur = None
    for a, b in iv:
        if cur is None or a > cur[1]:
            if cur: tot += cur[1] - cur[0]
            cur = [a, b]
        else: cur[1] = max(cur[1], b)
    if cur: tot += cur[1] - cur[0]
    return tot
for kind in ('encode', 'verify'):
    c = [x for x in calls if x[0] == kind]
    if not c: continue
    d = [x[3] - x[2] for x in c]
    mb = sum(x[5] for x in c)
    print(f"{kind}: {len(c)} calls, {mb:.0f} MB, first {min(x[2] for x in c):.3f} last end {max(x[3] for x in c):.3f}, "
          f"sum {sum(d):.3f} s, union {union([(x[2], x[3]) for x in c]):.3f} s, per call median {sorted(d)[len(d)//2]*1e3:.1f} ms, "
          f"MB/call median {sorted(x[5] for x in c)[len(c)//2]:.1f}, frames/call median {sorted(x[4] for x in c)[len(c)//2]}")
print(f"any call: union {union([(x[2], x[3]) for x in calls]):.3f} s")
# concurrency histogram over the span
ev = []
for x in calls: ev += [(x[2], 1, x[0]), (x[3], -1, x[0])]
ev.sort()
hist = {}; n = {'encode': 0, 'verify': 0}; t = None
for tt, s, k in ev:
    if t is not None:
        key = (n['encode'], n['verify']); hist[key] = hist.get(key, 0) + tt - t
    n[k] += s; t = tt
print("time (s) by (encode calls, verify calls) in flight:")
for k in sorted(hist): print(f"  {k}: {hist[k]:.3f}")
# MB/s in windows of 0.1 s (encode ends)
