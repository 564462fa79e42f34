#!/usr/bin/python3
"""Check that libpcwt's aggregate compression ratio on the WG04 images matches the size model.

The model is shared/reference/pcwt_model.py (pcwt_bits: the exact bit count of the reference
encoder, 9-word header, 32-bit group lengths, byte-aligned groups), the same one that produced
shared/notes/compression-model.md. Both sides use 6 levels and 32x32 groups (min_ll default).

usage: wg04_ratio.py --manifest BUILD/corpus/manifest.tsv --sizes BUILD/.../pcwt_corpus_sizes
                     --reference SHARED/reference --testdata SHARED/testdata [--tolerance 0.01]
                     [--model-only]

Images (taken from the manifest written by export_corpus.py):
  * the WG04 DICOM originals: wg04/dicom_unc/*_UNC.dcm and pylibjpeg-data/RG2_JLSL.dcm
    (CT1 CT2 MR1 MR3 MR4 NM1 XA1 RG2) -- the set the acceptance check names;
  * plus the WG04 images that exist only as JPEG-LS codestreams (wg04/jls/MR2.JLS, RG3.JLS),
    decoded through gdcmconv by the exporter; with them the set is the 10 WG04 images of the notes.
Each set's aggregate ratio (total raw bytes / total coded bytes) must agree within the tolerance.
The model's per-image ratios are also checked against the table in compression-model.md (to 2
decimals), which proves the model is fed the same images as the notes.

Exit status: 0 pass, 1 fail, 77 skipped (no testdata, export skipped, numpy/pydicom missing).
"""
import argparse
import os
import subprocess
import sys

SKIP = 77
LEVELS, GROUP = 6, 32
# PCWT baseline column of shared/notes/compression-model.md (6 levels, 32x32 groups).
NOTES_TABLE = {'CT1': 2.83, 'CT2': 3.85, 'MR1': 2.18, 'MR3': 4.32, 'MR4': 4.13, 'NM1': 5.29,
               'RG2': 4.27, 'RG3': 6.60, 'XA1': 4.67, 'MR2': 3.34}
WG04 = ['CT1', 'CT2', 'MR1', 'MR2', 'MR3', 'MR4', 'NM1', 'RG2', 'RG3', 'XA1']
# DICOM originals (signedness known), by WG04 name.
DICOM_SOURCES = {n: 'wg04/dicom_unc/%s_UNC.dcm' % n for n in
                 ['CT1', 'CT2', 'MR1', 'MR3', 'MR4', 'NM1', 'XA1']}
DICOM_SOURCES['RG2'] = 'pylibjpeg-data/RG2_JLSL.dcm'


