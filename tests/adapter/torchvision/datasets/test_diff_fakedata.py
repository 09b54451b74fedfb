"""``torchvision.datasets.FakeData`` draws its items from PyTorch's random stream as
torchvision does (the global generator seeded with ``index + random_offset``:
``randn(image_size)``, then the ``randint`` label; state restored), checked against
that recipe run with real PyTorch: same pixels after ToPILImage/ToTensor (values wrap
modulo 256 as torchvision's ``byte()`` conversion), same labels, and the caller's
random stream untouched."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torchvision import datasets, transforms


def reference(index, size, classes, offset):
    state = real.get_rng_state()
    real.manual_seed(index + offset)
    img = real.randn(*size)
    label = int(real.randint(0, classes, size=(1,), dtype=real.long)[0])
    real.set_rng_state(state)
    pixels = (img.numpy() * 255).astype(np.int64) % 256  # ToPILImage's mul(255).byte(), then ToTensor's / 255
    return (pixels.astype(np.float32) / 255), label


@pytest.mark.parametrize("size, offset", [((3, 8, 6), 0), ((1, 5, 5), 7), ((3, 4, 4), 100)])
def test_items_are_torchvisions(size, offset):
    ds = datasets.FakeData(size=5, image_size=size, num_classes=10, transform=transforms.ToTensor(),
                           random_offset=offset)
    for i in (0, 3):
        want_img, want_label = reference(i, size, 10, offset)
        img, label = ds[i]
        assert label == want_label
        np.testing.assert_allclose(img.numpy(), want_img, rtol=0, atol=1e-6)


def test_the_callers_stream_is_left_alone():
    mt.manual_seed(5)
    real.manual_seed(5)
    datasets.FakeData(size=3, image_size=(3, 4, 4))[1]
    assert mt.rand(4).tolist() == pytest.approx(real.rand(4).tolist())
