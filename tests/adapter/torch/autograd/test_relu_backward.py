"""relu's backward is PyTorch's threshold_backward, a select (a product ``g * (y != 0)`` gives NaN
from 0 * NaN where PyTorch gives 0; MindSpore's one-kernel ReluGrad gives 0 where the output is
NaN, where PyTorch passes the gradient): edge values compared with real torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

from .._kernel_log import kernel_names

# (no subnormals: whether MindSpore's kernels flush them depends on what the process loaded before)
_Y = [1.0, 0.0, -0.0, -2.0, 3.5, np.inf, -np.inf, 1e-30, -1e-30, np.nan]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_gives_pytorch_gradients_at_edge_values(dtype):
    """The upstream gradient holds NaN and infinities on both sides of 0: PyTorch gives 0
    where the output is <= 0 whatever the gradient (a product ``g * (y > 0)`` gave NaN there),
    and passes the gradient where the output is NaN (MindSpore's ReluGrad gives 0 there)."""
    x = np.array(_Y * 2, dtype)
    g = np.array([np.nan, np.nan, np.inf, -np.inf, 2.0, np.nan, 1.0, -3.0, 7.0, 5.0] * 2, dtype)
    got = []
    for lib in (mt, real):
        t = lib.tensor(x, requires_grad=True)
        y = lib.relu(t)
        with kernel_names() as names:
            y.backward(lib.tensor(g))
        got.append(t.grad)
        if lib is mt:
            assert "mul" not in names, names
    assert str(got[0].dtype) == str(got[1].dtype)
    np.testing.assert_array_equal(got[0].numpy(), got[1].numpy())


def test_relu_double_backward_keeps_the_recorded_formula():
    """With ``create_graph=True`` the gradient is itself recorded (differentiable in ``g``)."""
    res = []
    for lib in (mt, real):
        x = lib.tensor([1.5, -2.0, 0.5], requires_grad=True)
        g = lib.tensor([2.0, 3.0, -1.0], requires_grad=True)
        (gx,) = lib.autograd.grad(lib.relu(x), x, g, create_graph=True)
        gx.sum().backward()
        res.append((gx.detach().numpy(), g.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)
