#!/usr/bin/python3
"""Tests of pcwt-bench: run the tool, then check what it printed and wrote.

usage: test_pcwt_bench.py MODE --tool PCWT_BENCH --work DIR [--testdata DIR]

MODE:
  usage     option errors, and a run where no frame can be read, exit with status 2 and say why;
            --help and --version exit 0
  raw_pgm   a directory of generated images (raw with 2 frames, PGM 8- and 16-bit, PPM) plus a
            non-image file and a raw file of the wrong size: every codec lossless on every frame,
            the words the tool read are those written (--save-frames), the bad raw reported, the
            device-resident columns (dev_*) present and empty / n/a for the CPU codecs; then the
            default codec set: without a GPU the GPU codecs (GPU_CODECS) are listed as
            not run and every device-resident cell is empty / n/a; with one, they are lossless and
            pcwt-gpu has device-resident figures (pcwt-jpegls-gpu: encode a figure or n/a with why,
            decode n/a: no GPU JPEG-LS decoder)
  mismatch  --inject-mismatch charls: a MISMATCH row with lossless=false, an alert in the HTML,
            a loud message on stderr and exit status 1; the other codec still lossless
  options   what pcwt-bench took over from the former single-thread CPU benchmark, on a generated
            image: pcwt-cpu codes libpcwt's default profile (compact: the bytes of pcwt-compact-cpu,
            not those of pcwt-baseline-cpu); --levels, --group, --lifting change PCWT's coded size
            and are named in its settings; --profile entropy / baseline run pcwt-entropy-cpu /
            pcwt-baseline-cpu in place of pcwt-cpu, --profile compact leaves pcwt-cpu as it is; bad
            values exit 2; the Markdown report holds the CSV's ratios per frame and the aggregate row
  wg04      --wg04 (the WG04 set from shared/testdata) on one thread: the 10 frames, the sign
            taken from the DICOM originals, the known ratios of pcwt-cpu (the compact profile),
            pcwt-baseline-cpu and charls. Exit 77 (skip) without shared/testdata.
  jpegxl    the JPEG XL peer (libjxl) on generated images: 8-bit PGM, 12-bit PGM, PPM, 12-bit signed
            raw (2 frames), a 16-bit raw using the full range and a 2-bit raw: lossless rows at
            efforts 1 and 3 with the effort named in the settings and another size for some frame,
            an injected decode error reported as MISMATCH (the check is live), bad
            --jxl-effort values exit 2, and jpegxl not in the default codec set. Exit 77 (skip)
            when pcwt-bench was built without libjxl (it then lists jpegxl as not run, with why).
  corpus    a few small files of shared/testdata (CT, multi-frame MR, planar RGB, JPEG-LS, JPEG 2000
            and JPEG lossless DICOM, a JPEG-LS codestream with its DICOM original beside it) plus
            corrupted inputs, all CPU codecs: a lossless row per codec and frame, corrupted inputs
            reported and not fatal, the HTML well-formed with every frame and a JPEG thumbnail each,
            the JSON consistent, known WG04 ratios. Exit 77 (skip) without shared/testdata.

Only the standard library is used (Debian's /usr/bin/python3).
"""
import argparse
import base64
import csv
import html.parser
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77
CPU_CODECS = ['pcwt-cpu', 'pcwt-jpegls', 'charls', 'openjpeg', 'openjph']
CSV_COLUMNS = ['image', 'file', 'frame', 'modality', 'photometric', 'source', 'width', 'height',
               'components', 'bits_allocated', 'bits_stored', 'signed', 'planar', 'raw_bytes',
               'peer_input', 'codec', 'status', 'lossless', 'coded_bytes', 'ratio', 'enc_ms', 'dec_ms',
               'enc_mbps', 'dec_mbps', 'dev_enc_ms', 'dev_dec_ms', 'dev_enc_mbps', 'dev_dec_mbps', 'message',
               'dev_message']
DEV_COLUMNS = ['dev_enc_ms', 'dev_dec_ms', 'dev_enc_mbps', 'dev_dec_mbps']
GPU_CODECS = ['jpeg2000-gpu', 'pcwt-gpu', 'pcwt-jpegls-gpu']  # sorted
VOID_ELEMENTS = {'meta', 'img', 'br', 'link', 'hr', 'input', 'col', 'area', 'base', 'wbr'}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: ' + what)
    return cond


