"""More of ``torch.nn.functional``: instance norm, LP pooling and the margin /
likelihood losses, composed of msnb ops (their gradients come from those ops).
``functional`` re-exports every name here."""

from __future__ import annotations

import math

from .. import _dtype as D
from .._ops import indexing as I, pointwise as P, reduction as Rd
from ..autograd.grad_mode import no_grad
from ._pool_check import check_pool

__all__ = ["instance_norm", "lp_pool1d", "lp_pool2d", "soft_margin_loss", "multilabel_soft_margin_loss",
           "hinge_embedding_loss", "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "gaussian_nll_loss", "poisson_nll_loss", "multi_margin_loss", "multilabel_margin_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"]


def _F():
    from . import functional
    return functional


def _reduce(loss, reduction, size_average=None, reduce=None):
    F = _F()
    return F._reduce(loss, F._legacy_reduction(size_average, reduce, reduction))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """msnb implementation of ``torch.nn.functional.instance_norm``: each (sample, channel)
    normalised over its spatial positions; running statistics averaged over the batch."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher input to instance_norm (got {input.ndim}D input)")
    dims = tuple(range(2, input.ndim))
    shape = [1, -1] + [1] * (input.ndim - 2)
    if use_input_stats:
        mu = Rd.mean(input, dims, keepdim=True)
        var = Rd.var(input, dims, keepdim=True, correction=0)
        if running_mean is not None or running_var is not None:
            n = 1
            for d in dims:
                n *= input.shape[d]
            with no_grad():
                if running_mean is not None:
                    m = Rd.mean(mu.detach().reshape(input.shape[0], input.shape[1]), 0)
                    running_mean.copy_(P.add(P.mul(running_mean, 1 - momentum), P.mul(m, momentum)))
                if running_var is not None:
                    v = Rd.mean(var.detach().reshape(input.shape[0], input.shape[1]), 0)
                    v = P.mul(v, n / max(n - 1, 1))
                    running_var.copy_(P.add(P.mul(running_var, 1 - momentum), P.mul(v, momentum)))
    else:
        mu, var = running_mean.reshape(shape), running_var.reshape(shape)
    y = P.div(P.sub(input, mu), P.sqrt(P.add(var, eps)))
    if weight is not None:
        y = P.mul(y, weight.reshape(shape))
    if bias is not None:
        y = P.add(y, bias.reshape(shape))
    return y


def _lp_finish(out, norm_type, area):
    return P.pow(P.mul(P.mul(P.sign(out), _F().relu(P.abs(out))), area), 1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """msnb implementation of ``torch.nn.functional.lp_pool1d``: ``(sum x^p)^(1/p)`` per window."""
    k = check_pool("lp_pool1d", input, 1, kernel_size, stride, 0, 1, ceil_mode)[0][0]
    out = _F().avg_pool1d(P.pow(input, norm_type), k, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """msnb implementation of ``torch.nn.functional.lp_pool2d``."""
    # PyTorch unpacks a kernel tuple in Python: one of another length is its ValueError
    kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size, kernel_size)
    check_pool("lp_pool2d", input, 2, (kh, kw), stride, 0, 1, ceil_mode)
    out = _F().avg_pool2d(P.pow(input, norm_type), (kh, kw), stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y x))``."""
    return _reduce(_F().softplus(P.neg(P.mul(input, target))), reduction, size_average, reduce)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    F = _F()
    loss = P.neg(P.add(P.mul(target, F.logsigmoid(input)), P.mul(P.sub(1, target), F.logsigmoid(P.neg(input)))))
    if weight is not None:
        loss = P.mul(loss, weight)
    c = input.ndim - 1
    loss = P.div(Rd.sum(loss, c), input.shape[c])
    return _reduce(loss, reduction, size_average, reduce)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    zeros = P.mul(input, 0)
    margin_part = P.where(P.ne(target, 1), P.clamp(P.sub(margin, input), min=0), zeros)
    self_part = P.where(P.ne(target, -1), input, zeros)
    return _reduce(P.add(margin_part, self_part), reduction, size_average, reduce)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {tuple(input1.shape)}, input2: {tuple(input2.shape)}, "
                           f"target: {tuple(target.shape)} ")
    loss = P.clamp(P.add(P.mul(P.neg(target), P.sub(input1, input2)), margin), min=0)
    return _reduce(loss, reduction, size_average, reduce)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    d = input1.ndim - 1
    eps = 1e-12
    prod = Rd.sum(P.mul(input1, input2), d)
    m1 = P.add(Rd.sum(P.mul(input1, input1), d), eps)
    m2 = P.add(Rd.sum(P.mul(input2, input2), d), eps)
    cos = P.div(prod, P.sqrt(P.mul(m1, m2)))
    zeros = P.mul(cos, 0)
    pos = P.where(P.eq(target, 1), P.sub(1, cos), zeros)
    neg = P.where(P.eq(target, -1), P.clamp(P.sub(cos, margin), min=0), zeros)
    return _reduce(P.add(pos, neg), reduction, size_average, reduce)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    _check_triplet(anchor, positive, negative, margin)
    F = _F()
    d_pos = F.pairwise_distance(anchor, positive, p, eps)
    d_neg = F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = P.minimum(d_neg, F.pairwise_distance(positive, negative, p, eps))
    loss = P.clamp(P.sub(P.add(d_pos, margin), d_neg), min=0)
    return _reduce(loss, reduction, size_average, reduce)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 (log var + (x - t)^2 / var)``; ``var`` clamped to ``eps`` without stopping its gradient."""
    if isinstance(var, (int, float)):
        var = P.add(P.mul(input.detach(), 0), var)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool(Rd.any(P.lt(var, 0))):
        raise ValueError("var has negative entry/entries")
    var = P.add(var, P.sub(P.clamp(var, min=eps), var).detach())
    loss = P.mul(P.add(P.log(var), P.div(P.pow(P.sub(input, target), 2), var)), 0.5)
    if full:
        loss = P.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if log_input:
        loss = P.sub(P.exp(input), P.mul(target, input))
    else:
        loss = P.sub(input, P.mul(target, P.log(P.add(input, eps))))
    if full:
        safe = P.where(P.gt(target, 1), target, P.add(P.mul(target, 0), 2))
        stirling = P.add(P.sub(P.mul(safe, P.log(safe)), safe), P.mul(P.log(P.mul(safe, 2 * math.pi)), 0.5))
        loss = P.add(loss, P.where(P.gt(target, 1), stirling, P.mul(stirling, 0)))
    return _reduce(loss, reduction, size_average, reduce)


def _check_triplet(anchor, positive, negative, margin):
    """PyTorch's checks of a triplet loss: a positive margin, three inputs of one rank."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")


