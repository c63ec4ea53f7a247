"""Comparisons and logic: ``== != < <= > >=`` give bool tensors (no gradient flows through a
comparison); ``maximum``/``minimum`` are the differentiable elementwise max and min."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from .._typename import scalar_type_name
from ..dtypes import from_numpy_dtype
from ._elementwise import apply_binary, broadcast_error, data_of, shape_of
from ._util import compute_requires_grad, set_history


def _compare(ufunc: Any, input: Any, other: Any) -> Tensor:
    return _wrap(np.asarray(apply_binary(ufunc, input, other)))


def eq(input: Any, other: Any) -> Tensor:
    return _compare(np.equal, input, other)


def ne(input: Any, other: Any) -> Tensor:
    return _compare(np.not_equal, input, other)


def lt(input: Any, other: Any) -> Tensor:
    return _compare(np.less, input, other)


def le(input: Any, other: Any) -> Tensor:
    return _compare(np.less_equal, input, other)


def gt(input: Any, other: Any) -> Tensor:
    return _compare(np.greater, input, other)


def ge(input: Any, other: Any) -> Tensor:
    return _compare(np.greater_equal, input, other)


def _bitwise(ufunc: Any, kernel: str, input: Any, other: Any) -> Tensor:
    """A bitwise op: integers and bools only (PyTorch has no kernel for floats: ``kernel`` names
    the one its message names)."""
    values = np.asarray(apply_binary(ufunc, input, other))
    if values.dtype.kind == "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(from_numpy_dtype(values.dtype))}'")
    return _wrap(values)


def bitwise_and(input: Any, other: Any) -> Tensor:
    return _bitwise(np.bitwise_and, "bitwise_and_cpu", input, other)


def bitwise_or(input: Any, other: Any) -> Tensor:
    return _bitwise(np.bitwise_or, "bitwise_or_cpu", input, other)


def bitwise_xor(input: Any, other: Any) -> Tensor:
    return _bitwise(np.bitwise_xor, "bitwise_xor_cpu", input, other)


def bitwise_not(input: Tensor) -> Tensor:
    if input._data.dtype.kind == "f":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{scalar_type_name(input.dtype)}'")
    return _wrap(np.invert(input._data))


def logical_not(input: Tensor) -> Tensor:
    return _wrap(np.logical_not(input._data))


def apply_logical(ufunc: Any, input: Tensor, other: Any) -> Tensor:
    """A logical op of two operands: any dtypes (nonzero is True), broadcast, PyTorch's message
    where the shapes do not broadcast."""
    try:
        return _wrap(np.asarray(ufunc(input._data, data_of(other))))
    except ValueError:
        raise broadcast_error(shape_of(input), shape_of(other)) from None


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    return apply_logical(np.logical_and, input, other)


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    return apply_logical(np.logical_or, input, other)


def isnan(input: Tensor) -> Tensor:
    return _wrap(np.isnan(input._data))


def isfinite(input: Tensor) -> Tensor:
    return _wrap(np.isfinite(input._data))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match {scalar_type_name(other.dtype)}")
    try:
        return _wrap(np.asarray(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)))
    except ValueError:
        raise broadcast_error(shape_of(input), shape_of(other)) from None


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both have the same shape and the same values."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


class _ExtremumBackward(Node):
    """The gradient goes to the larger (or smaller) input; ties split it in half, as in PyTorch:
    d/dself = grad * (self wins + tie / 2),  d/dother = grad - d/dself."""

    self_: SavedTensor
    other_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self._saved_self, self._saved_other
        wins = _wrap(self.pick(self_._data, other._data))
        ties = _wrap(self_._data == other._data)
        share_self = grad * wins + grad * ties * 0.5
        return (
            share_self if self.needs_input_grad(0) else None,
            grad - share_self if self.needs_input_grad(1) else None,
        )


class MaximumBackward0(_ExtremumBackward):
    pick = staticmethod(np.greater)


class MinimumBackward0(_ExtremumBackward):
    pick = staticmethod(np.less)


def _extremum(ufunc: Any, node_class: type, input: Tensor, other: Tensor) -> Tensor:
    out = _wrap(np.asarray(apply_binary(ufunc, input, other)))
    if compute_requires_grad(input, other):
        node = node_class(input, other)
        node.self_, node.other_ = SavedTensor(input), SavedTensor(other)
        set_history(out, node)
    return out


def maximum(input: Tensor, other: Tensor) -> Tensor:
    return _extremum(np.maximum, MaximumBackward0, input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    return _extremum(np.minimum, MinimumBackward0, input, other)
