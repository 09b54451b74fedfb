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
