"""Damaged pixel data never crashes the interpreter: real codestreams (corpus images coded by
pcwt.pydicom.compress) truncated at many lengths and with single bytes flipped, decoded through
pcwt.decode and through ds.pixel_array. A PCWT codestream is checksummed: every truncation and
every flipped byte must raise pcwt.Error with a message. JPEG-LS has no checksum: a truncation
must raise pcwt.Error, a flipped byte either pcwt.Error or an image of the declared shape."""
import copy
import os

import numpy as np
import pydicom
import pytest
from pydicom.encaps import encapsulate, generate_pixel_data_frame

import pcwt
import pcwt.pydicom
from conftest import TESTDATA

try:  # pydicom 3 reports a plugin's exception inside its own RuntimeError, with the message
    import pydicom.pixels.decoders.base  # noqa: F401
    PIXEL_ARRAY_ERRORS = (pcwt.Error, RuntimeError)
except ImportError:
    PIXEL_ARRAY_ERRORS = (pcwt.Error,)

FILES = ["wg04/dicom_unc/CT1_UNC.dcm", "pydicom-data/US1_UNCR.dcm", "pydicom-data/emri_small.dcm"]
CASES = [(f, s, p) for f in FILES for s, p in (("pcwt", "baseline"), ("pcwt", "entropy"), ("jpegls", "baseline"))]


def coded(rel, syntax, profile):
    path = os.path.join(TESTDATA, rel)
    if not os.path.exists(path):
        pytest.skip("no corpus file %s" % path)
    ds = pydicom.dcmread(path)
    pcwt.pydicom.compress(ds, syntax=syntax, profile=profile)
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    first = next(generate_pixel_data_frame(ds.PixelData, frames))
    return ds, first, frames


def damaged_ds(ds, frame, frames):
    """ds with its first frame replaced (the others kept)."""
    rest = list(generate_pixel_data_frame(ds.PixelData, frames))[1:]
    bad = copy.deepcopy(ds)
    bad.PixelData = encapsulate([frame] + rest, has_bot=True)
    bad["PixelData"].is_undefined_length = True
    return bad


def decode_frame(syntax, data):
    return pcwt.decode(data) if syntax == "pcwt" else pcwt.jpegls.decode(data)


def positions(n, count, seed):
    """The first 64 bytes (headers) and count others spread over the codestream."""
    rng = np.random.default_rng(seed)
    return sorted(set(range(min(n, 64))) | set(int(x) for x in rng.integers(0, n, count)))


@pytest.mark.parametrize("rel,syntax,profile", CASES)
def test_truncations(rel, syntax, profile):
    if syntax == "jpegls" and not pcwt.jpegls.available():
        pytest.skip("CharLS (libcharls.so.2) is not installed")
    ds, frame, frames = coded(rel, syntax, profile)
    n = pcwt.read_header(frame)["codestream_length"] if syntax == "pcwt" else len(frame)
    cuts = sorted(set([0, 1, 2, 3, 4, 27, 28, 50, n - 2, n - 1] + [n * k // 23 for k in range(1, 23)]))
    for cut in (c for c in cuts if 0 <= c < n):
        with pytest.raises(pcwt.Error) as e:
            decode_frame(syntax, frame[:cut])
        assert str(e.value), cut
    for cut in (n // 3 & ~1, n - 2):  # even: encapsulation pads an odd fragment with a zero byte
        with pytest.raises(PIXEL_ARRAY_ERRORS) as e:
            damaged_ds(ds, frame[:cut], frames).pixel_array
        assert str(e.value)


@pytest.mark.parametrize("rel,syntax,profile", CASES)
def test_byte_flips(rel, syntax, profile):
    if syntax == "jpegls" and not pcwt.jpegls.available():
        pytest.skip("CharLS (libcharls.so.2) is not installed")
    ds, frame, frames = coded(rel, syntax, profile)
    n = pcwt.read_header(frame)["codestream_length"] if syntax == "pcwt" else len(frame)
    shape = decode_frame(syntax, frame).shape
    refused = 0
    for i, pos in enumerate(positions(n, 120, 7)):
        bad = bytearray(frame)
        bad[pos] ^= 0xFF if i % 2 else 0x01 << (i % 8)
        try:
            out = decode_frame(syntax, bytes(bad))
        except pcwt.Error as exc:
            assert str(exc)
            refused += 1
            continue
        assert syntax == "jpegls", "a PCWT codestream with byte %d flipped decoded without error" % pos
        assert out.shape == shape
    assert refused > 0
    bad = bytearray(frame)
    bad[n // 2] ^= 0x10
    if syntax == "pcwt":
        with pytest.raises(PIXEL_ARRAY_ERRORS, match="checksum|corrupt|CRC"):
            damaged_ds(ds, bytes(bad), frames).pixel_array


def test_damaged_encapsulation():
    ds, frame, frames = coded(FILES[0], "pcwt", "baseline")
    bad = copy.deepcopy(ds)
    bad.PixelData = ds.PixelData[: len(ds.PixelData) // 2]
    with pytest.raises(PIXEL_ARRAY_ERRORS, match="encapsulated Pixel Data|truncated|fragment|frame"):
        bad.pixel_array
    # a frame that decodes but is not the image the data set declares
    other = pcwt.encode(np.zeros((8, 8), np.int16))
    with pytest.raises(PIXEL_ARRAY_ERRORS, match="declares"):
        damaged_ds(ds, other, frames).pixel_array


def test_hostile_dimensions_refused_before_allocating():
    """A header declaring an image other than the data set's (65535x65535 here) is refused from
    the header, before any output is allocated: PCWT (its header's checksum) and JPEG-LS (the
    dimensions checked against the data set's)."""
    ds, frame, frames = coded(FILES[0], "jpegls", "baseline")
    if not pcwt.jpegls.available():
        pytest.skip("CharLS (libcharls.so.2) is not installed")
    sof = bytes(frame).index(b"\xff\xf7")  # SOF55: length, precision, Y, X, components
    big = bytearray(frame)
    big[sof + 5:sof + 9] = b"\xff\xff\xff\xff"
    with pytest.raises(PIXEL_ARRAY_ERRORS, match="65535x65535.*declares"):
        damaged_ds(ds, bytes(big), frames).pixel_array
    with pytest.raises(pcwt.Error, match="expected"):
        pcwt.jpegls.decode(bytes(big), expect=(512, 512, 1))
    ds, frame, frames = coded(FILES[0], "pcwt", "baseline")
    with pytest.raises(pcwt.Error, match="limit"):
        pcwt.decode(frame, memory_limit=1 << 20)
