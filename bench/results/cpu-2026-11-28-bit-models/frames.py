"""frames.py - what the experiment scripts share: the saved frames of a collection (pcwt-bench
--save-frames, geometry from its CSV), the default's per-frame sizes (runs/base.*), and one
encode of a frame's samples with the experimental pcwt."""
import csv, os, subprocess, numpy as np
ROOT = "/tmp/mdl"
PCWT = os.environ.get("PCWT", ROOT + "/src/b/cli/pcwt")
def collection(which):
    """rows (CSV dicts, one per frame, in saved order), the frames' folder, the run-file suffix"""
    prefix, d, suffix = ((ROOT + "/set16", ROOT + "/set", "set") if which == "set"
                         else (ROOT + "/corp", ROOT + "/corpus", "corp"))
    with open(prefix + ".csv") as f:
        rows = [r for r in csv.DictReader(f) if r["raw_bytes"]]
    return rows, d, suffix
def base_sizes(suffix, name="base"):
    out = {}
    for l in open("%s/r/%s.%s" % (ROOT, name, suffix)):
        f = l.rstrip("\n").split("\t")
        if f[0] != "AGG": out[(f[0], f[1])] = int(f[3])
    return out
def geometry_args(r, width=None, height=None, signed=None):
    a = ["encode", "--width", str(width or r["width"]), "--height", str(height or r["height"]),
         "--bits", r["bits_allocated"], "--bits-stored", r["bits_stored"], "--components", r["components"],
         "--profile", "compact"]
    if (r["signed"] == "true") if signed is None else signed: a.append("--signed")
    if r["planar"] == "true": a.append("--planar")
    return a
def encode_file(args, src, tag, extra=()):
    """the size of src coded with pcwt ARGS, or None (and the message) on failure"""
    dst = "%s/h/%s.%d.pcwt" % (ROOT, tag, os.getpid())
    p = subprocess.run(["nice", "-n", "10", PCWT] + list(args) + list(extra) + [src, dst], capture_output=True, text=True)
    n = os.path.getsize(dst) if p.returncode == 0 else None
    if os.path.exists(dst): os.unlink(dst)
    return n, p.stderr.strip()
def encode_samples(r, samples, dtype, tag, **geo):
    src = "%s/h/%s.%d.raw" % (ROOT, tag, os.getpid())
    np.asarray(samples).astype(dtype).tofile(src)
    n, err = encode_file(geometry_args(r, **geo), src, tag)
    os.unlink(src)
    if n is None: raise RuntimeError(err)
    return n
def stored_bits(r, d, i):
    """the frame's words, their dtype, and its stored bits read unsigned"""
    b16 = r["bits_allocated"] == "16"; bs = int(r["bits_stored"])
    dt = np.dtype("<u2" if b16 else "u1")
    a = np.fromfile("%s/%04d.raw" % (d, i), dtype=dt).astype(np.int64)
    return a, dt, a & ((1 << bs) - 1)
