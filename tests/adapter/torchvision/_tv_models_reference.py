"""Reference twins of torchvision's classification models, written with REAL torch.nn.

torchvision cannot be installed beside torch 2.13 in this venv, so these
re-create its module trees (same attribute names, same order of
registration, same default initialisation as torchvision 0.2x) to serve as
the oracle for ``msnb.adapter.torchvision.models``.  ``test_models.py``
checks these twins against facts known from torchvision itself (parameter
counts, key shapes) before trusting them.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["BUILDERS"]


# --- ResNet -------------------------------------------------------------------------------

def _c3(i, o, s=1):
    return nn.Conv2d(i, o, 3, s, 1, bias=False)


def _c1(i, o, s=1):
    return nn.Conv2d(i, o, 1, s, bias=False)


class _Basic(nn.Module):
    expansion = 1

    def __init__(self, i, p, s=1, down=None):
        super().__init__()
        self.conv1, self.bn1, self.relu = _c3(i, p, s), nn.BatchNorm2d(p), nn.ReLU(inplace=True)
        self.conv2, self.bn2 = _c3(p, p), nn.BatchNorm2d(p)
        self.downsample = down

    def forward(self, x):
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
        return self.relu(out + (x if self.downsample is None else self.downsample(x)))


class _Bottle(nn.Module):
    expansion = 4

    def __init__(self, i, p, s=1, down=None):
        super().__init__()
        self.conv1, self.bn1 = _c1(i, p), nn.BatchNorm2d(p)
        self.conv2, self.bn2 = _c3(p, p, s), nn.BatchNorm2d(p)
        self.conv3, self.bn3 = _c1(p, p * 4), nn.BatchNorm2d(p * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = down

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + (x if self.downsample is None else self.downsample(x)))


class RefResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._layer(block, 64, layers[0], 1)
        self.layer2 = self._layer(block, 128, layers[1], 2)
        self.layer3 = self._layer(block, 256, layers[2], 2)
        self.layer4 = self._layer(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, _Bottle):
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, _Basic):
                    nn.init.constant_(m.bn2.weight, 0)

    def _layer(self, block, planes, n, stride):
        down = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            down = nn.Sequential(_c1(self.inplanes, planes * block.expansion, stride),
                                 nn.BatchNorm2d(planes * block.expansion))
        blocks = [block(self.inplanes, planes, stride, down)]
        self.inplanes = planes * block.expansion
        blocks += [block(self.inplanes, planes) for _ in range(1, n)]
        return nn.Sequential(*blocks)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# --- VGG ----------------------------------------------------------------------------------

_CFG = {"A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
        "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
        "E": [64, 64, "M", 128, 128, "M"] + [256] * 4 + ["M"] + [512] * 4 + ["M"] + [512] * 4 + ["M"],
        "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]}


class RefVGG(nn.Module):
    def __init__(self, cfg, bn, num_classes=1000, init_weights=True):
        super().__init__()
        layers, c = [], 3
        for v in _CFG[cfg]:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1)] + ([nn.BatchNorm2d(v)] if bn else []) + [nn.ReLU(True)]
                c = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(nn.Linear(25088, 4096), nn.ReLU(True), nn.Dropout(),
                                        nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(),
                                        nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# --- MobileNetV2 ----------------------------------------------------------------------------

class _CBA(nn.Sequential):  # torchvision.ops.Conv2dNormActivation with ReLU6
    def __init__(self, i, o, k=3, s=1, groups=1):
        super().__init__(nn.Conv2d(i, o, k, s, (k - 1) // 2, groups=groups, bias=False), nn.BatchNorm2d(o),
                         nn.ReLU6(inplace=True))


class _InvRes(nn.Module):
    def __init__(self, i, o, s, t):
        super().__init__()
        h = int(round(i * t))
        self.use_res_connect = s == 1 and i == o
        layers = [_CBA(i, h, 1)] if t != 1 else []
        layers += [_CBA(h, h, 3, s, groups=h), nn.Conv2d(h, o, 1, 1, 0, bias=False), nn.BatchNorm2d(o)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class RefMobileNetV2(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        feats, c = [_CBA(3, 32, 3, 2)], 32
        for t, o, n, s in [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
                           [6, 160, 3, 2], [6, 320, 1, 1]]:
            for i in range(n):
                feats.append(_InvRes(c, o, s if i == 0 else 1, t))
                c = o
        feats.append(_CBA(c, 1280, 1))
        self.features = nn.Sequential(*feats)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


# --- AlexNet --------------------------------------------------------------------------------

class RefAlexNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 11, 4, 2), nn.ReLU(True), nn.MaxPool2d(3, 2),
            nn.Conv2d(64, 192, 5, padding=2), nn.ReLU(True), nn.MaxPool2d(3, 2),
            nn.Conv2d(192, 384, 3, padding=1), nn.ReLU(True),
            nn.Conv2d(384, 256, 3, padding=1), nn.ReLU(True),
            nn.Conv2d(256, 256, 3, padding=1), nn.ReLU(True), nn.MaxPool2d(3, 2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(nn.Dropout(), nn.Linear(9216, 4096), nn.ReLU(True),
                                        nn.Dropout(), nn.Linear(4096, 4096), nn.ReLU(True),
                                        nn.Linear(4096, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# --- SqueezeNet -----------------------------------------------------------------------------

class _Fire(nn.Module):
    def __init__(self, i, s, e1, e3):
        super().__init__()
        self.squeeze, self.squeeze_activation = nn.Conv2d(i, s, 1), nn.ReLU(True)
        self.expand1x1, self.expand1x1_activation = nn.Conv2d(s, e1, 1), nn.ReLU(True)
        self.expand3x3, self.expand3x3_activation = nn.Conv2d(s, e3, 3, padding=1), nn.ReLU(True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


class RefSqueezeNet(nn.Module):
    def __init__(self, version, num_classes=1000):
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)  # noqa: E731
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, 7, 2), nn.ReLU(True), pool(),
                _Fire(96, 16, 64, 64), _Fire(128, 16, 64, 64), _Fire(128, 32, 128, 128), pool(),
                _Fire(256, 32, 128, 128), _Fire(256, 48, 192, 192), _Fire(384, 48, 192, 192),
                _Fire(384, 64, 256, 256), pool(), _Fire(512, 64, 256, 256))
        else:
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, 3, 2), nn.ReLU(True), pool(),
                _Fire(64, 16, 64, 64), _Fire(128, 16, 64, 64), pool(),
                _Fire(128, 32, 128, 128), _Fire(256, 32, 128, 128), pool(),
                _Fire(256, 48, 192, 192), _Fire(384, 48, 192, 192), _Fire(384, 64, 256, 256),
                _Fire(512, 64, 256, 256))
        final = nn.Conv2d(512, num_classes, 1)
        self.classifier = nn.Sequential(nn.Dropout(), final, nn.ReLU(True), nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final:
                    nn.init.normal_(m.weight, 0.0, 0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


#: builder name -> function(**kwargs) returning the real-torch twin
BUILDERS = {
    "resnet18": lambda **kw: RefResNet(_Basic, [2, 2, 2, 2], **kw),
    "resnet34": lambda **kw: RefResNet(_Basic, [3, 4, 6, 3], **kw),
    "resnet50": lambda **kw: RefResNet(_Bottle, [3, 4, 6, 3], **kw),
    "vgg11": lambda **kw: RefVGG("A", False, **kw),
    "vgg11_bn": lambda **kw: RefVGG("A", True, **kw),
    "vgg13": lambda **kw: RefVGG("B", False, **kw),
    "vgg13_bn": lambda **kw: RefVGG("B", True, **kw),
    "vgg19": lambda **kw: RefVGG("E", False, **kw),
    "vgg19_bn": lambda **kw: RefVGG("E", True, **kw),
    "vgg16": lambda **kw: RefVGG("D", False, **kw),
    "vgg16_bn": lambda **kw: RefVGG("D", True, **kw),
    "mobilenet_v2": lambda **kw: RefMobileNetV2(**kw),
    "alexnet": lambda **kw: RefAlexNet(**kw),
    "squeezenet1_0": lambda **kw: RefSqueezeNet("1_0", **kw),
    "squeezenet1_1": lambda **kw: RefSqueezeNet("1_1", **kw),
}
