#!/usr/bin/python3
"""Runs pytest on the Python package's tests for ctest (tests/python/python.cmake): exit 77 (a
skip) with the reason when pytest, numpy, cffi or pydicom is missing, or when every test skipped
(no corpus, no pydicom 3: ctest then shows a skip, not a pass); pytest's own exit status
otherwise (5, no test collected, counts as a failure)."""
import importlib.util
import sys

missing = [m for m in ("pytest", "numpy", "cffi", "pydicom") if importlib.util.find_spec(m) is None]
if missing:
    print("SKIP: the Python tests need %s (packaging/install-deps.sh test: python3-pytest, "
          "python3-numpy, python3-cffi, python3-pydicom)" % ", ".join(missing))
    sys.exit(77)

import pytest  # noqa: E402



class Outcomes:
    """Counts the tests that ran (passed or failed) and those skipped."""

    def __init__(self):
        self.ran = self.skipped = 0

    def pytest_runtest_logreport(self, report):
        if report.skipped and report.when in ("setup", "call"):
            self.skipped += 1
        elif report.when == "call":
            self.ran += 1


outcomes = Outcomes()
status = pytest.main(["-q", "-rs", "-p", "no:cacheprovider"] + sys.argv[1:], plugins=[outcomes])
if status == 0 and outcomes.ran == 0 and outcomes.skipped:
    print("SKIP: every test skipped (reasons above)")
    sys.exit(77)
sys.exit(status)
