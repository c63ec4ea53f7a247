"""``PixelShuffle`` and ``PixelUnshuffle``: channels to space and back. Mirrors torch/nn/modules/pixelshuffle.py."""
from __future__ import annotations

from ..._tensor import Tensor
from ...ops import upsampling as _upsampling
from .module import Module


class PixelShuffle(Module):
    """(*, C * r², H, W) -> (*, C, H * r, W * r), as in sub-pixel convolution (Shi et al., 2016)."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return _upsampling.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H * r, W * r) -> (*, C * r², H, W), the inverse of ``PixelShuffle``."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return _upsampling.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
