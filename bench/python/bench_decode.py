#!/usr/bin/python3
"""Decode through the Python package against the C API, in one run of this script.

    PYTHONPATH=python PCWT_LIBRARY=BUILD/python/libpcwt.so.0 \\
        /usr/bin/python3 bench/python/bench_decode.py BUILD/bench/python/pcwt_py_bench_decode [-n 21]

The images: the CT slices of samples/ct_study (512x512, 16 bits signed), coded by pcwt.encode
in each profile (the default, compact, first). Two jobs: one slice, and a batch of --batch slices
(the study's slices in turn).
C: pcwt_py_bench_decode (decode_c.c, libpcwt linked in) decodes the codestream files with one
handle, pcwt_read_header + malloc + pcwt_decode per slice, and the batch with one
pcwt_decode_batch; median of -n passes after a warm-up. Python: pcwt.decode (one slice) and
pcwt.decode_batch (the batch) on the same codestreams, median of -n calls after a warm-up. The
two alternate, --rounds times, so that a shared machine's drift slows them alike; each median is
then the median over the rounds. Prints a Markdown table (Python / C: 1.00 is the same time)."""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pydicom

import pcwt

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def slices():
    files = sorted(glob.glob(os.path.join(ROOT, "samples", "ct_study", "*.dcm")))
    if not files:
        sys.exit("no samples/ct_study/*.dcm")
    return [pydicom.dcmread(f).pixel_array for f in files]


def c_times(exe, repeats, paths):
    out = subprocess.run([exe, str(repeats)] + paths, check=True, capture_output=True, text=True).stdout
    vals = dict(line.split() for line in out.splitlines())
    return float(vals["single"]), float(vals["batch"]), vals["backend"]


def py_median(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t0) / 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("c_binary")
    ap.add_argument("-n", type=int, default=21, help="passes per round (median)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    images = slices()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for profile in ("compact", "entropy", "baseline"):  # the default first
            streams = [pcwt.encode(im, profile=profile) for im in images]
            for cs, im in zip(streams, images):
                assert np.array_equal(pcwt.decode(cs), im)
            paths = []
            for i, cs in enumerate(streams):
                paths.append(os.path.join(tmp, "%s%d.pcwt" % (profile, i)))
                with open(paths[-1], "wb") as f:
                    f.write(cs)
            batch_paths = [paths[i % len(paths)] for i in range(args.batch)]
            batch = [streams[i % len(streams)] for i in range(args.batch)]
            got = {"c1": [], "cb": [], "p1": [], "pb": []}
            for _ in range(args.rounds):
                got["c1"].append(c_times(args.c_binary, args.n, paths[:1])[0])
                c_single, c_batch, backend = c_times(args.c_binary, args.n, batch_paths)
                got["cb"].append(c_batch)
                got["p1"].append(py_median(lambda: pcwt.decode(streams[0]), args.n))
                got["pb"].append(py_median(lambda: pcwt.decode_batch(batch), args.n))
            med = {k: statistics.median(v) for k, v in got.items()}
            rows.append((profile, "one 512x512 slice", med["c1"], med["p1"], backend))
            rows.append((profile, "batch of %d slices" % args.batch, med["cb"], med["pb"], backend))
    print("libpcwt %s (%s), backend %s, %d rounds of %d passes\n" % (pcwt.library_version(), pcwt.library_path,
                                                                     rows[0][4], args.rounds, args.n))
    print("| profile | job | C API (us) | Python (us) | Python / C |")
    print("|---|---|---:|---:|---:|")
    for profile, job, c, p, _ in rows:
        print("| %s | %s | %.0f | %.0f | %.3f |" % (profile, job, c, p, p / c))


if __name__ == "__main__":
    main()
