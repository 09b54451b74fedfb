"""msnb implementation of ``torch.nn.functional``.

Three kinds of function live here:

* one MindSpore kernel with a hand-written backward made of adapter ops
  (``linear``, ``softmax``, ``log_softmax``, ``max_pool2d``): one kernel
  forward, a few backward, and higher-order gradients work;
* one MindSpore kernel whose gradient comes from MindSpore's own
  differentiation of that kernel (``mindspore.ops.vjp``; convolutions,
  ``avg_pool2d``, non-constant ``pad``), so msnb never re-derives those rules;
* compositions of adapter ops (losses, normalisation, attention,
  ``interpolate``), whose gradients come from those ops.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import _core, _dtype as D
from .._core import K, cast, ms, needs_grad, record, wrap
from .._ops import indexing as I, pointwise as P, reduction as Rd, shape as S
from .._ops.creation import _finish, zeros
from ..autograd.graph import name_node
from .._ops import conv as _conv
from .._ops import sampling as _sampling
from .._ops.random import _feedable, gen as _gen
from ..autograd.grad_mode import no_grad
from ._pool_check import check_adaptive, check_pool

__all__ = ["linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "relu", "relu_", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "sigmoid",
           "tanh", "softplus", "softsign", "tanhshrink", "hardshrink", "softshrink", "hardtanh", "prelu",
           "softmax", "log_softmax", "softmin", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
           "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "batch_norm", "layer_norm",
           "group_norm", "rms_norm", "embedding", "one_hot", "pad", "normalize", "cosine_similarity",
           "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "logsigmoid", "hardsigmoid", "hardswish",
           "glu", "threshold", "interpolate", "scaled_dot_product_attention", "multi_head_attention_forward"]


def _ntuple(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


def _pair(x, n=2):
    if isinstance(x, (tuple, list)) and len(x) == 1:  # PyTorch reads (k,) as k in every dimension
        x = x[0]
    return _ntuple(x, n)


def _vjp_op(name, fn, *tensors):
    """Run ``fn`` (MindSpore kernels) on ``tensors``; gradient from MindSpore's vjp."""
    if needs_grad(*tensors):
        out, vjp_fn = ms.ops.vjp(fn, *tensors)
        res = wrap(out)

        def bw(g):
            grads = vjp_fn(g)
            if not isinstance(grads, tuple):
                grads = (grads,)
            return tuple(wrap(x) if x is not None else None for x in grads)
        record(name, res, tensors, bw)
        return res
    return wrap(fn(*tensors))


def _dtype_name(d):
    return repr(d).split(".")[-1].capitalize()


# --- multi-output pieces for layers (one recorded node each) ---------------------------
# ``Tensor`` slicing records a view whose backward writes into zeros with
# MindSpore's slow ``__setitem__``; the layers below split gate blocks and time
# steps with these copies instead, whose backward is one ``cat`` / ``stack``.

def _pieces_backward(shapes, dtype, join):
    def bw(*gs):
        return (join([g if g is not None else zeros(*s, dtype=dtype) for g, s in zip(gs, shapes)]),)
    return bw


def _split(x, sizes, dim=-1):
    """``torch.split(x, sizes, dim)`` as copies, one kernel forward and one backward."""
    d = _core.wrap_dim(dim, x.ndim)
    outs = tuple(wrap(o) for o in K.split(x, list(sizes), d))
    if needs_grad(x):
        record("SplitWithSizesBackward0", outs, (x,),
               _pieces_backward([tuple(o.shape) for o in outs], x.dtype, lambda gs: _cat(gs, d)))
    return outs


def _cat(tensors, dim):
    return S.cat(list(tensors), dim)


def _unbind(x, dim=0):
    """``torch.unbind(x, dim)`` as copies, one kernel forward and one backward."""
    d = _core.wrap_dim(dim, x.ndim)
    outs = tuple(wrap(o) for o in K.unstack(x, d))
    if needs_grad(x):
        record("UnbindBackward0", outs, (x,),
               _pieces_backward([tuple(o.shape) for o in outs], x.dtype, lambda gs: _stack(gs, d)))
    return outs


def _stack(tensors, dim=0):
    """``torch.stack`` as one kernel; backward is one ``unstack``."""
    tensors = list(tensors)
    d = dim % (tensors[0].ndim + 1)
    out = wrap(K.stack(tensors, d))
    if needs_grad(*tensors):
        record("StackBackward0", out, tuple(tensors), lambda g: _unbind(g, d))
    return out


# --- linear ---------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """msnb implementation of ``torch.nn.functional.linear``: one MindSpore ``dense``
    kernel forward; backward is two matmuls and a sum (adapter ops)."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if weight.ndim != 2:
        out = input.matmul(weight.t())
        return out + bias if bias is not None else out
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_name(input.dtype)} and "
                           f"{_dtype_name(weight.dtype)}")
    if input.shape[-1] != weight.shape[1]:
        rows = input.numel() // max(input.shape[-1], 1) if input.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{weight.shape[1]}x{weight.shape[0]})")
    if bias is not None and bias.ndim == 1 and bias.shape[0] not in (1, weight.shape[0]):
        # MindSpore's dense kernel would accept it and fail at the next op (asynchronously)
        raise RuntimeError(f"The expanded size of the tensor ({weight.shape[0]}) must match the existing size "
                           f"({bias.shape[0]}) at non-singleton dimension 1: linear's bias has the wrong length")
    if bias is not None and bias.ndim == 1 and bias.shape[0] != weight.shape[0]:
        bias = bias.expand(weight.shape[0])  # a one-element bias broadcasts (its gradient sums back)
    out = wrap(K.dense(input, weight, bias))
    if needs_grad(input, weight, bias):
        O, In = weight.shape

        def bw(g):
            gx = g.matmul(weight) if input.requires_grad else None
            # (a 2-D operand is used as it is: a reshape to its own shape still launches a kernel)
            g2 = g if g.ndim == 2 else g.reshape(-1, O)
            gw = None
            if weight.requires_grad:
                x2 = input if input.ndim == 2 else input.reshape(-1, In)
                if not _core.STATE.enabled and g2.dtype is D.float32 and x2.dtype is D.float32 and g2.shape[0]:
                    # g2.T @ x2 as one MatMul(transpose_a) (no recorded graph to keep differentiable):
                    # no transposed copy of g2, the same values bit for bit, ~30% less CPU
                    gw = _core.meta(wrap(K.matmul_tn(g2, x2)), D.float32, (O, In))
                else:
                    gw = g2.t().matmul(x2)
            gb = g2.sum(0) if bias is not None and bias.requires_grad else None
            return gx, gw, gb
        record(_linear_name(input.ndim, bias is not None), out, (input, weight, bias), bw, saved=(input, weight))
    return out


def _linear_name(ndim, has_bias):
    """PyTorch's node for ``linear`` by input rank: addmm or mm on a matrix, a view of the folded product above."""
    if ndim == 2:
        return "AddmmBackward0" if has_bias else "MmBackward0"
    return "ViewBackward0" if has_bias else "SqueezeBackward4" if ndim == 1 else "UnsafeViewBackward0"


