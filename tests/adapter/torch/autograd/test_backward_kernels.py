"""Backward passes launch no kernel PyTorch's semantics do not need.

Broadcast 0-d parameters and basic indexing (``x[i]``) are the hot paths of
small-op programs.

A 0-d parameter times a vector reduces its gradient with one sum: no reshape
kernel after it (that reshape also made the gradient a view, so
``AccumulateGrad`` copied it, twice): the PyTorch tutorial's polynomial fit
with five 0-d parameters launched ~61 kernels a step, ~40 now (with SGD's
one-kernel update, tests/adapter/torch/optim/test_add_alpha_rounding.py).  Basic indexing's gradient is written into fresh zeros
without copying them, and a gradient that must be copied as it becomes
``.grad`` is copied once (it was ``detach()`` and ``clone()``: two copies).
Gradients stay PyTorch's."""

from __future__ import annotations

import numpy as np
import torch as real

import msnb.adapter.torch as mt

from .._kernel_log import kernel_names


def _poly(lib, x, params):
    a, b, c = params
    return ((a + b * x + c * x ** 2 - lib.sin(x)) ** 2).sum()


def test_no_reshape_or_copy_kernel_and_pytorch_gradients():
    xs = np.linspace(-3, 3, 50, dtype=np.float32)
    init = [np.float32(v) for v in (0.3, -0.7, 0.2)]
    mp = [mt.nn.Parameter(mt.tensor(v)) for v in init]
    loss = _poly(mt, mt.tensor(xs), mp)
    with kernel_names() as names:
        loss.backward()
    assert "reshape" not in names and "identity" not in names, names
    rp = [real.nn.Parameter(real.tensor(v)) for v in init]
    _poly(real, real.tensor(xs), rp).backward()
    for m, r in zip(mp, rp):
        assert m.grad.shape == r.grad.shape == ()
        assert not m.grad._is_alias()
        np.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), rtol=1e-5)


def test_a_second_backward_accumulates_without_copying():
    w = mt.nn.Parameter(mt.tensor(np.float32(2.0)))
    x = mt.tensor(np.arange(4, dtype=np.float32))
    (w * x).sum().backward()
    first = w.grad
    (w * x).sum().backward()
    assert w.grad.item() == 12.0 and first.item() == 6.0  # a new tensor: the first one is unchanged


def test_indexing_gradient_is_written_into_fresh_zeros():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = mt.tensor(a, requires_grad=True)
    y = (x[1] * 2).sum() + x[2, 1:3].sum() * 3 + x[0][2] * 5
    with kernel_names() as names:
        y.backward()
    # one copy at most, where the summed gradient becomes ``x.grad`` (the engine still holds it
    # there); before, each of the three puts copied its zeros and the leaf copied twice
    assert names.count("identity") <= 1, names
    r = real.tensor(a, requires_grad=True)
    ((r[1] * 2).sum() + r[2, 1:3].sum() * 3 + r[0][2] * 5).backward()
    np.testing.assert_array_equal(x.grad.numpy(), r.grad.numpy())


def test_indexing_double_backward_is_pytorch():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = []
    for lib in (mt, real):
        x = lib.tensor(a, requires_grad=True)
        g, = lib.autograd.grad((x[1] ** 3).sum(), x, create_graph=True)
        g.sum().backward()
        out.append(x.grad.numpy())
    np.testing.assert_array_equal(*out)
