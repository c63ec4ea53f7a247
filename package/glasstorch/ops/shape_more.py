"""More shape functions, found missing by running the examples in PyTorch's own docstrings
(issue 14): tensor_split, hsplit, vsplit, dsplit, broadcast_to, ravel, unflatten, rot90, diag,
diag_embed, diagflat, trace, block_diag, cartesian_prod, combinations, kron, inner, vander, take,
searchsorted, bucketize, bincount, tril_indices, triu_indices, unravel_index, and the factories
logspace and range (``range_`` here, so that Python's ``range`` stays usable in this file).

Mirrors ``aten/src/ATen/native/TensorShape.cpp``, ``Bucketization.cpp`` and ``TensorFactories.cpp``.
Each differentiable one is composed from ops that have a backward Node (slices, ``cat``, ``stack``,
``reshape``, ``mul``, ``index_select``), as PyTorch composes most of them; where PyTorch records a
Node of its own (``TraceBackward0``, ``DiagEmbedBackward0``, ``BlockDiagBackward0``,
``TakeBackward0``), glasstorch's ``grad_fn`` is the last op of the composition instead.
"""
from __future__ import annotations

import itertools
import math
from builtins import range as builtins_range
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from .shape import cat, stack


def _axis(input: Tensor, dim: int) -> int:
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


# --- splitting ----------------------------------------------------------------------------------
def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Views of ``input`` along ``dim``: ``n`` parts as equal as possible (the first ``size % n``
    one longer), or the parts between the given indices (numpy's array_split)."""
    axis = _axis(input, dim)
    size = input.shape[axis]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(size, sections)
        lengths = [base + 1] * extra + [base] * (sections - extra)
        bounds = list(itertools.accumulate([0] + lengths))
    else:
        bounds = [0] + [min(max(int(i) if i >= 0 else size + int(i), 0), size) for i in indices_or_sections] + [size]
    return tuple(input.narrow(axis, start, max(stop - start, 0)) for start, stop in zip(bounds[:-1], bounds[1:]))


def _split_along(input: Tensor, indices_or_sections: Any, dim: int, name: str, min_dims: int) -> tuple:
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    if isinstance(indices_or_sections, int) and (indices_or_sections == 0 or input.shape[dim] % indices_or_sections):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along the columns (dim 1; dim 0 for a 1-D tensor)."""
    return _split_along(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along the rows (dim 0) of a tensor of 2 or more dims."""
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along the depth (dim 2) of a tensor of 3 or more dims."""
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


# --- reshaping -------------------------------------------------------------------------------------
def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    """``input.expand(size)``: a view with the broadcast shape."""
    return input.expand(*size)


def ravel(input: Tensor) -> Tensor:
    """The elements as one dim (a view when it can be, as ``reshape(-1)``)."""
    return input.reshape(-1)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Dim ``dim`` split into ``sizes`` (one of them may be -1)."""
    axis = _axis(input, dim)
    sizes = list(sizes)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        sizes[sizes.index(-1)] = input.shape[axis] // known if known else 0
    if math.prod(sizes) != input.shape[axis]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({input.shape[axis]}) in the input tensor")
    return input.reshape(*input.shape[:axis], *sizes, *input.shape[axis + 1:])


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotated by 90 degrees ``k`` times in the plane of ``dims`` (from the first toward the second)."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    a, b = _axis(input, dims[0]), _axis(input, dims[1])
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    k %= 4
    if k == 1:
        return input.flip(b).transpose(a, b)
    if k == 2:
        return input.flip(a, b)
    if k == 3:
        return input.flip(a).transpose(a, b)
    return input.clone()


# --- diagonals ---------------------------------------------------------------------------------------
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The last dim of ``input`` written on a diagonal of new square matrices (in dims ``dim1``, ``dim2``)."""
    n = input.shape[-1] + abs(offset)
    # out[..., i, j] = sum_k input[..., k] * [row of k == i and column of k == j]
    rows = np.arange(input.shape[-1]) + max(-offset, 0)
    cols = np.arange(input.shape[-1]) + max(offset, 0)
    place = np.zeros((input.shape[-1], n, n), dtype=input._data.dtype)
    place[np.arange(input.shape[-1]), rows, cols] = 1
    out = (input.unsqueeze(-1).unsqueeze(-1) * _wrap(place)).sum(-3)
    ndim = out.dim()
    d1, d2 = dim1 % ndim, dim2 % ndim
    if (d1, d2) != (ndim - 2, ndim - 1):
        out = out.movedim((ndim - 2, ndim - 1), (d1, d2))
    return out


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input: the square matrix with it on diagonal ``diagonal``; a 2-D input: that diagonal."""
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return input.diagonal(diagonal)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input on diagonal ``offset`` of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return input.diagonal().sum()


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-D) as blocks on the diagonal of one matrix, zeros elsewhere."""
    blocks = [t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t for t in tensors]
    for i, t in enumerate(blocks):
        if t.dim() != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions")
    dtype = dtypes.result_type(*blocks) if blocks else dtypes.get_default_dtype()
    width = sum(t.shape[1] for t in blocks)
    rows, column = [], 0
    for t in blocks:
        t = t.to(dtype)
        left = _wrap(np.zeros((t.shape[0], column), dtype=dtype.numpy_dtype))
        right = _wrap(np.zeros((t.shape[0], width - column - t.shape[1]), dtype=dtype.numpy_dtype))
        rows.append(cat([left, t, right], 1))
        column += t.shape[1]
    return cat(rows, 0) if rows else _wrap(np.zeros((0, 0), dtype=dtype.numpy_dtype))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, **_: Any) -> Tensor:
    """The (2, N) coordinates of the lower triangle of a row x col matrix, row by row."""
    r, c = np.tril_indices(row, offset, col)
    return _wrap(np.stack([r, c]).astype((dtype or dtypes.int64).numpy_dtype).reshape(2, -1))


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, **_: Any) -> Tensor:
    """The (2, N) coordinates of the upper triangle of a row x col matrix, row by row."""
    r, c = np.triu_indices(row, offset, col)
    return _wrap(np.stack([r, c]).astype((dtype or dtypes.int64).numpy_dtype).reshape(2, -1))


# --- products and combinations -------------------------------------------------------------------
def inner(input: Tensor, other: Tensor) -> Tensor:
    """The dot product over the last dims (a scalar times a tensor when one is 0-dim)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    # out[a..., b...] = sum_k input[a..., k] * other[b..., k]
    left = input.reshape(*input.shape[:-1], *([1] * (other.dim() - 1)), input.shape[-1])
    return (left * other).sum(-1)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    ndim = max(input.dim(), other.dim())
    a = input.reshape(*([1] * (ndim - input.dim())), *input.shape)
    b = other.reshape(*([1] * (ndim - other.dim())), *other.shape)
    # interleave: a[i, 1, j, 1] * b[1, k, 1, l] -> (i*k, j*l)
    a_shape = [s for n in a.shape for s in (n, 1)]
    b_shape = [s for n in b.shape for s in (1, n)]
    product = a.reshape(*a_shape) * b.reshape(*b_shape)
    return product.reshape(*[m * n for m, n in zip(a.shape, b.shape)])


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, as rows (itertools.product)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = [g.reshape(-1) for g in _meshgrid_ij(tensors)]
    return stack(grids, 1)


