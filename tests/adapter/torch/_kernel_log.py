"""The names of the MindSpore kernels a block of adapter code launches (``K`` entries), in order."""

from __future__ import annotations

import contextlib

from msnb.adapter import _dispatch


@contextlib.contextmanager
def kernel_names():
    """Yield a list that fills with the ``K`` kernel names launched inside the block."""
    names = []

    def hook(name, kernel):
        def run(*a, **k):
            names.append(name)
            return kernel(*a, **k)
        return run
    _dispatch.set_kernel_hook(hook)
    try:
        yield names
    finally:
        _dispatch.set_kernel_hook(None)
