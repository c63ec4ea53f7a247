"""More shape functions, found missing by running the examples in PyTorch's own docstrings
(issue 14): tensor_split, hsplit, vsplit, dsplit, broadcast_to, ravel, unflatten, rot90, diag,
diag_embed, diagflat, trace, block_diag, cartesian_prod, combinations, kron, inner, vander, take,
searchsorted, bucketize, bincount, tril_indices, triu_indices, unravel_index, and the factories
logspace and range (``range_`` here, so that Python's ``range`` stays usable in this file).

Mirrors ``aten/src/ATen/native/TensorShape.cpp``, ``Bucketization.cpp`` and ``TensorFactories.cpp``.
Most differentiable ones are composed from ops that have a backward Node (slices, ``cat``,
``stack``, ``reshape``, ``mul``, ``index_select``), as PyTorch composes them, so their ``grad_fn``
is the last op's Node, as in PyTorch. Where PyTorch records a Node of its own (``TraceBackward0``,
``DiagEmbedBackward0``, ``BlockDiagBackward0``, ``Rot90Backward0``, ``RenormBackward0``,
``TakeBackward0``), the forward here is numpy and the Node sits next to it.
"""
from __future__ import annotations

import itertools
import math
from builtins import range as builtins_range
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from .._typename import scalar_type_name
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._arguments import write_out
from ._util import SavedTensor, compute_requires_grad, record, set_history
from .shape import DiagonalBackward0, UnsafeViewBackward0, cat, stack


def _unsafe_view(input: Tensor, shape: tuple) -> Tensor:
    """``at::_unsafe_view``: the result of a composite op reshaped without being tracked as a view
    (its memory is the op's own intermediate), recorded as ``UnsafeViewBackward0``."""
    return record(_wrap(input._data.reshape(shape)), UnsafeViewBackward0, (input,), self_sym_sizes=input._data.shape)


def _axis(input: Tensor, dim: int) -> int:
    """``dim`` of ``input`` as a non-negative dim (a 0-dim tensor has one pretend dim)."""
    return _axis_of(dim, max(input.dim(), 1))


def _axis_of(dim: int, ndim: int) -> int:
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


