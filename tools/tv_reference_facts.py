"""Measure torchvision facts that msnb's torchvision tests compare against (run with a venv that HAS torchvision).

msnb's own venv cannot hold real torchvision (it pins torch 2.13), so this
script is run by hand in another venv (here /work/refvenv: torch 2.14 +
torchvision 0.2x) and writes ``tests/adapter/torchvision/data/tv_facts.pt``:

* ``models``: per builder, the number of parameters, parameter tensors,
  state-dict entries and a SHA-256 of the ordered ``key:shape:dtype`` list
  (models are built on the meta device: no memory, no initialisation);
* ``tiny``: small configurations of EfficientNet / VisionTransformer
  with their real state_dict, a fixed input and torchvision's eval output;
* ``weights``: every ``*_Weights`` member's file name and ``transforms()`` preset;
(an ``augment`` key in the stored file is from an earlier version: no test reads it).

``--augment OUT.pt`` writes ``tests/adapter/torchvision/data/tv_augment_facts.pt``
instead (small, tensors/strings only, loadable with ``weights_only=True``):
outputs of the functional ops the auto-augment policies use on fixed uint8
RGB and gray tensors and PIL images (and a float copy), every AutoAugment /
RandAugment / TrivialAugmentWide / AugMix / Random{Posterize,...} variant's
output for several ``torch.manual_seed`` values, their reprs, and the
error messages of bad inputs.

Usage: /work/refvenv/bin/python tools/tv_reference_facts.py OUT.pt
       /work/refvenv/bin/python tools/tv_reference_facts.py --augment OUT.pt
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import torch
import torchvision
from torchvision import models
from torchvision.transforms import v2  # noqa: F401  (imported to fail early on an old torchvision)
from torchvision import transforms as T

BUILDERS = ([f"efficientnet_b{i}" for i in range(8)] + ["efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]
            + ["vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]
            + ["resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
               "wide_resnet50_2", "wide_resnet101_2"])


def signature(sd) -> str:
    text = "\n".join(f"{k}:{tuple(v.shape)}:{v.dtype}" for k, v in sd.items())
    return hashlib.sha256(text.encode()).hexdigest()


def model_facts():
    out = {}
    for name in BUILDERS:
        with torch.device("meta"):
            m = getattr(models, name)()
        sd = m.state_dict()
        out[name] = dict(numel=sum(p.numel() for p in m.parameters()), n_params=len(list(m.parameters())),
                         n_entries=len(sd), sha=signature(sd))
        print(name, out[name]["numel"], flush=True)
    return out


def tiny_models():
    from torchvision.models.efficientnet import EfficientNet, MBConvConfig, FusedMBConvConfig
    from torchvision.models.vision_transformer import VisionTransformer
    torch.manual_seed(0)
    cfgs = {
        "efficientnet": (lambda: EfficientNet([MBConvConfig(1, 3, 1, 8, 8, 1), MBConvConfig(6, 5, 2, 8, 16, 2),
                                               MBConvConfig(4, 3, 2, 16, 24, 1)], dropout=0.2,
                                              stochastic_depth_prob=0.2, num_classes=10, last_channel=None), 32),
        "efficientnet_v2": (lambda: EfficientNet([FusedMBConvConfig(1, 3, 1, 8, 8, 1),
                                                  FusedMBConvConfig(4, 3, 2, 8, 16, 2),
                                                  MBConvConfig(4, 3, 2, 16, 24, 1)], dropout=0.2,
                                                 stochastic_depth_prob=0.2, num_classes=10,
                                                 norm_layer=torch.nn.BatchNorm2d, last_channel=64), 32),
        "vit": (lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16,
                                          mlp_dim=24, num_classes=10), 32),
        "vit_rep": (lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=16,
                                              mlp_dim=24, num_classes=10, representation_size=12), 32),
    }
    out = {}
    for name, (build, size) in cfgs.items():
        m = build().eval()
        with torch.no_grad():
            for mod in m.modules():
                if isinstance(mod, torch.nn.BatchNorm2d):
                    mod.running_mean.uniform_(-0.1, 0.1)
                    mod.running_var.uniform_(0.5, 1.5)
                    mod.weight.uniform_(0.5, 1.5)
                    mod.bias.uniform_(-0.1, 0.1)
            if hasattr(m, "heads"):  # ViT's head starts at zero: give it weights so the output tests the network
                m.heads.head.weight.normal_(std=0.5)
                m.heads.head.bias.uniform_(-0.1, 0.1)
            x = torch.randn(2, 3, size, size)
            y = m(x)
        out[name] = dict(state_dict=m.state_dict(), input=x, output=y)
    return out


def weights_facts():
    out = {}
    for attr in dir(models):
        if not attr.endswith("_Weights"):
            continue
        enum = getattr(models, attr)
        members = {}
        for k, w in enum.__members__.items():
            if k == "DEFAULT":
                continue
            t = w.transforms()
            members[k] = dict(file=w.url.rsplit("/", 1)[1], crop=list(t.crop_size), resize=list(t.resize_size),
                              interpolation=t.interpolation.value, mean=list(t.mean), std=list(t.std),
                              num_params=w.meta.get("num_params"), min_size=w.meta.get("min_size"))
        out[attr] = dict(members=members, default=enum.DEFAULT.name)
    return out


def _augment_images():
    """The fixed inputs: a uint8 RGB (3, 12, 10) and gray (1, 9, 13) tensor and PIL images of the same pixels."""
    from PIL import Image
    g = torch.Generator().manual_seed(123)
    rgb = torch.randint(0, 256, (3, 12, 10), dtype=torch.uint8, generator=g)
    gray = torch.randint(0, 256, (1, 9, 13), dtype=torch.uint8, generator=g)
    pil = Image.fromarray(rgb.permute(1, 2, 0).numpy(), "RGB")
    pil_gray = Image.fromarray(gray[0].numpy(), "L")
    return dict(rgb=rgb, gray=gray), dict(rgb=pil, gray=pil_gray)


def _as_tensor(out):
    from torchvision.transforms import functional as F
    return out if isinstance(out, torch.Tensor) else F.pil_to_tensor(out)


def _error(fn):
    """``"Type: message"`` of what ``fn()`` raises (``"no error"`` if nothing)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the type and message are the fact)
        return f"{type(e).__name__}: {e}"
    return "no error"


