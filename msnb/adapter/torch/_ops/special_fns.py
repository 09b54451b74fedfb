"""``torch.special``: gamma-family, error-function, Bessel and entropy functions
with PyTorch's gradients.

MindSpore's CPU kernels compute erfc, lgamma, the modified Bessel functions
i0/i0e/i1/i1e, bessel_j0/j1, sinc and zeta.  erfinv, digamma and polygamma
run on the host (``scipy.special``) because MindSpore's CPU kernels are
inaccurate (erfinv off by up to 0.33 near +-1, digamma by up to 0.58 for
negative x); erfcx, log_ndtr, ndtri, bessel_y0/y1, k0/k1/k0e/k1e, gammainc,
gammaincc, spherical_bessel_j0 and airy_ai run there because MindSpore 2.10
has no CPU kernel for them.
Functions PyTorch does not differentiate (the ``bessel_*``/``modified_*``
family, ``airy_ai``) return tensors that do not require grad, as in PyTorch.
"""

from __future__ import annotations

import math

from .. import _dtype as D
from .._core import K, cast, needs_grad, record, wrap, write_out
from ..autograd.grad_mode import no_grad
from . import pointwise as P

__all__ = ["erfc", "erfinv", "erfcx", "gammaln", "digamma", "polygamma", "multigammaln", "i0", "i0e", "i1",
           "i1e", "ndtr", "ndtri", "log_ndtr", "logit", "xlog1py", "entr", "sinc", "zeta", "bessel_j0",
           "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "gammainc", "gammaincc"]

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2 = math.sqrt(2.0)


def _float(x):
    """Integer and bool inputs compute in the default float dtype, as in PyTorch."""
    if not hasattr(x, "dtype"):
        from .creation import tensor
        x = tensor(x)
    if not x.dtype.is_floating_point:
        x = cast(x, D.get_default_dtype())
    return x


def _unary(name, kname, grad=None, doc=""):
    """A float elementwise op on ``K.<kname>``; ``grad(g, x, y)`` gives the input gradient
    (None: PyTorch does not differentiate it)."""
    def op(input, *, out=None):
        x = _float(input)
        y = wrap(getattr(K, kname)(x))
        if grad is not None and needs_grad(x):
            record(name, y, (x,), lambda g: (grad(g, x, y),), saved=(x,))
        return write_out(out, y)
    op.__name__ = name
    op.__doc__ = doc or f"msnb implementation of ``torch.special.{name}``."
    return op


def _mul(*ts):
    r = ts[0]
    for t in ts[1:]:
        r = P.mul(r, t)
    return r


erfc = _unary("erfc", "erfc", lambda g, x, y: _mul(g, P.exp(P.neg(P.mul(x, x))), -2 / _SQRT_PI))
erfinv = _unary("erfinv", "erfinv", lambda g, x, y: _mul(g, P.exp(P.mul(y, y)), _SQRT_PI / 2))
erfcx = _unary("erfcx", "scipy_erfcx", lambda g, x, y: P.mul(g, P.sub(_mul(x, y, 2.0), 2 / _SQRT_PI)))
gammaln = _unary("gammaln", "lgamma", lambda g, x, y: P.mul(g, digamma(x)))


def digamma(input, *, out=None):
    """msnb implementation of ``torch.special.digamma`` (``psi``)."""
    return _polygamma(0, input, out)


def polygamma(n, input, *, out=None):
    """msnb implementation of ``torch.special.polygamma``."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _polygamma(int(n), input, out)


def _polygamma(n, input, out):
    x = _float(input)
    if n == 0:
        y = wrap(K.digamma(x))
    else:
        from .creation import tensor
        y = wrap(K.polygamma(tensor(n, dtype=D.int64), x))
    if needs_grad(x):
        record("PolygammaBackward0" if n else "DigammaBackward0", y, (x,),
               lambda g: (P.mul(g, _polygamma(n + 1, x, None)),), saved=(x,))
    return write_out(out, y)


def multigammaln(input, p, *, out=None):
    """msnb implementation of ``torch.special.multigammaln``."""
    x = _float(input)
    res = None
    for i in range(p):
        term = gammaln(P.sub(x, i / 2))
        res = term if res is None else P.add(res, term)
    return write_out(out, P.add(res, p * (p - 1) / 4 * math.log(math.pi)))


i0 = _unary("i0", "i0", lambda g, x, y: P.mul(g, i1(x)))
i0e = _unary("i0e", "i0e", lambda g, x, y: P.mul(g, P.sub(i1e(x), P.mul(P.sign(x), y))))


def _safe_div(a, x):
    zero = P.eq(x, 0)
    return P.where(zero, 0.0, P.div(a, P.where(zero, 1.0, x)))


# d/dx i1 = i0 - i1 / x  (1/2 at 0);  d/dx i1e = i0e - i1e (sign(x) + 1/x)  (1/2 at 0)
i1 = _unary("i1", "i1", lambda g, x, y: P.mul(g, P.where(P.eq(x, 0), 0.5, P.sub(i0(x), _safe_div(y, x)))))
i1e = _unary("i1e", "i1e", lambda g, x, y: P.mul(g, P.where(
    P.eq(x, 0), 0.5, P.sub(i0e(x), P.add(P.mul(y, P.sign(x)), _safe_div(y, x))))))


def ndtr(input, *, out=None):
    """msnb implementation of ``torch.special.ndtr``: ``erfc(-x / sqrt 2) / 2``."""
    x = _float(input)
    return write_out(out, P.mul(erfc(P.mul(x, -1 / _SQRT_2)), 0.5))


def _gauss(x):
    return P.mul(P.exp(P.mul(P.mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))


ndtri = _unary("ndtri", "scipy_ndtri", lambda g, x, y: P.div(g, _gauss(y)))
log_ndtr = _unary("log_ndtr", "scipy_log_ndtr",
                  lambda g, x, y: P.mul(g, P.exp(P.sub(P.mul(P.mul(x, x), -0.5), P.add(y, 0.5 * math.log(2 * math.pi))))))


def logit(input, eps=None, *, out=None):
    """msnb implementation of ``torch.special.logit`` (``eps`` clamps to ``[eps, 1 - eps]``)."""
    x = _float(input)
    if eps is not None:
        x = P.clamp(x, eps, 1 - eps)
    return write_out(out, P.log(P.div(x, P.sub(1.0, x))))


def xlog1py(input, other, *, out=None):
    """msnb implementation of ``torch.special.xlog1py``: ``x * log1p(y)``, 0 where ``x == 0``."""
    from .creation import tensor
    x = input if hasattr(input, "dtype") else tensor(input, dtype=D.result_type(input, other))
    y = other if hasattr(other, "dtype") else tensor(other, dtype=D.result_type(input, other))
    x, y = _float(x), _float(y)
    rt = D.promote_types(x.dtype, y.dtype)
    x, y = cast(x, rt), cast(y, rt)
    return write_out(out, P.xlog_op("SpecialXlog1PyBackward0", P.log1p, x, y,
                                    lambda g, a, b: P.div(P.mul(g, a), P.add(b, 1.0))))


def entr(input, *, out=None):
    """msnb implementation of ``torch.special.entr``: ``-x ln x`` (0 at 0, -inf below);
    PyTorch's gradient ``-(1 + ln x)``."""
    x = _float(input)
    with no_grad():
        pos = P.gt(x, 0)
        safe = P.where(pos, x, 1.0)
        val = P.where(pos, P.neg(P.mul(x, P.log(safe))), P.where(P.eq(x, 0), 0.0, float("-inf")))
        res = P.where(P.isnan(x), x, val)
    if needs_grad(x):
        record("SpecialEntrBackward0", res, (x,), lambda g: (P.mul(g, P.neg(P.add(P.log(x), 1.0))),), saved=(x,))
    return write_out(out, res)


def _sinc_grad(g, x, y):
    # (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0 (PyTorch's formula)
    px = P.mul(x, math.pi)
    zero = P.eq(x, 0)
    safe = P.where(zero, 1.0, x)
    d = P.div(P.sub(P.mul(px, P.cos(px)), P.sin(px)), P.mul(P.mul(safe, safe), math.pi))
    return P.mul(g, P.where(zero, 0.0, d))


sinc = _unary("sinc", "sinc", _sinc_grad)


def zeta(input, other, *, out=None):
    """msnb implementation of ``torch.special.zeta`` (Hurwitz; PyTorch does not differentiate it)."""
    from .creation import tensor
    rt = D.result_type(input, other)
    if not rt.is_floating_point:
        rt = D.get_default_dtype()
    x = cast(input, rt) if hasattr(input, "dtype") else tensor(float(input), dtype=rt)
    q = cast(other, rt) if hasattr(other, "dtype") else tensor(float(other), dtype=rt)
    if tuple(x.shape) != tuple(q.shape):
        from .shape import broadcast_tensors
        x, q = broadcast_tensors(x, q)
    y = wrap(K.zeta(x, q))
    if needs_grad(x, q):
        def bw(g):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        record("SpecialZetaBackward0", y, (x, q), bw)
    return write_out(out, y)


def _nondiff(name, kname):
    def op(input, *, out=None):
        x = _float(input)
        return write_out(out, wrap(getattr(K, kname)(x.detach())))
    op.__name__ = name
    op.__doc__ = f"msnb implementation of ``torch.special.{name}`` (not differentiable, as in PyTorch)."
    return op


bessel_j0 = _nondiff("bessel_j0", "bessel_j0")
bessel_j1 = _nondiff("bessel_j1", "bessel_j1")
bessel_y0 = _nondiff("bessel_y0", "scipy_y0")
bessel_y1 = _nondiff("bessel_y1", "scipy_y1")
modified_bessel_i0 = _nondiff("modified_bessel_i0", "i0")
modified_bessel_i1 = _nondiff("modified_bessel_i1", "i1")
modified_bessel_k0 = _nondiff("modified_bessel_k0", "scipy_k0")
modified_bessel_k1 = _nondiff("modified_bessel_k1", "scipy_k1")
scaled_modified_bessel_k0 = _nondiff("scaled_modified_bessel_k0", "scipy_k0e")
scaled_modified_bessel_k1 = _nondiff("scaled_modified_bessel_k1", "scipy_k1e")
spherical_bessel_j0 = _nondiff("spherical_bessel_j0", "scipy_spherical_j0")
airy_ai = _nondiff("airy_ai", "scipy_airy_ai")


def _gammainc(name, kname, sign):
    def op(input, other, *, out=None):
        rt = D.promote_types(_float(input).dtype, _float(other).dtype)
        a, x = cast(_float(input), rt), cast(_float(other), rt)
        if tuple(a.shape) != tuple(x.shape):
            from .shape import broadcast_tensors
            a, x = broadcast_tensors(a, x)
        y = wrap(getattr(K, kname)(a, x))
        if needs_grad(a, x):
            def bw(g):
                if a.requires_grad or a.grad_fn is not None:
                    raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
                # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)
                dens = P.exp(P.sub(P.sub(P.mul(P.sub(a, 1.0), P.log(x)), x), gammaln(a)))
                return None, P.mul(g, P.mul(dens, sign))
            record(name, y, (a, x), bw, saved=(a, x))
        return write_out(out, y)
    op.__name__ = name
    op.__doc__ = f"msnb implementation of ``torch.special.{name}`` (scipy on the host)."
    return op


gammainc = _gammainc("gammainc", "scipy_gammainc", 1.0)
gammaincc = _gammainc("gammaincc", "scipy_gammaincc", -1.0)
