"""``Dropout``. Mirrors torch/nn/modules/dropout.py."""
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
