"""Reductions: ``sum``, ``mean``, ``max``, ``argmax``, ``topk``, ``sort`` ..."""

from __future__ import annotations

import builtins as _b
import math

from .. import return_types
from .. import _core, _dtype as D
from .._core import K, cast, copy_meta, meta, needs_grad, record, shape_of, wrap, write_out, TensorPy
from . import pointwise as P
from ..autograd.graph import name_node

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any",
           "std", "var", "std_mean", "var_mean", "norm", "logsumexp", "cumsum", "cumprod", "topk",
           "sort", "argsort", "median", "count_nonzero", "dims_of", "unique", "nansum", "bincount"]

_MaxResult = return_types.structseq("max", ["values", "indices"])
_MinResult = return_types.structseq("min", ["values", "indices"])
_TopK = return_types.structseq("topk", ["values", "indices"])
_Sort = return_types.structseq("sort", ["values", "indices"])


def dims_of(x, dim):
    """Normalise ``dim`` (None, int, or sequence) to a sorted tuple of positive dims."""
    nd = x.ndim
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, int):
        dim = (dim,)
    out = []
    for d in dim:
        m = _b.max(nd, 1)
        if not -m <= d < m:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], but got {d})")
        w = d % nd if nd else 0
        if w in out:  # PyTorch refuses a dim named twice (``sum(x, (0, -4))`` of a 4-d x)
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(sorted(out))


# input dtypes whose sum/mean CPU kernels exist (none for bfloat16; see pointwise._F)
_SUM_OK = frozenset(map(id, (D.float16, D.float32, D.float64, D.int64)))


def _reduced(res, x, dims, keepdim):
    """Record the dtype (``x``'s) and shape of ``res``, a sum/mean of ``x`` over ``dims``."""
    if dims and id(x.dtype) in _SUM_OK:
        sh = shape_of(x)
        meta(res, x.dtype, tuple(1 if i in dims else s for i, s in enumerate(sh)) if keepdim else
             tuple(s for i, s in enumerate(sh) if i not in dims))
    return res


def _expand_back(g, x_shape, dims, keepdim):
    if not x_shape:
        return g.reshape(())
    if not keepdim and dims and g.ndim:  # (a 0-d gradient expands as it is: no reshape kernel)
        shape = list(g.shape)
        for d in dims:
            shape.insert(d, 1)
        g = g.reshape(shape)
    return g.expand(x_shape)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """msnb implementation of ``torch.sum`` (integer and bool inputs sum as int64)."""
    x = input
    if dtype is not None:
        x = cast(x, dtype)
    elif not x.dtype.is_floating_point and not x.dtype.is_complex:
        x = cast(x, D.int64)
    if x.dtype is D.bfloat16:  # no bfloat16 CPU kernel: accumulate in float32 and round once, as PyTorch does
        return write_out(out, cast(sum(cast(x, D.float32), dim, keepdim), D.bfloat16))
    dims = dims_of(x, dim)
    if x.ndim == 0:
        res = copy_meta(wrap(K.identity(x)), x)
    elif 0 in x.shape:
        res = _empty_reduce(x, dims, keepdim, 0)
    else:
        res = _reduced(wrap(K.sum(x, dims, keepdim)), x, dims, keepdim)
    if needs_grad(x):
        shp = tuple(x.shape)
        record("SumBackward1" if dim is not None else "SumBackward0", res, (x,),
               lambda g: (_expand_back(g, shp, dims, keepdim),))
    return write_out(out, res)


