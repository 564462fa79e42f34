#!/usr/bin/env python3
"""The serial chain of a codestream's group decode, in range-coder bins, from the per-group lines
that chain-bins.sh's counting decoder prints (one line a group: band, level, first row and column,
rows, columns, entropy mode, record bytes, bins, then the bins counted at the end of each row).

Model: every bin costs the same; a group's row x starts when its row x-1 is done and when row x/2
of the parent group that holds (x/2, y/2) is done (ec_decode_pipe's waits, cuda/
group_coder_ec_pipe_gpu.cu); a raw-mode group costs nothing. Prints each level's groups and bins,
the chain (when the last group would end with unlimited lanes) and the groups on it."""
import collections
import sys

def load(path):
    groups = []
    for line in open(path):
        if not line.startswith('G '):
            continue
        head, rows = line.split(':')
        b, lev, gx, gy, nr, nc, ent, nbytes, bins = map(int, head.split()[1:10])
        cum = list(map(int, rows.split())) or [0] * nr  # raw mode: no bins
        groups.append(dict(b=b, lev=lev, gx=gx, gy=gy, nr=nr, nc=nc, ent=ent, bytes=nbytes, bins=bins,
                           cum=cum))
    return groups


def main(path):
    G = load(path)
    GR, GC = max(g['nr'] for g in G), max(g['nc'] for g in G)  # the group size (full groups)
    at = {(g['b'], g['gx'], g['gy']): g for g in G}
    by_level = collections.defaultdict(list)
    for g in G:
        by_level[g['lev']].append(g)
    for lev in sorted(by_level, reverse=True):
        bins = [g['bins'] for g in by_level[lev]]
        print(f"level {lev}: {len(bins)} groups, bins max {max(bins)} mean {sum(bins) / len(bins):.0f} "
              f"total {sum(bins)}")
    print(f"all: {len(G)} groups of {GR}x{GC}, {sum(g['bins'] for g in G)} bins")

    def parent(g, x):
        if g['b'] <= 3:  # LL and the top level's bands: no parent group
            return None, 0
        px, py = x // 2, g['gy'] // 2
        pg = at[(g['b'] - 3, (px // GR) * GR, (py // GC) * GC)]
        return pg, px - pg['gx']

    for g in sorted(G, key=lambda g: (g['b'] != 0, -g['lev'])):  # parents first
        t, prev, g['rowend'], g['bound'] = 0.0, 0, [], None
        for i, c in enumerate(g['cum']):
            pg, pr = parent(g, g['gx'] + i)
            if pg is not None and pg['rowend'][pr] >= t:
                t, g['bound'] = pg['rowend'][pr], (pg, i, pg['rowend'][pr])
            t += c - prev
            prev = c
            g['rowend'].append(t)
        g['end'] = t
    last = max(G, key=lambda g: g['end'])
    longest = max(g['bins'] for g in G)
    print(f"chain: {last['end']:.0f} bins ({last['end'] / longest:.2f} x the longest group, {longest})")
    g = last
    while g is not None:
        bound = g['bound']
        why = f", waits at its row {bound[1]} until bin {bound[2]:.0f}" if bound else ""
        print(f"  band {g['b']} level {g['lev']} group ({g['gx']},{g['gy']}): {g['bins']} bins{why}")
        g = bound[0] if bound else None


if __name__ == '__main__':
    for p in sys.argv[1:]:
        print(f"== {p}")
        main(p)
