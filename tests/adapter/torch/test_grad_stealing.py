"""A fresh gradient becomes ``.grad`` without a copy; a shared one is copied.

Copying every gradient (``detach()`` makes a copy in the adapter) cost one
kernel per parameter per step.  The engine now keeps a gradient as it is
when nothing else references it, as PyTorch's ``AccumulateGrad`` does; these
checks pin both sides: no copy in the plain case, and a copy whenever the
tensor is also the user's, a hook's, or another parameter's."""

from __future__ import annotations

import numpy as np
import torch as real

import msnb.adapter.torch as torch
from msnb.adapter.torch._ops import shape as S


def _count_detaches(monkeypatch):
    calls = []
    orig = S.detach

    def counting(t):
        calls.append(t)
        return orig(t)
    monkeypatch.setattr(S, "detach", counting)
    return calls


def test_plain_backward_copies_no_gradient(monkeypatch):
    lin = torch.nn.Linear(3, 2)
    calls = _count_detaches(monkeypatch)
    x = torch.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    (lin(x) ** 2).sum().backward()
    assert len(calls) < 2  # weight's gradient is kept as it is (bias may be shared with a temporary)
    ref = real.nn.Linear(3, 2)
    with real.no_grad():
        ref.weight.copy_(real.tensor(lin.weight.detach().numpy()))
        ref.bias.copy_(real.tensor(lin.bias.detach().numpy()))
    (ref(real.tensor(x.numpy())) ** 2).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(lin.bias.grad.numpy(), ref.bias.grad.numpy(), rtol=1e-5)


def test_a_gradient_the_user_passed_is_copied():
    w = torch.ones(3, requires_grad=True)
    t = torch.tensor([1.0, 2.0, 3.0])
    w.backward(gradient=t)
    assert w.grad is not t
    w.grad.mul_(10)
    assert t.tolist() == [1.0, 2.0, 3.0]
    (w + 1).backward(gradient=t)  # through a node that passes the gradient on unchanged
    assert t.tolist() == [1.0, 2.0, 3.0] and w.grad.tolist() == [11.0, 22.0, 33.0]


def test_one_gradient_for_two_parameters_is_not_shared():
    """``a + b`` hands the same gradient object to both leaves."""
    a, b = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    (a + b).sum().backward()
    assert a.grad is not b.grad
    a.grad.add_(5)
    assert b.grad.tolist() == [1.0, 1.0] and a.grad.tolist() == [6.0, 6.0]


def test_a_hook_result_kept_elsewhere_is_copied():
    kept = torch.tensor([7.0, 7.0])
    w = torch.ones(2, requires_grad=True)
    w.register_hook(lambda g: kept)
    (w * 3).sum().backward()
    assert w.grad is not kept
    w.grad.zero_()
    assert kept.tolist() == [7.0, 7.0]


def test_accumulation_over_two_backward_calls():
    w = torch.ones(2, requires_grad=True)
    (w * 2).sum().backward()
    first = w.grad
    (w * 3).sum().backward()
    assert w.grad.tolist() == [5.0, 5.0]
    assert first.tolist() == [2.0, 2.0]  # accumulation is out of place, as in PyTorch
