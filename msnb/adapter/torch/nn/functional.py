"""msnb implementation of ``torch.nn.functional``.

Most functions are compositions of adapter ops (so their gradients come from
those ops).  Convolution and pooling run MindSpore's kernels and take their
gradients from MindSpore's own differentiation of that single kernel
(``mindspore.ops.vjp``), so msnb never re-derives those rules."""

from __future__ import annotations

import math

from .. import _dtype as D
from .._core import K, cast, ms, needs_grad, record, wrap
from .._ops import pointwise as P, reduction as Rd, shape as S
from .._ops.creation import ones, zeros
from .._ops.random import _g
from ..autograd.grad_mode import no_grad

__all__ = ["linear", "bilinear", "conv1d", "conv2d", "max_pool1d", "max_pool2d", "avg_pool2d",
           "adaptive_avg_pool2d", "adaptive_avg_pool1d", "relu", "relu6", "leaky_relu", "elu", "gelu", "silu",
           "mish", "sigmoid", "tanh", "softplus", "hardtanh", "softmax", "log_softmax", "softmin", "dropout",
           "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "batch_norm", "layer_norm",
           "group_norm", "embedding", "one_hot", "pad", "normalize", "cosine_similarity", "pixel_shuffle",
           "logsigmoid", "hardsigmoid", "hardswish", "glu", "threshold", "unfold"]


def _pair(x, n=2):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


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


def linear(input, weight, bias=None):
    """msnb implementation of ``torch.nn.functional.linear``."""
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def bilinear(input1, input2, weight, bias=None):
    out = Rd.sum(P.mul(input1.unsqueeze(1).unsqueeze(-1) * weight.unsqueeze(0), input2.unsqueeze(1).unsqueeze(2)),
                 (2, 3)) if False else _einsum("bi,oij,bj->bo", input1, weight, input2)
    return out + bias if bias is not None else out


def _einsum(eq, *ops):
    from .._ops.linalg import einsum
    return einsum(eq, *ops)


def _conv_padding(padding, n):
    if isinstance(padding, str):
        return padding
    return _pair(padding, n)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """msnb implementation of ``torch.nn.functional.conv2d``."""
    st, dl = _pair(stride), _pair(dilation)
    pd = _conv_padding(padding, 2)
    if isinstance(pd, str):
        mode, pad = pd, 0
    elif any(pd):
        mode, pad = "pad", (pd[0], pd[0], pd[1], pd[1])
    else:
        mode, pad = "valid", 0
    x = input if input.ndim == 4 else input.unsqueeze(0)
    out = _vjp_op("ConvolutionBackward0",
                  lambda a, w: K.conv2d(a, w, None, st, mode, pad, dl, groups), x, weight)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out if input.ndim == 4 else out.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """msnb implementation of ``torch.nn.functional.conv1d`` (through conv2d)."""
    pd = padding if isinstance(padding, str) else (0, _pair(padding, 1)[0])
    out = conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), None, (1, _pair(stride, 1)[0]), pd,
                 (1, _pair(dilation, 1)[0]), groups)
    out = out.squeeze(-2)
    return out + bias.reshape(1, -1, 1) if bias is not None else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """msnb implementation of ``torch.nn.functional.max_pool2d``."""
    ks = _pair(kernel_size)
    st = _pair(stride) if stride is not None else ks
    pd, dl = _pair(padding), _pair(dilation)
    if return_indices:
        raise NotImplementedError("torch.nn.functional.max_pool2d(return_indices=True) is not supported by msnb yet")
    x = input if input.ndim == 4 else input.unsqueeze(0)
    out = _vjp_op("MaxPool2DWithIndicesBackward0",
                  lambda a: K.max_pool2d(a, ks, st, pd, dl, False, ceil_mode), x)
    return out if input.ndim == 4 else out.squeeze(0)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    st = stride if stride is not None else kernel_size
    return max_pool2d(input.unsqueeze(-2), (1, _pair(kernel_size, 1)[0]), (1, _pair(st, 1)[0]),
                      (0, _pair(padding, 1)[0]), (1, _pair(dilation, 1)[0]), ceil_mode).squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """msnb implementation of ``torch.nn.functional.avg_pool2d``."""
    ks = _pair(kernel_size)
    st = _pair(stride) if stride is not None else ks
    pd = _pair(padding)
    x = input if input.ndim == 4 else input.unsqueeze(0)
    out = _vjp_op("AvgPool2DBackward0",
                  lambda a: K.avg_pool2d(a, ks, st, pd, ceil_mode, count_include_pad, divisor_override or 0), x)
    return out if input.ndim == 4 else out.squeeze(0)


