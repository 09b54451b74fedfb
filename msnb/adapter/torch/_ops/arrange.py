"""Splitting, stacking, flipping and the ``*_copy`` forms of view ops, built on :mod:`shape`."""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from .. import _core, _dtype as D
from .._core import TensorPy, cast
from . import shape as S
from .creation import size_args
from .reduction import dims_of

__all__ = ["unsafe_chunk", "unsafe_split", "split_with_sizes", "split_with_sizes_copy", "tensor_split",
           "hsplit", "vsplit", "dsplit", "ravel", "atleast_3d", "column_stack", "dstack", "row_stack",
           "fliplr", "flipud", "rot90", "block_diag", "cartesian_prod", "combinations", "diagflat",
           "expand_copy", "diagonal_copy", "alias_copy", "narrow_copy", "view_copy", "permute_copy",
           "squeeze_copy", "unsqueeze_copy", "transpose_copy", "t_copy", "unbind_copy",
           "detach_copy"]


def unsafe_chunk(input, chunks, dim=0):
    return S.chunk(input, chunks, dim)


def unsafe_split(input, split_size, dim=0):
    return S.split(input, split_size, dim)


def split_with_sizes(input, split_sizes, dim=0):
    return S.split(input, list(split_sizes), dim)


def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):
    return tuple(S.clone(p) for p in split_with_sizes(input, split_sizes, dim))


def tensor_split(input, indices_or_sections, dim=0):
    """msnb implementation of ``torch.tensor_split``: ``n`` near-equal parts, or parts between indices."""
    d = dims_of(input, dim)[0]
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, TensorPy):
        if ios.dtype.is_floating_point or ios.dtype is D.bool:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have integer dtype")
        if ios.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               "one-dimensional tensor")
        ios = int(ios.item()) if ios.ndim == 0 else [int(v) for v in ios.tolist()]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        sizes = [q + 1] * r + [q] * (ios - r)
        bounds = list(itertools.accumulate(sizes))[:-1]
    else:
        bounds = list(ios)
    out, start = [], 0
    for b in bounds + [n]:
        b = builtins.min(builtins.max(b + n if b < 0 else b, 0), n)
        s = builtins.min(start, n)
        out.append(S.narrow(input, d, s, builtins.max(b - s, 0)))
        start = builtins.max(start, b)
    return tuple(out)


def _dir_split(name, input, ios, dim, min_dims):
    if isinstance(ios, bool) or not isinstance(ios, (int, list, tuple)) and not hasattr(ios, "__index__"):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(ios).__name__}), but expected one of:\n * (Tensor input, int sections)\n"
                        " * (Tensor input, tuple of ints indices)")
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(ios, int) and (ios == 0 or input.shape[dim] % ios):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input, indices_or_sections):
    return _dir_split("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _dir_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _dir_split("dsplit", input, indices_or_sections, 2, 3)


def ravel(input):
    return S.reshape(input, (-1,))


def atleast_3d(*tensors):
    """msnb implementation of ``torch.atleast_3d``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_3d(t) for t in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_3d(t) for t in tensors)
    x = tensors[0]
    if x.ndim == 0:
        return S.reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return S.reshape(x, (1, x.shape[0], 1))
    if x.ndim == 2:
        return S.unsqueeze(x, 2)
    return x


def column_stack(tensors, *, out=None):
    """msnb implementation of ``torch.column_stack``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [S.reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors]
    return _core.write_out(out, S.hstack(cols))


def dstack(tensors, *, out=None):
    """msnb implementation of ``torch.dstack``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return _core.write_out(out, S.cat([atleast_3d(t) for t in tensors], 2))


def row_stack(tensors, *, out=None):
    return S.vstack(tensors)


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return S.flip(input, (1,))


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return S.flip(input, (0,))


def rot90(input, k=1, dims=(0, 1)):
    """msnb implementation of ``torch.rot90``: ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = dims_of(input, dims[0])[0], dims_of(input, dims[1])[0]
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return S.transpose(S.flip(input, (d1,)), d0, d1)
    if k == 2:
        return S.flip(input, (d0, d1))
    if k == 3:
        return S.transpose(S.flip(input, (d0,)), d0, d1)
    return S.clone(input)


def block_diag(*tensors):
    """msnb implementation of ``torch.block_diag``."""
    from .creation import zeros
    mats = []
    for t in tensors:
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {len(mats)} "
                               f"has {t.ndim} dimensions")
        mats.append(S.reshape(t, (1, 1)) if t.ndim == 0 else S.reshape(t, (1, t.shape[0])) if t.ndim == 1 else t)
    if not mats:
        return zeros(1, 0)
    rt = mats[0].dtype
    for m in mats[1:]:
        rt = D.promote_types(rt, m.dtype)
    cols = builtins.sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = [zeros(r, left, dtype=rt), cast(m, rt), zeros(r, cols - left - c, dtype=rt)]
        rows.append(S.cat(parts, 1))
        left += c
    return S.cat(rows, 0)


