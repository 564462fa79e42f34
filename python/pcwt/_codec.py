"""pcwt.decode, pcwt.encode, pcwt.decode_batch and pcwt.read_header on libpcwt's C API.

Every buffer handed to the library is checked here first: a destination or a source whose size is
not what the header (or the descriptor) requires is refused with pcwt.Error before any call."""
import threading

import numpy as np

from ._lib import Error, check, ffi, lib

_DTYPES = {(8, 0): np.uint8, (8, 1): np.int8, (16, 0): np.uint16, (16, 1): np.int16}


def _as_bytes(data, what="codestream"):
    """A char[] over the bytes of a bytes-like object (bytes, bytearray, memoryview, a contiguous
    numpy array), read in place. No memoryview is made: one caught in a reference cycle (an
    exception's traceback) while cffi holds its buffer makes the garbage collector crash."""
    if isinstance(data, (str, int, float)) or data is None:
        raise Error("%s: expected a bytes-like object, got %s" % (what, type(data).__name__))
    try:
        return ffi.from_buffer("char[]", data)
    except (TypeError, BufferError, ValueError) as exc:
        raise Error("%s: expected a contiguous bytes-like object (%s)" % (what, exc)) from None


def _header(view):
    info = ffi.new("pcwt_header_info *")
    check(lib.pcwt_read_header(view, len(view), info), what="header")
    return info


def _header_dict(info):
    d = info.desc
    return {
        "format_version": info.format_version, "profile": ffi.string(lib.pcwt_profile_name(info.profile)).decode(),
        "width": d.width, "height": d.height, "components": d.components,
        "bits_allocated": d.bits_allocated, "bits_stored": d.bits_stored,
        "is_signed": bool(d.is_signed), "planar": bool(d.planar), "levels": info.levels,
        "group_rows": info.group_rows, "group_cols": info.group_cols,
        "colour_transform": bool(info.colour_transform), "columns_first": bool(info.columns_first),
        "plane_count": info.plane_count, "header_length": info.header_length,
        "codestream_length": info.codestream_length,
    }


def read_header(data):
    """What a codestream's header says (validated, checksum included), as a dict; the payloads are
    not read."""
    return _header_dict(_header(_as_bytes(data)))


def _shape_dtype(desc):
    dtype = _DTYPES.get((desc.bits_allocated, 1 if desc.is_signed else 0))
    if dtype is None:
        raise Error("header: %d bits allocated cannot be represented" % desc.bits_allocated)
    if desc.components == 1:
        shape = (desc.height, desc.width)
    elif desc.planar:
        shape = (desc.components, desc.height, desc.width)
    else:
        shape = (desc.height, desc.width, desc.components)
    return shape, np.dtype(dtype)


def _check_out(out, shape, dtype, needed, what):
    """out must be a writable C-contiguous array of at least the bytes the frame needs; returns the
    view of its first bytes as the frame's shape and dtype."""
    if not isinstance(out, np.ndarray):
        raise Error("%s: out must be a numpy.ndarray" % what)
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise Error("%s: out must be writable and C-contiguous" % what)
    if out.nbytes < needed:
        raise Error("%s: out has %d bytes, the image needs %d" % (what, out.nbytes, needed))
    return out.reshape(-1).view(np.uint8)[:needed].view(dtype).reshape(shape)


def _set_options(setter, handle, message_of, options):
    """Options by the library's own names ("profile", "group-rows", ...; '_' may stand for '-'),
    values as the tools take them (names or numbers; "group" also as a (rows, cols) pair)."""
    for key, value in options.items():
        if value is None:
            continue
        name = key.replace("_", "-")
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, (tuple, list)) and len(value) == 2:
            value = "%dx%d" % (value[0], value[1])
        check(setter(handle, name.encode(), str(value).encode()), lambda: message_of(handle),
              "option %s=%s" % (name, value))


