"""More elementwise ops: inverse hyperbolics, sign games, ``fmax``/``fmin``, ``frexp``/``ldexp`` ...

Built from :mod:`pointwise`'s differentiable ops (so gradients follow), or
MindSpore kernels named in ``_dispatch`` where one computes PyTorch's value.
"""

from __future__ import annotations

import math

import numpy as np

from .. import return_types
from .. import _dtype as D
from .._core import K, TensorPy, binary_operands, cast, wrap, write_out
from . import pointwise as P

__all__ = ["acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh", "copysign", "deg2rad", "rad2deg",
           "fmax", "fmin", "frexp", "ldexp", "logaddexp2", "heaviside", "nextafter", "sgn", "isposinf",
           "isneginf", "isreal", "igamma", "igammac", "rsub", "arcsin", "arccos", "arctan", "arctan2",
           "fix"]

acosh = arccosh = P._unary("AcoshBackward0", "acosh",
                           lambda g, x, y: P.div(g, P.sqrt(P.mul(P.sub(x, 1), P.add(x, 1)))))
asinh = arcsinh = P._unary("AsinhBackward0", "asinh", lambda g, x, y: P.div(g, P.sqrt(P.add(P.mul(x, x), 1))))
atanh = arctanh = P._unary("AtanhBackward0", "atanh", lambda g, x, y: P.div(g, P.sub(1, P.mul(x, x))))
arcsin, arccos, arctan, arctan2, fix = P.asin, P.acos, P.atan, P.atan2, P.trunc


def _float_operands(a, b):
    """``a, b`` promoted as PyTorch does, then to the default float dtype when integral; both tensors."""
    from .creation import tensor
    a, b, rt = binary_operands(a, b)
    if not rt.is_floating_point:
        rt = D.get_default_dtype()
    a = cast(a, rt) if isinstance(a, TensorPy) else tensor(float(a), dtype=rt)
    b = cast(b, rt) if isinstance(b, TensorPy) else tensor(float(b), dtype=rt)
    return a, b, rt


def copysign(input, other, *, out=None):
    """msnb implementation of ``torch.copysign`` (the sign bit of ``other``, so -0.0 counts as negative)."""
    a, b, _ = _float_operands(input, other)
    with P._no_grad():
        neg = P.signbit(b)
    mag = P.abs(a)
    return write_out(out, P.where(neg, P.neg(mag), mag))


def _to_float(x):
    return x if x.dtype.is_floating_point or x.dtype.is_complex else cast(x, D.get_default_dtype())


def deg2rad(input, *, out=None):
    return write_out(out, P.mul(_to_float(input), math.pi / 180.0))


def rad2deg(input, *, out=None):
    return write_out(out, P.mul(_to_float(input), 180.0 / math.pi))


def _fminmax(a, b, pick_first):
    a, b, rt = binary_operands(a, b)
    if not rt.is_floating_point:
        return P.where(pick_first(a, b), a, b)
    with P._no_grad():
        first = P.logical_or(P.logical_or(pick_first(a, b), P.isnan(b)), P.eq(a, b))
    return P.where(first, a, b)


def fmax(input, other, *, out=None):
    """msnb implementation of ``torch.fmax``: the larger value, ignoring a NaN."""
    return write_out(out, _fminmax(input, other, P.gt))


def fmin(input, other, *, out=None):
    """msnb implementation of ``torch.fmin``: the smaller value, ignoring a NaN."""
    return write_out(out, _fminmax(input, other, P.lt))


_Frexp = return_types.structseq("frexp", ["mantissa", "exponent"])


def frexp(input, *, out=None):
    """msnb implementation of ``torch.frexp`` (exponents found on the host with numpy)."""
    from .creation import tensor
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    _, e = np.frexp(input.detach().numpy())
    exp = tensor(e.astype(np.int32))
    mant = P.div(input, P.pow(2.0, cast(exp, input.dtype)))
    return _Frexp(mant, exp)


