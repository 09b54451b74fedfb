"""linear's float32 forward runs MatMul + Add instead of MindSpore's Dense, and its
weight gradient one transposing MatMul without reshaping a matrix
(benchmarks/op_overhead.py ``mlp_step``): the values and gradients stay PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

from .._kernel_log import kernel_names


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