def cartesian_prod(*tensors):
    """msnb implementation of ``torch.cartesian_prod``."""
    if len(tensors) == 1:
        return tensors[0]
    grids = S.meshgrid(*tensors, indexing="ij")
    return S.stack([S.reshape(g, (-1,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """msnb implementation of ``torch.combinations`` (the index tuples are listed on the host)."""
    from .creation import tensor, zeros
    from .indexing import index_select
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return zeros(0, dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if idx.shape[0] == 0:
        return S.reshape(index_select(input, 0, tensor(np.zeros(0, np.int64))), (0, r))
    return S.reshape(index_select(input, 0, tensor(idx.reshape(-1))), (idx.shape[0], r))


def diagflat(input, offset=0):
    return S.diag(S.reshape(input, (-1,)), offset)


def sum_to_size(input, *size):
    """msnb implementation of ``Tensor.sum_to_size``."""
    from .pointwise import sum_to
    size = size_args(size)
    shape = tuple(input.shape)
    ok = len(size) <= len(shape) and builtins.all(
        s == t or s == 1 for s, t in zip(size[::-1], shape[::-1]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if input.dtype is D.bool:  # a sum: booleans add up as int64, as in PyTorch
        input = cast(input, D.int64)
    return sum_to(input, size)


# --- the *_copy forms: the view op's values in a tensor of their own ----------------------

def expand_copy(input, size, *, implicit=False):
    return S.clone(S.expand(input, size))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    from .matrix import diagonal
    return diagonal(input, offset, dim1, dim2)


def alias_copy(input):
    return S.clone(input)


def narrow_copy(input, dim, start, length):
    """msnb implementation of ``torch.narrow_copy``: ``narrow``'s checks, except that a
    non-negative ``dim`` past the last one is PyTorch's RuntimeError (its kernel checks it
    before wrapping the dimension), not ``narrow``'s IndexError."""
    if input.ndim and isinstance(dim, int) and dim >= input.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           f"(narrow_copy: dim {dim} of a {input.ndim}-d tensor)")
    if isinstance(length, int) and length < 0 and input.ndim:  # the kernel checks only start + length
        size = input.shape[dims_of(input, dim)[0]]
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return S.clone(S.narrow(input, dim, start, length))


def view_copy(input, *size):
    if len(size) == 1 and isinstance(size[0], D.dtype):
        raise NotImplementedError("torch.view_copy(dtype) is not supported by msnb yet (see the support list: "
                                  "python -m msnb.adapter.support --markdown)")
    return S.clone(S.reshape(input, *size))


def permute_copy(input, dims):
    return S.clone(S.permute(input, *dims))


def squeeze_copy(input, dim=None):
    return S.clone(S.squeeze(input, dim))


def unsqueeze_copy(input, dim):
    return S.clone(S.unsqueeze(input, dim))


def transpose_copy(input, dim0, dim1):
    return S.clone(S.transpose(input, dim0, dim1))


def t_copy(input):
    return S.clone(S.t(input))


def unbind_copy(input, dim=0):
    return tuple(S.clone(p) for p in S.unbind(input, dim))


def detach_copy(input):
    return S.clone(S.detach(input))
