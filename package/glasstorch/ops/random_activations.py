"""Activations that draw random numbers: ``rrelu`` (a random leaky slope in training) and
``gumbel_softmax`` (a differentiable sample of a categorical distribution). Found missing by
running the examples in PyTorch's own docstrings (issue 14).

Mirrors ``aten/src/ATen/native/Activation.cpp`` (``rrelu_with_noise``) and ``torch/nn/functional.py``
(``gumbel_softmax``). The draws come from glasstorch's generator (numpy's), so the numbers differ
from PyTorch's; in evaluation ``rrelu`` is deterministic and equals PyTorch's.

``rrelu`` records PyTorch's ``RreluWithNoiseBackward0`` (``RreluWithNoiseBackward1`` in place,
which saves the result), whose ``noise`` is the slope of each element in training (1 where
x >= 0) and undefined in evaluation, where the slope is (lower + upper) / 2 everywhere.
"""
from __future__ import annotations

import numpy as np

from .._creation import empty_like
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ..autograd.grad_mode import no_grad
from ._util import compute_requires_grad, set_history
from .inplace import apply_inplace


class _RreluWithNoiseBackward(Node):
    """out = x * noise (training) or leaky_relu(x, (lower + upper) / 2) (evaluation):
    grad_input = grad * noise, or grad * (1 where x > 0, else the mean slope)."""

    lower: float
    upper: float
    training: bool
    noise_: SavedTensor | None

    def backward(self, grad: Tensor) -> tuple:
        return (grad * _slope_of(self._signs(), self),)


class RreluWithNoiseBackward0(_RreluWithNoiseBackward):
    self_: SavedTensor

    def _signs(self) -> Tensor:
        return self._saved_self


class RreluWithNoiseBackward1(_RreluWithNoiseBackward):
    """The in-place form saves the result, whose sign is the input's (the slopes are positive)."""

    result_: SavedTensor

    def _signs(self) -> Tensor:
        return self._saved_result


def _slope_of(signs: Tensor, node: _RreluWithNoiseBackward) -> Tensor:
    """The derivative, a constant: the drawn noise in training, else 1 or the mean slope."""
    if node.training:
        return node._saved_noise
    data = signs._data
    return _wrap(np.where(data > 0, np.ones((), data.dtype), np.asarray((node.lower + node.upper) / 2, data.dtype)))


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          _node_class: type = RreluWithNoiseBackward0) -> Tensor:
    """x for x >= 0, a * x otherwise, with a drawn uniformly from [lower, upper] for each element in
    training and (lower + upper) / 2 in evaluation."""
    if not input.is_floating_point():
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"  # evaluation runs leaky_relu in PyTorch
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy_name[:-6]}'")
    data = input._data
    noise = None
    if training:
        with no_grad():
            slopes = empty_like(input).uniform_(lower, upper)._data
        noise = _wrap(np.where(data >= 0, np.ones((), data.dtype), slopes))
        out = _wrap(data * noise._data)
    else:
        out = _wrap(np.where(data >= 0, data, data * np.asarray((lower + upper) / 2, data.dtype)))
    if compute_requires_grad(input):
        node = _node_class(input)
        node.lower, node.upper, node.training = float(lower), float(upper), bool(training)
        node.noise_ = None if noise is None else SavedTensor(noise)
        if _node_class is RreluWithNoiseBackward1:
            node.result_ = SavedTensor(out, is_output=True)
        else:
            node.self_ = SavedTensor(input)
        set_history(out, node)
    return out


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """``rrelu`` written into ``input`` (``RreluWithNoiseBackward1``)."""
    return apply_inplace(input, lambda old: rrelu(old, lower, upper, training, _node_class=RreluWithNoiseBackward1))


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1); ``hard``: the one-hot of its argmax in the
    forward pass, the soft sample's gradient in the backward pass (straight-through)."""
    with no_grad():
        gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _wrap(empty_like(logits)._data * 0).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
