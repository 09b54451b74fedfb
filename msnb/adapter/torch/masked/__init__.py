"""msnb's ``torch.masked``: reductions and normalisations over the masked-in elements.

As PyTorch documents: ``mask`` (a bool tensor broadcastable to ``input``,
of no more dimensions) marks the elements that take part; masked-out
elements are replaced by the operation's identity (0 for ``sum``, 1 for
``prod``, -inf for ``amax`` / ``softmax`` / ``logsumexp``, +inf for
``amin`` / ``softmin``, NaN for ``median``) before the ordinary op runs, so
fully masked-out rows give that identity's result (``mean`` / ``var`` give
NaN).  ``dim=None`` or ``()`` reduces over every dimension.  Gradients come
from the msnb ops these are made of.  ``MaskedTensor`` lives in :mod:`.maskedtensor`.
"""

from __future__ import annotations

import builtins

from .. import _dtype as D
from .._namespace import missing_attribute
from .._ops import pointwise as P, reduction as Rd
from .._ops.creation import full

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm",
           "var", "std", "softmax", "log_softmax", "softmin", "normalize", "logsumexp", "logaddexp",
           "MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"]

_SMALL_INTS = ("uint8", "bool", "int8", "int16", "int32")


def _dims(dim, ndim):
    """PyTorch's ``_canonical_dim``: sorted non-negative dims; None / () mean all of them."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    n = builtins.max(ndim, 1)
    out = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in out:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= n or d < -n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    return tuple(sorted(out))


def _mask(input, mask):
    """The canonical mask: bool, broadcast to ``input``'s shape."""
    if mask.ndim > input.ndim:
        raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                         "input)")
    if tuple(mask.shape) != tuple(input.shape):
        mask = mask.expand(*input.shape)
    return mask if mask.dtype is D.bool else mask.to(D.bool)


def _identity(kind, input):
    dt = input.dtype
    if kind == "zero":
        return 0
    if kind == "one":
        return 1
    if kind == "nan":
        return float("nan")
    if dt.is_floating_point:
        return float("-inf") if kind == "low" else float("inf")
    info = D.iinfo(dt)
    return info.min if kind == "low" else info.max


def _fill(input, mask, kind):
    """``where(mask, input, identity)`` (``input`` itself when there is no mask)."""
    if mask is None:
        return input
    return P.where(_mask(input, mask), input, full((), _identity(kind, input), dtype=input.dtype))


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return D.int64 if str(input.dtype).replace("torch.", "") in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.sum``."""
    dims = _dims(dim, input.ndim)
    x = _fill(input, mask, "zero")
    if x.ndim == 0:
        return Rd.sum(x, dtype=_sum_dtype(input, dtype))
    return Rd.sum(x, dims, keepdim=bool(keepdim), dtype=_sum_dtype(input, dtype))


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.prod``."""
    dims = _dims(dim, input.ndim)
    x = _fill(input, mask, "one").to(_sum_dtype(input, dtype))
    if x.ndim == 0:
        return x.clone()
    for d in reversed(dims):
        x = Rd.prod(x, d, keepdim=bool(keepdim))
    return x


