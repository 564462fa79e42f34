"""pydicom 3 decoder plugins (pydicom.pixels.decoders, Decoder.add_plugin): "pcwt" for the private
PCWT transfer syntax (a Decoder of its own, added to pydicom's table of decoders) and for JPEG-LS
Lossless (added to pydicom's JPEGLSLosslessDecoder). A plugin is a function (src, runner) ->
bytes of one frame; pydicom does the rest (shape, JPEG-LS sign correction, colour space).
Written against pydicom 3.0's plugin interface; the tests run it where a pydicom 3 is installed."""
from pydicom.pixels.decoders import base as _base
from pydicom.uid import UID

from .. import JPEGLS_LOSSLESS_UID, TRANSFER_SYNTAX_UID
from .. import jpegls as _jpegls
from .._codec import _decoder
from ._frames import Module, _check_pcwt_header, decode_jpegls_frame

LABEL = "pcwt"

DECODER_DEPENDENCIES = {
    TRANSFER_SYNTAX_UID: ("numpy", "cffi", "libpcwt"),
    JPEGLS_LOSSLESS_UID: ("numpy", "cffi", "libcharls.so.2"),
}


def is_available(uid):
    if uid == JPEGLS_LOSSLESS_UID:
        return _jpegls.available()
    return uid == TRANSFER_SYNTAX_UID


def _module(runner):
    return Module(runner.rows, runner.columns, runner.samples_per_pixel, runner.bits_allocated,
                  runner.bits_stored, runner.pixel_representation,
                  runner.planar_configuration if runner.samples_per_pixel == 3 else 0)


def decode_pcwt(src, runner):
    """One PCWT frame: its words, every bit as stored."""
    module = _module(runner)
    _check_pcwt_header(src, module, getattr(runner, "_index", 0))
    return _decoder({}).decode(src).tobytes()


def decode_jpegls(src, runner):
    """One JPEG-LS frame, pixel-interleaved, as Bits-Stored-bit values in Bits-Allocated words
    (pydicom's apply_jls_sign_correction sign-extends them)."""
    module = _module(runner)
    return decode_jpegls_frame(src, module, getattr(runner, "_index", 0), sign_extend=False).tobytes()


def _pcwt_uid():
    uid = UID(TRANSFER_SYNTAX_UID)
    uid.set_private_encoding(False, True)
    return uid


def register():
    table = _base._PIXEL_DATA_DECODERS
    if TRANSFER_SYNTAX_UID not in table:
        decoder = _base.Decoder(_pcwt_uid())
        decoder.add_plugin(LABEL, (__name__, "decode_pcwt"))
        table[TRANSFER_SYNTAX_UID] = (decoder, "pcwt")
    jls = _base.get_decoder(UID(JPEGLS_LOSSLESS_UID))
    if LABEL not in jls._available and LABEL not in jls._unavailable:
        jls.add_plugin(LABEL, (__name__, "decode_jpegls"))


def unregister():
    table = _base._PIXEL_DATA_DECODERS
    table.pop(TRANSFER_SYNTAX_UID, None)
    jls = _base.get_decoder(UID(JPEGLS_LOSSLESS_UID))
    if LABEL in jls._available or LABEL in jls._unavailable:
        jls.remove_plugin(LABEL)


__all__ = ["decode_pcwt", "decode_jpegls", "is_available", "register", "unregister",
           "DECODER_DEPENDENCIES"]
