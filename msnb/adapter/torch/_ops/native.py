"""``torch.*`` forms PyTorch exposes from its native layer: ``native_layer_norm``,
``native_batch_norm``, ``native_group_norm``, ``constant_pad_nd``, ``fill``,
``zero_``, ``resize_as_``, ``empty_strided``, ``empty_permuted``, and ``grid_sampler`` /
``grid_sampler_2d`` / ``grid_sampler_3d`` (``F.grid_sample`` with PyTorch's integer codes).

The normalisations return PyTorch's saved statistics beside the output and
are composed of differentiable ops, so gradients reach input, weight and bias.
"""

from __future__ import annotations

from .. import _dtype as D
from .._core import TensorPy
from . import pointwise as P
from . import reduction as R
from . import shape as S
from .creation import size_args, zeros

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm", "constant_pad_nd", "fill", "zero_",
           "resize_as_", "empty_strided", "empty_permuted", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d"]


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = P.mul(y, S.reshape(weight, shape))
    if bias is not None:
        y = P.add(y, S.reshape(bias, shape))
    return y


def _stats(x, dims, eps):
    mean = R.mean(x, dims, keepdim=True)
    xc = P.sub(x, mean)
    var = R.mean(P.mul(xc, xc), dims, keepdim=True)
    return mean, xc, P.rsqrt(P.add(var, eps))


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """msnb implementation of ``torch.native_layer_norm``: ``(output, mean, rstd)``."""
    from ..nn.functional import _check_normalized_shape
    k = len(normalized_shape)
    _check_normalized_shape(input, tuple(normalized_shape), weight, bias)
    dims = tuple(range(input.ndim - k, input.ndim))
    if input.numel() == 0:
        shape = tuple(input.shape[:input.ndim - k]) + (1,) * k
        return _affine(P.mul(input, 1.0), weight, bias, tuple(normalized_shape)), zeros(shape), zeros(shape)
    mean, xc, rstd = _stats(input, dims, eps)
    out = _affine(P.mul(xc, rstd), weight, bias, tuple(normalized_shape))
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """msnb implementation of ``torch.native_batch_norm``: ``(output, save_mean, save_invstd)``;
    in training the running statistics are updated in place, as PyTorch does."""
    c = input.shape[1] if input.ndim > 1 else 1
    shape = (1, c) + (1,) * (input.ndim - 2)
    dims = (0,) + tuple(range(2, input.ndim))
    if training:
        mean, xc, rstd = _stats(input, dims, eps)
        out = _affine(P.mul(xc, rstd), weight, bias, shape)
        if running_mean is not None or running_var is not None:
            from ..autograd.grad_mode import no_grad
            with no_grad():
                n = input.numel() // c
                m = S.reshape(mean, (c,))
                v = P.div(R.sum(P.mul(xc, xc), dims), max(n - 1, 1))
                if running_mean is not None:
                    running_mean.copy_(P.add(P.mul(running_mean, 1 - momentum), P.mul(m, momentum)))
                if running_var is not None:
                    running_var.copy_(P.add(P.mul(running_var, 1 - momentum), P.mul(v, momentum)))
        return out, S.reshape(mean, (c,)), S.reshape(rstd, (c,))
    if running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    rstd = P.rsqrt(P.add(running_var, eps))
    y = P.mul(P.sub(input, S.reshape(running_mean, shape)), S.reshape(rstd, shape))
    return _affine(y, weight, bias, shape), zeros(0, dtype=input.dtype), zeros(0, dtype=input.dtype)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """msnb implementation of ``torch.native_group_norm``: ``(output, mean, rstd)``, statistics ``(N, group)``."""
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={group}")
    x = S.reshape(input, (N, group, -1))
    mean, xc, rstd = _stats(x, (2,), eps)
    y = S.reshape(P.mul(xc, rstd), tuple(input.shape))
    shape = (1, C) + (1,) * (input.ndim - 2)
    return _affine(y, weight, bias, shape), S.reshape(mean, (N, group)), S.reshape(rstd, (N, group))


def constant_pad_nd(input, pad, value=0):
    """msnb implementation of ``torch.constant_pad_nd`` (``nn.functional.pad`` in constant mode)."""
    from ..nn import functional as F
    from .._core import cast
    if input.dtype is D.bool:  # padded as integers, then back to booleans
        return cast(F.pad(cast(input, D.uint8), list(pad), mode="constant", value=int(bool(value))), D.bool)
    return F.pad(input, list(pad), mode="constant", value=value)


def fill(input, value):
    """msnb implementation of ``torch.fill``: a new tensor of ``input``'s shape and dtype holding ``value``."""
    from .creation import ones
    if isinstance(value, TensorPy) and value.ndim:
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                           f"dimensions.")
    v = value.to(input.dtype) if isinstance(value, TensorPy) else \
        (float(value) if input.dtype.is_floating_point else value)
    return P.where(ones(tuple(input.shape), dtype=D.bool), v, input)


def zero_(input):
    return input.zero_()


def resize_as_(input, the_template, *, memory_format=None):
    return input.resize_(tuple(the_template.shape))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """msnb implementation of ``torch.empty_strided`` (contiguous and zero-filled: msnb has one layout)."""
    return zeros(tuple(size), dtype=dtype, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """msnb implementation of ``torch.empty_permuted`` (contiguous and zero-filled: msnb has one layout)."""
    size = size_args((size,))
    if len(size) != len(physical_layout):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(physical_layout)}")
    for i, d in enumerate(physical_layout):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you want it.")
    if len(set(physical_layout)) != len(physical_layout):
        raise RuntimeError("Duplicate dim not allowed")
    return zeros(size, dtype=dtype, requires_grad=requires_grad)


_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDINGS = ("zeros", "border", "reflection")


def _grid_codes(interpolation_mode, padding_mode):
    if not 0 <= int(interpolation_mode) < 3:
        raise RuntimeError(f"grid_sampler(): expected interpolation_mode to be 0, 1 or 2, got {interpolation_mode}")
    if not 0 <= int(padding_mode) < 3:
        raise RuntimeError(f"grid_sampler(): expected padding_mode to be 0, 1 or 2, got {padding_mode}")
    return _GRID_MODES[int(interpolation_mode)], _GRID_PADDINGS[int(padding_mode)]


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """msnb implementation of ``torch.grid_sampler_2d``: ``grid_sample`` on 4-D input with PyTorch's
    integer codes (mode 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    mode, pad = _grid_codes(interpolation_mode, padding_mode)
    if input.ndim != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, got {input.ndim}D")
    from ..nn._functional_misc import _grid_sample
    return _grid_sample(input, grid, mode, pad, bool(align_corners))


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """msnb implementation of ``torch.grid_sampler_3d`` (5-D input; modes 0 and 1)."""
    mode, pad = _grid_codes(interpolation_mode, padding_mode)
    if input.ndim != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, got {input.ndim}D")
    from ..nn._functional_misc import _grid_sample
    return _grid_sample(input, grid, mode, pad, bool(align_corners))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """msnb implementation of ``torch.grid_sampler`` (4-D or 5-D input, integer codes)."""
    mode, pad = _grid_codes(interpolation_mode, padding_mode)
    from ..nn._functional_misc import _grid_sample
    return _grid_sample(input, grid, mode, pad, bool(align_corners))
