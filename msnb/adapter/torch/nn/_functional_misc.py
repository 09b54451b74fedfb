"""Yet more of ``torch.nn.functional``, composed of msnb ops (gradients from those ops):
``linear_cross_entropy``, the ``upsample*`` aliases, ``channel_shuffle``, ``pdist``,
``rrelu``, ``max_unpool*``, ``fractional_max_pool*`` and ``embedding_bag``.
``functional`` re-exports every name here."""

from __future__ import annotations

import numpy as np

from .._ops import indexing as I, pointwise as P, reduction as Rd
from .._ops.creation import tensor, zeros
from ._pool_check import check_fractional, exact_sizes

__all__ = ["linear_cross_entropy", "upsample", "upsample_nearest", "upsample_bilinear", "channel_shuffle",
           "pdist", "rrelu", "rrelu_", "max_unpool1d", "max_unpool2d", "max_unpool3d", "fractional_max_pool2d",
           "fractional_max_pool3d", "embedding_bag"]


def _F():
    from . import functional
    return functional


def _check_linear_ce(input, linear_weight, target, linear_bias, ignore_index):
    """PyTorch's shape checks of ``linear_cross_entropy`` (MindSpore would fail later in a broadcast,
    or compute a loss of mismatched shapes)."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    if linear_weight.ndim > 2 and input.ndim == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {input.shape[-1]}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    if linear_bias is not None and tuple(linear_bias.shape) != (linear_weight.shape[0],):
        raise RuntimeError(f"expected linear_bias shape ({linear_weight.shape[0]},), got "
                           f"{tuple(linear_bias.shape)}")
    if target.ndim >= 1 and input.ndim == 2 and target.shape[0] != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    if ignore_index is not None and target.dtype.is_floating_point:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """msnb implementation of ``torch.nn.functional.linear_cross_entropy``: ``cross_entropy`` of
    ``linear(input)`` with ``linear_weight`` of shape ``(C, *out_features, in_features)`` (computed
    whole; PyTorch's chunking ``options`` only change memory use)."""
    F = _F()
    _check_linear_ce(input, linear_weight, target, linear_bias, ignore_index)
    C, rest, In = linear_weight.shape[0], tuple(linear_weight.shape[1:-1]), linear_weight.shape[-1]
    bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = F.linear(input, linear_weight.reshape(-1, In), bias)
    logits = logits.reshape(*input.shape[:-1], C, *rest)
    if input.ndim > 2:  # batch dims first, then classes: cross_entropy wants classes at dim 1
        logits = logits.movedim(input.ndim - 1, 1)
    return F.cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None else ignore_index,
                           reduction=reduction, label_smoothing=label_smoothing)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """msnb implementation of ``torch.nn.functional.upsample`` (``interpolate``)."""
    return _F().interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """msnb implementation of ``torch.nn.functional.upsample_nearest``."""
    return _F().interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """msnb implementation of ``torch.nn.functional.upsample_bilinear`` (``align_corners=True``)."""
    return _F().interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input, groups):
    """msnb implementation of ``torch.nn.functional.channel_shuffle``: ``(g, C/g)`` channel blocks transposed."""
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    C = input.shape[1]
    if C % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {C} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    x = input.reshape(input.shape[0], groups, C // groups, *rest).transpose(1, 2)
    return x.reshape(input.shape[0], C, *rest)


def pdist(input, p=2.0):
    """msnb implementation of ``torch.nn.functional.pdist``: the ``p``-norm distance of every row pair
    ``i < j``, in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    if len(i) == 0:  # no pairs: an empty result that is still connected to input's graph
        return P.mul(zeros(0, dtype=input.dtype), Rd.sum(input))
    diff = P.sub(input.index_select(0, tensor(i.astype(np.int64))), input.index_select(0, tensor(j.astype(np.int64))))
    from .._ops.norms import vector_norm
    return vector_norm(diff, p, 1)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """msnb implementation of ``torch.nn.functional.rrelu``: negative inputs scaled by a slope drawn
    uniformly from ``[lower, upper]`` in training, by ``(lower + upper) / 2`` otherwise."""
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound, got lower={lower} "
                           f"and upper={upper}")
    if training:
        from .._ops.random import rand
        slope = P.add(P.mul(rand(*input.shape, dtype=input.dtype), upper - lower), lower)
    else:
        slope = (lower + upper) / 2
    out = P.where(P.ge(input, 0), input, P.mul(input, slope))
    return input.copy_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """msnb implementation of ``torch.nn.functional.rrelu_``."""
    return rrelu(input, lower, upper, training, True)


def _tuple(x, n):
    if isinstance(x, (tuple, list)):
        return tuple(x) if len(x) != 1 else (x[0],) * n
    return (x,) * n


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    ks = _tuple(kernel_size, n)
    st = _tuple(stride, n) if stride is not None else ks
    pd = _tuple(padding, n)
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    idx = indices if batched else indices.unsqueeze(0)
    spatial = tuple(x.shape[2:])
    if output_size is None:
        out = tuple((L - 1) * s - 2 * p + k for L, s, p, k in zip(spatial, st, pd, ks))
    else:
        out = tuple(output_size)[-n:]
    N, C = x.shape[:2]
    total = int(np.prod(out))
    flat_idx = idx.reshape(N, C, -1)
    if flat_idx.numel() and (bool(Rd.any(P.lt(flat_idx, 0))) or bool(Rd.any(P.ge(flat_idx, total)))):
        raise RuntimeError(f"Found an invalid max index: {int(Rd.amax(flat_idx))} (output volumes are of size "
                           + "x".join(str(o) for o in out) + ")")
    res = I.scatter(zeros(N, C, total, dtype=x.dtype), 2, flat_idx, x.reshape(N, C, -1))
    res = res.reshape(N, C, *out)
    return res if batched else res.squeeze(0)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """msnb implementation of ``torch.nn.functional.max_unpool1d``: values scattered to ``indices`` in zeros."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """msnb implementation of ``torch.nn.functional.max_unpool2d``."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """msnb implementation of ``torch.nn.functional.max_unpool3d``."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def _fractional_starts(L, k, out, u):
    """PyTorch's pseudo-random window starts for one dimension (``u``: the samples, any shape), computed
    as its CPU kernel does: in the samples' dtype, truncated toward zero (samples outside [0, 1) too)."""
    if out == 1:
        return np.full(u.shape + (1,), L - k, np.int64)
    dt = u.dtype
    alpha = dt.type(L - k) / dt.type(out - 1)
    i = np.arange(out - 1).astype(dt)
    starts = np.trunc((i + u[..., None]) * alpha).astype(np.int64) - np.trunc(u[..., None] * alpha).astype(np.int64)
    return np.concatenate([starts, np.full(u.shape + (1,), L - k, np.int64)], -1)


def _fractional_output_size(output_ratio, spatial, n, name):
    """PyTorch's Python-level ratio handling: the 2-d function takes ``len()`` of the ratio (a
    scalar is a TypeError there, not in 3-d), a too-short tuple is an IndexError."""
    if n == 2 and not isinstance(output_ratio, (tuple, list)):
        raise TypeError(f"object of type '{type(output_ratio).__name__}' has no len()")
    if n == 2 and len(output_ratio) > 2:
        raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
    ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * n
    if len(ratio) < n:
        raise IndexError("tuple index out of range")
    return tuple(int(L * ratio[i]) for i, L in enumerate(spatial))


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, n, name):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    N, C = x.shape[:2]
    spatial = tuple(x.shape[2:])
    if output_size is None:
        output_size = _fractional_output_size(output_ratio, spatial, n, name)
    ks = exact_sizes(kernel_size, n, name, "kernel_size")
    out = exact_sizes(output_size, n, name, "output_size")
    check_fractional(name, input, n, ks, out)
    if _random_samples is None:
        from .._ops.random import rand
        _random_samples = rand(N, C, n, dtype=x.dtype)
    elif _random_samples.dtype is not x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    u = np.asarray(_random_samples.numpy())
    if u.dtype.kind != "f":
        u = u.astype(np.float64)
    if u.ndim != 3 or u.shape[0] < N or u.shape[1:] != (C, n):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size." if u.ndim == 3 and
                           u.shape[0] < N else f"{name}(): expected _random_samples of shape (N, {C}, {n}), "
                           f"got {list(u.shape)}")
    u = u[:N]  # PyTorch reads the first N rows (an unbatched input is batch 1)
    if N * C == 0 or 0 in out:  # an empty batch or output: an empty result, still attached to the input's graph
        res = P.add(zeros(N, C, *out, dtype=x.dtype), P.mul(x.sum(), 0))  # (slicing an empty tensor's
        # gradient is MindSpore's memcpy_s error; a sum's is not)
        idx = tensor(np.zeros((N, C) + out, np.int64))
        if not batched:
            res, idx = res.squeeze(0), idx.squeeze(0)
        return (res, idx) if return_indices else res
    # per (sample, channel): flat input positions of every window element, (N*C, prod(out) * prod(k))
    flat = np.zeros((N, C) + out + ks, np.int64)
    strides = [int(np.prod(spatial[i + 1:])) for i in range(n)]
    for d in range(n):
        # PyTorch's sample order: (width, height) in 2-d, (time, height, width) in 3-d
        starts = _fractional_starts(spatial[d], ks[d], out[d], u[:, :, 1 - d if n == 2 else d])
        pos = starts[..., :, None] + np.arange(ks[d])  # (N, C, out_d, k_d)
        shape = [N, C] + [1] * (2 * n)
        shape[2 + d], shape[2 + n + d] = out[d], ks[d]
        flat = flat + pos.reshape(shape) * strides[d]
    K = int(np.prod(ks))
    P_out = int(np.prod(out))
    flat = flat.reshape(N * C, P_out * K)
    vals = x.reshape(N * C, int(np.prod(spatial))).gather(1, tensor(flat)).reshape(N * C, P_out, K)
    res, arg = vals.max(-1)
    res = res.reshape(N, C, *out)
    idx = tensor(flat.reshape(N * C, P_out, K)).gather(2, arg.unsqueeze(-1)).reshape(N, C, *out)
    if not batched:
        res, idx = res.squeeze(0), idx.squeeze(0)
    return (res, idx) if return_indices else res


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """msnb implementation of ``torch.nn.functional.fractional_max_pool2d`` (PyTorch's window starts
    from ``_random_samples``, drawn uniformly when not given)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples,
                                2, "fractional_max_pool2d")


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """msnb implementation of ``torch.nn.functional.fractional_max_pool3d``."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples,
                                3, "fractional_max_pool3d")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """msnb implementation of ``torch.nn.functional.embedding_bag``: the ``sum`` / ``mean`` / ``max``
    of each bag's embedding rows (bags: the rows of a 2-D ``input``, or ``offsets`` into a 1-D one);
    ``padding_idx`` rows are left out, an empty bag gives zeros."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    if max_norm is not None:
        raise NotImplementedError("torch.nn.functional.embedding_bag(max_norm=...) is not supported by msnb yet")
    idx = input.numpy().astype(np.int64)
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences.")
        B, Lb = idx.shape
        starts = np.arange(B) * Lb
        flat = idx.reshape(-1)
        ends = starts + Lb
        psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        flat = idx
        off = offsets.numpy().astype(np.int64).reshape(-1)
        if off.size and off[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {off[0]}")
        if off.size and off[-1] > len(flat):
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {len(flat)} but got "
                               f"offsets[-1] of {off[-1]}")
        if include_last_offset:
            starts, ends = off[:-1], off[1:]
        else:
            starts, ends = off, np.concatenate([off[1:], [len(flat)]])
        B = len(starts)
        psw = per_sample_weights
    bad = np.nonzero((flat < 0) | (flat >= weight.shape[0]))[0]
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {flat[bad[0]]} which is not in the valid range "
                           f"[0, {weight.shape[0]})")
    E = weight.shape[1]
    keep = np.ones(len(flat), bool) if padding_idx is None else flat != (padding_idx % weight.shape[0])
    bag = np.zeros(len(flat), np.int64)
    for b in range(B):
        bag[starts[b]:ends[b]] = b
    pos = np.nonzero(keep)[0]
    rows = weight.index_select(0, tensor(flat[pos]))
    if psw is not None:
        rows = P.mul(rows, psw.index_select(0, tensor(pos)).unsqueeze(1))
    counts = np.bincount(bag[pos], minlength=B)
    if mode == "max":
        if len(pos) == 0:
            return zeros(B, E, dtype=weight.dtype)
        width = int(counts.max())
        table = np.zeros((B, width), np.int64)  # positions into ``rows``; short bags repeat their first
        for b in range(B):
            mine = np.nonzero(bag[pos] == b)[0]
            if len(mine):
                table[b, :] = mine[0]
                table[b, :len(mine)] = mine
        out = Rd.amax(rows.index_select(0, tensor(table.reshape(-1))).reshape(B, width, E), 1)
        return P.where(tensor((counts > 0)[:, None]), out, zeros(B, E, dtype=weight.dtype))
    out = I.index_add(zeros(B, E, dtype=weight.dtype), 0, tensor(bag[pos]), rows)
    if mode == "mean":
        out = P.div(out, tensor(np.maximum(counts, 1).astype(weight.dtype.numpy)).unsqueeze(1))
    return out



def _inplace_of(name):
    def fn(input, *args, **kwargs):
        return getattr(_F(), name)(input, *args, inplace=True, **kwargs)
    fn.__name__ = fn.__qualname__ = name + "_"
    fn.__doc__ = f"msnb implementation of ``torch.nn.functional.{name}_`` (``{name}(..., inplace=True)``)."
    return fn


elu_, selu_, celu_, leaky_relu_, hardtanh_, threshold_ = (
    _inplace_of(n) for n in ("elu", "selu", "celu", "leaky_relu", "hardtanh", "threshold"))


def _with_indices(name):
    def fn(*args, **kwargs):
        kwargs["return_indices"] = True
        return getattr(_F(), name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name + "_with_indices"
    fn.__doc__ = f"msnb implementation of ``torch.nn.functional.{name}_with_indices``: ``(output, indices)``."
    return fn


_POOLS = ("max_pool1d", "max_pool2d", "max_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
          "adaptive_max_pool3d", "fractional_max_pool2d", "fractional_max_pool3d")
for _p in _POOLS:
    globals()[_p + "_with_indices"] = _with_indices(_p)
del _p


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """msnb implementation of ``torch.nn.functional.gumbel_softmax``: ``softmax((logits + g) / tau)``
    with Gumbel noise ``g``; ``hard`` returns one-hot samples with the soft sample's gradient."""
    from .._ops.random import rand
    u = rand(*logits.shape, dtype=logits.dtype)
    gumbels = P.neg(P.log(P.neg(P.log(P.clamp(u, min=eps)))))
    y = _F().softmax(P.div(P.add(logits, gumbels), tau), dim)
    if not hard:
        return y
    idx = y.argmax(dim, keepdim=True)
    y_hard = I.scatter(zeros(*logits.shape, dtype=logits.dtype), dim, idx, 1.0)
    return P.add(P.sub(y_hard, y.detach()), y)


