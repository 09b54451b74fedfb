"""relu's backward is two kernels (equal, masked_fill), linear's float32 forward
MatMul + Add instead of MindSpore's Dense and its weight gradient one transposing
MatMul (benchmarks/op_overhead.py ``mlp_step``: 57 -> 44 kernels): the gradients and
values stay PyTorch's, edge values included."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

from .._kernel_log import kernel_names

# (no subnormals: whether MindSpore's kernels flush them depends on what the process loaded before)
_Y = [1.0, 0.0, -0.0, -2.0, np.nan, 3.5, np.inf, -np.inf, 1e-30, -1e-30]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_is_two_kernels_with_pytorch_gradients(dtype):
    """The upstream gradient holds NaN and infinities on both sides of 0: PyTorch gives 0
    where the output is 0 whatever the gradient (``g * (y != 0)`` gave NaN there), and a
    NaN output passes the gradient (MindSpore's ReluGrad kernel would give 0)."""
    x = np.array(_Y * 2, dtype)
    g = np.array([np.nan, np.nan, np.inf, -np.inf, 2.0, 5.0, np.nan, 1.0, -3.0, 7.0] * 2, dtype)
    got = []
    for lib in (mt, real):
        t = lib.tensor(x, requires_grad=True)
        y = lib.relu(t)
        if lib is mt:
            with kernel_names() as names:
                y.backward(lib.tensor(g))
        else:
            y.backward(lib.tensor(g))
        got.append(t.grad)
    assert names.count("relu_grad") == 1 and "ne" not in names and "mul" not in names, names
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


@pytest.mark.parametrize("shape", [(100, 784), (5,), (2, 3, 8)], ids=str)
def test_linear_float32_matches_pytorch_values_and_gradients(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((7, shape[-1])).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    outs = []
    for lib in (mt, real):
        ts = [lib.tensor(v, requires_grad=True) for v in (x, w, b)]
        with kernel_names() as names:
            out = lib.nn.functional.linear(*ts)
            out.sum().backward()
        outs.append([out.detach().numpy(), *(t.grad.numpy() for t in ts)])
        if lib is mt:  # the weight gradient without a transposed copy (nor a reshape of a matrix)
            assert "transpose" not in names and names.count("matmul_tn") == 1, names
            assert "reshape" not in names or len(shape) != 2, names
    assert outs[0][0].shape == outs[1][0].shape
    for a, r in zip(*outs):
        np.testing.assert_allclose(a, r, rtol=1e-5, atol=1e-4)
