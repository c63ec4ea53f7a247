"""Indexing: ``tensor[key]``, ``tensor[key] = value``, ``where`` and ``masked_fill``.

Basic indexing (integers, slices, None, ...) is a chain of views, recorded as PyTorch records it:
an integer is a ``select`` (``SelectBackward0``), a slice a ``slice`` (``SliceBackward0``), None an
``unsqueeze``. Indexing with a tensor or a list (advanced indexing) copies, and records
``IndexBackward0``. Every backward puts the incoming gradient back where the values were taken
from, into zeros of the input's shape (``_put_back``), adding where an index repeats.
"""
from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor, SavedTensorList
from ..dtypes import promoted_values, result_type
from ._elementwise import broadcast_error, shape_of
from ._util import compute_requires_grad, reduce_grad_to, set_history
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
    if compute_requires_grad(grad):
        node = _PUT_BACK_NODES.get(name, IndexBackwardBackward0)(grad)
        node.key = key
        set_history(out, node)
    return out


class _TakeBackward(Node):
    """out = self[key]: the gradient is ``grad`` put back at ``key`` into zeros of self's shape.
    (The Nodes save PyTorch's arguments under its names; the backward uses the numpy key.)"""

    def backward(self, grad: Tensor) -> tuple:
        return (_put_back(grad, self._self_shape, self._key, self.name()),)


class SelectBackward0(_TakeBackward):
    """out = self.select(dim, index)."""

    dim: int
    index: int
    self_sym_sizes: tuple


class SliceBackward0(_TakeBackward):
    """out = self[start:end:step] along ``dim`` (an end not given is ``sys.maxsize``, as
    CPython's ``PySlice_Unpack`` hands it to PyTorch)."""

    dim: int
    start: int
    end: int
    step: int
    self_sym_sizes: tuple


class IndexBackward0(_TakeBackward):
    """out = self[indices] with index tensors (advanced indexing)."""

    indices_: SavedTensorList
    self_sym_sizes: tuple


class AliasBackward0(_TakeBackward):
    """out = self[...]: a view of all of self."""


_TAKE_NODES = {
    "SelectBackward0": SelectBackward0,
    "SliceBackward0": SliceBackward0,
    "IndexBackward0": IndexBackward0,
    "AliasBackward0": AliasBackward0,
}


def _take(input: Tensor, key: Any, name: str) -> Tensor:
    """``input[key]`` for one elementary key, recorded under PyTorch's Node name."""
    name = name.replace("BackwardBackward0", "Backward0")  # (a _put_back's backward reads at its key)
    advanced = name == "IndexBackward0"
    # a trailing ... makes numpy return a 0-d view where it would copy a scalar: x[0, 0] shares x's memory
    read = key
    if type(key) is tuple and not advanced and not any(item is Ellipsis for item in key):
        read = key + (Ellipsis,)
    values = input._data[read]
    out = _wrap(values.copy()) if advanced else view_of(input, values)
    if compute_requires_grad(input):
        node = _TAKE_NODES.get(name, SelectBackward0)(input)
        node._self_shape, node._key = input._data.shape, key
        _save_arguments(node, key)
        set_history(out, node)
    return out


def _save_arguments(node: _TakeBackward, key: Any) -> None:
    """What PyTorch's select/slice/index Nodes save, read off the numpy key: a select or slice
    key is ``(slice(None),) * dim + (item,)``, or a bare slice for dim 0."""
    if not isinstance(node, AliasBackward0):
        node.self_sym_sizes = node._self_shape
    item = key[-1] if type(key) is tuple else key
    if isinstance(node, IndexBackward0):
        node.indices_ = _saved_indices(key, len(node._self_shape))
    elif isinstance(node, SelectBackward0):
        node.dim, node.index = len(key) - 1, item
    elif isinstance(node, SliceBackward0):
        node.dim = len(key) - 1 if type(key) is tuple else 0
        node.start, node.end, node.step = item.start or 0, sys.maxsize if item.stop is None else item.stop, item.step or 1


def _saved_indices(key: Any, ndim: int) -> SavedTensorList:
    """PyTorch's ``indices`` of an advanced key: one place per dim up to the last index tensor,
    holding the tensor (a bool mask covers its dims with one place), or None for a dim taken whole."""
    items = key if type(key) is tuple else (key,)
    covered = sum(item.ndim if item.dtype == np.bool_ else 1 for item in items if isinstance(item, np.ndarray))
    covered += sum(1 for item in items if isinstance(item, slice))
    indices = []
    for item in items:
        if item is Ellipsis:
            indices += [None] * (ndim - covered)
        else:
            indices.append(SavedTensor(_wrap(item)) if isinstance(item, np.ndarray) else None)
    while indices and indices[-1] is None:
        indices.pop()
    return SavedTensorList(indices)


