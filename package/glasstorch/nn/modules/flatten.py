"""``Flatten``: merge a range of dims into one. Mirrors torch/nn/modules/flatten.py."""
from __future__ import annotations

from ..._tensor import Tensor
from .module import Module


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``; by default keeps the batch dim and merges the rest."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
