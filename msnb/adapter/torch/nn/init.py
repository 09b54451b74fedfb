"""msnb implementation of ``torch.nn.init`` (PyTorch's formulas, in place)."""

from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_",
           "orthogonal_", "dirac_", "sparse_", "_calculate_fan_in_and_fan_out"]


def calculate_gain(nonlinearity, param=None):
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    rf = 1
    for s in tensor.shape[2:]:
        rf *= s
    return tensor.shape[1] * rf, tensor.shape[0] * rf


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    import numpy as np
    from .._ops.random import _g
    from .._ops.creation import tensor as _t
    rng = _g(generator)
    out = rng.normal(mean, std, size=tuple(tensor.shape))
    bad = (out < a) | (out > b)
    while bad.any():
        out[bad] = rng.normal(mean, std, size=int(bad.sum()))
        bad = (out < a) | (out > b)
    with no_grad():
        return tensor.copy_(_t(out.astype(np.float64)).to(tensor.dtype))


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def eye_(tensor):
    from .._ops.creation import eye
    with no_grad():
        return tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _fan(tensor, mode):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    import numpy as np
    from .._ops.random import _g
    from .._ops.creation import tensor as _t
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _g(generator).normal(size=(rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        return tensor.copy_(_t((q * gain).reshape(tuple(tensor.shape))).to(tensor.dtype))


def dirac_(tensor, groups=1):
    """msnb implementation of ``torch.nn.init.dirac_``: identity-preserving conv weights."""
    import numpy as np
    from .._ops.creation import tensor as _t
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per = sizes[0] // groups
    w = np.zeros(sizes, dtype=np.float64)
    for g in range(groups):
        for d in range(min(out_per, sizes[1])):
            w[(g * out_per + d, d) + tuple(s // 2 for s in sizes[2:])] = 1
    with no_grad():
        return tensor.copy_(_t(w).to(tensor.dtype))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """msnb implementation of ``torch.nn.init.sparse_``: N(0, std) with a fraction
    ``sparsity`` of each column zeroed."""
    from .._ops.random import _g
    from .._ops.creation import tensor as _t
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    rng = _g(generator)
    w = rng.normal(0.0, std, size=(rows, cols))
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        w[rng.permutation(rows)[:zeros], c] = 0
    with no_grad():
        return tensor.copy_(_t(w).to(tensor.dtype))


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.init")
