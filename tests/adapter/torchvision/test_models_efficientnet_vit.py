"""EfficientNet, VisionTransformer and ResNet-101+ against facts measured from real torchvision.

Real torchvision cannot live in this venv, so ``tools/tv_reference_facts.py``
was run once in a venv that has it and wrote ``data/tv_facts.pt``: per
builder the parameter counts and a SHA-256 of the ordered ``key:shape:dtype``
list, small EfficientNet / EfficientNet-V2 / ViT configurations with their
real state_dict, input and eval output, and each ``*_Weights`` member's file
and preset.  Full-size models are slow to initialise on msnb's CPU path, so
only ``efficientnet_b0`` and ``vit_b_16`` (the ones public notebooks use) are
built here; the others were checked by hand (docs/torchvision-models.md).
"""

from __future__ import annotations

import hashlib
import math
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torchvision import models
from msnb.adapter.torchvision.models import _weights
from msnb.adapter.torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
from msnb.adapter.torchvision.models.vision_transformer import VisionTransformer

FACTS = real.load(Path(__file__).with_name("data") / "tv_facts.pt", weights_only=False)

#: the configurations tools/tv_reference_facts.py built with real torchvision
TINY = {
    "efficientnet": lambda: EfficientNet([MBConvConfig(1, 3, 1, 8, 8, 1), MBConvConfig(6, 5, 2, 8, 16, 2),
                                          MBConvConfig(4, 3, 2, 16, 24, 1)], dropout=0.2, stochastic_depth_prob=0.2,
                                         num_classes=10),
    "efficientnet_v2": lambda: EfficientNet([FusedMBConvConfig(1, 3, 1, 8, 8, 1), FusedMBConvConfig(4, 3, 2, 8, 16, 2),
                                             MBConvConfig(4, 3, 2, 16, 24, 1)], dropout=0.2, stochastic_depth_prob=0.2,
                                            num_classes=10, norm_layer=mt.nn.BatchNorm2d, last_channel=64),
    "vit": lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=24,
                                     num_classes=10),
    "vit_rep": lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=16,
                                         mlp_dim=24, num_classes=10, representation_size=12),
}


def _np(t):
    return np.asarray(t.detach().numpy())


def _signature(sd):
    text = "\n".join(f"{k}:{tuple(v.shape)}:{str(v.dtype)}" for k, v in sd.items())
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", list(TINY))
def test_small_configuration_matches_torchvision_output(name):
    """Same keys in the same order, torchvision's real state_dict loads strictly, same eval output."""
    fact = FACTS["tiny"][name]
    model = TINY[name]()
    ref_sd = fact["state_dict"]
    msd = model.state_dict()
    assert list(msd) == list(ref_sd)
    assert [tuple(v.shape) for v in msd.values()] == [tuple(v.shape) for v in ref_sd.values()]
    result = model.load_state_dict({k: mt.tensor(v.numpy()) for k, v in ref_sd.items()}, strict=True)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    model.eval()
    with mt.no_grad():
        got = _np(model(mt.tensor(fact["input"].numpy())))
    expected = fact["output"].numpy()
    assert got.shape == expected.shape == (2, 10)
    assert expected.std() > 1e-2  # a non-trivial output (the twin's ViT head was given non-zero weights)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(expected).max()))


def test_stochastic_depth_drops_whole_samples_in_training_only():
    """Train mode: each sample's residual branch is kept (scaled by 1/(1-p)) or dropped; eval: identity."""
    from msnb.adapter.torchvision.models.efficientnet import StochasticDepth
    sd = StochasticDepth(0.5, "row")
    x = mt.ones(64, 3, 2, 2)
    mt.manual_seed(0)
    out = _np(sd(x))
    per_sample = out.reshape(64, -1)
    assert set(np.unique(per_sample)) <= {0.0, 2.0} and np.all(per_sample == per_sample[:, :1])
    assert 10 < (per_sample[:, 0] == 0).sum() < 54
    assert np.all(_np(sd.eval()(x)) == 1.0)
    with pytest.raises(ValueError, match="mode has to be either 'batch' or 'row'"):
        StochasticDepth(0.1, "col")


def _check_init(a, kind, p, key):
    a = _np(a).astype(np.float64).reshape(-1)
    if kind == "const":
        assert np.all(a == p), key
    elif kind == "normal":
        assert abs(a.std() / p - 1) < 0.05 and abs(a.mean()) < 6 * p / math.sqrt(a.size), (key, a.std(), p)
    else:
        assert np.abs(a).max() <= p * (1 + 1e-6) and np.abs(a).max() > 0.98 * p, key


def test_efficientnet_b0_keys_shapes_counts_and_init():
    """The ordered key/shape/dtype list hashes to torchvision's; parameter counts; initialisation statistics."""
    fact = FACTS["models"]["efficientnet_b0"]
    mt.manual_seed(0)
    model = models.efficientnet_b0()
    sd = model.state_dict()
    assert sum(p.numel() for p in model.parameters()) == fact["numel"] == 5_288_548
    assert len(list(model.parameters())) == fact["n_params"] and len(sd) == fact["n_entries"]
    assert _signature(sd) == fact["sha"]
    _check_init(sd["features.0.0.weight"], "normal", math.sqrt(2 / (32 * 9)), "stem conv (kaiming fan_out)")
    _check_init(sd["features.6.0.block.1.0.weight"], "normal", math.sqrt(2 / (672 * 25)), "depthwise 5x5")
    _check_init(sd["classifier.1.weight"], "uniform", 1 / math.sqrt(1000), "classifier")
    _check_init(sd["classifier.1.bias"], "const", 0.0, "classifier bias")
    _check_init(sd["features.3.1.block.2.fc1.bias"], "const", 0.0, "squeeze-excitation bias")


