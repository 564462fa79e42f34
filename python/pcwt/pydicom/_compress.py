"""compress(ds, profile=..., syntax="pcwt"|"jpegls"): a data set's native Pixel Data coded in
place, as dcmcpcwt codes a file (docs/CONFORMANCE.md): encapsulated, a Basic Offset Table, one
fragment per frame; the transfer syntax set. Every frame is decoded again and compared with its
original words before the data set is changed: a refusal or a mismatch leaves it as it was."""
import numpy as np
import pydicom
from pydicom.encaps import encapsulate

from .. import JPEGLS_LOSSLESS_UID, TRANSFER_SYNTAX_UID, Error
from .. import jpegls as _jpegls
from .._codec import Encoder, _decoder
from ._frames import Module

_NATIVE_LE = ("1.2.840.10008.1.2", "1.2.840.10008.1.2.1", "1.2.840.10008.1.2.1.99")
_BIG_ENDIAN = "1.2.840.10008.1.2.2"
_PHOTOMETRIC = {1: ("MONOCHROME1", "MONOCHROME2", "PALETTE COLOR"), 3: ("RGB", "YBR_FULL")}


def _native_words(ds, ts, module, count):
    """The frames of native Pixel Data as an array (frames, samples words) in host order; the
    length must be exactly what the module declares (plus DICOM's one pad byte)."""
    if ts not in _NATIVE_LE and ts != _BIG_ENDIAN:
        raise Error("transfer syntax %s: compress takes native (uncompressed) Pixel Data" % ts)
    data = ds.PixelData
    need = count * module.frame_bytes
    if len(data) not in (need, need + (need & 1)):
        raise Error("Pixel Data has %d bytes; %d frames of %dx%d, %d samples of %d bits need %d"
                    % (len(data), count, module.columns, module.rows, module.samples,
                       module.bits_allocated, need))
    order = ">" if ts == _BIG_ENDIAN else "<"
    words = np.frombuffer(data, np.dtype(order + "u%d" % (module.bits_allocated // 8)),
                          count * module.frame_bytes * 8 // module.bits_allocated)
    return words.astype(words.dtype.newbyteorder("="), copy=False).reshape(count, -1)


def _check_module(ds, module):
    pi = str(ds.get("PhotometricInterpretation", "")).strip()
    if pi not in _PHOTOMETRIC[module.samples]:
        raise Error("Photometric Interpretation %r with %d samples per pixel is not accepted"
                    % (pi, module.samples))
    if "FloatPixelData" in ds or "DoubleFloatPixelData" in ds:
        raise Error("float pixel data cannot be coded")
    high_bit = int(ds.get("HighBit", module.bits_stored - 1))
    if not module.bits_stored - 1 <= high_bit <= module.bits_allocated - 1:
        raise Error("High Bit %d with Bits Stored %d" % (high_bit, module.bits_stored))
    return high_bit


def _pcwt_frames(words, module, high_bit, options):
    """PCWT: the words as stored; bits stored and signedness as the module says when High Bit is
    Bits Stored - 1, else the words raw (CONFORMANCE.md Sec. 2)."""
    exact = high_bit == module.bits_stored - 1
    enc = Encoder(**options)
    shape = (3, module.rows, module.columns) if module.planar else (module.rows, module.columns, 3)
    if module.samples == 1:
        shape = (module.rows, module.columns)
    out = []
    for frame in words:
        arr = frame.reshape(shape)
        if exact and module.signed:
            arr = arr.view(module.dtype)
        out.append(enc.encode(arr, bits_stored=module.bits_stored if exact else module.bits_allocated,
                              is_signed=exact and module.signed, planar=module.planar))
    got = _decoder({k: v for k, v in options.items() if k in ("backend", "device")}).decode_batch(out)
    for i, (frame, dec) in enumerate(zip(words, got)):
        if dec.tobytes() != frame.tobytes():
            raise Error("frame %d: the codestream does not decode to the original words" % (i + 1))
    return out


def _jpegls_frames(words, module, options):
    """JPEG-LS: the Bits-Stored-bit values (precision 8 below 8 bits, as dcmcjpls), pixel-
    interleaved; refused when a word has bits above Bits Stored other than zero or the sign."""
    bits = module.bits_stored
    mask = (1 << bits) - 1
    values = words & words.dtype.type(mask)
    if module.signed and bits < module.bits_allocated:
        shift = module.bits_allocated - bits
        signed = words.view(module.dtype)
        extended = np.right_shift(np.left_shift(signed, shift), shift)
        bad = (words != values) & (signed != extended)
    else:
        bad = words != values
    if bad.any():
        raise Error("JPEG-LS cannot keep bits above Bits Stored (%d) that are not zero or the sign "
                    "extension; use syntax=\"pcwt\"" % bits)
    opts = dict(options)
    if module.samples == 3:
        opts.setdefault("jpegls_interleave", "line")
    enc = Encoder(codec="jpegls", **opts)
    out = []
    for i, frame in enumerate(values):
        if module.samples == 1:
            arr = frame.reshape(module.rows, module.columns)
        elif module.planar:
            arr = np.ascontiguousarray(frame.reshape(3, module.rows, module.columns).transpose(1, 2, 0))
        else:
            arr = frame.reshape(module.rows, module.columns, 3)
        if module.bits_allocated == 16 and bits <= 8:
            arr = arr.astype(np.uint8)
        cs = enc.encode(arr, bits_stored=max(bits, 8) if arr.dtype == np.uint8 else bits, is_signed=False)
        if _jpegls.available() and _jpegls.decode(cs).astype(arr.dtype).tobytes() != arr.tobytes():
            raise Error("frame %d: the JPEG-LS codestream does not decode to the original values" % (i + 1))
        if len(cs) & 1:  # even length: a fill byte before EOI (CONFORMANCE.md Sec. 5)
            cs = cs[:-2] + b"\xff" + cs[-2:]
        out.append(cs)
    return out


def _transfer_syntax(uid):
    ts = pydicom.uid.UID(uid)
    if uid == TRANSFER_SYNTAX_UID and hasattr(ts, "set_private_encoding"):
        ts.set_private_encoding(False, True)  # pydicom 3: explicit VR little endian
    return ts


def _nested_images(ds):
    """Data sets inside ds's sequences that have Pixel Data of their own (an Icon Image Sequence's
    item), at any depth."""
    found = []
    for elem in ds:
        if elem.VR == "SQ":
            for item in elem.value:
                if "PixelData" in item:
                    found.append(item)
                found += _nested_images(item)
    return found


def _code(image, ts, syntax, profile, options):
    """The new Pixel Data of one image (the data set or a nested item): its encapsulated frames."""
    module = Module.of(image)
    high_bit = _check_module(image, module)
    from ._handler import number_of_frames
    count = number_of_frames(image)
    words = _native_words(image, ts, module, count)
    if syntax == "pcwt":
        frames = _pcwt_frames(words, module, high_bit,
                              dict(options, profile=profile) if profile is not None else options)
    else:
        frames = _jpegls_frames(words, module, options)
    frames = [f + b"\x00" if len(f) & 1 else f for f in frames]
    return encapsulate(frames, has_bot=True), module


def compress(ds, profile=None, syntax="pcwt", **options):
    """Code the data set's native Pixel Data in place: syntax "pcwt" (the private transfer syntax,
    profile "baseline", "entropy", ...; None: the library's default, as dcmcpcwt) or "jpegls" (JPEG-LS Lossless, libpcwt's encoder), pixel
    data nested in sequences (Icon Image Sequence) included, as dcmcpcwt does. options: further
    encoder options by name (see pcwt.encode). Every frame is verified by decoding it before the
    data set changes. Returns ds."""
    if syntax not in ("pcwt", "jpegls"):
        raise Error("syntax %r: expected 'pcwt' or 'jpegls'" % (syntax,))
    meta = getattr(ds, "file_meta", None)
    ts = str(meta.TransferSyntaxUID) if meta is not None and "TransferSyntaxUID" in meta else _NATIVE_LE[1]
    images = [ds] + _nested_images(ds)
    coded = [_code(image, ts, syntax, profile, options) for image in images]
    for image, (data, module) in zip(images, coded):
        image.PixelData = data
        elem = image["PixelData"]
        elem.VR = "OB"
        elem.is_undefined_length = True
        if syntax == "jpegls" and module.samples == 3 and module.planar:
            image.PlanarConfiguration = 0
    if meta is None:
        ds.file_meta = meta = pydicom.dataset.FileMetaDataset()
    uid = TRANSFER_SYNTAX_UID if syntax == "pcwt" else JPEGLS_LOSSLESS_UID
    meta.TransferSyntaxUID = _transfer_syntax(uid)
    _set_encoding(ds)
    return ds


def _set_encoding(ds):
    """Explicit VR little endian, as every encapsulated syntax. pydicom 2 writes by the data set's
    attributes; pydicom 3 by the transfer syntax (its UID class has set_private_encoding) and
    deprecates the attributes."""
    if hasattr(pydicom.uid.UID, "set_private_encoding"):
        return
    ds.is_implicit_VR = False
    ds.is_little_endian = True
