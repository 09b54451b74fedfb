"""Ops that pick or overwrite elements by their positions in the (contiguous) input:
strided views (``as_strided``, ``Tensor.unfold``) and the ``*_scatter`` family.

The positions are worked out on the host (numpy, from the shape alone); the
values move with differentiable gathers and scatters, so gradients follow.
These return copies: PyTorch's ``as_strided`` and ``unfold`` are views.
"""

from __future__ import annotations

import numpy as np

from .._core import TensorPy, cast
from . import indexing as I
from .reduction import dims_of

__all__ = ["as_strided", "as_strided_copy", "as_strided_scatter", "unfold", "unfold_copy", "diagonal_scatter",
           "select_scatter", "slice_scatter", "take_positions", "put_positions", "diag_embed_general"]


def _positions(x):
    return np.arange(x.numel(), dtype=np.int64).reshape(tuple(x.shape))


def take_positions(x, pos):
    """The elements of ``x`` at flat positions ``pos`` (a numpy array), shaped like ``pos``."""
    from .creation import tensor
    if pos.size == 0:
        return I._zeros(pos.shape, x.dtype) if not x.requires_grad else \
            I.index_select(x.reshape(-1), 0, tensor(np.zeros(0, np.int64))).reshape(pos.shape)
    return I.index_select(x.reshape(-1), 0, tensor(pos.reshape(-1))).reshape(pos.shape)


def put_positions(x, pos, v):
    """``x`` with the elements at flat positions ``pos`` replaced by ``v`` (broadcast to ``pos``'s shape)."""
    from .creation import tensor
    if not isinstance(v, TensorPy):
        v = tensor(v, dtype=x.dtype)
    v = cast(v, x.dtype)
    if tuple(v.shape) != pos.shape:
        v = v.expand(pos.shape)
    if pos.size == 0:
        return x.clone()
    flat = x.reshape(-1)
    return I._scatter_flat(flat, tensor(pos.reshape(-1)), v.reshape(-1)).reshape(tuple(x.shape))


def _strided_positions(x, size, stride, storage_offset):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    off = int(storage_offset or 0)
    pos = np.full(size, off, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    if pos.size and (pos.max() >= x.numel() or pos.min() < 0):
        need = int(pos.max()) + 1
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
                           f"itemsize {x.dtype.itemsize} requiring a storage size of {need * x.dtype.itemsize} "
                           f"are out of bounds for storage of size {x.numel() * x.dtype.itemsize}")
    return pos


def as_strided(input, size, stride, storage_offset=None):
    """msnb implementation of ``torch.as_strided`` (a copy, not a view).  Sizes, strides and offset
    address the storage: the input's own elements, or, for a view, its root's (PyTorch's storage
    of a view is its base's, and the default offset is the view's own)."""
    root = input._vbase
    if root is None or root.dtype != input.dtype:
        return take_positions(input, _strided_positions(input, size, stride, storage_offset))
    return _as_strided_of_view(input, root, size, stride, storage_offset)


def _as_strided_of_view(view, root, size, stride, storage_offset):
    """``as_strided`` over the root of ``view``: elements inside the view come from ``view``
    (gradients reach it, as PyTorch's), the others from the root, detached (PyTorch gives the
    view no gradient for storage outside it)."""
    from .creation import arange, tensor
    from .shape import cat
    inside = np.asarray(view._vfn(arange(root.numel()).reshape(tuple(root.shape))).numpy(), np.int64).reshape(-1)
    off = storage_offset if storage_offset is not None else (int(inside[0]) if inside.size else 0)
    pos = _strided_positions(root, size, stride, off)
    where = np.full(root.numel(), -1, np.int64)
    where[inside] = np.arange(inside.size, dtype=np.int64)
    own = where[pos]
    src = cat([view.reshape(-1), root.detach().reshape(-1)])
    return take_positions(src, np.where(own >= 0, own, view.numel() + pos))


as_strided_copy = as_strided


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """msnb implementation of ``torch.as_strided_scatter``."""
    return put_positions(input, _strided_positions(input, size, stride, storage_offset), src)


def _unfold_positions(x, dimension, size, step):
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    pos = _positions(x)
    if x.ndim == 0:
        if size > 1:
            raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}")
        return pos.reshape(1)
    d = dims_of(x, dimension)[0]
    n = x.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    win = np.lib.stride_tricks.sliding_window_view(pos, size, axis=d)
    return np.ascontiguousarray(np.take(win, np.arange(0, n - size + 1, step), axis=d))


def unfold(input, dimension, size, step):
    """msnb implementation of ``Tensor.unfold``: windows of ``size`` every ``step`` along ``dimension``,
    as a new last dimension (a copy, not a view)."""
    from ..autograd.graph import name_node
    return name_node(take_positions(input, _unfold_positions(input, dimension, size, step)), "UnfoldBackward0", input)


def unfold_copy(input, dimension, size, step):
    return unfold(input, dimension, size, step)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """msnb implementation of ``torch.diagonal_scatter``."""
    d1, d2 = dims_of(input, dim1)[0], dims_of(input, dim2)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    pos = np.diagonal(_positions(input), offset, d1, d2)
    _check_src(src, pos)
    return put_positions(input, pos, src)


def select_scatter(input, src, dim, index):
    """msnb implementation of ``torch.select_scatter``."""
    d = dims_of(input, dim)[0]
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    pos = np.take(_positions(input), index, axis=d)
    _check_src(src, pos)
    return put_positions(input, pos, src)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """msnb implementation of ``torch.slice_scatter``."""
    d = dims_of(input, dim)[0]
    pos = _positions(input)[(slice(None),) * d + (slice(start, end, step),)]
    _check_src(src, pos)
    return put_positions(input, pos, src)


def _check_src(src, pos):
    if tuple(src.shape) != pos.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(pos.shape)}")


def diag_embed_general(input, offset, dim1, dim2):
    """``torch.diag_embed`` with any ``offset`` and pair of output dims: zeros with the last dim of
    ``input`` written on the ``offset`` diagonal of dims ``(dim1, dim2)``."""
    from .creation import zeros
    nd = input.ndim + 1
    d1, d2 = dim1 % nd if -nd <= dim1 < nd else None, dim2 % nd if -nd <= dim2 < nd else None
    if d1 is None or d2 is None:
        bad = dim1 if d1 is None else dim2
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {bad})")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + abs(offset) if input.ndim else 1 + abs(offset)
    rest = iter(input.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(rest) for i in range(nd))
    out = zeros(shape, dtype=input.dtype)
    pos = np.diagonal(np.arange(out.numel(), dtype=np.int64).reshape(shape), offset, d1, d2)
    return put_positions(out, pos, input)
