"""Indexing: ``x[...]`` reads and writes, ``gather``/``scatter``,
``index_select``, ``masked_fill`` and friends.

Basic indices (ints, slices, ``None``, ``...``) give views, as in PyTorch.
Advanced indices (integer tensors or lists, bool masks) give copies; they are
resolved on the host into flat positions with numpy's indexing rules, which
PyTorch follows, so mixed basic/advanced indices behave as PyTorch's do.
"""

from __future__ import annotations

import numpy as np

from .. import _core, _dtype as D
from .._core import K, TensorPy, cast, inplace, make_view, ms, needs_grad, record, wrap
from . import pointwise as P
from ..autograd.graph import name_node

__all__ = ["getitem", "setitem", "index_put", "gather", "scatter", "scatter_add", "index_select",
           "masked_fill", "masked_select", "nonzero", "take_along_dim", "index_add", "take",
           "is_basic_index"]

_MsGet = ms.Tensor.__getitem__
_MsSet = ms.Tensor.__setitem__


def _norm(idx):
    return idx if isinstance(idx, tuple) else (idx,)


def is_basic_index(idx) -> bool:
    for i in idx:
        if i is None or i is Ellipsis or isinstance(i, slice):
            continue
        if isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)):
            continue
        if isinstance(i, TensorPy) and i.ndim == 0 and not i.dtype.is_floating_point and i.dtype is not D.bool:
            continue
        return False
    return True


def _plain(idx):
    out = []
    for i in idx:
        if isinstance(i, TensorPy):
            i = int(i.item())
        elif isinstance(i, np.integer):
            i = int(i)
        out.append(i)
    return tuple(out)


def _check_bounds(x, idx):
    dim = 0
    for i in idx:
        if i is None:
            continue
        if i is Ellipsis:
            dim = x.ndim - sum(1 for j in idx if j is not None and j is not Ellipsis) + dim
            continue
        if isinstance(i, int):
            n = x.shape[dim] if dim < x.ndim else None
            if n is None:
                raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {n}")
        dim += 1
    if dim > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")


def _basic_name(shape, idx):
    """PyTorch's node name for ``x[idx]`` (basic indices): the last op its
    indexing applied -- select for an int, slice for a slice that is not the
    whole dimension (a lone slice always is one), unsqueeze for None; none: alias."""
    if len(idx) == 1 and isinstance(idx[0], slice):
        return "SliceBackward0"
    name, dim = "AliasBackward0", 0
    for i in idx:
        if i is None:
            name = "UnsqueezeBackward0"
        elif i is Ellipsis:
            dim = len(shape) - sum(1 for j in idx if j is not None and j is not Ellipsis) + dim
        elif isinstance(i, slice):
            if (i.start or 0) != 0 or (i.step or 1) != 1 or (i.stop is not None and i.stop < shape[dim]):
                name = "SliceBackward0"
            dim += 1
        else:
            name = "SelectBackward0"
            dim += 1
    return name


def _basic_get(x, idx):
    res = _MsGet(x, idx) if idx else K.identity(x)
    if res is x:
        res = K.identity(x)
    res = wrap(res)
    if needs_grad(x):
        shp = tuple(x.shape)
        record(_basic_name(shp, idx), res, (x,), lambda g: (_put_into_zeros(shp, idx, g),))
    return res


def _put_into_zeros(shape, idx, g):
    """Zeros of ``shape`` with ``[idx] = g``: basic indexing's gradient.  Fresh zeros nothing else
    holds are written as they are (no copy kernel) unless ``g`` is itself differentiated.  An empty
    slot leaves the zeros as they are (MindSpore's CPU slice copy fails on empty tensors)."""
    if 0 in tuple(g.shape):
        return _zeros(shape, g.dtype)
    if not idx or needs_grad(g):
        return _basic_put(_zeros(shape, g.dtype), idx, g)
    return _basic_put(K.zeros(shape, g.dtype), idx, g, copy=False)


def _zeros(shape, dtype):
    return wrap(K.zeros(shape, dtype))


