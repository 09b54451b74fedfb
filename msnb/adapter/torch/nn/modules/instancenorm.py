"""``InstanceNorm1d/2d/3d`` over ``nn.functional.instance_norm``."""

from __future__ import annotations

from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    spatial = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        batched = input.ndim == self.spatial + 2
        if input.ndim not in (self.spatial + 1, self.spatial + 2):
            raise ValueError(f"expected {self.spatial + 1}D or {self.spatial + 2}D input (got {input.ndim}D input)")
        x = input if batched else input.unsqueeze(0)
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum or 0.1, self.eps)
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """msnb implementation of ``torch.nn.InstanceNorm1d``."""

    spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """msnb implementation of ``torch.nn.InstanceNorm2d``."""

    spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """msnb implementation of ``torch.nn.InstanceNorm3d``."""

    spatial = 3
