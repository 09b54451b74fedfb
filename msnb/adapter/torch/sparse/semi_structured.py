"""msnb implementation of ``torch.sparse.semi_structured``: 2:4 semi-structured
sparsity is a CUDA feature in PyTorch (CUTLASS / cuSPARSELt kernels).  On a
CPU host PyTorch refuses every conversion with a ``RuntimeError`` ("Only CUDA
tensors are currently supported."), and msnb does the same; on Ascend msnb
has no 2:4 kernels and refuses with the same error type, naming the device."""

from __future__ import annotations

__all__ = ["SparseSemiStructuredTensor", "SparseSemiStructuredTensorCUTLASS", "SparseSemiStructuredTensorCUSPARSELT",
           "to_sparse_semi_structured"]


def _refuse(original_tensor):
    device = original_tensor.device  # a non-tensor fails here, as in PyTorch (an AttributeError)
    if getattr(device, "type", str(device)) == "cpu":
        raise RuntimeError(f"Error original_tensor.device= {device} is not supported! Only CUDA tensors are "
                           "currently supported.")
    raise RuntimeError(f"Error original_tensor.device= {device} is not supported! 2:4 semi-structured sparsity "
                       "needs PyTorch's CUDA kernels (CUTLASS / cuSPARSELt), which msnb does not have.")


class SparseSemiStructuredTensor:
    """PyTorch's 2:4 sparse tensor base class; its subclasses' ``from_dense`` refuse every msnb tensor."""

    _DEFAULT_ALG_ID = 0
    _FORCE_CUTLASS = False
    _FUSE_TRANSPOSE = False

    def __new__(cls, shape, packed, meta, packed_t, meta_t, compressed_swizzled_bitmask,
                fuse_transpose_cusparselt=False, alg_id_cusparselt=0, requires_grad=False):
        if packed is None and packed_t is None:
            raise ValueError("At least one of packed or packed_t must be provided")
        _refuse(packed if packed is not None else packed_t)

    @classmethod
    def from_dense(cls, original_tensor):
        raise NotImplementedError


class SparseSemiStructuredTensorCUTLASS(SparseSemiStructuredTensor):
    """The CUTLASS layout: ``from_dense`` raises PyTorch's CPU error."""

    @classmethod
    def from_dense(cls, original_tensor, alg_id=0):
        _refuse(original_tensor)


class SparseSemiStructuredTensorCUSPARSELT(SparseSemiStructuredTensor):
    """The cuSPARSELt layout: ``from_dense`` raises PyTorch's CPU error."""

    @classmethod
    def from_dense(cls, original_tensor, alg_id=0):
        _refuse(original_tensor)


def to_sparse_semi_structured(original_tensor, transposed: bool = False, alg_id: int = 0):
    """``torch.sparse.to_sparse_semi_structured``: refused as PyTorch refuses a non-CUDA tensor."""
    cls = SparseSemiStructuredTensorCUTLASS if SparseSemiStructuredTensor._FORCE_CUTLASS \
        else SparseSemiStructuredTensorCUSPARSELT
    return cls.from_dense(original_tensor, alg_id)
