"""AutoAugment / RandAugment / TrivialAugmentWide / AugMix and their image ops against real torchvision.

Real torchvision cannot be installed next to msnb's torch, so
``tools/tv_reference_facts.py --augment`` ran the cases of
``_tv_augment_cases.py`` once with real torchvision 0.29 and stored the
outputs in ``data/tv_augment_facts.pt``.  Here msnb runs the same cases on
the same pixels: uint8 outputs (tensor path and PIL path) must be equal,
float32 ones within 1e-6, errors the same type and message, and every
random transform must give torchvision's output after the same
``torch.manual_seed`` (so it draws the same numbers in the same order).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch as real
from PIL import Image

import msnb.adapter.torch as torch
from msnb.adapter.torchvision import transforms as T
from msnb.adapter.torchvision.transforms import functional as F

from . import _tv_augment_cases as cases

FACTS = real.load(Path(__file__).with_name("data") / "tv_augment_facts.pt", weights_only=True)


def _unpack(packed):
    """name -> numpy output (inverse of the generator's ``_pack``), plus the error strings."""
    out = dict(packed["errors"])
    for group in ("torch.uint8", "torch.float32"):
        if group not in packed:
            continue
        flat, pos = packed[group]["data"].numpy(), 0
        for name, shape in zip(packed[group]["names"], packed[group]["shapes"]):
            n = int(np.prod(shape))
            out[name] = flat[pos:pos + n].reshape(shape)
            pos += n
    return out


FUNCTIONAL = _unpack(FACTS["functional"])
TRANSFORMS = _unpack(FACTS["transforms"])
RGB = FACTS["images"]["rgb"].numpy()
GRAY = FACTS["images"]["gray"].numpy()


def _inputs():
    return {"tensor_rgb": torch.from_numpy(RGB.copy()), "tensor_gray": torch.from_numpy(GRAY.copy()),
            "pil_rgb": Image.fromarray(RGB.transpose(1, 2, 0), "RGB"), "pil_gray": Image.fromarray(GRAY[0], "L"),
            "float_rgb": torch.from_numpy(RGB.copy()).float() / 255}


def _as_array(out):
    if isinstance(out, Image.Image):
        return np.asarray(F.pil_to_tensor(out).numpy())
    return np.asarray(out.numpy())


def _outcome(fn):
    try:
        return _as_array(fn())
    except Exception as e:  # noqa: BLE001  (compared with torchvision's recorded error)
        return f"{type(e).__name__}: {e}"


def _check(got, expected, what):
    if isinstance(expected, str):
        assert got == expected, what
        return
    assert not isinstance(got, str), f"{what}: {got}"
    assert got.shape == expected.shape, what
    if expected.dtype == np.uint8:
        assert got.dtype == np.uint8, what
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("name,fn", cases.functional_cases(T, F), ids=[n for n, _ in cases.functional_cases(T, F)])
def test_functional_op_matches_torchvision(name, fn):
    """Each op on uint8 RGB/gray tensors and PIL images (and a float copy) gives torchvision's output or error."""
    inputs = _inputs()
    kinds = ["tensor_rgb", "tensor_gray", "pil_rgb", "pil_gray"] + (["float_rgb"] if cases.float_case(name) else [])
    for kind in kinds:
        _check(_outcome(lambda: fn(inputs[kind])), FUNCTIONAL[f"{kind}_{name}"], f"{kind}_{name}")


@pytest.mark.parametrize("name", list(cases.augment_transforms(T)))
def test_transform_matches_torchvision_per_seed(name):
    """After ``torch.manual_seed(s)`` each transform returns torchvision's image (tensor, PIL, gray inputs)."""
    t = cases.augment_transforms(T)[name]()
    assert repr(t) == FACTS["reprs"][name]
    inputs = _inputs()
    for kind, seeds in cases.SEEDS.items():
        expected = TRANSFORMS[f"{name}/{kind}"]
        for i, seed in enumerate(seeds):
            torch.manual_seed(seed)
            _check(_as_array(t(inputs[kind])), expected[i], f"{name}/{kind} seed {seed}")


def test_errors_match_torchvision():
    """Bad inputs raise torchvision's exception types with its messages."""
    rgb = torch.from_numpy(RGB.copy())
    for name, fn in cases.error_cases(T, F, rgb, torch.cat).items():
        assert _outcome(fn) == FACTS["errors"][name], name


def test_transform_draws_advance_the_stream_as_torchvision():
    """Seeded draws after a transform continue torchvision's stream: the next ``torch.rand`` is the same
    as after the recorded number of draws (a transform that drew a different count would shift it)."""
    img = torch.from_numpy(RGB.copy())
    torch.manual_seed(3)
    T.AutoAugment()(img)
    after = float(torch.rand(1).item())
    torch.manual_seed(3)
    torch.randint(25, (1,))
    torch.rand((2,))
    torch.randint(2, (2,))
    assert after == float(torch.rand(1).item())


def test_augmix_keeps_type_dtype_and_batch_shape():
    """AugMix returns a PIL image for a PIL input, and a uint8 batch (N, C, H, W) keeps its shape and dtype
    with each image mixed with its own Dirichlet weights."""
    torch.manual_seed(0)
    out = T.AugMix()(Image.fromarray(RGB.transpose(1, 2, 0), "RGB"))
    assert isinstance(out, Image.Image) and out.size == (10, 12)
    batch = torch.from_numpy(np.stack([RGB, RGB]))
    torch.manual_seed(0)
    y = T.AugMix(chain_depth=1)(batch)
    assert y.dtype == torch.uint8 and tuple(y.shape) == (2, 3, 12, 10)
    a = np.asarray(y.numpy())
    assert not np.array_equal(a[0], a[1])