def read_manifest(path):
    status, rows = '', []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#pcwt-corpus'):
                status = line
            if not line or line.startswith('#'):
                continue
            rows.append(line.split('\t'))
    return status, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--manifest', required=True)
    ap.add_argument('--sizes')
    ap.add_argument('--reference', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--tolerance', type=float, default=0.01)
    ap.add_argument('--model-only', action='store_true')
    a = ap.parse_args()

    if not os.path.isdir(a.testdata):
        print('shared/testdata not found at %s, WG04 ratio check skipped' % a.testdata)
        return SKIP
    try:
        import numpy as np
        sys.dont_write_bytecode = True  # leave shared/reference untouched
        sys.path.insert(0, os.path.abspath(a.reference))
        import pcwt_model  # imports numpy and pydicom
    except ImportError as e:
        print('WG04 ratio check skipped: %s (run with /usr/bin/python3, which has python3-numpy '
              'and python3-pydicom)' % e)
        return SKIP
    if not os.path.exists(a.manifest):
        print('FAIL: manifest %s not found although %s exists (the corpus_export fixture should '
              'have written it)' % (a.manifest, a.testdata))
        return 1
    status, rows = read_manifest(a.manifest)
    if 'status=skipped' in status:
        print('WG04 ratio check skipped: corpus export skipped (%s)' % status)
        return SKIP

    # Pick one frame per WG04 image: the DICOM original if there is one, else the JLS codestream.
    chosen = {}
    for r in rows:
        src = r[1]
        for name in WG04:
            if name in DICOM_SOURCES and src.endswith('/' + DICOM_SOURCES[name]):
                chosen[name] = (r, 'dicom')
            elif src.endswith('/wg04/jls/%s.JLS' % name) and name not in DICOM_SOURCES:
                chosen[name] = (r, 'jls')
    missing = [n for n in WG04 if n not in chosen]
    if missing:
        print('FAIL: WG04 images missing from %s: %s' % (a.manifest, ' '.join(missing)))
        return 1

    # The model on each image, with the values pydicom's pixel_array gives (sign-extended if signed).
    model = {}
    for name in WG04:
        r, kind = chosen[name]
        w, h, comps, ba, bs, signed = (int(v) for v in r[2:8])
        assert comps == 1 and ba == 16, (name, r)
        raw = np.fromfile(os.path.join(os.path.dirname(a.manifest), r[0]), dtype='<u2')
        vals = raw.astype(np.int64).reshape(h, w)
        if signed:
            vals = np.where(vals & (1 << (bs - 1)), vals | (-1 << bs), vals & ((1 << bs) - 1))
        bits = pcwt_model.pcwt_bits(vals, LEVELS, GROUP, GROUP)
        model[name] = (w * h * 2, bits / 8.0)

    ours = {}
    if not a.model_only:
        if not a.sizes or not os.path.exists(a.sizes):
            print('FAIL: size tool %s not found' % a.sizes)
            return 1
        sub = os.path.join(os.path.dirname(a.manifest), 'wg04_manifest.tsv')
        with open(sub, 'w') as f:
            f.write(status + '\n')
            for name in WG04:
                f.write('\t'.join(chosen[name][0]) + '\n')
        p = subprocess.run([a.sizes, sub, str(LEVELS), str(GROUP), str(GROUP)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            print('FAIL: %s exited with %d' % (a.sizes, p.returncode))
            return 1
        lines = [l.split('\t') for l in p.stdout.splitlines() if l and not l.startswith('#')]
        for name, l in zip(WG04, lines):
            assert l[1] == chosen[name][0][1], (name, l)
            ours[name] = (int(l[2]), int(l[3]), int(l[4]), int(l[5]))

    ok = True
    print('WG04 compression ratio, %d levels, %dx%d groups: model = shared/reference/pcwt_model.py '
          'pcwt_bits (36-byte header), ours = libpcwt codestream (whole file)' % (LEVELS, GROUP, GROUP))
    print('%-4s %-30s %9s %9s %9s %7s %6s %7s %8s %5s' % (
        'img', 'source', 'raw B', 'model B', 'ours B', 'model', 'notes', 'ours', 'diff', 'hdr B'))
    for name in WG04:
        r, kind = chosen[name]
        raw_b, model_b = model[name]
        mr = raw_b / model_b
        src = r[1].replace('testdata/', '')
        our_b = '%9d' % ours[name][1] if name in ours else '%9s' % '-'
        line = '%-4s %-30s %9d %9.0f %s %7.3f %6.2f' % (name, src, raw_b, model_b, our_b, mr,
                                                         NOTES_TABLE[name])
        if abs(mr - NOTES_TABLE[name]) > 0.0051:
            line += '  <- model differs from the notes table'
            ok = False
        if name in ours:
            o_raw, o_coded, o_hdr, o_lv = ours[name]
            assert o_raw == raw_b
            orr = o_raw / o_coded
            line += ' %7.3f %+7.3f%% %5d' % (orr, 100.0 * (orr / mr - 1.0), o_hdr)
            if o_lv != LEVELS:
                line += '  (levels applied %d)' % o_lv
        print(line)

    sets = [('WG04 DICOM originals (8)', [n for n in WG04 if n in DICOM_SOURCES]),
            ('WG04 all 10 (with MR2, RG3 from .JLS)', WG04)]
    for label, names in sets:
        raw_t = sum(model[n][0] for n in names)
        mod_t = sum(model[n][1] for n in names)
        mr = raw_t / mod_t
        text = 'aggregate %-40s model %.4f' % (label, mr)
        if ours:
            our_t = sum(ours[n][1] for n in names)
            orr = raw_t / our_t
            diff = orr / mr - 1.0
            verdict = 'ok' if abs(diff) <= a.tolerance else 'FAIL (tolerance %g%%)' % (
                100 * a.tolerance)
            text += '  ours %.4f  diff %+.3f%%  %s' % (orr, 100.0 * diff, verdict)
            if abs(diff) > a.tolerance:
                ok = False
        print(text)
    print('PASS' if ok else 'FAIL')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