# --- splitting ----------------------------------------------------------------------------------
def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Views of ``input`` along ``dim``: ``n`` parts as equal as possible (the first ``size % n``
    one longer), or the parts between the given indices (numpy's array_split)."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
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
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
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
    out = _wrap(np.rot90(input._data, k, (a, b)).copy())  # numpy turns the same way: from a toward b
    return record(out, Rot90Backward0, (input,), k=k, dims=tuple(dims))


class Rot90Backward0(Node):
    """out = rot90(self, k, dims): turning the gradient back, -k times, is the whole backward."""

    dims: tuple
    k: int

    def backward(self, grad: Tensor) -> tuple:
        return (rot90(grad, -self.k, self.dims),)


# --- diagonals ---------------------------------------------------------------------------------------
class DiagEmbedBackward0(Node):
    """out = diag_embed(self, offset, dim1, dim2): the gradient is read back from that diagonal."""

    dim1: int
    dim2: int
    offset: int

    def backward(self, grad: Tensor) -> tuple:
        return (grad.diagonal(self.offset, self.dim1, self.dim2),)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The last dim of ``input`` written on a diagonal of new square matrices (in dims ``dim1``, ``dim2``)."""
    ndim = input.dim() + 1
    d1, d2 = _axis_of(dim1, ndim), _axis_of(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    data = input._data.reshape(input._data.shape or (1,))
    n = data.shape[-1]
    values = np.zeros(data.shape[:-1] + (n + abs(offset),) * 2, dtype=data.dtype)
    k = np.arange(n)
    values[..., k + max(-offset, 0), k + max(offset, 0)] = data  # out[..., i, i + offset] = input[..., i]
    out = _wrap(np.ascontiguousarray(np.moveaxis(values, (-2, -1), (d1, d2))))
    return record(out, DiagEmbedBackward0, (input,), dim1=dim1, dim2=dim2, offset=offset)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's name
    """``diag`` of a matrix: ``diagonal_copy``, a copy of the diagonal (not a view); same backward."""


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input: the square matrix with it on diagonal ``diagonal``; a 2-D input: that diagonal (a copy)."""
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        out = _wrap(np.diagonal(input._data, diagonal).copy())
        return record(out, DiagonalBackward0_copy, (input,), dim1=0, dim2=1, offset=diagonal,
                       self_sym_sizes=input._data.shape)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input on diagonal ``offset`` of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


class TraceBackward0(Node):
    """out = sum_i self[i, i]: the gradient is ``grad`` on the main diagonal, zeros elsewhere."""

    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        eye = np.eye(*self.self_sym_sizes, dtype=grad._data.dtype)
        return (grad * _wrap(eye),)


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    data = input._data
    if data.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if data.dtype.kind in "iu":  # as sum: integers add up as int64
        data = data.astype(np.int64)
    return record(_wrap(np.asarray(np.trace(data), dtype=data.dtype)), TraceBackward0, (input,),
                   self_sym_sizes=input._data.shape)


class BlockDiagBackward0(Node):
    """out = block_diag(*tensors): each tensor's gradient is its block of ``grad``, back in its shape."""

    def backward(self, grad: Tensor) -> tuple:
        grads, row, column = [], 0, 0
        for i, (shape, dtype, (rows, columns)) in enumerate(self._blocks):
            block = grad[row:row + rows, column:column + columns].reshape(shape)
            grads.append((block if block.dtype is dtype else block.to(dtype)) if self.needs_input_grad(i) else None)
            row, column = row + rows, column + columns
        return tuple(grads)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-D) as blocks on the diagonal of one matrix, zeros elsewhere."""
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions")
    blocks = [t._data.reshape(1, 1) if t.dim() == 0 else t._data.reshape(1, -1) if t.dim() == 1 else t._data
              for t in tensors]
    dtype = dtypes.result_type(*tensors) if tensors else dtypes.get_default_dtype()
    values = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), dtype=dtype.numpy_dtype)
    row, column = 0, 0
    for block in blocks:
        values[row:row + block.shape[0], column:column + block.shape[1]] = block
        row, column = row + block.shape[0], column + block.shape[1]
    out = _wrap(values)
    if compute_requires_grad(*tensors):
        node = BlockDiagBackward0(*tensors)
        node._blocks = [(t._data.shape, t.dtype, b.shape) for t, b in zip(tensors, blocks)]
        set_history(out, node)
    return out


def _check_sizes(row: int, col: int) -> None:
    for name, size in (("row", row), ("col", col)):
        if size < 0:
            raise RuntimeError(f"{name} must be non-negative, got{size}")  # (sic: PyTorch's message has no space)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, **_: Any) -> Tensor:
    """The (2, N) coordinates of the lower triangle of a row x col matrix, row by row."""
    _check_sizes(row, col)
    r, c = np.tril_indices(row, offset, col)
    return _wrap(np.stack([r, c]).astype((dtype or dtypes.int64).numpy_dtype).reshape(2, -1))


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, **_: Any) -> Tensor:
    """The (2, N) coordinates of the upper triangle of a row x col matrix, row by row."""
    _check_sizes(row, col)
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
    from ..functional import tensordot

    return tensordot(input, other, ([-1], [-1]))  # out[a..., b...] = sum_k input[a..., k] * other[b..., k]


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    ndim = max(input.dim(), other.dim())
    a = input.reshape(*([1] * (ndim - input.dim())), *input.shape)
    b = other.reshape(*([1] * (ndim - other.dim())), *other.shape)
    # interleave: a[i, 1, j, 1] * b[1, k, 1, l] -> (i*k, j*l)
    a_shape = [s for n in a.shape for s in (n, 1)]
    b_shape = [s for n in b.shape for s in (1, n)]
    product = a.reshape(*a_shape) * b.reshape(*b_shape)
    return _unsafe_view(product, tuple(m * n for m, n in zip(a.shape, b.shape)))


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, as rows (itertools.product)."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
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
    if r == 0:
        return _wrap(np.empty((0,), dtype=input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return stack([input.index_select(0, _wrap(column.copy())) for column in index.T], 1)  # column j: element j


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix: columns x^(N-1), ..., x, 1 (or the other way when ``increasing``)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.is_floating_point() or x.dtype is dtypes.int64 else x.to(dtypes.int64)
    # a column of ones, then the running products x, x*x, ... beside it. PyTorch writes them into
    # one tensor in place (its grad_fn with increasing=True is CopySlices; here CatBackward0), and
    # in 2.13 its backward then fails (cumprod's saved input is overwritten); this one works.
    ones = _wrap(np.ones((x.shape[0], min(n, 1)), dtype=base._data.dtype))
    if n <= 1:
        return ones  # no power of x in it: nothing to differentiate
    powers = base.unsqueeze(1).expand(x.shape[0], max(n - 1, 0)).cumprod(1)
    result = cat([ones, powers], 1)
    return result if increasing else result.flip(1)


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of the flattened input at ``index`` (shaped as ``index``)."""
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.legacy_name[:-len('Tensor')]}")
    size = input.numel()
    bad = (index._data >= size) | (index._data < -size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(index._data[bad][0])} on a tensor of {size} elements.")
    out = _wrap(input._data.reshape(-1)[_wrapped(index._data, size)])
    return record(out, TakeBackward0, (input,), index_=SavedTensor(index), self_=SavedTensor(input))


