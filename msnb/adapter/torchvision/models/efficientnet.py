"""msnb implementation of ``torchvision.models.efficientnet`` (EfficientNet B0-B7 and V2 S/M/L).

Same module tree (``features.<stage>.<block>.block.<i>``, ``avgpool``,
``classifier``), ``state_dict`` keys and default initialisation as
torchvision 0.2x, so torchvision checkpoints load with ``strict=True``;
pretrained ``weights`` load from torchvision's local hub cache
(``_weights.hub_checkpoint_dir()``) when the file is there.
"""

from __future__ import annotations

import copy
import math
from functools import partial

from ... import torch
from ...torch import nn
from . import _weights as W
from ._utils import build_with_weights, init_conv_norm_linear, make_divisible
from .mobilenetv2 import Conv2dNormActivation

__all__ = ["EfficientNet", "MBConvConfig", "FusedMBConvConfig", "MBConv", "FusedMBConv", "efficientnet_b0",
           "efficientnet_b1", "efficientnet_b2", "efficientnet_b3", "efficientnet_b4", "efficientnet_b5",
           "efficientnet_b6", "efficientnet_b7", "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]


class StochasticDepth(nn.Module):
    """``torchvision.ops.StochasticDepth``: in training, drop the residual branch per sample (``"row"``) or
    for the whole batch (``"batch"``) with probability ``p``, scaling survivors by ``1 / (1 - p)``."""

    def __init__(self, p: float, mode: str):
        super().__init__()
        if p < 0.0 or p > 1.0:
            raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
        if mode not in ("batch", "row"):
            raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
        self.p, self.mode = p, mode

    def forward(self, input):
        if not self.training or self.p == 0.0:
            return input
        survival = 1.0 - self.p
        size = [input.shape[0]] + [1] * (input.ndim - 1) if self.mode == "row" else [1] * input.ndim
        noise = torch.empty(size, dtype=input.dtype).bernoulli_(survival)
        if survival > 0.0:
            noise = noise / survival
        return input * noise

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p}, mode={self.mode})"


class SqueezeExcitation(nn.Module):
    """``torchvision.ops.SqueezeExcitation``: channel gates from a pooled 1x1-conv bottleneck."""

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return scale * input


class _BlockConfig:
    """Fields shared by the two block configurations (torchvision's ``_MBConvConfig``)."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block):
        self.expand_ratio, self.kernel, self.stride = expand_ratio, kernel, stride
        self.input_channels, self.out_channels, self.num_layers = input_channels, out_channels, num_layers
        self.block = block

    @staticmethod
    def adjust_channels(channels, width_mult, min_value=None):
        return make_divisible(channels * width_mult, 8, min_value)

    def __repr__(self):
        fields = ("expand_ratio", "kernel", "stride", "input_channels", "out_channels", "num_layers")
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)}" for f in fields) + ")"


class MBConvConfig(_BlockConfig):
    """An MBConv stage: channels scaled by ``width_mult`` (to multiples of 8), depth by ``depth_mult``."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, width_mult=1.0,
                 depth_mult=1.0, block=None):
        super().__init__(expand_ratio, kernel, stride, self.adjust_channels(input_channels, width_mult),
                         self.adjust_channels(out_channels, width_mult),
                         int(math.ceil(num_layers * depth_mult)), MBConv if block is None else block)


