"""Index-driven writes and reductions: ``index_fill``, ``index_copy``, ``put``,
``masked_scatter``, ``scatter_reduce``, ``index_reduce``, ``nonzero_static`` ...

The target positions come from the index tensors on the host (numpy); the
values move through differentiable scatters (see :mod:`positions`), so
gradients reach both the input and the source.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import TensorPy, cast
from . import indexing as I
from . import pointwise as P
from .positions import put_positions
from .reduction import dims_of

__all__ = ["index_fill", "index_copy", "index_put", "put", "masked_scatter", "scatter_reduce", "index_reduce",
           "nonzero_static", "argwhere"]


def _index_array(index, size, dim, name):
    if index.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {D._name_of(index.dtype)}")
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    a = index.numpy().reshape(-1).astype(np.int64)
    if a.size and (a.min() < -size or a.max() >= size):
        bad = a.min() if a.min() < -size else a.max()
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return np.where(a < 0, a + size, a)


def _along(input, dim, index, name):
    """Flat positions of ``input`` at ``index`` along ``dim`` (dim moved to where numpy's take puts it)."""
    d = dims_of(input, dim)[0]
    shape = tuple(input.shape) or (1,)
    idx = _index_array(index, shape[d], d, name)
    pos = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return np.take(pos, idx, axis=d), d


def _flat_input(input):
    return input.reshape(-1) if input.ndim == 0 else input


def index_fill(input, dim, index, value):
    """msnb implementation of ``torch.index_fill`` (a number or a 0-d tensor)."""
    if isinstance(value, TensorPy) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    pos, _ = _along(input, dim, index, "index_fill")
    return put_positions(_flat_input(input), pos.reshape(pos.shape), value).reshape(tuple(input.shape))


def index_copy(input, dim, index, source):
    """msnb implementation of ``torch.index_copy``."""
    pos, _ = _along(input, dim, index, "index_copy")
    src = source.reshape(pos.shape) if source.numel() == pos.size else source
    return put_positions(_flat_input(input), pos, src).reshape(tuple(input.shape))


def index_put(input, indices, values, accumulate=False):
    """msnb implementation of ``torch.index_put`` (out of place)."""
    return I.index_put(input, tuple(indices), values, accumulate)


def put(input, index, source, accumulate=False):
    """msnb implementation of ``torch.put``: writes at positions of the flattened input."""
    n = input.numel()
    pos = _index_array(index.reshape(-1), n, 0, "put").reshape(tuple(index.shape))
    if accumulate:
        from .creation import tensor
        flat = I.index_add(input.reshape(-1), 0, tensor(pos.reshape(-1)), cast(source, input.dtype).reshape(-1))
        return flat.reshape(tuple(input.shape))
    return put_positions(input, pos, source.reshape(pos.shape))


def masked_scatter(input, mask, source):
    """msnb implementation of ``torch.masked_scatter``: ``source``'s elements, in order, where ``mask`` is true."""
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{D._name_of(mask.dtype)}")
    shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    x = input if tuple(input.shape) == shape else input.expand(shape)
    m = np.broadcast_to(mask.numpy(), shape)
    pos = np.nonzero(m.reshape(-1))[0]
    if pos.size > source.numel():
        raise RuntimeError("masked_scatter: Number of elements of source < number of ones in mask")
    vals = source.reshape(-1)[: pos.size]
    return put_positions(x, pos, vals)


# --- scatter_reduce / index_reduce -------------------------------------------------------------

_IDENTITY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "amax": float("-inf"), "amin": float("inf")}


def _scatter_targets(input, dim, index, src):
    """Flat positions in ``input`` that each element of ``src[:index.shape]`` is reduced into."""
    d = dims_of(input, dim)[0] if input.ndim else 0
    shape = tuple(input.shape) or (1,)
    idx = index.numpy().astype(np.int64).reshape(tuple(index.shape) or (1,))
    if idx.size and (idx.min() < 0 or idx.max() >= shape[d]):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {shape[d]}")
    coords = list(np.indices(idx.shape))
    coords[d] = idx
    return np.ravel_multi_index(coords, shape).reshape(-1).astype(np.int64), d


def _src_values(src, index):
    if tuple(src.shape) == tuple(index.shape):
        return src.reshape(-1)
    return src[tuple(slice(0, s) for s in index.shape)].reshape(-1)