def adaptive_avg_pool2d(input, output_size):
    """msnb implementation of ``torch.nn.functional.adaptive_avg_pool2d`` (PyTorch's bin edges)."""
    oh, ow = _pair(output_size)
    H, W = input.shape[-2], input.shape[-1]
    oh = H if oh is None else oh
    ow = W if ow is None else ow
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
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size)).squeeze(-2)


def relu(input, inplace=False):
    """msnb implementation of ``torch.nn.functional.relu``."""
    return input.relu_() if inplace else P.relu(input)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return input.clamp_(min_val, max_val) if inplace else P.clamp(input, min_val, max_val)


def threshold(input, threshold, value, inplace=False):
    return P.where(P.gt(input, threshold), input, value)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    out = P.where(P.gt(input, 0), input, P.mul(input, negative_slope))
    return input.copy_(out) if inplace else out


def elu(input, alpha=1.0, inplace=False):
    out = P.where(P.gt(input, 0), input, P.mul(P.expm1(P.clamp(input, max=0.0)), alpha))
    return input.copy_(out) if inplace else out


def gelu(input, approximate="none"):
    """msnb implementation of ``torch.nn.functional.gelu`` (exact erf form or tanh approximation)."""
    if approximate == "tanh":
        inner = P.mul(P.add(input, P.mul(P.pow(input, 3), 0.044715)), math.sqrt(2 / math.pi))
        return P.mul(P.mul(input, 0.5), P.add(P.tanh(inner), 1))
    return P.mul(P.mul(input, 0.5), P.add(P.erf(P.div(input, math.sqrt(2.0))), 1))


def silu(input, inplace=False):
    return P.mul(input, P.sigmoid(input))


def mish(input, inplace=False):
    return P.mul(input, P.tanh(softplus(input)))


def sigmoid(input):
    return P.sigmoid(input)


def tanh(input):
    return P.tanh(input)


def logsigmoid(input):
    return P.neg(softplus(P.neg(input)))


def hardsigmoid(input, inplace=False):
    return P.div(P.clamp(P.add(input, 3), 0.0, 6.0), 6)


def hardswish(input, inplace=False):
    return P.mul(input, hardsigmoid(input))


def glu(input, dim=-1):
    a, b = S.chunk(input, 2, dim)
    return P.mul(a, P.sigmoid(b))


