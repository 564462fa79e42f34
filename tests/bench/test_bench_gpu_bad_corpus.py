#!/usr/bin/env python3
"""pcwt_bench_gpu on a corpus folder of codestreams it cannot read: one line naming the first file
and the count of the others, exit 1, never a crash (every loading thread failing at once used to
call exit() from each of them). No GPU needed: the corpus is read before the device is used.
  test_bench_gpu_bad_corpus.py TOOL WORK"""
import os
import random
import shutil
import subprocess
import sys

tool, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
rng = random.Random(7)
for i in range(64):
    with open(os.path.join(work, "f%02d.pcwt" % i), "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(200 + i)))
want = "pcwt_bench_gpu: bad codestream f00.pcwt (and 63 more files)\n"
for run in range(8):
    r = subprocess.run([tool, work, "--batches", "c", "--repeats", "1"], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 1 or r.stderr != want:
        print("run %d: exit %d, stderr %r (want exit 1, %r)" % (run, r.returncode, r.stderr, want))
        sys.exit(1)
print("8 runs: exit 1 and one line each")
