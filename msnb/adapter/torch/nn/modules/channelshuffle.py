"""``ChannelShuffle`` (as in PyTorch's ``torch/nn/modules/channelshuffle.py``)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """msnb implementation of ``torch.nn.ChannelShuffle``."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
