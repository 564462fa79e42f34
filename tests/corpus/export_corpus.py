#!/usr/bin/python3
"""Export every DICOM image of the shared test corpus as raw frames for the PCWT round-trip tests.

usage: export_corpus.py TESTDATA_DIR OUT_DIR

For every *.dcm under TESTDATA_DIR (and every wg04/jls/*.JLS codestream, wrapped into a JPEG-LS
DICOM file first) this writes, under OUT_DIR:
  native/<rel>          an Explicit VR Little Endian copy made with `gdcmconv --raw` (compressed only)
  raw/<rel>.fNNNN.raw   the exact stored words of each frame, little-endian, row by row, in the
                        file's own layout (pixel-interleaved or planar): PixelData bytes, not
                        pixel_array, so bits above BitsStored survive
  manifest.tsv          one line per frame (see MANIFEST_COLUMNS); first line '#pcwt-corpus ...'
  skipped.tsv           images the codec cannot take, with the reason

Exit status: 0 on success, 77 when the corpus cannot be exported here (TESTDATA_DIR absent, or
pydicom/numpy/gdcmconv missing; the manifest then says 'status=skipped'), 1 on a real error
(an image that cannot be read, a raw that does not match pydicom's pixel_array, an empty corpus).

Needs Debian's python3-pydicom (2.3.1) and python3-numpy: run it with /usr/bin/python3.
"""
import os
import shutil
import struct
import subprocess
import sys

SKIP = 77
MANIFEST_COLUMNS = ['raw', 'source', 'width', 'height', 'components', 'bits_allocated',
                    'bits_stored', 'signed', 'planar', 'frame', 'frames', 'photometric',
                    'transfer_syntax', 'note']


def write_status_only(out_dir, status, reason):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'manifest.tsv'), 'w') as f:
        f.write('#pcwt-corpus v1 status=%s reason=%s\n' % (status, reason))
        f.write('#' + '\t'.join(MANIFEST_COLUMNS) + '\n')
    with open(os.path.join(out_dir, 'skipped.tsv'), 'w') as f:
        f.write('#source\treason\n')


def jls_header(data):
    """(P, rows, cols, components, near) of a plain JPEG-LS codestream."""
    if data[:2] != b'\xff\xd8':
        raise ValueError('no SOI marker')
    i, sof = 2, None
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ValueError('bad marker at %d' % i)
        marker = data[i + 1]
        length = struct.unpack('>H', data[i + 2:i + 4])[0]
        seg = data[i + 4:i + 2 + length]
        if marker == 0xF7:  # SOF55, JPEG-LS
            p, rows, cols, nf = seg[0], *struct.unpack('>HH', seg[1:5]), seg[5]
            sof = (p, rows, cols, nf)
        elif marker == 0xDA:  # SOS
            if sof is None:
                raise ValueError('SOS before SOF55')
            ns = seg[0]
            near = seg[1 + 2 * ns]
            return sof + (near,)
        i += 2 + length
    raise ValueError('no SOS marker')


def wrap_jls(pydicom, jls_path, dcm_path):
    """Wrap a plain JPEG-LS lossless codestream into a DICOM file GDCM can decode."""
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.encaps import encapsulate
    from pydicom.uid import JPEGLSLossless, SecondaryCaptureImageStorage, generate_uid
    data = open(jls_path, 'rb').read()
    p, rows, cols, nf, near = jls_header(data)
    if near != 0:
        raise ValueError('near-lossless JPEG-LS (NEAR=%d)' % near)
    if nf not in (1, 3):
        raise ValueError('%d components' % nf)
    fm = FileMetaDataset()
    fm.TransferSyntaxUID = JPEGLSLossless
    fm.MediaStorageSOPClassUID = SecondaryCaptureImageStorage
    fm.MediaStorageSOPInstanceUID = generate_uid()
    ds = Dataset()
    ds.file_meta = fm
    ds.is_little_endian = True
    ds.is_implicit_VR = False
    ds.SOPClassUID = SecondaryCaptureImageStorage
    ds.SOPInstanceUID = fm.MediaStorageSOPInstanceUID
    ds.Rows, ds.Columns, ds.SamplesPerPixel = rows, cols, nf
    ds.PhotometricInterpretation = 'MONOCHROME2' if nf == 1 else 'RGB'
    if nf == 3:
        ds.PlanarConfiguration = 0
    ds.BitsAllocated = 8 if p <= 8 else 16
    ds.BitsStored, ds.HighBit = p, p - 1
    ds.PixelRepresentation = 0  # JPEG-LS carries no sign: the stored bit patterns, unsigned
    ds.PixelData = encapsulate([data])
    ds['PixelData'].VR = 'OB'
    ds['PixelData'].is_undefined_length = True
    ds.save_as(dcm_path, write_like_original=False)