def _check_reduction(reduction, size_average, reduce):
    """A bad ``reduction`` name is PyTorch's ValueError before anything is computed."""
    if size_average is None and reduce is None and reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_margin_input(input):
    """Margin losses take a non-empty vector or a matrix whose only empty dim may be the batch."""
    if input.ndim > 2 or (input.ndim == 1 and input.shape[0] == 0) or (input.ndim == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """``sum_{i != y} max(0, margin - x[y] + x[i])^p / C`` per sample."""
    _check_reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input)
    x = input if input.ndim == 2 else input.reshape(1, -1)
    c = x.shape[1]
    if target.ndim > 1 or target.numel() != x.shape[0]:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{x.shape[0]}], but got "
                           f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if target.dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {D._name_of(target.dtype)}")
    y = target.reshape(-1)
    from ...graph.capture import recording  # a graph step leaves value checks out (no host read)
    if y.numel() and not recording() and bool(Rd.any(P.logical_or(P.lt(y, 0), P.ge(y, c)))):
        raise RuntimeError("target out of range")
    xy = I.gather(x, 1, y.unsqueeze(1))
    m = P.clamp(P.add(P.sub(margin, xy), x), min=0)
    if p == 2:
        m = P.mul(m, m)
    if weight is not None:
        m = P.mul(m, I.index_select(weight, 0, y).unsqueeze(1))
    other = P.sub(1, _F().one_hot(y, c).to(x.dtype))
    loss = P.div(Rd.sum(P.mul(m, other), 1), c)
    if input.ndim < 2:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction, size_average, reduce)



