"""msnb implementation of ``torchvision.models.resnet`` (ResNet-18..152, ResNeXt, Wide ResNet).

Same module tree, attribute names, ``state_dict`` keys and default
initialisation as torchvision 0.2x, so a checkpoint saved from torchvision
loads with ``load_state_dict(..., strict=True)``.
"""

from __future__ import annotations

from ... import torch
from ...torch import nn
from ._utils import build_with_weights, handle_weights
from . import _weights as W

__all__ = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
           "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2"]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """3x3 convolution with padding (no bias: a BatchNorm follows)."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                     bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    """1x1 convolution (no bias)."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """torchvision's two-3x3-conv residual block (ResNet-18/34)."""

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out = out + identity
        return self.relu(out)


class Bottleneck(nn.Module):
    """torchvision's 1x1-3x3-1x1 bottleneck block (ResNet V1.5: stride on the 3x3 conv)."""

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out = out + identity
        return self.relu(out)


class ResNet(nn.Module):
    """msnb implementation of ``torchvision.models.ResNet``."""

    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1, width_per_group=64,
                 replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None "
                             f"or a 3-element tuple, got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        # Zero the last BN of each residual branch so every block starts as an identity.
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)

    def forward(self, x):
        return self._forward_impl(x)


def _resnet(name, block, layers, weights, kwargs):
    handle_weights(name, weights, kwargs)
    return ResNet(block, layers, **kwargs)


def resnet18(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnet18``; ``weights`` must be None (no downloads)."""
    return _resnet("resnet18", BasicBlock, [2, 2, 2, 2], weights, kwargs)


def resnet34(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnet34``; ``weights`` must be None (no downloads)."""
    return _resnet("resnet34", BasicBlock, [3, 4, 6, 3], weights, kwargs)


def resnet50(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnet50``; ``weights`` must be None (no downloads)."""
    return _resnet("resnet50", Bottleneck, [3, 4, 6, 3], weights, kwargs)


def _pretrainable(name, enum, block, layers, weights, kwargs):
    """A ResNet whose ``weights`` load from torchvision's local hub cache when the file is there."""
    return build_with_weights(name, enum, weights, kwargs, lambda **kw: ResNet(block, layers, **kw))


def resnet101(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnet101``."""
    return _pretrainable("resnet101", W.ResNet101_Weights, Bottleneck, [3, 4, 23, 3], weights, kwargs)


def resnet152(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnet152``."""
    return _pretrainable("resnet152", W.ResNet152_Weights, Bottleneck, [3, 8, 36, 3], weights, kwargs)


def _grouped(name, enum, layers, groups, width, weights, kwargs):
    """ResNeXt / Wide ResNet: a Bottleneck ResNet whose 3x3 convs are grouped or widened."""
    kwargs.setdefault("groups", groups)
    kwargs.setdefault("width_per_group", width)
    return _pretrainable(name, enum, Bottleneck, layers, weights, kwargs)


def resnext50_32x4d(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnext50_32x4d``."""
    return _grouped("resnext50_32x4d", W.ResNeXt50_32X4D_Weights, [3, 4, 6, 3], 32, 4, weights, kwargs)


def resnext101_32x8d(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnext101_32x8d``."""
    return _grouped("resnext101_32x8d", W.ResNeXt101_32X8D_Weights, [3, 4, 23, 3], 32, 8, weights, kwargs)


def resnext101_64x4d(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.resnext101_64x4d``."""
    return _grouped("resnext101_64x4d", W.ResNeXt101_64X4D_Weights, [3, 4, 23, 3], 64, 4, weights, kwargs)


def wide_resnet50_2(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.wide_resnet50_2`` (bottleneck width doubled)."""
    return _grouped("wide_resnet50_2", W.Wide_ResNet50_2_Weights, [3, 4, 6, 3], 1, 128, weights, kwargs)


def wide_resnet101_2(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.wide_resnet101_2`` (bottleneck width doubled)."""
    return _grouped("wide_resnet101_2", W.Wide_ResNet101_2_Weights, [3, 4, 23, 3], 1, 128, weights, kwargs)
