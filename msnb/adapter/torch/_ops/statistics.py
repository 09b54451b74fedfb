"""Order statistics, scans, differences, histograms and covariance.

Ops that pick elements (``kthvalue``, ``mode``, ``cummax``, quantiles ...) find
the positions on the host (numpy sorts and scans: MindSpore 2.10 has no CPU
kernel that gives PyTorch's tie and NaN rules) and then gather the values
with a differentiable gather, so gradients flow to the picked elements as in
PyTorch.  Counting ops (histograms, ``bucketize``, ``searchsorted``,
``isin``, ``unique_consecutive``) run on the host and have no gradient, as in
PyTorch.
"""

from __future__ import annotations

import builtins as _b
import math

import numpy as np

from .. import return_types
from .. import _dtype as D
from .._core import TensorPy, cast, needs_grad, record
from . import pointwise as P
from . import reduction as R
from . import shape as S
from .indexing import gather
from ..autograd.graph import name_node

__all__ = ["cummax", "cummin", "logcumsumexp", "diff", "gradient", "kthvalue", "nanmedian", "quantile",
           "nanquantile", "mode", "aminmax", "nanmean", "msort", "histc", "histogram", "histogramdd",
           "bucketize", "searchsorted", "isin", "unique_consecutive", "trapezoid", "trapz",
           "cumulative_trapezoid", "cdist", "dist", "renorm", "cov", "corrcoef"]

_Values = return_types.structseq("values_indices", ["values", "indices"])


def _named(name):
    return return_types.structseq(name, ["values", "indices"])


_CumMax, _CumMin, _Kth, _Mode, _NanMedian = (_named(n) for n in ("cummax", "cummin", "kthvalue", "mode",
                                                                 "nanmedian"))
_MinMax = return_types.structseq("aminmax", ["min", "max"])
_Hist = return_types.structseq("histogram", ["hist", "bin_edges"])


def _host(x):
    return x.detach().numpy()


def _long(a):
    from .creation import tensor
    return tensor(np.array(a, dtype=np.int64))


def _pick(x, d, idx, keepdim, cls):
    """``cls(values, indices)`` from host indices ``idx`` (keepdim shape) along ``d``."""
    it = _long(idx)
    vals = gather(x, d, it)
    if not keepdim:
        vals, it = S.squeeze(vals, d), S.squeeze(it, d)
    return cls(vals, it)


def _cum_extreme(input, dim, better, cls):
    d = R.dims_of(input, dim)[0]
    if input.ndim == 0:
        return cls(S.clone(input), _long(np.zeros((), np.int64)))
    a = np.moveaxis(_host(input), d, -1)
    idx = np.zeros(a.shape, np.int64)
    if a.shape[-1] and a.size:
        cur = a[..., 0].copy()
        ci = np.zeros(a.shape[:-1], np.int64)
        for i in range(a.shape[-1]):
            v = a[..., i]
            take = np.isnan(v) | (~np.isnan(cur) & better(v, cur)) if a.dtype.kind == "f" else better(v, cur)
            cur = np.where(take, v, cur)
            ci = np.where(take, i, ci)
            idx[..., i] = ci
    idx = np.moveaxis(idx, -1, d)
    node = "CummaxBackward0" if cls is _CumMax else "CumminBackward0"
    return cls(name_node(gather(input, d, _long(idx)), node, input), _long(idx))


def cummax(input, dim):
    """msnb implementation of ``torch.cummax`` (the last index of a tie, NaN propagates)."""
    return _cum_extreme(input, dim, np.greater_equal, _CumMax)


def cummin(input, dim):
    """msnb implementation of ``torch.cummin`` (the last index of a tie, NaN propagates)."""
    return _cum_extreme(input, dim, np.less_equal, _CumMin)


