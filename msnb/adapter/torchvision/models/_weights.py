"""The ``*_Weights`` enums of torchvision's classification models, as names.

They exist so code that imports or mentions them loads (torchmetrics imports
``VGG16_Weights``; scripts write ``weights=ResNet18_Weights.DEFAULT``).
Using one still fails: a builder given a weights member raises msnb's
"cannot be downloaded here" error, and ``get_state_dict`` says the same,
because msnb has no network and must not return an untrained model as if it
were pretrained."""

from __future__ import annotations

import enum

__all__ = ["WeightsEnum", "Weights", "AlexNet_Weights", "MobileNet_V2_Weights", "ResNet18_Weights",
           "ResNet34_Weights", "ResNet50_Weights", "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights",
           "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights", "VGG16_Weights",
           "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights"]
# --- EfficientNet / ViT / ResNet-101+ weights (tvmodels) ---
__all__ += ["hub_checkpoint_dir", "resolve_weights"]


class Weights:
    """One entry: where torchvision would download it from, and nothing more."""

    def __init__(self, url: str):
        self.url = url
        self.meta: dict = {}

    def transforms(self, *args, **kwargs):
        raise NotImplementedError("pretrained-weight transforms are not supported by msnb: build your own "
                                  "transforms.Compose (Resize, CenterCrop, ToTensor, Normalize)")


class WeightsEnum(enum.Enum):
    """msnb's ``torchvision.models.WeightsEnum``: members name weights msnb cannot download."""

    @property
    def url(self):
        return self.value.url

    @property
    def meta(self):
        return self.value.meta

    def transforms(self, *args, **kwargs):
        return self.value.transforms(*args, **kwargs)

    def get_state_dict(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.{self.name}.get_state_dict is not supported by msnb: "
                                  "pretrained weights cannot be downloaded here; load a local checkpoint with "
                                  "model.load_state_dict(torch.load(path))")

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"


def _enum(name: str, *files: str) -> type:
    members = {f"IMAGENET1K_V{i + 1}": Weights(f"https://download.pytorch.org/models/{f}")
               for i, f in enumerate(files)}
    cls = WeightsEnum(name, members)
    cls.DEFAULT = cls[f"IMAGENET1K_V{len(files)}"]
    cls.__module__ = __name__
    return cls


AlexNet_Weights = _enum("AlexNet_Weights", "alexnet-owt-7be5be79.pth")
MobileNet_V2_Weights = _enum("MobileNet_V2_Weights", "mobilenet_v2-b0353104.pth", "mobilenet_v2-7ebf99e0.pth")
ResNet18_Weights = _enum("ResNet18_Weights", "resnet18-f37072fd.pth")
ResNet34_Weights = _enum("ResNet34_Weights", "resnet34-b627a593.pth")
ResNet50_Weights = _enum("ResNet50_Weights", "resnet50-0676ba61.pth", "resnet50-11ad3fa6.pth")
SqueezeNet1_0_Weights = _enum("SqueezeNet1_0_Weights", "squeezenet1_0-b66bff10.pth")
SqueezeNet1_1_Weights = _enum("SqueezeNet1_1_Weights", "squeezenet1_1-b8a52dc0.pth")
VGG11_Weights = _enum("VGG11_Weights", "vgg11-8a719046.pth")
VGG11_BN_Weights = _enum("VGG11_BN_Weights", "vgg11_bn-6002323d.pth")
VGG13_Weights = _enum("VGG13_Weights", "vgg13-19584684.pth")
VGG13_BN_Weights = _enum("VGG13_BN_Weights", "vgg13_bn-abd245e5.pth")
VGG19_Weights = _enum("VGG19_Weights", "vgg19-dcbb9e9d.pth")
VGG19_BN_Weights = _enum("VGG19_BN_Weights", "vgg19_bn-c79401a0.pth")
VGG16_Weights = _enum("VGG16_Weights", "vgg16-397923af.pth")
VGG16_BN_Weights = _enum("VGG16_BN_Weights", "vgg16_bn-6c64b313.pth")


# --- EfficientNet / ViT / ResNet-101+ weights (tvmodels) -------------------------------------------------
# Facts measured from torchvision 0.29 by tools/tv_reference_facts.py (file name, eval preset crop / resize /
# interpolation, mean/std kind, num_params, min_size); tests/adapter/torchvision/test_tv_weights.py checks
# them against tests/adapter/torchvision/data/tv_facts.pt.  No ImageNet category list: msnb does not ship it.