def _empty_reduce(x, dims, keepdim, value):
    """Reduction of a tensor with no elements: ``value`` everywhere in the
    result (MindSpore's kernels return uninitialised memory here)."""
    shape = [1 if i in dims else s for i, s in enumerate(x.shape)] if keepdim else \
        [s for i, s in enumerate(x.shape) if i not in dims]
    if 0 in shape:
        return wrap(K.zeros(tuple(shape), x.dtype))
    return wrap(K.fill(x.dtype, tuple(shape), value))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point:
        return sum(input, dim, keepdim, dtype=dtype)
    return sum(P.where(P.isnan(input), 0.0, input), dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """msnb implementation of ``torch.mean``."""
    x = input if dtype is None else cast(input, dtype)
    if not x.dtype.is_floating_point and not x.dtype.is_complex:
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either a "
                           f"floating point or complex dtype. Got: {D._name_of(x.dtype)}")
    dims = dims_of(x, dim)
    n = 1
    for d in dims if x.ndim else ():
        n *= x.shape[d]
    res = _reduced(wrap(K.mean(x, dims, keepdim)), x, dims, keepdim) if x.ndim and n else \
        copy_meta(wrap(K.identity(x)), x) if not x.ndim else _empty_reduce(x, dims, keepdim, float("nan"))
    if needs_grad(x):
        shp = tuple(x.shape)
        record("MeanBackward1" if dim is not None else "MeanBackward0", res, (x,),
               lambda g: (P.div(_expand_back(g, shp, dims, keepdim), n),))
    return write_out(out, res)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    x = input if dtype is None else cast(input, dtype)
    if not x.dtype.is_floating_point:
        x = cast(x, D.int64)
    dims = dims_of(x, dim)
    res = wrap(K.prod(x, dims, keepdim)) if x.ndim and 0 not in x.shape else wrap(K.identity(x)) if not x.ndim else \
        _empty_reduce(x, dims, keepdim, 1)
    if needs_grad(x):
        shp = tuple(x.shape)
        record("ProdBackward0", res, (x,),
               lambda g: (P.mul(_expand_back(g, shp, dims, keepdim), _prod_of_others(x, dims)),), saved=(x,))
    return res


def _exclusive_cumprod(x, d, reverse=False):
    """Product of the elements before (or after) each position along ``d``."""
    from .shape import cat, flip, narrow
    from .creation import ones_like
    n = x.shape[d]
    if reverse:
        return flip(_exclusive_cumprod(flip(x, d), d), d)
    one = ones_like(narrow(x, d, 0, 1))
    if n == 1:
        return one
    return cat([one, cumprod(narrow(x, d, 0, n - 1), d)], d)


def _prod_of_others(x, dims):
    """For each element, the product of the other elements of its reduction
    group: the gradient of ``prod``, right also where inputs are zero."""
    if not x.ndim:
        from .creation import ones_like
        return ones_like(x)
    rest = [i for i in range(x.ndim) if i not in dims]
    perm = rest + list(dims)
    xp = x.permute(*perm)
    lead = tuple(xp.shape[:len(rest)])
    flat = xp.reshape(lead + (-1,))
    d = len(rest)
    others = P.mul(_exclusive_cumprod(flat, d), _exclusive_cumprod(flat, d, reverse=True))
    import numpy as np
    inv = np.argsort(perm).tolist()
    return others.reshape(tuple(xp.shape)).permute(*inv)


def _amaxmin(kname, name, input, dim, keepdim):
    if input.dtype is D.bool:  # MindSpore's CPU reductions have no bool kernel: 0/1 as uint8 is exact
        return cast(_amaxmin(kname, name, cast(input, D.uint8), dim, keepdim), D.bool)
    x = input
    dims = dims_of(x, dim)
    if _b.any(x.shape[d] == 0 for d in dims) if x.ndim else False:
        op = kname
        if dim is None:
            raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        raise IndexError(f"{op}(): Expected reduction dim {dims[0]} to have non-zero size.")
    res = wrap(getattr(K, kname)(x, dims, keepdim)) if x.ndim else wrap(K.identity(x))
    if x.ndim and x.dtype.is_floating_point:
        # MindSpore's ReduceMax / ReduceMin skip a NaN unless it comes first; PyTorch's propagate it
        res = P.where(wrap(K.any(K.isnan(x), dims, keepdim)), math.nan, res)
    if needs_grad(x):
        shp = tuple(x.shape)

        def bw(g):
            r = _expand_back(res, shp, dims, keepdim)
            hit = P.eq(x, r)
            if name != "AmaxBackward0" and name != "AminBackward0" and x.dtype.is_floating_point:
                # max() / min(): a NaN result's gradient is shared by the NaNs (PyTorch's
                # evenly_distribute_backward); amax / amin's is NaN, as its mask is then empty
                hit = P.logical_or(hit, P.logical_and(P.isnan(x), P.isnan(r)))
            mask = cast(hit, g.dtype)
            cnt = _expand_back(sum(mask, dims, keepdim=True), shp, dims, True)
            return (P.div(P.mul(_expand_back(g, shp, dims, keepdim), mask), cnt),)
        record(name, res, (x,), bw, saved=(x,))
    return res