def logcumsumexp(input, dim):
    """msnb implementation of ``torch.logcumsumexp`` (shifted by the maximum along ``dim``)."""
    d = R.dims_of(input, dim)[0]
    if input.ndim == 0:
        return P.mul(input, 1)
    if input.numel() == 0:
        return S.clone(input)
    with P._no_grad():
        res = _logcumsumexp(input, d)
    if needs_grad(input):
        record("LogcumsumexpBackward0", res, (input,), lambda g: (_logcumsumexp_grad(g, input, res, d),),
               saved=(input,))
    return res


def _logcumsumexp(x, d):
    m = R.amax(x, d, keepdim=True)
    m = P.where(P.isinf(m), 0.0, m)
    return P.add(P.log(R.cumsum(P.exp(P.sub(x, m)), d)), m)


def _logcumsumexp_grad(g, x, res, d):
    """PyTorch's formula, in log space: the positive and negative parts of ``g`` separately,
    each through a reversed logcumsumexp (stable where ``exp`` of the inputs over- or underflows)."""
    with P._no_grad():
        low = D.finfo(g.dtype).min
        rev = lambda t: S.flip(_logcumsumexp(S.flip(t, (d,)), d), (d,))  # noqa: E731
        log_abs = P.log(P.abs(g))
        pos = P.where(P.gt(g, 0), log_abs, low)
        neg = P.where(P.lt(g, 0), log_abs, low)
        return P.sub(P.exp(P.add(rev(P.sub(pos, res)), x)), P.exp(P.add(rev(P.sub(neg, res)), x)))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """msnb implementation of ``torch.diff``."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = R.dims_of(input, dim)[0]
    parts = [t for t in (prepend, input, append) if t is not None]
    x = S.cat([t if isinstance(t, TensorPy) else _full_like_slice(input, d, t) for t in parts], d) \
        if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        x = S.narrow(x, d, 1, m - 1) - S.narrow(x, d, 0, m - 1) if x.dtype is not D.bool else \
            P.logical_xor(S.narrow(x, d, 1, m - 1), S.narrow(x, d, 0, m - 1))
    return x if n else S.clone(x)


def _full_like_slice(x, d, v):
    from .creation import full
    shape = list(x.shape)
    shape[d] = 1
    return full(tuple(shape), v, dtype=x.dtype)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """msnb implementation of ``torch.gradient`` (uniform spacing: a number, or one per dimension)."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [R.dims_of(input, k)[0] for k in dims]
    R.dims_of(input, dims)  # a dim named twice is refused, as in PyTorch
    if spacing is None:
        spacing = 1
    if isinstance(spacing, (int, float)):
        hs = [float(spacing)] * len(dims)
    else:
        hs = list(spacing)
        if len(hs) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(hs)} and a dim argument of length {len(dims)}.")
    if _b.any(isinstance(h, TensorPy) for h in hs):
        raise NotImplementedError("torch.gradient with coordinate tensors as spacing is not supported by msnb yet "
                                  "(see the support list: python -m msnb.adapter.support --markdown)")
    x = input if input.dtype.is_floating_point or input.dtype.is_complex else cast(input, D.get_default_dtype())
    out = []
    for d, h in zip(dims, hs):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        sl = lambda a, b: S.narrow(x, d, a, b - a)  # noqa: E731
        inner = P.div(P.sub(sl(2, n), sl(0, n - 2)), 2 * h)
        if edge_order == 1:
            first = P.div(P.sub(sl(1, 2), sl(0, 1)), h)
            last = P.div(P.sub(sl(n - 1, n), sl(n - 2, n - 1)), h)
        else:
            first = P.div(P.sub(P.sub(P.mul(sl(1, 2), 4.0), P.mul(sl(0, 1), 3.0)), sl(2, 3)), 2 * h)
            last = P.div(P.add(P.sub(P.mul(sl(n - 1, n), 3.0), P.mul(sl(n - 2, n - 1), 4.0)), sl(n - 3, n - 2)),
                         2 * h)
        out.append(S.cat([first, inner, last], d))
    return tuple(out)


