"""torchvision.utils / package surface on msnb."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

import msnb.adapter.torch as torch
import msnb.adapter.torchvision as torchvision
from msnb.adapter.torchvision.utils import make_grid, save_image


def grid_shape(n, c, h, w, nrow=8, padding=2):
    xmaps = min(nrow, n)
    ymaps = int(math.ceil(n / xmaps))
    return (c, (h + padding) * ymaps + padding, (w + padding) * xmaps + padding)


@pytest.mark.parametrize("n,nrow,padding", [(5, 8, 2), (5, 2, 2), (9, 3, 0), (16, 4, 1)])
def test_make_grid_shape(n, nrow, padding):
    x = torch.rand(n, 3, 7, 5)
    assert tuple(make_grid(x, nrow=nrow, padding=padding).shape) == grid_shape(n, 3, 7, 5, nrow, padding)


def test_make_grid_values():
    a = np.arange(2 * 1 * 2 * 2, dtype=np.float32).reshape(2, 1, 2, 2)
    g = make_grid(torch.from_numpy(a), nrow=2, padding=1, pad_value=-1).numpy()
    assert g.shape == (3, 4, 7)  # grayscale repeated to 3 channels
    np.testing.assert_array_equal(g[0, 1:3, 1:3], a[0, 0])
    np.testing.assert_array_equal(g[2, 1:3, 4:6], a[1, 0])
    assert g[0, 0, 0] == -1 and g[1, 3, 6] == -1
    # normalize: whole batch to [0, 1]
    n = make_grid(torch.from_numpy(a), normalize=True, padding=0).numpy()
    np.testing.assert_allclose(n[0], np.concatenate([a[0, 0], a[1, 0]], axis=1) / 7.0)
    r = make_grid(torch.from_numpy(a), normalize=True, value_range=(0.0, 3.0), padding=0).numpy()
    assert r.max() == 1.0 and r[0, 0, 1] == pytest.approx(1 / 3)
    single = make_grid(torch.from_numpy(a[0]))
    assert tuple(single.shape) == (3, 2, 2)
    lst = make_grid([torch.from_numpy(a[0]), torch.from_numpy(a[1])], padding=0)
    assert tuple(lst.shape) == (3, 2, 4)


def test_save_image(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.random((2, 3, 4, 5)).astype(np.float32)
    p = tmp_path / "grid.png"
    save_image(torch.from_numpy(a), str(p), nrow=2, padding=0)
    img = np.asarray(Image.open(p))
    expected = np.clip(np.concatenate([a[0], a[1]], axis=2) * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    np.testing.assert_array_equal(img, expected)


def test_every_public_name_exists():
    assert torchvision.models.__name__ == "msnb.adapter.torchvision.models"
    for mod in (torchvision, torchvision.datasets, torchvision.utils, torchvision.transforms,
                torchvision.datasets.utils, torchvision.models):
        for name in mod.__all__:
            assert hasattr(mod, name), (mod.__name__, name)
    assert torchvision.get_image_backend() == "PIL"


def test_save_image_and_make_grid_on_a_tensor_that_requires_grad(tmp_path):
    """A GAN saves generator outputs straight away; torchvision runs both under
    no_grad, so neither refuses a tensor that requires grad."""
    x = torch.rand(4, 1, 3, 3, requires_grad=True)
    y = x * 2 - 1
    g = make_grid(y, nrow=2, normalize=True)
    assert not g.requires_grad
    save_image(y, str(tmp_path / "g.png"), nrow=2, normalize=True)
    assert Image.open(tmp_path / "g.png").size == (2 * 3 + 3 * 2, 2 * 3 + 3 * 2)
