"""Finding and opening libpcwt (cffi, ABI mode), and the package's one exception type.

The library is looked for, in this order: the file named by the environment variable
PCWT_LIBRARY; libpcwt.so.0 beside this package (where `cmake --install` of a static build puts
it); the system's libpcwt.so.0 and libpcwt.so (the Debian package)."""
import os

from cffi import FFI

from ._cdef import CDEF


class Error(Exception):
    """A refusal of libpcwt (its status and its handle's message) or of the binding (a buffer of
    the wrong size, an unknown option...). status is the pcwt_status name, or None for the
    binding's own checks."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


ffi = FFI()
ffi.cdef(CDEF)

_SONAME = "libpcwt.so.0"


def _candidates():
    env = os.environ.get("PCWT_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, _SONAME), _SONAME, "libpcwt.so"], False


def _open():
    names, explicit = _candidates()
    errors = []
    for name in names:
        if os.sep in name and not os.path.exists(name) and not explicit:
            continue
        try:
            return ffi.dlopen(name), name
        except OSError as exc:
            errors.append("%s: %s" % (name, exc))
    where = "PCWT_LIBRARY" if explicit else "beside the package or on the system"
    raise ImportError("pcwt: cannot load libpcwt (%s): %s" % (where, "; ".join(errors) or "not found"))


lib, path = _open()


def status_name(status):
    """The pcwt_status enumerator's name of a status number."""
    return ffi.string(ffi.cast("pcwt_status", status))


def check(status, message_of=None, what=""):
    """Raise Error for a status other than PCWT_OK, with the handle's message when it has one."""
    if status == 0:
        return
    text = ffi.string(message_of()).decode("utf-8", "replace") if message_of else ""
    if not text:
        text = ffi.string(lib.pcwt_status_string(status)).decode("utf-8", "replace")
    raise Error("%s%s" % (what + ": " if what else "", text), status_name(status))
