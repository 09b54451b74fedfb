"""msnb's ``torch.functional``: the functions PyTorch defines there, the same
objects as ``torch.<name>`` (those msnb lacks raise its unsupported error)."""

from __future__ import annotations

from . import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors,
               cartesian_prod, cdist, chain_matmul, einsum, meshgrid, norm, split, stft, tensordot, unique,
               unique_consecutive, unravel_index)
from .nn import functional as F  # noqa: N812 - PyTorch's module keeps this alias

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid", "norm", "split", "stft", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]

from ._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.functional")