class Decoder:
    """A libpcwt decoder handle with its options (backend, device, max-samples, memory-limit).
    One handle must not be used by two threads at once; pcwt.decode makes one per call."""

    def __init__(self, **options):
        self._dec = ffi.gc(lib.pcwt_decoder_create(), lib.pcwt_decoder_destroy)
        if self._dec == ffi.NULL:
            raise MemoryError("pcwt_decoder_create")
        _set_options(lib.pcwt_decoder_set_option_name, self._dec, lib.pcwt_decoder_last_error, options)

    def _message(self):
        return lib.pcwt_decoder_last_error(self._dec)

    def _option(self, name):
        opt = ffi.new("pcwt_option *")
        value = ffi.new("int64_t *")
        check(lib.pcwt_option_from_name(name.encode(), opt), what="option " + name)
        check(lib.pcwt_decoder_get_option(self._dec, opt[0], value), self._message, "option " + name)
        return value[0]

    def _check_budget(self, infos):
        """The handle's limits, checked before the outputs are allocated here (the library checks
        them again): samples per frame against max-samples, and what the frames need together
        (pcwt_decode_memory_bound, the outputs included) against memory-limit."""
        max_samples = self._option("max-samples")
        limit = self._option("memory-limit") or lib.pcwt_default_memory_limit()
        total = 0
        for i, info in enumerate(infos):
            d = info.desc
            if d.width * d.height * d.components > max_samples:
                raise Error("frame %d: %dx%d with %d components is above the decoder's limit of %d samples"
                            % (i, d.width, d.height, d.components, max_samples), "PCWT_ERR_LIMIT_EXCEEDED")
            total += lib.pcwt_decode_memory_bound(info)
        if total > limit:
            raise Error("decoding needs %d MiB, limit %d MiB" % (-(-total >> 20), limit >> 20),
                        "PCWT_ERR_LIMIT_EXCEEDED")

    @property
    def backend(self):
        """"cpu" or "gpu": what the handle resolved to."""
        return "gpu" if lib.pcwt_decoder_backend(self._dec) == 2 else "cpu"

    def decode(self, data, out=None):
        view = _as_bytes(data)
        info = _header(view)
        shape, dtype = _shape_dtype(info.desc)
        needed = lib.pcwt_image_size(ffi.addressof(info, "desc"))
        self._check_budget([info])
        if out is None:
            out = np.empty(shape, dtype)
        else:
            out = _check_out(out, shape, dtype, needed, "decode")
        dst = ffi.from_buffer(out, require_writable=True)
        check(lib.pcwt_decode(self._dec, view, len(view), dst, out.nbytes),
              self._message, "decode")
        return out

    def decode_batch(self, codestreams):
        """Decode a list of codestreams with one pcwt_decode_batch call (the GPU backend decodes
        them together); a list of arrays, or Error naming the first frame that failed."""
        views = [_as_bytes(c, "codestream %d" % i) for i, c in enumerate(codestreams)]
        infos = []
        for i, view in enumerate(views):
            try:
                infos.append(_header(view))
            except Error as exc:
                raise Error("frame %d: %s" % (i, exc), exc.status) from None
        self._check_budget(infos)
        outs = [np.empty(*_shape_dtype(info.desc)) for info in infos]
        count = len(views)
        if count == 0:
            return []
        jobs = ffi.new("pcwt_decode_job[]", count)
        keep = []
        for i, (view, out) in enumerate(zip(views, outs)):
            dst = ffi.from_buffer(out, require_writable=True)
            keep.append(dst)
            jobs[i].src, jobs[i].src_size = view, len(view)
            jobs[i].dst, jobs[i].dst_capacity = dst, out.nbytes
        status = lib.pcwt_decode_batch(self._dec, jobs, count)
        if status != 0:
            first = next((i for i in range(count) if jobs[i].status != 0), None)
            if first is not None:
                check(jobs[first].status, self._message, "decode_batch: frame %d" % first)
            check(status, self._message, "decode_batch")
        return outs


