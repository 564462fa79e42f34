#!/usr/bin/python3
"""Conditional entropy proxies for one frame: 5/3 wavelet bands coded as they are, or as the
residual of a least-squares prediction from causal neighbours in the band (and the sibling
bands), against pixel-domain MED / LS prediction. Context: the quantised mean magnitude of
causal neighbours (same measure for every representation); static two-pass entropies."""
import numpy as np, sys
def lift53_1d(x, axis):
    x = np.moveaxis(x, axis, 0).astype(np.int64)
    n = x.shape[0]; ev = x[0::2].copy(); od = x[1::2].copy()
    # predict: d = odd - floor((left + right)/2), symmetric extension
    right = np.concatenate([ev[1:], ev[-1:]], 0) if n % 2 == 0 else ev[1:]
    right = right[:od.shape[0]]
    if n % 2 == 0: right = np.concatenate([ev[1:], ev[-1:]], 0)
    d = od - np.floor_divide(ev[:od.shape[0]] + right, 2)
    dl = np.concatenate([d[:1], d[:-1]], 0)
    dr = d
    if ev.shape[0] > d.shape[0]: dl = np.concatenate([d[:1], d], 0); dr = np.concatenate([d, d[-1:]], 0)
    s = ev + np.floor_divide(dl[:ev.shape[0]] + dr[:ev.shape[0]] + 2, 4)
    return np.moveaxis(s, 0, axis), np.moveaxis(d, 0, axis)
def dwt(img, levels):
    bands = []; ll = img.astype(np.int64)
    for l in range(levels):
        L, H = lift53_1d(ll, 0)          # columns first (vertical)
        LL, HL = lift53_1d(L, 1); LH, HH = lift53_1d(H, 1)
        bands.append((l + 1, {"HL": HL, "LH": LH, "HH": HH})); ll = LL
    return ll, bands
def ctx_of(a, mag=None):
    m = np.abs(a).astype(np.float64) if mag is None else mag
    p = np.pad(m, 2)
    H, W = a.shape
    c = lambda dy, dx: p[2 + dy:2 + dy + H, 2 + dx:2 + dx + W]
    s = (2 * c(0, -1) + 2 * c(-1, 0) + c(-1, -1) + c(-1, 1) + c(0, -2) + c(-2, 0)) / 8.0
    return np.minimum((np.log2(s + 1) * 3).astype(np.int64), 40)
def cond_entropy(v, ctx):
    """static H(v | ctx) in bits, total"""
    v = v.ravel().astype(np.int64); ctx = ctx.ravel()
    key = ctx * (1 << 22) + (v - v.min())
    _, cnt = np.unique(key, return_counts=True)
    _, ccnt = np.unique(ctx, return_counts=True)
    return -(cnt * np.log2(cnt)).sum() + (ccnt * np.log2(ccnt)).sum()
def causal_stack(a, offs):
    H, W = a.shape; p = np.pad(a.astype(np.float64), 2)
    return np.stack([p[2 + dy:2 + dy + H, 2 + dx:2 + dx + W].ravel() for dy, dx in offs], 1)
OFFS = [(0, -1), (-1, 0), (-1, -1), (-1, 1), (0, -2), (-2, 0)]
def ls_residual(a, extra=()):
    X = causal_stack(a, OFFS)
    if extra: X = np.concatenate([X] + [e.reshape(-1, 1).astype(np.float64) for e in extra], 1)
    y = a.ravel().astype(np.float64)
    w, *_ = np.linalg.lstsq(X, y, rcond=None)
    r = (a.ravel() - np.round(X @ w)).astype(np.int64).reshape(a.shape)
    return r, w
def med(img):
    x = img.astype(np.int64); p = np.pad(x, ((1, 0), (1, 0)), mode="edge")
    a = p[1:, :-1]; b = p[:-1, 1:]; c = p[:-1, :-1]
    pr = np.where(c >= np.maximum(a, b), np.minimum(a, b), np.where(c <= np.minimum(a, b), np.maximum(a, b), a + b - c))
    return x - pr
path, W, H, signed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "s"
img = np.fromfile(path, dtype="<i2" if signed else "<u2").reshape(H, W).astype(np.int64)
N = W * H
ll, bands = dwt(img, 6)
tot = {"coef": cond_entropy(ll, ctx_of(ll)), "ls": cond_entropy(ll, ctx_of(ll)), "lsx": cond_entropy(ll, ctx_of(ll))}
print("LL bits/px of image: %.3f" % (tot["coef"] / N))
for lev, bs in bands:
    row = []
    for o in ("HL", "LH", "HH"):
        a = bs[o]
        e0 = cond_entropy(a, ctx_of(a))
        r, w = ls_residual(a)
        e1 = cond_entropy(r, ctx_of(r))
        sib = [bs[s] for s in ("HL", "LH") if s != o and ("HL", "LH", "HH").index(s) < ("HL", "LH", "HH").index(o)]
        if sib:
            r2, _ = ls_residual(a, sib); e2 = cond_entropy(r2, ctx_of(r2))
        else: e2 = e1
        tot["coef"] += e0; tot["ls"] += e1; tot["lsx"] += min(e1, e2)
        row.append("%s %.3f->%.3f(%.3f) w=%s" % (o, e0 / a.size, e1 / a.size, e2 / a.size, np.round(w[:4], 2)))
    print("level %d:" % lev, " | ".join(row))
print("wavelet total bpp: coefficients %.4f, LS-predicted in band %.4f, +siblings %.4f" % (tot["coef"] / N, tot["ls"] / N, tot["lsx"] / N))
m = med(img); print("pixel MED bpp %.4f" % (cond_entropy(m, ctx_of(m)) / N))
r, w = ls_residual(img); print("pixel LS(6 causal) bpp %.4f w=%s" % (cond_entropy(r, ctx_of(r)) / N, np.round(w, 3)))
