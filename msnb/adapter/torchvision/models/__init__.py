"""msnb implementation of ``torchvision.models``: classification networks on ``msnb.adapter.torch.nn``.

Each builder matches torchvision 0.2x's signature (``weights=None``,
``progress``, model kwargs such as ``num_classes``), module tree,
``state_dict`` keys and default initialisation, so checkpoints saved by real
torchvision load with ``model.load_state_dict(torch.load(path))``.

Not provided: pretrained-weight downloads (EfficientNet, ViT and ResNet-101+
load their ``*_Weights`` from torchvision's local hub cache when the file is
there; otherwise asking for weights raises ``NotImplementedError`` naming the
local-checkpoint route), ``get_model`` / ``list_models``, and the other
architectures.
"""

from . import mobilenetv2, resnet, squeezenet, vgg  # noqa: F401  (torchvision.models.resnet, ... as modules)
from . import efficientnet, vision_transformer  # noqa: F401
from .efficientnet import (EfficientNet, efficientnet_b0, efficientnet_b1, efficientnet_b2, efficientnet_b3,
                           efficientnet_b4, efficientnet_b5, efficientnet_b6, efficientnet_b7, efficientnet_v2_l,
                           efficientnet_v2_m, efficientnet_v2_s)
from .vision_transformer import VisionTransformer, vit_b_16, vit_b_32, vit_h_14, vit_l_16, vit_l_32
from .alexnet import AlexNet, alexnet
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .resnet import ResNet, resnet18, resnet34, resnet50
from .resnet import (resnet101, resnet152, resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn
from ._weights import *  # noqa: F401,F403
from ._weights import __all__ as _weights_all

__all__ = ["AlexNet", "alexnet", "MobileNetV2", "mobilenet_v2", "ResNet", "resnet18", "resnet34", "resnet50",
           "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn",
           "vgg16", "vgg16_bn", "vgg19", "vgg19_bn",
           *[n for n in _weights_all if n not in ("Weights", "hub_checkpoint_dir", "resolve_weights")]]
__all__ += ["resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2",
            "wide_resnet101_2", "EfficientNet", *[f"efficientnet_b{i}" for i in range(8)], "efficientnet_v2_s",
            "efficientnet_v2_m", "efficientnet_v2_l", "VisionTransformer", "vit_b_16", "vit_b_32", "vit_l_16",
            "vit_l_32", "vit_h_14"]


def __getattr__(name):
    if name.endswith("_Weights"):
        raise AttributeError(
            f"torchvision.models.{name} is not supported by msnb: pretrained weights cannot be downloaded here. "
            "Build the model with weights=None and load a local checkpoint: "
            "model.load_state_dict(torch.load(path))")
    raise AttributeError(f"module 'torchvision.models' has no attribute {name!r}")