_IMAGENET_MEAN_STD = {"in": ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)), "half": ((0.5,) * 3, (0.5,) * 3)}

_TABLE = {
    'EfficientNet_B0_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b0_rwightman-7f5810bc.pth', 224, 256, 'bicubic', 'in', 5288548, 1)]),
    'EfficientNet_B1_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'efficientnet_b1_rwightman-bac287d4.pth', 240, 256, 'bicubic', 'in', 7794184, 1), ('IMAGENET1K_V2', 'efficientnet_b1-c27df63c.pth', 240, 255, 'bilinear', 'in', 7794184, 1)]),
    'EfficientNet_B2_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b2_rwightman-c35c1473.pth', 288, 288, 'bicubic', 'in', 9109994, 1)]),
    'EfficientNet_B3_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b3_rwightman-b3899882.pth', 300, 320, 'bicubic', 'in', 12233232, 1)]),
    'EfficientNet_B4_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b4_rwightman-23ab8bcd.pth', 380, 384, 'bicubic', 'in', 19341616, 1)]),
    'EfficientNet_B5_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b5_lukemelas-1a07897c.pth', 456, 456, 'bicubic', 'in', 30389784, 1)]),
    'EfficientNet_B6_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b6_lukemelas-24a108a5.pth', 528, 528, 'bicubic', 'in', 43040704, 1)]),
    'EfficientNet_B7_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_b7_lukemelas-c5b4e57e.pth', 600, 600, 'bicubic', 'in', 66347960, 1)]),
    'EfficientNet_V2_L_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_v2_l-59c71312.pth', 480, 480, 'bicubic', 'half', 118515272, 33)]),
    'EfficientNet_V2_M_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_v2_m-dc08266a.pth', 480, 480, 'bilinear', 'in', 54139356, 33)]),
    'EfficientNet_V2_S_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'efficientnet_v2_s-dd5fe13b.pth', 384, 384, 'bilinear', 'in', 21458488, 33)]),
    'ResNeXt101_32X8D_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'resnext101_32x8d-8ba56ff5.pth', 224, 256, 'bilinear', 'in', 88791336, 1), ('IMAGENET1K_V2', 'resnext101_32x8d-110c445d.pth', 224, 232, 'bilinear', 'in', 88791336, 1)]),
    'ResNeXt101_64X4D_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'resnext101_64x4d-173b62eb.pth', 224, 232, 'bilinear', 'in', 83455272, 1)]),
    'ResNeXt50_32X4D_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'resnext50_32x4d-7cdf4587.pth', 224, 256, 'bilinear', 'in', 25028904, 1), ('IMAGENET1K_V2', 'resnext50_32x4d-1a0047aa.pth', 224, 232, 'bilinear', 'in', 25028904, 1)]),
    'ResNet101_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'resnet101-63fe2227.pth', 224, 256, 'bilinear', 'in', 44549160, 1), ('IMAGENET1K_V2', 'resnet101-cd907fc2.pth', 224, 232, 'bilinear', 'in', 44549160, 1)]),
    'ResNet152_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'resnet152-394f9c45.pth', 224, 256, 'bilinear', 'in', 60192808, 1), ('IMAGENET1K_V2', 'resnet152-f82ba261.pth', 224, 232, 'bilinear', 'in', 60192808, 1)]),
    'ViT_B_16_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'vit_b_16-c867db91.pth', 224, 256, 'bilinear', 'in', 86567656, 224), ('IMAGENET1K_SWAG_E2E_V1', 'vit_b_16_swag-9ac1b537.pth', 384, 384, 'bicubic', 'in', 86859496, 384), ('IMAGENET1K_SWAG_LINEAR_V1', 'vit_b_16_lc_swag-4e70ced5.pth', 224, 224, 'bicubic', 'in', 86567656, 224)]),
    'ViT_B_32_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'vit_b_32-d86f8d99.pth', 224, 256, 'bilinear', 'in', 88224232, 224)]),
    'ViT_H_14_Weights': ('IMAGENET1K_SWAG_E2E_V1', [('IMAGENET1K_SWAG_E2E_V1', 'vit_h_14_swag-80465313.pth', 518, 518, 'bicubic', 'in', 633470440, 518), ('IMAGENET1K_SWAG_LINEAR_V1', 'vit_h_14_lc_swag-c1eb923e.pth', 224, 224, 'bicubic', 'in', 632045800, 224)]),
    'ViT_L_16_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'vit_l_16-852ce7e3.pth', 224, 242, 'bilinear', 'in', 304326632, 224), ('IMAGENET1K_SWAG_E2E_V1', 'vit_l_16_swag-4f3808c9.pth', 512, 512, 'bicubic', 'in', 305174504, 512), ('IMAGENET1K_SWAG_LINEAR_V1', 'vit_l_16_lc_swag-4d563306.pth', 224, 224, 'bicubic', 'in', 304326632, 224)]),
    'ViT_L_32_Weights': ('IMAGENET1K_V1', [('IMAGENET1K_V1', 'vit_l_32-c7638314.pth', 224, 256, 'bilinear', 'in', 306535400, 224)]),
    'Wide_ResNet101_2_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'wide_resnet101_2-32ee1156.pth', 224, 256, 'bilinear', 'in', 126886696, 1), ('IMAGENET1K_V2', 'wide_resnet101_2-d733dc28.pth', 224, 232, 'bilinear', 'in', 126886696, 1)]),
    'Wide_ResNet50_2_Weights': ('IMAGENET1K_V2', [('IMAGENET1K_V1', 'wide_resnet50_2-95faca4d.pth', 224, 256, 'bilinear', 'in', 68883240, 1), ('IMAGENET1K_V2', 'wide_resnet50_2-9ba9bcbe.pth', 224, 232, 'bilinear', 'in', 68883240, 1)]),
}


