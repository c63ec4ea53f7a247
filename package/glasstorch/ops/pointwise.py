"""Elementwise functions of one tensor: abs, exp, log, sqrt, sin, cos, tanh, sigmoid, relu, clamp.

Each backward multiplies the incoming gradient by the function's derivative (the chain rule for
an elementwise function). Where the derivative is easiest to write with the function's *result*
(exp, tanh, sigmoid, sqrt, relu), the Node saves the output rather than the input, as PyTorch does.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import set_history, floating_data, compute_requires_grad


def _unary(input: Tensor, values: np.ndarray, node_class: type, *, save_input: bool = False,
           save_output: bool = False) -> Tensor:
    """Wrap ``values`` as the output of an elementwise op and record ``node_class`` for it."""
    out = _wrap(values)
    if compute_requires_grad(input):
        node = node_class(input)
        node.save_for_backward(*((input,) if save_input else ()), output=out if save_output else None)
        set_history(out, node)
    return out


class AbsBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        return (grad * self_.sign(),)


def abs(input: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    return _unary(input, np.abs(input._data), AbsBackward0, save_input=True)


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 elementwise; its gradient is zero, so nothing is recorded."""
    return _wrap(np.sign(input._data))


class ExpBackward0(Node):
    """d exp(x) = exp(x): the saved output is the derivative."""

    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        return (grad * result,)


def exp(input: Tensor) -> Tensor:
    with np.errstate(over="ignore"):  # exp(1000) = inf, silently, as in PyTorch
        values = np.exp(floating_data(input))
    return _unary(input, values, ExpBackward0, save_output=True)


class LogBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        return (grad / self_,)


def log(input: Tensor) -> Tensor:
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf and log(-1) = nan, as in PyTorch
        values = np.log(floating_data(input))
    return _unary(input, values, LogBackward0, save_input=True)


class SqrtBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        return (grad / (2 * result),)


def sqrt(input: Tensor) -> Tensor:
    with np.errstate(invalid="ignore"):
        values = np.sqrt(floating_data(input))
    return _unary(input, values, SqrtBackward0, save_output=True)


class SinBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        return (grad * self_.cos(),)


def sin(input: Tensor) -> Tensor:
    return _unary(input, np.sin(floating_data(input)), SinBackward0, save_input=True)


class CosBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        return (grad * -self_.sin(),)


def cos(input: Tensor) -> Tensor:
    return _unary(input, np.cos(floating_data(input)), CosBackward0, save_input=True)


class TanhBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        return (grad * (1 - result * result),)


def tanh(input: Tensor) -> Tensor:
    return _unary(input, np.tanh(floating_data(input)), TanhBackward0, save_output=True)


class SigmoidBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        return (grad * result * (1 - result),)


def sigmoid(input: Tensor) -> Tensor:
    data = floating_data(input)
    # float16 and bfloat16 are computed in float32 and rounded once, as PyTorch does
    work = data.astype(np.float32) if data.dtype.itemsize < 4 else data
    # 1 / (1 + exp(-x)) overflows for very negative x; this form never does
    with np.errstate(over="ignore"):
        values = np.where(work >= 0, 1 / (1 + np.exp(-np.abs(work))), np.exp(-np.abs(work)) / (1 + np.exp(-np.abs(work))))
    return _unary(input, values.astype(data.dtype, copy=False), SigmoidBackward0, save_output=True)


class ReluBackward0(Node):
    """The gradient passes where the output is positive and stops where it is zero."""

    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        passes = _wrap(result._data > 0)  # a mask has no gradient: no need to go through an op
        return (grad * passes,)


def relu(input: Tensor) -> Tensor:
    return _unary(input, np.maximum(input._data, 0), ReluBackward0, save_output=True)


class ClampBackward1(Node):
    """The gradient passes where ``min <= self <= max`` and is zero where the clamp cut."""

    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        inside = _wrap(_inside(self_._data, self.min, self.max))
        return (grad * inside,)


def _inside(data: np.ndarray, low: Any, high: Any) -> np.ndarray:
    mask = np.ones(data.shape, dtype=bool)
    if low is not None:
        mask &= data >= low
    if high is not None:
        mask &= data <= high
    return mask


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
    if min is None and max is None:
        raise RuntimeError("glasstorch.clamp: At least one of 'min' or 'max' must not be None")
    min, max = _number(min), _number(max)
    target = dtypes.result_type(input, *(b for b in (min, max) if b is not None)).numpy_dtype
    values = np.clip(input._data.astype(target, copy=False), min, max).astype(target, copy=False)  # (bfloat16 clips to float32)
    out = _unary(input, values, ClampBackward1, save_input=True)
    if out.grad_fn is not None:
        out.grad_fn.min, out.grad_fn.max = min, max
    return out


def _number(value: Any) -> Any:
    """clamp bounds: numbers (a one-element tensor is read as its number)."""
    return value.item() if isinstance(value, Tensor) else value
