"""msnb implementation of ``torch.sparse`` (COO tensors only).

``torch.sparse.mm`` (sparse COO @ dense, gradients to both operands, the
sparse one's on its own indices) and ``torch.sparse.sum``; the tensors
themselves are ``torch.sparse_coo_tensor`` / ``Tensor.to_sparse`` (see
``msnb.adapter.torch._sparse_coo``).  Other ``torch.sparse`` names raise
msnb's unsupported error.
"""

from __future__ import annotations

from .._missing import module_getattr
from .._sparse_coo import sparse_mm as mm, sparse_sum as sum  # noqa: A004 - torch's names

__all__ = ["mm", "sum"]

__getattr__ = module_getattr("torch.sparse")