def softplus(input, beta=1.0, threshold=20.0):
    scaled = P.mul(input, beta)
    soft = P.div(P.log1p(P.exp(P.clamp(scaled, max=threshold))), beta)
    return P.where(P.gt(scaled, threshold), input, soft)


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """msnb implementation of ``torch.nn.functional.softmax``."""
    x = input if dtype is None else cast(input, dtype)
    if dim is None:
        dim = _softmax_dim(x.ndim)
    m = Rd.amax(x, dim, keepdim=True).detach()
    e = P.exp(P.sub(x, m))
    return P.div(e, Rd.sum(e, dim, keepdim=True))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(P.neg(input), dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """msnb implementation of ``torch.nn.functional.log_softmax``."""
    x = input if dtype is None else cast(input, dtype)
    if dim is None:
        dim = _softmax_dim(x.ndim)
    m = Rd.amax(x, dim, keepdim=True).detach()
    sh = P.sub(x, m)
    return P.sub(sh, P.log(Rd.sum(P.exp(sh), dim, keepdim=True)))


def dropout(input, p=0.5, training=True, inplace=False):
    """msnb implementation of ``torch.nn.functional.dropout`` (mask from the adapter's generator)."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return P.mul(input, 0.0)
    from .._ops.creation import _finish
    keep = (_g(None).random(tuple(input.shape)) >= p).astype(input.dtype.numpy) / (1 - p)
    out = P.mul(input, _finish(keep.astype(input.dtype.numpy), input.dtype))
    return input.copy_(out) if inplace else out


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """msnb implementation of ``torch.nn.functional.nll_loss``."""
    if input.ndim == 1:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    C = input.shape[1]
    if input.ndim > 2:  # (N, C, d1, ...) -> (N*d, C)
        perm = [0] + list(range(2, input.ndim)) + [1]
        input = input.permute(*perm).reshape(-1, C)
        target = target.reshape(-1)
    tgt = cast(target, D.int64)
    valid = P.ne(tgt, ignore_index)
    safe = P.where(valid, tgt, 0)
    picked = P.neg(input.gather(1, safe.unsqueeze(1)).squeeze(1))
    w = cast(valid, input.dtype)
    if weight is not None:
        w = P.mul(w, weight.index_select(0, safe))
    loss = P.mul(picked, w)
    if reduction == "mean":
        return P.div(loss.sum(), w.sum())
    return _reduce(loss, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """msnb implementation of ``torch.nn.functional.cross_entropy``: class indices or
    probabilities, ``weight``, ``ignore_index``, ``label_smoothing``."""
    class_dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, class_dim)
    C = input.shape[class_dim]
    if target.dtype.is_floating_point:  # probabilities
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


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    d = P.sub(input, target)
    return _reduce(P.mul(d, d), reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce(P.abs(P.sub(input, target)), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    d = P.abs(P.sub(input, target))
    if beta == 0:
        return _reduce(d, reduction)
    loss = P.where(P.lt(d, beta), P.div(P.mul(P.mul(d, d), 0.5), beta), P.sub(d, 0.5 * beta))
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    d = P.abs(P.sub(input, target))
    loss = P.where(P.lt(d, delta), P.mul(P.mul(d, d), 0.5), P.mul(P.sub(d, 0.5 * delta), delta))
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    lg = P.clamp(P.log(input), min=-100.0)
    lg1 = P.clamp(P.log(P.sub(1, input)), min=-100.0)
    loss = P.neg(P.add(P.mul(target, lg), P.mul(P.sub(1, target), lg1)))
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    log_sig = logsigmoid(input)
    log_one_minus = logsigmoid(P.neg(input))
    if pos_weight is not None:
        loss = P.neg(P.add(P.mul(P.mul(target, pos_weight), log_sig), P.mul(P.sub(1, target), log_one_minus)))
    else:
        loss = P.neg(P.add(P.mul(target, log_sig), P.mul(P.sub(1, target), log_one_minus)))
    if weight is not None:
        loss = P.mul(loss, weight)
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if log_target:
        loss = P.mul(P.exp(target), P.sub(target, input))
    else:
        loss = P.where(P.gt(target, 0), P.mul(target, P.sub(P.log(P.where(P.gt(target, 0), target, 1.0)), input)), 0.0)
    if reduction == "batchmean":
        return P.div(loss.sum(), input.shape[0])
    return _reduce(loss, reduction)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    """msnb implementation of ``torch.nn.functional.batch_norm`` (updates running stats in place)."""
    dims = [0] + list(range(2, input.ndim))
    shape = [1, -1] + [1] * (input.ndim - 2)
    if training:
        mean = input.mean(dim=dims)
        var = Rd.var(input, dims, correction=0)
        if running_mean is not None:
            n = input.numel() / input.shape[1]
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / max(n - 1, 1)))
    else:
        mean, var = running_mean, running_var
    out = P.div(P.sub(input, mean.reshape(shape)), P.sqrt(P.add(var.reshape(shape), eps)))
    if weight is not None:
        out = P.mul(out, weight.reshape(shape))
    if bias is not None:
        out = P.add(out, bias.reshape(shape))
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    dims = tuple(range(input.ndim - len(tuple(normalized_shape)), input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    var = Rd.var(input, dims, keepdim=True, correction=0)
    out = P.div(P.sub(input, mean), P.sqrt(P.add(var, eps)))
    if weight is not None:
        out = P.mul(out, weight)
    if bias is not None:
        out = P.add(out, bias)
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    N, C = input.shape[0], input.shape[1]
    x = input.reshape(N, num_groups, -1)
    mean = x.mean(dim=2, keepdim=True)
    var = Rd.var(x, 2, keepdim=True, correction=0)
    x = P.div(P.sub(x, mean), P.sqrt(P.add(var, eps))).reshape(tuple(input.shape))
    shape = [1, C] + [1] * (input.ndim - 2)
    if weight is not None:
        x = P.mul(x, weight.reshape(shape))
    if bias is not None:
        x = P.add(x, bias.reshape(shape))
    return x


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """msnb implementation of ``torch.nn.functional.embedding``."""
    if max_norm is not None:
        raise NotImplementedError("torch.nn.functional.embedding(max_norm=...) is not supported by msnb yet")
    idx = cast(input, D.int64)
    out = weight.index_select(0, idx.reshape(-1)).reshape(*idx.shape, weight.shape[1])
    if padding_idx is not None and needs_grad(weight):
        mask = cast(P.ne(idx, padding_idx % weight.shape[0]), out.dtype).unsqueeze(-1)
        out = P.add(P.mul(out, mask), P.mul(out.detach(), P.sub(1, mask)))
    return out


def one_hot(tensor, num_classes=-1):
    n = int(tensor.max().item()) + 1 if num_classes == -1 else num_classes
    from .._ops.creation import arange
    return cast(P.eq(tensor.unsqueeze(-1), arange(n)), D.int64)


def pad(input, pad, mode="constant", value=None):
    """msnb implementation of ``torch.nn.functional.pad`` (constant, reflect, replicate)."""
    pad = tuple(pad)
    if mode == "constant":
        x = input
        for i in range(len(pad) // 2):
            d = input.ndim - 1 - i
            left, right = pad[2 * i], pad[2 * i + 1]
            parts = []
            if left > 0:
                shp = list(x.shape)
                shp[d] = left
                parts.append(zeros(*shp, dtype=x.dtype) + (value or 0))
            core = x
            if left < 0:
                core = core.narrow(d, -left, core.shape[d] + left)
            if right < 0:
                core = core.narrow(d, 0, core.shape[d] + right)
            parts.append(core)
            if right > 0:
                shp = list(x.shape)
                shp[d] = right
                parts.append(zeros(*shp, dtype=x.dtype) + (value or 0))
            x = S.cat(parts, d) if len(parts) > 1 else core
        return x
    if mode in ("reflect", "replicate", "circular"):
        ms_mode = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}[mode]
        return _vjp_op("PadBackward", lambda a: K.pad(a, pad, ms_mode), input)
    raise NotImplementedError(f"torch.nn.functional.pad(mode='{mode}') is not supported by msnb yet")


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    n = P.clamp(Rd.norm(input, p, dim, keepdim=True), min=eps)
    return P.div(input, n)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    num = Rd.sum(P.mul(x1, x2), dim)
    den = P.mul(P.clamp(Rd.norm(x1, 2, dim), min=eps), P.clamp(Rd.norm(x2, 2, dim), min=eps))
    return P.div(num, den)


def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    N, C, H, W = input.shape[-4:]
    x = input.reshape(N, C // (r * r), r, r, H, W).permute(0, 1, 4, 2, 5, 3)
    return x.reshape(N, C // (r * r), H * r, W * r)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    raise NotImplementedError("torch.nn.functional.unfold is not supported by msnb yet")
