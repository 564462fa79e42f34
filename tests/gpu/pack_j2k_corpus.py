#!/usr/bin/python3
"""Packs JPEG 2000 codestreams for the GPU tests (tests/gpu/test_gpu_j2k.cpp) on a machine that has
OpenJPEG's tools, pydicom and ../shared, for the device machine that has none of them:

    /usr/bin/python3 tests/gpu/pack_j2k_corpus.py OUT_DIR        (then PCWT_GPU_J2K_CORPUS=OUT_DIR)

Writes NAME.j2k (a codestream, or a JP2 file where a DICOM fragment holds one) and, where
opj_decompress decodes it, NAME.opj: "SIZE FNV1A64" (hex) of its samples as the library lays them
out (interleaved, 8-bit words up to 8 bits of precision, else 16-bit little-endian, signed values
sign-extended), which keeps the folder small enough to travel to the device machine.
synth_*: the streams of test_gpu_j2k.cpp's kSynth (same names and opj_compress options, other
pixels); corpus_*: every frame of the JPEG 2000 files of ../shared/testdata and testdata-jpeg2000.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

# name, width, height, components, bits, signed, opj_compress options (as kSynth)
SYNTH = [
    ("ct512_12u", 512, 512, 1, 12, False, "-n 6 -b 64,64"),
    ("ct512_16s", 512, 512, 1, 16, True, "-n 6 -b 64,64"),
    ("dx_1000x1250", 1000, 1250, 1, 14, False, "-n 6 -b 64,64"),
    ("rgb640", 640, 480, 3, 8, False, "-n 6"),
    ("rgb_nomct", 200, 150, 3, 10, False, "-n 4 -mct 0"),
    ("px1", 1, 1, 1, 8, False, "-n 1"),
    ("thin_row", 700, 3, 1, 9, False, "-n 2"),
    ("thin_col", 3, 700, 1, 11, True, "-n 2"),
    ("odd_c32", 257, 129, 1, 12, False, "-n 5 -b 32,32"),
    ("cblk16x64", 300, 200, 1, 15, False, "-n 4 -b 16,64"),
    ("lvl0", 130, 70, 1, 16, False, "-n 1"),
    ("lvl8", 600, 520, 1, 12, False, "-n 9"),
    ("bypass", 256, 256, 1, 16, False, "-n 6 -M 1"),
    ("reset", 256, 256, 1, 12, False, "-n 6 -M 2"),
    ("termall", 256, 256, 1, 12, False, "-n 6 -M 4"),
    ("vsc", 256, 256, 1, 12, True, "-n 6 -M 8"),
    ("pterm", 256, 256, 1, 12, False, "-n 6 -M 16"),
    ("segsym", 256, 256, 1, 12, False, "-n 6 -M 32"),
    ("all_styles", 256, 256, 1, 16, True, "-n 6 -M 63"),
    ("layers", 256, 256, 1, 12, False, "-n 6 -r 40,10,1"),
    ("rpcl_precincts", 256, 256, 1, 12, False, "-n 6 -p RPCL -c [64,64],[32,32]"),
    ("bits8s", 200, 200, 1, 8, True, "-n 5"),
    ("rate10", 256, 256, 1, 12, False, "-n 6 -r 10"),
    ("rate6_rgb", 160, 120, 3, 8, False, "-n 5 -r 6 -M 1"),
]

J2K_SYNTAXES = {"1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.4.91", "1.2.840.10008.1.2.4.201",
                "1.2.840.10008.1.2.4.202", "1.2.840.10008.1.2.4.203"}
JP2_SIGNATURE = bytes.fromhex("0000000c6a5020200d0a870a")


def image(w, h, comps, bits, signed, seed):
    """Ramps, noise, flat steps and the range's extremes, planar."""
    rng = np.random.default_rng(seed)
    lo = -(1 << (bits - 1)) if signed else 0
    hi = lo + (1 << bits) - 1
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for c in range(comps):
        v = lo + (x * 7 + y * 3 + c * 11) % (1 << bits)
        noise = rng.integers(lo, hi + 1, size=(h, w))
        v = np.where(x >= w // 3, noise, v)
        flat = (lo + hi) // 2 + rng.integers(-8, 8, size=(h, w)) + np.where((y // 8) % 2 == 1, (1 << bits) // 5, 0)
        v = np.where(x >= 2 * w // 3, flat, v)
        v = np.where((x + y + c) % 17 == 0, np.where(rng.integers(0, 2, size=(h, w)) == 1, lo, hi), v)
        planes.append(np.clip(v, lo, hi))
    return np.stack(planes)


def precision_of(codestream):
    """SIZ's precision and sign of component 0, and the component count (JP2: the codestream's)."""
    at = codestream.find(b"\xff\x4f\xff\x51")
    siz = codestream[at + 4:]
    comps = int.from_bytes(siz[36:38], "big")
    ssiz = siz[38]
    return (ssiz & 0x7F) + 1, ssiz >> 7, comps


def opj_reference(codestream, tmp):
    """opj_decompress's samples in the library's layout, or None."""
    inp = os.path.join(tmp, "in.jp2" if codestream.startswith(JP2_SIGNATURE) else "in.j2k")
    out = os.path.join(tmp, "out.rawl")
    with open(inp, "wb") as f:
        f.write(codestream)
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run(["opj_decompress", "-i", inp, "-o", out], capture_output=True)
    if r.returncode != 0 or not os.path.exists(out):
        return None
    prec, signed, comps = precision_of(codestream)
    raw = np.fromfile(out, dtype="<u2" if prec > 8 else "u1").astype(np.int64)
    if raw.size % comps:
        return None
    raw &= (1 << prec) - 1
    if signed:
        raw = np.where(raw >> (prec - 1) == 1, raw - (1 << prec), raw)
    inter = raw.reshape(comps, -1).T.reshape(-1)  # planar to interleaved
    return (inter & (0xFFFF if prec > 8 else 0xFF)).astype("<u2" if prec > 8 else "u1").tobytes()


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in np.frombuffer(data, dtype=np.uint8).tolist():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{len(data)} {h:016x}\n"


def frames_of(path):
    import pydicom
    from pydicom.encaps import generate_pixel_data_frame
    ds = pydicom.dcmread(path)
    if str(ds.file_meta.TransferSyntaxUID) not in J2K_SYNTAXES:
        return []
    return list(generate_pixel_data_frame(ds.PixelData, int(ds.get("NumberOfFrames", 1) or 1)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, w, h, comps, bits, signed, args in SYNTH:
            v = image(w, h, comps, bits, signed, w + 7 * h)
            raw = os.path.join(tmp, "src.rawl")
            v.astype("<i2" if bits > 8 else "i1").tofile(raw)
            j2k = os.path.join(tmp, "src.j2k")
            cmd = ["opj_compress", "-i", raw, "-o", j2k, "-F", f"{w},{h},{comps},{bits},{'s' if signed else 'u'}"]
            if subprocess.run(cmd + args.split(), capture_output=True).returncode != 0:
                sys.exit(f"pack_j2k_corpus: opj_compress failed for {name}")
            cs = open(j2k, "rb").read()
            ref = opj_reference(cs, tmp)
            open(os.path.join(out, f"synth_{name}.j2k"), "wb").write(cs)
            if ref is not None:
                open(os.path.join(out, f"synth_{name}.opj"), "w").write(fnv1a64(ref))
            n += 1
        shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
        for sub in ("testdata", "testdata-jpeg2000"):
            for dp, _, files in sorted(os.walk(os.path.join(shared, sub))):
                for f in sorted(files):
                    if not f.endswith(".dcm"):
                        continue
                    path = os.path.join(dp, f)
                    try:
                        frames = frames_of(path)
                    except Exception as e:  # not readable by pydicom: not ours to judge here
                        print(f"pack_j2k_corpus: skipped {path}: {e}", file=sys.stderr)
                        continue
                    rel = os.path.relpath(path, shared).replace("/", "_")[:-4]
                    for k, cs in enumerate(frames[:4]):
                        base = os.path.join(out, f"corpus_{rel}_f{k}")
                        open(base + ".j2k", "wb").write(cs)
                        ref = opj_reference(cs, tmp)
                        if ref is not None:
                            open(base + ".opj", "w").write(fnv1a64(ref))
                        n += 1
    print(f"pack_j2k_corpus: {n} codestreams in {out}")


if __name__ == "__main__":
    main()
