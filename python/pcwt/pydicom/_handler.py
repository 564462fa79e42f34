"""The pydicom 2 pixel data handler (pydicom.config.pixel_data_handlers): PCWT's private transfer
syntax and JPEG-LS Lossless. A handler is a module with these names; pcwt.pydicom.register() puts
this one first in the list. Photometric interpretation and planar configuration are the data
set's (the codecs keep the colour space: nothing to convert)."""
from pydicom.encaps import generate_pixel_data_frame

from .. import JPEGLS_LOSSLESS_UID, TRANSFER_SYNTAX_UID, Error
from .. import jpegls as _jpegls
from ._frames import Module, decode_frames

HANDLER_NAME = "PCWT"

DEPENDENCIES = {
    "numpy": ("http://www.numpy.org/", "NumPy"),
    "cffi": ("https://cffi.readthedocs.io/", "cffi"),
}

SUPPORTED_TRANSFER_SYNTAXES = [TRANSFER_SYNTAX_UID, JPEGLS_LOSSLESS_UID]


def is_available():
    """True: libpcwt is loaded when the package is imported (JPEG-LS needs CharLS besides)."""
    return True


def supports_transfer_syntax(transfer_syntax):
    if transfer_syntax == JPEGLS_LOSSLESS_UID:
        return _jpegls.available()
    return transfer_syntax == TRANSFER_SYNTAX_UID


def needs_to_convert_to_RGB(ds):
    return False


def should_change_PhotometricInterpretation_to_RGB(ds):
    return False


def encapsulated_frames(ds, count):
    """The count frames of the encapsulated Pixel Data (the Basic Offset Table locates frames of
    several fragments); a damaged encapsulation is an Error."""
    try:
        frames = list(generate_pixel_data_frame(ds.PixelData, count))
    except Exception as exc:  # pydicom's parser raises ValueError, KeyError, struct.error...
        raise Error("encapsulated Pixel Data: %s" % exc) from None
    if len(frames) != count:
        raise Error("encapsulated Pixel Data: %d frames for Number of Frames %d" % (len(frames), count))
    return frames


def number_of_frames(ds):
    try:
        count = int(ds.get("NumberOfFrames", 1) or 1)
    except (TypeError, ValueError):
        raise Error("Number of Frames %r is not a number" % ds.get("NumberOfFrames")) from None
    if count < 1:
        raise Error("Number of Frames %d" % count)
    return count


def get_pixeldata(ds):
    """The Pixel Data as a flat numpy array of pydicom's dtype for the data set (pixel_dtype)."""
    uid = str(ds.file_meta.TransferSyntaxUID)
    module = Module.of(ds)
    frames = encapsulated_frames(ds, number_of_frames(ds))
    return decode_frames(uid, frames, module)
