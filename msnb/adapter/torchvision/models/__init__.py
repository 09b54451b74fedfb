"""msnb implementation of ``torchvision.models``: classification networks on ``msnb.adapter.torch.nn``.

Each builder matches torchvision 0.2x's signature (``weights=None``,
``progress``, model kwargs such as ``num_classes``), module tree,
``state_dict`` keys and default initialisation, so checkpoints saved by real
torchvision load with ``model.load_state_dict(torch.load(path))``.

Not provided: pretrained-weight downloads (the ``*_Weights`` enums exist as
names, but asking for weights raises ``NotImplementedError`` naming the
local-checkpoint route), ``get_model`` / ``list_models``, and the other
architectures.
"""

from . import mobilenetv2, resnet, squeezenet, vgg  # noqa: F401  (torchvision.models.resnet, ... as modules)
from .alexnet import AlexNet, alexnet
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .resnet import ResNet, resnet18, resnet34, resnet50
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn
from ._weights import *  # noqa: F401,F403
from ._weights import __all__ as _weights_all

__all__ = ["AlexNet", "alexnet", "MobileNetV2", "mobilenet_v2", "ResNet", "resnet18", "resnet34", "resnet50",
           "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn",
           "vgg16", "vgg16_bn", "vgg19", "vgg19_bn",
           *[n for n in _weights_all if n != "Weights"]]


def __getattr__(name):
    if name.endswith("_Weights"):
        raise AttributeError(
            f"torchvision.models.{name} is not supported by msnb: pretrained weights cannot be downloaded here. "
            "Build the model with weights=None and load a local checkpoint: "
            "model.load_state_dict(torch.load(path))")
    raise AttributeError(f"module 'torchvision.models' has no attribute {name!r}")
