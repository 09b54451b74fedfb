"""``torch.testing.make_tensor``: a tensor of a shape and dtype filled with
values drawn uniformly from ``[low, high)``, drawn as PyTorch draws them
(so after the same ``manual_seed`` msnb gives PyTorch's values)."""

from __future__ import annotations

import math

__all__ = ["make_tensor"]


def _range(dtype, low, high):
    from .. import _dtype as D
    if dtype == D.bool:
        return 0, 2
    if dtype.is_floating_point or dtype.is_complex:
        info = D.finfo(dtype if dtype.is_floating_point else D.float32 if dtype == D.complex64 else D.float64)
        default_low, default_high, lo_lim, hi_lim = -9, 9, info.min, info.max
    else:
        info = D.iinfo(dtype)
        default_low, default_high, lo_lim, hi_lim = (0 if info.min == 0 else -9), 10, info.min, info.max
    low = default_low if low is None else low
    high = default_high if high is None else high
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    return max(low, lo_lim), min(high, hi_lim)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """msnb implementation of ``torch.testing.make_tensor``."""
    from .. import _dtype as D
    from .._ops.creation import empty, size_args
    from .._ops.random import randint
    from .._ops.complex import view_as_real
    shape = size_args(shape)
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    low, high = _range(dtype, low, high)
    if dtype == D.bool or not (dtype.is_floating_point or dtype.is_complex):
        out = randint(int(math.ceil(low)), int(math.ceil(high)) if dtype != D.bool else 2, shape, dtype=dtype)
    else:
        out = empty(shape, dtype=dtype)
        target = view_as_real(out) if dtype.is_complex else out
        info = D.finfo(target.dtype)
        if high - low >= info.max:
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
        if dtype.is_complex:
            from .._ops.complex import view_as_complex
            out = view_as_complex(target)
    if exclude_zero:
        replacement = D.finfo(dtype).tiny if dtype.is_floating_point else 1
        out = out.masked_fill(out == 0, replacement)
    if requires_grad:
        out.requires_grad_(True)
    return out