class Encoder:
    """A libpcwt encoder handle with its options, set by the library's names (see encode)."""

    def __init__(self, **options):
        self._enc = ffi.gc(lib.pcwt_encoder_create(), lib.pcwt_encoder_destroy)
        if self._enc == ffi.NULL:
            raise MemoryError("pcwt_encoder_create")
        _set_options(lib.pcwt_encoder_set_option_name, self._enc, lib.pcwt_encoder_last_error, options)

    def _message(self):
        return lib.pcwt_encoder_last_error(self._enc)

    def encode(self, array, bits_stored=None, is_signed=None, planar=False):
        arr = np.asarray(array)
        if arr.dtype not in (np.uint8, np.int8, np.uint16, np.int16):
            raise Error("encode: samples of %s: expected uint8, int8, uint16 or int16" % arr.dtype)
        planar = bool(planar)
        if arr.ndim == 2:
            height, width, components = arr.shape[0], arr.shape[1], 1
        elif arr.ndim == 3 and planar:
            components, height, width = arr.shape
        elif arr.ndim == 3:
            height, width, components = arr.shape
        else:
            raise Error("encode: expected (rows, columns), (rows, columns, 3) or with planar=True "
                        "(3, rows, columns), got shape %s" % (arr.shape,))
        if arr.ndim == 3 and components != 3:
            raise Error("encode: %d samples per pixel: expected 1 or 3" % components)
        arr = np.ascontiguousarray(arr)
        desc = ffi.new("pcwt_image_desc *")
        desc.width, desc.height, desc.components = width, height, components
        desc.bits_allocated = arr.dtype.itemsize * 8
        desc.bits_stored = desc.bits_allocated if bits_stored is None else int(bits_stored)
        desc.is_signed = int(arr.dtype.kind == "i" if is_signed is None else bool(is_signed))
        desc.planar = int(planar and components == 3)
        needed = lib.pcwt_image_size(desc)
        if needed == 0:
            raise Error("encode: invalid image: %dx%d, %d components, %d of %d bits"
                        % (width, height, components, desc.bits_stored, desc.bits_allocated))
        if arr.nbytes != needed:
            raise Error("encode: %d bytes of samples, the image needs %d" % (arr.nbytes, needed))
        bound = lib.pcwt_encode_bound(desc)
        dst = bytearray(bound)
        written = ffi.new("size_t *")
        check(lib.pcwt_encode(self._enc, desc, ffi.from_buffer(arr), arr.nbytes, ffi.from_buffer(dst),
                              bound, written), self._message, "encode")
        if written[0] > bound:
            raise Error("encode: the library wrote past its bound")
        del dst[written[0]:]
        return bytes(dst)


_local = threading.local()


def _decoder(options):
    """This thread's decoder handle for these options, made once: a handle is not to be shared
    between threads, and making one per call would cost the GPU backend its context each time."""
    cache = getattr(_local, "decoders", None)
    if cache is None:
        cache = _local.decoders = {}
    key = tuple(sorted((k, str(v)) for k, v in options.items()))
    dec = cache.get(key)
    if dec is None:
        dec = cache[key] = Decoder(**options)
    return dec


def decode(data, out=None, **options):
    """The samples of one codestream (PCWT; see pcwt.jpegls for JPEG-LS) as a numpy array:
    (rows, columns), (rows, columns, 3) or, for a planar codestream, (3, rows, columns); uint8/int8
    or uint16/int16 by the header's bits allocated and signedness, every bit as stored (bits above
    bits_stored included). out: an array to decode into (at least the image's bytes). options:
    decoder options by name (backend, device, max_samples, memory_limit); the calling thread's
    handle for them is kept for its next calls."""
    return _decoder(options).decode(data, out)


def decode_batch(codestreams, **options):
    """Decode a list of codestreams in one call of the library's batch API (together on the GPU
    when present); returns the list of arrays (as decode)."""
    return _decoder(options).decode_batch(codestreams)


def encode(array, bits_stored=None, is_signed=None, planar=False, **options):
    """Encode one frame: array of uint8/int8/uint16/int16, shape (rows, columns), (rows, columns,
    3), or (3, rows, columns) with planar=True. bits_stored defaults to the dtype's bits, is_signed
    to the dtype's signedness. options: every encoder option of the C API by its name, '_' for
    '-' (codec="jpegls", profile="entropy" (default: compact), levels=4, group=(64, 16), group_rows=..., min_ll,
    colour_transform, low_bits, lifting, jpegls_interleave, jpegls_restart, backend, device);
    values are value names or numbers, parsed by the library. Returns the codestream."""
    return Encoder(**options).encode(array, bits_stored, is_signed, planar)
