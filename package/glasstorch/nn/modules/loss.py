"""Loss layers. Mirrors torch/nn/modules/loss.py."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    """The mean (``reduction='mean'``), sum or elementwise squared error."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)
