"""Writing into places chosen by an index, found missing by running the examples in PyTorch's own
docstrings (issue 14): index_copy, index_fill, masked_scatter, put, fill_diagonal_, select_scatter,
slice_scatter, diagonal_scatter, as_strided_scatter, index_reduce (and the in-place ``_`` forms),
nonzero_static.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` and the ``*_scatter`` ops of
``TensorShape.cpp``. Each one finds, with numpy, the flat positions it writes to (``_positions``
and numpy's own indexing of them), writes there, and records PyTorch's Node (``IndexCopyBackward0``,
``MaskedScatterBackward0``, ``SliceScatterBackward0`` ...). The backward is the same for all of
them (``_WriteBackward``): the written places' gradient goes to the source, in order, the rest to
the input. ``index_fill`` is a masked_fill of whole slices, ``index_reduce`` a ``scatter_reduce``
with the index spread over the slices, each recorded under its own Node.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .inplace import apply_inplace
from .scatter_gather import ScatterReduceBackward0, scatter_reduce


def _axis(input: Tensor, dim: int) -> int:
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


# --- one backward for every op that writes a source at chosen places -----------------------------
class _WriteBackward(Node):
    """out = input with its elements at the flat ``positions`` replaced by (or, ``_adding``,
    increased by) the source's first elements, in order:

        d/dinput  = grad, with the replaced places zeroed
        d/dsource = grad.flatten()[positions], shaped as the source (0 for source elements not used)
    """

    def backward(self, grad: Tensor) -> tuple:
        positions = _wrap(self._positions.reshape(-1))
        grad_input = grad_source = None
        if self.needs_input_grad(0):
            grad_input = grad if self._adding else grad.masked_fill(_wrap(self._written), 0)
        if len(self.next_functions) > 1 and self.needs_input_grad(1):
            taken = grad.reshape(-1)[positions]
            unused = self._source_numel - taken.numel()
            if unused:  # masked_scatter reads only as many source elements as the mask has Trues
                from .shape import cat

                taken = cat([taken, taken.new_zeros(unused)])
            grad_source = taken.reshape(self._source_shape)
        return (grad_input, grad_source)[:len(self.next_functions)]  # (a fill with a number has no source)


class IndexCopyBackward0(_WriteBackward):
    """out = self.index_copy(dim, index, source)."""

    dim: int
    index_: SavedTensor
    source_: SavedTensor  # (PyTorch keeps source for its shape)
    source_dim: int


class IndexFillBackward0(_WriteBackward):
    """out = self.index_fill(dim, index, value) for a number: the filled slices get no gradient."""

    dim: int
    index_: SavedTensor


class IndexFillBackward1(IndexFillBackward0):
    """out = self.index_fill(dim, index, value) for a 0-dim tensor: the value, expanded to every
    filled place, gets their gradients (summed by the expand's backward)."""


class MaskedScatterBackward0(_WriteBackward):
    """out = self.masked_scatter(mask, source)."""

    mask_: SavedTensor
    source_sym_sizes: tuple


class PutBackward0(_WriteBackward):
    """out = self.put(index, source, accumulate)."""

    accumulate: bool
    index_: SavedTensor
    source_: SavedTensor  # (PyTorch keeps source for its shape)


class SelectScatterBackward0(_WriteBackward):
    """out = self.select_scatter(src, dim, index)."""

    dim: int
    index: int


class SliceScatterBackward0(_WriteBackward):
    """out = self.slice_scatter(src, dim, start, end, step)."""

    dim: int
    start: Any
    end: Any
    step: int


class DiagonalScatterBackward0(_WriteBackward):
    """out = self.diagonal_scatter(src, offset, dim1, dim2)."""

    offset: int
    dim1: int
    dim2: int


class AsStridedScatterBackward0(_WriteBackward):
    """out = self.as_strided_scatter(src, size, stride, storage_offset)."""

    size: tuple
    stride: tuple
    storage_offset: int


def _write_at(input: Tensor, positions: np.ndarray, source: Any, node_class: type, adding: bool = False,
              **saved: Any) -> Tensor:
    """``input`` with its flat elements at ``positions`` replaced by (``adding``: increased by) ``source``'s
    first elements in order (or by one number), recorded as ``node_class`` with ``saved`` attributes
    under PyTorch's names."""
    flat_positions = positions.reshape(-1).astype(np.int64)
    values = input._data.copy().reshape(-1)
    written = source._data.reshape(-1)[:flat_positions.size] if isinstance(source, Tensor) else source
    if adding:
        np.add.at(values, flat_positions, written)
    else:
        values[flat_positions] = written
    out = _wrap(values.reshape(input._data.shape))
    if compute_requires_grad(input, source):
        node = node_class(input, source) if isinstance(source, Tensor) else node_class(input)
        node._positions, node._adding = flat_positions, adding
        node._written = np.zeros(input._data.size, dtype=bool)
        node._written[flat_positions] = True
        node._written = node._written.reshape(input._data.shape)
        if isinstance(source, Tensor):
            node._source_shape, node._source_numel = source._data.shape, source._data.size
        for name, value in saved.items():
            setattr(node, name, SavedTensor(value) if isinstance(value, Tensor) else value)
        set_history(out, node)
    return out


def _positions(input: Tensor) -> np.ndarray:
    """Each element's flat position, shaped as the input (what numpy's views then select)."""
    return np.arange(input.numel()).reshape(input._data.shape)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose slices ``index[i]`` along ``dim`` are ``source``'s slices ``i``."""
    axis = _axis(input, dim)
    if index.dim() > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got " + f"{index.dim()})")
    if index.numel() != (source.shape[axis] if source.dim() else 1):
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to "
                         f"source.size(dim) ({source.shape[axis] if source.dim() else 1})")
    if index._data.dtype != np.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got " + index.dtype.legacy_name[:-6])
    size = input._data.shape[axis] if input.dim() else 1
    bad = index._data[(index._data < -size) | (index._data >= size)]
    if bad.size:
        raise IndexError(f"index_copy_(): index {bad.flat[0]} is out of bounds for dimension {dim} with size {size}")
    # the positions written, laid out as the source: element for element
    chosen = np.take(_positions(input), index._data.reshape(-1), axis=axis) if input.dim() else _positions(input)
    return _write_at(input, chosen, source, IndexCopyBackward0, dim=axis, index_=index, source_=source,
                     source_dim=source.dim())


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with the slices ``index`` along ``dim`` filled with ``value``."""
    axis = _axis(input, dim)
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input._data.shape[axis] if input.dim() else 1
    bad = index._data[(index._data < -size) | (index._data >= size)]
    if bad.size:
        raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {axis} with size {size}")
    if isinstance(value, Tensor) and value.dim():
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    chosen = np.take(_positions(input), index._data.reshape(-1), axis=axis) if input.dim() else _positions(input)
    node_class = IndexFillBackward1 if isinstance(value, Tensor) else IndexFillBackward0
    if isinstance(value, Tensor):  # the one value, spread over every filled place
        value = value.expand(*chosen.shape)
    return _write_at(input, chosen, value, node_class, dim=axis, index_=index)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose elements where ``mask`` is True are ``source``'s first elements, in
    row-major order."""
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype.name}")
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)  # PyTorch broadcasts both ways
    if tuple(shape) != tuple(input.shape):
        input = input.expand(*shape)
    positions = np.flatnonzero(np.broadcast_to(mask._data, shape))
    if positions.size > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _write_at(input, positions, source, MaskedScatterBackward0, mask_=mask, source_sym_sizes=tuple(source.shape))


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with the flattened elements at ``index`` set to (or, with
    ``accumulate``, increased by) ``source``."""
    size = input.numel()
    flat_index = index._data.reshape(-1)
    if ((flat_index >= size) | (flat_index < -size)).any():
        bad = int(flat_index[(flat_index >= size) | (flat_index < -size)][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} elements.")
    positions = np.where(flat_index < 0, flat_index + size, flat_index)
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    return _write_at(input, positions, source, PutBackward0, accumulate, accumulate=accumulate, index_=index,
                     source_=source)


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims equal, or a 2-D matrix) in place. As PyTorch: ``fill_`` on
    a strided view of the diagonal (so the graph records CopySlices); ``wrap``, for a matrix more
    than one row taller than wide: the diagonal starts again every ``width + 1`` rows."""
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.dim() > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    strides = input.stride()
    step = sum(strides)  # one step along every dim at once
    size = min(input.shape)
    input.as_strided((size,), (step,), input.storage_offset()).fill_(fill_value)
    height, width = input.shape[0], input.shape[-1]
    if wrap and input.dim() == 2 and height > width + 1:
        wrapped = (input.numel() + width) // (width + 1) - size  # the diagonals' places after the first
        offset = input.storage_offset() + strides[0] * (width + 1)
        input.as_strided((wrapped,), (step,), offset).fill_(fill_value)
    return input


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    axis = _axis(input, dim)
    chosen = np.take(_positions(input), index, axis=axis)
    _check_slot(src, chosen)
    return _write_at(input, chosen, src, SelectScatterBackward0, dim=axis, index=index)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    axis = _axis(input, dim)
    selector = [slice(None)] * input.dim()
    selector[axis] = slice(start, end, step)
    chosen = _positions(input)[tuple(selector)]
    _check_slot(src, chosen)
    return _write_at(input, chosen, src, SliceScatterBackward0, dim=axis, start=start, end=end, step=step)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    chosen = np.diagonal(_positions(input), offset, _axis(input, dim1), _axis(input, dim2))
    _check_slot(src, chosen)
    return _write_at(input, chosen, src, DiagonalScatterBackward0, offset=offset, dim1=dim1, dim2=dim2)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int = 0) -> Tensor:
    """A copy of ``input`` with the elements ``input.as_strided(size, stride, storage_offset)`` would
    view replaced by ``src`` (strides count elements of the contiguous input)."""
    positions = _positions(input).reshape(-1)
    chosen = np.lib.stride_tricks.as_strided(positions[storage_offset:], tuple(size),
                                             tuple(s * positions.itemsize for s in stride))
    _check_slot(src, chosen)
    return _write_at(input, chosen.copy(), src, AsStridedScatterBackward0, size=tuple(size), stride=tuple(stride),
                     storage_offset=storage_offset)


