"""Loss functions that PyTorch records as one Node each (``MseLossBackward0``), so the graph and
the gradient match PyTorch's rather than those of the composite formula."""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import set_history, compute_requires_grad

_REDUCTIONS = ("none", "mean", "sum")


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return np.asarray(values.mean(), dtype=values.dtype)
    if reduction == "sum":
        return np.asarray(values.sum(), dtype=values.dtype)
    return values


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


class MseLossBackward0(Node):
    """loss = reduce((self - target)²): d loss / d self = 2 (self - target) · grad [/ N for mean]."""

    def backward(self, grad: Tensor) -> tuple:
        self_, target = self.saved_tensors
        scale = 2.0 / self_.numel() if self.reduction == "mean" else 2.0
        diff = (self_ - target) * (grad * scale)
        return (diff if self.needs_input_grad(0) else None,
                -diff if self.needs_input_grad(1) else None)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """The mean (or sum, or elementwise) squared error; ``target`` broadcasts to ``input``."""
    _check_reduction(reduction)
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3)
    try:
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input.shape[-1]}) must match the size of tensor b "
                           f"({target.shape[-1]}) at non-singleton dimension {input.dim() - 1}") from None
    input_, target_ = (t if t.shape == shape else t.expand(shape) for t in (input, target))
    diff = input_._data - target_._data
    out = _wrap(_reduce(diff * diff, reduction))
    if compute_requires_grad(input, target):
        node = MseLossBackward0(input_, target_)
        node.save_for_backward(input_, target_)
        node.reduction = reduction
        set_history(out, node)
    return out
