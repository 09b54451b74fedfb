"""msnb implementation of ``torchvision.models.vgg`` (VGG-11/13/16/19, with and without BatchNorm).

Same module tree, ``state_dict`` keys and default initialisation as
torchvision 0.2x (``features.<i>``, ``classifier.<i>``).
"""

from __future__ import annotations

from ... import torch
from ...torch import nn
from ._utils import handle_weights

__all__ = ["VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


class VGG(nn.Module):
    """msnb implementation of ``torchvision.models.VGG``."""

    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.avgpool(self.features(x))
        x = torch.flatten(x, 1)
        return self.classifier(x)


def make_layers(cfg, batch_norm=False):
    """Build ``features``: 3x3 convs (+BN) + ReLU, ``"M"`` = 2x2 max-pool."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def _vgg(name, cfg, batch_norm, weights, kwargs):
    handle_weights(name, weights, kwargs)
    return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg11``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg11", "A", False, weights, kwargs)


def vgg11_bn(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg11_bn``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg11_bn", "A", True, weights, kwargs)


def vgg13(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg13``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg13", "B", False, weights, kwargs)


def vgg13_bn(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg13_bn``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg13_bn", "B", True, weights, kwargs)


def vgg16(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg16``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg16", "D", False, weights, kwargs)


def vgg16_bn(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg16_bn``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg16_bn", "D", True, weights, kwargs)


def vgg19(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg19``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg19", "E", False, weights, kwargs)


def vgg19_bn(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vgg19_bn``; ``weights`` must be None (no downloads)."""
    return _vgg("vgg19_bn", "E", True, weights, kwargs)
