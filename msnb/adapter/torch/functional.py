"""msnb's ``torch.functional``: the functions PyTorch defines there, the same
objects as ``torch.<name>`` (those msnb lacks raise its unsupported error).

The names are read from the torch namespace when used, not bound at import:
the namespace's functions are wrapped (PyTorch's ``out=``, keyword spellings)
after its modules load, and ``torch.functional.norm is torch.norm`` holds
whichever object the namespace binds."""

from __future__ import annotations

from .nn import functional as F  # noqa: N812 - PyTorch's module keeps this alias

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid", "norm", "split", "stft", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]

from ._missing import module_getattr as _module_getattr  # noqa: E402

_missing_getattr = _module_getattr("torch.functional")


def __getattr__(name):
    if name in __all__:
        from msnb.adapter import torch as _torch
        return getattr(_torch, name)
    return _missing_getattr(name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
