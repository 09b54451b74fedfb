"""N-d windowed ops of ``torch.nn.functional`` built from index tables:
3-d pooling, adaptive max / 3-d pooling, LP pooling in 3-d, the non-constant
``pad`` modes, ``local_response_norm`` and ``unfold`` / ``fold``.

Each spatial dimension gets an integer table ``(out, k)`` of the input
positions window ``o`` reads (PyTorch's window geometry, computed with
numpy); ``index_select`` along each dimension gathers every window into a
trailing axis, and a reduction over that axis gives the result.  Gradients
come from ``index_select`` (a scatter-add), so overlapping windows
accumulate as in PyTorch.  ``functional`` re-exports every name here.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._ops import pointwise as P, reduction as Rd
from .._ops.creation import tensor
from ._pool_check import check_adaptive, check_pool

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_avg_pool3d", "lp_pool3d", "local_response_norm", "unfold", "fold", "conv_transpose3d"]


def _F():
    from . import functional
    return functional


def _tuple(x, n):
    if isinstance(x, (tuple, list)):
        return tuple(x) if len(x) != 1 else (x[0],) * n
    return (x,) * n


def _batched(input, n, name):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor for input, but got: "
                           f"{list(input.shape)}")
    return input if input.ndim == n + 2 else input.unsqueeze(0)


def _gather(x, tables):
    """``x`` (N, C, *spatial) and per-dim index tables (out_d, k_d) -> (N, C, *out, K)."""
    n = len(tables)
    for i, t in enumerate(tables):
        d = 2 + 2 * i  # each earlier dim became (out, k)
        x = x.index_select(d, tensor(t.reshape(-1).astype(np.int64)))
        x = x.reshape(*x.shape[:d], t.shape[0], t.shape[1], *x.shape[d + 1:])
    lead = list(x.shape[:2])
    outs = [x.shape[2 + 2 * i] for i in range(n)]
    perm = [0, 1] + [2 + 2 * i for i in range(n)] + [3 + 2 * i for i in range(n)]
    return x.permute(tuple(perm)).reshape(*lead, *outs, int(np.prod([t.shape[1] for t in tables])))


def _flat_index(tables, sizes):
    """(*out, K) flat positions ``sum_d pos_d * stride_d`` of every window element."""
    strides = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
    n = len(tables)
    acc = np.zeros([t.shape[0] for t in tables] + [t.shape[1] for t in tables], np.int64)
    for i, t in enumerate(tables):
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = t.shape
        acc = acc + t.reshape(shape) * strides[i]
    return acc.reshape([t.shape[0] for t in tables] + [-1])


def _pool_geometry(L, k, s, p, d, ceil_mode):
    """``(out, table into the padded input, right padding needed)`` for one dimension."""
    eff = d * (k - 1) + 1
    span = L + 2 * p - eff
    if span < 0:
        raise RuntimeError(f"Given input size {L} with padding {p} is too small for kernel {k}")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= L + p:
        out -= 1
    table = np.arange(out)[:, None] * s + np.arange(k)[None, :] * d
    right = max(int(table.max()) + 1 - (L + 2 * p), 0) if out > 0 else 0
    return out, table, right


def _pad_spatial(x, pads, value):
    """Constant-pad the trailing spatial dims: ``pads`` is [(before, after)] in dim order."""
    flat = []
    for b, a in reversed(pads):
        flat += [b, a]
    if not any(flat):
        return x
    return _F().pad(x, tuple(flat), "constant", value)


def _window_max(input, n, x, tables, input_tables, sizes, return_indices):
    """The max over each window of ``x`` (read through ``tables``) and, with ``return_indices``, its
    flat position in the unpadded input (``input_tables``: the same windows in input coordinates)."""
    out, arg = _gather(x, tables).max(-1)
    idx = None
    if return_indices:
        flat = tensor(_flat_index(input_tables, sizes)).expand(*out.shape, -1)
        idx = flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if input.ndim == n + 1:
        out = out.squeeze(0)
        idx = idx.squeeze(0) if return_indices else None
    return (out, idx) if return_indices else out


def _max_pool_nd(input, n, kernel_size, stride, padding, dilation, ceil_mode, return_indices, name):
    ks, st, pd, dl, _ = check_pool(name, input, n, kernel_size, stride, padding, dilation, ceil_mode)
    x = _batched(input, n, name)
    sizes = tuple(x.shape[2:])
    geo = [_pool_geometry(L, k, s, p, d, ceil_mode) for L, k, s, p, d in zip(sizes, ks, st, pd, dl)]
    low = float("-inf") if x.dtype.is_floating_point else _integer_min(x.dtype)
    xp = _pad_spatial(x, [(p, g[2] + p) for p, g in zip(pd, geo)], low)
    return _window_max(input, n, xp, [g[1] for g in geo], [g[1] - p for g, p in zip(geo, pd)], sizes,
                       return_indices)


def _integer_min(dtype):
    return False if dtype.numpy == np.bool_ else int(np.iinfo(dtype.numpy).min)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """msnb implementation of ``torch.nn.functional.max_pool3d`` (windows gathered by index tables;
    indices are PyTorch's flat ``d * H * W + h * W + w``)."""
    return _max_pool_nd(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool3d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """msnb implementation of ``torch.nn.functional.avg_pool3d`` (PyTorch's divisors: the window
    clipped to the padded input, or to the input without ``count_include_pad``)."""
    return avg_pool_nd(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                       "avg_pool3d")


def avg_pool_nd(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, name):
    """Average pooling over ``n`` trailing dims from index tables.  Integer inputs keep their
    dtype: the window sum divided by the divisor, truncated toward zero, as PyTorch's CPU kernel."""
    ks, st, pd, _, _ = check_pool(name, input, n, kernel_size, stride, padding, 1, ceil_mode, divisor_override)
    x = _batched(input, n, name)
    sizes = tuple(x.shape[2:])
    geo = [_pool_geometry(L, k, s, p, 1, ceil_mode) for L, k, s, p in zip(sizes, ks, st, pd)]
    integer = not (x.dtype.is_floating_point or x.dtype.is_complex)
    xp = _pad_spatial(x, [(p, g[2] + p) for p, g in zip(pd, geo)], 0 if integer else 0.0)
    total = Rd.sum(_gather(xp, [g[1] for g in geo]), -1)
    if divisor_override:
        div = np.full([g[0] for g in geo], divisor_override)
    else:
        div = np.ones([g[0] for g in geo], np.int64)
        for i, (g, L, k, s, p) in enumerate(zip(geo, sizes, ks, st, pd)):
            start = np.arange(g[0]) * s - p
            end = np.minimum(start + k, L + p)
            cnt = end - start if count_include_pad else np.minimum(end, L) - np.maximum(start, 0)
            shape = [1] * n
            shape[i] = g[0]
            div = div * cnt.reshape(shape)
    if integer:
        out = P.div(total, tensor(div.astype(np.int64)), rounding_mode="trunc").to(x.dtype)
    elif divisor_override:
        out = P.div(total, divisor_override)
    else:
        out = P.div(total, tensor(div.astype(x.dtype.numpy)))
    return out.squeeze(0) if input.ndim == n + 1 else out


def _adaptive_tables(sizes, outs):
    """Per dim: (out, kmax) input positions of PyTorch's adaptive bins
    ``[floor(i L / o), ceil((i + 1) L / o))``, short bins padded by repeating their
    last position, and the (out, kmax) 0/1 mask of real positions."""
    tables, masks = [], []
    for L, o in zip(sizes, outs):
        start = (np.arange(o) * L) // o
        end = -((-(np.arange(o) + 1) * L) // o)
        kmax = int((end - start).max()) if o else 1
        t = start[:, None] + np.arange(kmax)[None, :]
        m = t < end[:, None]
        tables.append(np.where(m, t, (end - 1)[:, None]))
        masks.append(m)
    return tables, masks


def _empty_pool(input, x, outs, n, return_indices):
    """The empty result of a zero output size, still attached to the input's graph (MindSpore's
    kernels refuse empty windows)."""
    from .._ops.creation import zeros
    out = P.add(zeros(*x.shape[:2], *outs, dtype=x.dtype), P.mul(x.sum(), 0))
    idx = zeros(*x.shape[:2], *outs, dtype=D.int64) if return_indices else None
    if input.ndim == n + 1:
        out = out.squeeze(0)
        idx = idx.squeeze(0) if return_indices else None
    return (out, idx) if return_indices else out


def _adaptive_max(input, output_size, return_indices, n, name):
    outs = check_adaptive(name, input, n, output_size)
    x = _batched(input, n, name)
    sizes = tuple(x.shape[2:])
    if 0 in outs:
        return _empty_pool(input, x, outs, n, return_indices)
    tables, _ = _adaptive_tables(sizes, outs)
    return _window_max(input, n, x, tables, tables, sizes, return_indices)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """msnb implementation of ``torch.nn.functional.adaptive_max_pool1d``."""
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """msnb implementation of ``torch.nn.functional.adaptive_max_pool2d``."""
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """msnb implementation of ``torch.nn.functional.adaptive_max_pool3d``."""
    return _adaptive_max(input, output_size, return_indices, 3, "adaptive_max_pool3d")


def adaptive_avg_pool3d(input, output_size):
    """msnb implementation of ``torch.nn.functional.adaptive_avg_pool3d`` (PyTorch's bins)."""
    return adaptive_avg_nd(input, output_size, 3, "adaptive_avg_pool3d")


def adaptive_avg_nd(input, output_size, n, name):
    """Adaptive average pooling over the last ``n`` dims: each bin's elements gathered, then a
    weighted sum (weights ``1 / bin size``, 0 on the padding of short bins)."""
    outs = check_adaptive(name, input, n, output_size)
    x = _batched(input, n, name)
    sizes = tuple(x.shape[2:])
    if 0 in outs:
        return _empty_pool(input, x, outs, n, False)
    tables, masks = _adaptive_tables(sizes, outs)
    w = np.ones([1, 1] + [t.shape[0] for t in tables] + [t.shape[1] for t in tables])
    for i, m in enumerate(masks):
        shape = [1] * (2 + 2 * n)
        shape[2 + i], shape[2 + n + i] = m.shape
        w = w * m.reshape(shape)
    w = w / np.maximum(w.sum(axis=tuple(range(2 + n, 2 + 2 * n)), keepdims=True), 1)
    w = w.reshape(w.shape[:2 + n] + (-1,))
    out = Rd.sum(P.mul(_gather(x, tables), tensor(w.astype(x.dtype.numpy))), -1)
    return out.squeeze(0) if input.ndim == n + 1 else out


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """msnb implementation of ``torch.nn.functional.lp_pool3d``: ``(sum x^p)^(1/p)`` per window."""
    # PyTorch unpacks a kernel tuple in Python: one of another length is its ValueError
    kd, kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 3
    ks = check_pool("lp_pool3d", input, 3, (kd, kh, kw), stride, 0, 1, ceil_mode)[0]
    out = avg_pool3d(P.pow(input, norm_type), ks, stride, 0, ceil_mode)
    area = ks[0] * ks[1] * ks[2]
    return P.pow(P.mul(P.mul(P.sign(out), _F().relu(P.abs(out))), area), 1.0 / norm_type)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """msnb implementation of ``torch.nn.functional.local_response_norm``: each channel divided by
    ``(k + alpha * mean of x^2 over size neighbouring channels)^beta``."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input.clone()
    C = input.shape[1]
    sq = P.mul(input, input)
    pads = [(size // 2, (size - 1) // 2)]
    x = sq.reshape(input.shape[0], C, -1)  # (N, C, rest): windows along C
    xp = _F().pad(x.transpose(1, 2), (pads[0][0], pads[0][1]))  # (N, rest, C + size - 1)
    table = np.arange(C)[:, None] + np.arange(size)[None, :]
    div = Rd.sum(xp.index_select(2, tensor(table.reshape(-1))).reshape(*xp.shape[:2], C, size), -1)
    div = P.div(div, size).transpose(1, 2).reshape(input.shape)
    return P.div(input, P.pow(P.add(P.mul(div, alpha), k), beta))


def _unfold_tables(sizes, ks, dl, pd, st):
    tables = []
    for L, k, d, p, s in zip(sizes, ks, dl, pd, st):
        out = (L + 2 * p - d * (k - 1) - 1) // s + 1
        if out <= 0:
            raise RuntimeError(f"Given input with spatial size {tuple(sizes)}, kernel_size={ks}, dilation={dl}, "
                               f"padding={pd}, calculated shape of the array of sliding blocks is non-positive")
        tables.append(np.arange(out)[:, None] * s + np.arange(k)[None, :] * d)
    return tables


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """msnb implementation of ``torch.nn.functional.unfold`` (im2col): ``(N, C * kh * kw, L)``."""
    if input.ndim not in (3, 4):
        raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported (got "
                                  f"{input.ndim}D)")
    ks, dl, pd, st = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    x = input if input.ndim == 4 else input.unsqueeze(0)
    tables = _unfold_tables(tuple(x.shape[2:]), ks, dl, pd, st)
    cols = _gather(_pad_spatial(x, [(p, p) for p in pd], 0.0), tables)  # (N, C, oh, ow, kh*kw)
    N, C = x.shape[:2]
    L = tables[0].shape[0] * tables[1].shape[0]
    out = cols.reshape(N, C, L, ks[0] * ks[1]).permute(0, 1, 3, 2).reshape(N, C * ks[0] * ks[1], L)
    return out if input.ndim == 4 else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """msnb implementation of ``torch.nn.functional.fold`` (col2im): overlapping blocks are summed."""
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.ndim}D)")
    os_, ks, dl, pd, st = (_tuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    x = input if input.ndim == 3 else input.unsqueeze(0)
    N, CK, L = x.shape
    K = ks[0] * ks[1]
    if CK % K:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={CK} and kernel_size={ks}")
    tables = _unfold_tables(os_, ks, dl, pd, st)
    padded = [o + 2 * p for o, p in zip(os_, pd)]
    if tables[0].shape[0] * tables[1].shape[0] != L:
        raise RuntimeError(f"Given output_size={os_}, kernel_size={ks}, dilation={dl}, padding={pd}, "
                           f"stride={st}, expected size of input's dimension 2 to match the calculated number "
                           f"of sliding blocks, but got input.size(2)={L}")
    C = CK // K
    flat = _flat_index(tables, padded)  # (oh, ow, K) positions in the padded image
    idx = tensor(np.ascontiguousarray(np.moveaxis(flat.reshape(L, K), 0, 1)).reshape(-1))  # (K * L) in (k, l) order
    from .._ops import indexing as I
    from .._ops.creation import zeros
    src = x.reshape(N, C, K * L)
    out = I.index_add(zeros(N, C, padded[0] * padded[1], dtype=x.dtype), 2, idx, src)
    out = out.reshape(N, C, *padded)[:, :, pd[0]:pd[0] + os_[0], pd[1]:pd[1] + os_[1]]
    return out if input.ndim == 3 else out.squeeze(0)



def _pad_positions(n, before, after, mode):
    """Input positions that make up one padded dimension of size ``n + before + after`` (a negative
    ``before`` / ``after`` drops positions from that side)."""
    j = np.arange(-before, n + after)
    if mode == "reflect":
        if max(before, 0) >= n or max(after, 0) >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({before}, {after}) at dimension of input {n}")
        period = 2 * (n - 1)
        j = np.abs(j) % period if period else np.zeros_like(j)
        return np.where(j >= n, period - j, j)
    if mode == "replicate":
        if n == 0:
            raise RuntimeError("padding of an empty dimension in replicate mode")
        return np.clip(j, 0, n - 1)
    if before > n or after > n:
        raise RuntimeError("Padding value causes wrapping around more than once.")
    return j % n


def pad_by_index(input, pad, mode):
    """``reflect`` / ``replicate`` / ``circular`` padding as one ``index_select`` per padded
    dimension (a negative pad crops that side: first, in PyTorch's circular mode)."""
    x = input
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before == 0 and after == 0:
            continue
        if mode == "circular" and (before < 0 or after < 0):  # crop first; padding wraps the cropped part
            start = max(-before, 0)
            x = x.narrow(d, start, x.shape[d] - start - max(-after, 0))
            before, after = max(before, 0), max(after, 0)
        pos = _pad_positions(x.shape[d], before, after, mode)
        x = x.index_select(d, tensor(pos.astype(np.int64)))
    return x


def _dilate_zeros(x, d, s):
    """Insert ``s - 1`` zeros between the elements of dim ``d``."""
    if s == 1 or x.shape[d] == 0:
        return x
    from .._ops import shape as S
    from .._ops.creation import zeros
    L = x.shape[d]
    u = x.unsqueeze(d + 1)
    zshape = list(u.shape)
    zshape[d + 1] = s - 1
    u = S.cat([u, zeros(*zshape, dtype=x.dtype)], d + 1)
    return u.reshape(*x.shape[:d], L * s, *x.shape[d + 1:]).narrow(d, 0, (L - 1) * s + 1)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """msnb implementation of ``torch.nn.functional.conv_transpose3d``: the stride becomes zeros
    between input elements, then a stride-1 ``conv3d`` with the flipped, transposed filter."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, n):
    """A transposed convolution over ``n`` trailing dims as a stride-1 ``conv{n}d`` of the input with
    zeros between its elements and the flipped, transposed filter (any dtype ``conv{n}d`` takes)."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv_transpose{n}d, "
                           f"but got input of size: {list(input.shape)}")
    st, pd, op, dl = (_tuple(v, n) for v in (stride, padding, output_padding, dilation))
    for o, s, d in zip(op, st, dl):
        if o >= s and o >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation")
    x = input if input.ndim == n + 2 else input.unsqueeze(0)
    for i in range(n):
        x = _dilate_zeros(x, 2 + i, st[i])
    flat = []
    for i in reversed(range(n)):
        edge = dl[i] * (weight.shape[2 + i] - 1) - pd[i]
        flat += [edge, edge + op[i]]
    x = _F().pad(x, tuple(flat))
    cin, cout_g = weight.shape[:2]
    w = weight.flip(list(range(2, 2 + n)))
    w = w.reshape(groups, cin // groups, cout_g, *weight.shape[2:]).transpose(1, 2)
    w = w.reshape(groups * cout_g, cin // groups, *weight.shape[2:])
    out = getattr(_F(), f"conv{n}d")(x, w, bias, 1, 0, dl, groups)
    return out if input.ndim == n + 2 else out.squeeze(0)


def conv_windows(x, weight, stride, pads, dilation, groups):
    """Convolution of batched ``x`` (N, C, *spatial) over ``len(pads)`` dims for dtypes MindSpore 2.10
    has no CPU convolution kernel for (int64, and float64 in 3-d): every window gathered by index
    tables, then one batched matmul per group.  Exact for integers (int64 products and sums, wrapping
    as PyTorch's); gradients through the gather and the matmul."""
    n = len(pads)
    xp = _pad_spatial(x, pads, 0 if not x.dtype.is_floating_point else 0.0)
    tables = []
    for i in range(n):
        L, k, s, d = xp.shape[2 + i], weight.shape[2 + i], stride[i], dilation[i]
        out = (L - d * (k - 1) - 1) // s + 1
        if out <= 0:
            raise RuntimeError(f"Calculated output size is too small for input of size {list(x.shape)}")
        tables.append(np.arange(out)[:, None] * s + np.arange(k)[None, :] * d)
    win = _gather(xp, tables)  # (N, C, *out, K)
    N, C = win.shape[:2]
    outs, K = tuple(win.shape[2:-1]), win.shape[-1]
    cg, og = C // groups, weight.shape[0] // groups
    cols = win.reshape(N, groups, cg, -1, K).permute(0, 1, 3, 2, 4).reshape(N, groups, -1, cg * K)
    w = weight.reshape(groups, og, cg * K).transpose(1, 2)  # (G, cg*K, og)
    res = cols.matmul(w)  # (N, G, P, og)
    return res.permute(0, 1, 3, 2).reshape(N, groups * og, *outs)
