"""pydicom 3's decoder-plugin interface (pydicom.pixels.decoders): the "pcwt" plugins decode a
PCWT file (both profiles) and a JPEG-LS file to the original's pixels. Debian bookworm has
pydicom 2.3: skipped there, saying so."""
import os
import subprocess

import numpy as np
import pydicom
import pytest

from conftest import TESTDATA, tool

try:
    import pydicom.pixels.decoders.base  # noqa: F401
    HAVE_3 = True
except ImportError:
    HAVE_3 = False
pytestmark = pytest.mark.skipif(not HAVE_3, reason="pydicom %s has no pydicom.pixels: the decoder "
                                "plugins need pydicom 3" % pydicom.__version__)


@pytest.mark.parametrize("args", [["--profile", "baseline"], ["--profile", "entropy"], ["+el"]])
@pytest.mark.parametrize("rel", ["wg04/dicom_unc/CT1_UNC.dcm", "pydicom-data/color-pl_PC1.dcm",
                                 "pydicom-data/emri_small.dcm"])
def test_pydicom3_plugins(rel, args, tmp_path):
    import pcwt.pydicom
    from pydicom.pixels.decoders.base import get_decoder
    dcmcpcwt = tool("PCWT_TEST_DCMCPCWT")
    original = os.path.join(TESTDATA, rel)
    if not os.path.exists(original):
        pytest.skip("no corpus file %s" % original)
    out = str(tmp_path / "coded.dcm")
    subprocess.run([dcmcpcwt] + args + [original, out], check=True)
    ds = pydicom.dcmread(out)
    decoder = get_decoder(ds.file_meta.TransferSyntaxUID)
    assert "pcwt" in decoder.available_plugins
    ref = pydicom.dcmread(original).pixel_array
    got = ds.pixel_array
    assert got.shape == ref.shape and np.array_equal(got, ref)
    pcwt.pydicom.unregister()
    pcwt.pydicom.register()
