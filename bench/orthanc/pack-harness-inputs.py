#!/usr/bin/python3
"""The images of run-orthanc-bench.py (the Explicit VR Little Endian copies of the corpus's CT,
MR, CR, DX, XA and NM images, one per SOP Instance UID) copied flat into DEST, for
run-harness-bench.sh on a machine without the corpus, gdcmconv or pydicom (the GPU machine).

usage: pack-harness-inputs.py --shared ../shared DEST"""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("bench", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                    "run-orthanc-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shared", required=True)
    p.add_argument("dest")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="pcwt-harness-pack-")
    files = bench.images(a.shared, work)
    os.makedirs(a.dest, exist_ok=True)
    total = 0
    for i, (f, modality) in enumerate(files):
        out = os.path.join(a.dest, "%03d-%s.dcm" % (i, modality))
        shutil.copyfile(f, out)
        total += os.path.getsize(out)
    shutil.rmtree(work, ignore_errors=True)
    print("%d images, %d bytes in %s" % (len(files), total, a.dest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
