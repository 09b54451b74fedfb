"""Kernels get adapter tensors as plain MindSpore tensors, and only for the call.

``_ms.plain_args`` re-classes adapter tensors so MindSpore takes its fast
argument path (and its own Python code sees MindSpore's methods).  A tensor
left re-classed after the call would silently lose every torch method, so
each way out of a kernel is checked."""

from __future__ import annotations

import mindspore as ms
import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter._dispatch import K
from msnb.adapter._ms import plain_args

Tensor = torch.Tensor


def test_kernel_sees_plain_tensors_and_the_caller_gets_adapter_tensors_back():
    seen = []
    probe = plain_args(lambda a, b, scale=1: seen.append((type(a), type(b))) or ms.ops.add(a, b) * scale)
    x, y = torch.ones(3), torch.arange(3.0)
    out = probe(x, y, scale=2)
    assert seen == [(ms.Tensor, ms.Tensor)]
    assert type(x) is Tensor and type(y) is Tensor
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 4.0, 6.0])
    assert x.add(1).tolist() == [2.0, 2.0, 2.0]  # torch methods still there


def test_a_failing_kernel_restores_the_class():
    def boom(a, b):
        raise ValueError("kernel failed")
    x = torch.ones(2)
    with pytest.raises(ValueError, match="kernel failed"):
        plain_args(boom)(x, x)
    assert type(x) is Tensor


def test_interrupt_inside_the_kernel_restores_the_class():
    def interrupted(a):
        raise KeyboardInterrupt
    x = torch.zeros(2)
    with pytest.raises(KeyboardInterrupt):
        plain_args(interrupted)(x)
    assert type(x) is Tensor


def test_same_tensor_twice_and_parameters_keep_their_class():
    seen = []
    p = torch.nn.Parameter(torch.ones(2))
    x = torch.ones(2)
    plain_args(lambda a, b, c: seen.append((type(a), type(b), type(c))))(x, x, p)
    assert seen == [(ms.Tensor, ms.Tensor, type(p))]
    assert type(x) is Tensor and type(p) is torch.nn.Parameter


def test_every_dispatch_kernel_goes_through_it():
    """The one dispatch point applies it, so no op pays MindSpore's subclass path."""
    assert K.add.__wrapped__ in (ms.ops.add, ms.mint.add)
    from msnb.adapter import _dispatch
    assert K.matmul.__wrapped__ in (ms.ops.matmul, ms.mint.matmul, _dispatch._matmul_cpu)  # CPU: zero-size guard