def _reduce_into(input, tgt, vals, reduce, include_self):
    """``input`` with ``vals`` reduced into flat positions ``tgt`` (numpy)."""
    from .creation import tensor
    if reduce not in _IDENTITY:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    shape = tuple(input.shape)
    flat = input.reshape(-1)
    n = flat.shape[0]
    counts = np.bincount(tgt, minlength=n)
    hit = counts > 0
    base = flat
    if not include_self and hit.any():
        base = P.where(tensor(hit), _IDENTITY[reduce] if input.dtype.is_floating_point else
                       _int_identity(reduce, input.dtype), flat)
    if reduce in ("sum", "mean"):
        out = I.index_add(base, 0, tensor(tgt), vals) if tgt.size else base
        if reduce == "mean":
            den = counts + (1 if include_self else 0)
            den = np.where(den == 0, 1, den)
            dent = tensor(den.astype(input.dtype.numpy if input.dtype.is_floating_point else np.int64))
            out = P.div(out, dent) if input.dtype.is_floating_point else P.floor_divide(out, dent)
        return out.reshape(shape)
    # prod / amax / amin: one pass per rank of an element within its target's group
    order = np.argsort(tgt, kind="stable")
    ranks = np.empty_like(order)
    sorted_t = tgt[order]
    starts = np.searchsorted(sorted_t, sorted_t, side="left")
    ranks[order] = np.arange(tgt.size) - starts
    out = base
    for r in range(int(ranks.max()) + 1 if tgt.size else 0):
        sel = np.nonzero(ranks == r)[0]
        vr = I.index_select(vals, 0, tensor(sel.astype(np.int64)))
        fill = _IDENTITY[reduce] if input.dtype.is_floating_point else _int_identity(reduce, input.dtype)
        from .creation import full
        layer = put_positions(full((n,), fill, dtype=input.dtype), tgt[sel], vr)
        out = P.mul(out, layer) if reduce == "prod" else _extreme(reduce, out, layer)
    return out.reshape(shape)


def _extreme(reduce, a, b):
    return P.maximum(a, b) if reduce == "amax" else P.minimum(a, b)


def _int_identity(reduce, dtype):
    info = D.iinfo(dtype)
    return {"sum": 0, "mean": 0, "prod": 1, "amax": info.min, "amin": info.max}[reduce]


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """msnb implementation of ``torch.scatter_reduce`` (sum, prod, mean, amax, amin)."""
    tgt, _ = _scatter_targets(input, dim, index, src)
    if input.dtype == D.bool:  # sum/amax: any, prod/amin: all -- reduced as int32, read back as bool
        if reduce == "mean":
            raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
        vals = cast(_src_values(src, index), D.int32)
        return cast(_reduce_into(cast(input, D.int32), tgt, vals, reduce, include_self), D.bool)
    return _reduce_into(input, tgt, cast(_src_values(src, index), input.dtype), reduce, include_self)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """msnb implementation of ``torch.index_reduce`` (prod, mean, amax, amin)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    d = dims_of(input, dim)[0] if input.ndim else 0
    src = source if source.ndim else source.reshape(1)
    pos, _ = _along(input, d, index, "index_reduce")  # (..., len(index), ...) positions, like src
    return _reduce_into(input, pos.reshape(-1), cast(src, input.dtype).reshape(-1), reduce, include_self) \
        if pos.shape == tuple(src.shape) else _bad_source(src, pos)


def _bad_source(src, pos):
    raise RuntimeError(f"index_reduce_(): Source shape {list(src.shape)} does not match the indexed shape "
                       f"{list(pos.shape)}")


def nonzero_static(input, *, size, fill_value=-1):
    """msnb implementation of ``torch.nonzero_static``: ``size`` rows, cut or padded with ``fill_value``."""
    from .creation import tensor
    a = input.numpy(force=True)
    nz = np.stack(np.nonzero(a), axis=1) if a.ndim else np.zeros((int(a != 0), 0), np.int64)
    out = np.full((size, a.ndim), fill_value, np.int64)
    k = min(size, nz.shape[0])
    out[:k] = nz[:k]
    return tensor(out)


def argwhere(input):
    return I.nonzero(input)
