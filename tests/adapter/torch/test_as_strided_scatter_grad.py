"""``torch.as_strided_scatter``'s gradient w.r.t. its input: the scattered positions are
overwritten, so the gradient there is zero and elsewhere it is the incoming gradient.

PyTorch 2.13's CPU autograd returns the opposite (the incoming gradient on the scattered
positions, zero elsewhere) and fails its own ``gradcheck`` on these inputs (its OpInfo marks
``test_fn_grad`` an expected failure, so the OpInfo replay takes the numerical gradient as the
oracle there): msnb is checked here against finite differences and against PyTorch's forward
values instead.""" 

from __future__ import annotations

import numpy as np
import pytest
import torch

import msnb.adapter.torch as mt

GEOMETRIES = [((3, 3), (2, 2), (2, 2), (1, 2), 0), ((3, 3), (2, 2), (2, 2), (1, 2), 1),
              ((16,), (2, 1, 1, 2), (2, 1, 1, 2), (1, 2, 4, 8), 0), ((1,), (), (), (), 0)]


def _finite_difference(x, src, size, stride, off, g, eps=1e-6):
    def f(v):
        y = torch.as_strided_scatter(torch.tensor(v), torch.tensor(src), size, stride, storage_offset=off)
        return float((y.numpy() * g).sum())
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    for i in range(flat.size):
        step = flat.copy()
        step[i] += eps
        out[i] = (f(step.reshape(x.shape)) - f(x)) / eps
    return out.reshape(x.shape)


@pytest.mark.parametrize("shape,src_shape,size,stride,off", GEOMETRIES)
def test_input_gradient_is_the_finite_difference(shape, src_shape, size, stride, off):
    rng = np.random.default_rng(0)
    x, src = rng.standard_normal(shape), rng.standard_normal(src_shape)
    g = rng.standard_normal(shape)
    mx, ms = mt.tensor(x, requires_grad=True), mt.tensor(src, requires_grad=True)
    y = mt.as_strided_scatter(mx, ms, size, stride, storage_offset=off)
    ref = torch.as_strided_scatter(torch.tensor(x), torch.tensor(src), size, stride, storage_offset=off)
    np.testing.assert_allclose(y.detach().numpy(), ref.numpy(), rtol=1e-12)
    (y * mt.tensor(g)).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), _finite_difference(x, src, size, stride, off, g), atol=1e-5)
    # the source's gradient is the incoming gradient read at the strided positions (PyTorch agrees)
    rs = torch.tensor(src, requires_grad=True)
    (torch.as_strided_scatter(torch.tensor(x), rs, size, stride, storage_offset=off) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ms.grad.numpy(), rs.grad.numpy(), rtol=1e-12)
