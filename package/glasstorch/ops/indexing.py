"""Indexing: ``tensor[key]``, ``tensor[key] = value``, ``where`` and ``masked_fill``.

Basic indexing (integers, slices, None, ...) is a chain of views, recorded as PyTorch records it:
an integer is a ``select`` (``SelectBackward0``), a slice a ``slice`` (``SliceBackward0``), None an
``unsqueeze``. Indexing with a tensor or a list (advanced indexing) copies, and records
``IndexBackward0``. Every backward puts the incoming gradient back where the values were taken
from, into zeros of the input's shape (``_put_back``), adding where an index repeats.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import attach, promoted, records, reduce_grad_to, shape_of
from .shape import unsqueeze, view_of


# --- putting a gradient back where the values came from --------------------------------------
class _PutBackBackward(Node):
    """Backward of ``_put_back``: read the gradient at the same place (``grad[key]``)."""

    def backward(self, grad: Tensor) -> tuple:
        return (_take(grad, self.key, self.name()),)


class SelectBackwardBackward0(_PutBackBackward):
    pass


class SliceBackwardBackward0(_PutBackBackward):
    pass


class IndexBackwardBackward0(_PutBackBackward):
    pass


_PUT_BACK_NODES = {"SelectBackward0": SelectBackwardBackward0, "SliceBackward0": SliceBackwardBackward0}


def _put_back(grad: Tensor, shape: tuple, key: Any, name: str) -> Tensor:
    """Zeros of ``shape`` with ``grad`` added at ``key``: the gradient of ``input[key]``."""
    values = np.zeros(shape, dtype=grad._data.dtype)
    if _is_advanced(key):
        np.add.at(values, key, grad._data)  # an index may repeat: add, don't overwrite
    else:
        values[key] = grad._data
    out = _wrap(values)
    if records(grad):
        node = _PUT_BACK_NODES.get(name, IndexBackwardBackward0)(grad)
        node.key = key
        attach(out, node)
    return out


class _TakeBackward(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (_put_back(grad, self.self_shape, self.key, self.name()),)


class SelectBackward0(_TakeBackward):
    pass


class SliceBackward0(_TakeBackward):
    pass


class IndexBackward0(_TakeBackward):
    pass


class AliasBackward0(_TakeBackward):
    pass


_TAKE_NODES = {
    "SelectBackward0": SelectBackward0,
    "SliceBackward0": SliceBackward0,
    "IndexBackward0": IndexBackward0,
    "AliasBackward0": AliasBackward0,
}


def _take(input: Tensor, key: Any, name: str) -> Tensor:
    """``input[key]`` for one elementary key, recorded under PyTorch's Node name."""
    values = input._data[key]
    out = _wrap(values.copy()) if name == "IndexBackward0" else view_of(input, values)
    if records(input):
        node = _TAKE_NODES.get(name.replace("BackwardBackward0", "Backward0"), SelectBackward0)(input)
        node.self_shape, node.key = input._data.shape, key
        attach(out, node)
    return out


# --- tensor[key] ----------------------------------------------------------------------------
def _is_advanced(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (list, np.ndarray, Tensor)) and not _is_scalar_index(k) for k in items)


def _is_scalar_index(k: Any) -> bool:
    return isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu"


def _as_numpy_key(key: Any) -> Any:
    """Tensors inside a key become numpy arrays (0-d integer tensors become ints)."""
    if isinstance(key, tuple):
        return tuple(_as_numpy_key(k) for k in key)
    if isinstance(key, Tensor):
        return int(key._data) if _is_scalar_index(key) else key._data
    if isinstance(key, list):
        return np.asarray([k.item() if isinstance(k, Tensor) else k for k in key])
    return key


def getitem(input: Tensor, key: Any) -> Tensor:
    key = _as_numpy_key(key)
    _check_bounds(input, key)
    if _is_advanced(key):
        return _take(input, key, "IndexBackward0")
    return _basic_index(input, key if isinstance(key, tuple) else (key,))


