"""pydicom support for PCWT files (docs/python.md).

`import pcwt.pydicom` registers the decoders (register() does it again explicitly): pydicom 2's
`ds.pixel_array` then decodes the private PCWT transfer syntax and JPEG-LS Lossless (the PCWT
handler put first in pydicom.config.pixel_data_handlers); with pydicom 3 the same functions are
decoder plugins ("pcwt") of pydicom.pixels.decoders, a Decoder being added for the private syntax.
compress(ds, profile=..., syntax="pcwt"|"jpegls") codes a data set's pixel data in place."""
import pydicom as _pydicom

from ._compress import compress
from ._frames import decode_frames

__all__ = ["register", "unregister", "compress", "decode_frames"]


def _is_pydicom3():
    """pydicom 3's decoders are there (pydicom.pixels arrived with 3.0; the version string is not
    asked, a source tree's may be another installation's)."""
    try:
        import pydicom.pixels.decoders.base  # noqa: F401
    except ImportError:
        return False
    return True


def register():
    """Make pydicom decode PCWT and JPEG-LS pixel data with libpcwt (and CharLS for JPEG-LS).
    Idempotent."""
    if _is_pydicom3():
        from . import _pydicom3
        _pydicom3.register()
        return
    from . import _handler
    handlers = _pydicom.config.pixel_data_handlers
    if _handler not in handlers:
        handlers.insert(0, _handler)


def unregister():
    """Undo register()."""
    if _is_pydicom3():
        from . import _pydicom3
        _pydicom3.unregister()
        return
    from . import _handler
    handlers = _pydicom.config.pixel_data_handlers
    while _handler in handlers:
        handlers.remove(_handler)


register()