def hub_checkpoint_dir() -> str:
    """Where torchvision keeps downloaded weights: ``$TORCH_HOME/hub/checkpoints`` (default ``~/.cache/torch``)."""
    import os
    home = os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch"))
    return os.path.join(os.path.expanduser(home), "hub", "checkpoints")


class _Meta(dict):
    """``weights.meta``: the facts msnb has; ``"categories"`` (ImageNet's class names) is refused by name."""

    def __missing__(self, key):
        if key == "categories":
            raise KeyError("weights.meta['categories'] (the ImageNet class names) is not supported by msnb yet "
                           "(see the support list, docs/support.md)")
        raise KeyError(key)


class ImageNetWeights(Weights):
    """One weights file: its URL, torchvision's eval preset and meta; loads only from the local hub cache."""

    def __init__(self, file, crop, resize, interpolation, norm, num_params, min_size):
        super().__init__(f"https://download.pytorch.org/models/{file}")
        self.file = file
        self._preset = dict(crop_size=crop, resize_size=resize, interpolation=interpolation, norm=norm)
        self.meta = _Meta(num_params=num_params, min_size=(min_size, min_size))

    def transforms(self, *args, **kwargs):
        from ..transforms._presets import ImageClassification
        from ..transforms.functional import InterpolationMode
        p = dict(self._preset)
        mean, std = _IMAGENET_MEAN_STD[p.pop("norm")]
        p["interpolation"] = InterpolationMode(p["interpolation"])
        p.update(kwargs)
        return ImageClassification(*args, mean=mean, std=std, **p)


class _LocalWeightsEnum(WeightsEnum):
    """Weights msnb loads from ``hub_checkpoint_dir()`` when the file is there (torchvision's cache)."""

    def get_state_dict(self, *args, **kwargs):
        import os
        from ... import torch
        path = os.path.join(hub_checkpoint_dir(), self.value.file)
        if not os.path.exists(path):
            raise NotImplementedError(
                f"{type(self).__name__}.{self.name}: pretrained weights cannot be downloaded here (no internet); "
                f"put {self.value.url} at {path}, or build with weights=None and "
                f"model.load_state_dict(torch.load(path))")
        return torch.load(path, map_location="cpu")


def _local_enum(name, default, members):
    cls = _LocalWeightsEnum(name, {m: ImageNetWeights(*rest) for m, *rest in members})
    cls.DEFAULT = cls[default]
    cls.__module__ = __name__
    return cls


for _name, (_default, _members) in _TABLE.items():
    globals()[_name] = _local_enum(_name, _default, _members)
    __all__.append(_name)
del _name, _default, _members


def resolve_weights(enum, weights):
    """``weights`` as a member of ``enum`` (a member, its name, or ``"DEFAULT"``), as torchvision's verify()."""
    if weights is None or isinstance(weights, enum):
        return weights
    if isinstance(weights, str):
        if weights == "DEFAULT":
            return enum.DEFAULT
        if weights in enum.__members__:
            return enum[weights]
        raise ValueError(f"Failed to find Weights {weights!r} in {enum.__name__}. Try one of "
                         f"{list(enum.__members__)}")
    raise TypeError(f"Invalid Weight class provided; expected {enum.__name__} but received {type(weights).__name__}.")