def _basic_index(input: Tensor, items: tuple) -> Tensor:
    """Apply integers, slices, None and ... one dim at a time, as a chain of views."""
    if input._data.ndim == 0 and items and items[0] is not Ellipsis and items[0] is not None:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    consuming = sum(1 for k in items if k is not None and k is not Ellipsis)
    if consuming > input._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input._data.ndim}")
    out, dim, changed = input, 0, False
    for item in items:
        if item is Ellipsis:
            dim += input._data.ndim - consuming
        elif item is None:
            out, dim, changed = unsqueeze(out, dim), dim + 1, True
        elif isinstance(item, slice):
            if item != slice(None):
                out, changed = _take(out, (slice(None),) * dim + (item,), "SliceBackward0"), True
            dim += 1
        else:  # an integer: select removes the dim
            out, changed = _take(out, (slice(None),) * dim + (int(item),), "SelectBackward0"), True
    if not changed:  # x[:] or x[...]: a new view of the whole tensor
        out = _take(input, Ellipsis, "AliasBackward0")
    return out


def _check_bounds(input: Tensor, key: Any) -> None:
    items = key if isinstance(key, tuple) else (key,)
    dim = 0
    for item in items:
        if item is None:
            continue
        if item is Ellipsis:
            after = items[next(i for i, k in enumerate(items) if k is Ellipsis) + 1:]
            dim = input._data.ndim - sum(1 for k in after if k is not None)
            continue
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool) and dim < input._data.ndim:
            size = input._data.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size {size}")
        dim += 1


# --- tensor[key] = value --------------------------------------------------------------------
class CopySlices(Node):
    """``self[key] = value`` recorded: the old values at ``key`` no longer matter (gradient 0
    there), and ``value`` gets the gradient of the places it was written to."""

    def backward(self, grad: Tensor) -> tuple:
        grad_self = grad_value = None
        if self.needs_input_grad(0):
            keep = np.ones(self.self_shape, dtype=bool)
            keep[self.key] = False
            grad_self = grad * _wrap(keep)
        if self.needs_input_grad(1):
            grad_value = reduce_grad_to(grad[self.key], self.value_shape)
        return grad_self, grad_value


def index_put(input: Tensor, key: Any, value: Any) -> Tensor:
    """Out of place: a copy of ``input`` with ``value`` written at ``key`` (what ``setitem`` records)."""
    key = _as_numpy_key(key)
    (values,) = promoted(input)
    values = values.copy()
    try:
        values[key] = value._data if isinstance(value, Tensor) else value
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(shape_of(value))} cannot be broadcast to indexing result"
        ) from None
    out = _wrap(values)
    if records(input, value):
        node = CopySlices(input, value)
        node.key, node.self_shape, node.value_shape = key, input._data.shape, shape_of(value)
        attach(out, node)
    return out


# --- where and masked_fill ------------------------------------------------------------------
class WhereBackward0(Node):
    """out = where(condition, self, other): the gradient goes to whichever side was chosen."""

    def backward(self, grad: Tensor) -> tuple:
        zero = grad * 0
        return (
            reduce_grad_to(where(self.condition, grad, zero), self.self_shape) if self.needs_input_grad(0) else None,
            reduce_grad_to(where(self.condition, zero, grad), self.other_shape) if self.needs_input_grad(1) else None,
        )


def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    if condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype.legacy_name.replace('Tensor', '')}")
    x, y = promoted(input, other)
    try:
        out = _wrap(np.asarray(np.where(condition._data, x, y)))
    except ValueError:
        raise RuntimeError("where: the condition, input and other shapes cannot be broadcast together") from None
    if records(input, other):
        node = WhereBackward0(input, other)
        node.condition = condition
        node.self_shape, node.other_shape = shape_of(input), shape_of(other)
        attach(out, node)
    return out


class MaskedFillBackward0(Node):
    """out = self.masked_fill(mask, value): no gradient reaches the filled places."""

    def backward(self, grad: Tensor) -> tuple:
        return (reduce_grad_to(grad.masked_fill(self.mask, 0), self.self_shape),)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}")
    fill = value.item() if isinstance(value, Tensor) else value
    try:
        values = np.where(mask._data, np.asarray(fill).astype(input._data.dtype), input._data)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({input._data.shape[-1]}) must match the size of tensor b ({mask._data.shape[-1]}) at non-singleton dimension {input._data.ndim - 1}"
        ) from None
    if values.shape != input._data.shape:
        raise RuntimeError("masked_fill: the mask must broadcast to the input's shape, not enlarge it")
    out = _wrap(values)
    if records(input):
        node = MaskedFillBackward0(input)
        node.mask, node.self_shape = mask, input._data.shape
        attach(out, node)
    return out
