"""``torchvision.models`` on msnb: checkpoint compatibility with torchvision, numerics, initialisation.

Real torchvision cannot be installed next to torch 2.13 here, so the oracle is
a reference twin of each network written with real ``torch.nn``
(``_tv_models_reference.py``).  The twins are first checked against facts
published by torchvision (parameter counts, key shapes); msnb's models are
then checked against the twins: same ``state_dict`` keys in the same order
and shapes, a real ``torch.save`` checkpoint loads with ``strict=True``, the
same outputs in eval mode, and the same default-initialisation statistics.

The VGG networks carry a 25088x4096 Linear (100M floats) that msnb fills and
multiplies slowly on CPU, so only ``vgg16`` is built with its default
initialisation and run; ``vgg11``, ``vgg11_bn`` and ``vgg16_bn`` are built
with torchvision's own ``init_weights=False`` flag for the key/shape checks.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
import msnb.adapter.torchvision as tv
from msnb.adapter.torchvision import models
from msnb.adapter.torchvision.models.mobilenetv2 import Conv2dNormActivation

from ._tv_models_reference import BUILDERS


def _normal(std):
    return ("normal", std)


def _uniform(bound):
    return ("uniform", bound)


def _const(value):
    return ("const", value)


def _kaiming_out(out_ch, k):
    """std of ``kaiming_normal_(mode='fan_out', nonlinearity='relu')`` for an (out_ch, *, k, k) conv."""
    return math.sqrt(2.0 / (out_ch * k * k))


#: Per builder: facts known from torchvision (numel of all parameters, number of
#: parameter tensors, number of state-dict entries, some key shapes), the
#: constructor kwargs, the default-initialisation checks, and the input size of
#: the forward comparison (None: not run, to keep the suite fast).
SPECS = {
    "resnet18": dict(
        numel=11_689_512, n_params=62, n_entries=122, size=64,
        shapes={"fc.weight": (1000, 512), "layer1.0.conv1.weight": (64, 64, 3, 3),
                "layer2.0.downsample.0.weight": (128, 64, 1, 1), "bn1.num_batches_tracked": ()},
        init={"conv1.weight": _normal(_kaiming_out(64, 7)), "layer4.1.conv2.weight": _normal(_kaiming_out(512, 3)),
              "layer2.0.downsample.0.weight": _normal(_kaiming_out(128, 1)), "bn1.weight": _const(1.0),
              "layer3.1.bn2.bias": _const(0.0), "layer1.0.bn1.running_mean": _const(0.0),
              "layer1.0.bn1.running_var": _const(1.0), "bn1.num_batches_tracked": _const(0),
              "fc.weight": _uniform(1 / math.sqrt(512)), "fc.bias": _uniform(1 / math.sqrt(512))}),
    "resnet34": dict(
        numel=21_797_672, n_params=110, n_entries=218, size=None,
        shapes={"layer3.5.conv2.weight": (256, 256, 3, 3), "fc.weight": (1000, 512)},
        init={"layer3.5.conv1.weight": _normal(_kaiming_out(256, 3)), "layer3.5.bn2.weight": _const(1.0)}),
    "resnet50": dict(
        numel=25_557_032, n_params=161, n_entries=320, size=32,
        shapes={"layer4.2.conv3.weight": (2048, 512, 1, 1), "fc.weight": (1000, 2048),
                "layer1.0.downsample.0.weight": (256, 64, 1, 1)},
        init={"layer4.2.conv3.weight": _normal(_kaiming_out(2048, 1)),
              "layer1.0.conv2.weight": _normal(_kaiming_out(64, 3)), "layer4.2.bn3.weight": _const(1.0),
              "fc.weight": _uniform(1 / math.sqrt(2048))}),
    "vgg11": dict(
        numel=132_863_336, n_params=22, n_entries=22, size=None, kwargs={"init_weights": False},
        shapes={"features.18.weight": (512, 512, 3, 3), "classifier.6.weight": (1000, 4096)},
        # init_weights=False keeps PyTorch's default layer initialisation
        init={"features.18.weight": _uniform(1 / math.sqrt(512 * 9))}),
    "vgg11_bn": dict(
        numel=132_868_840, n_params=38, n_entries=62, size=None, kwargs={"init_weights": False},
        shapes={"features.25.weight": (512, 512, 3, 3), "features.26.running_var": (512,)},
        init={"features.1.weight": _const(1.0)}),
    "vgg16": dict(
        numel=138_357_544, n_params=32, n_entries=32, size=32,
        shapes={"features.28.weight": (512, 512, 3, 3), "classifier.6.weight": (1000, 4096),
                "classifier.0.weight": (4096, 25088)},
        init={"features.28.weight": _normal(_kaiming_out(512, 3)), "features.0.bias": _const(0.0),
              "classifier.0.weight": _normal(0.01), "classifier.6.weight": _normal(0.01),
              "classifier.3.bias": _const(0.0)}),
    "vgg16_bn": dict(
        numel=138_365_992, n_params=58, n_entries=97, size=None, kwargs={"init_weights": False},
        shapes={"features.40.weight": (512, 512, 3, 3), "features.41.num_batches_tracked": ()},
        init={"features.41.bias": _const(0.0)}),
    "mobilenet_v2": dict(
        numel=3_504_872, n_params=158, n_entries=314, size=64,
        shapes={"features.18.0.weight": (1280, 320, 1, 1), "classifier.1.weight": (1000, 1280),
                "features.1.conv.0.0.weight": (32, 1, 3, 3), "features.2.conv.0.0.weight": (96, 16, 1, 1)},
        init={"features.18.0.weight": _normal(_kaiming_out(1280, 1)),
              # depthwise: fan_out = out_channels * 9, whatever the groups
              "features.17.conv.1.0.weight": _normal(_kaiming_out(960, 3)),
              "features.17.conv.0.0.weight": _normal(_kaiming_out(960, 1)),
              "features.5.conv.1.1.weight": _const(1.0), "features.5.conv.3.bias": _const(0.0),
              "classifier.1.weight": _normal(0.01), "classifier.1.bias": _const(0.0)}),
    "alexnet": dict(
        numel=61_100_840, n_params=16, n_entries=16, size=64,
        shapes={"features.10.weight": (256, 256, 3, 3), "classifier.1.weight": (4096, 9216),
                "classifier.6.weight": (1000, 4096)},
        # AlexNet keeps PyTorch's default initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init={"features.0.weight": _uniform(1 / math.sqrt(3 * 121)), "features.0.bias": _uniform(1 / math.sqrt(363)),
              "classifier.4.weight": _uniform(1 / math.sqrt(4096))}),
    "squeezenet1_0": dict(
        numel=1_248_424, n_params=52, n_entries=52, size=64,
        shapes={"classifier.1.weight": (1000, 512, 1, 1), "features.0.weight": (96, 3, 7, 7),
                "features.12.expand3x3.weight": (256, 64, 3, 3)},
        # kaiming_uniform_ defaults (a=0, fan_in, leaky_relu): bound sqrt(6 / fan_in)
        init={"features.0.weight": _uniform(math.sqrt(6 / (3 * 49))),
              "features.12.expand3x3.weight": _uniform(math.sqrt(6 / (64 * 9))),
              "features.3.squeeze.bias": _const(0.0), "classifier.1.weight": _normal(0.01),
              "classifier.1.bias": _const(0.0)}),
    "squeezenet1_1": dict(
        numel=1_235_496, n_params=52, n_entries=52, size=64,
        shapes={"features.0.weight": (64, 3, 3, 3), "classifier.1.weight": (1000, 512, 1, 1)},
        init={"features.12.expand3x3.weight": _uniform(math.sqrt(6 / (64 * 9))),
              "classifier.1.weight": _normal(0.01)}),
}


def _np(t):
    return np.asarray(t.detach().numpy())


def _check_init(t, check, where):
    """Assert that tensor ``t`` (msnb or real) looks drawn by ``check``; sample-size-aware so it cannot flake."""
    kind, p = check
    if kind == "const":
        arr = _np(t)
        assert np.all(arr == p), f"{where}: expected all {p}, got {np.unique(arr)[:5]}"
        return
    # the draws are i.i.d., so the first 2**20 of a 100M-element weight tell the same story, faster
    a = _np(t.detach().reshape(-1)[:1 << 20]).astype(np.float64)
    n = a.size
    if kind == "normal":
        assert abs(a.std() / p - 1) < 0.05, f"{where}: std {a.std():.6g}, expected {p:.6g}"
        assert abs(a.mean()) < 6 * p / math.sqrt(n), f"{where}: mean {a.mean():.3g}"
        # a normal has 4.55 % of its mass beyond 2 std; a uniform of the same std has none
        frac = np.mean(np.abs(a) > 2 * p)
        assert abs(frac - 0.0455) < 6 * math.sqrt(0.0455 * 0.9545 / n) + 1e-3, f"{where}: tail mass {frac:.4f}"
    elif kind == "uniform":
        assert np.abs(a).max() <= p * (1 + 1e-6), f"{where}: |x| max {np.abs(a).max():.6g} > bound {p:.6g}"
        if n >= 1000:
            assert np.abs(a).max() > 0.98 * p, f"{where}: never reaches the bound {p:.6g}"
        if n >= 5000:
            assert abs(a.std() / (p / math.sqrt(3)) - 1) < 0.05, f"{where}: std {a.std():.6g}"
    else:
        raise AssertionError(kind)


def _randomise_batchnorm(ref, seed=0):
    """Give every BatchNorm non-trivial statistics and affine terms, so eval mode tests them."""
    g = real.Generator().manual_seed(seed)
    with real.no_grad():
        for m in ref.modules():
            if isinstance(m, real.nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(real.rand(c, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(real.rand(c, generator=g) + 0.5)
                m.weight.copy_(real.rand(c, generator=g) + 0.5)
                m.bias.copy_(real.rand(c, generator=g) * 0.2 - 0.1)
                m.num_batches_tracked.fill_(7)


@pytest.mark.parametrize("name", list(SPECS))
def test_model_matches_torchvision(name, tmp_path):
    """Keys/shapes/dtypes, default init, real-checkpoint loading and eval forward against the twin.

    One test per network so each (large) model is built once."""
    spec = SPECS[name]
    kwargs = spec.get("kwargs", {})
    ref = BUILDERS[name](**kwargs)
    rsd = ref.state_dict()
    # (0) the oracle itself: parameter counts and key shapes published by torchvision
    assert sum(p.numel() for p in ref.parameters()) == spec["numel"]
    assert len(list(ref.parameters())) == spec["n_params"] and len(rsd) == spec["n_entries"]
    for key, shape in spec["shapes"].items():
        assert tuple(rsd[key].shape) == shape, key

    mt.manual_seed(0)
    model = getattr(models, name)(**kwargs)
    # (1) the same state_dict keys, in the same order, with the same shapes and dtypes
    msd = model.state_dict()
    assert list(msd.keys()) == list(rsd.keys())
    for k in rsd:
        assert tuple(msd[k].shape) == tuple(rsd[k].shape), k
        assert str(msd[k].dtype) == str(rsd[k].dtype), k
    assert len(list(model.parameters())) == spec["n_params"]
    assert sum(p.numel() for p in model.parameters()) == spec["numel"]

    # (5) default initialisation: the same statistics on msnb's model and on the twin
    for key, check in spec["init"].items():
        _check_init(msd[key], check, f"msnb {name} {key}")
        _check_init(rsd[key], check, f"reference {name} {key}")
    del msd

    if spec["size"] is None:
        return
    # (2) a checkpoint written by REAL torch.save loads strictly
    _randomise_batchnorm(ref)
    path = tmp_path / f"{name}.pth"
    real.save(ref.state_dict(), path)
    result = model.load_state_dict(mt.load(str(path)), strict=True)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    msd = model.state_dict()
    for k in ("bn1.num_batches_tracked", "features.0.1.running_var", "classifier.1.weight", "fc.weight"):
        if k in rsd:
            np.testing.assert_array_equal(_np(msd[k]), _np(rsd[k]), err_msg=k)

    # (3) + (4): same output in eval mode, shape (N, num_classes)
    x = np.random.default_rng(0).standard_normal((1, 3, spec["size"], spec["size"])).astype(np.float32)
    model.eval()
    ref.eval()
    with real.no_grad():
        expected = ref(real.from_numpy(x)).numpy()
    with mt.no_grad():
        got = _np(model(mt.tensor(x)))
    assert got.shape == expected.shape == (1, 1000)
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * scale)


#: vgg13 / vgg19 (+ BatchNorm): torchvision's published parameter counts (its weights' num_params), the
#: number of parameter tensors and state-dict entries, and some key shapes of ``features``.
VGG_VARIANTS = {
    "vgg13": (133_047_848, 26, 26, {"features.22.weight": (512, 512, 3, 3)}),
    "vgg13_bn": (133_053_736, 46, 76, {"features.31.weight": (512, 512, 3, 3), "features.32.num_batches_tracked": ()}),
    "vgg19": (143_667_240, 38, 38, {"features.34.weight": (512, 512, 3, 3)}),
    "vgg19_bn": (143_678_248, 70, 118, {"features.49.weight": (512, 512, 3, 3), "features.50.running_var": (512,)}),
}


@pytest.mark.parametrize("name", list(VGG_VARIANTS))
def test_vgg_variant_features_match_torchvision(name, monkeypatch):
    """The other VGG depths share ``VGG``'s classifier (checked in full on vgg16 above); what differs is the
    ``features`` stack each builder makes from its configuration.  It is compared with the twin's (keys in
    order, shapes, dtypes), and features + the twin's classifier give torchvision's published counts,
    without building msnb's 100M-parameter Linear (several seconds per model)."""
    numel, n_params, n_entries, shapes = VGG_VARIANTS[name]
    with real.device("meta"):  # shapes only: no 100M-float allocation in real torch either
        ref = BUILDERS[name](init_weights=False)
    rsd = ref.state_dict()
    assert sum(p.numel() for p in ref.parameters()) == numel
    assert len(list(ref.parameters())) == n_params and len(rsd) == n_entries
    for key, shape in shapes.items():
        assert tuple(rsd[key].shape) == shape, key
    from msnb.adapter.torchvision.models import vgg as vgg_mod
    built = {}
    monkeypatch.setattr(vgg_mod, "VGG", lambda features, **kw: built.update(features=features, kw=kw))
    getattr(models, name)(init_weights=False, num_classes=10)
    assert built["kw"] == {"init_weights": False, "num_classes": 10}
    fsd = {f"features.{k}": v for k, v in built["features"].state_dict().items()}
    rfeat = {k: v for k, v in rsd.items() if k.startswith("features.")}
    assert list(fsd) == list(rfeat)
    for k, v in rfeat.items():
        assert tuple(fsd[k].shape) == tuple(v.shape) and str(fsd[k].dtype) == str(v.dtype), k
    feat_numel = sum(p.numel() for p in built["features"].parameters())
    assert feat_numel + sum(p.numel() for p in ref.classifier.parameters()) == numel


