"""msnb implementation of ``torch.sparse`` (COO tensors only).

``torch.sparse.mm`` (sparse COO @ dense, gradients to both operands, the
sparse one's on its own indices) and ``torch.sparse.sum``; the tensors
themselves are ``torch.sparse_coo_tensor`` / ``Tensor.to_sparse`` (see
``msnb.adapter.torch._sparse_coo``).  2:4 semi-structured sparsity
(``to_sparse_semi_structured``) is refused as PyTorch refuses it on CPU.  Other ``torch.sparse`` names raise
msnb's unsupported error.
"""

from __future__ import annotations

from .._missing import module_getattr
from .._sparse_coo import sparse_mm as mm, sparse_sum as sum  # noqa: A004 - torch's names
from .semi_structured import (SparseSemiStructuredTensor, SparseSemiStructuredTensorCUSPARSELT,
                              SparseSemiStructuredTensorCUTLASS, to_sparse_semi_structured)

__all__ = ["mm", "sum", "SparseSemiStructuredTensor", "SparseSemiStructuredTensorCUTLASS",
           "SparseSemiStructuredTensorCUSPARSELT", "to_sparse_semi_structured"]

__getattr__ = module_getattr("torch.sparse")
