"""Convolutions and pooling in dtypes MindSpore 2.10's CPU kernels do not take (int64 everywhere,
float64 in 3-d and in transposed convolutions' gradients), against real PyTorch: integer results
must be exact (values near 2**40 would lose digits in a float computation), average pooling of
integers truncates toward zero, and float64 gradients flow."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

rng = np.random.default_rng(7)
BIG = rng.integers(-2**40, 2**40, (2, 4, 6, 5)).astype(np.int64)
W = rng.integers(-7, 8, (6, 2, 3, 2)).astype(np.int64)
SMALL = rng.integers(-9, 10, (1, 2, 5, 4, 6)).astype(np.int64)


def _same(r, m):
    np.testing.assert_array_equal(m.numpy(), r.numpy())
    assert str(m.dtype) == str(r.dtype)


@pytest.mark.parametrize("fn", [
    lambda F, x, w: F.conv2d(x, w, stride=(2, 1), padding=1, groups=2),
    lambda F, x, w: F.conv2d(x, w, dilation=(2, 1), padding="same", groups=2),
    lambda F, x, w: F.conv1d(x[:, :, 0], w[:, :, 0], padding=2, groups=2),
    lambda F, x, w: F.conv_transpose2d(x, w[:4], stride=2, output_padding=1),
], ids=["conv2d", "conv2d_same", "conv1d", "conv_transpose2d"])
def test_int64_convolution_is_exact(fn):
    r = fn(real.nn.functional, real.tensor(BIG), real.tensor(W))
    m = fn(mt.nn.functional, mt.tensor(BIG), mt.tensor(W))
    _same(r, m)


@pytest.mark.parametrize("fn", [
    lambda F, x: F.avg_pool3d(x, 2, padding=1),
    lambda F, x: F.avg_pool2d(x[0], 3, stride=1, padding=1, count_include_pad=False),
    lambda F, x: F.avg_pool1d(x[0, 0], 4, ceil_mode=True),
    lambda F, x: F.max_pool3d(x, (2, 3, 2), stride=1, padding=1),
    lambda F, x: F.hardtanh(x, -2.5, 3.7),
    lambda F, x: F.relu6(x),
], ids=["avg_pool3d", "avg_pool2d", "avg_pool1d", "max_pool3d", "hardtanh", "relu6"])
def test_int64_pooling_keeps_dtype_and_truncates(fn):
    _same(fn(real.nn.functional, real.tensor(SMALL)), fn(mt.nn.functional, mt.tensor(SMALL)))


def test_float64_conv3d_and_conv_transpose2d_gradients():
    x = rng.standard_normal((1, 2, 4, 5, 3))
    w = rng.standard_normal((3, 2, 2, 3, 2))
    outs = []
    for lib in (real, mt):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv3d(xt, wt, padding=1)
        z = lib.nn.functional.conv_transpose2d(xt[:, :, 0], wt[:2, :, 0], stride=2)
        (y.sin().sum() + z.cos().sum()).backward()
        outs.append([y.detach().numpy(), z.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()])
    for r, m in zip(*outs):
        np.testing.assert_allclose(m, r, rtol=1e-10, atol=1e-10)
