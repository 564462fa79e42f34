#!/usr/bin/env python3
"""Writes samples/phantom_ct_512.pgm: a synthetic 512x512 12-bit CT-like slice (the modified
Shepp-Logan head phantom in Hounsfield-like units, offset by 1024, with mild noise), as a 16-bit
PGM. It is made by this script, so it carries no patient data and no licence question.
Standard library only; deterministic."""
import math, random, os

N = 512
# (value, a, b, x0, y0, phi_deg): modified Shepp-Logan, values scaled to HU-like steps
ELLIPSES = [
    (1000, .69, .92, 0, 0, 0), (-800, .6624, .874, 0, -.0184, 0), (-200, .11, .31, .22, 0, -18),
    (-200, .16, .41, -.22, 0, 18), (100, .21, .25, 0, .35, 0), (100, .046, .046, 0, .1, 0),
    (100, .046, .046, 0, -.1, 0), (100, .046, .023, -.08, -.605, 0), (100, .023, .023, 0, -.606, 0),
    (100, .023, .046, .06, -.605, 0)]

def main():
    random.seed(2026)
    rows = []
    for i in range(N):
        y = 1 - 2 * (i + .5) / N
        row = []
        for j in range(N):
            x = 2 * (j + .5) / N - 1
            v = 0.0
            for val, a, b, x0, y0, phi in ELLIPSES:
                t = math.radians(phi)
                xr = (x - x0) * math.cos(t) + (y - y0) * math.sin(t)
                yr = -(x - x0) * math.sin(t) + (y - y0) * math.cos(t)
                if (xr / a) ** 2 + (yr / b) ** 2 <= 1:
                    v += val
            v = v + (random.gauss(0, 12) if v != 0 else random.gauss(0, 3))
            row.append(min(4095, max(0, int(round(v + 24)))))  # air ~ 24 (i.e. -1000 HU + 1024)
        rows.append(row)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'phantom_ct_512.pgm')
    with open(out, 'wb') as f:
        f.write(b'P5\n%d %d\n4095\n' % (N, N))
        f.write(b''.join(v.to_bytes(2, 'big') for r in rows for v in r))
    print(out)

if __name__ == '__main__':
    main()
