"""``Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout`` and ``FeatureAlphaDropout``. Mirrors torch/nn/modules/dropout.py.

Neighbouring pixels of a feature map are strongly correlated, so zeroing single pixels
(``Dropout``) hardly regularises a convolutional network; ``Dropout2d`` zeroes each (sample,
channel) map as a whole, with probability ``p``, and scales the kept maps by 1/(1-p).
"""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training mode, zero each element with probability ``p`` and scale the rest by 1/(1-p);
    in evaluation mode (``model.eval()``), pass the input through."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """In training, zero each channel of an (N, C, H, W) input with probability ``p``; in
    evaluation, pass the input through. (A 3-D input is read as (N, C, L), with a warning, as
    PyTorch does.)"""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """In training, zero each channel of an (N, C, L) or (C, L) input with probability ``p``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """In training, zero each channel of an (N, C, D, H, W) or (C, D, H, W) input with probability ``p``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for selu networks: dropped values take selu's saturation value, then an affine map
    keeps the mean and variance."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
