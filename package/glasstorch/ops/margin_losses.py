"""Multi-class hinge losses, found missing by running the examples in PyTorch's own docstrings
(issue 14): ``multi_margin_loss`` (one correct class per sample) and ``multilabel_margin_loss``
(several correct classes per sample).

Mirrors ``aten/src/ATen/native/LossMultiMargin.cpp`` and ``LossMultiLabelMargin.cpp``. Composed of
differentiable ops (gather, clamp, masks, sums): the gradient is the hinge's, 0 where a margin is
met. Simplified: PyTorch records ``MultiMarginLossBackward0`` / ``MultilabelMarginLossBackward0``;
glasstorch's ``grad_fn`` is the reduction's.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return losses.mean()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      reduction: str = "mean") -> Tensor:
    """sum over the wrong classes i of max(0, margin - x[y] + x[i])^p (times weight[y]), divided by
    the number of classes, for each sample."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if input.dim() > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    y = target.reshape(-1)
    classes = x.shape[1]
    if y.numel() != x.shape[0]:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{x.shape[0]}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if ((y._data < 0) | (y._data >= classes)).any():
        raise RuntimeError("target out of range")
    correct = x.gather(1, y.reshape(-1, 1))
    hinge = (margin - correct + x).clamp(min=0)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight.index_select(0, y).reshape(-1, 1)
    is_target = _wrap(np.arange(classes)[None, :] == y._data[:, None])
    losses = hinge.masked_fill(is_target, 0.0).sum(1) / classes
    if input.dim() < 2 and reduction == "none":
        losses = losses.reshape(target.shape) if target.dim() else losses.reshape(())
    return _reduce(losses, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """For each sample: sum over its target classes j (the entries of ``target`` before the first
    -1) and its other classes i of max(0, 1 - (x[j] - x[i])), divided by the number of classes."""
    if input.dim() > 2 or target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    t = target._data.reshape(x.shape)
    classes = x.shape[1]
    valid = np.cumprod(t >= 0, axis=1).astype(bool)  # the entries before the first -1
    if (t[valid] >= classes).any():
        raise RuntimeError("argument #2 'target' is out of range")
    counts = np.zeros(x.shape, dtype=x._data.dtype)  # how often each class is named as a target
    rows = np.repeat(np.arange(x.shape[0])[:, None], classes, axis=1)
    np.add.at(counts, (rows[valid], t[valid]), 1)
    is_target = counts > 0
    # pairs (j, i): j a target class (counted as often as named), i not a target class
    pair_weight = counts[:, :, None] * (~is_target)[:, None, :]
    hinge = (1 - x.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0)
    losses = (hinge * _wrap(pair_weight.astype(x._data.dtype))).sum((1, 2)) / classes
    if input.dim() < 2:
        losses = losses.reshape(())
    return _reduce(losses, reduction)