class FusedMBConvConfig(_BlockConfig):
    """A Fused-MBConv stage (EfficientNet V2): channels and depth as given."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block=None):
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         FusedMBConv if block is None else block)


class MBConv(nn.Module):
    """Expand (1x1) -> depthwise kxk -> squeeze-excitation -> project (1x1), residual with stochastic depth."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer, se_layer=SqueezeExcitation):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=cnf.kernel, stride=cnf.stride,
                                           groups=expanded, norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(se_layer(expanded, max(1, cnf.input_channels // 4), activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class FusedMBConv(nn.Module):
    """Fused expand+depthwise kxk conv -> project (1x1) (or one kxk conv when not expanding)."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded != cnf.input_channels:
            layers = [Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=cnf.kernel, stride=cnf.stride,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU),
                      Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None)]
        else:
            layers = [Conv2dNormActivation(cnf.input_channels, cnf.out_channels, kernel_size=cnf.kernel,
                                           stride=cnf.stride, norm_layer=norm_layer, activation_layer=nn.SiLU)]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    forward = MBConv.forward


class EfficientNet(nn.Module):
    """msnb implementation of ``torchvision.models.EfficientNet``."""

    def __init__(self, inverted_residual_setting, dropout, stochastic_depth_prob=0.2, num_classes=1000,
                 norm_layer=None, last_channel=None):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, _BlockConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels, kernel_size=3, stride=2,
                                       norm_layer=norm_layer, activation_layer=nn.SiLU)]
        total = sum(cnf.num_layers for cnf in inverted_residual_setting)
        block_id = 0
        for cnf in inverted_residual_setting:
            stage = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:  # later blocks of a stage keep the resolution and the channel count
                    block_cnf.input_channels, block_cnf.stride = block_cnf.out_channels, 1
                stage.append(block_cnf.block(block_cnf, stochastic_depth_prob * float(block_id) / total, norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(last_out, num_classes))

        init_conv_norm_linear(self, lambda m: nn.init.uniform_(m.weight, -1.0 / math.sqrt(m.out_features),
                                                               1.0 / math.sqrt(m.out_features)))

    def _forward_impl(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))

    def forward(self, x):
        return self._forward_impl(x)


#: EfficientNet B0's stages: (expand_ratio, kernel, stride, in, out, layers)
_V1_STAGES = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
              (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
#: V2 stages: (fused?, expand_ratio, kernel, stride, in, out, layers)
_V2_STAGES = {
    "s": [(1, 1, 3, 1, 24, 24, 2), (1, 4, 3, 2, 24, 48, 4), (1, 4, 3, 2, 48, 64, 4), (0, 4, 3, 2, 64, 128, 6),
          (0, 6, 3, 1, 128, 160, 9), (0, 6, 3, 2, 160, 256, 15)],
    "m": [(1, 1, 3, 1, 24, 24, 3), (1, 4, 3, 2, 24, 48, 5), (1, 4, 3, 2, 48, 80, 5), (0, 4, 3, 2, 80, 160, 7),
          (0, 6, 3, 1, 160, 176, 14), (0, 6, 3, 2, 176, 304, 18), (0, 6, 3, 1, 304, 512, 5)],
    "l": [(1, 1, 3, 1, 32, 32, 4), (1, 4, 3, 2, 32, 64, 7), (1, 4, 3, 2, 64, 96, 7), (0, 4, 3, 2, 96, 192, 10),
          (0, 6, 3, 1, 192, 224, 19), (0, 6, 3, 2, 224, 384, 25), (0, 6, 3, 1, 384, 640, 7)],
}
#: B0..B7: (width_mult, depth_mult, dropout); B5-B7 use BatchNorm eps 1e-3, momentum 0.01
_V1_SCALES = [(1.0, 1.0, 0.2), (1.0, 1.1, 0.2), (1.1, 1.2, 0.3), (1.2, 1.4, 0.3), (1.4, 1.8, 0.4),
              (1.6, 2.2, 0.4), (1.8, 2.6, 0.5), (2.0, 3.1, 0.5)]


def _v1(index, weights, kwargs):
    width, depth, dropout = _V1_SCALES[index]
    setting = [MBConvConfig(*s, width_mult=width, depth_mult=depth) for s in _V1_STAGES]
    if index >= 5:
        kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))
    enum = getattr(W, f"EfficientNet_B{index}_Weights")
    return build_with_weights(f"efficientnet_b{index}", enum, weights, kwargs,
                              lambda **kw: EfficientNet(setting, kw.pop("dropout", dropout), **kw))


def _v2(size, dropout, weights, kwargs):
    setting = [FusedMBConvConfig(*s[1:]) if s[0] else MBConvConfig(*s[1:]) for s in _V2_STAGES[size]]
    kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-03))
    enum = getattr(W, f"EfficientNet_V2_{size.upper()}_Weights")
    return build_with_weights(f"efficientnet_v2_{size}", enum, weights, kwargs,
                              lambda **kw: EfficientNet(setting, kw.pop("dropout", dropout), last_channel=1280, **kw))


def efficientnet_b0(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b0``."""
    return _v1(0, weights, kwargs)


def efficientnet_b1(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b1``."""
    return _v1(1, weights, kwargs)


def efficientnet_b2(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b2``."""
    return _v1(2, weights, kwargs)


def efficientnet_b3(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b3``."""
    return _v1(3, weights, kwargs)


def efficientnet_b4(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b4``."""
    return _v1(4, weights, kwargs)


def efficientnet_b5(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b5``."""
    return _v1(5, weights, kwargs)


def efficientnet_b6(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b6``."""
    return _v1(6, weights, kwargs)


def efficientnet_b7(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_b7``."""
    return _v1(7, weights, kwargs)


def efficientnet_v2_s(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_v2_s``."""
    return _v2("s", 0.2, weights, kwargs)


def efficientnet_v2_m(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_v2_m``."""
    return _v2("m", 0.3, weights, kwargs)


def efficientnet_v2_l(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.efficientnet_v2_l``."""
    return _v2("l", 0.4, weights, kwargs)
