"""The robust regression losses, ``huber_loss`` and ``smooth_l1_loss``, and the logistic
``soft_margin_loss``. Mirrors aten/src/ATen/native/Loss.cpp and the formulas of
tools/autograd/derivatives.yaml.

Both losses are quadratic near zero and linear beyond a threshold, so one outlier cannot
dominate the gradient: with z = |input - target|,

    huber:     0.5 z²            if z < delta,  else delta (z - 0.5 delta)
    smooth_l1: 0.5 z² / beta     if z < beta,   else z - 0.5 beta      (= huber / beta)

and the gradient of each element is the difference clamped to [-delta, delta] (huber) or
[-1, 1] after dividing by beta (smooth_l1). Each backward is written with tensor ops, so
``create_graph=True`` differentiates it again.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._nn_checks import _check_not_differentiable
from ._util import compute_requires_grad, set_history
from .loss import _REDUCTIONS, _check_reduction, _reduce


class _RobustLossBackward(Node):
    """What both Nodes share: the gradient of the reduction, then d/d self = -d/d target."""

    self_: SavedTensor
    target_: SavedTensor
    reduction: int  # PyTorch's at::Reduction enum: 0 none, 1 mean, 2 sum

    def backward(self, grad: Tensor) -> tuple:
        x, target = self._saved_self, self._saved_target
        slope = self._slope(x - target)
        if self.reduction == _REDUCTIONS.index("mean"):
            slope = slope / slope.numel()
        grad_self = grad * slope
        return grad_self, (-grad_self if self.needs_input_grad(1) else None)


class HuberLossBackward0(_RobustLossBackward):
    delta: float

    def _slope(self, difference: Tensor) -> Tensor:
        return difference.clamp(-self.delta, self.delta)


class SmoothL1LossBackward0(_RobustLossBackward):
    beta: float

    def _slope(self, difference: Tensor) -> Tensor:
        return (difference / self.beta).clamp(-1, 1)


def _robust_loss(input: Tensor, target: Tensor, reduction: str, node_class: type, threshold: float) -> Tensor:
    _check_reduction(reduction)
    z = np.abs(input._data - target._data)
    values = np.where(z < threshold, 0.5 * z * z, threshold * (z - 0.5 * threshold))
    if node_class is SmoothL1LossBackward0:
        values = values / threshold
    out = _wrap(_reduce(values.astype(input._data.dtype, copy=False), reduction))
    if compute_requires_grad(input, target):
        node = node_class(input, target)
        node.self_, node.target_ = SavedTensor(input), SavedTensor(target)
        node.reduction = _REDUCTIONS.index(reduction)
        setattr(node, "delta" if node_class is HuberLossBackward0 else "beta", float(threshold))
        set_history(out, node)
    return out


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """0.5 z² below ``delta``, delta (z - 0.5 delta) above, z = |input - target|."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _robust_loss(input, target, reduction, HuberLossBackward0, delta)


def smooth_l1_loss(input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 z² / beta below ``beta``, z - 0.5 beta above (``beta > 0``; beta 0 is l1_loss)."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _robust_loss(input, target, reduction, SmoothL1LossBackward0, beta)


class SoftMarginLossBackward0(Node):
    """loss = log(1 + exp(-target * self)): grad_self = -target * sigmoid(-target * self) * grad
    (/ N for 'mean'); target gets no gradient (as in PyTorch's formula)."""

    self_: SavedTensor
    target_: SavedTensor
    reduction: int

    def backward(self, grad: Tensor) -> tuple:
        x, target = self._saved_self, self._saved_target
        slope = -target * (-target * x).sigmoid()
        if self.reduction == _REDUCTIONS.index("mean"):
            slope = slope / slope.numel()
        return grad * slope, None


def soft_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """The logistic loss of a two-class classification with targets ±1: log(1 + exp(-y x))."""
    _check_not_differentiable(target, "target", "soft_margin_loss")
    _check_reduction(reduction)
    z = -target._data * input._data
    values = np.logaddexp(0, z)  # log(1 + exp(z)) without overflow
    out = _wrap(_reduce(values.astype(input._data.dtype, copy=False), reduction))
    if compute_requires_grad(input, target):
        node = SoftMarginLossBackward0(input, target)
        node.self_, node.target_ = SavedTensor(input), SavedTensor(target)
        node.reduction = _REDUCTIONS.index(reduction)
        set_history(out, node)
    return out
