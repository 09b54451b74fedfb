"""torchvision's random transforms make torchvision's choices after a seed.

Real torchvision is not installed next to the reference PyTorch, so the
oracle is torchvision's documented parameter draws spelled with real
PyTorch's calls (``torch.rand(1) < p``, ``torch.randint(0, n + 1, (1,))``,
``torch.empty(1).uniform_``, ``torch.randperm(4)`` ...)."""

import math

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torchvision import transforms as T

IMG = np.random.default_rng(1).random((3, 20, 24)).astype(np.float32)


def _u(lo, hi):
    return float(real.empty(1).uniform_(lo, hi).item())


def _ri(lo, hi):
    return int(real.randint(lo, hi, size=(1,)).item())


def _log_u(lo, hi):
    b = real.log(real.tensor((float(lo), float(hi))))
    return float(real.exp(real.empty(1).uniform_(b[0].item(), b[1].item())).item())


def ref_resized_crop(h, w, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    for _ in range(10):
        target = h * w * _u(*scale)
        aspect = _log_u(*ratio)
        cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            return _ri(0, h - ch + 1), _ri(0, w - cw + 1), ch, cw
    raise AssertionError("the test's image always yields a crop within 10 tries")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_parameter_draws(seed):
    real.manual_seed(seed)
    mt.manual_seed(seed)
    img = mt.tensor(IMG)
    assert T.RandomCrop.get_params(img, (8, 9)) == (_ri(0, 13), _ri(0, 16), 8, 9)
    assert T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3)) == ref_resized_crop(20, 24)
    assert T.RandomRotation.get_params([-30.0, 45.0]) == _u(-30.0, 45.0)
    fn_idx, b, c, s, h = T.ColorJitter.get_params((0.6, 1.4), (0.7, 1.3), None, (-0.1, 0.1))
    assert list(fn_idx) == real.randperm(4).tolist()
    assert (b, c, s, h) == (_u(0.6, 1.4), _u(0.7, 1.3), None, _u(-0.1, 0.1))
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_flips_grayscale_apply_follow_rand(seed):
    real.manual_seed(seed)
    mt.manual_seed(seed)
    img = mt.tensor(IMG)
    out = T.RandomHorizontalFlip(0.5)(img).numpy()
    np.testing.assert_array_equal(out, IMG[..., ::-1] if real.rand(1) < 0.5 else IMG)
    out = T.RandomVerticalFlip(0.5)(img).numpy()
    np.testing.assert_array_equal(out, IMG[:, ::-1] if real.rand(1) < 0.5 else IMG)
    out = T.RandomApply([T.RandomHorizontalFlip(1.0)], p=0.5)(img).numpy()
    applied = not 0.5 < real.rand(1)
    if applied:
        real.rand(1)  # the inner flip draws too, even with p=1
    np.testing.assert_array_equal(out, IMG[..., ::-1] if applied else IMG)
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("value", [0, "random"])
def test_random_erasing(seed, value):
    real.manual_seed(seed)
    mt.manual_seed(seed)
    out = T.RandomErasing(p=0.7, value=value)(mt.tensor(IMG)).numpy()
    want = IMG.copy()
    if real.rand(1) < 0.7:
        for _ in range(10):
            area = 20 * 24 * _u(0.02, 0.33)
            aspect = _log_u(0.3, 3.3)
            h, w = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if h < 20 and w < 24:
                v = real.empty([3, h, w]).normal_().numpy() if value == "random" else 0.0
                i, j = _ri(0, 20 - h + 1), _ri(0, 24 - w + 1)
                want[:, i:i + h, j:j + w] = v
                break
    np.testing.assert_array_equal(out, want)
