"""Complex numbers: ``real``, ``imag``, ``conj``, ``angle``, ``view_as_real``,
``view_as_complex``, ``complex``, ``polar`` and ``abs`` of complex tensors.

Gradients follow PyTorch's convention for a real loss ``L`` of ``z = x + iy``:
the gradient of ``z`` is ``dL/dx + i dL/dy``.  ``real``, ``imag`` and
``view_as_real`` return copies here (PyTorch returns views sharing memory).
"""

from __future__ import annotations

from .. import _dtype as D
from .._core import K, cast, meta, needs_grad, record, shape_of, wrap

__all__ = ["real", "imag", "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "angle",
           "view_as_real", "view_as_complex", "complex", "polar", "complex_abs", "real_dtype_of",
           "complex_dtype_of", "cj"]

_REAL = {"complex64": D.float32, "complex128": D.float64}


def real_dtype_of(dt):
    """float32 for complex64, float64 for complex128, else ``dt``."""
    return _REAL.get(dt._name, dt)


def complex_dtype_of(dt):
    """complex64 for float32 (and smaller floats), complex128 for float64."""
    if dt.is_complex:
        return dt
    return D.complex128 if dt is D.float64 else D.complex64


def cj(t):
    """``conj(t)`` for a complex tensor, ``t`` itself otherwise (used by backward rules)."""
    return conj(t) if hasattr(t, "dtype") and t.dtype.is_complex else t


def _shape(x):
    return shape_of(x)


def _empty(x):
    """An empty real tensor of ``x``'s shape (MindSpore's real/imag kernels refuse empty input)."""
    from .creation import zeros
    return zeros(tuple(x.shape), dtype=real_dtype_of(x.dtype))


def real(input):
    """msnb implementation of ``torch.real`` (a copy; PyTorch returns a view)."""
    dt = input.dtype
    if not dt.is_complex:
        return input
    res = meta(wrap(K.real(input)) if input.numel() else _empty(input), real_dtype_of(dt), _shape(input))
    if needs_grad(input):
        record("RealBackward0", res, (input,), lambda g: (complex(g, g * 0),))
    return res


def imag(input):
    """msnb implementation of ``torch.imag`` (a copy; PyTorch returns a view)."""
    dt = input.dtype
    if not dt.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    res = meta(wrap(K.imag(input)) if input.numel() else _empty(input), real_dtype_of(dt), _shape(input))
    if needs_grad(input):
        record("ImagBackward0", res, (input,), lambda g: (complex(g * 0, g),))
    return res


def conj(input):
    """msnb implementation of ``torch.conj`` (materialised: no lazy conjugate bit)."""
    if not input.dtype.is_complex:
        return input
    res = meta(wrap(K.conj(input)), input.dtype, _shape(input))
    if needs_grad(input):
        record("ConjBackward0", res, (input,), lambda g: (conj(g),))
    return res


conj_physical = conj


def resolve_conj(input):
    return input


resolve_neg = resolve_conj


def is_conj(input):
    return False


def complex(real, imag, *, out=None):  # noqa: A001 - torch's name
    """msnb implementation of ``torch.complex``."""
    from .shape import broadcast_tensors
    if real.dtype not in (D.float32, D.float64, D.float16) or imag.dtype not in (D.float32, D.float64, D.float16):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{D._name_of(real.dtype)} and {D._name_of(imag.dtype)}")
    if real.dtype is not imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {D._name_of(real.dtype)} but got scalar type "
                           f"{D._name_of(imag.dtype)} for second argument")
    re, im = real, imag
    if re.dtype is D.float16:
        re, im = cast(re, D.float32), cast(im, D.float32)
    if tuple(re.shape) != tuple(im.shape):
        re, im = broadcast_tensors(re, im)
    res = meta(wrap(K.complex(re, im)), complex_dtype_of(re.dtype), tuple(re.shape))
    if needs_grad(re, im):
        record("ComplexBackward0", res, (re, im), lambda g: (_re(g), _im(g)))
    if out is not None:
        from .._core import write_out
        if out.dtype is not res.dtype:
            raise RuntimeError(f"Expected object of scalar type {D._name_of(res.dtype)} but got scalar type "
                               f"{D._name_of(out.dtype)} for argument 'out'")
        return write_out(out, res)
    return res


def _re(g):
    return real(g) if g.dtype.is_complex else g


def _im(g):
    return imag(g) if g.dtype.is_complex else g * 0


def polar(abs, angle, *, out=None):  # noqa: A002
    """msnb implementation of ``torch.polar``: ``abs * (cos(angle) + i sin(angle))``."""
    from . import pointwise as P
    return complex(P.mul(abs, P.cos(angle)), P.mul(abs, P.sin(angle)), out=out)


def complex_abs(x):
    """``|x|`` of a complex tensor (a real tensor), with PyTorch's gradient ``g x / |x|``."""
    from . import pointwise as P
    res = meta(wrap(K.complex_abs(x)), real_dtype_of(x.dtype), _shape(x))
    if needs_grad(x):
        def bw(g):
            safe = P.where(P.eq(res, 0), 1.0, res)
            scale = P.where(P.eq(res, 0), 0.0, P.div(g, safe))
            return (P.mul(x, complex(scale, scale * 0)),)
        record("AbsBackward0", res, (x,), bw, saved=(x,))
    return res


def angle(input):
    """msnb implementation of ``torch.angle`` (0 or pi for real input)."""
    from . import pointwise as P
    dt = input.dtype
    if not dt.is_complex:
        from .._core import no_grad
        x = input if dt.is_floating_point else cast(input, D.get_default_dtype())
        with no_grad():
            res = P.where(P.isnan(x), x, P.mul(cast(P.lt(x, 0), x.dtype), 3.141592653589793))
        if needs_grad(x):
            record("AngleBackward0", res, (x,), lambda g: (P.mul(g, 0),))
        return res
    res = meta(wrap(K.angle(input)), real_dtype_of(dt), _shape(input))
    if needs_grad(input):
        def bw(g):
            re, im = real(input), imag(input)
            r2 = P.add(P.mul(re, re), P.mul(im, im))
            safe = P.where(P.eq(r2, 0), 1.0, r2)
            k = P.where(P.eq(r2, 0), 0.0, P.div(g, safe))
            return (complex(P.mul(P.neg(im), k), P.mul(re, k)),)
        record("AngleBackward0", res, (input,), bw, saved=(input,))
    return res


def view_as_real(input):
    """msnb implementation of ``torch.view_as_real`` (a copy; PyTorch returns a view)."""
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    from .shape import stack
    return stack([real(input), imag(input)], -1)


def view_as_complex(input):
    """msnb implementation of ``torch.view_as_complex`` (a copy; PyTorch returns a view)."""
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError("view_as_complex is only supported for float and double tensors, but got a "
                           f"tensor of scalar type: {D._name_of(input.dtype)}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return complex(input[..., 0], input[..., 1])