def _amaxmin_out(input, out):
    if out is not None and out.dtype is not input.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {D._name_of(input.dtype)} for "
                           f"input's dtype and {D._name_of(out.dtype)} for out's dtype.")


def amax(input, dim=(), keepdim=False, *, out=None):
    """msnb implementation of ``torch.amax`` (``out`` of the input's dtype, as PyTorch requires)."""
    _amaxmin_out(input, out)
    return write_out(out, _amaxmin("amax", "AmaxBackward0", input, None if dim == () else dim, keepdim))


def amin(input, dim=(), keepdim=False, *, out=None):
    """msnb implementation of ``torch.amin`` (``out`` of the input's dtype, as PyTorch requires)."""
    _amaxmin_out(input, out)
    return write_out(out, _amaxmin("amin", "AminBackward0", input, None if dim == () else dim, keepdim))


def _max_min(kname, result_cls, name, input, dim, keepdim, other):
    if other is not None or isinstance(dim, TensorPy):
        other = dim if other is None else other
        return (P.maximum if kname == "amax" else P.minimum)(input, other)
    if dim is None:
        return _amaxmin(kname, name, input, None, False)
    if input.dtype is D.bool:  # as in _amaxmin: through uint8, values back to bool
        vals, idx = _max_min(kname, result_cls, name, cast(input, D.uint8), dim, keepdim, None)
        return result_cls(cast(vals, D.bool), idx)
    x = input
    d = dims_of(x, dim)[0]
    if x.numel() == 0 and x.ndim:  # MindSpore's arg kernels fail on empty input; PyTorch's result is empty
        if x.shape[d] == 0:
            raise IndexError(f"{kname[1:]}(): Expected reduction dim {d} to have non-zero size.")
        return result_cls(_amaxmin(kname, name[:-1] + "0", x, d, keepdim), _arg_extreme("arg" + kname[1:], x, d, keepdim))
    idx = wrap(getattr(K, "argmax" if kname == "amax" else "argmin")(x, d, keepdim)) if x.ndim else \
        wrap(K.zeros((), D.int64))
    if idx.dtype is not D.int64:
        idx = cast(idx, D.int64)
    if x.ndim and x.dtype.is_floating_point:
        idx = _nan_wins(x, d, keepdim, idx)
    vals = gather(x, d, idx if keepdim else idx.unsqueeze(d))
    if not keepdim and x.ndim:
        vals = vals.squeeze(d)
    return result_cls(name_node(vals, name[:-1] + "0", x), idx)


def gather(x, d, idx):
    from .indexing import gather as _g
    return _g(x, d, idx)


def max(input, dim=None, keepdim=False, *, other=None, out=None):  # noqa: A001
    """msnb implementation of ``torch.max``: full reduction, ``(values, indices)`` along a dim,
    or elementwise with a second tensor."""
    return _max_min("amax", _MaxResult, "MaxBackward1", input, dim, keepdim, other)


def min(input, dim=None, keepdim=False, *, other=None, out=None):  # noqa: A001
    """msnb implementation of ``torch.min``."""
    return _max_min("amin", _MinResult, "MinBackward1", input, dim, keepdim, other)


