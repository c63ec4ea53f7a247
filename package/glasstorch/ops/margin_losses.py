"""Multi-class hinge losses, found missing by running the examples in PyTorch's own docstrings
(issue 14): ``multi_margin_loss`` (one correct class per sample) and ``multilabel_margin_loss``
(several correct classes per sample).

Mirrors ``aten/src/ATen/native/LossMultiMargin.cpp`` and ``LossMultiLabelMargin.cpp``. Each loss
is computed in numpy and records PyTorch's Node (``MultiMarginLossBackward0``,
``MultilabelMarginLossBackward0``), whose backward is written with tensor ops: the hinge's
gradient, 0 where a margin is met. The target is not differentiable.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, saved_optional, set_history
from .loss import _REDUCTIONS, _check_reduction, _reduce


def _as_rows(input: Tensor) -> Tensor:
    """The input as (samples, classes): a single sample (C,) or () is one row."""
    return input.reshape(1, -1) if input.dim() < 2 else input


def _per_sample_grad(grad: Tensor, reduction: int, samples: int) -> Tensor:
    """The gradient reaching each sample's loss, as a column (samples, 1)."""
    if reduction == _REDUCTIONS.index("none"):
        return grad.reshape(-1, 1)
    return grad / samples if reduction == _REDUCTIONS.index("mean") else grad


def _one_hot(target: np.ndarray, classes: int, dtype: np.dtype) -> np.ndarray:
    return (np.arange(classes)[None, :] == target[:, None]).astype(dtype)


# --- multi_margin_loss ----------------------------------------------------------------------------
class MultiMarginLossBackward0(Node):
    """loss_n = sum over i != y of w[y] max(0, margin - x[y] + x[i])^p / C. With h_i that hinge
    and a_i = 1 where it is active: d loss_n / d x[i] = w[y] a_i (1, or 2 h_i for p = 2) / C, and
    d loss_n / d x[y] = minus the sum of those."""

    p: int
    margin: float
    reduction: int
    self_: SavedTensor
    target_: SavedTensor
    weight_: SavedTensor | None

    def backward(self, grad: Tensor) -> tuple:
        input = self._saved_self
        x, y = _as_rows(input), self._saved_target.reshape(-1)._data
        classes = x.shape[1]
        hinge = self.margin - x.gather(1, _wrap(y.reshape(-1, 1))) + x
        is_target = _one_hot(y, classes, x._data.dtype)
        slope = _wrap(((hinge._data > 0) & (is_target == 0)).astype(x._data.dtype))
        if self.p == 2:
            slope = slope * hinge * 2
        weight = self._saved_weight
        if weight is not None:
            slope = slope * weight.index_select(0, _wrap(y)).reshape(-1, 1)
        slope = slope / classes
        grad_x = slope - _wrap(is_target) * slope.sum(1, keepdim=True)
        return ((grad_x * _per_sample_grad(grad, self.reduction, x.shape[0])).reshape(input.shape),)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      reduction: str = "mean") -> Tensor:
    """sum over the wrong classes i of max(0, margin - x[y] + x[i])^p (times weight[y]), divided by
    the number of classes, for each sample."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _check_reduction(reduction)
    if input.dim() > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = _as_rows(input)._data
    y = target._data.reshape(-1)
    samples, classes = x.shape
    if y.size != samples:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{samples}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if ((y < 0) | (y >= classes)).any():
        raise RuntimeError("target out of range")
    hinge = np.maximum(margin - x[np.arange(samples), y][:, None] + x, 0)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight._data[y][:, None]
    losses = np.where(_one_hot(y, classes, bool), 0, hinge).sum(1) / classes
    if input.dim() < 2 and reduction == "none":
        losses = losses.reshape(target.shape)
    out = _wrap(np.asarray(_reduce(losses.astype(x.dtype, copy=False), reduction)))
    if compute_requires_grad(input):
        node = MultiMarginLossBackward0(input)
        node.p, node.margin, node.reduction = p, float(margin), _REDUCTIONS.index(reduction)
        node.self_, node.target_, node.weight_ = SavedTensor(input), SavedTensor(target), saved_optional(weight)
        set_history(out, node)
    return out


# --- multilabel_margin_loss -----------------------------------------------------------------------
class MultilabelMarginLossBackward0(Node):
    """loss_n = sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C.
    Each active pair (j, i) adds 1 / C to d loss / d x[i] and takes 1 / C from d loss / d x[j]:
    a constant, so the second derivative is 0."""

    reduction: int
    self_: SavedTensor
    target_: SavedTensor
    is_target_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        input = self._saved_self
        x = _as_rows(input)._data
        active = _active_pairs(x, self._saved_target._data.reshape(x.shape))
        grad_x = _wrap((active.sum(1) - active.sum(2)) / x.shape[1])
        return ((grad_x * _per_sample_grad(grad, self.reduction, x.shape[0])).reshape(input.shape),)


def _target_counts(x: np.ndarray, target: np.ndarray) -> np.ndarray:
    """How often each class is named as a target of its sample (the entries before the first -1)."""
    classes = x.shape[1]
    valid = np.cumprod(target >= 0, axis=1).astype(bool)
    if (target[valid] >= classes).any():
        raise RuntimeError("argument #2 'target' is out of range")
    counts = np.zeros(x.shape, dtype=x.dtype)
    rows = np.repeat(np.arange(x.shape[0])[:, None], classes, axis=1)
    np.add.at(counts, (rows[valid], target[valid]), 1)
    return counts


def _hinges(x: np.ndarray) -> np.ndarray:
    """1 - (x[j] - x[i]) for every pair (j, i) of a sample: (samples, C, C)."""
    return 1 - x[:, :, None] + x[:, None, :]


def _pair_weights(x: np.ndarray, target: np.ndarray) -> np.ndarray:
    """(j, i) pairs: j a target class (counted as often as named), i not a target class."""
    counts = _target_counts(x, target)
    return counts[:, :, None] * (counts == 0)[:, None, :]


def _active_pairs(x: np.ndarray, target: np.ndarray) -> np.ndarray:
    return _pair_weights(x, target) * (_hinges(x) > 0)


def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """For each sample: sum over its target classes j (the entries of ``target`` before the first
    -1) and its other classes i of max(0, 1 - (x[j] - x[i])), divided by the number of classes."""
    _check_reduction(reduction)
    if input.dim() > 2 or target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    x = _as_rows(input)._data
    t = target._data.reshape(x.shape)
    losses = (_pair_weights(x, t) * np.maximum(_hinges(x), 0)).sum((1, 2)) / x.shape[1]
    if input.dim() < 2:
        losses = losses.reshape(())
    out = _wrap(np.asarray(_reduce(losses.astype(x.dtype, copy=False), reduction)))
    if compute_requires_grad(input):
        node = MultilabelMarginLossBackward0(input)
        node.reduction = _REDUCTIONS.index(reduction)
        is_target = _wrap((_target_counts(x, t) > 0).astype(x.dtype).reshape(input.shape))
        node.self_, node.target_, node.is_target_ = SavedTensor(input), SavedTensor(target), SavedTensor(is_target)
        set_history(out, node)
    return out
