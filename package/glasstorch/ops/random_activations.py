"""Activations that draw random numbers: ``rrelu`` (a random leaky slope in training) and
``gumbel_softmax`` (a differentiable sample of a categorical distribution). Found missing by
running the examples in PyTorch's own docstrings (issue 14).

Mirrors ``aten/src/ATen/native/Activation.cpp`` (``rrelu_with_noise``) and ``torch/nn/functional.py``
(``gumbel_softmax``). The draws come from glasstorch's generator (numpy's), so the numbers differ
from PyTorch's; in evaluation ``rrelu`` is deterministic and equals PyTorch's.
"""
from __future__ import annotations

from .._creation import empty_like
from .._tensor import Tensor, _wrap
from ..autograd.grad_mode import no_grad
from .indexing import where


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """x for x >= 0, a * x otherwise, with a drawn uniformly from [lower, upper] for each element in
    training and (lower + upper) / 2 in evaluation."""
    if not input.is_floating_point():
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"  # evaluation runs leaky_relu in PyTorch
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy_name[:-6]}'")
    if training:
        with no_grad():
            slope = empty_like(input).uniform_(lower, upper)
    else:
        slope = (lower + upper) / 2
    return where(input >= 0, input, input * slope)


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