def _arg_extreme(kname, input, dim, keepdim):
    """argmax / argmin, first occurrence; a NaN counts as the extreme, as in PyTorch."""
    x = input
    if dim is None:
        if input.numel() == 0:
            raise IndexError(f"{kname}(): Expected reduction dim to be specified for input.numel() == 0.")
        x, d, keepdim = input.reshape(-1), 0, False
    else:
        d = dims_of(input, dim)[0]
    if x.ndim == 0:
        return wrap(K.zeros((), D.int64))
    if x.numel() == 0:  # MindSpore's kernel fails on empty input; PyTorch returns the empty result
        if x.shape[d] == 0:
            raise IndexError(f"{kname}(): Expected reduction dim {d} to have non-zero size.")
        from .creation import zeros
        shape = list(x.shape)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
        return zeros(shape, dtype=D.int64)
    idx = cast(wrap(getattr(K, kname)(x, d, keepdim)), D.int64)
    return _nan_wins(x, d, keepdim, idx) if x.dtype.is_floating_point else idx


def _nan_wins(x, d, keepdim, idx):
    """``idx`` (int64 argmax / argmin of ``x`` along ``d``) with the first NaN's index where a
    row holds one: PyTorch counts NaN as the extreme, MindSpore's kernels skip it."""
    nan = P.isnan(x)
    first_nan = cast(wrap(K.argmax(cast(nan, D.int32), d, keepdim)), D.int64)
    return P.where(wrap(K.any(nan, (d,), keepdim)), first_nan, idx)


