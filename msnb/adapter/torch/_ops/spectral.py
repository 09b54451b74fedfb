"""``torch.fft``: discrete Fourier transforms on MindSpore's CPU FFT kernels.

Three kernels carry every transform -- complex-to-complex (``fftn`` /
``ifftn``), real-to-complex (``rfftn``) and complex-to-real (``irfftn``) --
and each records PyTorch's gradient, written with these same transforms:

* c2c: the adjoint is the opposite-direction transform with the dual
  normalisation (``backward`` <-> ``forward``, ``ortho`` stays);
* r2c: the one-sided gradient is zero-padded to the full length, sent
  through the adjoint c2c transform, and its real part kept;
* c2r: the gradient's one-sided real-to-complex transform, with the bins
  that stand for two conjugate bins doubled.

Padding and trimming to ``n`` / ``s`` are differentiable (trimming's
gradient pads with zeros and the other way round).  ``hfft`` / ``ihfft``
are ``irfft`` / ``rfft`` of conjugates with the dual normalisation.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import K, cast, meta, needs_grad, record, wrap, write_out
from . import complex as C

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
           "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftshift", "ifftshift",
           "fftfreq", "rfftfreq"]

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in _DUAL:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return norm


def _float_input(x, complex_ok=True):
    dt = x.dtype
    if dt.is_complex:
        if not complex_ok:
            raise RuntimeError(f"rfft expects a real input tensor, but got {D._name_of(dt)}")
        return x
    if not dt.is_floating_point or dt in (D.float16, D.bfloat16):
        x = cast(x, D.get_default_dtype() if not dt.is_floating_point else D.float32)
    return x


def _dims_sizes(x, s, dim, one=False):
    """Normalised ``(dims, sizes)``: ``sizes[i]`` is the signal length along ``dims[i]``
    (``-1`` in ``s`` keeps the input's length)."""
    nd = x.ndim
    if one:
        dims = [dim]
        s = None if s is None else [s]
    elif dim is None:
        dims = list(range(nd)) if s is None else list(range(nd - len(s), nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    if s is not None and len(s) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    out = []
    for d in dims:
        if nd == 0:  # a transform needs a dimension: PyTorch names the one asked for
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        if not -nd <= d < max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
        out.append(d % nd)
    if len(set(out)) != len(out):
        raise RuntimeError("FFT dims must be unique")
    sizes = [x.shape[d] if (s is None or s[i] == -1) else int(s[i]) for i, d in enumerate(out)]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return out, sizes


def _resize(t, dims, sizes):
    """Trim or zero-pad ``t`` along ``dims`` to ``sizes`` (differentiable)."""
    from .creation import zeros
    from .shape import cat, narrow
    for d, n in zip(dims, sizes):
        have = t.shape[d]
        if have > n:
            t = narrow(t, d, 0, n)
        elif have < n:
            shape = list(t.shape)
            shape[d] = n - have
            t = cat([t, zeros(shape, dtype=t.dtype)], d)
    return t


def _out_shape(x, dims, sizes):
    shape = list(x.shape)
    for d, n in zip(dims, sizes):
        shape[d] = n
    return tuple(shape)


def _c2c(x, dims, sizes, norm, inverse):
    """Complex-to-complex transform of ``x`` (real input is promoted) along ``dims``."""
    x = _float_input(x)
    was_real = not x.dtype.is_complex
    in_sizes = [x.shape[d] for d in dims]
    kernel = K.ifftn if inverse else K.fftn
    res = wrap(kernel(x, s=tuple(sizes), dim=tuple(dims), norm=norm))
    meta(res, C.complex_dtype_of(x.dtype), _out_shape(x, dims, sizes))
    if needs_grad(x):
        def bw(g):
            gx = _resize(_c2c(g, dims, sizes, _DUAL[norm], not inverse), dims, in_sizes)
            return (C.real(gx) if was_real else gx,)
        record("FftC2CBackward0", res, (x,), bw)
    return res


def _r2c(x, dims, sizes, norm):
    """Real-to-complex (one-sided along the last of ``dims``) transform."""
    x = _float_input(x, complex_ok=False)
    in_sizes = [x.shape[d] for d in dims]
    res = wrap(K.rfftn(x, s=tuple(sizes), dim=tuple(dims), norm=norm))
    meta(res, C.complex_dtype_of(x.dtype), _out_shape(x, dims, sizes[:-1] + [sizes[-1] // 2 + 1]))
    if needs_grad(x):
        def bw(g):
            full = _resize(g, dims[-1:], sizes[-1:])
            gx = _c2c(full, dims, sizes, _DUAL[norm], True)
            return (_resize(C.real(gx), dims, in_sizes),)
        record("FftR2CBackward0", res, (x,), bw)
    return res


def _c2r(x, dims, sizes, norm, last=None):
    """Complex-to-real transform; the output is ``last`` long along the last of ``dims``
    (default ``2 * (input length - 1)``)."""
    x = _float_input(x)
    if not x.dtype.is_complex:
        x = C.complex(x, x * 0)
    in_sizes = [x.shape[d] for d in dims]
    n = last if last is not None else 2 * (in_sizes[-1] - 1)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    sizes = sizes[:-1] + [n]
    res = wrap(K.irfftn(x, s=tuple(sizes), dim=tuple(dims), norm=norm))
    meta(res, C.real_dtype_of(x.dtype), _out_shape(x, dims, sizes))
    if needs_grad(x):
        def bw(g):
            gi = _r2c(g, dims, sizes, _DUAL[norm])
            half = sizes[-1] // 2 + 1
            double = sizes[-1] - half
            if double > 0:
                from .creation import tensor
                w = np.ones(half)
                w[1:1 + double] = 2.0
                shape_w = [1] * gi.ndim
                shape_w[dims[-1]] = half
                gi = gi * tensor(w.reshape(shape_w), dtype=C.real_dtype_of(gi.dtype))
            return (_resize(gi, dims, in_sizes),)
        record("FftC2RBackward0", res, (x,), bw)
    return res


# --- one-dimensional -------------------------------------------------------------------

def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.fft``."""
    dims, sizes = _dims_sizes(input, n, dim, one=True)
    return write_out(out, _c2c(input, dims, sizes, _norm(norm), False))


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.ifft``."""
    dims, sizes = _dims_sizes(input, n, dim, one=True)
    return write_out(out, _c2c(input, dims, sizes, _norm(norm), True))


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.rfft``."""
    dims, sizes = _dims_sizes(input, n, dim, one=True)
    return write_out(out, _r2c(input, dims, sizes, _norm(norm)))


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.irfft``."""
    dims, sizes = _dims_sizes(input, None, dim, one=True)
    return write_out(out, _c2r(input, dims, sizes, _norm(norm), n))


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.hfft``: ``irfft`` of the conjugate, dual norm."""
    return irfft(C.conj(_float_input(input)), n, dim, _DUAL[_norm(norm)], out=out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.ihfft``: conjugate of ``rfft``, dual norm."""
    return write_out(out, C.conj(rfft(input, n, dim, _DUAL[_norm(norm)])))


# --- n-dimensional ----------------------------------------------------------------------

def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.fftn``."""
    dims, sizes = _dims_sizes(input, s, dim)
    if not dims:
        return write_out(out, _as_complex(input))
    return write_out(out, _c2c(input, dims, sizes, _norm(norm), False))


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.ifftn``."""
    dims, sizes = _dims_sizes(input, s, dim)
    if not dims:
        return write_out(out, _as_complex(input))
    return write_out(out, _c2c(input, dims, sizes, _norm(norm), True))


def _as_complex(x):
    x = _float_input(x)
    return x if x.dtype.is_complex else C.complex(x, x * 0)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.rfftn``."""
    dims, sizes = _dims_sizes(input, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    return write_out(out, _r2c(input, dims, sizes, _norm(norm)))


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.irfftn``."""
    dims, sizes = _dims_sizes(input, s, dim)
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    last = None if s is None or s[-1] == -1 else int(s[-1])
    return write_out(out, _c2r(input, dims, sizes, _norm(norm), last))


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.hfftn``: ``irfftn`` of the conjugate, dual norm."""
    return irfftn(C.conj(_float_input(input)), s, dim, _DUAL[_norm(norm)], out=out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """msnb implementation of ``torch.fft.ihfftn``: conjugate of ``rfftn``, dual norm."""
    return write_out(out, C.conj(rfftn(input, s, dim, _DUAL[_norm(norm)])))


def _two_d(fn, name):
    def op(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return fn(input, s, dim, norm, out=out)
    op.__name__ = name
    op.__doc__ = f"msnb implementation of ``torch.fft.{name}`` (``{fn.__name__}`` over two dims)."
    return op


fft2 = _two_d(fftn, "fft2")
ifft2 = _two_d(ifftn, "ifft2")
rfft2 = _two_d(rfftn, "rfft2")
irfft2 = _two_d(irfftn, "irfft2")
hfft2 = _two_d(hfftn, "hfft2")
ihfft2 = _two_d(ihfftn, "ihfft2")


# --- helpers ----------------------------------------------------------------------------

def _shift(input, dim, sign):
    from .shape import roll
    dims = list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if not dims:
        return input * 1
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return roll(input, shifts, dims)


def fftshift(input, dim=None):
    """msnb implementation of ``torch.fft.fftshift``."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """msnb implementation of ``torch.fft.ifftshift``."""
    return _shift(input, dim, -1)


def _freq(values, d, dtype, requires_grad):
    from .creation import tensor
    dt = D.get_default_dtype() if dtype is None else D.to_torch_dtype(dtype)
    t = tensor(np.asarray(values, np.float64) / d, dtype=dt)
    return t.requires_grad_(True) if requires_grad else t


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.fft.fftfreq``."""
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)]) if n > 0 else np.zeros(0)
    return write_out(out, _freq(k / n if n else k, d, dtype, requires_grad))


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.fft.rfftfreq``."""
    k = np.arange(0, n // 2 + 1)
    return write_out(out, _freq(k / n if n else k, d, dtype, requires_grad))
