"""msnb implementation of ``torchvision.models.mobilenetv2`` (MobileNetV2).

Same module tree, ``state_dict`` keys (``features.0.0.weight``,
``features.1.conv.0.0.weight``, ``classifier.1.weight``, ...) and default
initialisation as torchvision 0.2x.
"""

from __future__ import annotations

from ... import torch
from ...torch import nn
from ._utils import handle_weights, init_conv_norm_linear, make_divisible

__all__ = ["MobileNetV2", "mobilenet_v2"]


class Conv2dNormActivation(nn.Sequential):
    """torchvision's ``ops.Conv2dNormActivation``: conv (+norm) (+activation) as one ``Sequential``.

    Indices ``0``/``1``/``2`` are part of the checkpoint keys, so the layers
    are added in exactly torchvision's order.
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1, inplace=True, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels


#: torchvision's pre-0.12 names for the same block
ConvBNActivation = ConvBNReLU = Conv2dNormActivation


class InvertedResidual(nn.Module):
    """Expand (1x1) -> depthwise 3x3 -> linear project (1x1), with a skip when shapes allow."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.ReLU6))
        layers += [
            Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim, norm_layer=norm_layer,
                                 activation_layer=nn.ReLU6),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            norm_layer(oup),
        ]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    """msnb implementation of ``torchvision.models.MobileNetV2``."""

    def __init__(self, num_classes=1000, width_mult=1.0, inverted_residual_setting=None, round_nearest=8,
                 block=None, norm_layer=None, dropout=0.2):
        super().__init__()
        if block is None:
            block = InvertedResidual
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        input_channel = 32
        last_channel = 1280
        if inverted_residual_setting is None:
            inverted_residual_setting = [
                # t (expansion), c (channels), n (repeats), s (stride of the first)
                [1, 16, 1, 1],
                [6, 24, 2, 2],
                [6, 32, 3, 2],
                [6, 64, 4, 2],
                [6, 96, 3, 1],
                [6, 160, 3, 2],
                [6, 320, 1, 1],
            ]
        if len(inverted_residual_setting) == 0 or len(inverted_residual_setting[0]) != 4:
            raise ValueError("inverted_residual_setting should be non-empty or a 4-element list, "
                             f"got {inverted_residual_setting}")
        input_channel = make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                         activation_layer=nn.ReLU6)]
        for t, c, n, s in inverted_residual_setting:
            output_channel = make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(block(input_channel, output_channel, stride, expand_ratio=t, norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))

        init_conv_norm_linear(self, lambda m: nn.init.normal_(m.weight, 0, 0.01))

    def _forward_impl(self, x):
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return self.classifier(x)

    def forward(self, x):
        return self._forward_impl(x)


def mobilenet_v2(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.mobilenet_v2``; ``weights`` must be None (no downloads)."""
    handle_weights("mobilenet_v2", weights, kwargs)
    return MobileNetV2(**kwargs)
