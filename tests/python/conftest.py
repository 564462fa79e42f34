"""Shared fixtures of the Python tests. ctest (python.cmake) sets the environment: PCWT_LIBRARY
(the build tree's shared libpcwt), PYTHONPATH (python/), PCWT_SHARED_DIR, and the tools
PCWT_TEST_DCMCPCWT, PCWT_TEST_DCMDPCWT, PCWT_TEST_LAYOUT when the build has them."""
import os
import shutil
import subprocess

import pytest

SHARED = os.environ.get("PCWT_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../shared"))
TESTDATA = os.path.join(SHARED, "testdata")
NATIVE = ("1.2.840.10008.1.2", "1.2.840.10008.1.2.1", "1.2.840.10008.1.2.2")


def tool(name):
    """The path of a tool given by the environment, or a skip saying which is missing."""
    path = os.environ.get(name)
    if not path or not os.path.exists(path):
        pytest.skip("%s not set: this build has no DCMTK tools" % name)
    return path


def corpus_files():
    """Every .dcm of shared/testdata, sorted by relative path (as tests/dicom/test_corpus.cpp)."""
    if not os.path.isdir(TESTDATA):
        return []
    found = []
    for root, _, names in os.walk(TESTDATA):
        found += [os.path.relpath(os.path.join(root, n), TESTDATA) for n in names if n.endswith(".dcm")]
    return sorted(found)


def corpus_params():
    files = corpus_files()
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no corpus at %s" % TESTDATA))]
    return files


def native_original(rel, tmp_path):
    """The corpus file, or for an encapsulated original its 'gdcmconv --raw' copy (the files'
    MANIFEST.md: checked identical to the decoded originals): the uncompressed original whose
    pixels pydicom reads with its own numpy handler."""
    import pydicom
    path = os.path.join(TESTDATA, rel)
    ts = str(pydicom.dcmread(path, stop_before_pixels=True).file_meta.TransferSyntaxUID)
    if ts in NATIVE:
        return path
    gdcmconv = shutil.which("gdcmconv")
    if not gdcmconv:
        pytest.skip("%s is encapsulated (%s) and gdcmconv (libgdcm-tools) is missing" % (rel, ts))
    out = str(tmp_path / "native.dcm")
    proc = subprocess.run([gdcmconv, "--raw", path, out], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out
