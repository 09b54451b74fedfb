"""Runtime tests bind fake devices; the adapter's kernel table must not keep them."""

from __future__ import annotations

import os
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


@pytest.fixture(autouse=True)
def host_blocking_env_restored(monkeypatch):
    """Binding a fake device sets or drops MindSpore's MS_DEV_HOST_BLOCKING_RUN (and msnb's
    marker) in os.environ: put them back, so later tests' child processes inherit what the
    test process itself was started with."""
    for name in ("MS_DEV_HOST_BLOCKING_RUN", "MSNB_HOST_BLOCKING_RUN"):
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])
        else:
            monkeypatch.delenv(name, raising=False)
    yield