def _check_slot(src: Tensor, chosen: np.ndarray) -> None:
    """A ``*_scatter`` source must have the shape of the part it replaces."""
    if tuple(src.shape) != chosen.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(chosen.shape)}")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """A copy of ``input`` whose slices ``index[i]`` along ``dim`` are combined ('prod', 'mean',
    'amax', 'amin') with ``source``'s slices ``i``: ``scatter_reduce`` with the index spread over
    the slices."""
    axis = _axis(input, dim)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{index.dtype.legacy_name[:-6]} and size: {list(index.shape)}")
    if index.numel() != (source.shape[axis] if source.dim() else 1):
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({source.shape[axis] if source.dim() else 1}), for dim: {dim}")
    shape = [1] * source.dim()
    shape[axis] = -1
    spread = index.reshape(*shape).expand(*source.shape)
    return scatter_reduce(input, axis, spread, source, reduce, include_self=include_self,
                          _node_class=IndexReduceBackward0)


class IndexReduceBackward0(ScatterReduceBackward0):
    """out = self.index_reduce(dim, index, source, reduce, include_self): the gradient of the
    ``scatter_reduce`` it is (the index spread over the source's slices). PyTorch saves the source as
    ``source_`` and the vector index; glasstorch's ``_saved_src`` / ``_saved_index`` are the source and
    the spread index."""


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` with a fixed number of rows: cut to ``size``, or padded with ``fill_value``."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input._data)
    rows = np.full((size, input.dim()), fill_value, dtype=np.int64)
    rows[:min(size, len(found))] = found[:size]
    return _wrap(rows)


def _in_place(function: Any) -> Any:
    """``x.index_copy_(...)`` from ``index_copy``: computed out of place, written into x."""
    return lambda self, *args, **kwargs: apply_inplace(self, function, *args, **kwargs)


index_copy_ = _in_place(index_copy)
index_fill_ = _in_place(index_fill)
masked_scatter_ = _in_place(masked_scatter)
put_ = _in_place(put)
index_reduce_ = _in_place(index_reduce)
