"""Runtime tests bind fake devices; the adapter's kernel table must not keep them."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def cpu_kernels_after_each_test():
    """A fake Ascend bind rebinds ``K`` to Ascend kernels process-wide: put
    the CPU table back so later tests compute on this host's kernels."""
    yield
    dispatch = sys.modules.get("msnb.adapter._dispatch")
    if dispatch is not None:
        dispatch.select("CPU")
