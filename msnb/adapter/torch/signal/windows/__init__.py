"""msnb's ``torch.signal.windows``: PyTorch's window formulas, evaluated with numpy in
float64 and returned in the requested dtype (float32 / float64)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ... import _dtype as D
from ..._namespace import missing_attribute

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _check(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dtype = D.get_default_dtype() if dtype is None else D.to_torch_dtype(dtype)
    if dtype not in (D.float32, D.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _out(values, dtype, requires_grad):
    from ..._ops.creation import tensor
    return tensor(np.asarray(values, np.float64).astype(dtype.numpy), dtype=dtype, requires_grad=requires_grad)


def _steps(M, start, step):
    return start + step * np.arange(M, dtype=np.float64)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.exponential``: ``exp(-|n - c| / tau)``."""
    dtype = _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    return _out(np.exp(-np.abs(_steps(M, -center / tau, 1 / tau))), dtype, requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.cosine``: ``sin(pi (n + 0.5) / M)``."""
    dtype = _check("cosine", M, dtype, layout)
    c = np.pi / (M + 1 if not sym and M > 1 else M) if M else 0.0
    return _out(np.sin(_steps(M, 0.5 * c, c)), dtype, requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.gaussian``: ``exp(-(n / (2 std))^2)`` about the centre."""
    dtype = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * np.sqrt(2))
    return _out(np.exp(-_steps(M, start * c, c) ** 2), dtype, requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.kaiser``: ``I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta)``."""
    dtype = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _out(np.ones(M), dtype, requires_grad)
    c = 2.0 * beta / (M if not sym else M - 1)
    k = np.minimum(_steps(M, -beta, c), beta)
    return _out(np.i0(np.sqrt(np.maximum(beta * beta - k * k, 0.0))) / np.i0(beta), dtype, requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.bartlett`` (triangular, zero at both ends)."""
    dtype = _check("bartlett", M, dtype, layout)
    if M <= 1:
        return _out(np.ones(M), dtype, requires_grad)
    return _out(1 - np.abs(_steps(M, -1.0, 2 / (M if not sym else M - 1))), dtype, requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.general_cosine``: ``sum_i (-1)^i a_i cos(2 pi i n / N)``."""
    dtype = _check("general_cosine", M, dtype, layout)
    if M <= 1:
        return _out(np.ones(M), dtype, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _steps(M, 0.0, 2 * np.pi / (M if not sym else M - 1))
    w = sum((-1) ** i * float(c) * np.cos(i * k) for i, c in enumerate(a))
    return _out(w, dtype, requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.general_hamming``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.hamming``."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.hann``."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.blackman``."""
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.signal.windows.nuttall``."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)


def __getattr__(name):
    raise missing_attribute("torch.signal.windows", name)