# --- tensor[key] ----------------------------------------------------------------------------
def _is_advanced(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    # a Python bool is advanced too: x[True] adds a dim of size 1, x[False] one of size 0 (numpy agrees)
    return any(isinstance(k, (list, np.ndarray, Tensor, bool)) and not _is_scalar_index(k) for k in items)


def _is_scalar_index(k: Any) -> bool:
    return isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu"


def _as_numpy_key(key: Any) -> Any:
    """Tensors inside a key become numpy arrays (0-d integer tensors become ints); lists, nested
    lists and ``range`` objects become integer (or bool) arrays, as ``torch.tensor(seq)`` would."""
    if isinstance(key, list) and _sequence_as_tuple(key):
        warnings.warn(SEQUENCE_AS_TUPLE_WARNING, UserWarning, stacklevel=3)
        key = tuple(key)
    if isinstance(key, tuple):
        return tuple(_as_numpy_item(k) for k in key)
    return _as_numpy_item(key)


def _as_numpy_item(key: Any) -> Any:
    """One item of a key (inside a tuple, a list is always an index list, never a tuple)."""
    if isinstance(key, Tensor):
        if key._data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return int(key._data) if _is_scalar_index(key) else key._data
    if isinstance(key, (list, range)):
        values = np.asarray(_unwrap(key))
        if values.dtype.kind not in "biu":  # [] is an empty index; floats are refused below
            values = values.astype(np.int64) if values.size == 0 else values
        return values
    return key


SEQUENCE_AS_TUPLE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; "
    "use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
    "x[torch.tensor(seq)], which will result either in an error or a different result"
)


def _sequence_as_tuple(key: list) -> bool:
    """NumPy's old rule, kept by PyTorch (``treatSequenceAsTuple``): a short list holding a
    tensor, a sequence, a slice, ``...`` or None is read as a tuple, ``x[[0, 1], [2, 3]]``-style."""
    return len(key) < 32 and any(
        isinstance(k, (Tensor, list, tuple, range, slice)) or k is None or k is Ellipsis for k in key)


def _unwrap(key: Any) -> Any:
    """Nested lists may hold tensors: their values."""
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, (list, tuple, range)):
        return [_unwrap(k) for k in key]
    return key


def getitem(input: Tensor, key: Any) -> Tensor:
    key = _as_numpy_key(key)
    _check_bounds(input, key)
    if _is_advanced(key):
        return _advanced_index(input, key if isinstance(key, tuple) else (key,))
    if isinstance(key, slice) and input._data.ndim:  # PyTorch records x[:] as a slice, x[:, :] as an alias
        return _take(input, key, "SliceBackward0")
    return _basic_index(input, key if isinstance(key, tuple) else (key,))


def _advanced_index(input: Tensor, items: tuple) -> Tensor:
    """As PyTorch: the integers, slices and None of the key are applied first, as views (a Python
    bool is a None, then a mask of one element), and the tensors and lists then index the result,
    recorded as one IndexBackward0. numpy counts the integers as advanced indices instead, which
    orders the result's dims differently in cases such as x[1, :, [0, 1]]."""
    basic, rest = _split_advanced(items)
    return _take(_basic_index(input, basic, alias=False), rest, "IndexBackward0")


def _split_advanced(items: tuple) -> tuple:
    """An advanced key as (the basic items to apply first, the key for what they give)."""
    basic, rest = [], []
    for item in items:
        if isinstance(item, bool):  # a new dim of size 1, then its one place, or none (PyTorch's index)
            basic.append(None)
            rest.append(np.arange(int(item), dtype=np.int64))
        elif isinstance(item, np.ndarray):
            basic.extend([slice(None)] * (item.ndim if item.dtype == np.bool_ else 1))
            rest.append(item)
        elif isinstance(item, (int, np.integer)):
            basic.append(item)
        elif item is Ellipsis:
            basic.append(item)
            rest.append(item)
        else:  # a slice or None
            basic.append(item)
            rest.append(slice(None))
    return tuple(basic), tuple(rest)


def _basic_index(input: Tensor, items: tuple, alias: bool = True) -> Tensor:
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
            size = out._data.shape[dim]
            # PyTorch records no slice from 0 (as written: not -size) to the end with step 1
            if not (item.start in (None, 0) and item.indices(size)[1:] == (size, 1)):
                out, changed = _take(out, (slice(None),) * dim + (item,), "SliceBackward0"), True
            dim += 1
        else:  # an integer: select removes the dim
            out, changed = _take(out, (slice(None),) * dim + (int(item),), "SelectBackward0"), True
    if not changed and alias:  # x[:, :] or x[...]: a new view of the whole tensor
        out = _take(input, Ellipsis, "AliasBackward0")
    return out