def _wrapped(index: np.ndarray, size: int) -> np.ndarray:
    """Negative indices counted from the end."""
    return np.where(index < 0, index + size, index)


class TakeBackward0(Node):
    """out = self.flatten()[index]: every element's gradient is added at its place (indices may repeat)."""

    index_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import _put_back

        self_, index = self._saved_self, self._saved_index._data.reshape(-1)
        size = self_.numel()
        flat = _put_back(grad.reshape(-1), (size,), (_wrapped(index, size),), "IndexBackward0")
        return (flat.reshape(self_.shape),)


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
    return result if out is None else write_out(out, result)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Any = None) -> Tensor:
    """The index of the bucket of each value, given 1-D increasing ``boundaries`` (``right``:
    boundaries[i-1] <= x < boundaries[i] instead of boundaries[i-1] < x <= boundaries[i])."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ..., max occurs in a 1-D tensor of non-negative integers (the sum
    of ``weights`` at those places instead of a count when given)."""
    if input._data.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{scalar_type_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1 or (input._data < 0).any():
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


class RenormBackward0(Node):
    """out = self * f(n), n the p-norm of self's slice along ``dim``, f(n) = maxnorm / (n + 1e-7)
    where n > maxnorm, else 1. Where a slice is scaled,
        d out_i / d self_j = f(n) [i == j] + self_i f'(n) dn/dself_j,
        f'(n) = -maxnorm / (n + 1e-7)^2,  dn/dself_j = sign(self_j) |self_j|^(p-1) / n^(p-1)."""

    dim: int
    maxnorm: float
    p: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import where

        x, p, maxnorm = self._saved_self, self.p, self.maxnorm
        others = tuple(d for d in builtins_range(x.dim()) if d != self.dim % x.dim())
        norm = x.abs().pow(p).sum(others, keepdim=True).pow(1.0 / p)
        scaled = norm > maxnorm
        factor = where(scaled, maxnorm / (norm + 1e-7), 1.0)
        d_norm = x.sgn() * x.abs().pow(p - 1) / norm.pow(p - 1)
        along = (grad * x).sum(others, keepdim=True) * (-maxnorm) / (norm + 1e-7).pow(2)
        return (grad * factor + where(scaled, along * d_norm, 0.0),)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to norm ``maxnorm``
    (PyTorch's factor: maxnorm / (norm + 1e-7))."""
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    axis = _axis(input, dim)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    data = input._data
    others = tuple(d for d in builtins_range(data.ndim) if d != axis)
    norms = (np.abs(data) ** p).sum(others, keepdims=True) ** (1.0 / p)
    factor = np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    out = _wrap((data * factor).astype(data.dtype))
    return record(out, RenormBackward0, (input,), dim=dim, maxnorm=maxnorm, p=p, self_=SavedTensor(input))


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates in ``shape`` of flat ``indices``, one int64 tensor per dim."""
    data = np.asarray(getattr(indices, "_data", indices))
    if data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype if isinstance(indices, Tensor) else type(indices)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    # as PyTorch: indices out of range are not refused, they wrap around (Python's // and %)
    coordinates, rest = [], data.astype(np.int64)
    for size in reversed(shape):
        coordinates.append(np.mod(rest, size))
        rest = np.floor_divide(rest, size)
    return tuple(_wrap(np.asarray(c, dtype=np.int64)) for c in reversed(coordinates))


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
