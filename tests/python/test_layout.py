"""The binding's cffi declarations (python/pcwt/_cdef.py, ABI mode) lay the structs out as the C
compiler does pcwt.h's: sizes and offsets printed by pcwt_py_layout (layout.c) against cffi's."""
import os
import subprocess

import pytest

from pcwt._lib import ffi


def test_struct_layouts_match_the_header():
    exe = os.environ.get("PCWT_TEST_LAYOUT")
    if not exe or not os.path.exists(exe):
        pytest.skip("PCWT_TEST_LAYOUT (pcwt_py_layout) not built")
    lines = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split("\n")
    checked = 0
    for line in filter(None, lines):
        name, value = line.split()
        if "." in name:
            struct, field = name.split(".")
            got = ffi.offsetof(struct, field)
        else:
            got = ffi.sizeof(name)
        assert got == int(value), "%s: cffi %d, C %s" % (name, got, value)
        checked += 1
    assert checked >= 20
