#!/usr/bin/python3
"""pcwt-bench's jpeg2000-gpu codec (bench/pcwt_bench/codec_j2k_gpu.cpp): libpcwt's JPEG 2000 decoder
on the GPU decoding the openjpeg codec's codestreams.

usage: test_pcwt_bench_j2k_gpu.py --tool PCWT_BENCH --work DIR [--testdata DIR]

With --gpu on and --codecs openjpeg,jpeg2000-gpu, on generated images (8-bit PGM, 12-bit PGM, 16-bit
PGM using the full range, PPM, 12-bit signed raw of two frames, a 20x12 and a 3x700 image) and, when
present, the JPEG 2000 DICOM files of shared/testdata and testdata-jpeg2000: every frame of both
codecs lossless (so the GPU's samples are OpenJPEG's, word for word; a frame the GPU decoder refuses
fails the run), the same codestream sizes (the same streams), the whole set decoded in one batch
(mode 'N threads / GPU batch') and exact; an injected decode error in the GPU row is caught
(MISMATCH, exit 1). Exit 77 (skip) without a GPU (pcwt-bench says why).
"""
import argparse
import glob
import json
import os
import random
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pcwt_bench as tb  # noqa: E402  (its run, check and image helpers)

CODECS = ['openjpeg', 'jpeg2000-gpu']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--testdata', default='')
    a = ap.parse_args()
    tb.fresh(a.work)
    rng = random.Random(34)
    d = os.path.join(a.work, 'in')
    os.makedirs(d)
    tb.write_pgm(os.path.join(d, 'a8.pgm'), 61, 47, 255, 1, tb.smooth_image(rng, 61, 47, 1, 0, 255))
    tb.write_pgm(os.path.join(d, 'b12.pgm'), 130, 90, 4095, 1, tb.smooth_image(rng, 130, 90, 1, 0, 4095))
    tb.write_pgm(os.path.join(d, 'c16.pgm'), 64, 64, 65535, 1, [rng.randrange(65536) for _ in range(64 * 64)])
    tb.write_pgm(os.path.join(d, 'd.ppm'), 40, 33, 255, 3, tb.smooth_image(rng, 40, 33, 3, 0, 255))
    # small (fewer levels), yet enough bytes for a throughput the CSV's 2 decimals show
    tb.write_pgm(os.path.join(d, 'e20x12.pgm'), 20, 12, 4095, 1, tb.smooth_image(rng, 20, 12, 1, 0, 4095))
    tb.write_pgm(os.path.join(d, 'f3x700.pgm'), 3, 700, 1023, 1, tb.smooth_image(rng, 3, 700, 1, 0, 1023))
    raw = tb.smooth_image(rng, 33, 21 * 2, 1, -2048, 2047)
    with open(os.path.join(d, 'g.raw'), 'wb') as f:
        f.write(struct.pack('<%dh' % len(raw), *raw))
    # JPEG 2000 DICOM input (read by pcwt-bench's JPEG 2000 reader; the codecs code the samples)
    corpus = []
    if a.testdata:
        corpus = (sorted(glob.glob(os.path.join(a.testdata, 'pylibjpeg-data', '*J2K*.dcm'))) +
                  sorted(glob.glob(os.path.join(os.path.dirname(a.testdata), 'testdata-jpeg2000', '*.dcm'))))
    for k, src in enumerate(corpus):
        shutil.copyfile(src, os.path.join(d, 'corpus%d.dcm' % k))
    out = os.path.join(a.work, 'report')
    p = tb.run(a.tool, ['-n', '1', '-w', '0', '-j', '2', '--gpu', 'on', '--codecs', ','.join(CODECS),
                        '--raw', '33x21x12s', '-o', out, d])
    if p.returncode == 2 and 'unavailable' in p.stdout + p.stderr:
        print('SKIP: no GPU for pcwt-bench: %s' % (p.stdout + p.stderr).strip()[-400:])
        return tb.SKIP
    tb.check(p.returncode == 0, 'exit status %d\n%s\n%s' % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    rows = tb.read_csv(out + '.csv')
    names = sorted({r['image'] for r in rows if r['codec']})
    tb.check(len(names) >= 8, 'frames read: %s' % names)
    tb.check_lossless_rows(rows, names, CODECS)
    by = {(r['image'], r['codec']): r for r in rows}
    for n in names:
        tb.check(by.get((n, 'openjpeg'), {}).get('coded_bytes') == by.get((n, 'jpeg2000-gpu'), {}).get('coded_bytes'),
                 '%s: the same codestreams' % n)
    dj = json.load(open(out + '.json', encoding='utf-8'))
    ws = dj['summary']['codecs']['jpeg2000-gpu']['whole_set']
    tb.check(ws['status'] == 'ok' and ws['mode'].endswith('/ GPU batch') and ws.get('dec_mbps', 0) > 0,
             'jpeg2000-gpu whole set: %s' % ws)

    # the check is live: a decode error of the GPU row is a MISMATCH
    out2 = os.path.join(a.work, 'inject')
    p = tb.run(a.tool, ['-n', '1', '-w', '0', '--gpu', 'on', '--codecs', ','.join(CODECS), '--inject-mismatch',
                        'jpeg2000-gpu', '-o', out2, os.path.join(d, 'b12.pgm')], 1)
    rows = tb.read_csv(out2 + '.csv')
    g = [r for r in rows if r['codec'] == 'jpeg2000-gpu']
    tb.check(len(g) == 1 and g[0]['status'] == 'MISMATCH' and g[0]['lossless'] == 'false',
             'injected mismatch in jpeg2000-gpu: %s' % g)
    if tb.failures:
        print('%d check(s) failed' % len(tb.failures))
        return 1
    print('all checks passed (%d frames, %d from the corpus)' % (len(names), len(corpus)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