def _check_bounds(input: Tensor, key: Any) -> None:
    items = key if isinstance(key, tuple) else (key,)
    dim = arrays = 0
    for position, item in enumerate(items):
        if item is None:
            continue
        if item is Ellipsis:
            after = items[next(i for i, k in enumerate(items) if k is Ellipsis) + 1:]
            dim = input._data.ndim - sum(1 for k in after if k is not None)
            continue
        if isinstance(item, bool):
            continue  # adds a dim, like None
        if isinstance(item, slice):
            if item.step == 0:
                raise ValueError("slice step cannot be zero")
            if item.step is not None and item.step < 0:
                raise ValueError("step must be greater than zero")  # no negative steps in PyTorch
        elif isinstance(item, np.ndarray):
            if item.dtype.kind not in "iub":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if item.dtype == np.bool_:
                _check_mask(input, item, dim)
                dim += item.ndim
                continue
            _check_index_array(input, item, dim, arrays)
            arrays += 1
        elif not isinstance(item, (int, np.integer)):
            kind = type(item).__name__ if type(item).__module__ == "builtins" else f"{type(item).__module__}.{type(item).__name__}"
            raise IndexError(
                f"only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {kind})"
            )
        elif dim < input._data.ndim:
            size = input._data.shape[dim]
            if not -size <= item < size:
                # PyTorch's message names the item's position in the key, which is the dim unless
                # a None or ... comes before it
                raise IndexError(f"index {item} is out of bounds for dimension {position} with size {size}")
        dim += 1


def _check_index_array(input: Tensor, index: np.ndarray, dim: int, position: int) -> None:
    """Every entry of an index array must be in range. PyTorch's message counts the dimension
    among the key's index tensors (``position``), not among the tensor's dims."""
    if index.size == 0 or dim >= input._data.ndim:
        return
    size = input._data.shape[dim]
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {position} with size {size}")


def _check_mask(input: Tensor, mask: np.ndarray, dim: int) -> None:
    """A bool mask must have the shape of the dims it covers."""
    shape = input._data.shape
    for i, n in enumerate(mask.shape):
        if dim + i >= len(shape) or shape[dim + i] != n:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {i} does not match the shape of the indexed tensor "
                f"{list(shape)} at index {dim + i}"
            )


# --- tensor[key] = value --------------------------------------------------------------------
class _WriteBackward(Node):
    """``self[key] = value`` recorded: the old values at ``key`` no longer matter (gradient 0
    there), and ``value`` gets the gradient of the places it was written to."""

    _value_dtype = None
    accumulate = False

    def backward(self, grad: Tensor) -> tuple:
        grad_self = grad_value = None
        if self.needs_input_grad(0) and self.accumulate:  # the old values were added to, not replaced
            grad_self = grad
        elif self.needs_input_grad(0):
            written = np.zeros(self._self_shape, dtype=bool)
            written[self._key] = True
            grad_self = masked_fill(grad, _wrap(written), 0)
        if self.needs_input_grad(1):
            written = grad[self._key]
            if self._value_dtype is not None and written.dtype is not self._value_dtype:
                written = written.to(self._value_dtype)  # summed over broadcast dims in the value's dtype, as PyTorch
            grad_value = reduce_grad_to(written, self._value_shape)
        return grad_self, grad_value


class CopyBackwards(_WriteBackward):
    """``self.copy_(value)``, and ``self[key] = value`` for a key of integers and slices, which
    PyTorch runs as ``self[key].copy_(value)`` (the view's base then records CopySlices)."""


class IndexPutBackward0(_WriteBackward):
    """``self[key] = value`` with an advanced key (a bool mask, a list, a tensor): PyTorch calls
    ``index_put_`` here, and ``CopySlices`` only for keys made of integers and slices."""

    accumulate: bool
    indices_: SavedTensorList


def _without_leading_ones(shape: tuple) -> tuple:
    """PyTorch drops a value's leading dims of size 1 before writing it (``x[0] = t`` works for a
    ``t`` of shape [1, 3] when ``x[0]`` has shape [3])."""
    start = 0
    while start < len(shape) and shape[start] == 1:
        start += 1
    return tuple(shape[start:])