def test_num_classes_sets_output_shape():
    """(N, num_classes) for a batch of 2; ResNet's case is in the training-step test below."""
    model = models.squeezenet1_1(num_classes=7).eval()
    with mt.no_grad():
        out = model(mt.randn(2, 3, 48, 48))
    assert tuple(out.shape) == (2, 7)
    assert isinstance(out, mt.Tensor) and out.dtype == mt.float32
    assert tuple(model.state_dict()["classifier.1.weight"].shape) == (7, 512, 1, 1)


def test_resnet_training_step_matches_reference(tmp_path):
    """Train mode (batch statistics, running-stat updates) and backward through a small ResNet."""
    from ._tv_models_reference import RefResNet, _Basic

    real.manual_seed(0)  # fixed reference weights: the comparison is then fully deterministic
    ref = RefResNet(_Basic, [1, 1, 1, 1], num_classes=5)
    model = models.ResNet(models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=5)
    real.save(ref.state_dict(), tmp_path / "r.pth")
    model.load_state_dict(mt.load(str(tmp_path / "r.pth")))
    # 64x64 leaves 2x2 maps in layer4: with 1x1 maps and batch 2, BatchNorm's gradient is
    # ill-conditioned (real fp32 vs fp64 already differ by 1e-3 there)
    x = np.random.default_rng(1).standard_normal((2, 3, 64, 64)).astype(np.float32)
    y = np.array([1, 4])
    rout, mout = ref(real.from_numpy(x)), model(mt.tensor(x))
    assert tuple(mout.shape) == (2, 5)
    rloss = real.nn.functional.cross_entropy(rout, real.from_numpy(y))
    mloss = mt.nn.functional.cross_entropy(mout, mt.tensor(y))
    rloss.backward()
    mloss.backward()
    np.testing.assert_allclose(mloss.item(), rloss.item(), rtol=1e-5)
    for k in ("conv1.weight", "layer1.0.bn2.weight", "layer4.0.downsample.0.weight", "fc.weight"):
        mp, rp = model.get_parameter(k), ref.get_parameter(k)
        g = rp.grad.numpy()
        np.testing.assert_allclose(_np(mp.grad), g, rtol=1e-4, atol=1e-4 * np.abs(g).max(), err_msg=k)
    msd, rsd = model.state_dict(), ref.state_dict()
    for k in ("bn1.running_mean", "layer3.0.bn1.running_var", "bn1.num_batches_tracked"):
        np.testing.assert_allclose(_np(msd[k]), rsd[k].numpy(), rtol=1e-4, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("block,last,other", [
    (models.resnet.BasicBlock, "bn2", "bn1"), (models.resnet.Bottleneck, "bn3", "bn2")])
def test_zero_init_residual_zeroes_last_bn_of_each_block(block, last, other):
    sd = models.ResNet(block, [1, 2, 1, 1], zero_init_residual=True).state_dict()
    seen = 0
    for k, v in sd.items():
        if k.startswith("layer") and k.endswith(f"{last}.weight"):
            assert np.all(_np(v) == 0), k
            seen += 1
        elif k.endswith(f"{other}.weight") or k == "bn1.weight" or k.endswith("downsample.1.weight"):
            assert np.all(_np(v) == 1), k
    assert seen == 5
    plain = models.ResNet(block, [1, 1, 1, 1]).state_dict()
    assert np.all(_np(plain[f"layer1.0.{last}.weight"]) == 1)


@pytest.mark.parametrize("call", [lambda: models.resnet18(weights="DEFAULT"),
                                  lambda: models.mobilenet_v2(weights="IMAGENET1K_V2"),
                                  lambda: models.vgg16(pretrained=True),
                                  lambda: models.squeezenet1_0(weights=True)])
def test_pretrained_weights_fail_loudly_with_the_local_route(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError, match=r"pretrained weights cannot be downloaded here") as e:
            call()
    assert "model.load_state_dict(torch.load(path))" in str(e.value)


def test_legacy_pretrained_false_warns_like_torchvision():
    with pytest.warns(UserWarning, match="The parameter 'pretrained' is deprecated since 0.13"):
        model = models.squeezenet1_1(pretrained=False, num_classes=3)
    assert isinstance(model, models.SqueezeNet) and model.num_classes == 3
    with pytest.raises(TypeError):
        models.resnet18(None, None)  # weights/progress are keyword-only, as in torchvision


def test_unknown_weights_enums_and_models_are_reported():
    with pytest.raises(AttributeError, match="Swin_T_Weights is not supported by msnb: pretrained weights"):
        models.Swin_T_Weights
    with pytest.raises(AttributeError, match="has no attribute 'resnet9000'"):
        models.resnet9000


def test_constructor_errors_use_torchvision_wording():
    with pytest.raises(ValueError, match="Unsupported SqueezeNet version 2_0: 1_0 or 1_1 expected"):
        models.SqueezeNet("2_0")
    with pytest.raises(ValueError, match="stride should be 1 or 2 instead of 3"):
        models.mobilenetv2.InvertedResidual(8, 8, 3, 6)
    with pytest.raises(ValueError, match="BasicBlock only supports groups=1 and base_width=64"):
        models.resnet.BasicBlock(64, 64, groups=2)


def test_module_tree_and_classes():
    m = models.resnet18()
    assert isinstance(m, mt.nn.Module) and isinstance(m.layer1[0], models.resnet.BasicBlock)
    assert isinstance(m.layer1[0].downsample, type(None)) and isinstance(m.layer2[0].downsample, mt.nn.Sequential)
    assert isinstance(m.fc, mt.nn.Linear) and isinstance(m.avgpool, mt.nn.AdaptiveAvgPool2d)
    block = Conv2dNormActivation(4, 8, stride=2, groups=4, activation_layer=mt.nn.ReLU6)
    assert [type(c).__name__ for c in block] == ["Conv2d", "BatchNorm2d", "ReLU6"]
    assert block[0].padding == (1, 1) and block[0].bias is None and block.out_channels == 8
    assert models.mobilenetv2.ConvBNActivation is Conv2dNormActivation
    assert tv.models is models and "models" in tv.__all__
    for n in models.__all__:
        assert callable(getattr(models, n)), n


def test_cell_builds_models_through_torchvision_import(run, ip):
    run("""%%torch_on_ascend --no-analyze
import torch
import torchvision
from torchvision.models import resnet18
import torchvision.models as tvm
net = resnet18(num_classes=4).eval()
with torch.no_grad():
    out = net(torch.randn(1, 3, 32, 32))
tv_models_name = tvm.__name__
tv_out_shape = tuple(out.shape)
tv_same = torchvision.models.resnet18 is resnet18
""")
    assert ip.user_ns["tv_models_name"] == "msnb.adapter.torchvision.models"
    assert ip.user_ns["tv_out_shape"] == (1, 4)
    assert ip.user_ns["tv_same"] is True


def test_weights_enums_exist_and_still_refuse_downloads():
    """``weights=ResNet18_Weights.DEFAULT`` names what torchvision would download; msnb refuses it clearly."""
    w = models.ResNet18_Weights.DEFAULT
    assert w is models.ResNet18_Weights.IMAGENET1K_V1 and w.url.endswith(".pth")
    assert models.ResNet50_Weights.DEFAULT is models.ResNet50_Weights.IMAGENET1K_V2
    with pytest.raises(NotImplementedError, match="cannot be downloaded here"):
        models.resnet18(weights=w)
    with pytest.raises(NotImplementedError, match="cannot be downloaded here"):
        w.get_state_dict(progress=False)