def _sorted_idx(a, axis):
    """Stable ascending argsort with NaN last (numpy's order)."""
    return np.argsort(a, axis=axis, kind="stable")


def kthvalue(input, k, dim=-1, keepdim=False):
    """msnb implementation of ``torch.kthvalue``."""
    d = R.dims_of(input, dim)[0]
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.ndim == 0:
        return _Kth(S.clone(input), _long(np.zeros((), np.int64)))
    from .tie_order import kth_indices
    return _pick(input, d, kth_indices(_host(input), k, d), keepdim, _Kth)


def median_0d(input):
    """``torch.median(x, dim)`` of a 0-d tensor: the value itself and index 0."""
    return _Values(S.clone(input), _long(np.zeros((), np.int64)))


def nanmedian(input, dim=None, keepdim=False):
    """msnb implementation of ``torch.nanmedian``: the lower median of the non-NaN values."""
    if dim is None:
        flat = S.reshape(input, (-1,))
        if flat.numel() == 0:
            return R.sum(flat) * float("nan")
        a = _host(flat)
        order = _sorted_idx(a, 0)
        k = _b.max((int((~np.isnan(a)).sum()) - 1) // 2, 0)
        return S.reshape(gather(flat, 0, _long(order[[k]])), ())
    d = R.dims_of(input, dim)[0]
    if input.ndim == 0:
        return _NanMedian(*median_0d(input))
    a = _host(input)
    order = _sorted_idx(a, d)
    cnt = (~np.isnan(a)).sum(axis=d, keepdims=True)
    k = np.maximum((cnt - 1) // 2, 0)
    idx = np.take_along_axis(order, k, axis=d)
    return _pick(input, d, idx, keepdim, _NanMedian)


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    from .creation import tensor
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Got {interpolation}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    scalar_q = not isinstance(q, TensorPy)
    qs = np.atleast_1d(np.asarray(q if scalar_q else _host(q), dtype=np.float64))
    if not scalar_q and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if dim is None:
        x, d = S.reshape(input, (-1,)), 0
    else:
        d = R.dims_of(input, dim)[0]
        x = input if input.ndim else S.reshape(input, (1,))
    if x.ndim == 0 or x.shape[d] == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    xm = S.movedim(x, d, -1)
    a = _host(xm)
    order = _sorted_idx(a, -1)
    srt = gather(xm, xm.ndim - 1, _long(order))
    n = a.shape[-1]
    nan = np.isnan(a)
    cnt = (n - nan.sum(-1, keepdims=True)) if ignore_nan else np.full(a.shape[:-1] + (1,), n)
    rank = qs * (cnt - 1).astype(np.float64)  # (..., Q)
    rank = np.maximum(rank, 0.0)
    lo = np.floor(rank).astype(np.int64)
    hi = np.minimum(np.ceil(rank).astype(np.int64), n - 1)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = np.round(rank).astype(np.int64)
    w = rank - lo if interpolation == "linear" else np.full(rank.shape, 0.5 if interpolation == "midpoint" else 0.0)
    last = srt.ndim - 1
    vlo, vhi = gather(srt, last, _long(lo)), gather(srt, last, _long(hi))
    res = P.add(vlo, P.mul(P.sub(vhi, vlo), tensor(w.astype(a.dtype))))
    bad = nan.any(-1, keepdims=True) if not ignore_nan else (cnt == 0)
    if bad.any():
        res = P.where(tensor(np.broadcast_to(bad, res.shape).copy()), float("nan"), res)
    # (..., Q) -> Q first, then the reduced dim kept or dropped
    res = S.movedim(res, -1, 0)
    if keepdim:
        if dim is None:
            res = S.reshape(res, (res.shape[0],) + (1,) * input.ndim)
        elif input.ndim:
            res = S.unsqueeze(res, d + 1)
    if scalar_q:
        res = S.squeeze(res, 0)
    return res


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """msnb implementation of ``torch.quantile`` (NaN in a slice gives NaN)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """msnb implementation of ``torch.nanquantile`` (NaNs are left out)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def mode(input, dim=-1, keepdim=False):
    """msnb implementation of ``torch.mode``: the most frequent value (the smallest of a tie) and its last index."""
    d = R.dims_of(input, dim)[0]
    if input.ndim == 0:
        return _Mode(*median_0d(input))
    a = np.moveaxis(_host(input), d, -1)
    rows = a.reshape(-1, a.shape[-1]) if a.size else np.zeros((0, a.shape[-1]), a.dtype)
    out = np.zeros(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        vals, counts = np.unique(row, return_counts=True)
        v = vals[np.argmax(counts)]
        out[r] = np.nonzero((row == v) | (np.isnan(row) & np.isnan(v)))[0][-1]
    idx = np.expand_dims(out.reshape(a.shape[:-1]), d)
    return _pick(input, d, idx, keepdim, _Mode)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """msnb implementation of ``torch.aminmax`` (``out``: a (min, max) pair of the input's dtype)."""
    if out is not None:
        for o in out:
            D.check_out_dtype(o, input.dtype)
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
    if dim is not None and input.ndim and input.shape[R.dims_of(input, dim)[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {R.dims_of(input, dim)[0]} to have non-zero size.")
    if dim is None:
        res = _MinMax(R.amin(input), R.amax(input)) if not keepdim else \
            _MinMax(R.amin(input, tuple(range(input.ndim)), True), R.amax(input, tuple(range(input.ndim)), True))
    else:
        res = _MinMax(R.amin(input, dim, keepdim), R.amax(input, dim, keepdim))
    if out is None:
        return res
    from .._core import write_out
    return _MinMax(write_out(out[0], res[0]), write_out(out[1], res[1]))


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """msnb implementation of ``torch.nanmean``."""
    x = input if dtype is None else cast(input, dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{D._name_of(x.dtype).capitalize()}")
    valid = P.logical_not(P.isnan(x))
    return P.div(R.nansum(x, dim, keepdim), R.sum(valid, dim, keepdim))


def msort(input):
    return R.sort(input, 0).values


# --- counting ops (host, no gradient) --------------------------------------------------------

def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A002
    """msnb implementation of ``torch.histc`` (computed on the host)."""
    from .creation import tensor
    if not input.dtype.is_floating_point:
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{D._name_of(input.dtype).capitalize()}\'')
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0")
    a = _host(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc(): range of [{lo}, {hi}] is not finite")
    keep = a[(a >= lo) & (a <= hi)].astype(np.float64)
    pos = ((keep - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return tensor(np.bincount(pos, minlength=bins).astype(_host(input).dtype))


def _edges_of(bins, lo, hi, dtype):
    return np.linspace(lo, hi, bins + 1).astype(dtype)


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """msnb implementation of ``torch.histogram`` (computed on the host)."""
    from .creation import tensor
    a = _host(input).reshape(-1)
    w = None if weight is None else _host(weight).reshape(-1)
    if isinstance(bins, TensorPy):
        edges = _host(bins)
    else:
        lo, hi = (float(range[0]), float(range[1])) if range is not None else \
            ((float(a.min()), float(a.max())) if a.size else (0.0, 0.0))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _edges_of(int(bins), lo, hi, a.dtype)
    hist, _ = np.histogram(a, bins=edges.astype(np.float64), weights=w, density=density)
    return _Hist(tensor(hist.astype(a.dtype)), tensor(edges.astype(a.dtype)))


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """msnb implementation of ``torch.histogramdd`` (computed on the host)."""
    from .creation import tensor
    a = _host(input)
    k = a.shape[-1]
    a = a.reshape(-1, k)
    w = None if weight is None else _host(weight).reshape(-1)
    if isinstance(bins, int):
        bins = [bins] * k
    if len(bins) != k:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    edges = []
    for j, b in enumerate(bins):
        if isinstance(b, TensorPy):
            edges.append(_host(b))
            continue
        lo, hi = (float(range[2 * j]), float(range[2 * j + 1])) if range is not None else \
            ((float(a[:, j].min()), float(a[:, j].max())) if a.size else (0.0, 1.0))  # PyTorch: [0, 1] when empty
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(_edges_of(int(b), lo, hi, a.dtype))
    if all(np.all(np.diff(e) >= 0) for e in edges):
        hist, _ = np.histogramdd(a, bins=[e.astype(np.float64) for e in edges], weights=w, density=density)
    else:  # numpy refuses unsorted edges; PyTorch bins by binary search over them as given
        hist = _histogramdd_searched(a, edges, w, density)
    return _Hist(tensor(hist.astype(a.dtype)), [tensor(e.astype(a.dtype)) for e in edges])


def _upper_bound(edges, x):
    """``std::upper_bound(edges, x)`` elementwise, by its halving loop (defined for unsorted
    ``edges`` too, where numpy's searchsorted is not)."""
    first = np.zeros(x.shape, np.int64)
    count = np.full(x.shape, edges.size, np.int64)
    while np.any(count > 0):
        half = count >> 1
        mid = np.minimum(first + half, edges.size - 1)
        right = (count > 0) & ~(x < edges[mid])
        first = np.where(right, first + half + 1, first)
        count = np.where(right, count - half - 1, np.where(count > 0, half, 0))
    return first


def _histogramdd_searched(a, edges, w, density):
    """PyTorch's CPU histogramdd for explicit edges: an element counts when each coordinate lies in
    [first edge, last edge], in bin ``upper_bound - 1`` (the last edge closes the last bin)."""
    shape = tuple(max(e.size - 1, 0) for e in edges)
    hist = np.zeros(shape, np.float64)
    keep = np.ones(a.shape[0], bool)
    index = []
    for j, e in enumerate(edges):
        x = a[:, j]
        keep &= (x >= e[0]) & (x <= e[-1]) if e.size else False
        pos = _upper_bound(e, x) - 1
        index.append(np.where(pos == e.size - 1, pos - 1, pos))
    if keep.any():
        np.add.at(hist, tuple(i[keep] for i in index), 1.0 if w is None else w[keep])
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):  # an empty histogram is nan, as in PyTorch
            hist = hist / hist.sum()
            for j, e in enumerate(edges):
                width = np.diff(e.astype(np.float64))
                hist = hist / width.reshape([-1 if k == j else 1 for k in range(len(edges))])
    return hist


def _as_array(x):
    return _host(x) if isinstance(x, TensorPy) else np.asarray(x)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """msnb implementation of ``torch.bucketize`` (computed on the host)."""
    from .creation import tensor
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    r = np.searchsorted(_host(boundaries), _as_array(input), side="right" if right else "left")
    return tensor(np.asarray(r).astype(np.int32 if out_int32 else np.int64))


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """msnb implementation of ``torch.searchsorted`` (computed on the host)."""
    from .creation import tensor
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = _host(sorted_sequence)
    if sorter is not None:
        seq = np.take_along_axis(seq, _host(sorter).astype(np.int64), axis=-1)
    v = _as_array(input)
    how = "right" if right else "left"
    dt = np.int32 if out_int32 else np.int64
    if seq.ndim == 1:
        return tensor(np.asarray(np.searchsorted(seq, v, side=how)).astype(dt))
    if seq.shape[:-1] != v.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match")
    s2, v2 = seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1])
    r = np.stack([np.searchsorted(s, x, side=how) for s, x in zip(s2, v2)]) if s2.shape[0] else \
        np.zeros(v2.shape, np.int64)
    return tensor(r.reshape(v.shape).astype(dt))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """msnb implementation of ``torch.isin`` (computed on the host)."""
    from .creation import tensor
    r = np.isin(_as_array(elements), _as_array(test_elements), invert=invert)
    return tensor(np.asarray(r))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """msnb implementation of ``torch.unique_consecutive`` (computed on the host)."""
    from .creation import tensor
    a = _host(input)
    if dim is None:
        flat = a.reshape(-1)
        new = np.ones(flat.shape[0], bool)
        if flat.size > 1:
            new[1:] = flat[1:] != flat[:-1]
        out = flat[new]
        inv = (np.cumsum(new) - 1).reshape(a.shape)
    else:
        d = R.dims_of(input, dim)[0]
        m = np.moveaxis(a, d, 0)
        n = m.shape[0]
        new = np.ones(n, bool)
        for i in range(1, n):
            new[i] = not np.array_equal(m[i], m[i - 1])
        out = np.moveaxis(m[new], 0, d)
        inv = np.cumsum(new) - 1
    starts = np.nonzero(new)[0]
    counts = np.diff(np.append(starts, new.shape[0]))
    res = [tensor(np.ascontiguousarray(out), dtype=input.dtype)]
    if return_inverse:
        res.append(tensor(inv.astype(np.int64)))
    if return_counts:
        res.append(tensor(counts.astype(np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


# --- integration ---------------------------------------------------------------------------

def _trapezoid_terms(y, x, dx, dim):
    d = R.dims_of(y, dim)[0]
    n = y.shape[d]
    if n == 0:
        return None, d
    avg = P.div(P.add(S.narrow(y, d, 1, n - 1), S.narrow(y, d, 0, n - 1)), 2.0)
    if x is None:
        return P.mul(avg, 1.0 if dx is None else dx), d
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[d] = x.shape[0]
        x = S.reshape(x, shape)
        dd = d
    else:
        dd = d - y.ndim + x.ndim if x.ndim < y.ndim else d
    m = x.shape[dd]
    dxs = P.sub(S.narrow(x, dd, 1, m - 1), S.narrow(x, dd, 0, m - 1))
    return P.mul(avg, dxs), d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """msnb implementation of ``torch.trapezoid``."""
    if isinstance(x, (int, float)):
        x, dx = None, x
    terms, d = _trapezoid_terms(y, x, dx, dim)
    if terms is None:
        shape = tuple(s for i, s in enumerate(y.shape) if i != d)
        from .creation import zeros
        return zeros(shape, dtype=y.dtype if y.dtype.is_floating_point else D.get_default_dtype())
    return R.sum(terms, d)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """msnb implementation of ``torch.cumulative_trapezoid``."""
    if isinstance(x, (int, float)):
        x, dx = None, x
    terms, d = _trapezoid_terms(y, x, dx, dim)
    if terms is None:
        return S.clone(y)
    return R.cumsum(terms, d)


# --- distances, norms of slices, covariance ----------------------------------------------------

def _pnorm_last(diff, p):
    """The ``p``-norm over the last dim of ``diff``, with PyTorch's zero gradient where it is 0."""
    a = P.abs(diff)
    if p == 0:  # a count: zero gradient, as PyTorch gives
        return P.add(R.sum(cast(P.ne(diff, 0), diff.dtype), -1), P.mul(R.sum(diff, -1), 0.0))
    if math.isinf(p):
        return R.amax(a, -1) if p > 0 else R.amin(a, -1)
    if p == 1:
        return R.sum(a, -1)
    if p == 2:
        s = R.sum(P.mul(diff, diff), -1)
    else:
        with P._no_grad():
            nz = P.gt(a, 0)
        s = R.sum(P.where(nz, P.pow(P.where(nz, a, 1.0), p), 0.0), -1)
    with P._no_grad():
        zero = P.eq(s, 0)
    return P.where(zero, 0.0, P.pow(P.where(zero, 1.0, s), 1.0 / p))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """msnb implementation of ``torch.cdist`` (direct differences, every ``compute_mode``)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    d = P.sub(S.unsqueeze(x1, -2), S.unsqueeze(x2, -3))
    return name_node(_pnorm_last(d, float(p)), "CdistBackward0", x1, x2)


def dist(input, other, p=2):
    """msnb implementation of ``torch.dist``: the ``p``-norm of ``input - other``."""
    d = S.reshape(P.sub(input, other), (-1,))
    return _pnorm_last(d, float(p))


def renorm(input, p, dim, maxnorm):
    """msnb implementation of ``torch.renorm``: slices along ``dim`` scaled to norm at most ``maxnorm``."""
    from .norms import vector_norm
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = R.dims_of(input, dim)[0]
    others = tuple(i for i in range(input.ndim) if i != d)
    norm = vector_norm(input, p, others, keepdim=True)
    with P._no_grad():
        over = P.gt(norm, maxnorm)
    scale = P.where(over, P.div(maxnorm, P.add(norm, 1e-7)), 1.0)
    return P.mul(input, scale.detach() if not input.requires_grad else scale)


def _cov_weights_check(w, name, n):
    """PyTorch's checks of ``cov``'s observation weights: 0-d or 1-d, one per observation,
    integral frequency weights, floating importance weights, none negative."""
    if w is None:
        return
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w.ndim} dimensions")
    integral = not w.dtype.is_floating_point and not w.dtype.is_complex
    if name == "fweights" and not integral:
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                           f"{D._name_of(w.dtype)} dtype")
    if name == "aweights" and not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{D._name_of(w.dtype)} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {n}")
    from ...graph.capture import recording
    if w.numel() and not recording() and bool((w < 0).any().item()):  # a value check reads the host
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """msnb implementation of ``torch.cov`` (rows are variables, columns observations)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    x = input if input.ndim == 2 else S.reshape(input, (1, -1))
    if not x.dtype.is_floating_point and not x.dtype.is_complex:
        x = cast(x, D.get_default_dtype())
    n = x.shape[1]
    _cov_weights_check(fweights, "fweights", n)
    _cov_weights_check(aweights, "aweights", n)
    w = None
    if fweights is not None:
        w = cast(fweights, x.dtype)
    if aweights is not None:
        w = cast(aweights, x.dtype) if w is None else P.mul(w, cast(aweights, x.dtype))
    if w is None:
        wsum = float(n)
        avg = R.mean(x, 1, keepdim=True) if n else R.sum(x, 1, keepdim=True)
        norm = wsum - correction
    else:
        wsum = R.sum(w)
        avg = P.div(R.sum(P.mul(x, w), 1, keepdim=True), wsum)
        if aweights is None or correction == 0:
            norm = P.sub(wsum, correction)
        else:
            norm = P.sub(wsum, P.div(P.mul(R.sum(P.mul(w, cast(aweights, x.dtype))), correction), wsum))
    xc = P.sub(x, avg)
    xw = xc if w is None else P.mul(xc, w)
    from .linalg import matmul
    c = matmul(xw, S.t(xc).conj() if x.dtype.is_complex else S.t(xc))
    if isinstance(norm, TensorPy):
        norm = P.where(P.le(norm, 0), 0.0, norm)
    else:
        norm = _b.max(norm, 0)
    c = P.div(c, norm)
    return S.reshape(c, ()) if c.numel() == 1 else c


def corrcoef(input):
    """msnb implementation of ``torch.corrcoef`` (clipped to [-1, 1])."""
    c = cov(input)
    if c.ndim == 0:
        return P.div(c, c)
    from .matrix import diagonal
    sd = P.sqrt(diagonal(c))
    c = P.div(P.div(c, S.unsqueeze(sd, 1)), S.unsqueeze(sd, 0))
    return P.clamp(c, -1.0, 1.0)