def _basic_put(x, idx, v, copy=True):
    """``x`` with ``x[idx] = v``, computed out of place (differentiable); ``copy=False``: written
    into ``x`` itself (a fresh plain MindSpore tensor nothing else holds, ``v`` not differentiated)."""
    res = K.identity(x) if copy else x
    vv = v
    if isinstance(vv, TensorPy):
        vv = cast(vv, x.dtype) if vv.dtype is not x.dtype else vv
        # MindSpore wants the value already broadcast to the slot's shape
        slot = _MsGet(x, idx) if idx else x
        if tuple(vv.shape) != tuple(slot.shape):
            vv = K.broadcast_to(K.reshape(vv, tuple(vv.shape)[max(0, vv.ndim - slot.ndim):]) if vv.ndim > slot.ndim else vv,
                                tuple(slot.shape))
    elif isinstance(vv, bool) and x.dtype.is_floating_point:
        vv = float(vv)
    if idx:
        _MsSet(res, idx, vv)
    else:
        res = K.broadcast_to(vv, tuple(x.shape)) if isinstance(vv, TensorPy) else K.fill(x.dtype, tuple(x.shape), vv)
    res = wrap(res)
    if needs_grad(x, v):
        vshape = tuple(v.shape) if isinstance(v, TensorPy) else None

        def bw(g):
            gx = _basic_put(g, idx, 0.0) if _rg(x) else None
            gv = P.sum_to(_basic_get(g, idx), vshape) if vshape is not None and _rg(v) else None
            return gx, gv
        record("CopySlices", res, (x, v if isinstance(v, TensorPy) else None), bw)
    return res


def _rg(t):
    return isinstance(t, TensorPy) and t.requires_grad


def _np_index(idx):
    out = []
    for i in idx:
        if isinstance(i, TensorPy):
            i = i.numpy()
        elif isinstance(i, list):
            i = np.asarray(i)
        out.append(i)
    return tuple(out)


def _flat_positions(x, idx):
    pos = np.arange(x.numel(), dtype=np.int64).reshape(tuple(x.shape))
    try:
        return pos[_np_index(idx)]
    except IndexError as e:
        raise IndexError(str(e)) from None


def _adv_get(x, idx):
    from .creation import tensor
    lin = _flat_positions(x, idx)
    flat = x.reshape(-1)
    res = wrap(K.index_select(flat, tensor(lin.reshape(-1)), 0)) if lin.size else _zeros((0,), x.dtype)
    res = res.reshape(lin.shape) if lin.size else res.reshape(lin.shape)
    if needs_grad(x):
        shp = tuple(x.shape)
        n = x.numel()

        def bw(g):
            return (index_add(_zeros((n,), g.dtype), 0, tensor(lin.reshape(-1)), g.reshape(-1)).reshape(shp),)
        record("IndexBackward0", res, (x,), bw)
    return res


def getitem(x, idx):
    """``x[idx]``: a view for basic indices, a copy otherwise."""
    idx = _norm(idx)
    if is_basic_index(idx):
        idx = _plain(idx)
        _check_bounds(x, idx)
        res = _basic_get(x, idx)
        return make_view(x, res, lambda t: _basic_get(t, idx), lambda t, new: _basic_put(t, idx, new))
    return _adv_get(x, idx)


def index_put(x, idx, v, accumulate=False):
    """Out-of-place ``x[idx] = v`` (or ``+=`` with ``accumulate``) for any index."""
    from .creation import tensor
    idx = _norm(idx)
    if not accumulate and is_basic_index(idx):
        idx = _plain(idx)
        _check_bounds(x, idx)
        return _basic_put(x, idx, v)
    lin = _flat_positions(x, idx)
    if not isinstance(v, TensorPy):
        v = tensor(v, dtype=x.dtype)
    v = cast(v, x.dtype)
    vb = v.expand(lin.shape) if tuple(v.shape) != lin.shape else v
    flat = x.reshape(-1)
    li = tensor(lin.reshape(-1))
    if accumulate:
        res = index_add(flat, 0, li, vb.reshape(-1))
    else:
        if lin.size and len(np.unique(lin)) != lin.size:
            # last write wins, as on PyTorch's CPU backend
            _, last = np.unique(lin.reshape(-1)[::-1], return_index=True)
            keep = (lin.size - 1 - last)
            li = tensor(lin.reshape(-1)[keep])
            vb = vb.reshape(-1)[tensor(keep.astype(np.int64))]
        res = _scatter_flat(flat, li, vb.reshape(-1))
    return res.reshape(tuple(x.shape))


