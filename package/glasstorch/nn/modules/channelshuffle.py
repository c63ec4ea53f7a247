"""``ChannelShuffle``: interleave the channels of ``groups`` groups (ShuffleNet). Mirrors torch/nn/modules/channelshuffle.py."""
from __future__ import annotations

from ..._tensor import Tensor
from ...ops import upsampling as _upsampling
from .module import Module


class ChannelShuffle(Module):
    """(N, g * k, *) -> the same shape, channel j of group i moved to place j * g + i."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return _upsampling.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