def cumsum(input, dim, *, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.cumsum``."""
    d = _dims(dim, input.ndim)[0]
    return Rd.cumsum(_fill(input, mask, "zero"), d, dtype=dtype or input.dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.cumprod``."""
    d = _dims(dim, input.ndim)[0]
    return Rd.cumprod(_fill(input, mask, "one"), d, dtype=dtype or input.dtype)


def _extreme(fn, kind, input, dim, keepdim, dtype, mask):
    dims = _dims(dim, input.ndim)
    x = _fill(input, mask, kind)
    out = fn(x, dims, bool(keepdim)) if x.ndim else x.clone()
    return out.to(dtype or input.dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.amax`` (fully masked-out: -inf)."""
    return _extreme(Rd.amax, "low", input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.amin`` (fully masked-out: +inf)."""
    return _extreme(Rd.amin, "high", input, dim, keepdim, dtype, mask)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.argmax``."""
    return Rd.argmax(_fill(input, mask, "low"), dim, bool(keepdim)).to(dtype or input.dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.argmin``."""
    return Rd.argmin(_fill(input, mask, "high"), dim, bool(keepdim)).to(dtype or input.dtype)


def _count(input, dim, keepdim, mask):
    m = _mask(input, mask) if mask is not None else full(tuple(input.shape), True, dtype=D.bool)
    dims = _dims(dim, input.ndim)
    if m.ndim == 0:
        return m.to(D.int64)
    return Rd.sum(m, dims, keepdim=keepdim, dtype=D.int64)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.mean``: masked sum / masked count (fully masked-out: NaN)."""
    source = "Optional" if dtype is not None else "Input"
    dtype = dtype or input.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point "
                         f"or complex dtype. Got: {str(dtype).replace('torch.', '').capitalize()}")
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    return P.div(total, _count(input, dim, bool(keepdim), mask))


def _nanmedian(x, d, keepdim):
    """The lower median of the non-NaN values along ``d`` (NaN when there are none)."""
    nan = P.isnan(x)
    k = Rd.sum(P.logical_not(nan), d, keepdim=True, dtype=D.int64)
    vals, _ = Rd.sort(P.where(nan, full((), float("inf"), dtype=x.dtype), x), d)
    pos = P.clamp(P.floor_divide(P.sub(k, 1), 2), min=0)
    out = vals.gather(d, pos)
    out = P.where(P.eq(k, 0), full((), float("nan"), dtype=x.dtype), out)
    return out if keepdim else out.squeeze(d)


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.median`` (the lower median of the masked-in values;
    fully masked-out: NaN)."""
    dtype = dtype or input.dtype
    d = _dims(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    x = input if is_float else input.to(D.float32)
    x = _fill(x, mask, "nan")
    if x.ndim == 0:
        out = x.clone()
    else:
        out = _nanmedian(x, d, keepdim)
    if is_float:
        return out
    if bool(Rd.any(P.isnan(out))):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return out.to(dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.logsumexp`` (fully masked-out: -inf)."""
    dims = _dims(dim, input.ndim)
    x = _fill(input, mask, "low")
    if x.ndim == 0:
        return Rd.logsumexp(x, 0, keepdim=keepdim).to(dtype or input.dtype)
    return Rd.logsumexp(x, dims, keepdim=keepdim).to(dtype or input.dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """msnb implementation of ``torch.masked.logaddexp`` (masked-out operands count as -inf; two
    -inf operands give -inf, as in PyTorch)."""
    a, b = _fill(input, input_mask, "low"), _fill(other, other_mask, "low")
    out = P.logaddexp(a, b)
    if a.dtype.is_floating_point:
        ninf = full((), float("-inf"), dtype=out.dtype)
        out = P.where(P.logical_and(P.eq(a, ninf), P.eq(b, ninf)), ninf, out)
    return out.to(dtype or input.dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.norm`` (masked-out elements count as 0, or +inf for
    ``ord=-inf``)."""
    from .._ops.norms import vector_norm
    x = _fill(input, mask, "high" if ord == float("-inf") else "zero")
    dims = _dims(dim, input.ndim)
    return vector_norm(x, ord, dims if x.ndim else None, bool(keepdim), dtype=dtype or input.dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    c = 1.0
    if unbiased is not None:
        c = 1.0 if unbiased else 0.0
    if correction is not None:
        c = float(correction)
    if dtype is None:
        dtype = input.dtype if (input.dtype.is_floating_point or input.dtype.is_complex) else D.float32
    count = _count(input, dim, True, mask)
    mu = P.div(sum(input, dim, keepdim=True, dtype=dtype, mask=mask), count)
    xm = P.sub(input, mu)
    total = sum(P.mul(xm, xm), dim, keepdim=keepdim, dtype=dtype, mask=mask)
    count = count.reshape(tuple(total.shape))
    if c != 0:
        count = P.clamp(P.sub(count.to(dtype), c), min=0)
    out = P.div(total, count).to(dtype)
    return P.sqrt(out) if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.var`` (fully masked-out: NaN)."""
    return _std_var(input, dim, unbiased, correction, bool(keepdim), dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.std`` (fully masked-out: NaN)."""
    return _std_var(input, dim, unbiased, correction, bool(keepdim), dtype, mask, True)


def _F():
    from ..nn import functional
    return functional


def softmax(input, dim, *, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.softmax`` (masked-out elements count as -inf)."""
    d = _dims(dim, input.ndim)[0]
    return _F().softmax(_fill(input, mask, "low"), d, dtype=dtype or input.dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.log_softmax`` (masked-out elements count as -inf)."""
    d = _dims(dim, input.ndim)[0]
    return _F().log_softmax(_fill(input, mask, "low"), d, dtype=dtype or input.dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.softmin`` (masked-out elements count as +inf)."""
    d = _dims(dim, input.ndim)[0]
    return _F().softmin(_fill(input, mask, "high"), d, dtype=dtype or input.dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """msnb implementation of ``torch.masked.normalize``: masked-in elements (0 elsewhere) divided by
    the masked norm, at least ``eps``."""
    dtype = dtype or input.dtype
    x = _fill(input, mask, "zero")
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return P.div(x, P.maximum(nrm, full((), eps, dtype=nrm.dtype)))



_MASKED_TENSOR = ("MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor")


def __getattr__(name):
    # MaskedTensor loads on first use: importing it puts msnb's torch-function wrappers in place for the
    # session (a check per torch call), which the masked reductions above do not need
    if name in _MASKED_TENSOR:
        from . import maskedtensor
        return getattr(maskedtensor, name)
    raise missing_attribute("torch.masked", name)