def _run(fn):
    """The op's output as a uint8/float tensor, or its error as ``"Type: message"``."""
    out = []
    err = _error(lambda: out.append(_as_tensor(fn())))
    return out[0] if out else err


def _pack(outputs):
    """Many small outputs as one flat tensor per dtype plus names and shapes (a file entry per tensor costs
    more than its pixels); error strings kept as they are."""
    packed = {"errors": {k: v for k, v in outputs.items() if isinstance(v, str)}}
    for dtype in (torch.uint8, torch.float32):
        names = [k for k, v in outputs.items() if not isinstance(v, str) and v.dtype == dtype]
        if not names:
            continue
        packed[str(dtype)] = dict(names=names, shapes=[list(outputs[k].shape) for k in names],
                                  data=torch.cat([outputs[k].reshape(-1) for k in names]))
    return packed


def augment_facts():
    """Functional ops on the fixed inputs, each auto-augment transform over seeds, reprs and error messages."""
    from torchvision.transforms import functional as F
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "adapter" / "torchvision"))
    import _tv_augment_cases as cases
    tensors, pils = _augment_images()
    out = dict(torchvision=str(torchvision.__version__), torch=str(torch.__version__), images=tensors)
    functional = {}
    for name, fn in cases.functional_cases(T, F):
        for kind in ("rgb", "gray"):
            functional[f"tensor_{kind}_{name}"] = _run(lambda: fn(tensors[kind]))
            functional[f"pil_{kind}_{name}"] = _run(lambda: fn(pils[kind]))
        if cases.float_case(name):
            functional[f"float_rgb_{name}"] = _run(lambda: fn(tensors["rgb"].float() / 255))
    out["functional"] = _pack(functional)
    seeds = cases.SEEDS
    transforms = {}
    reprs = {}
    for name, build in cases.augment_transforms(T).items():
        t = build()
        reprs[name] = repr(t)
        for kind, seed_list in seeds.items():
            src = pils["rgb"] if kind == "pil_rgb" else tensors[kind.split("_")[1]]
            res = []
            for seed in seed_list:
                torch.manual_seed(seed)
                res.append(_as_tensor(t(src)))
            transforms[f"{name}/{kind}"] = torch.stack(res)
    out["transforms"] = _pack(transforms)
    out["reprs"] = reprs
    out["errors"] = {k: _error(fn) for k, fn in cases.error_cases(T, F, tensors["rgb"], torch.cat).items()}
    return out


def main(path):
    facts = dict(torchvision=torchvision.__version__, torch=torch.__version__, models=model_facts(),
                 tiny=tiny_models(), weights=weights_facts())
    torch.save(facts, path)
    print("wrote", path)


def main_augment(path):
    torch.save(augment_facts(), path)
    print("wrote", path)


if __name__ == "__main__":
    if sys.argv[1] == "--augment":
        main_augment(sys.argv[2])
    else:
        main(sys.argv[1])