def _scatter_flat(flat, li, vals):
    mask = wrap(K.zeros((flat.shape[0],), D.bool))
    ones = wrap(K.ones((li.shape[0],), D.int32))
    hit = index_add(cast(mask, D.int32), 0, li, ones)
    placed = index_add(_zeros((flat.shape[0],), flat.dtype), 0, li, vals)  # (not flat * 0: inf * 0 is NaN)
    return P.where(P.gt(hit, 0), placed, flat)


def setitem(x, idx, v):
    """``x[idx] = v`` in place (through every alias of ``x``)."""
    from .._core import snapshot
    src = snapshot(x) if needs_grad(x, v) else x
    inplace(x, index_put(src, idx, v))


def index_select(input, dim, index, *, out=None):
    """msnb implementation of ``torch.index_select``."""
    from .reduction import dims_of
    d = dims_of(input, dim)[0]
    _check_index(index, "index_select(): Expected dtype int32 or int64 for index")
    idx = cast(index, D.int64).reshape(-1)
    if input.ndim == 0:
        check_in_bounds(idx, 1, 0, IndexError)
        return input.reshape(()).clone()
    check_in_bounds(idx, input.shape[d], d, IndexError)
    res = wrap(K.index_select(input, idx, d))
    if needs_grad(input):
        shp = tuple(input.shape)
        record("IndexSelectBackward0", res, (input,),
               lambda g: (index_add(_zeros(shp, g.dtype), d, idx, g),))
    return res


def index_add(input, dim, index, source, *, alpha=1):
    """msnb implementation of ``torch.index_add`` (out of place)."""
    from .reduction import dims_of
    d = dims_of(input, dim)[0]
    if input.ndim and source.ndim:
        if source.ndim != input.ndim or any(a != b for i, (a, b) in enumerate(zip(input.shape, source.shape))
                                            if i != d):
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
        if index.numel() != source.shape[d]:
            raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                               f"source.size(dim) ({source.shape[d]})")
    src = source if alpha == 1 else P.mul(source, alpha)
    src = cast(src, input.dtype)
    idx = cast(index, D.int64).reshape(-1)
    check_in_bounds(idx, input.shape[d] if input.ndim else 1, d, IndexError)
    if input.ndim == 0 or src.ndim == 0:  # a 0-d input or source counts as one element along dim 0
        shape = tuple(input.shape)
        out = index_add(input.reshape(-1) if input.ndim == 0 else input, d, idx,
                        src.reshape(-1) if src.ndim == 0 else src)
        return out.reshape(shape)
    # scatter_add along dim d using an index broadcast to src's shape
    shape = [1] * src.ndim
    shape[d] = -1
    full_idx = idx.reshape(shape).expand(tuple(src.shape))
    return scatter_add(input, d, full_idx, src)


def _check_index(index, message):
    if index.dtype not in (D.int64, D.int32):
        raise RuntimeError(message)


def _index_range(idx):
    """(min, max) of an index tensor, read on the host; None when it is empty."""
    if idx.numel() == 0:
        return None
    a = idx.numpy()
    return int(a.min()), int(a.max())


