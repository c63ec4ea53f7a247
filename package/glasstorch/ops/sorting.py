"""Sorting and selecting by value: ``sort``, ``argsort``, ``topk``, ``unique``.

Mirrors ``aten/src/ATen/native/Sorting.cpp`` and ``Unique.cpp``. ``sort`` and ``topk`` return
``(values, indices)``; the values were taken from the input at those indices, so the backward
puts each gradient back there: ``zeros.scatter(dim, indices, grad)`` (every index appears once).
Ties keep their original order (a stable sort); NaN counts as larger than every number, as in
PyTorch.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _normalize_dim, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .reduction import _return_type

return_types_sort = _return_type("sort")
return_types_topk = _return_type("topk")


class SortBackward0(Node):
    """values = self.sort(dim).values:  grad_self = zeros.scatter(dim, indices, grad)."""

    dim: int
    indices_: SavedTensor
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        from .scatter_gather import scatter

        indices, shape = self._saved_indices, self.self_sym_sizes
        if not shape:  # a 0-d sort is a 1-element one
            grad, indices, shape = grad.reshape(1), indices.reshape(1), (1,)
        zeros = _wrap(np.zeros(shape, grad._data.dtype))
        return (scatter(zeros, self.dim % len(shape), indices, grad).reshape(self.self_sym_sizes),)


class SortBackward1(SortBackward0):
    """sort(..., stable=...) (the overload with the ``stable`` keyword): as SortBackward0."""


class TopkBackward0(SortBackward0):
    pass


def _argsort(data: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable order along ``axis``. Descending: sort the reversed array ascending and reverse the
    answer, so equal values still keep their original order and NaN comes first."""
    if not descending:
        return np.argsort(data, axis=axis, kind="stable")
    n = data.shape[axis]
    order = np.argsort(np.flip(data, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(order, axis)


def _dim_of(input: Tensor, dim: int) -> int:
    return _normalize_dim(dim, input._data.ndim) if input._data.ndim else 0


def _selected(input: Tensor, axis: int, indices: np.ndarray, node_class: type, return_type: type, dim: int) -> Any:
    """``(values, indices)`` read from ``input`` at ``indices`` along ``axis`` (``dim`` as the
    caller wrote it, which the Node keeps, as PyTorch's does), recorded."""
    data = input._data.reshape(input._data.shape or (1,))
    values = np.take_along_axis(data, indices, axis=axis).reshape(indices.shape if input._data.ndim else ())
    out, indices = _wrap(values), _wrap(indices.astype(np.int64).reshape(values.shape))
    if compute_requires_grad(input):
        node = node_class(input)
        node.dim, node.self_sym_sizes, node.indices_ = dim, input._data.shape, SavedTensor(indices)
        set_history(out, node)
    return return_type(out, indices)


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool | None = None) -> Any:
    """``(values, indices)``: the values in order along ``dim``, and where each came from. (Always
    stable here; given ``stable=``, PyTorch calls another overload, whose Node is SortBackward1.)"""
    axis = _dim_of(input, dim)
    order = _argsort(input._data.reshape(input._data.shape or (1,)), axis, descending)
    return _selected(input, axis, order, SortBackward0 if stable is None else SortBackward1, return_types_sort, dim)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``)."""
    return sort(input.detach(), dim, descending).indices


def msort(input: Tensor) -> Tensor:
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """``(values, indices)`` of the ``k`` largest (or smallest) elements along ``dim``, in order."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    axis = _dim_of(input, dim)
    size = input._data.shape[axis] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    order = _argsort(input._data.reshape(input._data.shape or (1,)), axis, descending=largest)
    first = order[(slice(None),) * axis + (slice(0, k),)]
    return _selected(input, axis, first, TopkBackward0, return_types_topk, dim)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
           dim: int | None = None) -> Any:
    """The distinct values (or, with ``dim``, the distinct slices along ``dim``), in ascending order;
    optionally where each element went (``return_inverse``) and how often each value occurs.
    Not differentiable, as in PyTorch. (PyTorch's CPU kernel sorts even with ``sorted=False``.)"""
    data = input._data
    axis = None if dim is None else _normalize_dim(dim, data.ndim)
    values, inverse, counts = np.unique(data if axis is not None else data.reshape(-1), return_inverse=True,
                                        return_counts=True, axis=axis)
    inverse = inverse.reshape(data.shape if axis is None else (data.shape[axis],)).astype(np.int64)
    result = [_wrap(values)]
    if return_inverse:
        result.append(_wrap(inverse))
    if return_counts:
        result.append(_wrap(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)
