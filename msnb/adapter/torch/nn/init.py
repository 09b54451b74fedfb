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
    """msnb implementation of ``torch.nn.init.trunc_normal_``: PyTorch 2.13's two samplers
    (redrawn normals when [a, b] holds more than 30% of the mass, else uniform
    proposals accepted against the normal density), with its draws."""
    import warnings

    import numpy as np
    from .._ops import sampling as S
    from .._ops.random import gen

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    g, n, name = gen(generator), tensor.numel(), tensor.dtype._name
    st = np.float64 if name == "float64" else np.float32
    if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
        lo, hi = st(a), st(b)
        result = S.normal(g, n, name, mean, std).astype(st)
        while True:
            bad = (result < lo) | (result > hi)
            if not bad.any():
                break
            result = np.where(bad, S.normal(g, n, name, mean, std).astype(st), result)
    else:
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_pdf(x):
            y = (x - st(mean)) / st(std)
            return (y * y) * st(-0.5) - st(log_peak)

        def rejected(cand):
            with np.errstate(divide="ignore"):
                return np.log(S.uniform(g, n, name).astype(st)) > log_pdf(cand)

        result = S.uniform(g, n, name, a, b).astype(st)
        pending = rejected(result)
        while pending.any():
            cand = S.uniform(g, n, name, a, b).astype(st)
            result = np.where(pending, cand, result)
            pending = np.where(pending, rejected(cand), pending)
    return _copy_in(tensor, result)


def _copy_in(tensor, arr):
    """Write host values into ``tensor`` (shape and dtype kept), without grad."""
    import numpy as np
    from .._ops.creation import _finish
    with no_grad():
        return tensor.copy_(_finish(np.asarray(arr).astype(tensor.dtype.numpy).reshape(tuple(tensor.shape)),
                                    tensor.dtype))


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
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # PyTorch's order of operations: the same bound to the last bit
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
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """msnb implementation of ``torch.nn.init.orthogonal_``: PyTorch's steps (a
    rows x cols normal matrix drawn as one contiguous tensor, transposed when
    wide, reduced QR, Q's columns signed by R's diagonal, then ``gain``).  The
    draws are PyTorch's to the bit; the QR is numpy's LAPACK (in double), so Q
    agrees with PyTorch's MKL result to rounding: measured within 2.1e-6 (float32)
    and 5.9e-15 (float64) per unit gain up to 256 x 256
    (tests/adapter/torch/random/test_diff_orthogonal.py)."""
    import numpy as np
    from .._ops import sampling as S
    from .._ops.random import gen
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    name = tensor.dtype._name
    flat = S.normal(gen(generator), rows * cols, name).reshape(rows, cols)
    if name in ("float16", "bfloat16"):  # PyTorch draws, then its CPU QR has no half kernel
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{'Half' if name == 'float16' else 'BFloat16'}'")
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _copy_in(tensor, q * gain)


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
    ``sparsity`` of each column zeroed (rows picked by ``torch.randperm`` from the
    global generator, as PyTorch does)."""
    from .._ops import sampling as S
    from .._ops.random import gen
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    w = S.normal(gen(generator), rows * cols, tensor.dtype._name, 0.0, std).reshape(rows, cols)
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        w[S.randperm(gen(None), rows)[:zeros], c] = 0
    return _copy_in(tensor, w)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.init")