def _meshgrid_ij(tensors: Sequence[Tensor]) -> list:
    from .shape import meshgrid

    return list(meshgrid(*tensors, indexing="ij"))


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The r-length combinations of a 1-D tensor's elements, as rows (itertools.combinations)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if r == 0:
        return _wrap(np.empty((0,), dtype=input._data.dtype))
    return input.index_select(0, _wrap(index.reshape(-1))).reshape(-1, r) if index.size else \
        _wrap(np.empty((0, r), dtype=input._data.dtype))


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix: columns x^(N-1), ..., x, 1 (or the other way when ``increasing``)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    powers = range(n) if increasing else range(n - 1, -1, -1)
    base = x if x.is_floating_point() or x.dtype is dtypes.int64 else x.to(dtypes.int64)
    columns = [base ** p if p else base.new_ones(base.shape) for p in powers]
    return stack(columns, 1) if columns else _wrap(np.empty((x.shape[0], 0), dtype=base._data.dtype))


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of the flattened input at ``index`` (shaped as ``index``)."""
    flat_index = index.reshape(-1)
    size = input.numel()
    bad = (flat_index._data >= size) | (flat_index._data < -size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(flat_index._data[bad][0])} on a tensor of {size} elements.")
    wrapped = _wrap(np.where(flat_index._data < 0, flat_index._data + size, flat_index._data).astype(np.int64))
    return input.reshape(-1).index_select(0, wrapped).reshape(*index.shape)


# --- buckets and counts (Bucketization.cpp, SummaryOps.cpp) ------------------------------------------------------
def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None, out: Any = None) -> Tensor:
    """Where each value of ``input`` would be inserted into the last dim of ``sorted_sequence`` to
    keep it sorted (the first such place; the last with ``right=True`` or ``side='right'``)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, axis=-1)
    values = np.asarray(getattr(input, "_data", input))
    how = "right" if right else "left"
    if seq.ndim == 1:
        result = np.searchsorted(seq, values, side=how)
    else:
        if values.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                               f"of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                               f"{list(seq.shape)} and input value tensor {list(values.shape)}")
        rows_seq, rows_val = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        result = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_seq, rows_val)]).reshape(values.shape)
    result = _wrap(np.asarray(result, dtype=np.int32 if out_int32 else np.int64))
    if out is not None:
        out.copy_(result)
        return out
    return result


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Any = None) -> Tensor:
    """The index of the bucket of each value, given 1-D increasing ``boundaries`` (``right``:
    boundaries[i-1] <= x < boundaries[i] instead of boundaries[i-1] < x <= boundaries[i])."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ..., max occurs in a 1-D tensor of non-negative integers (the sum
    of ``weights`` at those places instead of a count when given)."""
    if input.dim() != 1 or input._data.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if (input._data < 0).any():
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and weights.shape != input.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    counts = np.bincount(input._data, None if weights is None else weights._data, minlength)
    if weights is None:
        return _wrap(counts.astype(np.int64))
    return _wrap(counts.astype(np.float32 if weights._data.dtype == np.float32 else np.float64))


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Each run of equal consecutive values (slices along ``dim``) kept once, as ``uniq`` does;
    optionally the run each element belongs to and each run's length. Not differentiable."""
    data = input._data
    if dim is None:
        flat = data.reshape(-1)
        starts = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else np.zeros(0, dtype=bool)
        values = flat[starts]
        inverse_shape = data.shape
    else:
        axis = _axis(input, dim)
        moved = np.moveaxis(data, axis, 0).reshape(data.shape[axis], -1)
        starts = np.concatenate([[True], (moved[1:] != moved[:-1]).any(axis=1)]) if len(moved) else np.zeros(0, bool)
        values = np.compress(starts, data, axis=axis)
        inverse_shape = (data.shape[axis],)
    inverse = (np.cumsum(starts) - 1).astype(np.int64)
    counts = np.diff(np.append(np.flatnonzero(starts), starts.size)).astype(np.int64)
    result = [_wrap(values)]
    if return_inverse:
        result.append(_wrap(inverse.reshape(inverse_shape)))
    if return_counts:
        result.append(_wrap(counts))
    return result[0] if len(result) == 1 else tuple(result)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to norm ``maxnorm``
    (PyTorch's factor: maxnorm / (norm + 1e-7))."""
    axis = _axis(input, dim)
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    others = tuple(d for d in builtins_range(input.dim()) if d != axis)
    norms = input.norm(p, others, keepdim=True) if others else input.abs()
    from .indexing import where

    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return input * factor


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates in ``shape`` of flat ``indices``, one int64 tensor per dim."""
    data = np.asarray(getattr(indices, "_data", indices))
    if data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype if isinstance(indices, Tensor) else type(indices)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    size = math.prod(shape)
    if ((data < -size) | (data >= size)).any():
        raise ValueError(f"'indices' must be in range [-{size}, {size - 1}]")
    coordinates = np.unravel_index(np.where(data < 0, data + size, data), shape)
    return tuple(_wrap(np.asarray(c, dtype=np.int64)) for c in coordinates)


# --- factories (TensorFactories.cpp) ------------------------------------------------------------------
def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None, **_: Any) -> Tensor:
    """``steps`` values base ** linspace(start, end, steps)."""
    dtype = dtype or dtypes.get_default_dtype()
    values = np.power(base, np.linspace(float(start), float(end), steps))
    return _wrap(values.astype(dtype.numpy_dtype))


def range_(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None, requires_grad: bool = False,
           **_: Any) -> Tensor:
    """Deprecated in PyTorch (use ``arange``): start, start + step, ..., *including* ``end``; floats
    by default."""
    import warnings

    if end is None:
        start, end = 0, start
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    dtype = dtype or dtypes.get_default_dtype()
    count = int(math.floor((float(end) - float(start)) / float(step))) + 1
    values = float(start) + np.arange(max(count, 0), dtype=np.float64) * float(step)
    out = _wrap(values.astype(dtype.numpy_dtype))
    return out.requires_grad_() if requires_grad else out