def check_in_bounds(idx, size, dim, exc=RuntimeError):
    """PyTorch refuses indices outside ``[0, size)`` (no wrapping of negatives) in gather,
    scatter, scatter_add; index_select, index_add and embedding raise ``IndexError``."""
    from ...graph.capture import recording
    if recording():
        return
    r = _index_range(idx)
    if r is None:
        return
    lo, hi = r
    if lo < 0 or hi >= size:
        if exc is IndexError:
            raise IndexError("index out of range in self")
        bad = lo if lo < 0 else hi
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _same_rank(input, index, what):
    """PyTorch's gather / scatter take an index of the input's rank (a 0-d one aside)."""
    if input.ndim and index.ndim and input.ndim != index.ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")


def _index_sizes(input, d, index, src=None):
    """PyTorch's size checks of gather / scatter: the index no larger than the input apart from
    ``dim`` (and, in scatter, a tensor ``src`` of the index's rank and at least its size)."""
    if isinstance(src, TensorPy) and src.ndim and index.ndim and src.ndim != index.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if not index.ndim or not input.ndim or index.numel() == 0:
        return
    si, sx = list(index.shape), list(input.shape)
    over_self = [i for i in range(len(si)) if i != d and si[i] > sx[i]]
    if not isinstance(src, TensorPy):
        if over_self:
            raise RuntimeError(f"Size does not match at dimension {over_self[0]} expected index {si} to be no "
                               f"larger than self {sx} apart from dimension {d}")
        return
    ss = list(src.shape)
    if over_self or (src.ndim and any(a > b for a, b in zip(si, ss))):
        raise RuntimeError(f"Expected index {si} to be no larger than self {sx} apart from dimension {d} and to be "
                           f"no larger size than src {ss}")


def _same_dtype(input, src):
    if isinstance(src, TensorPy) and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """msnb implementation of ``torch.gather`` (``out`` of the input's dtype, as PyTorch requires)."""
    from .reduction import dims_of
    if out is not None:
        D.check_out_dtype(out, input.dtype)
        return _core.write_out(out, gather(input, dim, index, sparse_grad=sparse_grad))
    d = dims_of(input, dim)[0]
    _same_rank(input, index, "input")
    _index_sizes(input, d, index)
    _check_index(index, "gather(): Expected dtype int32/int64 for index")
    idx = cast(index, D.int64)
    check_in_bounds(idx, input.shape[d] if input.ndim else 1, d)
    if input.ndim == 0:
        return input.reshape(()).clone() if idx.ndim == 0 else input.reshape(()).clone().expand(tuple(idx.shape))
    res = wrap(K.gather_elements(input, d, idx))
    if needs_grad(input):
        shp = tuple(input.shape)
        record("GatherBackward0", res, (input,), lambda g: (scatter_add(_zeros(shp, g.dtype), d, idx, g),))
    return res


