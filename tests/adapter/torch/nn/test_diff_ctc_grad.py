"""Differential tests of ``F.ctc_loss``'s float32 gradient against real PyTorch:
msnb computes it as PyTorch's CPU kernel does (log-space alpha/beta in float32,
its order of operations), so elements where ``exp(lp)`` and the alpha-beta term
nearly cancel agree too (the float64 autodiff gradient was off by ~3e-5 relative
on 13 of 16000 elements of PyTorch's own OpInfo sample).  Varying input and
target lengths, empty targets, concatenated targets, unbatched input, every
reduction; an infinite loss keeps PyTorch's NaN / zero_infinity gradients."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import real, mt

rng = np.random.default_rng(5)
T, N, C = 30, 6, 9


def _run(t, lp, tg, il, tl, **kw):
    x = t.tensor(lp, requires_grad=True)
    y = t.nn.functional.ctc_loss(x, t.tensor(tg), t.tensor(il), t.tensor(tl), **kw)
    w = t.tensor(np.linspace(0.5, 1.5, int(np.prod(y.shape))).astype(np.float32).reshape(tuple(y.shape)))
    (y * w).sum().backward()
    return y.detach().numpy(), x.grad.numpy()


def _inputs(unbatched=False, concat=False, empty=False):
    # log-probabilities (PyTorch's log_softmax of them, so both libraries start from the same bits)
    lp = real.tensor(rng.standard_normal((T, N, C)) * 3, dtype=real.float32).log_softmax(2).numpy()
    il = rng.integers(T // 2, T + 1, N)
    tl = rng.integers(0 if empty else 1, 10, N)
    tg = rng.integers(1, C, (N, 10))
    if concat:
        tg = np.concatenate([tg[n, :tl[n]] for n in range(N)])
    if unbatched:
        return lp[:, 0], tg[:1].reshape(-1)[:tl[0]] if not concat else tg[:tl[0]], il[:1], tl[:1]
    return lp, tg, il, tl


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("form", ["padded", "concat", "empty_targets", "unbatched"])
def test_ctc_gradient_matches_torch(reduction, form):
    args = _inputs(unbatched=form == "unbatched", concat=form == "concat", empty=form == "empty_targets")
    rv, rg = _run(real, *args, reduction=reduction)
    mv, mg = _run(mt, *args, reduction=reduction)
    np.testing.assert_allclose(mv, rv, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mg, rg, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_infinite_loss_gradient_as_torch(zero_infinity):
    """A target longer than its input: PyTorch's loss is inf (or 0) and its gradient NaN (or 0)."""
    lp, tg, il, tl = _inputs()
    il = il.copy()
    il[2] = 3
    tl = tl.copy()
    tl[2] = 8
    rv, rg = _run(real, lp, tg, il, tl, reduction="none", zero_infinity=zero_infinity)
    mv, mg = _run(mt, lp, tg, il, tl, reduction="none", zero_infinity=zero_infinity)
    np.testing.assert_allclose(mv, rv, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mg, rg, rtol=1e-4, atol=1e-5)
