"""Copies and dtype conversions: ``clone`` and ``to(dtype)``, both differentiable."""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import compute_requires_grad, set_history


class CloneBackward0(Node):
    """out = a copy of self:  d/dself = grad."""

    def backward(self, grad: Tensor) -> tuple:
        return (grad,)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own memory; the gradient passes through unchanged."""
    out = _wrap(input._data.copy())
    if compute_requires_grad(input):
        set_history(out, CloneBackward0(input))
    return out


class ToCopyBackward0(Node):
    """out = self converted to another dtype:  d/dself = grad, converted back to self's dtype."""

    def backward(self, grad: Tensor) -> tuple:
        return (grad.to(self._self_dtype),)


def to_dtype(input: Tensor, dtype: Any) -> Tensor:
    out = _wrap(input._data.astype(dtype.numpy_dtype))
    # only a floating-point result can carry a gradient (an integer has none)
    if dtype.is_floating_point and compute_requires_grad(input):
        node = ToCopyBackward0(input)
        node._self_dtype = input.dtype
        set_history(out, node)
    return out
