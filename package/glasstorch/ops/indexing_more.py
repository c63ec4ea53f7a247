"""Writing into places chosen by an index, found missing by running the examples in PyTorch's own
docstrings (issue 14): index_copy, index_fill, masked_scatter, put, fill_diagonal_, select_scatter,
slice_scatter, diagonal_scatter, as_strided_scatter, index_reduce (and the in-place ``_`` forms),
nonzero_static.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` and the ``*_scatter`` ops of
``TensorShape.cpp``. Each one finds, with numpy, the flat positions it writes to, and then is one
differentiable ``index_copy`` along the flattened tensor: the gradient of the written places goes
to the source, the rest to the input. Simplified: PyTorch records ``IndexCopyBackward0``,
``MaskedScatterBackward0``, ``SliceScatterBackward0`` ...; glasstorch's ``grad_fn`` is the
``ScatterBackward0`` (or the view after it) of that composition.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .inplace import apply_inplace


def _axis(input: Tensor, dim: int) -> int:
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _flat_index_copy(input: Tensor, positions: np.ndarray, source: Tensor) -> Tensor:
    """``input`` with its flat elements at ``positions`` replaced by ``source``'s elements, in order."""
    flat = input.reshape(-1)
    values = source.to(input.dtype).reshape(-1)
    return flat.scatter(0, _wrap(positions.reshape(-1).astype(np.int64)), values).reshape(input.shape)


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
    chosen = np.take(_positions(input), index._data.reshape(-1), axis=axis) if input.dim() else _positions(input)
    return _flat_index_copy(input, chosen, source)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with the slices ``index`` along ``dim`` filled with ``value``."""
    axis = _axis(input, dim)
    if index.dim() > 1:
        raise IndexError("Index has to be a vector/scalar")
    mask = np.zeros(input._data.shape, dtype=bool)
    if input.dim():
        selector = [slice(None)] * input.dim()
        selector[axis] = index._data.reshape(-1)
        mask[tuple(selector)] = True
    else:
        mask[...] = True
    return input.masked_fill(_wrap(mask), value)


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
    return _flat_index_copy(input, positions, source.reshape(-1)[:positions.size])


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
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if accumulate:
        return input.reshape(-1).index_add(0, _wrap(positions.astype(np.int64)), source.reshape(-1)).reshape(input.shape)
    return _flat_index_copy(input, positions, source)


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims equal, or a 2-D matrix) in place; ``wrap``: for a tall
    matrix, start again N + 1 rows down, as numpy's fill_diagonal."""
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.dim() > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(input._data.shape, dtype=bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return apply_inplace(input, lambda x: x.masked_fill(_wrap(mask), fill_value))


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    axis = _axis(input, dim)
    chosen = np.take(_positions(input), index, axis=axis)
    if tuple(src.shape) != chosen.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(chosen.shape)}")
    return _flat_index_copy(input, chosen, src)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    axis = _axis(input, dim)
    selector = [slice(None)] * input.dim()
    selector[axis] = slice(start, end, step)
    chosen = _positions(input)[tuple(selector)]
    if tuple(src.shape) != chosen.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(chosen.shape)}")
    return _flat_index_copy(input, chosen, src)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    chosen = np.diagonal(_positions(input), offset, _axis(input, dim1), _axis(input, dim2))
    if tuple(src.shape) != chosen.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(chosen.shape)}")
    return _flat_index_copy(input, chosen, src)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int = 0) -> Tensor:
    """A copy of ``input`` with the elements ``input.as_strided(size, stride, storage_offset)`` would
    view replaced by ``src`` (strides count elements of the contiguous input)."""
    positions = _positions(input).reshape(-1)
    chosen = np.lib.stride_tricks.as_strided(positions[storage_offset:], tuple(size),
                                             tuple(s * positions.itemsize for s in stride))
    if tuple(src.shape) != chosen.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(chosen.shape)}")
    return _flat_index_copy(input, chosen.copy(), src)


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
    return input.scatter_reduce(axis, spread, source, reduce, include_self=include_self)


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