def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``sum_{j in targets} sum_{i not in targets} max(0, 1 - (x[y_j] - x[i])) / C`` per sample;
    a row's targets are its entries before the first ``-1``."""
    import numpy as np
    from .._ops.creation import tensor
    _check_reduction(reduction, size_average, reduce)
    _check_margin_input(input)
    x = input if input.ndim == 2 else input.reshape(1, -1)
    C = x.shape[1]
    want = (C,) if input.ndim < 2 else tuple(x.shape)
    if tuple(target.shape) != want and not (input.ndim < 2 and target.ndim == 0 and C == 1):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    y = target.reshape(x.shape[0], -1) if target.ndim else target.reshape(1, 1)
    if tuple(y.shape) != tuple(x.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    yn = y.numpy()
    if ((yn < -1) | (yn >= C)).any():
        raise RuntimeError(f"multilabel_margin_loss: target index out of range [-1, {C - 1}]")
    valid = np.cumprod(yn != -1, axis=1).astype(bool)  # (N, J): targets before the first -1
    is_target = np.zeros(x.shape, bool)
    rows = np.nonzero(valid)
    is_target[rows[0], yn[rows]] = True
    mask = valid[:, :, None] & ~is_target[:, None, :]
    xy = I.gather(x, 1, tensor(np.where(valid, yn, 0)))
    m = _F().relu(P.add(P.sub(1.0, xy.unsqueeze(2)), x.unsqueeze(1)))
    loss = P.div(Rd.sum(P.mul(m, tensor(mask.astype(x.dtype.numpy))), (1, 2)), C)
    if input.ndim < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction, size_average, reduce)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``distance_function`` (default: pairwise distance)."""
    F = _F()
    _check_triplet(anchor, positive, negative, margin)
    dist = distance_function if distance_function is not None else F.pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = P.minimum(d_neg, dist(positive, negative))
    loss = P.clamp(P.add(P.sub(d_pos, d_neg), margin), min=0)
    return _reduce(loss, reduction)


def _lse3(a, b, c):
    """``log(exp a + exp b + exp c)`` elementwise, -inf where all three are -inf, with no NaN in
    its gradient there (the log only sees positive sums)."""
    from .._ops import shape as S
    from .._ops.creation import full
    x = S.stack([a, b, c], 0)
    m = Rd.amax(x, 0).detach()
    ninf = full((), float("-inf"), dtype=x.dtype)
    finite = P.ne(m, ninf)
    ms = P.where(finite, m, full((), 0.0, dtype=x.dtype))
    s = Rd.sum(P.exp(P.sub(x, ms)), 0)
    ok = P.gt(s, 0)
    return P.where(ok, P.add(P.log(P.where(ok, s, full((), 1.0, dtype=x.dtype))), ms), ninf)


def _nan_grad_for_infinite(nll, lp, frames):
    """PyTorch's CTC gradient is NaN over the frames of a sample whose loss is infinite."""
    from .._core import K, needs_grad, record, wrap
    if not needs_grad(lp):
        return nll
    inf = P.eq(nll, float("inf")).detach()
    if not bool(Rd.any(inf)):
        return nll
    out = wrap(K.identity(nll))
    nan_frames = P.mul(P.where(inf.reshape(1, -1, 1), float("nan"), 0.0), frames).expand(*lp.shape)

    def bw(g):
        return g, nan_frames
    record("CtcLossBackward0", out, (nll, lp), bw)
    return out


def _ctc_nll(lp, ext, skip, il, tl, frames):
    """The CTC loss per sample by autodiff-able ops, with PyTorch's ``exp(log_probs)`` gradient term."""
    import numpy as np
    from .._ops import shape as S
    from .._ops.creation import full, tensor
    T, N, _ = lp.shape
    L = ext.shape[1]
    # the recursion runs in float64 (PyTorch's float32 kernel accumulates in a different order)
    lpe = lp.gather(2, tensor(ext).unsqueeze(0).expand(T, N, L)).to(D.float64)  # (T, N, L)
    ninf = full((), float("-inf"), dtype=lpe.dtype)
    start = np.zeros((N, L), bool)
    start[:, 0] = True
    start[:, 1] = tl > 0
    alpha = P.where(tensor(start), lpe[0], ninf) if T else full((N, L), float("-inf"), dtype=lpe.dtype)
    pad1 = full((N, 1), float("-inf"), dtype=lpe.dtype)
    pad2 = full((N, 2), float("-inf"), dtype=lpe.dtype)
    skip_t = tensor(skip)
    for t in range(1, T):
        a2 = S.cat([pad1, alpha[:, :-1]], 1)
        a3 = P.where(skip_t, S.cat([pad2, alpha[:, :-2]], 1), ninf)
        new = P.add(_lse3(alpha, a2, a3), lpe[t])
        alpha = P.where(tensor((t < il)[:, None]), new, alpha)
    last = tensor(np.stack([2 * tl, np.maximum(2 * tl - 1, 0)], 1))
    ends = alpha.gather(1, last)
    ends = P.where(tensor(np.stack([np.ones(N, bool), tl > 0], 1)), ends, ninf)
    nll = P.neg(_lse3(ends[:, 0], ends[:, 1], full((N,), float("-inf"), dtype=lpe.dtype))).to(lp.dtype)
    e = P.mul(P.exp(lp), frames)
    return P.add(nll, Rd.sum(P.sub(e, e.detach()), (0, 2)))