def bilinear(input1, input2, weight, bias=None):
    """msnb implementation of ``torch.nn.functional.bilinear``: ``x1 W x2`` as one
    matmul against the flattened weight, a product and a sum."""
    O, I1, I2 = weight.shape
    lead = tuple(input1.shape[:-1])
    x1, x2 = input1.reshape(-1, I1), input2.reshape(-1, I2)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(I1, O * I2)).reshape(-1, O, I2)
    out = P.mul(t, x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(*lead, O)


# --- convolution ----------------------------------------------------------------------

def _conv_pads(padding, n, weight, dilation, stride):
    """PyTorch ``padding`` (ints or 'valid'/'same') -> per-dim (before, after) pairs."""
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * n
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}', should be one of ('valid', 'same')")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = []
        for d in range(n):
            total = dilation[d] * (weight.shape[2 + d] - 1)
            pads.append((total // 2, total - total // 2))
        return pads
    return [(p, p) for p in _ntuple(padding, n)]


def _check_conv_args(weight, bias, stride, padding, dilation, groups, n, input=None, what="bias"):
    """PyTorch's argument checks of a (transposed) convolution, made before MindSpore sees the
    call (its own errors are ValueErrors, or none: a zero dilation ran)."""
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if weight.ndim != n + 2:
        if isinstance(padding, str) and input is not None and input.ndim != weight.ndim:
            raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                               f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size "
                               f"{list(input.shape)} instead")
        raise RuntimeError(f"expected stride to be a single integer value or a list of {weight.ndim - 2} values to "
                           f"match the convolution dimensions, but got stride={list(_ntuple(stride, n))}")
    if any(s <= 0 for s in _ntuple(stride, n)):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in _ntuple(padding, n)):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in _ntuple(dilation, n)):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(_ntuple(dilation, n))}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if what == "bias" and weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    if what == "bias" and weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if input is not None and bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype}) and bias type ({bias.dtype}) should be the same")
    if input is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype}) and weight type ({weight.dtype}) should be the same")
    if input is not None and what == "bias" and not isinstance(padding, str) and input.ndim in (n + 1, n + 2):
        padded = [L + 2 * p for L, p in zip(input.shape[-n:], _ntuple(padding, n))]
        eff = [d * (k - 1) + 1 for d, k in zip(_ntuple(dilation, n), weight.shape[2:])]
        if any(p < k for p, k in zip(padded, eff)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input "
                               "size")
    if bias is not None and what == "bias" and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")


def _check_conv_input(input, weight, n, groups):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv{n}d, but got "
                           f"input of size: {list(input.shape)}")
    c = input.shape[-n - 1]
    if c != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape if input.ndim == n + 2 else (1, *input.shape))} to have "
                           f"{weight.shape[1] * groups} channels, but got {c} channels instead")


#: dtypes MindSpore 2.10's CPU Conv2D (and its gradients) take; others are computed by index tables
_CONV_KERNEL_DTYPES = (D.float16, D.float32, D.float64, D.bfloat16)


def _conv_on_windows(input, weight, bias, st, pads, dl, groups, n):
    from ._functional_nd import conv_windows
    if input.dtype != weight.dtype:
        raise RuntimeError(f"Input type ({input.dtype}) and weight type ({weight.dtype}) should be the same")
    x = input if input.ndim == n + 2 else input.unsqueeze(0)
    out = conv_windows(x, weight, st, pads, dl, groups)
    if bias is not None:
        out = out + bias.reshape(1, -1, *([1] * n))
    return out if input.ndim == n + 2 else out.squeeze(0)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """msnb implementation of ``torch.nn.functional.conv2d``."""
    _check_conv_args(weight, bias, stride, padding, dilation, groups, 2, input)
    _check_conv_input(input, weight, 2, groups)
    st, dl = _pair(stride), _pair(dilation)
    pads = _conv_pads(padding, 2, weight, dl, st)
    if input.dtype not in _CONV_KERNEL_DTYPES:
        return _conv_on_windows(input, weight, bias, st, pads, dl, groups, 2)
    if any(p for pr in pads for p in pr):
        mode, pad = "pad", (pads[0][0], pads[0][1], pads[1][0], pads[1][1])
    else:
        mode, pad = "valid", 0
    x = input if input.ndim == 4 else input.unsqueeze(0)
    out = _conv.conv2d(x, weight, mode, pad, st, dl, groups)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out if input.ndim == 4 else out.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """msnb implementation of ``torch.nn.functional.conv1d`` (a conv2d of height 1)."""
    _check_conv_args(weight, bias, stride, padding, dilation, groups, 1, input)
    _check_conv_input(input, weight, 1, groups)
    dl, st = _pair(dilation, 1), _pair(stride, 1)
    (p0, p1), = _conv_pads(padding, 1, weight, dl, st)
    x = input.unsqueeze(-2)
    if p0 != p1:
        x = pad(x, (p0, p1))
        p0 = 0
    out = conv2d(x, weight.unsqueeze(-2), None, (1, st[0]), (0, p0), (1, dl[0]), groups).squeeze(-2)
    return name_node(out + bias.reshape(-1, 1) if bias is not None else out, "ConvolutionBackward0", input, weight)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """msnb implementation of ``torch.nn.functional.conv3d``."""
    _check_conv_args(weight, bias, stride, padding, dilation, groups, 3, input)
    _check_conv_input(input, weight, 3, groups)
    st, dl = _ntuple(stride, 3), _ntuple(dilation, 3)
    pads = _conv_pads(padding, 3, weight, dl, st)
    if input.dtype not in (D.float16, D.float32, D.bfloat16):
        return _conv_on_windows(input, weight, bias, st, pads, dl, groups, 3)
    x = input if input.ndim == 5 else input.unsqueeze(0)
    if any(a != b for a, b in pads):
        x = pad(x, (pads[2][0], pads[2][1], pads[1][0], pads[1][1], pads[0][0], pads[0][1]))
        pads = [(0, 0)] * 3
    if any(a for a, _ in pads):
        mode, pd = "pad", tuple(a for a, _ in pads)
    else:
        mode, pd = "valid", 0
    out = _vjp_op("ConvolutionBackward0", lambda a, w: K.conv3d(a, w, None, st, mode, pd, dl, groups), x, weight)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out if input.ndim == 5 else out.squeeze(0)