def _fitted_value(value: Tensor, slot: tuple, advanced: bool) -> Tensor:
    """The value as PyTorch writes it (``copy_to`` in ``python_variable_indexing.cpp``), recorded:
    viewed without its leading dims of size 1, then, for a key of integers and slices, expanded to
    the slot it fills. (An advanced key's ``index_put_`` broadcasts by itself.)"""
    if advanced:
        return value.view(_without_leading_ones(value._data.shape)) if value._data.shape[0] == 1 else value
    if value._data.shape == slot:
        return value
    value = value.view(_without_leading_ones(value._data.shape))
    if value._data.shape != slot:
        from .shape import expand

        try:
            value = expand(value, slot)
        except RuntimeError:
            pass  # (index_put's error below says what does not fit)
    return value


def _advanced_target(values: np.ndarray, key: Any) -> tuple:
    basic, rest = _split_advanced(key if isinstance(key, tuple) else (key,))
    return values[basic + (Ellipsis,)], rest  # the basic items give a view of values


def _index_put_only(key: Any) -> bool:
    """Is ``x[key] = v`` an index_put_ on x itself? (PyTorch: IndexPutBackward0.) With integers,
    slices or None in the key it writes through a view of x instead (PyTorch: CopySlices)."""
    if not _is_advanced(key):
        return False
    basic, _ = _split_advanced(key if isinstance(key, tuple) else (key,))
    return all(item is Ellipsis or item == slice(None) for item in basic)


def index_put(input: Tensor, key: Any, value: Any, accumulate: bool = False) -> Tensor:
    """Out of place: a copy of ``input`` with ``value`` written at ``key`` (what ``setitem`` records);
    ``torch.index_put(x, indices, values)`` passes a tuple of index tensors as the key. With
    ``accumulate`` the values are added there, a repeated index adding twice."""
    if accumulate:
        return _index_put_accumulate(input, key, value)
    key = _as_numpy_key(key)
    _check_bounds(input, key)
    (values,) = promoted_values(input)
    values = values.copy()
    # an advanced key writes where getitem reads, with PyTorch's order of the dims (see _advanced_index)
    advanced = _is_advanced(key)
    target, where = (values, key) if not advanced else _advanced_target(values, key)
    if isinstance(value, Tensor) and value._data.ndim:
        value = _fitted_value(value, target[where].shape, advanced)
    try:
        target[where] = value._data if isinstance(value, Tensor) else value
    except ValueError:
        slot = target[where].shape
        if isinstance(value, Tensor) and not _is_advanced(key):
            from .shape import expand

            expand(value.detach(), slot)  # PyTorch copies into the slot, and its expand says what is wrong
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(shape_of(value))} cannot be broadcast to indexing result "
            f"of shape {list(slot)}"
        ) from None
    out = _wrap(values)
    if compute_requires_grad(input, value):
        node = (IndexPutBackward0 if _index_put_only(key) else CopyBackwards)(input, value)
        node._key, node._self_shape, node._value_shape = key, input._data.shape, shape_of(value)
        node._value_dtype = value.dtype if isinstance(value, Tensor) else None
        if isinstance(node, IndexPutBackward0):
            node.accumulate = False  # (x[key] += v reads, adds and writes back: no accumulating index_put_)
            node.indices_ = _saved_indices(_split_advanced(key if isinstance(key, tuple) else (key,))[1], input.dim())
        set_history(out, node)
    return out


def _index_put_accumulate(input: Tensor, indices: Any, values: Tensor) -> Tensor:
    """``index_put(x, indices, values, accumulate=True)``: ``values`` (broadcast to the indexed
    places) added at ``indices``, every repeat counted (``np.add.at``)."""
    key = _as_numpy_key(tuple(indices))
    _check_bounds(input, key)
    result = input._data.copy()
    target, where = _advanced_target(result, key)
    try:
        np.add.at(target, where, np.broadcast_to(values._data, target[where].shape).astype(result.dtype))
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(target[where].shape)}") from None
    out = _wrap(result)
    if compute_requires_grad(input, values):
        node = IndexPutBackward0(input, values)
        node._key, node._self_shape, node._value_shape = key, input._data.shape, values._data.shape
        node._value_dtype, node.accumulate = values.dtype, True
        node.indices_ = _saved_indices(key, input.dim())
        set_history(out, node)
    return out


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    from .inplace import apply_inplace

    return apply_inplace(input, index_put, tuple(indices), values, accumulate)


# --- where and masked_fill ------------------------------------------------------------------
class WhereBackward0(Node):
    """out = where(condition, self, other): the gradient goes to whichever side was chosen,
    d/dself = where(condition, grad, 0),  d/dother = where(condition, 0, grad)."""

    condition_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        condition, zero = self._saved_condition, grad * 0
        return (
            where(condition, grad, zero) if self.needs_input_grad(0) else None,
            where(condition, zero, grad) if self.needs_input_grad(1) else None,
        )