def gdcm_raw(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.exists(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
        return  # up to date
    tmp = dst + '.tmp'
    r = subprocess.run(['gdcmconv', '--raw', src, tmp], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(tmp):
        raise RuntimeError('gdcmconv --raw %s failed (%d): %s' % (src, r.returncode,
                                                                    r.stderr.strip()))
    os.replace(tmp, dst)


def export_dataset(np, pydicom, ds, rel, source, out_dir, note):
    """Returns (manifest_lines, skipped_reason or None)."""
    ts = ds.file_meta.TransferSyntaxUID
    for float_tag in ('FloatPixelData', 'DoubleFloatPixelData'):
        if float_tag in ds:
            return [], 'float pixel data (%s) is not supported by the codec' % float_tag
    if 'PixelData' not in ds:
        return [], 'no PixelData element (not an image)'
    if ts.is_compressed:
        raise RuntimeError('%s: still compressed (%s) after gdcmconv --raw' % (source, ts.name))
    rows, cols = int(ds.Rows), int(ds.Columns)
    spp = int(ds.get('SamplesPerPixel', 1))
    ba, bs = int(ds.BitsAllocated), int(ds.BitsStored)
    pr = int(ds.get('PixelRepresentation', 0))
    pc = int(ds.get('PlanarConfiguration', 0) or 0) if spp > 1 else 0
    nframes = int(ds.get('NumberOfFrames', 1) or 1)
    photometric = str(ds.get('PhotometricInterpretation', ''))
    if ba not in (8, 16):
        return [], 'BitsAllocated %d is not supported by the codec (8 or 16 only)' % ba
    if spp not in (1, 3):
        return [], 'SamplesPerPixel %d is not supported by the codec (1 or 3 only)' % spp
    if not 1 <= bs <= ba:
        return [], 'BitsStored %d outside 1..BitsAllocated' % bs
    if photometric.startswith('YBR') and photometric.endswith('_422'):
        return [], 'subsampled %s pixel data' % photometric
    bpsample = ba // 8
    frame_bytes = rows * cols * spp * bpsample
    data = ds.PixelData
    if len(data) < frame_bytes * nframes:
        raise RuntimeError('%s: PixelData has %d bytes, %d frames of %d need %d' % (
            source, len(data), nframes, frame_bytes, frame_bytes * nframes))
    elem_vr = ds['PixelData'].VR
    if ba == 16:
        words = np.frombuffer(data, dtype='<u2' if ds.is_little_endian else '>u2',
                              count=rows * cols * spp * nframes)
        words = words.astype('<u2')  # little-endian on disk, whatever the file was
        flat = words.view(np.uint8)
    else:
        flat = np.frombuffer(data, dtype=np.uint8, count=len(data))
        if not ds.is_little_endian and elem_vr == 'OW':
            # 8-bit samples in OW words of a big-endian file: swap each byte pair back
            flat = flat[:len(flat) // 2 * 2].reshape(-1, 2)[:, ::-1].reshape(-1)
        flat = flat[:frame_bytes * nframes]
    frames = flat.reshape(nframes, frame_bytes)

    # Cross-check against pydicom's decoding of the same file: the low BitsStored bits must agree.
    mask = (1 << bs) - 1
    udt = np.uint8 if ba == 8 else np.uint16
    mine = frames.view('<u2' if ba == 16 else np.uint8).astype(udt)
    if spp == 3 and pc == 1:
        mine = mine.reshape(nframes, 3, rows, cols).transpose(0, 2, 3, 1)
    mine = mine.reshape(nframes, rows, cols, spp)
    try:
        pa = ds.pixel_array
    except Exception as e:  # pragma: no cover - reported, not fatal
        note = (note + '; ' if note else '') + 'pydicom pixel_array failed: %s' % e
        pa = None
    if pa is not None:
        pa = pa.astype(np.int64).astype(udt, casting='unsafe').reshape(nframes, rows, cols, spp)
        if not np.array_equal(mine & mask, pa & mask):
            bad = np.argwhere((mine & mask) != (pa & mask))[0]
            raise RuntimeError('%s: raw words differ from pydicom pixel_array at frame/row/col/comp '
                               '%s: %d vs %d' % (source, tuple(bad), mine[tuple(bad)], pa[tuple(bad)]))
    if bs < ba:
        high = mine.astype(np.int64) >> bs  # the bits above BitsStored
        above = int(np.count_nonzero(high))
        if above:
            text = '%d samples with bits above BitsStored set' % above
            if pr:
                sign = (mine.astype(np.int64) >> (bs - 1)) & 1
                extension = (sign == 1) & (high == (1 << (ba - bs)) - 1)
                garbage = int(np.count_nonzero((high != 0) & ~extension))
                text += ' (%d of them not a sign extension)' % garbage
            note = (note + '; ' if note else '') + text

    lines = []
    base = rel[:-4] if rel.lower().endswith(('.dcm', '.jls')) else rel
    for k in range(nframes):
        raw_rel = os.path.join('raw', '%s.f%04d.raw' % (base, k))
        raw_abs = os.path.join(out_dir, raw_rel)
        os.makedirs(os.path.dirname(raw_abs), exist_ok=True)
        frames[k].tofile(raw_abs)
        lines.append('\t'.join(str(v) for v in (
            raw_rel, source, cols, rows, spp, ba, bs, pr, pc, k, nframes, photometric,
            ts.name, note or '-')))
    return lines, None


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: export_corpus.py TESTDATA_DIR OUT_DIR\n')
        return 2
    testdata, out_dir = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    if not os.path.isdir(testdata):
        msg = 'shared/testdata not found at %s, corpus tests skipped' % testdata
        print(msg)
        write_status_only(out_dir, 'skipped', msg)
        return SKIP
    try:
        import numpy as np
        import pydicom
    except ImportError as e:
        msg = '%s (%s): use /usr/bin/python3 with python3-pydicom and python3-numpy' % (
            e, sys.executable)
        print('corpus export skipped: ' + msg)
        write_status_only(out_dir, 'skipped', msg)
        return SKIP
    if shutil.which('gdcmconv') is None:
        msg = 'gdcmconv not found (Debian package libgdcm-tools)'
        print('corpus export skipped: ' + msg)
        write_status_only(out_dir, 'skipped', msg)
        return SKIP

    os.makedirs(out_dir, exist_ok=True)
    shutil.rmtree(os.path.join(out_dir, 'raw'), ignore_errors=True)
    inputs = []  # (rel, kind)
    for root, dirs, files in os.walk(testdata):
        dirs.sort()
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(root, name), testdata)
            if name.lower().endswith('.dcm'):
                inputs.append((rel, 'dcm'))
            elif name.lower().endswith('.jls'):
                inputs.append((rel, 'jls'))
    inputs.sort()

    manifest, skipped, errors = [], [], []
    n_images = n_compressed = n_jls = 0
    for rel, kind in inputs:
        src = os.path.join(testdata, rel)
        source = os.path.join(os.path.basename(testdata), rel)  # e.g. testdata/wg04/...
        note = ''
        try:
            if kind == 'jls':
                wrapped = os.path.join(out_dir, 'jls-wrapped', rel[:-4] + '.dcm')
                os.makedirs(os.path.dirname(wrapped), exist_ok=True)
                if not (os.path.exists(wrapped) and
                        os.path.getmtime(wrapped) >= os.path.getmtime(src)):
                    wrap_jls(pydicom, src, wrapped)
                native = os.path.join(out_dir, 'native', rel[:-4] + '.dcm')
                gdcm_raw(wrapped, native)
                path, note = native, 'JPEG-LS codestream wrapped in DICOM, decoded by gdcmconv; '\
                    'sign unknown, exported unsigned'
                n_jls += 1
            else:
                ds0 = pydicom.dcmread(src, stop_before_pixels=True)
                path = src
                if ds0.file_meta.TransferSyntaxUID.is_compressed:
                    path = os.path.join(out_dir, 'native', rel)
                    gdcm_raw(src, path)
                    note = 'native copy by gdcmconv --raw from %s' % (
                        ds0.file_meta.TransferSyntaxUID.name)
                    n_compressed += 1
            ds = pydicom.dcmread(path)
            lines, reason = export_dataset(np, pydicom, ds, rel, source, out_dir, note)
        except Exception as e:
            errors.append('%s: %s' % (source, e))
            continue
        if reason:
            skipped.append((source, reason))
        else:
            n_images += 1
            manifest.extend(lines)

    with open(os.path.join(out_dir, 'manifest.tsv.tmp'), 'w') as f:
        f.write('#pcwt-corpus v1 status=ok testdata=%s\n' % testdata)
        f.write('#' + '\t'.join(MANIFEST_COLUMNS) + '\n')
        for line in manifest:
            f.write(line + '\n')
    os.replace(os.path.join(out_dir, 'manifest.tsv.tmp'), os.path.join(out_dir, 'manifest.tsv'))
    with open(os.path.join(out_dir, 'skipped.tsv'), 'w') as f:
        f.write('#source\treason\n')
        for s, r in skipped:
            f.write('%s\t%s\n' % (s, r))

    print('corpus export: %d files found (%d DICOM, %d JPEG-LS codestreams)' % (
        len(inputs), len(inputs) - n_jls, n_jls))
    print('  %d images exported as %d frames into %s (%d compressed DICOM files and %d JPEG-LS '
          'codestreams decoded by gdcmconv)' % (n_images, len(manifest), out_dir, n_compressed,
                                                 n_jls))
    for s, r in skipped:
        print('  skipped %s: %s' % (s, r))
    for e in errors:
        print('  ERROR %s' % e)
    if errors:
        return 1
    if not manifest:
        print('  ERROR: testdata exists but no frame was exported')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