@functools.lru_cache(maxsize=64)
def _conv_transpose_prim(cin, kernel, pad, stride, dilation, groups):
    return K.conv2d_transpose_prim(out_channel=cin, kernel_size=kernel, pad_mode="pad",
                                   pad=(pad[0], pad[0], pad[1], pad[1]), stride=stride, dilation=dilation,
                                   group=groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """msnb implementation of ``torch.nn.functional.conv_transpose2d`` (MindSpore's
    Conv2DTranspose kernel; ``weight`` is PyTorch's ``(in, out/groups, kH, kW)``)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input "
                           f"of size: {list(input.shape)}")
    _check_conv_args(weight, None, stride, padding, dilation, groups, 2)
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {weight.shape[1] * groups} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    st, pd, op, dl = _pair(stride), _pair(padding), _pair(output_padding), _pair(dilation)
    for o, s, d in zip(op, st, dl):
        if o >= s and o >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                               f"output_padding_height: {op[0]} output_padding_width: {op[1]} stride_height: "
                               f"{st[0]} stride_width: {st[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}")
    if input.dtype not in (D.float16, D.float32):  # MindSpore's Conv2DTranspose gradients take only these
        from ._functional_nd import conv_transpose_nd
        return conv_transpose_nd(input, weight, bias, st, pd, op, groups, dl, 2)
    x = input if input.ndim == 4 else input.unsqueeze(0)
    N, cin, H, W = x.shape
    kh, kw = weight.shape[2], weight.shape[3]
    size = (N, weight.shape[1] * groups,
            (H - 1) * st[0] - 2 * pd[0] + dl[0] * (kh - 1) + op[0] + 1,
            (W - 1) * st[1] - 2 * pd[1] + dl[1] * (kw - 1) + op[1] + 1)
    prim = _conv_transpose_prim(cin, (kh, kw), pd, st, dl, groups)
    out = _vjp_op("ConvolutionBackward0", lambda a, w: prim(a, w, size), x, weight)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out if input.ndim == 4 else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """msnb implementation of ``torch.nn.functional.conv_transpose1d`` (a height-1 conv_transpose2d)."""
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), None, (1, _pair(stride, 1)[0]),
                           (0, _pair(padding, 1)[0]), (0, _pair(output_padding, 1)[0]), groups,
                           (1, _pair(dilation, 1)[0])).squeeze(-2)
    return out + bias.reshape(-1, 1) if bias is not None else out


# --- pooling ----------------------------------------------------------------------------

def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """msnb implementation of ``torch.nn.functional.max_pool2d``: one MindSpore kernel
    that also returns the argmax indices (PyTorch's flat ``h * W + w``); backward
    scatters the gradient to those indices."""
    ks, st, pd, dl, _ = check_pool("max_pool2d", input, 2, kernel_size, stride, padding, dilation, ceil_mode)
    x = input if input.ndim == 4 else input.unsqueeze(0)
    if x.dtype.is_floating_point and x.numel():
        # MindSpore's kernel starts each window at the lowest number and skips NaN: a window of
        # -inf gave -3.4e38, NaN was passed over.  It pools x with NaN as +inf (and +inf as the
        # largest number, so that a NaN beats it), and the values are read back from x at the
        # winners' indices (PyTorch's NaN, or -inf)
        with no_grad():
            top = P.minimum(x, float(np.finfo(x.dtype.numpy).max))
            o, i = K.max_pool2d(P.where(P.isnan(x), math.inf, top), ks, st, pd, dl, True, ceil_mode)
            idx = wrap(i)
            n, c = x.shape[0], x.shape[1]
            out = I.gather(x.reshape(n, c, -1), 2, idx.reshape(n, c, -1)).reshape(tuple(idx.shape))
    else:
        o, i = K.max_pool2d(x, ks, st, pd, dl, True, ceil_mode)
        out, idx = wrap(o), wrap(i)
    if needs_grad(x):
        shp = tuple(x.shape)

        def bw(g):
            flat = zeros(shp[0], shp[1], shp[2] * shp[3], dtype=g.dtype)
            return (I.scatter_add(flat, 2, idx.reshape(shp[0], shp[1], -1), g.reshape(shp[0], shp[1], -1))
                    .reshape(shp),)
        record("MaxPool2DWithIndicesBackward0", out, (x,), bw)
    if input.ndim != 4:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """msnb implementation of ``torch.nn.functional.max_pool1d`` (a height-1 max_pool2d)."""
    ks, st, pd, dl, _ = check_pool("max_pool1d", input, 1, kernel_size, stride, padding, dilation, ceil_mode)
    res = max_pool2d(input.unsqueeze(-2), (1, ks[0]), (1, st[0]), (0, pd[0]), (1, dl[0]), ceil_mode,
                     return_indices)
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """msnb implementation of ``torch.nn.functional.avg_pool2d``."""
    ks, st, pd, _, _ = check_pool("avg_pool2d", input, 2, kernel_size, stride, padding, 1, ceil_mode,
                                  divisor_override)
    if input.dtype not in (D.float16, D.float32) or input.numel() == 0:
        # MindSpore's backward kernel takes only these dtypes, and its kernel refuses an empty batch
        from ._functional_nd import avg_pool_nd
        return avg_pool_nd(input, 2, ks, st, pd, ceil_mode, count_include_pad, divisor_override, "avg_pool2d")
    pd = (pd[0], pd[0], pd[1], pd[1])
    x = input if input.ndim == 4 else input.unsqueeze(0)
    # with a divisor_override, count_include_pad changes nothing forward, but MindSpore's
    # backward with count_include_pad=False ignores the override: ask for the equivalent form
    cip = count_include_pad or bool(divisor_override)
    out = _vjp_op("AvgPool2DBackward0",
                  lambda a: K.avg_pool2d(a, ks, st, pd, ceil_mode, cip, divisor_override or 0), x)
    return out if input.ndim == 4 else out.squeeze(0)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """msnb implementation of ``torch.nn.functional.avg_pool1d`` (a height-1 avg_pool2d)."""
    ks, st, pd, _, _ = check_pool("avg_pool1d", input, 1, kernel_size, stride, padding, 1, ceil_mode)
    return avg_pool2d(input.unsqueeze(-2), (1, ks[0]), (1, st[0]), (0, pd[0]), ceil_mode,
                      count_include_pad).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """msnb implementation of ``torch.nn.functional.adaptive_avg_pool2d`` (PyTorch's bin edges)."""
    oh, ow = check_adaptive("adaptive_avg_pool2d", input, 2, output_size)
    H, W = input.shape[-2], input.shape[-1]
    if oh == 0 or ow == 0:  # an empty result (PyTorch allows a zero output size): the bin-table path
        from ._functional_nd import adaptive_avg_nd
        return adaptive_avg_nd(input, (oh, ow), 2, "adaptive_avg_pool2d")
    if H % oh == 0 and W % ow == 0:
        x = input.reshape(*input.shape[:-2], oh, H // oh, ow, W // ow)
        return x.mean(dim=(-3, -1))
    rows = []
    for i in range(oh):
        h0, h1 = (i * H) // oh, -(-((i + 1) * H) // oh)
        cols = []
        for j in range(ow):
            w0, w1 = (j * W) // ow, -(-((j + 1) * W) // ow)
            cols.append(input[..., h0:h1, w0:w1].mean(dim=(-2, -1)))
        rows.append(S.stack(cols, -1))
    return S.stack(rows, -2)


def adaptive_avg_pool1d(input, output_size):
    """msnb implementation of ``torch.nn.functional.adaptive_avg_pool1d``."""
    from ._functional_nd import adaptive_avg_nd
    return adaptive_avg_nd(input, output_size, 1, "adaptive_avg_pool1d")


# --- activations ----------------------------------------------------------------------

def _grad_fn_name(name):
    """Name the node of a composite op's result as PyTorch names its fused op's (``print(loss)`` shows
    ``grad_fn=<NllLossBackward0>``); ``name`` is a string or ``f(args, kwargs)`` giving one (None: keep).
    Only a node the call itself made is renamed: one an argument already carries is left alone."""
    def wrap_fn(fn):
        @functools.wraps(fn)
        def named(*args, **kwargs):
            before = [getattr(a, "_grad_fn", None) for a in (*args, *kwargs.values())]
            out = fn(*args, **kwargs)
            node = getattr(out, "_grad_fn", None)
            if node is not None and not any(b is node for b in before):
                n = name if isinstance(name, str) else name(args, kwargs)
                if n is not None:
                    node._name = n
            return out
        return named
    return wrap_fn


def _inplace_suffix(base, pos):
    """``base + "1"`` for the in-place form (``inplace`` positional at ``pos`` or keyword), else ``base + "0"``."""
    return lambda args, kwargs: base + ("1" if kwargs.get("inplace", len(args) > pos and args[pos]) else "0")


def _maybe_inplace(input, out, inplace):
    return input.copy_(out) if inplace else out


def relu(input, inplace=False):
    """msnb implementation of ``torch.nn.functional.relu``."""
    return input.relu_() if inplace else P.relu(input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


@_grad_fn_name("HardtanhBackward0")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not input.dtype.is_floating_point and not input.dtype.is_complex:  # bounds cast to the integer dtype
        min_val, max_val = int(min_val), int(max_val)
    with no_grad():
        out = P.clamp(input, min_val, max_val)
    if needs_grad(input):
        # PyTorch's mask leaves the bounds out, and a NaN in: the gradient of relu6 at 0 is 0 (the
        # mask is taken now, before an in-place update overwrites the input)
        with no_grad():
            stop = P.logical_or(P.le(input, min_val), P.ge(input, max_val))
        record("HardtanhBackward0", out, (input,), lambda g: (P.where(stop, 0.0, g),))
    return _maybe_inplace(input, out, inplace)


@_grad_fn_name("ThresholdBackward0")
def threshold(input, threshold, value, inplace=False):
    """``value`` where ``input <= threshold``, else ``input`` (a NaN stays, as in PyTorch)."""
    return _maybe_inplace(input, P.where(P.le(input, threshold), value, input), inplace)


@_grad_fn_name(_inplace_suffix("LeakyReluBackward", 2))
def leaky_relu(input, negative_slope=0.01, inplace=False):
    out = P.where(P.gt(input, 0), input, P.mul(input, negative_slope))
    return _maybe_inplace(input, out, inplace)


@_grad_fn_name(_inplace_suffix("EluBackward", 2))
def elu(input, alpha=1.0, inplace=False):
    out = P.where(P.gt(input, 0), input, P.mul(P.expm1(P.clamp(input, max=0.0)), alpha))
    return _maybe_inplace(input, out, inplace)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    return _maybe_inplace(input, P.mul(elu(input, _SELU_ALPHA), _SELU_SCALE), inplace)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    out = P.where(P.gt(input, 0), input, P.mul(P.expm1(P.div(P.clamp(input, max=0.0), alpha)), alpha))
    return _maybe_inplace(input, out, inplace)


def prelu(input, weight):
    """msnb implementation of ``torch.nn.functional.prelu`` (``weight`` per channel, dim 1)."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    channels = 1 if input.ndim < 2 else input.shape[1]
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    w = weight
    if weight.numel() == 1 and input.ndim == 0:
        w = weight.reshape(())
    elif weight.numel() != 1:
        shape = [1] * input.ndim
        shape[1 if input.ndim > 1 else 0] = -1
        w = weight.reshape(shape)
    return P.where(P.gt(input, 0), input, P.mul(input, w))


@_grad_fn_name("GeluBackward0")
def gelu(input, approximate="none"):
    """msnb implementation of ``torch.nn.functional.gelu`` (exact erf form or tanh approximation)."""
    if approximate == "tanh":
        inner = P.mul(P.add(input, P.mul(P.pow(input, 3), 0.044715)), math.sqrt(2 / math.pi))
        return P.mul(P.mul(input, 0.5), P.add(P.tanh(inner), 1))
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return P.mul(P.mul(input, 0.5), P.add(P.erf(P.mul(input, 1 / math.sqrt(2.0))), 1))


@_grad_fn_name("SiluBackward0")
def silu(input, inplace=False):
    return _maybe_inplace(input, P.mul(input, P.sigmoid(input)), inplace)


@_grad_fn_name("MishBackward0")
def mish(input, inplace=False):
    return _maybe_inplace(input, P.mul(input, P.tanh(softplus(input))), inplace)


def sigmoid(input):
    return P.sigmoid(input)


def tanh(input):
    return P.tanh(input)


def logsigmoid(input):
    return P.neg(softplus(P.neg(input)))


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(input, P.div(P.clamp(P.add(input, 3), 0.0, 6.0), 6), inplace)


@_grad_fn_name("HardswishBackward0")
def hardswish(input, inplace=False):
    return _maybe_inplace(input, P.mul(input, P.div(P.clamp(P.add(input, 3), 0.0, 6.0), 6)), inplace)


def softsign(input):
    return P.div(input, P.add(P.abs(input), 1))


def tanhshrink(input):
    return P.sub(input, P.tanh(input))


@_grad_fn_name("HardshrinkBackward0")
def hardshrink(input, lambd=0.5):
    """0 inside ``[-lambd, lambd]``, else ``input`` (a NaN stays, as in PyTorch)."""
    return P.where(P.logical_and(P.ge(input, -lambd), P.le(input, lambd)), 0.0, input)


@_grad_fn_name("SoftshrinkBackward0")
def softshrink(input, lambd=0.5):
    """msnb implementation of ``torch.nn.functional.softshrink`` (a negative ``lambd`` is PyTorch's error)."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, inf) for input dtype {input.dtype}, but found {lambd}")
    # inside [-lambd, lambd] 0, else input moved lambd towards 0; a NaN stays NaN and, as in PyTorch,
    # passes the gradient
    inside = P.logical_and(P.ge(input, -lambd), P.le(input, lambd))
    return P.where(inside, 0.0, P.sub(input, P.where(P.lt(input, 0), -lambd, lambd)))


@_grad_fn_name("GluBackward0")
def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} is size "
                           f"{input.shape[dim]}")
    h = input.shape[dim] // 2
    a, b = _split(input, [h, h], dim)  # one split kernel, backward one cat (also for empty inputs)
    return P.mul(a, P.sigmoid(b))


@_grad_fn_name("SoftplusBackward0")
def softplus(input, beta=1.0, threshold=20.0):
    scaled = P.mul(input, beta)
    soft = P.div(P.log1p(P.exp(P.clamp(scaled, max=threshold))), beta)
    return P.where(P.gt(scaled, threshold), input, soft)


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """msnb implementation of ``torch.nn.functional.softmax``: one kernel; backward
    ``y * (g - sum(g * y))``."""
    x = input if dtype is None else cast(input, dtype)
    if dim is None:
        dim = _softmax_dim(x.ndim)
    if x.ndim == 0:
        return P.div(x, x)
    d = _core.wrap_dim(dim, x.ndim)
    y = wrap(K.softmax(x, d))
    if needs_grad(x):
        record("SoftmaxBackward0", y, (x,), lambda g: (P.mul(y, P.sub(g, Rd.sum(P.mul(g, y), d, keepdim=True))),),
               saved=(y,))
    return y


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(P.neg(input), dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """msnb implementation of ``torch.nn.functional.log_softmax``: ``x - max - log(sum(exp))``
    forward; one recorded backward ``g - exp(y) * sum(g)``."""
    x = input if dtype is None else cast(input, dtype)
    if dim is None:
        dim = _softmax_dim(x.ndim)
    if x.ndim == 0:
        return P.sub(x, x)
    d = _core.wrap_dim(dim, x.ndim)
    # composed from max/exp/sum/log: MindSpore's CPU LogSoftmax kernel is ~5e-6 off
    sh = K.sub(x, K.amax(x, d, True))
    y = wrap(K.sub(sh, K.log(K.sum(K.exp(sh), d, True))))
    if needs_grad(x):
        record("LogSoftmaxBackward0", y, (x,), lambda g: (P.sub(g, P.mul(P.exp(y), Rd.sum(g, d, keepdim=True))),),
               saved=(y,))
    return y


# --- dropout ----------------------------------------------------------------------------

def _check_p(p):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_mask(input, p, shape):
    return _keep_mask(input.dtype, p, shape)


def _noise(p, shape):
    """PyTorch's dropout noise: ``bernoulli_(1 - p)`` (a double uniform per element)."""
    n = int(np.prod(shape, dtype=np.int64))
    return _sampling.bernoulli_scalar(_gen(None), n, 1 - p).reshape(shape)


@_feedable
def _keep_mask(dtype, p, shape):
    """Dropout's scaled keep-mask, ``noise / (1 - p)`` in the input's dtype (a sampler
    graph mode can feed to a compiled graph)."""
    st = np.float64 if dtype.numpy == np.float64 else np.float32
    keep = _noise(p, shape).astype(st) / st(1 - p)
    return _finish(keep.astype(dtype.numpy), dtype)


#: PyTorch's alpha for AlphaDropout: -selu_scale * selu_alpha
_ALPHA_DROPOUT = 1.7580993408473766


@_feedable
def _alpha_masks(dtype, p, shape):
    """AlphaDropout's multiplier ``a * noise`` and offset ``(noise - 1) * alpha * a + alpha * a * p``."""
    st = np.float64 if dtype.numpy == np.float64 else np.float32
    noise = _noise(p, shape).astype(st)
    a = 1.0 / np.sqrt((_ALPHA_DROPOUT * _ALPHA_DROPOUT * p + 1) * (1 - p))
    b = (noise - st(1)) * st(_ALPHA_DROPOUT * a) + st(_ALPHA_DROPOUT * a * p)
    return _finish((noise * st(a)).astype(dtype.numpy), dtype), _finish(b.astype(dtype.numpy), dtype)


def _alpha(input, p, training, inplace, feature):
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return _maybe_inplace(input, P.mul(input, 0.0), inplace)
    shape = tuple(input.shape)
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (input.ndim - 2)
    mul, add = _alpha_masks(input.dtype, p, shape)
    return _maybe_inplace(input, P.add(P.mul(input, mul), add), inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """msnb implementation of ``torch.nn.functional.alpha_dropout`` (PyTorch's mask)."""
    return _alpha(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """msnb implementation of ``torch.nn.functional.feature_alpha_dropout``."""
    return _alpha(input, p, training, inplace, True)


def dropout(input, p=0.5, training=True, inplace=False):
    """msnb implementation of ``torch.nn.functional.dropout`` (mask from the adapter's generator)."""
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return _maybe_inplace(input, P.mul(input, 0.0), inplace)
    out = P.mul(input, _dropout_mask(input, p, tuple(input.shape)))
    return _maybe_inplace(input, out, inplace)


def _feature_dropout(input, p, training, inplace, n, name):
    """PyTorch's channel dropout: dropout1d refuses other ranks; dropout2d and
    dropout3d warn and go on (PyTorch's deprecated behaviour: dropout2d treats
    every input as (N, C, ...), dropout3d adds a batch dimension to all but 5-D
    input)."""
    _check_p(p)
    nd = input.ndim
    if nd not in (n + 1, n + 2):
        if n == 1:
            raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D input, but received a {nd}D input.")
        import warnings
        warnings.warn(f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an "
                      f"error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead.", stacklevel=3)
    if nd < 2 and not (n != 2 and nd == 1):
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0:
        return input
    if p == 1:
        return _maybe_inplace(input, P.mul(input, 0.0), inplace)
    if n != 2 and nd != n + 2:  # unbatched: PyTorch adds a batch dimension of 1
        shape = (input.shape[0],) + (1,) * (nd - 1)
    else:  # one draw per (sample, channel); dropout2d treats every input as (N, C, ...) as PyTorch does
        shape = tuple(input.shape[:2]) + (1,) * (nd - 2)
    return _maybe_inplace(input, P.mul(input, _dropout_mask(input, p, shape)), inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """msnb implementation of ``torch.nn.functional.dropout1d``: zeroes whole channels."""
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """msnb implementation of ``torch.nn.functional.dropout2d``: zeroes whole channels."""
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """msnb implementation of ``torch.nn.functional.dropout3d``: zeroes whole channels."""
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d")


# --- losses -------------------------------------------------------------------------------

def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _nll_name(args, kwargs):
    inp = args[0] if args else kwargs.get("input")
    return "NllLoss2DBackward0" if getattr(inp, "ndim", 0) == 4 else "NllLossBackward0" \
        if getattr(inp, "ndim", 0) <= 2 else None


def _ce_name(args, kwargs):
    """Class-index targets without label smoothing: PyTorch's cross_entropy ends in nll_loss."""
    target = args[1] if len(args) > 1 else kwargs.get("target")
    smoothing = args[7] if len(args) > 7 else kwargs.get("label_smoothing", 0.0)
    if smoothing or getattr(target, "dtype", None) is None or target.dtype.is_floating_point:
        return None
    return _nll_name(args, kwargs)


@_grad_fn_name(_nll_name)
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """msnb implementation of ``torch.nn.functional.nll_loss``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.dtype not in (D.int64, D.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {D._name_of(target.dtype)}")
    out_shape = tuple(target.shape)
    if input.ndim == 1:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    if input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    C = input.shape[1]
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_dtype_name(input.dtype)} but found {_dtype_name(weight.dtype)}")
    if input.ndim > 2 and tuple(target.shape) != (input.shape[0], *input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0], *input.shape[2:]]}, got {list(target.shape)}")
    if input.ndim > 2:  # (N, C, d1, ...) -> (N*d, C)
        perm = [0] + list(range(2, input.ndim)) + [1]
        input = input.permute(tuple(perm)).reshape(-1, C)
        target = target.reshape(-1)
    tgt = cast(target, D.int64)
    valid = P.ne(tgt, ignore_index)
    safe = P.where(valid, tgt, 0)
    try:
        picked = P.neg(input.gather(1, safe.unsqueeze(1)).squeeze(1))
    except RuntimeError as e:  # gather's bounds check: a class index outside [0, C) is PyTorch's IndexError
        if "out of bounds" not in str(e):
            raise
        raise IndexError(f"Target {str(e).split()[1]} is out of bounds.") from None
    w = cast(valid, input.dtype)
    if weight is not None:
        w = P.mul(w, weight.index_select(0, safe))
    loss = P.mul(picked, w)
    if reduction == "mean":
        return P.div(loss.sum(), w.sum())
    if reduction == "none":
        return loss.reshape(out_shape)
    return _reduce(loss, reduction)


@_grad_fn_name(_ce_name)
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """msnb implementation of ``torch.nn.functional.cross_entropy``: class indices or
    probabilities, ``weight``, ``ignore_index``, ``label_smoothing``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, class_dim)
    C = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != C):
        raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    if not target.dtype.is_floating_point and tuple(target.shape) == tuple(input.shape) and input.ndim > 0:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{_dtype_name(target.dtype)}")
    if target.dtype.is_floating_point and ignore_index != -100:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if target.dtype.is_floating_point:  # probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        tgt = target
        if label_smoothing:
            tgt = P.add(P.mul(tgt, 1 - label_smoothing), label_smoothing / C)
        prod = P.mul(logp, tgt)
        if weight is not None:
            shape = [1] * input.ndim
            shape[class_dim] = C
            prod = P.mul(prod, weight.reshape(shape))
        loss = P.neg(prod.sum(class_dim))
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    lp = logp if logp.ndim <= 2 else logp.permute(0, *range(2, logp.ndim), 1).reshape(-1, C)
    tgt = target.reshape(-1) if logp.ndim > 2 else (target if target.ndim else target.unsqueeze(0))
    lp = lp if lp.ndim == 2 else lp.unsqueeze(0)
    valid = cast(P.ne(tgt, ignore_index), lp.dtype)
    if weight is not None:
        smooth = P.neg(P.mul(lp, weight.reshape(1, -1)).sum(1))
    else:
        smooth = P.neg(lp.sum(1))
    smooth = P.mul(smooth, valid)
    if reduction == "mean":
        if weight is not None:
            safe = P.where(P.ne(tgt, ignore_index), tgt, 0)
            denom = P.mul(weight.index_select(0, safe), valid).sum()
        else:
            denom = valid.sum()
        smooth = P.div(smooth.sum(), denom)
    elif reduction == "sum":
        smooth = smooth.sum()
    else:
        smooth = smooth.reshape(tuple(target.shape))
    return P.add(P.mul(nll, 1 - label_smoothing), P.mul(smooth, label_smoothing / C))


def _check_same_size(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


@_grad_fn_name("MseLossBackward0")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """msnb implementation of ``torch.nn.functional.mse_loss``."""
    _check_same_size(input, target, "mse_loss")
    d = P.sub(input, target)
    loss = P.mul(d, d)
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """msnb implementation of ``torch.nn.functional.l1_loss``."""
    _check_same_size(input, target, "l1_loss")
    loss = P.abs(P.sub(input, target))
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


@_grad_fn_name("SmoothL1LossBackward0")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """msnb implementation of ``torch.nn.functional.smooth_l1_loss``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = P.abs(P.sub(input, target))
    if beta == 0:
        return _reduce(d, reduction)
    loss = P.where(P.lt(d, beta), P.div(P.mul(P.mul(d, d), 0.5), beta), P.sub(d, 0.5 * beta))
    return _reduce(loss, reduction)


@_grad_fn_name("HuberLossBackward0")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """msnb implementation of ``torch.nn.functional.huber_loss``."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = P.abs(P.sub(input, target))
    loss = P.where(P.lt(d, delta), P.mul(P.mul(d, d), 0.5), P.mul(P.sub(d, 0.5 * delta), delta))
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, reduction)


@_grad_fn_name("BinaryCrossEntropyBackward0")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """msnb implementation of ``torch.nn.functional.binary_cross_entropy`` (logs clamped at -100)."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    from ...graph.capture import recording  # a graph step leaves this value check out (no host read)
    if input.numel() and not recording() and bool(Rd.any(P.logical_or(P.lt(input, 0), P.gt(input, 1)))):
        raise RuntimeError("all elements of input should be between 0 and 1")
    lg = P.clamp(P.log(input), min=-100.0)
    lg1 = P.clamp(P.log(P.sub(1, input)), min=-100.0)
    loss = P.neg(P.add(P.mul(target, lg), P.mul(P.sub(1, target), lg1)))
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


@_grad_fn_name("BinaryCrossEntropyWithLogitsBackward0")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """msnb implementation of ``torch.nn.functional.binary_cross_entropy_with_logits``."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    log_sig = logsigmoid(input)
    log_one_minus = logsigmoid(P.neg(input))
    pos = P.mul(target, log_sig) if pos_weight is None else P.mul(P.mul(target, pos_weight), log_sig)
    loss = P.neg(P.add(pos, P.mul(P.sub(1, target), log_one_minus)))
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """msnb implementation of ``torch.nn.functional.kl_div`` (``target * (log target - input)``,
    0 where target is 0; ``reduction='batchmean'`` divides by the batch size)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if log_target:
        loss = P.mul(P.exp(target), P.sub(target, input))
    else:
        loss = P.sub(P.xlogy(target, target), P.mul(target, input))
    if reduction == "batchmean":
        return P.div(loss.sum(), input.shape[0]) if input.ndim else loss.sum()
    return _reduce(loss, reduction)


# --- normalisation ----------------------------------------------------------------------

@_grad_fn_name("NativeBatchNormBackward0")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    """msnb implementation of ``torch.nn.functional.batch_norm`` (updates running stats in place)."""
    if training and eps <= 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    c = input.shape[1] if input.ndim > 1 else 0  # PyTorch reads the channels as size(1), 0 for a 1-d input
    for what, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{what} should contain {c} elements not {t.numel()}")
    dims = [0] + list(range(2, input.ndim))
    shape = [1, -1] + [1] * (input.ndim - 2)
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        mean = input.mean(dim=dims)
        var = Rd.var(input, dims, correction=0)
        if running_mean is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    scale = P.rsqrt(P.add(var, eps))
    if weight is not None:
        scale = P.mul(scale, weight)
    shift = P.neg(P.mul(mean, scale))
    if bias is not None:
        shift = P.add(shift, bias)
    return P.add(P.mul(input, scale.reshape(shape)), shift.reshape(shape))


@_grad_fn_name("NativeLayerNormBackward0")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """msnb implementation of ``torch.nn.functional.layer_norm``."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    _check_normalized_shape(input, ns, weight, bias)
    dims = tuple(range(input.ndim - len(ns), input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    var = Rd.var(input, dims, keepdim=True, correction=0)
    out = P.mul(P.sub(input, mean), P.rsqrt(P.add(var, eps)))
    if weight is not None:
        out = P.mul(out, weight)
    if bias is not None:
        out = P.add(out, bias)
    return out


def _check_normalized_shape(input, ns, weight, bias=None):
    """PyTorch's checks of a normalization's ``normalized_shape``: not empty, the input's trailing
    dims, and the weight's and bias's shapes."""
    if len(ns) == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                           "one element, but got normalized_shape = []")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != tuple(ns):
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got {what} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(ns)}")
    if input.ndim < len(ns) or tuple(input.shape[input.ndim - len(ns):]) != tuple(ns):
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [*, "
                           f"{', '.join(str(v) for v in ns)}], but got input of size {list(input.shape)}")


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """msnb implementation of ``torch.nn.functional.rms_norm`` (eps defaults to the dtype's eps)."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    _check_normalized_shape(input, ns, weight)
    dims = tuple(range(input.ndim - len(ns), input.ndim))
    if eps is None:
        eps = float(np.finfo(input.dtype.numpy).eps)
    out = P.mul(input, P.rsqrt(P.add(P.mul(input, input).mean(dim=dims, keepdim=True), eps)))
    return P.mul(out, weight) if weight is not None else out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """msnb implementation of ``torch.nn.functional.group_norm``."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    N, C = input.shape[0], input.shape[1]
    if C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(input.shape)} and num_groups={num_groups}")
    x = input.reshape(N, num_groups, input.numel() // N // num_groups if N else 0)  # (-1 is ambiguous when N is 0)
    mean = x.mean(dim=2, keepdim=True)
    var = Rd.var(x, 2, keepdim=True, correction=0)
    x = P.mul(P.sub(x, mean), P.rsqrt(P.add(var, eps))).reshape(tuple(input.shape))
    shape = [1, C] + [1] * (input.ndim - 2)
    if weight is not None:
        x = P.mul(x, weight.reshape(shape))
    if bias is not None:
        x = P.add(x, bias.reshape(shape))
    return x


# --- embedding and tensor utilities -----------------------------------------------------

@_grad_fn_name("EmbeddingBackward0")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """msnb implementation of ``torch.nn.functional.embedding`` (no gradient reaches the
    ``padding_idx`` row; ``max_norm`` renormalises the looked-up rows of ``weight`` in place, as
    PyTorch does; ``scale_grad_by_freq`` divides each row's gradient by its count in ``input``)."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding)")
    idx = cast(input, D.int64)
    I.check_in_bounds(idx, weight.shape[0], 0, IndexError)
    if max_norm is not None:
        _embedding_renorm(weight, idx, max_norm, norm_type)
    out = weight.index_select(0, idx.reshape(-1)).reshape(*idx.shape, weight.shape[1])
    if padding_idx is not None and needs_grad(weight):
        mask = cast(P.ne(idx, padding_idx % weight.shape[0]), out.dtype).unsqueeze(-1)
        out = P.add(P.mul(out, mask), P.mul(out.detach(), P.sub(1, mask)))
    if scale_grad_by_freq and needs_grad(weight):
        from .._ops.creation import tensor
        flat = idx.numpy().reshape(-1)
        _, inv, counts = np.unique(flat, return_inverse=True, return_counts=True)
        scale = tensor((1.0 / counts[inv]).astype(out.dtype.numpy).reshape(*idx.shape, 1))
        scaled = P.mul(out, scale)
        out = P.add(out.detach(), P.sub(scaled, scaled.detach()))  # the value of out, gradient / count
    return out


def _embedding_renorm(weight, idx, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_``: rows of ``weight`` named in ``idx`` whose norm exceeds
    ``max_norm`` are scaled to ``max_norm`` (in place, no gradient)."""
    from .._ops.creation import tensor
    rows = np.unique(idx.numpy().reshape(-1))
    if rows.size == 0:
        return
    with no_grad():
        r = tensor(rows.astype(np.int64))
        sel = weight.index_select(0, r)
        norms = Rd.norm(sel, norm_type, 1, keepdim=True)
        scale = P.where(P.gt(norms, max_norm), P.div(max_norm, P.add(norms, 1e-7)), 1.0)
        weight.copy_(_rows_replaced(weight, rows, P.mul(sel, scale)))


def _rows_replaced(weight, rows, new_rows):
    from .._ops.creation import tensor
    keep = np.ones(weight.shape[0], bool)
    keep[rows] = False
    mask = tensor(keep.astype(weight.dtype.numpy)).unsqueeze(1)
    placed = I.index_add(zeros(*weight.shape, dtype=weight.dtype), 0, tensor(rows.astype(np.int64)), new_rows)
    return P.add(P.mul(weight, mask), placed)


def one_hot(tensor, num_classes=-1):
    """msnb implementation of ``torch.nn.functional.one_hot``."""
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    from ...graph.capture import recording
    r = None if recording() and num_classes != -1 else I._index_range(tensor)
    if r is not None and r[0] < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if r is None:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        n = r[1] + 1
    else:
        n = num_classes
        if r is not None and r[1] >= n:
            raise RuntimeError("Class values must be smaller than num_classes.")
    from .._ops.creation import arange
    return cast(P.eq(tensor.unsqueeze(-1), arange(n)), D.int64)


def _pad_fill(shape, value, like):
    """The constant border: ``value`` converted to the input's dtype (2.7 pads an int tensor with 2,
    a bool tensor with True), as PyTorch fills it."""
    from .._ops.creation import full
    v = value or 0
    if like.dtype == D.bool:
        v = bool(v)
    elif not like.dtype.is_floating_point and not like.dtype.is_complex:
        v = int(v)
    return full(tuple(shape), v, dtype=like.dtype)


def pad(input, pad, mode="constant", value=None):
    """msnb implementation of ``torch.nn.functional.pad`` (constant, reflect, replicate, circular)."""
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length must be divisible by 2" if len(pad) % 2 else
                           "Padding length should be less than or equal to two times the input dimension but "
                           f"got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        x = input
        for i in range(len(pad) // 2):
            d = input.ndim - 1 - i
            left, right = pad[2 * i], pad[2 * i + 1]
            parts = []
            if left > 0:
                shp = list(x.shape)
                shp[d] = left
                parts.append(_pad_fill(shp, value, x))
            core = x
            if left < 0:
                core = core.narrow(d, -left, core.shape[d] + left)
            if right < 0:
                core = core.narrow(d, 0, core.shape[d] + right)
            parts.append(core)
            if right > 0:
                shp = list(x.shape)
                shp[d] = right
                parts.append(_pad_fill(shp, value, x))
            x = S.cat(parts, d) if len(parts) > 1 else core
        return name_node(x, "ConstantPadNdBackward0", input)
    if mode in ("reflect", "replicate", "circular"):
        k = len(pad) // 2
        if input.ndim not in (k + 1, k + 2):
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor "
                                      f"(mode='{mode}' pads the last k dims of a (k+1)D or (k+2)D input)")
        from ._functional_nd import pad_by_index
        out = pad_by_index(input, pad, mode)
        k = len(pad) // 2
        return out if mode == "circular" else \
            name_node(out, f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{k}DBackward0", input)
    raise NotImplementedError(f"torch.nn.functional.pad(mode='{mode}') is not supported by msnb yet")


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """msnb implementation of ``torch.nn.functional.normalize``."""
    _core.wrap_dim(dim, input.ndim)  # an out-of-range dim is PyTorch's IndexError
    n = P.clamp(Rd.norm(input, p, dim, keepdim=True), min=eps)
    return P.div(input, n)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """msnb implementation of ``torch.nn.functional.cosine_similarity`` (inputs broadcast first)."""
    if tuple(x1.shape) != tuple(x2.shape):
        x1, x2 = S.broadcast_tensors(x1, x2)
    # each input over max(norm, eps), then the dot product (PyTorch's formulation); the
    # clamp sits under the square root so a zero vector has a finite gradient
    n1 = P.sqrt(P.clamp(Rd.sum(P.mul(x1, x1), dim, keepdim=True), min=eps * eps))
    n2 = P.sqrt(P.clamp(Rd.sum(P.mul(x2, x2), dim, keepdim=True), min=eps * eps))
    return Rd.sum(P.mul(P.div(x1, n1), P.div(x2, n2)), dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """msnb implementation of ``torch.nn.functional.pairwise_distance``."""
    return Rd.norm(P.add(P.sub(x1, x2), eps), p, -1, keepdim=keepdim)


def pixel_shuffle(input, upscale_factor):
    """msnb implementation of ``torch.nn.functional.pixel_shuffle``."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, C, H, W = input.shape
    if C % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={C} is not divisible by {r * r}")
    x = input.reshape(-1, C // (r * r), r, r, H, W).permute(0, 1, 4, 2, 5, 3)
    return x.reshape(*lead, C // (r * r), H * r, W * r)


def pixel_unshuffle(input, downscale_factor):
    """msnb implementation of ``torch.nn.functional.pixel_unshuffle``."""
    r = downscale_factor
    *lead, C, H, W = input.shape
    x = input.reshape(-1, C, H // r, r, W // r, r).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(*lead, C * r * r, H // r, W // r)


# --- interpolate ------------------------------------------------------------------------

_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _interp_taps(mode, in_size, out_size, scale, align_corners):
    """PyTorch's source indices and weights for one output axis: [(index, weight), ...]."""
    dst = np.arange(out_size, dtype=np.float32)
    if mode in ("nearest", "nearest-exact"):
        s = np.float32(1.0 / scale) if scale else np.float32(in_size / out_size)
        off = np.float32(0.5) if mode == "nearest-exact" else np.float32(0)
        src = np.minimum(np.floor((dst + off) * s).astype(np.int64), in_size - 1)
        return [(src, None)]
    if align_corners:
        s = np.float32((in_size - 1) / (out_size - 1)) if out_size > 1 else np.float32(0)
        src = dst * s
    else:
        s = np.float32(1.0 / scale) if scale else np.float32(in_size / out_size)
        src = (dst + np.float32(0.5)) * s - np.float32(0.5)
        if mode != "bicubic":
            src = np.maximum(src, 0)
    i0 = np.floor(src).astype(np.int64)
    t = (src - i0).astype(np.float64)
    if mode != "bicubic":
        i0 = np.minimum(i0, in_size - 1)
        i1 = np.minimum(i0 + 1, in_size - 1)
        return [(i0, 1.0 - t), (i1, t)]
    A = -0.75

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    ws = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
    return [(np.clip(i0 + k - 1, 0, in_size - 1), w) for k, w in enumerate(ws)]


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """msnb implementation of ``torch.nn.functional.interpolate`` (nearest, nearest-exact,
    linear, bilinear, bicubic, trilinear, area) with PyTorch's source-index formulas;
    separable per axis, so gradients come from ``index_select``."""
    if antialias:
        raise NotImplementedError("torch.nn.functional.interpolate(antialias=True) is not supported by msnb yet")
    n = input.ndim - 2
    if n < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
                         f"modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                         f"(got {mode})")
    if mode in _INTERP_DIMS and _INTERP_DIMS[mode] != n:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_INTERP_DIMS[mode] + 2}D input")
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = tuple(input.shape[2:])
    if size is not None:
        out_sizes = _ntuple(size, n)
        scales = (None,) * n
    elif scale_factor is not None:
        scales = _ntuple(scale_factor, n)
        out_sizes = tuple(int(math.floor(float(s) * f)) for s, f in zip(in_sizes, scales))
        if recompute_scale_factor:
            scales = (None,) * n
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode != "area" and (0 in out_sizes or 0 in in_sizes):
        names = ("D", "H", "W")[3 - n:]
        i_, o_ = (", ".join(f"{k}: {v}" for k, v in zip(names, sz)) for sz in (in_sizes, out_sizes))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({i_})"
                           f"{' and' if n == 1 else ''} output ({o_})")
    if mode == "area":
        if n == 1:
            return adaptive_avg_pool1d(input, out_sizes[0])
        if n == 2:
            return adaptive_avg_pool2d(input, out_sizes)
        from ._functional_nd import adaptive_avg_pool3d
        return adaptive_avg_pool3d(input, out_sizes)
    if mode not in ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear"):
        raise NotImplementedError(f"torch.nn.functional.interpolate(mode='{mode}') is not supported by msnb yet")
    x = input
    from .._ops.creation import tensor
    for i in range(n):
        d = 2 + i
        if out_sizes[i] == in_sizes[i] and scales[i] in (None, 1, 1.0) and mode in ("nearest", "nearest-exact"):
            continue
        taps = _interp_taps(mode, in_sizes[i], out_sizes[i], scales[i], bool(align_corners))
        wshape = [1] * x.ndim
        wshape[d] = out_sizes[i]
        acc = None
        for idx, w in taps:
            part = x.index_select(d, tensor(idx))
            if w is not None:
                part = P.mul(part, tensor(w.astype(x.dtype.numpy)).reshape(wshape))
            acc = part if acc is None else P.add(acc, part)
        x = acc
    return x


# --- attention ------------------------------------------------------------------------------

def _float_mask(mask, dtype):
    """PyTorch's ``_canonical_mask``: a bool mask (True = masked out) becomes 0 / -inf."""
    if mask is None or mask.dtype.is_floating_point:
        return mask
    if mask.dtype is not D.bool:
        raise AssertionError("only bool and floating types of masks are supported")
    return I.masked_fill(zeros(*mask.shape, dtype=dtype), mask, float("-inf"))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """msnb implementation of ``torch.nn.functional.scaled_dot_product_attention``
    (PyTorch's math reference: a bool mask marks positions that take part).  The
    kernel is chosen by PyTorch's CPU rules under ``torch.nn.attention.sdpa_kernel``:
    FLASH_ATTENTION (4-D, no dropout, ...) applies ``is_causal`` and ``attn_mask``
    together, MATH refuses both at once; a fully masked row gives zeros (PyTorch's
    safe softmax), not NaN."""
    from .attention import SDPBackend, choose_kernel
    kernel = choose_kernel(query, key, value, attn_mask, dropout_p, enable_gqa)
    L, Sk = query.shape[-2], key.shape[-2]
    s = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.ndim >= 4 and (key.shape[-3] != query.shape[-3] or value.shape[-3] != query.shape[-3]):
        qh, kh, vh = query.shape[-3], key.shape[-3], value.shape[-3]
        if qh % kh or qh % vh:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        key, value = key.repeat_interleave(qh // kh, -3), value.repeat_interleave(qh // vh, -3)
    scores = P.mul(query, s).matmul(key.transpose(-2, -1))
    if is_causal:
        if attn_mask is not None and kernel is SDPBackend.MATH:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        from .._ops.creation import ones
        causal = S.tril(ones(L, Sk, dtype=D.bool))
        scores = I.masked_fill(scores, P.logical_not(causal), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype is D.bool:
            scores = I.masked_fill(scores, P.logical_not(attn_mask), float("-inf"))
        else:
            scores = P.add(scores, attn_mask)
    if attn_mask is not None or is_causal:  # safe softmax: a row with every score -inf attends to nothing
        dead = Rd.all(P.eq(scores, float("-inf")), -1, keepdim=True)
        w = I.masked_fill(softmax(I.masked_fill(scores, dead, 0.0), -1), dead, 0.0)  # no NaN, in grads either
    else:
        w = softmax(scores, -1)
    if dropout_p > 0.0:
        w = dropout(w, dropout_p, True)
    return w.matmul(value)


def _in_projection_packed(q, k, v, w, b):
    E = q.shape[-1]
    if k is v:
        if q is k:
            return _split(linear(q, w, b), [E, E, E], -1)
        wq, wkv = _split(w, [E, 2 * E], 0)
        bq, bkv = (None, None) if b is None else _split(b, [E, 2 * E], 0)
        kk, vv = _split(linear(k, wkv, bkv), [E, E], -1)
        return linear(q, wq, bq), kk, vv
    wq, wk, wv = _split(w, [E, E, E], 0)
    bq, bk, bv = (None, None, None) if b is None else _split(b, [E, E, E], 0)
    return linear(q, wq, bq), linear(k, wk, bk), linear(v, wv, bv)


def _check_mha_mask(mask, size2, heads):
    """PyTorch's shape checks of ``attn_mask``: ``(L, S)`` or ``(N * num_heads, L, S)``."""
    if mask is None:
        return
    if mask.ndim == 2:
        if tuple(mask.shape) != size2:
            raise RuntimeError(f"The shape of the 2D attn_mask is torch.Size({list(mask.shape)}), but should be "
                               f"{size2}.")
    elif mask.ndim == 3:
        if tuple(mask.shape) != (heads,) + size2:
            raise RuntimeError(f"The shape of the 3D attn_mask is torch.Size({list(mask.shape)}), but should be "
                               f"{(heads,) + size2}.")
    else:
        raise RuntimeError(f"attn_mask's dimension {mask.ndim} is not supported")


def _static_kv(t, name, heads, head_dim):
    """A ``static_k`` / ``static_v`` as PyTorch checks it."""
    if t.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """msnb implementation of ``torch.nn.functional.multi_head_attention_forward``
    (sequence-first ``(L, N, E)`` or unbatched ``(L, E)`` inputs).  As PyTorch: ``static_k`` /
    ``static_v`` ``(N * num_heads, S, head_dim)`` replace the projected keys / values, and
    ``is_causal`` without a key padding mask and without weights means the causal mask itself,
    whatever ``attn_mask`` holds."""
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, E = query.shape
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    head_dim = E // num_heads
    if head_dim * num_heads != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        bq, bk, bv = (None, None, None) if in_proj_bias is None else _split(in_proj_bias, [E, E, E], 0)
        q, k, v = linear(query, q_proj_weight, bq), linear(key, k_proj_weight, bk), linear(value, v_proj_weight, bv)
    else:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if is_causal and key_padding_mask is None and not need_weights:
        # PyTorch hands the hint to scaled_dot_product_attention and drops the mask
        from .._ops.creation import tensor
        attn_mask = tensor(np.triu(np.ones((tgt_len, key.shape[0]), bool), 1))
    attn_mask = _float_mask(attn_mask, q.dtype)
    key_padding_mask = _float_mask(key_padding_mask, q.dtype)
    _check_mha_mask(attn_mask, (tgt_len, key.shape[0]), bsz * num_heads)
    if attn_mask is not None and attn_mask.ndim == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        k = S.cat([k, bias_k.repeat(1, bsz, 1)])
        v = S.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static_kv(static_k, "static_k", bsz * num_heads, head_dim) if static_k is not None else \
        k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = _static_kv(static_v, "static_v", bsz * num_heads, head_dim) if static_v is not None else \
        v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = S.cat([k, zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)], 1)
        v = S.cat([v, zeros(bsz * num_heads, 1, head_dim, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else P.add(attn_mask, kpm)
    if not training:
        dropout_p = 0.0
    scores = P.mul(q, math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = P.add(scores, attn_mask)
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = weights.matmul(v).transpose(0, 1).reshape(tgt_len * bsz, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, E)
    if unbatched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if unbatched:
        weights = weights.squeeze(0)
    return out, weights


# --- mixed precision: PyTorch's autocast op lists (see ``torch.amp``) ----------------
from ..amp.autocast_mode import autocast_op as _autocast_op  # noqa: E402

for _name in ['linear', 'bilinear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'prelu', 'relu', 'softplus', 'softmax', 'softmin', 'log_softmax', 'nll_loss', 'cross_entropy', 'mse_loss', 'l1_loss', 'smooth_l1_loss', 'binary_cross_entropy_with_logits', 'kl_div', 'layer_norm', 'group_norm', 'normalize', 'cosine_similarity']:
    if _name in globals():
        globals()[_name] = _autocast_op(_name)(globals()[_name])
del _name


from ._functional_more import *  # noqa: E402,F401,F403 - instance_norm, LP pooling, margin losses
from ._functional_more import __all__ as _more_all  # noqa: E402
from ._functional_nd import *  # noqa: E402,F401,F403 - 3-d / adaptive max pooling, unfold, LRN
from ._functional_nd import __all__ as _nd_all  # noqa: E402
from ._functional_misc import *  # noqa: E402,F401,F403 - embedding_bag, unpooling, fractional pooling, ...
from ._functional_misc import __all__ as _misc_all  # noqa: E402
from ._functional_misc import _POOLS as _POOLS_WITH_INDICES  # noqa: E402


def _sign_with_indices():
    """``max_pool2d_with_indices`` & co. show their pooling function's signature, as in PyTorch."""
    import inspect
    for name in _POOLS_WITH_INDICES:
        globals()[name + "_with_indices"].__signature__ = inspect.signature(globals()[name])


_sign_with_indices()

__all__ += _more_all + _nd_all + _misc_all


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.functional")

from .. import _out_arg  # noqa: E402 - wraps the functions defined above
_out_arg.apply(globals(), "torch.nn.functional")
from .. import _numpy_compat as _np_compat  # noqa: E402 - last: wraps the functions defined above
_np_compat.apply(globals(), "torch.nn.functional")