def _base_coords(n, align_corners):
    if n <= 1:
        return np.zeros(max(n, 0))
    if align_corners:
        return np.linspace(-1.0, 1.0, n)
    return (np.arange(n) * 2 + 1) / n - 1


def affine_grid(theta, size, align_corners=None):
    """msnb implementation of ``torch.nn.functional.affine_grid``: ``theta`` (N, 2, 3) or (N, 3, 4)
    applied to the normalised output coordinates (x, y[, z], 1)."""
    ac = bool(align_corners)
    size = tuple(size)
    if len(size) == 4:
        N, _, H, W = size
        xs, ys = _base_coords(W, ac), _base_coords(H, ac)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((H, W))), -1)
    elif len(size) == 5:
        N, _, Dd, H, W = size
        xs, ys, zs = _base_coords(W, ac), _base_coords(H, ac), _base_coords(Dd, ac)
        base = np.stack(np.broadcast_arrays(xs[None, None, :], ys[None, :, None], zs[:, None, None],
                                            np.ones((Dd, H, W))), -1)
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {list(size)}.")
    k = base.shape[-1]
    if tuple(theta.shape[1:]) != (k - 1, k):
        raise ValueError(f"Expected a batch of {k - 1}D affine matrices of shape Nx{k - 1}x{k} for size "
                         f"{list(size)}. Got {list(theta.shape)}.")
    b = tensor(base.reshape(-1, k).astype(theta.dtype.numpy))
    out = b.matmul(theta.transpose(1, 2))  # (N, L, k - 1)
    return out.reshape(N, *base.shape[:-1], k - 1)


