"""msnb implementation of ``torchvision.models.alexnet`` (torchvision's one-GPU variant).

Same module tree and ``state_dict`` keys as torchvision 0.2x; layers keep
PyTorch's default initialisation (AlexNet sets none of its own).
"""

from __future__ import annotations

from ... import torch
from ...torch import nn
from ._utils import handle_weights

__all__ = ["AlexNet", "alexnet"]


class AlexNet(nn.Module):
    """msnb implementation of ``torchvision.models.AlexNet``."""

    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        x = torch.flatten(x, 1)
        return self.classifier(x)


def alexnet(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.alexnet``; ``weights`` must be None (no downloads)."""
    handle_weights("alexnet", weights, kwargs)
    return AlexNet(**kwargs)
