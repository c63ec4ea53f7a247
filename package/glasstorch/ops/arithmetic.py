"""Arithmetic: ``+ - * / **`` and negation, each forward next to its backward.

Mirrors the formulas of PyTorch's ``tools/autograd/derivatives.yaml``; each Node declares what it
saves as PyTorch's generated ``Functions.h`` does (``self_``, ``other_``, ``alpha``). Where inputs
broadcast, a formula still returns a gradient of the output's shape: the engine sums it back to
each input's shape (``validate_outputs``), as PyTorch's does. A backward is written with tensor
operations, so with ``create_graph=True`` the backward itself is recorded and can be
differentiated again.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._elementwise import apply_binary, data_of
from ._util import compute_requires_grad, set_history


class AddBackward0(Node):
    """out = self + alpha * other:  d/dself = grad,  d/dother = alpha * grad."""

    alpha: Any

    def backward(self, grad: Tensor) -> tuple:
        return (
            grad if self.needs_input_grad(0) else None,
            maybe_multiply(grad, self.alpha) if self.needs_input_grad(1) else None,
        )


class SubBackward0(Node):
    """out = self - alpha * other:  d/dself = grad,  d/dother = -alpha * grad."""

    alpha: Any

    def backward(self, grad: Tensor) -> tuple:
        return (
            grad if self.needs_input_grad(0) else None,
            maybe_multiply(-grad, self.alpha) if self.needs_input_grad(1) else None,
        )


class RsubBackward0(Node):
    """out = other - alpha * self, both tensors:  d/dself = -alpha * grad,  d/dother = grad."""

    alpha: Any

    def backward(self, grad: Tensor) -> tuple:
        return (
            maybe_multiply(-grad, self.alpha) if self.needs_input_grad(0) else None,
            grad if self.needs_input_grad(1) else None,
        )


class RsubBackward1(Node):
    """out = other - alpha * self, with ``other`` a number:  d/dself = -alpha * grad."""

    alpha: Any

    def backward(self, grad: Tensor) -> tuple:
        return (maybe_multiply(-grad, self.alpha),)


def maybe_multiply(grad: Tensor, alpha: Any) -> Tensor:
    """``grad * alpha``, skipped when ``alpha`` is 1 (PyTorch's helper of the same name)."""
    return grad if alpha == 1 else grad * alpha


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other``."""
    return _plus_or_minus(np.add, AddBackward0, input, other, alpha)


def _plus_or_minus(ufunc: Any, node_class: type, input: Any, other: Any, alpha: Any) -> Tensor:
    """``input ± alpha * other``: add and sub differ only in the ufunc and the Node."""
    other_scaled = other if alpha == 1 else _scale_value(other, alpha)
    out = _wrap(apply_binary(ufunc, input, other_scaled))
    if compute_requires_grad(input, other):
        node = node_class(input, other)
        node.alpha = alpha
        set_history(out, node)
    return out


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``."""
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _plus_or_minus(np.subtract, SubBackward0, input, other, alpha)


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``: what ``2 - x`` calls."""
    if _is_bool(input):
        return sub(other, input, alpha=alpha)  # PyTorch's error for a bool tensor
    out = _wrap(apply_binary(np.subtract, other, input if alpha == 1 else _scale_value(input, alpha)))
    if compute_requires_grad(input, other):
        node = RsubBackward0(input, other) if isinstance(other, Tensor) else RsubBackward1(input)
        node.alpha = alpha
        set_history(out, node)
    return out


def _scale_value(value: Any, alpha: Any) -> Any:
    if not isinstance(value, Tensor):
        return value * alpha
    scaled = np.asarray(value._data * alpha)
    if value.dtype in (dtypes.float16, dtypes.bfloat16):
        scaled = scaled.astype(value._data.dtype)  # (numpy widens bfloat16 * a Python number to float32)
    return _wrap(scaled)


def _is_bool(value: Any) -> bool:
    return isinstance(value, Tensor) and value._data.dtype == np.bool_


class MulBackward0(Node):
    """out = self * other:  d/dself = grad * other,  d/dother = grad * self."""

    self_: SavedTensor
    other_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (
            grad * self._saved_other if self.needs_input_grad(0) else None,
            grad * self._saved_self if self.needs_input_grad(1) else None,
        )


def mul(input: Any, other: Any) -> Tensor:
    out = _wrap(apply_binary(np.multiply, input, other))
    if compute_requires_grad(input, other):
        node = MulBackward0(input, other)
        # each input's gradient needs the *other* input: save only what will be used (as PyTorch)
        if node.needs_input_grad(0):
            node.other_ = SavedTensor(other)
        if node.needs_input_grad(1):
            node.self_ = SavedTensor(input)
        set_history(out, node)
    return out


class DivBackward0(Node):
    """out = self / other:  d/dself = grad / other,  d/dother = -grad * self / other**2."""

    self_: SavedTensor
    other_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        other = self._saved_other
        return (
            grad / other if self.needs_input_grad(0) else None,
            -grad * self._saved_self / (other * other) if self.needs_input_grad(1) else None,
        )


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """True division (integers divide to floating point), or ``rounding_mode='floor'/'trunc'``."""
    if rounding_mode is not None:
        return _rounding_div(input, other, rounding_mode)
    out = _wrap(apply_binary(np.true_divide, input, other, floating=True, quiet=True))
    if compute_requires_grad(input, other):
        node = DivBackward0(input, other)
        node.other_ = SavedTensor(other)
        if node.needs_input_grad(1):
            node.self_ = SavedTensor(input)
        set_history(out, node)
    return out


def _rounding_div(input: Any, other: Any, rounding_mode: str) -> Tensor:
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    target = apply_binary(np.add, input, other).dtype  # integer inputs stay integers
    if target.kind in "iu" and np.any(np.asarray(data_of(other)) == 0):
        raise RuntimeError("ZeroDivisionError")  # (an integer has no inf to give)
    quotient = apply_binary(np.true_divide, input, other, floating=True, quiet=True)
    rounded = np.floor(quotient) if rounding_mode == "floor" else np.trunc(quotient)
    out = _wrap(rounded.astype(target))
    if compute_requires_grad(input, other):  # only floating inputs can require grad
        node = DivBackward2(input, other)
        node.other_, node.rounding_mode = SavedTensor(other), rounding_mode
        if node.needs_input_grad(1):  # self is saved for other's gradient only (as PyTorch)
            node.self_ = SavedTensor(input)
        set_history(out, node)
    return out


class DivBackward2(Node):
    """out = div(self, other, rounding_mode): a step function, so both gradients are zero (PyTorch
    records the Node all the same, and saves self, other and rounding_mode)."""

    self_: SavedTensor
    other_: SavedTensor
    rounding_mode: str

    def backward(self, grad: Tensor) -> tuple:
        zero = grad * 0
        return (zero if self.needs_input_grad(0) else None, zero if self.needs_input_grad(1) else None)


def reciprocal(input: Tensor) -> Tensor:
    return div(1.0, input) if not isinstance(input, Tensor) else _reciprocal(input)


class ReciprocalBackward0(Node):
    """out = 1 / self:  d/dself = -grad * out**2."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (-grad * result * result,)


def _reciprocal(input: Tensor) -> Tensor:
    out = _wrap(apply_binary(np.true_divide, 1.0, input, floating=True, quiet=True))
    if compute_requires_grad(input):
        node = ReciprocalBackward0(input)
        node.result_ = SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


def rdiv(input: Tensor, other: Any) -> Tensor:
    """``other / input`` with ``other`` a number: PyTorch computes ``input.reciprocal() * other``."""
    return mul(reciprocal(input), other)


class NegBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (-grad,)


def neg(input: Tensor) -> Tensor:
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    out = _wrap(np.negative(input._data))
    if compute_requires_grad(input):
        set_history(out, NegBackward0(input))
    return out


class PowBackward0(Node):
    """out = self ** exponent (a number):  d/dself = grad * exponent * self ** (exponent - 1)."""

    self_: SavedTensor
    exponent: Any

    def backward(self, grad: Tensor) -> tuple:
        exponent = self.exponent
        if exponent == 0:
            return (grad * 0,)
        return (grad * (exponent * self._saved_self ** (exponent - 1)),)


class PowBackward1(Node):
    """out = self ** exponent (both tensors):
    d/dself = grad * exponent * self ** (exponent - 1),  d/dexponent = grad * out * log(self)."""

    self_: SavedTensor
    exponent_: SavedTensor
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, exponent = self._saved_self, self._saved_exponent
        grad_self = grad_exponent = None
        if self.needs_input_grad(0):
            grad_self = grad * exponent * self_ ** (exponent - 1)
        if self.needs_input_grad(1):
            # PyTorch masks the points where self == 0 and exponent >= 0 (the limit there is 0)
            safe_log = (self_ + (self_ == 0)).log()
            grad_exponent = grad * self._saved_result * safe_log
        return grad_self, grad_exponent


class PowBackward2(Node):
    """out = self ** exponent with ``self`` a number:  d/dexponent = grad * out * log(self)."""

    self: Any  # the number (PyTorch's name for the base)
    exponent_: SavedTensor
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        base = self._saved_self
        return (grad * self._saved_result * float(np.log(base)) if base > 0 else grad * 0,)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if not isinstance(input, Tensor):
        return _scalar_pow(input, exponent)
    if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "biu":
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    out = _wrap(apply_binary(np.power, input, exponent, quiet=True))
    if compute_requires_grad(input, exponent):
        if isinstance(exponent, Tensor):
            node = PowBackward1(input, exponent)
            node.self_, node.exponent_ = SavedTensor(input), SavedTensor(exponent)
            node.result_ = SavedTensor(out, is_output=True)
        else:
            node = PowBackward0(input)
            node.self_, node.exponent = SavedTensor(input), exponent
        set_history(out, node)
    return out


def _scalar_pow(base: Any, exponent: Tensor) -> Tensor:
    out = _wrap(apply_binary(np.power, float(base) if exponent._data.dtype.kind == "f" else base, exponent, quiet=True))
    if compute_requires_grad(exponent):
        node = PowBackward2(exponent)
        node.self, node.exponent_, node.result_ = base, SavedTensor(exponent), SavedTensor(out, is_output=True)
        set_history(out, node)
    return out