def _reflect(x, low2, high2):
    """PyTorch's coordinate reflection into ``[low2 / 2, high2 / 2]``."""
    if low2 == high2:
        return P.mul(x, 0)
    lo, span = low2 / 2, (high2 - low2) / 2
    x = P.abs(P.sub(x, lo))
    extra = P.fmod(x, span)
    flips = P.floor(P.div(x, span)).detach()
    even = P.eq(P.remainder(flips, 2), 0)
    return P.where(even, P.add(extra, lo), P.add(P.sub(span, extra), lo))


def _source(coord, size, align_corners, padding_mode):
    if align_corners:
        x = P.mul(P.add(coord, 1), (size - 1) / 2)
    else:
        x = P.div(P.sub(P.mul(P.add(coord, 1), size), 1), 2)
    if padding_mode == "border":
        x = P.clamp(x, 0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = P.clamp(x, 0, size - 1)
    return x


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """msnb implementation of ``torch.nn.functional.grid_sample`` for 4-D and 5-D input (``bilinear`` /
    ``nearest``, and ``bicubic`` on 4-D; ``zeros`` / ``border`` / ``reflection`` padding): taps
    gathered from the flattened image, so both the input and the grid get gradients."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    return _grid_sample(input, grid, mode, padding_mode, bool(align_corners))


def _grid_sample(input, grid, mode, padding_mode, ac):
    n = input.ndim - 2
    if n not in (2, 3) or grid.ndim != input.ndim or grid.shape[-1] != n or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and n != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    N, C = input.shape[:2]
    sizes = tuple(input.shape[2:])
    out_sp = tuple(grid.shape[1:-1])
    L = int(np.prod(out_sp))
    flat = input.reshape(N, C, int(np.prod(sizes)))
    strides = [int(np.prod(sizes[d + 1:])) for d in range(n)]
    coords = [grid[..., n - 1 - d] for d in range(n)]  # grid's last axis is (x, y[, z]): W first

    def tap(idx):
        inside = None
        flat_idx = None
        for d, i in enumerate(idx):
            ok = P.logical_and(P.ge(i, 0), P.le(i, sizes[d] - 1))
            inside = ok if inside is None else P.logical_and(inside, ok)
            part = P.mul(P.clamp(i, 0, sizes[d] - 1).to(_int64()), strides[d])
            flat_idx = part if flat_idx is None else P.add(flat_idx, part)
        gidx = flat_idx.reshape(N, 1, L).expand(N, C, L)
        vals = flat.gather(2, gidx).reshape(N, C, *out_sp)
        return P.mul(vals, inside.to(input.dtype).unsqueeze(1))

    if mode == "bicubic":
        return _bicubic(coords, sizes, ac, padding_mode, tap)
    src = [_source(c, sizes[d], ac, padding_mode) for d, c in enumerate(coords)]
    if mode == "nearest":  # the grid gets PyTorch's zero gradient
        from .._ops.factorized import tied_to
        return tied_to(tap([P.round(x).detach() for x in src]), grid)
    lows = [P.floor(x).detach() for x in src]
    fr = [P.sub(x, lo) for x, lo in zip(src, lows)]
    out = None
    for corner in np.ndindex(*(2,) * n):
        idx, w = [], None
        for d, c in enumerate(corner):
            idx.append(P.add(lows[d], c))
            wd = fr[d] if c else P.sub(1, fr[d])
            w = wd if w is None else P.mul(w, wd)
        part = P.mul(tap(idx), w.unsqueeze(1))
        out = part if out is None else P.add(out, part)
    return out


def _cubic_weights(t, A=-0.75):
    """PyTorch's cubic-convolution weights of the four taps at offsets -1, 0, 1, 2 (A = -0.75)."""
    def near(x):  # |x| <= 1
        return P.add(P.mul(P.mul(P.sub(P.mul(x, A + 2), A + 3), x), x), 1)

    def far(x):  # 1 < |x| < 2
        return P.sub(P.mul(P.add(P.mul(P.sub(P.mul(x, A), 5 * A), x), 8 * A), x), 4 * A)
    return [far(P.add(t, 1)), near(t), near(P.sub(1, t)), far(P.sub(2, t))]


def _bicubic(coords, sizes, ac, padding_mode, tap):
    """Bicubic sampling as PyTorch's kernel: the unpadded source coordinate, 4x4 integer taps, each tap
    moved by the padding rule (border clip / reflection) and zero outside."""
    src = [_source(c, sizes[d], ac, "zeros") for d, c in enumerate(coords)]
    lows = [P.floor(x).detach() for x in src]
    ws = [_cubic_weights(P.sub(x, lo)) for x, lo in zip(src, lows)]

    def pad_tap(i, size):
        if padding_mode == "border":
            return P.clamp(i, 0, size - 1)
        if padding_mode == "reflection":
            r = _reflect(i, 0, 2 * (size - 1)) if ac else _reflect(i, -1, 2 * size - 1)
            return P.clamp(r, 0, size - 1)
        return i

    out = None
    for a in range(4):
        ya = pad_tap(P.add(lows[0], a - 1), sizes[0]).detach()
        for b in range(4):
            xb = pad_tap(P.add(lows[1], b - 1), sizes[1]).detach()
            part = P.mul(tap([ya, xb]), P.mul(ws[0][a], ws[1][b]).unsqueeze(1))
            out = part if out is None else P.add(out, part)
    return out


def _int64():
    from .. import _dtype
    return _dtype.int64


__all__ += ["elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "threshold_", "gumbel_softmax", "affine_grid",
            "grid_sample"] + [p + "_with_indices" for p in _POOLS]