def ldexp(input, other, *, out=None):
    """msnb implementation of ``torch.ldexp``: ``input * 2 ** other``."""
    x = _to_float(input) if isinstance(input, TensorPy) else input
    e = other if isinstance(other, TensorPy) and other.dtype.is_floating_point else \
        (cast(other, D.get_default_dtype()) if isinstance(other, TensorPy) else float(other))
    return write_out(out, P.mul(x, P.pow(2.0, e)))


def logaddexp2(input, other, *, out=None):
    """msnb implementation of ``torch.logaddexp2``: ``log2(2**a + 2**b)``, without overflow."""
    a, b, _ = _float_operands(input, other)
    with P._no_grad():
        m = P.maximum(a, b)
        m = P.where(P.isinf(m), 0.0, m)
    s = P.add(P.exp2(P.sub(a, m)), P.exp2(P.sub(b, m)))
    return write_out(out, P.add(P.log2(s), m))


def heaviside(input, values, *, out=None):
    """msnb implementation of ``torch.heaviside`` (``values`` where ``input == 0``)."""
    if isinstance(values, TensorPy) and values.dtype is not input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    with P._no_grad():
        step = cast(P.gt(input, 0), input.dtype)
        return write_out(out, P.where(P.eq(input, 0), values, step))


def nextafter(input, other, *, out=None):
    """msnb implementation of ``torch.nextafter`` (MindSpore's kernel)."""
    a, b, rt = binary_operands(input, other)
    if not rt.is_floating_point:
        raise RuntimeError(f'"nextafter_cpu" not implemented for \'{D._name_of(rt).capitalize()}\'')
    from .creation import tensor
    a = a if isinstance(a, TensorPy) else tensor(a, dtype=rt)
    b = b if isinstance(b, TensorPy) else tensor(b, dtype=rt)
    sh = P.broadcast_shape(tuple(a.shape), tuple(b.shape))
    step = wrap(K.nextafter(K.broadcast_to(a, sh), K.broadcast_to(b, sh)))
    # PyTorch's gradient: the incoming gradient for ``input``, none for ``other``
    return write_out(out, P.add(a, P.sub(step, a).detach()) if a.requires_grad else step)


def sgn(input, *, out=None):
    """msnb implementation of ``torch.sgn``: ``x / |x|`` for complex input, ``sign`` otherwise."""
    if input.dtype.is_complex:
        mag = P.abs(input)
        return write_out(out, P.where(P.eq(mag, 0), 0.0, P.div(input, mag)))
    return write_out(out, P.sign(input))


def isposinf(input, *, out=None):
    return write_out(out, P.logical_and(P.isinf(input), P.gt(input, 0)))


def isneginf(input, *, out=None):
    return write_out(out, P.logical_and(P.isinf(input), P.lt(input, 0)))


def isreal(input):
    """msnb implementation of ``torch.isreal``: true where the imaginary part is 0 (always, for real dtypes)."""
    if input.dtype.is_complex:
        from .complex import imag
        return P.eq(imag(input), 0)
    return P._all_bool(input, True)


def _igamma(kname, input, other):
    a, b, rt = _float_operands(input, other)
    sh = P.broadcast_shape(tuple(a.shape), tuple(b.shape))
    kernel = getattr(K, kname)
    return wrap(kernel(K.broadcast_to(a, sh), K.broadcast_to(b, sh)))


def igamma(input, other, *, out=None):
    """msnb implementation of ``torch.igamma`` (regularised lower incomplete gamma; MindSpore's kernel)."""
    return write_out(out, _igamma("igamma", input, other))


def igammac(input, other, *, out=None):
    """msnb implementation of ``torch.igammac`` (regularised upper incomplete gamma; MindSpore's kernel)."""
    return write_out(out, _igamma("igammac", input, other))


def rsub(input, other, *, alpha=1):
    """msnb implementation of ``torch.rsub``: ``other - alpha * input``."""
    from ..autograd.graph import name_node
    return name_node(P.sub(other, input, alpha=alpha), "RsubBackward0" if isinstance(other, TensorPy)
                     else "RsubBackward1", input, other)