def _lse_f32(*vals):
    """PyTorch's CPU CTC log-sum-exp, element-wise in the operands' dtype: the max (0 when all are
    -inf) plus the log of the exponentials summed in order."""
    import numpy as np
    m = vals[0]
    for v in vals[1:]:
        m = np.maximum(m, v)
    m = np.where(m == -np.inf, m.dtype.type(0), m)
    acc = np.exp(vals[0] - m)
    for v in vals[1:]:
        acc = acc + np.exp(v - m)
    with np.errstate(divide="ignore"):  # every operand -inf: log(0) = -inf, as PyTorch
        return np.log(acc) + m


def _ctc_grad_as_pytorch(lpv, ext, skip, il, tl, gr):
    """PyTorch's CPU ``ctc_loss_backward`` (float32, its order of operations) on the host: the alpha
    and beta recursions in log space, ``log(alpha * beta)`` gathered per class, then
    ``(exp(lp) - exp(lcab + nll - lp)) * grad_out`` over each sample's frames."""
    import numpy as np
    T, N, C = lpv.shape
    L = ext.shape[1]
    dt = lpv.dtype
    ninf = dt.type(-np.inf)
    ar = np.arange(N)
    lpe = np.take_along_axis(lpv, np.broadcast_to(ext[None], (T, N, L)), 2)  # (T, N, L)
    valid = np.arange(L)[None, :] <= 2 * tl[:, None]  # (N, L)
    la = np.full((T, N, L), ninf, dt)
    la[0, :, 0] = lpe[0, :, 0]
    la[0, :, 1] = np.where(tl > 0, lpe[0, :, 1], ninf)
    pad1, pad2 = np.full((N, 1), ninf, dt), np.full((N, 2), ninf, dt)
    for t in range(1, T):
        prev = la[t - 1]
        v2 = np.concatenate([pad1, prev[:, :-1]], 1)
        v3 = np.where(skip, np.concatenate([pad2, prev[:, :-2]], 1), ninf)
        la[t] = _lse_f32(prev, v2, v3) + lpe[t]
    last = il - 1
    e2, e1 = 2 * tl, np.maximum(2 * tl - 1, 0)
    l1 = la[last, ar, e2]
    l2 = np.where(tl > 0, la[last, ar, e1], ninf)
    nllv = -_lse_f32(l1, l2)  # the forward's loss, as its float32 kernel computes it
    G = np.full((T, N, C), ninf, dt)
    lb_next = np.full((N, L), ninf, dt)
    for t in range(T - 1, -1, -1):
        init = last == t
        rec = t < last
        lb = np.full((N, L), ninf, dt)
        if rec.any():
            v2 = np.concatenate([lb_next[:, 1:], pad1], 1)
            skip_up = np.concatenate([skip[:, 2:], np.zeros((N, 2), bool)], 1)
            v3 = np.where(skip_up, np.concatenate([lb_next[:, 2:], pad2], 1), ninf)
            lb = np.where(rec[:, None] & valid, _lse_f32(lb_next, v2, v3) + lpe[t], ninf)
            for s in range(L - 1, -1, -1):
                on = rec & valid[:, s]
                if not on.any():
                    continue
                n = ar[on]
                lab = la[t, n, s] + lb[n, s]
                c = ext[n, s]
                cur = G[t, n, c]
                G[t, n, c] = np.where(cur == ninf, lab, _lse_f32(cur, lab))
        if init.any():
            n = ar[init]
            lb[n, e2[n]] = lpe[t, n, e2[n]]
            G[t, n, ext[n, e2[n]]] = la[t, n, e2[n]] + lb[n, e2[n]]
            n = ar[init & (tl > 0)]
            lb[n, e1[n]] = lpe[t, n, e1[n]]
            G[t, n, ext[n, e1[n]]] = la[t, n, e1[n]] + lb[n, e1[n]]
        lb_next = lb
    grad = (np.exp(lpv) - np.exp(G + nllv[None, :, None] - lpv)) * gr[None, :, None]
    return np.where((np.arange(T)[:, None] < il[None, :])[..., None], grad, dt.type(0))