def run(tool, args, expect_rc=None):
    p = subprocess.run([tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if expect_rc is not None:
        check(p.returncode == expect_rc, 'exit status %d, expected %d for %s\nstderr:\n%s' %
              (p.returncode, expect_rc, ' '.join(args), p.stderr[-3000:]))
    return p


def fresh(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)


def read_csv(path):
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    check(rows and rows[0] == CSV_COLUMNS, 'CSV header is %s' % (rows[0] if rows else None))
    for r in rows[1:]:
        check(len(r) == len(CSV_COLUMNS), 'CSV row with %d fields: %s' % (len(r), r))
    return [dict(zip(CSV_COLUMNS, r)) for r in rows[1:]]


def check_lossless_rows(rows, names, codecs):
    """Exactly one row per frame and codec, each ok and lossless with a sane size and speed."""
    for name in names:
        for codec in codecs:
            mine = [r for r in rows if r['image'] == name and r['codec'] == codec]
            if not check(len(mine) == 1, '%d CSV rows for %s / %s' % (len(mine), name, codec)):
                continue
            r = mine[0]
            check(r['status'] == 'ok' and r['lossless'] == 'true',
                  '%s / %s: status %s lossless %s (%s)' % (name, codec, r['status'], r['lossless'],
                                                          r['message']))
            if r['status'] == 'ok':
                raw, coded = int(r['raw_bytes']), int(r['coded_bytes'])
                check(coded > 0 and abs(float(r['ratio']) - raw / coded) < 1e-3 * raw / coded,
                      '%s / %s: ratio %s for %d / %d bytes' % (name, codec, r['ratio'], raw, coded))
                check(float(r['enc_mbps']) > 0 and float(r['dec_mbps']) > 0,
                      '%s / %s: no throughput' % (name, codec))


def check_no_device_figures(rows, d, stdout, html_path):
    """CPU codecs (and every codec of a run without GPU codecs) have no device-resident figures:
    empty CSV cells, null in the JSON, n/a in the terminal table and the HTML summary."""
    for r in rows:
        if r['codec'] and r['codec'] not in GPU_CODECS:
            check(all(r[k] == '' for k in DEV_COLUMNS) and r['dev_message'] == '',
                  '%s / %s: device-resident cells not empty: %s' % (r['image'], r['codec'],
                                                                     [r[k] for k in DEV_COLUMNS + ['dev_message']]))
    if d:
        for img in d['images']:
            for cid, res in img['results'].items():
                if cid not in GPU_CODECS and res['status'] == 'ok':
                    check(res.get('dev_enc_mbps', 0) is None and res.get('dev_dec_mbps', 0) is None,
                          'JSON %s / %s device-resident: %s %s' % (img['name'], cid, res.get('dev_enc_mbps', 0),
                                                                   res.get('dev_dec_mbps', 0)))
        for cid, sm in d['summary']['codecs'].items():
            if cid not in GPU_CODECS:
                dr = sm.get('device_resident', {})
                check(dr.get('enc_mbps', 0) is None and dr.get('dec_mbps', 0) is None,
                      'JSON summary device_resident of %s: %s' % (cid, dr))
    lines = stdout.splitlines()
    head = [k for k, l in enumerate(lines) if l.startswith('codec ') and 'dev enc' in l and 'dev dec' in l]
    if check(len(head) == 1, 'terminal aggregate header with dev enc / dev dec columns'):
        h = lines[head[0]]
        ends = [h.index(col) + len(col) for col in ('dev enc', 'dev dec')]  # right-aligned, 9 wide
        seen = 0
        for line in lines[head[0] + 1:]:
            cid = line.split(' ', 1)[0]
            if not line or cid not in (d['summary']['codecs'] if d else {}):
                break
            seen += 1
            if cid not in GPU_CODECS:
                cells = [line[e - 9:e].strip() for e in ends]
                check(cells == ['n/a', 'n/a'], 'terminal device-resident cells of %s: %s' % (cid, cells))
        check(seen == (len(d['summary']['codecs']) if d else 0), 'terminal aggregate rows: %d' % seen)
    text = open(html_path, encoding='utf-8').read()
    check('encode MB/s<br/>device-resident' in text and 'decode MB/s<br/>device-resident' in text,
          'HTML summary has the device-resident columns')
    check('CPU codec: no device-resident figure' in text, 'HTML device-resident n/a cells of the CPU codecs')


class BalanceChecker(html.parser.HTMLParser):
    """Every non-void element closed in order (html.parser itself accepts anything)."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags = [], [], {}

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag not in VOID_ELEMENTS:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append('</%s> closes <%s>' % (tag, self.stack[-1] if self.stack else None))
        else:
            self.stack.pop()


def check_html(path, names, problems=(), expect_alert=False):
    text = open(path, encoding='utf-8').read()
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        check(False, 'HTML is not well-formed: %s' % e)
        return
    check(root.tag == 'html', 'root element is %s' % root.tag)
    bc = BalanceChecker()
    bc.feed(text)
    bc.close()
    check(not bc.errors and not bc.stack, 'unbalanced HTML: %s %s' % (bc.errors[:5], bc.stack))
    # Self-contained: no scripts, no external resources.
    check('<script' not in text and '<link' not in text, 'HTML has a script or a link')
    urls = re.findall(r'(?:src|href)="(?!data:)[^"]*"', text)
    check(not urls, 'HTML references external resources: %s' % urls[:3])
    svg = '{http://www.w3.org/2000/svg}svg'
    check(len(list(root.iter(svg))) >= 4, 'HTML has %d SVG charts' % len(list(root.iter(svg))))
    # Every frame named, with a JPEG thumbnail.
    alltext = ''.join(root.itertext())
    for n in names:
        check(n in alltext, 'HTML does not name %s' % n)
    thumbs = {}
    for img in root.iter('img'):
        src, alt = img.get('src', ''), img.get('alt', '')
        if check(src.startswith('data:image/jpeg;base64,'), 'thumbnail of %s is not a JPEG data URI' % alt):
            data = base64.b64decode(src.split(',', 1)[1], validate=True)
            check(data[:3] == b'\xff\xd8\xff' and data[-2:] == b'\xff\xd9', 'thumbnail of %s is not a JPEG' % alt)
        thumbs[alt] = thumbs.get(alt, 0) + 1
    for n in names:
        check(thumbs.get(n) == 1, '%d thumbnails for %s' % (thumbs.get(n, 0), n))
    check(len(thumbs) == len(names), '%d thumbnails for %d frames' % (len(thumbs), len(names)))
    for p in problems:
        check(p in alltext, 'HTML does not list the unread input %s' % p)
    has_alert = 'class="alert"' in text and 'MISMATCH' in alltext
    check(has_alert == expect_alert, 'HTML mismatch alert present: %s, expected %s' % (has_alert, expect_alert))


def check_json(path, names, codecs, mismatches=0):
    try:
        d = json.load(open(path, encoding='utf-8'))
    except ValueError as e:
        check(False, 'JSON does not parse: %s' % e)
        return None
    check([i['name'] for i in d['images']] == names, 'JSON images %s' % [i['name'] for i in d['images']])
    check([c['id'] for c in d['codecs']] == codecs, 'JSON codecs %s' % [c['id'] for c in d['codecs']])
    check(d['summary']['mismatches'] == mismatches, 'JSON mismatches %s' % d['summary']['mismatches'])
    for c in codecs:
        s = d['summary']['codecs'].get(c)
        if check(s is not None, 'JSON summary lacks %s' % c) and mismatches == 0:
            check(s['ratio'] > 0 and s['enc_mbps_1thread'] > 0 and s['dec_mbps_1thread'] > 0,
                  'JSON summary of %s: %s' % (c, s))
            check(s['whole_set']['status'] == 'ok' and s['whole_set']['enc_mbps'] > 0,
                  'JSON whole-set result of %s: %s' % (c, s['whole_set']))
    return d


# ------------------------------------------------------------------------------------------------

def mode_usage(a):
    fresh(a.work)
    for args, why in [([], 'PATH'), (['--repeats', '0', 'x'], '--repeats'),
                      (['--codecs', 'nosuch', 'x'], 'nosuch'), (['--raw', '12x', 'x'], '--raw'),
                      (['--gpu', 'maybe', 'x'], '--gpu'), (['--frobnicate', 'x'], 'frobnicate')]:
        p = run(a.tool, args, 2)
        check(why in p.stderr, 'the error for %s does not mention %s: %r' % (args, why, p.stderr))
    p = run(a.tool, ['-q', '-o', os.path.join(a.work, 'none'), os.path.join(a.work, 'absent.dcm')], 2)
    check('no frame could be read' in p.stderr, 'a run without any frame says so: %r' % p.stderr)
    p = run(a.tool, ['--help'], 0)
    check('usage: pcwt-bench' in p.stdout and '--raw' in p.stdout, '--help text')
    p = run(a.tool, ['--version'], 0)
    check('pcwt-bench' in p.stdout, '--version text')


def write_pgm(path, w, h, maxval, comps, values):
    with open(path, 'wb') as f:
        f.write(b'%s\n# made by test_pcwt_bench.py\n%d %d\n%d\n' % (b'P6' if comps == 3 else b'P5', w, h, maxval))
        f.write(struct.pack('>%d%s' % (len(values), 'H' if maxval > 255 else 'B'), *values))


def smooth_image(rng, w, h, comps, lo, hi):
    out = []
    for y in range(h):
        for x in range(w):
            for c in range(comps):
                v = lo + (hi - lo) * ((x * 3 + y * 5 + c * 17) % 97) // 97 + rng.randint(-3, 3)
                out.append(min(hi, max(lo, v)))
    return out


def mode_raw_pgm(a):
    fresh(a.work)
    rng = random.Random(7)
    d = os.path.join(a.work, 'in')
    os.makedirs(os.path.join(d, 'sub'))
    g8 = smooth_image(rng, 37, 23, 1, 0, 255)
    g16 = smooth_image(rng, 40, 30, 1, 0, 4095)
    rgb = smooth_image(rng, 20, 17, 3, 0, 255)
    write_pgm(os.path.join(d, 'a8.pgm'), 37, 23, 255, 1, g8)
    write_pgm(os.path.join(d, 'sub', 'b12.pgm'), 40, 30, 4095, 1, g16)
    write_pgm(os.path.join(d, 'c.ppm'), 20, 17, 255, 3, rgb)
    # Two frames of 33x21 12-bit signed samples, sign-extended into 16-bit little-endian words.
    raw_vals = smooth_image(rng, 33, 21 * 2, 1, -2048, 2047)
    with open(os.path.join(d, 'd.raw'), 'wb') as f:
        f.write(struct.pack('<%dh' % len(raw_vals), *raw_vals))
    with open(os.path.join(d, 'notes.txt'), 'w') as f:
        f.write('not an image\n')
    bad_raw = os.path.join(a.work, 'short.raw')
    with open(bad_raw, 'wb') as f:
        f.write(b'\0' * 101)
    out = os.path.join(a.work, 'report')
    frames = os.path.join(a.work, 'frames')
    p = run(a.tool, ['-n', '1', '-w', '0', '--codecs', ','.join(CPU_CODECS), '--raw', '33x21x12s',
                     '--save-frames', frames, '-o', out, d, bad_raw], 0)
    names = ['a8.pgm', 'c.ppm', 'd.raw#1', 'd.raw#2', 'sub/b12.pgm']
    rows = read_csv(out + '.csv')
    check_lossless_rows(rows, names, CPU_CODECS)
    geo = {r['image']: r for r in rows if r['codec'] == 'pcwt-cpu'}
    for n, (w, h, c, ba, bs, sg) in {'a8.pgm': (37, 23, 1, 8, 8, 'false'), 'sub/b12.pgm': (40, 30, 1, 16, 12, 'false'),
                                     'c.ppm': (20, 17, 3, 8, 8, 'false'), 'd.raw#2': (33, 21, 1, 16, 12, 'true')}.items():
        r = geo.get(n, {})
        got = (r.get('width'), r.get('height'), r.get('components'), r.get('bits_allocated'), r.get('bits_stored'), r.get('signed'))
        check(got == tuple(str(v) for v in (w, h, c, ba, bs, sg)), '%s read as %s' % (n, got))
    bad = [r for r in rows if r['image'] == bad_raw]
    check(len(bad) == 1 and bad[0]['status'].startswith('unreadable') and bad[0]['lossless'] == '',
          'the short raw file is reported unreadable: %s' % bad)
    check(bad_raw in p.stdout and 'unreadable' in p.stdout, 'the short raw file is in the terminal table')
    check('notes.txt' not in open(out + '.csv').read(), 'a non-image file in a directory is not a row')
    # The words the tool read are the words written (report order = names order).
    expect = [struct.pack('<%dB' % len(g8), *g8), struct.pack('<%dB' % len(rgb), *rgb),
              struct.pack('<%dh' % (33 * 21), *raw_vals[:33 * 21]),
              struct.pack('<%dh' % (33 * 21), *raw_vals[33 * 21:]), struct.pack('<%dH' % len(g16), *g16)]
    for i, (n, e) in enumerate(zip(names, expect)):
        path = os.path.join(frames, '%04d.raw' % i)
        check(os.path.exists(path) and open(path, 'rb').read() == e, 'words read from %s differ' % n)
    check_html(out + '.html', names, problems=[bad_raw])
    dj = check_json(out + '.json', names, CPU_CODECS)
    check_no_device_figures(rows, dj, p.stdout, out + '.html')
    check(dj is not None and dj['run']['skipped_codecs'] == [], 'codecs not asked for are not listed as skipped')

    # The default codec set: the GPU codecs (PCWT and libpcwt's JPEG-LS encoder on the GPU) when a
    # device works, with end-to-end and device-resident figures; otherwise left out with the reason
    # and every device-resident cell n/a (CSV: empty).
    out2 = os.path.join(a.work, 'default')
    two = [os.path.join(d, 'sub', 'b12.pgm'), os.path.join(d, 'c.ppm')]  # named as given
    p = run(a.tool, ['-n', '2', '-w', '1', '-o', out2] + two, 0)
    dj = json.load(open(out2 + '.json', encoding='utf-8'))
    rows = read_csv(out2 + '.csv')
    ids = [c['id'] for c in dj['codecs']]
    if dj['run']['gpu'] != 'used':
        skipped = {x['id']: x['why'] for x in dj['run']['skipped_codecs']}
        check(sorted(skipped) == GPU_CODECS and all(skipped.values()),
              'without a GPU the GPU codecs are listed as not run, with why: %s' % dj['run']['skipped_codecs'])
        check(ids == CPU_CODECS, 'codecs of a run without GPU: %s' % ids)
        for cid in GPU_CODECS:
            check('codec %s not run' % cid in p.stdout, 'the terminal says %s was not run' % cid)
            check(cid in open(out2 + '.html', encoding='utf-8').read(), 'the HTML says %s was not run' % cid)
        check('dev enc / dev dec: n/a' in p.stdout, 'the terminal says why the device-resident columns are n/a')
        check_no_device_figures(rows, dj, p.stdout, out2 + '.html')
        check_lossless_rows(rows, two, CPU_CODECS)
    else:
        check(all(c in ids for c in GPU_CODECS), 'codecs of a run with a GPU: %s' % ids)
        check_lossless_rows(rows, two, ids)
        check_no_device_figures(rows, dj, p.stdout, out2 + '.html')
        by = {(r['image'], r['codec']): r for r in rows}
        for n in two:
            g = by.get((n, 'pcwt-gpu'), {})
            check(float(g.get('dev_enc_mbps') or 0) > 0 and float(g.get('dev_dec_mbps') or 0) > 0,
                  '%s / pcwt-gpu device-resident: %s' % (n, g))
            j = by.get((n, 'pcwt-jpegls-gpu'), {})
            check(j.get('dev_dec_mbps') == '' and 'no GPU JPEG-LS decoder' in j.get('dev_message', ''),
                  '%s / pcwt-jpegls-gpu has no device-resident decode: %s' % (n, j))
            check(j.get('coded_bytes') == by.get((n, 'charls'), {}).get('coded_bytes'),
                  '%s: the GPU JPEG-LS encoder writes what CharLS writes' % n)
            k = by.get((n, 'jpeg2000-gpu'), {})
            check(k.get('coded_bytes') == by.get((n, 'openjpeg'), {}).get('coded_bytes'),
                  '%s: jpeg2000-gpu decodes the openjpeg codec\'s codestreams' % n)
        dr = dj['summary']['codecs']['pcwt-gpu']['device_resident']
        check(dr['enc_status'] == 'ok' and dr['enc_mbps'] > 0 and dr['dec_status'] == 'ok' and dr['dec_mbps'] > 0,
              'pcwt-gpu whole-set device-resident: %s' % dr)
        dr = dj['summary']['codecs']['pcwt-jpegls-gpu']['device_resident']
        check(dr['dec_mbps'] is None and dr.get('dec_message'), 'pcwt-jpegls-gpu whole-set device decode: %s' % dr)
        # The device JPEG-LS encode is a figure, or n/a with the reason (never a failure).
        check(dr['enc_status'] in ('ok', 'n/a') and (dr['enc_status'] == 'ok' or dr.get('enc_message')),
              'pcwt-jpegls-gpu whole-set device encode: %s' % dr)


def mode_mismatch(a):
    fresh(a.work)
    rng = random.Random(11)
    img = os.path.join(a.work, 'm.pgm')
    write_pgm(img, 48, 40, 1023, 1, smooth_image(rng, 48, 40, 1, 0, 1023))
    out = os.path.join(a.work, 'report')
    p = run(a.tool, ['-n', '1', '-w', '0', '--codecs', 'pcwt-cpu,charls', '--inject-mismatch', 'charls',
                     '-o', out, img], 1)
    check('ROUND TRIP MISMATCH' in p.stderr, 'no loud message on stderr')
    check('MISMATCH' in p.stdout, 'no MISMATCH in the terminal table')
    rows = read_csv(out + '.csv')
    ch = [r for r in rows if r['codec'] == 'charls']
    check(len(ch) == 1 and ch[0]['status'] == 'MISMATCH' and ch[0]['lossless'] == 'false' and
          'differ' in ch[0]['message'], 'charls row: %s' % ch)
    check_lossless_rows(rows, [img], ['pcwt-cpu'])
    check_html(out + '.html', [img], expect_alert=True)
    d = check_json(out + '.json', [img], ['pcwt-cpu', 'charls'], mismatches=1)
    if d:
        check(d['images'][0]['results']['charls']['lossless'] is False, 'JSON charls lossless is not false')


CORPUS = [  # (file under testdata, where it goes under the input folder)
    ('debian-python3-pydicom/CT_small.dcm', 'ct/CT_small.dcm'),
    ('pydicom-data/emri_small.dcm', 'mr/emri_small.dcm'),
    ('pydicom-data/color-pl_PC1.dcm', 'us/color-pl_PC1.dcm'),
    ('pylibjpeg-data/RG2_JLSL.dcm', 'jls/RG2_JLSL.dcm'),
    ('pylibjpeg-data/J2K_pixelrep_mismatch_CT13bit.dcm', 'j2k/J2K_CT13bit.dcm'),
    ('pylibjpeg-data/JPEGLosslessP14SV1_1s_1f_u_08_08_US8bit.dcm', 'jpeg/US8bit.dcm'),
    ('wg04/jls/CT2.JLS', 'wg04/jls/CT2.JLS'),
    ('wg04/dicom_unc/CT2_UNC.dcm', 'wg04/dicom_unc/CT2_UNC.dcm'),
]


def mode_corpus(a):
    missing = [src for src, _ in CORPUS if not os.path.exists(os.path.join(a.testdata, src))]
    if missing:
        print('SKIP: shared/testdata is absent or incomplete at %s (missing %s)' % (a.testdata, missing[:3]))
        return SKIP
    fresh(a.work)
    d = os.path.join(a.work, 'in')
    for src, dst in CORPUS:
        os.makedirs(os.path.dirname(os.path.join(d, dst)), exist_ok=True)
        shutil.copyfile(os.path.join(a.testdata, src), os.path.join(d, dst))
    # Corrupted and unreadable inputs.
    ct = open(os.path.join(a.testdata, 'debian-python3-pydicom/CT_small.dcm'), 'rb').read()
    bad = os.path.join(d, 'bad')
    os.makedirs(bad)
    with open(os.path.join(bad, 'truncated.dcm'), 'wb') as f:
        f.write(ct[:len(ct) * 3 // 5])
    with open(os.path.join(bad, 'garbage.dcm'), 'wb') as f:
        f.write(bytes(random.Random(3).randrange(256) for _ in range(5000)))
    jls = open(os.path.join(a.testdata, 'wg04/jls/CT2.JLS'), 'rb').read()
    with open(os.path.join(bad, 'truncated.jls'), 'wb') as f:
        f.write(jls[:len(jls) // 3])
    absent = os.path.join(a.work, 'does-not-exist.dcm')
    out = os.path.join(a.work, 'report')
    p = run(a.tool, ['-n', '1', '-w', '0', '-j', '2', '--gpu', 'off', '-o', out, d, absent], 0)

    names = (['ct/CT_small.dcm', 'j2k/J2K_CT13bit.dcm', 'jls/RG2_JLSL.dcm', 'jpeg/US8bit.dcm'] +
             ['mr/emri_small.dcm#%d' % k for k in range(1, 11)] +
             ['us/color-pl_PC1.dcm', 'wg04/dicom_unc/CT2_UNC.dcm', 'wg04/jls/CT2.JLS'])
    problems = ['bad/garbage.dcm', 'bad/truncated.dcm', 'bad/truncated.jls', absent]
    rows = read_csv(out + '.csv')
    check(sorted({r['image'] for r in rows if r['codec']}) == sorted(names),
          'frames in the CSV: %s' % sorted({r['image'] for r in rows if r['codec']}))
    check_lossless_rows(rows, names, CPU_CODECS)
    for n in problems:
        mine = [r for r in rows if r['image'] == n]
        check(len(mine) == 1 and mine[0]['status'].startswith('unreadable') and mine[0]['codec'] == '' and
              mine[0]['lossless'] == '', 'corrupted input %s: %s' % (n, mine))
        check(n in p.stdout, 'corrupted input %s is not in the terminal table' % n)
    check('Aggregate over the %d frames' % len(names) in p.stdout, 'terminal aggregate line')
    by = {(r['image'], r['codec']): r for r in rows}
    # What the readers found.
    expect = {'ct/CT_small.dcm': ('CT', '128', '128', '1', '16', 'true'),
              'mr/emri_small.dcm#3': ('MR', '64', '64', '1', '12', 'false'),
              'us/color-pl_PC1.dcm': ('US', '256', '120', '3', '8', 'false'),
              'jls/RG2_JLSL.dcm': ('CR', '1760', '2140', '1', '10', 'false'),
              'j2k/J2K_CT13bit.dcm': ('CT', '512', '512', '1', '13', 'true'),
              'jpeg/US8bit.dcm': ('US', '1024', '768', '1', '8', 'false'),
              # sign and modality of the codestream from the identical DICOM beside it
              'wg04/jls/CT2.JLS': ('CT', '512', '512', '1', '16', 'true')}
    for n, e in expect.items():
        r = by.get((n, 'pcwt-cpu'), {})
        got = tuple(r.get(k) for k in ('modality', 'width', 'height', 'components', 'bits_stored', 'signed'))
        check(got == e, '%s read as %s, expected %s' % (n, got, e))
    check(by.get(('us/color-pl_PC1.dcm', 'pcwt-cpu'), {}).get('planar') == 'true', 'color-pl_PC1 not planar')
    for n in names:
        # libpcwt's JPEG-LS encoder is byte-identical to CharLS: same sizes.
        a_, b_ = by.get((n, 'pcwt-jpegls'), {}), by.get((n, 'charls'), {})
        check(a_.get('coded_bytes') == b_.get('coded_bytes'),
              '%s: pcwt-jpegls %s bytes, charls %s' % (n, a_.get('coded_bytes'), b_.get('coded_bytes')))
    # Known WG04 ratios (shared/notes/anchors-peers.md): CT2 JPEG-LS 4.54, J2K 4.38-4.39, HTJ2K 4.07.
    for codec, want in [('charls', 4.539), ('openjpeg', 4.385), ('openjph', 4.073)]:
        for n in ('wg04/jls/CT2.JLS', 'wg04/dicom_unc/CT2_UNC.dcm'):
            got = float(by.get((n, codec), {}).get('ratio') or 0)
            check(abs(got - want) < 0.01, '%s / %s ratio %.4f, expected about %.3f' % (n, codec, got, want))
    check_html(out + '.html', names, problems=problems)
    dj = check_json(out + '.json', names, CPU_CODECS)
    check_no_device_figures(rows, dj, p.stdout, out + '.html')
    if dj:
        check(sorted(x['id'] for x in dj['run']['skipped_codecs']) == GPU_CODECS and
              all(x['why'] == '--gpu off' for x in dj['run']['skipped_codecs']),
              'JSON skipped codecs with --gpu off: %s' % dj['run']['skipped_codecs'])
        check(dj['summary']['common_frames'] == len(names), 'JSON common_frames %s' % dj['summary']['common_frames'])
        check(sorted(p_['name'] for p_ in dj['problems']) == sorted(problems), 'JSON problems %s' % dj['problems'])
        check(set(dj['summary']['by_modality']) == {'CT', 'MR', 'US', 'CR'}, 'JSON modalities %s' %
              list(dj['summary']['by_modality']))
    return 0


def read_markdown_table(path, heading):
    """The rows (lists of cells) of the first table under '## heading'."""
    lines = open(path, encoding='utf-8').read().splitlines()
    try:
        k = lines.index('## ' + heading)
    except ValueError:
        check(False, '%s has no section %s' % (path, heading))
        return []
    rows = []
    for line in lines[k + 1:]:
        if line.startswith('## '):
            break
        if line.startswith('|'):
            rows.append([c.strip() for c in line.strip().strip('|').split('|')])
    return rows


def mode_jpegxl(a):
    fresh(a.work)
    rng = random.Random(31)
    d = os.path.join(a.work, 'in')
    os.makedirs(d)
    write_pgm(os.path.join(d, 'a8.pgm'), 37, 23, 255, 1, smooth_image(rng, 37, 23, 1, 0, 255))
    write_pgm(os.path.join(d, 'b12.pgm'), 40, 30, 4095, 1, smooth_image(rng, 40, 30, 1, 0, 4095))
    write_pgm(os.path.join(d, 'c.ppm'), 20, 17, 255, 3, smooth_image(rng, 20, 17, 3, 0, 255))
    raw_vals = smooth_image(rng, 33, 21 * 2, 1, -2048, 2047)  # two 12-bit signed frames
    with open(os.path.join(d, 'd.raw'), 'wb') as f:
        f.write(struct.pack('<%dh' % len(raw_vals), *raw_vals))
    d16 = os.path.join(a.work, 'e16')
    os.makedirs(d16)
    full = [0, 65535, 1, 65534, 32767, 32768] + smooth_image(rng, 30, 20, 1, 0, 65535)[6:]
    with open(os.path.join(d16, 'e.raw'), 'wb') as f:
        f.write(struct.pack('<%dH' % len(full), *full))
    d2 = os.path.join(a.work, 'f2')
    os.makedirs(d2)
    with open(os.path.join(d2, 'f.raw'), 'wb') as f:
        f.write(struct.pack('<%dB' % (24 * 16), *[rng.randint(0, 3) for _ in range(24 * 16)]))
    runs = [(d, '33x21x12s', ['a8.pgm', 'b12.pgm', 'c.ppm', 'd.raw#1', 'd.raw#2']),
            (d16, '30x20x16', ['e.raw']), (d2, '24x16x2', ['f.raw'])]
    sizes = {}
    for effort in (1, 3):
        for k, (src, geo, names) in enumerate(runs):
            out = os.path.join(a.work, 'e%d_%d' % (effort, k))
            p = run(a.tool, ['-q', '-n', '1', '-w', '0', '--no-parallel', '--codecs', 'jpegxl,charls',
                             '--jxl-effort', str(effort), '--raw', geo, '-o', out, src], None)
            dj = json.load(open(out + '.json', encoding='utf-8')) if os.path.exists(out + '.json') else None
            skipped = {x['id']: x['why'] for x in dj['run']['skipped_codecs']} if dj else {}
            if 'jpegxl' in skipped:
                print('SKIP: pcwt-bench has no JPEG XL codec: %s' % skipped['jpegxl'])
                return SKIP
            check(p.returncode == 0, 'jpegxl effort %d on %s: exit %d\n%s' % (effort, src, p.returncode, p.stderr[-2000:]))
            if dj is None:
                continue
            st = {c['id']: c['settings'] for c in dj['codecs']}.get('jpegxl', '')
            check('effort %d' % effort in st and 'lossless' in st, 'jpegxl settings at effort %d: %r' % (effort, st))
            rows = read_csv(out + '.csv')
            check_lossless_rows(rows, names, ['jpegxl', 'charls'])
            for r in rows:
                if r['codec'] == 'jpegxl' and r['status'] == 'ok':
                    sizes[(effort, r['image'])] = int(r['coded_bytes'])
    # The effort reaches libjxl: another coding of some frame.
    check(any(sizes.get((1, n)) != sizes.get((3, n)) for n in ('b12.pgm', 'c.ppm', 'd.raw#1', 'e.raw')),
          'efforts 1 and 3 code every frame to the same size: %s' % sizes)
    # The round trip check is live for jpegxl too.
    out = os.path.join(a.work, 'mismatch')
    p = run(a.tool, ['-q', '-n', '1', '-w', '0', '--no-parallel', '--codecs', 'jpegxl', '--jxl-effort', '1',
                     '--inject-mismatch', 'jpegxl', '-o', out, os.path.join(d, 'b12.pgm')], 1)
    rows = read_csv(out + '.csv')
    check(len(rows) == 1 and rows[0]['status'] == 'MISMATCH' and rows[0]['lossless'] == 'false',
          'an injected jpegxl decode error is a MISMATCH: %s' % rows)
    for bad in (['--jxl-effort', '0'], ['--jxl-effort', '10'], ['--jxl-effort', 'x']):
        p = run(a.tool, bad + [os.path.join(d, 'a8.pgm')], 2)
        check('--jxl-effort' in p.stderr, 'the error for %s does not name the option: %r' % (bad, p.stderr))
    # Not in the default set (it is slow at its default effort): named only.
    out = os.path.join(a.work, 'default')
    run(a.tool, ['-q', '-n', '1', '-w', '0', '--no-parallel', '--gpu', 'off', '-o', out, os.path.join(d, 'a8.pgm')], 0)
    dj = json.load(open(out + '.json', encoding='utf-8'))
    check('jpegxl' not in [c['id'] for c in dj['codecs']], 'jpegxl runs only when named')
    return 0


def pcwt_run(a, name, img, extra, codecs='pcwt-cpu'):
    """One single-thread run of codecs on img: (codec ids, settings per id, coded bytes per id)."""
    out = os.path.join(a.work, name)
    p = run(a.tool, ['-q', '-n', '1', '-w', '0', '--no-parallel', '--codecs', codecs, '-o', out] + extra + [img], 0)
    if p.returncode != 0:
        return [], {}, {}
    dj = json.load(open(out + '.json', encoding='utf-8'))
    coded = {cid: r['coded_bytes'] for cid, r in dj['images'][0]['results'].items()}
    return [c['id'] for c in dj['codecs']], {c['id']: c['settings'] for c in dj['codecs']}, coded


def mode_options(a):
    fresh(a.work)
    img = os.path.join(a.work, 'g12.pgm')
    # Smooth along the rows, steps down the columns: the order of the lifting passes matters.
    rng = random.Random(5)
    write_pgm(img, 96, 80, 4095, 1,
              [min(4095, max(0, (y * 37) % 4096 + x * 2 + rng.randint(-2, 2))) for y in range(80) for x in range(96)])
    ids, settings, coded = pcwt_run(a, 'default', img, [], codecs='pcwt-cpu,charls')
    check(ids == ['pcwt-cpu', 'charls'], 'codecs %s' % ids)
    check('compact profile, 6 levels, 64x16 groups, columns lifted first' in settings.get('pcwt-cpu', ''),
          'default settings: %s' % settings)
    base = coded.get('pcwt-cpu')
    # The default is the compact profile: pcwt-compact-cpu's bytes, not the baseline's.
    ids, settings, named = pcwt_run(a, 'named', img, [], codecs='pcwt-cpu,pcwt-baseline-cpu,pcwt-compact-cpu')
    check(ids == ['pcwt-cpu', 'pcwt-baseline-cpu', 'pcwt-compact-cpu'], 'named profile codecs %s' % ids)
    check(named.get('pcwt-cpu') == base and named.get('pcwt-compact-cpu') == base,
          'pcwt-cpu and pcwt-compact-cpu code alike: %s, default %s' % (named, base))
    check(named.get('pcwt-baseline-cpu') not in (None, base), 'pcwt-baseline-cpu codes the baseline: %s' % named)
    # Each PCWT parameter reaches the encoder (another codestream size) and the report.
    for k, (extra, says) in enumerate([(['--levels', '1'], '1 levels'), (['--group', '8x4'], '8x4 groups'),
                                       (['--group', '16'], '16x16 groups'),
                                       (['--lifting', 'rows'], 'rows lifted first'),
                                       (['--offset', 'on'], 'offset on')]):
        _, st, cb = pcwt_run(a, 'param%d' % k, img, extra)
        check(says in st.get('pcwt-cpu', ''), '%s: settings %r' % (extra, st))
        check(cb.get('pcwt-cpu') not in (None, base), '%s: coded size %s, defaults %s' % (extra, cb.get('pcwt-cpu'), base))
    ids, settings, coded = pcwt_run(a, 'entropy', img, ['--profile', 'entropy'], codecs='pcwt-cpu,charls')
    check(ids == ['charls', 'pcwt-entropy-cpu'], '--profile entropy codecs %s' % ids)
    st = settings.get('pcwt-entropy-cpu', '')
    check('entropy profile' in st and '64x16 groups' in st, 'entropy settings: %s' % st)
    ids, settings, coded = pcwt_run(a, 'baseline', img, ['--profile', 'baseline'], codecs='pcwt-cpu,charls')
    check(ids == ['charls', 'pcwt-baseline-cpu'], '--profile baseline codecs %s' % ids)
    st = settings.get('pcwt-baseline-cpu', '')
    check('baseline profile, 6 levels, 32x32 groups, rows lifted first' in st, 'baseline settings: %s' % st)
    check(coded.get('pcwt-baseline-cpu') == named.get('pcwt-baseline-cpu'),
          '--profile baseline codes as pcwt-baseline-cpu: %s, %s' % (coded, named))
    ids, settings, coded = pcwt_run(a, 'compact', img, ['--profile', 'compact'], codecs='pcwt-cpu,charls')
    check(ids == ['pcwt-cpu', 'charls'], '--profile compact (the default) codecs %s' % ids)
    st = settings.get('pcwt-cpu', '')
    check('compact profile' in st and '64x16 groups' in st and coded.get('pcwt-cpu') == base,
          'compact settings: %s, coded %s, default %s' % (st, coded.get('pcwt-cpu'), base))
    for bad in (['--levels', '11'], ['--group', '0'], ['--group', '8x'], ['--lifting', 'diagonal'],
                ['--profile', 'fast'], ['--offset', 'sometimes']):
        p = run(a.tool, bad + [img], 2)
        check(bad[0] in p.stderr, 'the error for %s does not name the option: %r' % (bad, p.stderr))
    # The Markdown report: a row per frame with the CSV's ratios, and the aggregate row.
    rows = read_csv(os.path.join(a.work, 'default.csv'))
    md = read_markdown_table(os.path.join(a.work, 'default.md'), 'One thread, per frame')
    if check(len(md) == 4, 'Markdown table of %d lines, expected header, rule, frame, aggregate' % len(md)):
        check(md[0][:4] == ['image', 'geometry', 'raw bytes', 'pcwt-cpu ratio'] and 'charls dec MB/s' in md[0],
              'Markdown header %s' % md[0])
        frame, agg = dict(zip(md[0], md[2])), dict(zip(md[0], md[3]))
        check(frame['image'] == img and frame['geometry'] == '96x80x1, 12 bit, unsigned', 'Markdown row %s' % md[2])
        for r in rows:
            check(frame.get(r['codec'] + ' ratio') == '%.3f' % float(r['ratio']),
                  'Markdown ratio of %s: %s, CSV %s' % (r['codec'], frame.get(r['codec'] + ' ratio'), r['ratio']))
            check(float(frame.get(r['codec'] + ' enc MB/s', 0)) > 0, 'Markdown enc MB/s of %s' % r['codec'])
        check(agg['image'] == '**all 1**' and agg['pcwt-cpu ratio'] == frame['pcwt-cpu ratio'],
              'Markdown aggregate row %s' % md[3])
    return 0


# The WG04 set on one thread: sign from the DICOM originals, and the ratios of pcwt-cpu (libpcwt's
# default profile: compact, the second mantissa bit modelled), pcwt-baseline-cpu and charls; the
# baseline's and CharLS's are those of bench/results/cpu-2026-11-27-bench-consolidation.md (the same
# for the former benchmark).
WG04 = {'CT1.JLS': ('true', 3.1450, 2.833, 3.190), 'CT2.JLS': ('true', 4.8933, 3.852, 4.539),
        'MR2.JLS': ('false', 3.7223, 3.337, 3.507), 'MR3.JLS': ('true', 5.0802, 4.319, 4.437),
        'MR4.JLS': ('false', 4.7023, 4.125, 4.490), 'NM1.JLS': ('true', 6.2271, 5.284, 5.885),
        'RG2.JLS': ('false', 5.5070, 4.268, 4.507), 'RG3.JLS': ('false', 7.6600, 6.599, 7.311),
        'XA1.JLS': ('false', 5.3420, 4.667, 5.368), 'MR1_UNC.dcm': ('true', 2.2817, 2.180, 2.282)}
WG04_CODECS = ('pcwt-cpu', 'pcwt-baseline-cpu', 'charls')
WG04_AGGREGATE = {'pcwt-cpu': '5.354', 'pcwt-baseline-cpu': '4.491', 'charls': '4.853'}


def mode_wg04(a):
    if not os.path.isfile(os.path.join(a.testdata, 'wg04/dicom_unc/MR1_UNC.dcm')):
        print('SKIP: shared/testdata/wg04 is absent at %s' % a.testdata)
        return SKIP
    fresh(a.work)
    out = os.path.join(a.work, 'wg04')
    p = run(a.tool, ['-n', '1', '-w', '0', '--no-parallel', '--codecs', ','.join(WG04_CODECS), '-o', out,
                     '--wg04'], 0)
    rows = read_csv(out + '.csv')
    got = {}
    for r in rows:
        got.setdefault(os.path.basename(r['image']), {})[r['codec']] = r
    check(sorted(got) == sorted(WG04), 'WG04 frames %s' % sorted(got))
    for name, (signed, *ratios) in WG04.items():
        r = got.get(name, {})
        for cid, want in zip(WG04_CODECS, ratios):
            c = r.get(cid, {})
            check(c.get('signed') == signed and c.get('lossless') == 'true' and
                  abs(float(c.get('ratio') or 0) - want) < 0.0006,
                  '%s / %s: signed %s, ratio %s, expected %s, %.3f' % (name, cid, c.get('signed'), c.get('ratio'),
                                                                         signed, want))
    md = read_markdown_table(out + '.md', 'One thread, per frame')
    agg = dict(zip(md[0], md[-1])) if md else {}
    check(agg.get('image') == '**all 10**' and
          all(agg.get(cid + ' ratio') == want for cid, want in WG04_AGGREGATE.items()),
          'WG04 aggregate row %s' % (md[-1] if md else None))
    check('Aggregate over the 10 frames' in p.stdout, 'terminal aggregate over the WG04 set')
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['usage', 'raw_pgm', 'mismatch', 'corpus', 'options', 'wg04', 'jpegxl'])
    ap.add_argument('--tool', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--testdata', default='')
    a = ap.parse_args()
    rc = {'usage': mode_usage, 'raw_pgm': mode_raw_pgm, 'mismatch': mode_mismatch, 'corpus': mode_corpus,
          'options': mode_options, 'wg04': mode_wg04, 'jpegxl': mode_jpegxl}[a.mode](a)
    if rc == SKIP:
        return SKIP
    if failures:
        print('%d check(s) failed' % len(failures))
        return 1
    print('all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
