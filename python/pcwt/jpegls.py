"""JPEG-LS: decoding through CharLS's C API (Debian's libcharls.so.2, opened at run time with cffi
in ABI mode; libpcwt writes JPEG-LS but has no decoder), encoding through libpcwt's own JPEG-LS
encoder (pcwt.encode(..., codec="jpegls"), byte-identical to CharLS 2.4.1).

The library is PCWT_CHARLS_LIBRARY when set, else libcharls.so.2 on the system."""
import os

import numpy as np
from cffi import FFI

from ._codec import encode as _encode
from ._lib import Error, lib as _pcwt

_ffi = FFI()
_ffi.cdef(r"""
typedef struct charls_jpegls_decoder charls_jpegls_decoder;
typedef int charls_jpegls_errc;
typedef int charls_interleave_mode;
typedef struct charls_frame_info {
    uint32_t width; uint32_t height; int32_t bits_per_sample; int32_t component_count;
} charls_frame_info;
charls_jpegls_decoder *charls_jpegls_decoder_create(void);
void charls_jpegls_decoder_destroy(const charls_jpegls_decoder *decoder);
charls_jpegls_errc charls_jpegls_decoder_set_source_buffer(charls_jpegls_decoder *decoder,
    const void *source_buffer, size_t source_size_bytes);
charls_jpegls_errc charls_jpegls_decoder_read_header(charls_jpegls_decoder *decoder);
charls_jpegls_errc charls_jpegls_decoder_get_frame_info(const charls_jpegls_decoder *decoder,
    charls_frame_info *frame_info);
charls_jpegls_errc charls_jpegls_decoder_get_interleave_mode(const charls_jpegls_decoder *decoder,
    charls_interleave_mode *interleave_mode);
charls_jpegls_errc charls_jpegls_decoder_get_destination_size(const charls_jpegls_decoder *decoder,
    uint32_t stride, size_t *destination_size_bytes);
charls_jpegls_errc charls_jpegls_decoder_decode_to_buffer(charls_jpegls_decoder *decoder,
    void *destination_buffer, size_t destination_size_bytes, uint32_t stride);
const char *charls_get_error_message(charls_jpegls_errc error_value);
""")

_charls = None


def _lib():
    global _charls
    if _charls is None:
        name = os.environ.get("PCWT_CHARLS_LIBRARY") or "libcharls.so.2"
        try:
            _charls = _ffi.dlopen(name)
        except OSError as exc:
            raise Error("JPEG-LS decoding needs CharLS (%s): %s" % (name, exc)) from None
    return _charls


def available():
    """True when CharLS can be loaded (JPEG-LS decoding works)."""
    try:
        _lib()
        return True
    except Error:
        return False


def _check(lib, errc, what):
    if errc != 0:
        raise Error("JPEG-LS %s: %s" % (what, _ffi.string(lib.charls_get_error_message(errc)).decode()),
                    "charls %d" % errc)


def decode(data, expect=None):
    """The samples of a JPEG-LS codestream: (rows, columns) or pixel-interleaved (rows, columns,
    components), uint8 up to 8 bits per sample, else uint16 (the Bits-Stored-bit values as coded:
    no sign extension, see pcwt.pydicom for DICOM's). expect: (rows, columns, components) the
    header must declare, checked before anything is allocated. An image larger than libpcwt's
    default memory budget (pcwt_default_memory_limit) is refused from the header."""
    lib = _lib()
    if isinstance(data, (str, int, float)) or data is None:
        raise Error("JPEG-LS codestream: expected a bytes-like object, got %s" % type(data).__name__)
    dec = _ffi.gc(lib.charls_jpegls_decoder_create(), lib.charls_jpegls_decoder_destroy)
    if dec == _ffi.NULL:
        raise MemoryError("charls_jpegls_decoder_create")
    try:
        src = _ffi.from_buffer("char[]", data)
    except (TypeError, BufferError, ValueError) as exc:
        raise Error("JPEG-LS codestream: expected a contiguous bytes-like object (%s)" % exc) from None
    # A codestream cut short is refused here: CharLS 2.4 decodes on past the end of its source for
    # many seconds before it fails. The EOI marker cannot occur inside JPEG-LS scan data (bit
    # stuffing), so the data must end with it (a DICOM pad byte may follow).
    tail = _ffi.buffer(src)[max(0, len(src) - 3):]
    if not (tail.endswith(b"\xff\xd9") or tail[:-1].endswith(b"\xff\xd9")):
        raise Error("JPEG-LS codestream truncated: it does not end with an EOI marker", "truncated")
    _check(lib, lib.charls_jpegls_decoder_set_source_buffer(dec, src, len(src)), "source")
    _check(lib, lib.charls_jpegls_decoder_read_header(dec), "header")
    info = _ffi.new("charls_frame_info *")
    _check(lib, lib.charls_jpegls_decoder_get_frame_info(dec, info), "frame info")
    mode = _ffi.new("charls_interleave_mode *")
    _check(lib, lib.charls_jpegls_decoder_get_interleave_mode(dec, mode), "interleave mode")
    comps, bits = info.component_count, info.bits_per_sample
    if comps not in (1, 3) or not 2 <= bits <= 16:
        raise Error("JPEG-LS header: %d components of %d bits are not supported" % (comps, bits))
    if expect is not None and tuple(expect) != (info.height, info.width, comps):
        raise Error("the JPEG-LS codestream is %dx%d with %d components; %dx%d with %d expected"
                    % (info.width, info.height, comps, expect[1], expect[0], expect[2]))
    dtype = np.dtype(np.uint8 if bits <= 8 else np.uint16)
    needed = info.width * info.height * comps * dtype.itemsize
    if needed > _pcwt.pcwt_default_memory_limit():
        raise Error("JPEG-LS: a %dx%d image of %d components needs %d MiB, more than the memory budget"
                    % (info.width, info.height, comps, needed >> 20), "PCWT_ERR_LIMIT_EXCEEDED")
    size = _ffi.new("size_t *")
    _check(lib, lib.charls_jpegls_decoder_get_destination_size(dec, 0, size), "destination size")
    if size[0] != needed:
        raise Error("JPEG-LS: CharLS needs %d bytes for a %dx%dx%d image of %d bytes"
                    % (size[0], info.width, info.height, comps, needed))
    planar = comps == 3 and mode[0] == 0  # interleave none comes out plane by plane
    shape = (comps, info.height, info.width) if planar else (info.height, info.width, comps)
    out = np.empty(shape, dtype)
    _check(lib, lib.charls_jpegls_decoder_decode_to_buffer(dec, _ffi.from_buffer(out), out.nbytes, 0), "decode")
    if comps == 1:
        return out.reshape(info.height, info.width)
    return np.ascontiguousarray(out.transpose(1, 2, 0)) if planar else out


def encode(array, bits_stored=None, is_signed=None, planar=False, **options):
    """JPEG-LS Lossless with libpcwt's encoder: pcwt.encode with codec="jpegls"."""
    return _encode(array, bits_stored, is_signed, planar, codec="jpegls", **options)