def _ctc_nll_host_grad(lp, ext, skip, il, tl, frames, zero_infinity):
    """The loss by :func:`_ctc_nll` without its graph, and one recorded node whose gradient is
    PyTorch's float32 kernel's (:func:`_ctc_grad_as_pytorch`: an infinite loss gives its -inf / NaN
    gradient, or 0 under ``zero_infinity``)."""
    import numpy as np
    from .._core import K, record, wrap
    from .._ops.creation import tensor
    with no_grad():
        nll = _ctc_nll(lp, ext, skip, il, tl, frames)
    out = wrap(K.identity(nll))
    lpv = lp.detach().numpy()
    inf = np.isinf(nll.numpy())

    def bw(g):
        with np.errstate(invalid="ignore", over="ignore"):
            grad = _ctc_grad_as_pytorch(lpv, ext, skip, il, tl, np.asarray(g.numpy(), lpv.dtype))
        if zero_infinity:
            grad[:, inf] = 0
        return (tensor(grad),)
    record("CtcLossBackward0", out, (lp,), bw)
    return out


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """msnb implementation of ``torch.nn.functional.ctc_loss``: the CTC forward (alpha) recursion in
    log space over the blank-extended targets, one step per time frame for the whole batch.

    Its gradient with respect to ``log_probs`` is PyTorch's: besides ``d loss / d log_probs`` it has
    PyTorch's ``exp(log_probs)`` term (PyTorch's kernel assumes ``log_probs`` come from
    ``log_softmax``, through which that term cancels)."""
    import numpy as np
    from .._ops import shape as S
    from .._ops.creation import full, tensor
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T, N, C = lp.shape
    il = np.asarray(input_lengths.tolist() if hasattr(input_lengths, "tolist") else input_lengths,
                    np.int64).reshape(-1)
    tl = np.asarray(target_lengths.tolist() if hasattr(target_lengths, "tolist") else target_lengths,
                    np.int64).reshape(-1)
    tg = targets.numpy().astype(np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    if tg.ndim == 1:  # concatenated targets
        offs = np.concatenate([[0], np.cumsum(tl)[:-1]])
        smax = int(tl.max()) if tl.size else 0
        padded = np.full((N, max(smax, 1)), blank, np.int64)
        for n in range(N):
            padded[n, :tl[n]] = tg[offs[n]:offs[n] + tl[n]]
        tg = padded
    if (il > T).any() or (il < 0).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {int(il.max())}")
    S_ = max(int(tg.shape[1]), 1)
    L = 2 * S_ + 1
    ext = np.full((N, L), blank, np.int64)
    ext[:, 1::2] = tg[:, :S_] if tg.shape[1] else blank
    skip = np.zeros((N, L), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    frames = tensor((np.arange(T)[:, None] < il[None, :]).astype(lp.dtype.numpy)).unsqueeze(2)
    from .._core import needs_grad
    host = lp.dtype is D.float32 and needs_grad(lp) and T > 0 and bool((il >= 1).all())
    nll = _ctc_nll_host_grad(lp, ext, skip, il, tl, frames, zero_infinity) if host else \
        _ctc_nll(lp, ext, skip, il, tl, frames)
    if zero_infinity:
        nll = P.where(P.eq(nll, float("inf")), full((), 0.0, dtype=lp.dtype), nll)
    elif not host:
        nll = _nan_grad_for_infinite(nll, lp, frames)
    if unbatched:
        nll = nll.squeeze(0)
    if reduction == "mean":
        return Rd.mean(P.div(nll, tensor(np.maximum(tl, 1).astype(lp.dtype.numpy)).reshape(nll.shape)))
    if reduction == "sum":
        return Rd.sum(nll)
    if reduction == "none":
        return nll
    raise ValueError(f"{reduction} is not a valid value for reduction")