def take_along_dim(input, indices, dim=None):
    """msnb implementation of ``torch.take_along_dim`` (input and indices broadcast except along ``dim``)."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    from .reduction import dims_of
    d = dims_of(input, dim)[0]
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
                           f"dimensions for indices")
    si, sx = list(indices.shape), list(input.shape)
    si[d] = sx[d] = 1
    b = list(np.broadcast_shapes(tuple(si), tuple(sx)))
    bx, bi = list(b), list(b)
    bx[d], bi[d] = input.shape[d], indices.shape[d]
    x = input if list(input.shape) == bx else input.expand(tuple(bx))
    i = indices if list(indices.shape) == bi else indices.expand(tuple(bi))
    return gather(x, d, i)


def take(input, index):
    """msnb implementation of ``torch.take``: indices into the flattened input (negative ones count from the end)."""
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {D._name_of(index.dtype)}")
    n = input.numel()
    r = _index_range(index)
    if r is not None and (r[0] < -n or r[1] >= n):
        bad = r[0] if r[0] < -n else r[1]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    idx = index.reshape(-1)
    if r is not None and r[0] < 0:
        idx = P.where(P.lt(idx, 0), P.add(idx, n), idx)
    return gather(input.reshape(-1), 0, idx).reshape(tuple(index.shape))


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """msnb implementation of ``torch.scatter`` (tensor or scalar ``src``; reduce 'add'/'multiply')."""
    from .reduction import dims_of
    d = dims_of(input, dim)[0]
    _same_dtype(input, src)
    _index_sizes(input, d, index, src if src is not None else value)
    _same_rank(input, index, "self")
    idx = cast(index, D.int64)
    check_in_bounds(idx, input.shape[d] if input.ndim else 1, d)
    if src is None:
        src = value
    if not isinstance(src, TensorPy):
        from .creation import full
        src = full(tuple(idx.shape), src, dtype=input.dtype)
    src = cast(src, input.dtype)
    if reduce == "add":
        return scatter_add(input, d, idx, src)
    if reduce == "multiply":
        raise NotImplementedError("torch.scatter(reduce='multiply') is not supported by msnb yet")
    if tuple(src.shape) != tuple(idx.shape):
        src = src[tuple(slice(0, s) for s in idx.shape)]
    res = wrap(K.tensor_scatter_elements(input, idx, src, d))
    if needs_grad(input, src):
        def bw(g):
            gi = scatter(g, d, idx, 0.0) if _rg(input) else None
            gs = gather(g, d, idx) if _rg(src) else None
            return gi, gs
        record("ScatterBackward0", res, (input, src), bw)
    return res


def scatter_add(input, dim, index, src):
    """msnb implementation of ``torch.scatter_add``."""
    from .reduction import dims_of
    d = dims_of(input, dim)[0]
    _same_dtype(input, src)
    _index_sizes(input, d, index, src if src is not None else value)
    _same_rank(input, index, "self")
    idx = cast(index, D.int64)
    check_in_bounds(idx, input.shape[d] if input.ndim else 1, d)
    src = cast(src, input.dtype)
    if tuple(src.shape) != tuple(idx.shape):
        src = src[tuple(slice(0, s) for s in idx.shape)]
    res = wrap(K.tensor_scatter_elements(input, idx, src, d, "add"))
    if needs_grad(input, src):
        record("ScatterAddBackward0", res, (input, src),
               lambda g: (g if _rg(input) else None, gather(g, d, idx) if _rg(src) else None))
    return res


#: PyTorch's C++ type names in its conversion errors
_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def masked_fill(input, mask, value):
    """msnb implementation of ``torch.masked_fill``."""
    if isinstance(value, TensorPy):
        if value.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
        if not value.requires_grad:
            value = value.item()
    if not input.dtype.is_complex and (isinstance(value, complex) or (
            isinstance(value, TensorPy) and value.dtype.is_complex)):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES.get(input.dtype._name, input.dtype._name)} "
                           "without overflow")
    if input.dtype is D.bool and not isinstance(value, TensorPy):
        value = bool(value)
    res = P.where(cast(mask, D.bool), value if isinstance(value, TensorPy) else
                  (float(value) if input.dtype.is_floating_point else value), input) \
        if not isinstance(value, TensorPy) else P.where(cast(mask, D.bool), value.to(input.dtype), input)
    return name_node(res, "MaskedFillBackward0", input)


def masked_select(input, mask):
    m = cast(mask, D.bool)
    if tuple(m.shape) != tuple(input.shape):
        input, m = input.expand(np.broadcast_shapes(tuple(input.shape), tuple(m.shape))), \
            m.expand(np.broadcast_shapes(tuple(input.shape), tuple(m.shape)))
    return _adv_get(input, (m,))


def nonzero(input, *, as_tuple=False):
    """msnb implementation of ``torch.nonzero``."""
    from .creation import tensor
    a = input.detach().numpy()
    if a.ndim == 0:  # PyTorch: a 0-d tensor has n = (value != 0) positions and no coordinates
        n = int(a != 0)
        return (tensor(np.zeros(n, np.int64)),) if as_tuple else tensor(np.zeros((n, 0), np.int64))
    nz = np.nonzero(a)
    if as_tuple:
        return tuple(tensor(a.astype(np.int64)) for a in nz)
    return tensor(np.stack(nz, axis=1).astype(np.int64) if nz else np.zeros((0, 0), np.int64))
