"""Differential tests for layers PyTorch's ModuleInfo database does not replay
(or replays only partly): Upsample and its fixed-mode forms, LP pooling,
TripletMarginLoss."""

import numpy as np
import pytest

from ..harness import compare

rng = np.random.default_rng(0)
X4 = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
X3 = rng.standard_normal((2, 3, 8)).astype(np.float32)

NAMES = ("torch.nn.Upsample", "torch.nn.UpsamplingNearest2d", "torch.nn.UpsamplingBilinear2d",
         "torch.nn.functional.lp_pool1d", "torch.nn.functional.lp_pool2d", "torch.nn.TripletMarginLoss")


@pytest.mark.parametrize("make", [
    lambda t: t.nn.Upsample(scale_factor=2), lambda t: t.nn.Upsample(size=(6, 5), mode="bilinear"),
    lambda t: t.nn.UpsamplingNearest2d(scale_factor=2), lambda t: t.nn.UpsamplingBilinear2d(size=(7, 7)),
], ids=["upsample-nearest", "upsample-bilinear", "nearest2d", "bilinear2d"])
def test_upsampling_modules(make):
    compare(lambda t, x: make(t)(x), X4, rtol=1e-4, atol=1e-5)


def test_lp_pooling():
    compare(lambda t, x: t.nn.functional.lp_pool2d(x.abs() + 0.1, 2.0, 2), X4, rtol=1e-4, atol=1e-5)
    compare(lambda t, x: t.nn.functional.lp_pool1d(x.abs() + 0.1, 3.0, 3, stride=2), X3, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss(swap):
    a, p, n = (rng.standard_normal((4, 5)).astype(np.float32) for _ in range(3))
    compare(lambda t, x, y, z: t.nn.TripletMarginLoss(margin=0.5, swap=swap)(x, y, z), a, p, n,
            rtol=1e-4, atol=1e-5)
