"""Decoding the frames of a data set's encapsulated Pixel Data (PCWT or JPEG-LS) into the words
pydicom's own handlers give: the code shared by the pydicom 2 handler (_handler.py) and the
pydicom 3 decoder plugins (_pydicom3.py).

A PCWT codestream gives back every stored word (bits above Bits Stored included), so nothing is
corrected. A JPEG-LS codestream holds Bits-Stored-bit values: with Pixel Representation 1 they are
sign-extended to the word, as pydicom does for JPEG-LS ("apply_jls_sign_correction" in pydicom 3)
and as the uncompressed original holds them."""
import numpy as np

from .. import JPEGLS_LOSSLESS_UID, TRANSFER_SYNTAX_UID, Error
from .. import jpegls as _jpegls
from .._codec import _decoder, read_header


class Module:
    """The image pixel module attributes a frame is checked against."""

    def __init__(self, rows, columns, samples, bits_allocated, bits_stored, pixel_representation,
                 planar_configuration):
        self.rows, self.columns, self.samples = int(rows), int(columns), int(samples)
        self.bits_allocated, self.bits_stored = int(bits_allocated), int(bits_stored)
        self.signed = int(pixel_representation) == 1
        self.planar = int(planar_configuration or 0) == 1 and self.samples == 3
        if self.bits_allocated not in (8, 16):
            raise Error("Bits Allocated %d: PCWT and JPEG-LS frames have 8 or 16" % self.bits_allocated)
        if self.samples not in (1, 3):
            raise Error("Samples per Pixel %d: expected 1 or 3" % self.samples)
        if not 1 <= self.bits_stored <= self.bits_allocated:
            raise Error("Bits Stored %d with Bits Allocated %d" % (self.bits_stored, self.bits_allocated))

    @classmethod
    def of(cls, ds):
        missing = [k for k in ("Rows", "Columns", "BitsAllocated", "PixelData") if k not in ds]
        if missing:
            raise Error("the data set has no " + ", ".join(missing))
        return cls(ds.Rows, ds.Columns, ds.get("SamplesPerPixel", 1) or 1, ds.BitsAllocated,
                   ds.get("BitsStored", ds.BitsAllocated) or ds.BitsAllocated,
                   ds.get("PixelRepresentation", 0) or 0, ds.get("PlanarConfiguration", 0))

    @property
    def dtype(self):
        return np.dtype(("i" if self.signed else "u") + str(self.bits_allocated // 8))

    @property
    def frame_bytes(self):
        return self.rows * self.columns * self.samples * self.bits_allocated // 8


def _check_pcwt_header(src, module, index):
    h = read_header(src)
    got = (h["width"], h["height"], h["components"], h["bits_allocated"])
    want = (module.columns, module.rows, module.samples, module.bits_allocated)
    if got != want:
        raise Error("frame %d: the codestream is %dx%d, %d samples of %d bits; the data set declares "
                    "%dx%d, %d samples of %d bits" % ((index + 1,) + got + want))
    if module.samples == 3 and h["planar"] != module.planar:
        raise Error("frame %d: the codestream's planar flag %d differs from Planar Configuration %d"
                    % (index + 1, h["planar"], module.planar))


def decode_pcwt_frames(frames, module, decoder=None):
    """The frames (codestreams) as one flat array of the module's dtype, frame after frame, in the
    layout Planar Configuration declares; one pcwt_decode_batch call for all of them."""
    for i, src in enumerate(frames):
        _check_pcwt_header(src, module, i)
    outs = (decoder or _decoder({})).decode_batch(frames)
    arr = np.empty(len(frames) * module.frame_bytes // module.dtype.itemsize, module.dtype)
    flat = arr.view(np.uint8)
    for i, out in enumerate(outs):
        flat[i * module.frame_bytes:(i + 1) * module.frame_bytes] = out.reshape(-1).view(np.uint8)
    return arr


def decode_jpegls_frame(src, module, index=0, sign_extend=True):
    """One JPEG-LS frame as a flat array of the module's dtype, pixel-interleaved (JPEG-LS is
    Planar Configuration 0 in DICOM)."""
    try:
        out = _jpegls.decode(src, expect=(module.rows, module.columns, module.samples))
    except Error as exc:
        raise Error("frame %d: %s" % (index + 1, str(exc).replace(" expected", " the data set declares")),
                    exc.status) from None
    if out.dtype.itemsize * 8 > module.bits_allocated:
        raise Error("frame %d: JPEG-LS samples of more than 8 bits in 8-bit words" % (index + 1))
    words = out.reshape(-1).astype(np.dtype("u%d" % (module.bits_allocated // 8)), copy=False)
    words = words.view(module.dtype)
    shift = module.bits_allocated - module.bits_stored
    if sign_extend and module.signed and shift:
        words = np.right_shift(np.left_shift(words, shift), shift)
    return words


def decode_frames(uid, frames, module):
    """Decode the frames of transfer syntax uid (PCWT or JPEG-LS)."""
    if uid == TRANSFER_SYNTAX_UID:
        return decode_pcwt_frames(frames, module)
    if uid == JPEGLS_LOSSLESS_UID:
        parts = [decode_jpegls_frame(src, module, i) for i, src in enumerate(frames)]
        return np.concatenate(parts) if parts else np.empty(0, module.dtype)
    raise Error("transfer syntax %s is neither PCWT nor JPEG-LS Lossless" % uid)