def argmax(input, dim=None, keepdim=False):
    """msnb implementation of ``torch.argmax`` (first occurrence; NaN wins, as in PyTorch)."""
    return _arg_extreme("argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """msnb implementation of ``torch.argmin`` (first occurrence; NaN wins, as in PyTorch)."""
    return _arg_extreme("argmin", input, dim, keepdim)


def _empty_bool_reduce(x, dims, keepdim, value):
    """all/any over an empty tensor: True/False everywhere (MindSpore's kernel reads garbage)."""
    from .creation import full
    shape = [1 if i in dims else s for i, s in enumerate(x.shape)] if keepdim else \
        [s for i, s in enumerate(x.shape) if i not in dims]
    return full(tuple(shape), value, dtype=D.bool)


def all(input, dim=None, keepdim=False):  # noqa: A001
    x = cast(input, D.bool)
    if x.ndim == 0:
        return wrap(K.identity(x))
    dims = dims_of(x, dim)
    if 0 in tuple(x.shape):
        return _empty_bool_reduce(x, dims, keepdim, True)
    return wrap(K.all(x, dims, keepdim))


def any(input, dim=None, keepdim=False):  # noqa: A001
    x = cast(input, D.bool)
    if x.ndim == 0:
        return wrap(K.identity(x))
    dims = dims_of(x, dim)
    if 0 in tuple(x.shape):
        return _empty_bool_reduce(x, dims, keepdim, False)
    return wrap(K.any(x, dims, keepdim))


def count_nonzero(input, dim=None):
    return sum(P.ne(input, 0), dim)


def _var_args(dim, unbiased):
    if isinstance(unbiased, (int, tuple, list)) and not isinstance(unbiased, bool) and dim is None:
        dim, unbiased = unbiased, None
    if isinstance(dim, bool):  # torch.var(x, False): the positional argument is ``unbiased``
        dim, unbiased = None, dim
    return dim, unbiased


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """msnb implementation of ``torch.var`` (``correction`` defaults to 1)."""
    dim, unbiased = _var_args(dim, unbiased)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = dims_of(input, dim)
    n = 1
    for d in dims if input.ndim else ():
        n *= input.shape[d]
    mu = mean(input, dims, keepdim=True)
    dev = P.sub(input, mu)
    return name_node(P.div(sum(P.mul(dev, dev), dims, keepdim), n - correction), "VarBackward0", input)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """msnb implementation of ``torch.std``."""
    return name_node(P.sqrt(var(input, dim, unbiased, keepdim, correction=correction)), "StdBackward0", input)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _var_args(dim, unbiased)
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, dims_of(input, dim), keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _var_args(dim, unbiased)
    return std(input, dim, unbiased, keepdim, correction=correction), mean(input, dims_of(input, dim), keepdim)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """msnb implementation of ``torch.norm`` (see ``norms.norm``)."""
    from .norms import norm as _norm
    return _norm(input, p, dim, keepdim, out, dtype)


def logsumexp(input, dim, keepdim=False):
    dims = dims_of(input, dim)
    m = amax(input, dims, keepdim=True).detach()
    m = P.where(P.isinf(m), 0.0, m)
    res = P.add(P.log(sum(P.exp(P.sub(input, m)), dims, keepdim=True)), m)
    return name_node(res if keepdim else res.squeeze(dims) if dims else res, "LogsumexpBackward0", input)


def cumsum(input, dim, *, dtype=None):
    x = input if dtype is None else cast(input, dtype)
    if not x.dtype.is_floating_point:
        x = cast(x, D.int64)
    d = dims_of(x, dim)[0]
    if not x.ndim:  # a 0-d scan is the value itself
        return P.mul(x, 1)
    res = wrap(K.cumsum(x, d))
    if needs_grad(x):
        record("CumsumBackward0", res, (x,), lambda g: (wrap(K.flip(K.cumsum(K.flip(g, (d,)), d), (d,))),))
    return res


def cumprod(input, dim, *, dtype=None):
    x = input if dtype is None else cast(input, dtype)
    d = dims_of(x, dim)[0]
    if not x.ndim:
        return P.mul(x, 1)
    res = wrap(K.cumprod(x, d))
    if needs_grad(x):
        def bw(g):
            if not bool(P.eq(x, 0).any()):
                s = wrap(K.flip(K.cumsum(K.flip(P.mul(g, res), (d,)), d), (d,)))
                return (P.div(s, x),)
            return (_cumprod_grad_with_zeros(x, g, d),)
        record("CumprodBackward0", res, (x,), bw, saved=(x,))
    return res


def _cumprod_grad_with_zeros(x, g, d):
    """Gradient of ``cumprod`` along ``d`` without dividing by ``x``:
    dx_i = prod_{k<i} x_k * sum_{j>=i} g_j * prod_{i<k<=j} x_k  (O(n^2) memory;
    used only when ``x`` holds a zero)."""
    from .creation import ones_like, tensor
    xm = x.movedim(d, -1)
    gm = g.movedim(d, -1)
    n = xm.shape[-1]
    import numpy as np
    after = tensor(np.arange(n)[None, :] > np.arange(n)[:, None])  # [i, k]: k > i
    upper = tensor(np.arange(n)[None, :] >= np.arange(n)[:, None])  # [i, j]: j >= i
    rows = P.where(after, xm.unsqueeze(-2), ones_like(xm).unsqueeze(-2))  # (..., i, k)
    span = cumprod(rows, -1)  # [i, j] = prod_{i<k<=j} x_k
    inner = sum(P.mul(P.mul(span, cast(upper, x.dtype)), gm.unsqueeze(-2)), -1)
    return P.mul(_exclusive_cumprod(xm, xm.ndim - 1), inner).movedim(-1, d)


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """msnb implementation of ``torch.topk``: the positions are found on the host, with
    PyTorch's CPU order of equal elements (:mod:`.tie_order`)."""
    d = dims_of(input, dim)[0]
    if not 0 <= k <= (input.shape[d] if input.ndim else 1):
        raise RuntimeError("selected index k out of range")
    from .creation import tensor
    from .tie_order import topk_indices
    idx = tensor(topk_indices(input.detach().numpy(), k, d, largest, sorted))
    return _TopK(name_node(gather(input, d, idx), "TopkBackward0", input), idx)


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def sort(input, dim=-1, descending=False, stable=False):
    """msnb implementation of ``torch.sort``: the order is found on the host, with PyTorch's
    CPU order of equal elements (stable when ``stable``; :mod:`.tie_order`)."""
    d = dims_of(input, dim)[0]
    from .creation import tensor
    from .tie_order import sort_indices
    idx = tensor(sort_indices(input.detach().numpy(), d, descending, bool(stable)))
    return _Sort(name_node(gather(input, d, idx), "SortBackward0", input), idx)


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def median(input, dim=None, keepdim=False):
    """msnb implementation of ``torch.median``: the lower median; a slice holding a NaN gives NaN
    at its first NaN's index, and an empty input's full median is NaN cast to its dtype (PyTorch's
    CPU kernel)."""
    if dim is None:
        flat = input.reshape(-1)
        if flat.shape[0] == 0:
            import numpy as np
            from .creation import tensor
            with np.errstate(invalid="ignore"):
                value = np.array(np.nan, dtype=np.float32).astype(input.dtype.numpy)
            return tensor(value, dtype=input.dtype)
        flat = flat.detach()
        res = gather(flat, 0, _median_index(flat, 0, True)).reshape(())
        if needs_grad(input):
            record("MedianBackward0", res, (input,), lambda g: (_evenly_distribute(g, input, res),))
        return res
    d = dims_of(input, dim)[0]
    if input.ndim == 0:  # the value itself, at index 0
        from .statistics import median_0d
        return return_types.structseq("median", ["values", "indices"])(*median_0d(input))
    if input.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if input.numel() == 0:  # another dim is empty: empty values and indices of the reduced shape
        from .creation import zeros
        idx = zeros([1 if i == d else n for i, n in enumerate(input.shape)], dtype=D.int64)
    else:
        idx = _median_index(input, d, True)
    vals = gather(input, d, idx)
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    return return_types.structseq("median", ["values", "indices"])(vals, idx)


def _evenly_distribute(g, input, value):
    """PyTorch's gradient of a full median/max/min: shared evenly by every element equal to the
    result (every NaN when the result is NaN)."""
    x = input.detach()
    mask = P.logical_or(P.eq(x, value), P.logical_and(P.isnan(x), P.isnan(value)))
    return P.mul(cast(mask, g.dtype), P.div(g, cast(mask, g.dtype).sum()))


def _median_index(x, d, keepdim):
    """Index of the lower median along ``d`` (stable order), or of the slice's first NaN."""
    s = sort(x, d, stable=True)
    idx = s.indices.narrow(d, (x.shape[d] - 1) // 2, 1)
    if x.dtype.is_floating_point:
        nan = P.isnan(x)
        first_nan = cast(wrap(K.argmax(cast(nan, D.int32), d, True)), D.int64)
        idx = P.where(wrap(K.any(nan, (d,), True)), first_nan, idx)
    return idx


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    import numpy as np
    from .creation import tensor
    arr = input.detach().numpy()
    res = np.unique(arr, return_inverse=return_inverse, return_counts=return_counts)
    if not (return_inverse or return_counts):
        return tensor(res, dtype=input.dtype)
    out = [tensor(res[0], dtype=input.dtype)]
    if return_inverse:
        out.append(tensor(res[1].reshape(arr.shape).astype(np.int64)))
    if return_counts:
        out.append(tensor(res[-1].astype(np.int64)))
    return tuple(out)


def bincount(input, weights=None, minlength=0):
    """msnb implementation of ``torch.bincount`` (counted on the host with numpy).

    As PyTorch: int64 counts; with ``weights`` the sums are float32 for float32
    weights and float64 for every other weight dtype; not differentiable."""
    import numpy as np
    from .creation import tensor
    if input.dim() != 1 or input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is D.bool:
        if input.dtype.is_floating_point:
            raise NotImplementedError(f'"bincount_cpu" not implemented for \'{D._name_of(input.dtype)}\'')
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    arr = input.detach().numpy().astype(np.int64)
    if arr.size and arr.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return tensor(np.bincount(arr, minlength=minlength).astype(np.int64))
    if weights.dim() != 1 or weights.shape[0] != arr.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = D.float32 if weights.dtype is D.float32 else D.float64
    w = weights.detach().numpy().astype(np.float64)
    return tensor(np.bincount(arr, weights=w, minlength=minlength), dtype=out_dtype)
