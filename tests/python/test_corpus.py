"""Every image of shared/testdata through pydicom with pcwt.pydicom (label python):
  - coded by dcmcpcwt (baseline, entropy profile, JPEG-LS +el): ds.pixel_array equals pydicom's
    pixels of the uncompressed original (numpy handler), every word, same dtype and shape;
  - coded by pcwt.pydicom.compress (the same three): the same, in memory and after saving; then
    dcmdpcwt decodes the saved file to the same pixels.
JPEG-LS holds Bits-Stored-bit values: decoded through pcwt.pydicom they are sign-extended with
Pixel Representation 1 (as pydicom does for JPEG-LS), through dcmdpcwt they come back with zeros
above Bits Stored (docs/CONFORMANCE.md Sec. 5); each is compared with the original's words made
so, which are the original's words themselves wherever those were the zero or sign extension.
An image dcmcpcwt refuses (32 bits allocated; bits above Bits Stored for JPEG-LS) must be refused
by compress too, with a message; the test then skips, naming the refusal."""
import os
import subprocess

import numpy as np
import pydicom
import pytest

import pcwt
import pcwt.pydicom
from conftest import TESTDATA, corpus_params, native_original, tool

SYNTAXES = {
    "baseline": (["--profile", "baseline"], dict(syntax="pcwt", profile="baseline"), pcwt.TRANSFER_SYNTAX_UID),
    "entropy": (["--profile", "entropy"], dict(syntax="pcwt", profile="entropy"), pcwt.TRANSFER_SYNTAX_UID),
    "jpegls": (["+el"], dict(syntax="jpegls"), pcwt.JPEGLS_LOSSLESS_UID),
}


def reference(path):
    ds = pydicom.dcmread(path)
    return ds.pixel_array