def test_vision_transformer_init_statistics():
    """torchvision's ViT init on a mid-sized configuration (ViT-B/16 itself: keys checked by hand, 86M floats)."""
    mt.manual_seed(0)
    sd = VisionTransformer(image_size=64, patch_size=8, num_layers=1, num_heads=4, hidden_dim=64, mlp_dim=256,
                           representation_size=32).state_dict()
    _check_init(sd["encoder.pos_embedding"], "normal", 0.02, "pos_embedding")
    _check_init(sd["class_token"], "const", 0.0, "class_token")
    _check_init(sd["encoder.layers.encoder_layer_0.mlp.0.weight"], "uniform", math.sqrt(6 / (64 + 256)), "mlp xavier")
    _check_init(sd["encoder.layers.encoder_layer_0.self_attention.in_proj_bias"], "const", 0.0, "in_proj_bias")
    _check_init(sd["heads.head.weight"], "const", 0.0, "head")
    w = _np(sd["conv_proj.weight"]).reshape(-1)
    std = math.sqrt(1 / (3 * 64))  # trunc_normal_(std) cuts at +-2 absolute, far beyond these values
    assert abs(w.std() / std - 1) < 0.05 and np.abs(w).max() < 2.0
    b = _np(sd["encoder.layers.encoder_layer_0.mlp.0.bias"])
    assert 0 < np.abs(b).max() < 1e-5  # normal(std=1e-6)


def test_weights_presets_match_torchvision():
    """Every member's file name, crop/resize sizes, interpolation and mean/std: torchvision's."""
    checked = 0
    for enum_name in _weights._TABLE:
        fact = FACTS["weights"][enum_name]
        enum = getattr(models, enum_name)
        assert enum.DEFAULT is enum[fact["default"]]
        assert set(enum.__members__) == set(fact["members"])
        for member, f in fact["members"].items():
            w = enum[member]
            t = w.transforms()
            assert w.url.endswith("/" + f["file"]) and w.meta["num_params"] == f["num_params"]
            assert (t.crop_size, t.resize_size, t.interpolation.value) == (f["crop"], f["resize"], f["interpolation"])
            assert t.mean == f["mean"] and t.std == f["std"]
            assert w.meta["min_size"] == tuple(f["min_size"])
            checked += 1
    assert checked == 35


def test_preset_transform_runs_on_pil_and_tensor():
    from PIL import Image
    t = models.EfficientNet_B0_Weights.DEFAULT.transforms()
    assert repr(t).startswith("ImageClassification(\n    crop_size=[224]\n    resize_size=[256]")
    img = Image.fromarray(np.random.default_rng(0).integers(0, 256, (300, 400, 3), dtype=np.uint8))
    out = t(img)
    assert tuple(out.shape) == (3, 224, 224) and out.dtype == mt.float32
    out2 = t(mt.randint(0, 256, (3, 260, 300), dtype=mt.uint8))
    assert tuple(out2.shape) == (3, 224, 224)


def test_meta_categories_is_refused_by_name():
    with pytest.raises(KeyError, match=r"meta\['categories'\].*not supported by msnb yet"):
        models.ViT_B_16_Weights.DEFAULT.meta["categories"]


def test_pretrained_without_local_file_says_so_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    for call in (lambda: models.efficientnet_b0(weights=models.EfficientNet_B0_Weights.DEFAULT),
                 lambda: models.vit_b_16(weights="DEFAULT"), lambda: models.resnet152(weights="IMAGENET1K_V1")):
        with pytest.raises(NotImplementedError, match="pretrained weights cannot be downloaded here") as e:
            call()
        assert "\n" not in str(e.value) and str(tmp_path) in str(e.value)
    with pytest.raises(ValueError, match="Failed to find Weights 'IMAGENET1K_V9'"):
        models.resnet101(weights="IMAGENET1K_V9")


def test_pretrained_loads_from_the_local_hub_cache(tmp_path, monkeypatch):
    """A file at $TORCH_HOME/hub/checkpoints/<torchvision's name> is what ``weights=`` loads (no download).

    The builders' shared path (``build_with_weights``) is driven with a small ViT so the test stays cheap."""
    from msnb.adapter.torchvision.models._utils import build_with_weights
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    w = models.ViT_B_32_Weights.DEFAULT
    ckpt = tmp_path / "hub" / "checkpoints"
    ckpt.mkdir(parents=True)
    fact = FACTS["tiny"]["vit"]
    real.save(fact["state_dict"], ckpt / w.value.file)  # written by REAL torch, like a torchvision download

    def make(**kw):
        kw.pop("num_classes")
        return TINY["vit"]()

    loaded = build_with_weights("vit_b_32", models.ViT_B_32_Weights, "DEFAULT", {}, make).eval()
    with mt.no_grad():
        got = _np(loaded(mt.tensor(fact["input"].numpy())))
    np.testing.assert_allclose(got, fact["output"].numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 1000 but got 3"):
        build_with_weights("vit_b_32", models.ViT_B_32_Weights, w, {"num_classes": 3}, make)
    with pytest.raises(ValueError, match="The parameter 'image_size' expected value 224 but got 32"):
        build_with_weights("vit_b_32", models.ViT_B_32_Weights, w, {"image_size": 32}, make, image_size=224)