def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    if condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {scalar_type_name(condition.dtype)}")
    x, y = promoted_values(input, other)
    try:
        out = _wrap(np.asarray(np.where(condition._data, x, y)))
    except ValueError:
        shapes = [condition._data.shape, shape_of(input), shape_of(other)]
        for i, first in enumerate(shapes):  # PyTorch names the first pair that clashes
            for second in shapes[i + 1:]:
                try:
                    np.broadcast_shapes(first, second)
                except ValueError:
                    raise broadcast_error(first, second) from None
        raise RuntimeError("where: the condition, input and other shapes cannot be broadcast together") from None
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        # two Python numbers: numpy would make float64 of 1.0 and 0.0; PyTorch gives the default dtype
        out = _wrap(out._data.astype(result_type(input, other).numpy_dtype))
    if compute_requires_grad(input, other):
        node = WhereBackward0(input, other)
        node.condition_ = SavedTensor(condition)
        set_history(out, node)
    return out


class MaskedFillBackward0(Node):
    """out = self.masked_fill(mask, value) for a number: no gradient reaches the filled places,
    d/dself = grad.masked_fill(mask, 0)."""

    mask_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad.masked_fill(self._saved_mask, 0),)


class MaskedFillBackward1(MaskedFillBackward0):
    """out = self.masked_fill(mask, value) for a 0-dim tensor value: as above for self, and the
    value gets the gradient of every place it filled, d/dvalue = where(mask, grad, 0).sum()."""

    def backward(self, grad: Tensor) -> tuple:
        grad_value = None
        if self.needs_input_grad(1):
            grad_value = where(self._saved_mask, grad, grad * 0).sum()
        return (super().backward(grad)[0] if self.needs_input_grad(0) else None, grad_value)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}")
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    fill = value.item() if isinstance(value, Tensor) else value
    try:
        values = np.where(mask._data, np.asarray(fill).astype(input._data.dtype), input._data)
    except ValueError:
        raise broadcast_error(mask._data.shape, input._data.shape) from None
    if values.shape != input._data.shape:
        raise RuntimeError("masked_fill: the mask must broadcast to the input's shape, not enlarge it")
    out = _wrap(values)
    if compute_requires_grad(input, value):
        node = MaskedFillBackward1(input, value) if isinstance(value, Tensor) else MaskedFillBackward0(input)
        node.mask_ = SavedTensor(mask)
        set_history(out, node)
    return out


# --- nonzero and masked_select (issue 14) ------------------------------------------------------
def nonzero(input: Tensor, *, as_tuple: bool = False, out: Any = None) -> Any:
    """The positions of the non-zero elements: one row of coordinates per element, ``(n, ndim)``;
    ``as_tuple=True`` gives one 1-D tensor per dim instead, ready to index with (``x[x.nonzero(as_tuple=True)]``)."""
    data = input._data
    if as_tuple:
        return tuple(_wrap(p.astype(np.int64)) for p in np.nonzero(data.reshape(data.shape or (1,))))
    result = _wrap(np.argwhere(data).astype(np.int64))
    if out is not None:
        from ._arguments import write_out

        return write_out(out, result)
    return result


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


class MaskedSelectBackward0(Node):
    """out = self[mask] (broadcast): the gradient goes back to the selected places, zeros elsewhere,
    then is summed back over the dims the mask broadcast ``self`` along."""

    mask_: SavedTensor
    self_: SavedTensor  # (PyTorch keeps self for its shape)

    def backward(self, grad: Tensor) -> tuple:
        self_shape = self._saved_self.shape
        where = np.broadcast_to(self._saved_mask._data, np.broadcast_shapes(self_shape, self._saved_mask.shape))
        spread = _put_back(grad, (where.size,), np.ascontiguousarray(where.reshape(-1)), "IndexBackward0")
        return (reduce_grad_to(spread.reshape(where.shape), self_shape),)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements where ``mask`` (a bool tensor broadcast with ``input``) is True, as a 1-D tensor."""
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    try:
        values, where = np.broadcast_arrays(input._data, mask._data)
    except ValueError:
        raise broadcast_error(mask._data.shape, input._data.shape) from None
    out = _wrap(values.reshape(-1)[where.reshape(-1)])  # (reshaped: a 0-d mask is one element)
    if compute_requires_grad(input):
        node = MaskedSelectBackward0(input)
        node.mask_, node.self_ = SavedTensor(mask), SavedTensor(input)
        set_history(out, node)
    return out
