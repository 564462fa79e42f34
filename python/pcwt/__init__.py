"""pcwt: Python binding of libpcwt, the PCWT lossless codec (docs/python.md).

    pcwt.decode(codestream) -> numpy.ndarray       one frame, every stored bit
    pcwt.decode_batch([codestream, ...]) -> list   one call of the batch API (GPU when present)
    pcwt.encode(array, **options) -> bytes         every encoder option of the C API by name
    pcwt.read_header(codestream) -> dict
    pcwt.jpegls.decode / pcwt.jpegls.encode        JPEG-LS (CharLS decodes, libpcwt encodes)
    import pcwt.pydicom                            pydicom reads PCWT and JPEG-LS pixel data
Errors are pcwt.Error, carrying the library's message."""
from ._codec import Decoder, Encoder, decode, decode_batch, encode, read_header
from ._lib import Error, ffi as _ffi, lib as _lib, path as library_path
from . import jpegls

__all__ = ["Error", "Decoder", "Encoder", "decode", "decode_batch", "encode", "read_header",
           "has_cuda", "library_version", "library_path", "TRANSFER_SYNTAX_UID"]

#: The private transfer syntax of PCWT files (dicom/include/pcwt_dicom.h, docs/CONFORMANCE.md).
TRANSFER_SYNTAX_UID = "2.25.225299300768051036748914159895949168641"
JPEGLS_LOSSLESS_UID = "1.2.840.10008.1.2.4.80"

__version__ = "0.1.0"


def has_cuda():
    """True when the loaded libpcwt was built with the CUDA backend."""
    return bool(_lib.pcwt_has_cuda())


def library_version():
    """The version of the loaded libpcwt, "major.minor.patch"."""
    return _ffi.string(_lib.pcwt_version_string()).decode()
