"""Integer-only ops: ``bincount``, bit shifts, ``gcd`` / ``lcm``, ``unravel_index``.

Computed on the host with numpy (MindSpore 2.10 has no CPU kernel for these
on int64); integers have no gradient, so nothing is lost.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import TensorPy, binary_operands

__all__ = ["bincount", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "unravel_index"]


def _arr(x):
    return x.numpy(force=True) if isinstance(x, TensorPy) else np.asarray(x)


def _int_binary(name, fn, a, b):
    from .creation import tensor
    a, b, rt = binary_operands(a, b)
    if rt.is_floating_point or rt.is_complex or rt is D.bool and name not in ("lshift", "rshift"):
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{D._name_of(rt).capitalize()}\'')
    r = fn(_arr(a).astype(rt.numpy), _arr(b).astype(rt.numpy))
    return tensor(np.asarray(r).astype(rt.numpy), dtype=rt)


def bitwise_left_shift(input, other, *, out=None):
    return _int_binary("lshift", lambda x, y: np.left_shift(x, y), input, other)


def bitwise_right_shift(input, other, *, out=None):
    return _int_binary("rshift", lambda x, y: np.right_shift(x, y), input, other)


def gcd(input, other, *, out=None):
    return _int_binary("gcd", np.gcd, input, other)


def lcm(input, other, *, out=None):
    return _int_binary("lcm", np.lcm, input, other)


def bincount(input, weights=None, minlength=0):
    """msnb implementation of ``torch.bincount`` (counted on the host)."""
    from .creation import tensor
    if input.ndim != 1 or input.dtype.is_floating_point or input.dtype is D.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    a = _arr(input).astype(np.int64)
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return tensor(np.bincount(a, minlength=minlength).astype(np.int64))
    w = _arr(weights)
    dt = weights.dtype if weights.dtype.is_floating_point else D.float64
    return tensor(np.bincount(a, weights=w.astype(np.float64), minlength=minlength).astype(dt.numpy), dtype=dt)


def unravel_index(indices, shape):
    """msnb implementation of ``torch.unravel_index``: a tuple of coordinate tensors."""
    from .creation import tensor
    if isinstance(indices, TensorPy) and (indices.dtype.is_floating_point or indices.dtype is D.bool):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    a = _arr(indices).astype(np.int64)
    n = int(np.prod(shape))
    if a.size and (a.min() < -n or a.max() >= n):
        raise RuntimeError("index out of bounds for unravel_index")
    coords = np.unravel_index(np.where(a < 0, a + n, a), shape)
    return tuple(tensor(np.asarray(c).astype(np.int64)) for c in coords)