def jpegls_values(ref, ds, sign_extend):
    """The original's words as a JPEG-LS decoder gives them back: Bits-Stored-bit values, sign-
    extended (sign_extend and Pixel Representation 1) or with zeros above Bits Stored."""
    bits, alloc = int(ds.BitsStored), int(ds.BitsAllocated)
    unsigned = ref.astype(ref.dtype.newbyteorder("=")).view("u%d" % (alloc // 8))
    values = unsigned & ((1 << bits) - 1)
    if sign_extend and int(ds.PixelRepresentation) == 1 and bits < alloc:
        signed = values.view("i%d" % (alloc // 8))
        return np.right_shift(np.left_shift(signed, alloc - bits), alloc - bits)
    return values.view(ref.dtype.newbyteorder("="))


def stored_words(path):
    """The words of a native file's Pixel Data as stored (host order), every bit: what pydicom's
    version-dependent corrections (pydicom 3 clears or sign-extends bits above Bits Stored) leave
    out of pixel_array."""
    ds = pydicom.dcmread(path)
    big = str(ds.file_meta.TransferSyntaxUID) == "1.2.840.10008.1.2.2"
    dtype = np.dtype((">" if big else "<") + "u%d" % (int(ds.BitsAllocated) // 8))
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    count = frames * int(ds.Rows) * int(ds.Columns) * int(ds.get("SamplesPerPixel", 1))
    return np.frombuffer(ds.PixelData, dtype, count).astype(dtype.newbyteorder("="))


def same_pixels(got, ref, what):
    ref = ref.astype(ref.dtype.newbyteorder("="))  # a big-endian original: its values
    assert got.dtype == ref.dtype, "%s: dtype %s, original %s" % (what, got.dtype, ref.dtype)
    assert got.shape == ref.shape, "%s: shape %s, original %s" % (what, got.shape, ref.shape)
    if not np.array_equal(got, ref):
        first = np.flatnonzero(got.reshape(-1) != ref.reshape(-1))[0]
        pytest.fail("%s: word %d is %s, original %s" % (what, first, got.reshape(-1)[first], ref.reshape(-1)[first]))


@pytest.mark.parametrize("syntax", sorted(SYNTAXES))
@pytest.mark.parametrize("rel", corpus_params())
def test_dcmcpcwt_file_reads_as_original(rel, syntax, tmp_path):
    dcmcpcwt = tool("PCWT_TEST_DCMCPCWT")
    original = native_original(rel, tmp_path)
    args, _, uid = SYNTAXES[syntax]
    out = str(tmp_path / "coded.dcm")
    proc = subprocess.run([dcmcpcwt] + args + [original, out], capture_output=True, text=True)
    if proc.returncode != 0:
        assert proc.stderr.strip() and not os.path.exists(out)
        pytest.skip("dcmcpcwt %s refuses %s: %s" % (" ".join(args), rel, proc.stderr.strip().splitlines()[-1]))
    ds = pydicom.dcmread(out)
    assert str(ds.file_meta.TransferSyntaxUID) == uid
    ref = reference(original)
    if syntax == "jpegls":
        ref = jpegls_values(ref, ds, True)
    same_pixels(ds.pixel_array, ref, "%s (%s)" % (rel, syntax))


@pytest.mark.parametrize("syntax", sorted(SYNTAXES))
@pytest.mark.parametrize("rel", corpus_params())
def test_compress_decodes_as_original(rel, syntax, tmp_path):
    dcmdpcwt = tool("PCWT_TEST_DCMDPCWT")
    dcmcpcwt = tool("PCWT_TEST_DCMCPCWT")
    original = native_original(rel, tmp_path)
    args, kwargs, uid = SYNTAXES[syntax]
    raw = reference(original)
    ds = pydicom.dcmread(original)
    ref = jpegls_values(raw, ds, True) if syntax == "jpegls" else raw
    try:
        pcwt.pydicom.compress(ds, **kwargs)
    except pcwt.Error as exc:
        assert str(exc)
        # dcmcpcwt must refuse it too
        proc = subprocess.run([dcmcpcwt] + args + [original, str(tmp_path / "x.dcm")], capture_output=True, text=True)
        assert proc.returncode != 0, "compress refuses %s (%s), dcmcpcwt codes it" % (rel, exc)
        pytest.skip("compress(%s) refuses %s: %s" % (syntax, rel, exc))
    assert str(ds.file_meta.TransferSyntaxUID) == uid
    same_pixels(ds.pixel_array, ref, "%s compressed in memory (%s)" % (rel, syntax))
    saved = str(tmp_path / "compressed.dcm")
    pydicom.dcmwrite(saved, ds)  # pydicom 3: save_as will not turn a big-endian data set little
    back = pydicom.dcmread(saved)
    assert str(back.file_meta.TransferSyntaxUID) == uid
    same_pixels(back.pixel_array, ref, "%s compressed, saved (%s)" % (rel, syntax))
    # the Basic Offset Table has one entry per frame, one fragment per frame
    from pydicom.encaps import generate_pixel_data_fragment, get_frame_offsets
    from pydicom.filebase import DicomBytesIO
    fp = DicomBytesIO(back.PixelData)
    fp.is_little_endian = True
    has_bot, offsets = get_frame_offsets(fp)
    frames = int(back.get("NumberOfFrames", 1) or 1)
    assert has_bot and len(offsets) == frames
    assert len(list(generate_pixel_data_fragment(fp))) == frames
    # dcmdpcwt reads it: every stored word the original's (JPEG-LS: its Bits-Stored-bit values, zero
    # above, docs/CONFORMANCE.md Sec. 5)
    decoded = str(tmp_path / "decoded.dcm")
    proc = subprocess.run([dcmdpcwt, saved, decoded], capture_output=True, text=True)
    assert proc.returncode == 0, "dcmdpcwt: " + proc.stderr
    want = stored_words(original)
    if syntax == "jpegls":
        want = want & want.dtype.type((1 << int(ds.BitsStored)) - 1)
    got = stored_words(decoded)
    if syntax == "jpegls" and int(ds.get("SamplesPerPixel", 1)) == 3 and int(ds.get("PlanarConfiguration", 0)):
        pytest.fail("compress left Planar Configuration 1 on JPEG-LS")
    if int(pydicom.dcmread(original, stop_before_pixels=True).get("PlanarConfiguration", 0) or 0) and syntax == "jpegls":
        frames = int(ds.get("NumberOfFrames", 1) or 1)
        want = want.reshape(frames, 3, -1).transpose(0, 2, 1).reshape(-1)  # JPEG-LS: interleaved
    assert got.dtype == want.dtype and np.array_equal(got, want), \
        "%s compressed, dcmdpcwt (%s): the stored words differ from the original's" % (rel, syntax)
