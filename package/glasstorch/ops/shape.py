"""Shape operations: reshape/view, flatten, squeeze/unsqueeze, transpose/permute/t, expand, cat, stack.

None of them changes a value, so each backward only moves the gradient back into the input's
shape: a reshape is undone by reshaping back, a transpose by transposing back, an expand by summing
over the expanded dims, a cat by cutting the gradient into the pieces.

Most of them return *views*: tensors sharing the input's memory. A view shares its base's version
counter too, so an in-place change through either one is seen by autograd.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import storage
from .._autograd_state import _GradMode
from .._tensor import Tensor, _normalize_dim, _wrap
from ..autograd.graph import Node
from ..dtypes import promoted_values
from ._arguments import normalize_dims
from ._util import compute_requires_grad, set_history


def view_of(input: Tensor, data: np.ndarray) -> Tensor:
    """A tensor sharing ``input``'s memory and version counter (PyTorch: a view)."""
    out = _wrap(data)
    out._version_counter = input._version_counter
    if input._is_inference:  # a view of an inference tensor is one too, and is not tracked as a view
        out._is_inference = True
        return out
    out._base = input if input._base is None else input._base
    out._view_version = input._version_counter[0]  # its grad_fn describes the memory as it is now
    if input._creation_meta is not None:
        out._creation_meta = input._creation_meta  # a view of such a view inherits it, as PyTorch's propagate_creation_meta
    elif input._requires_grad and not _GradMode.enabled:
        out._creation_meta = NO_GRAD_MODE
    return out


# How a view was made, when that forbids changing it in place with grad mode on (PyTorch's
# CreationMeta, checked by handle_view_on_rebase in ops/inplace.py): None, NO_GRAD_MODE, or
# (output number, op name) for one output of an op that returns several views (split, unbind).
NO_GRAD_MODE = "no_grad_mode"


def _sizes(size: tuple) -> tuple:
    """Accept both ``f(2, 3)`` and ``f((2, 3))`` as PyTorch does."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer, Tensor)):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


class ViewBackward0(Node):
    """out = self.view(shape):  the gradient is viewed back in the input's shape."""

    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (grad.reshape(self.self_sym_sizes),)


class UnsafeViewBackward0(ViewBackward0):
    """A reshape that had to copy (the input's memory layout did not allow a view)."""


def _reshape_values(input: Tensor, shape: tuple, *, copy_allowed: bool) -> np.ndarray:
    data = input._data
    for i, n in enumerate(shape):  # numpy would read any negative size as -1
        if n < -1:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape {list(shape)}")
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    try:
        return np.reshape(data, shape, copy=None if copy_allowed else False)
    except ValueError as error:
        if "copy" in str(error):  # numpy could not make a view without copying
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {data.size}") from None


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """The same values in a new shape; a view when the memory layout allows, else a copy."""
    shape = _sizes(shape)
    values = _reshape_values(input, shape, copy_allowed=True)
    is_view = np.may_share_memory(values, input._data)  # a view, or did numpy have to copy?
    out = view_of(input, values) if is_view else _wrap(values)
    if compute_requires_grad(input):
        self_shape = input._data.shape
        if not is_view:  # PyTorch copies first, then views the copy: UnsafeViewBackward0 <- CloneBackward0
            from .conversion import CloneBackward0

            input = set_history(_wrap(input._data), CloneBackward0(input))
        node = (ViewBackward0 if is_view else UnsafeViewBackward0)(input)
        node.self_sym_sizes = self_shape
        set_history(out, node)
    return out


def view(input: Tensor, *shape: Any) -> Tensor:
    """Like ``reshape`` but never copies: an error if the memory layout does not allow a view."""
    if len(shape) == 1 and hasattr(shape[0], "numpy_dtype"):
        return view_as_dtype(input, shape[0])
    shape = _sizes(shape)
    out = view_of(input, _reshape_values(input, shape, copy_allowed=False))
    if compute_requires_grad(input):
        node = ViewBackward0(input)
        node.self_sym_sizes = input._data.shape
        set_history(out, node)
    return out


def view_as_dtype(input: Tensor, dtype: Any) -> Tensor:
    """``x.view(dtype)``: the same bytes read as another dtype (the bits of a float as an int32).
    With a different element size the last dim must be contiguous and its bytes divisible. It
    shares memory and version counter but is not a differentiable view (no ``_base``, no grad)."""
    data, itemsize = input._data, dtype.itemsize
    if itemsize != data.itemsize:
        names = f"{input.dtype.legacy_name[:-6]} as {dtype.legacy_name[:-6]} (different element sizes)"
        size, stride = (data.shape[-1], data.strides[-1] // data.itemsize) if data.ndim else (1, 1)
        if stride != 1 and size != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names}, but got {stride}")
        if itemsize > data.itemsize and size * data.itemsize % itemsize:
            raise RuntimeError(f"self.size(-1) must be divisible by {itemsize // data.itemsize} to view {names}, but got {size}")
    out = _wrap(data.view(dtype.numpy_dtype))
    out._version_counter = input._version_counter
    return out


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, 1)
    start, end = _normalize_dim(start_dim, ndim), _normalize_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input  # PyTorch returns the tensor itself: nothing to flatten
    shape = input._data.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:])


class SqueezeBackward0(Node):
    """out = self.squeeze():  the gradient gets the squeezed dims back."""

    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (grad.reshape(self.self_sym_sizes),)


class SqueezeBackward1(SqueezeBackward0):
    """squeeze(dim) with one dim."""

    dim: int


class SqueezeBackward2(SqueezeBackward0):
    """squeeze(dims) with a tuple of dims."""

    dim: tuple


class SqueezeBackward4(SqueezeBackward0):
    """squeeze_(dim), in place: how matmul drops the dim it added to a 1-D operand."""

    dim: int


def squeeze(input: Tensor, dim: Any = None, *, _node_class: type | None = None) -> Tensor:
    """Remove dims of size 1 (all of them, or only ``dim`` if it has size 1)."""
    shape = input._data.shape
    if dim is None:
        node_class, dims = SqueezeBackward0, tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        node_class = SqueezeBackward1 if isinstance(dim, (int, np.integer)) else SqueezeBackward2
        dims = tuple(d for d in normalize_dims(dim, len(shape)) if shape and shape[d] == 1)
    out = view_of(input, np.squeeze(input._data, axis=dims) if dims else input._data.view())
    if compute_requires_grad(input):
        node = (_node_class or node_class)(input)
        node.self_sym_sizes = shape
        if dim is not None:
            node.dim = int(dim) if isinstance(dim, (int, np.integer)) else tuple(dim)  # as given, as PyTorch
        set_history(out, node)
    return out


class UnsqueezeBackward0(Node):
    """out = self.unsqueeze(dim):  the gradient loses that dim again."""

    dim: int

    def backward(self, grad: Tensor) -> tuple:
        return (grad.squeeze(self.dim),)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at ``dim``."""
    axis = _normalize_dim(dim, input._data.ndim + 1)
    out = view_of(input, np.expand_dims(input._data, axis))
    if compute_requires_grad(input):
        node = UnsqueezeBackward0(input)
        node.dim = int(dim)  # as given: squeezing the gradient's dim reads a negative one the same way
        set_history(out, node)
    return out


class TransposeBackward0(Node):
    """out = self.transpose(dim0, dim1):  the gradient is transposed back."""

    dim0: int
    dim1: int

    def backward(self, grad: Tensor) -> tuple:
        return (grad.transpose(self.dim0, self.dim1),)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    ndim = input._data.ndim
    d0, d1 = (_normalize_dim(dim0, ndim), _normalize_dim(dim1, ndim)) if ndim else (0, 0)
    out = view_of(input, np.swapaxes(input._data, d0, d1) if ndim else input._data.view())
    if compute_requires_grad(input):
        node = TransposeBackward0(input)
        node.dim0, node.dim1 = d0, d1
        set_history(out, node)
    return out


class TBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (grad.t(),)


def t(input: Tensor) -> Tensor:
    """Transpose a matrix (a vector or a scalar comes back unchanged)."""
    ndim = input._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    out = view_of(input, input._data.T)
    if compute_requires_grad(input):
        set_history(out, TBackward0(input))
    return out


class PermuteBackward0(Node):
    """out = self.permute(dims):  the gradient is permuted by the inverse permutation."""

    dims: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (grad.permute(*np.argsort(self.dims).tolist()),)


def permute(input: Tensor, *dims: Any) -> Tensor:
    ndim = input._data.ndim
    dims = _sizes(dims)
    if len(dims) != ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    order = tuple(_normalize_dim(d, ndim) for d in dims)
    if len(set(order)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = view_of(input, np.transpose(input._data, order))
    if compute_requires_grad(input):
        node = PermuteBackward0(input)
        node.dims = order
        set_history(out, node)
    return out


def T(input: Tensor) -> Tensor:  # noqa: N802 - the property's name
    """``tensor.T``: all dims reversed (PyTorch records it as a permute, even of a vector or a number)."""
    return permute(input, *reversed(range(input._data.ndim)))


def mT(input: Tensor) -> Tensor:  # noqa: N802
    """``tensor.mT``: the last two dims swapped (a batch of matrices transposed)."""
    if input._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(input, -2, -1)


class ExpandBackward0(Node):
    """out = self.expand(sizes):  the gradient is summed over the expanded dims."""

    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (grad.sum_to_size(self.self_sym_sizes),)


def expand(input: Tensor, *sizes: Any) -> Tensor:
    """Broadcast ``input`` to ``sizes`` without copying (-1 keeps a dim's size)."""
    sizes = _sizes(sizes)
    shape = input._data.shape
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise RuntimeError(
            f"expand(glasstorch.{input.dtype.legacy_name}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    target = list(sizes)
    for i in range(lead):
        if sizes[i] < 0:
            raise RuntimeError(f"The expanded size of the tensor ({sizes[i]}) isn't allowed in a leading, non-existing dimension {i}")
    for i, have in enumerate(shape):
        want = sizes[lead + i]
        if want == -1:
            target[lead + i] = have
        elif have != want and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({have}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
            )
    if tuple(target) == shape and not compute_requires_grad(input):
        return view_of(input, input._data.view())
    out = view_of(input, np.broadcast_to(input._data, tuple(target)))
    if compute_requires_grad(input):
        node = ExpandBackward0(input)
        node.self_sym_sizes = shape
        set_history(out, node)
    return out


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


class CatBackward0(Node):
    """Cut the gradient into the pieces that were concatenated."""

    dim: int

    def backward(self, grad: Tensor) -> tuple:
        pieces, start = [], 0
        for size, needed in zip(self._sizes, map(self.needs_input_grad, range(len(self._sizes)))):
            key = (slice(None),) * self.dim + (slice(start, start + size),)
            pieces.append(grad[key] if needed else None)
            start += size
        return tuple(pieces)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise ValueError("glasstorch.cat(): expected a non-empty list of Tensors")
    ndims = {t._data.ndim for t in tensors if t._data.shape != (0,)}  # (a legacy empty [0] fits anywhere)
    if len(ndims) > 1:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {min(ndims)} and {max(ndims)}")
    arrays = promoted_values(*tensors)
    axis = _normalize_dim(dim, tensors[0]._data.ndim)
    try:
        out = _wrap(np.concatenate(arrays, axis=axis))
    except ValueError:
        raise RuntimeError(
            "Sizes of tensors must match except in dimension "
            f"{axis}. Got tensors of shapes {[list(t._data.shape) for t in tensors]}"
        ) from None
    if compute_requires_grad(*tensors):
        node = CatBackward0(*tensors)
        node.dim, node._sizes = axis, [t._data.shape[axis] for t in tensors]  # (PyTorch: tensors_args_sizes)
        set_history(out, node)
    return out


concat = concatenate = cat


class StackBackward0(Node):
    """Give each stacked tensor its slice of the gradient."""

    dim: int

    def backward(self, grad: Tensor) -> tuple:
        key = (slice(None),) * self.dim
        return tuple(grad[key + (i,)] if self.needs_input_grad(i) else None for i in range(len(self._next)))


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {t._data.shape for t in tensors}
    if len(shapes) > 1:
        first = tensors[0]._data.shape
        i, other = next((i, t._data.shape) for i, t in enumerate(tensors) if t._data.shape != first)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 and {list(other)} at entry {i}")
    axis = _normalize_dim(dim, tensors[0]._data.ndim + 1)
    out = _wrap(np.stack(promoted_values(*tensors), axis=axis))
    if compute_requires_grad(*tensors):
        node = StackBackward0(*tensors)
        node.dim = axis
        set_history(out, node)
    return out


# --- more shape operations (issue 14): flip, roll, repeat, split, triangles, grids, windows ----------
class FlipBackward0(Node):
    """out = flip(self, dims): flipping the gradient back is the whole backward."""

    dims: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (flip(grad, self.dims),)


def flip(input: Tensor, *dims: Any) -> Tensor:
    """The elements in reverse order along each of ``dims`` (a copy, as in PyTorch)."""
    axes = normalize_dims(_sizes(dims), input._data.ndim)
    out = _wrap(np.flip(input._data, axes).copy())
    if compute_requires_grad(input):
        node = FlipBackward0(input)
        node.dims = axes
        set_history(out, node)
    return out


def fliplr(input: Tensor) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class RollBackward0(Node):
    """out = roll(self, shifts, dims): roll the gradient back by -shifts."""

    dims: tuple  # as given; () rolls the flattened tensor
    shifts: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (roll(grad, tuple(-s for s in self.shifts), self.dims or None),)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Shift elements along ``dims`` cyclically; with no dims, along the flattened tensor."""
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        values = np.roll(input._data.reshape(-1), shifts[0]).reshape(input._data.shape)
        axes = None
    else:
        dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        axes = tuple(_normalize_dim(d, input._data.ndim) for d in dims)
        values = np.roll(input._data, shifts, axes)
    out = _wrap(values)
    if compute_requires_grad(input):
        node = RollBackward0(input)
        node.shifts, node.dims = shifts, () if dims is None else dims
        set_history(out, node)
    return out


class RepeatBackward0(Node):
    """out = self.repeat(repeats): every copy's gradient is added back into the one original.
    The output is viewed as (r0, s0, r1, s1, ...) and summed over the r's."""

    repeats: tuple
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        shape = self.self_sym_sizes
        lead = len(self.repeats) - len(shape)
        padded = (1,) * lead + tuple(shape)
        split = [n for pair in zip(self.repeats, padded) for n in pair]
        summed = grad.reshape(split).sum(tuple(range(0, 2 * len(padded), 2)))
        return (summed.reshape(shape),)


def repeat(input: Tensor, *repeats: Any) -> Tensor:
    """Tile the tensor: ``repeats[i]`` copies along dim i (extra leading repeats add dims)."""
    repeats = _sizes(repeats)
    shape = (1,) * (len(repeats) - input._data.ndim) + input._data.shape
    result = [n * r for n, r in zip(shape, repeats)]
    if any(n < 0 for n in result):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(result)}: {result}")
    if len(repeats) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    out = _wrap(np.tile(input._data, repeats))
    if compute_requires_grad(input):
        node = RepeatBackward0(input)
        node.self_sym_sizes, node.repeats = input._data.shape, repeats
        set_history(out, node)
    return out


def tile(input: Tensor, dims: Any) -> Tensor:
    """``repeat`` that pads ``dims`` with leading ones when it is shorter than the tensor's dims."""
    dims = tuple(dims)
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Repeat each element ``repeats`` times (an int, or a tensor of one count per element) along
    ``dim`` (the flattened tensor by default). As PyTorch: an int count is an unsqueeze, expand and
    reshape; a tensor of counts is an ``index_select``. ``repeat_interleave(counts)`` alone gives
    the indices 0, 0, 1, ... that a tensor of counts selects."""
    if repeats is None:  # repeat_interleave(repeats): the index form
        counts = input._data
        return _wrap(np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts))
    if dim is None:
        input, dim = input.reshape(-1), 0
    axis = _normalize_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):  # one count per element (a single count is used for all)
        counts = np.broadcast_to(repeats._data.reshape(-1), input._data.shape[axis:axis + 1]) \
            if repeats._data.size == 1 else repeats._data
        if counts.shape[0] != input._data.shape[axis]:
            raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.shape[0]} and input.size({axis}) = {input._data.shape[axis]}")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        from .scatter_gather import index_select

        return index_select(input, axis, _wrap(np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)))
    count = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if count < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = input._data.shape
    spread = input.unsqueeze(axis + 1).expand(shape[:axis + 1] + (count,) + shape[axis + 1:])
    return spread.clone().view(shape[:axis] + (shape[axis] * count,) + shape[axis + 1:])


class _PieceBackward(Node):
    """One piece of a split: its gradient goes back into its place, zeros elsewhere.
    Simplified: PyTorch's Node has one output per piece; glasstorch records one Node per piece
    (each knows its place, ``_key``)."""

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import _put_back

        return (_put_back(grad, self._self_shape, self._key, "SliceBackward0"),)


class SplitBackward0(_PieceBackward):
    dim: int
    self_sym_sizes: tuple
    split_size: int


class SplitWithSizesBackward0(_PieceBackward):
    dim: int
    self_sym_sizes: tuple
    split_sizes: list


def _piece(input: Tensor, key: tuple, node_class: type, saved: dict, position: int) -> Tensor:
    """The view ``input[key]``, output ``position`` of a split, recorded as ``node_class`` holding ``saved``."""
    out = view_of(input, input._data[key])
    if out._creation_meta is None:
        out._creation_meta = (position, node_class.__name__[:-len("Backward0")])
    if compute_requires_grad(input):
        node = node_class(input)
        node._key, node._self_shape = key, input._data.shape
        node.__dict__.update(saved)
        set_history(out, node)
    return out


def _pieces(input: Tensor, sizes: list, axis: int, node_class: type, saved: dict) -> tuple:
    """Views of ``input`` cut along ``axis`` into pieces of ``sizes``."""
    starts = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    return tuple(_piece(input, (slice(None),) * axis + (slice(start, start + size),), node_class, saved, i)
                 for i, (start, size) in enumerate(zip(starts, sizes)))


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the listed sizes."""
    _at_least_1d(tensor, "split")
    axis = _normalize_dim(dim, tensor._data.ndim)
    length = tensor._data.shape[axis]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size < 0 or (size == 0 and length):
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        sizes = [size] * (length // size) + ([length % size] if length % size else []) if size else [0]
        saved = {"dim": axis, "self_sym_sizes": tensor._data.shape, "split_size": size}
        return _pieces(tensor, sizes, axis, SplitBackward0, saved)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != length or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size at "
                           f"dimension {axis}), but got split_sizes={sizes}")
    saved = {"dim": axis, "self_sym_sizes": tensor._data.shape, "split_sizes": sizes}
    return _pieces(tensor, sizes, axis, SplitWithSizesBackward0, saved)


def _at_least_1d(tensor: Tensor, name: str) -> None:
    if not tensor._data.ndim:
        raise RuntimeError(f"{name} expects at least a 1-dimensional tensor")


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` pieces of equal size ceil(n / chunks) along ``dim`` (the last may be smaller)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    _at_least_1d(input, "chunk")
    length = input._data.shape[_normalize_dim(dim, input._data.ndim)]
    return split(input, max(-(-length // chunks), 1) if length else 1, dim)


class UnbindBackward0(_PieceBackward):
    dim: int


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices along ``dim``, each without that dim (views)."""
    if not input._data.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    axis = _normalize_dim(dim, input._data.ndim)
    return tuple(_piece(input, (slice(None),) * axis + (i,), UnbindBackward0, {"dim": axis}, i)
                 for i in range(input._data.shape[axis]))


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``input`` along ``dim`` from ``start`` for ``length`` elements: a view, recorded as the slice
    it is (SliceBackward0, even when it keeps the whole dim)."""
    from .indexing import SliceBackward0

    if not input._data.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    axis = _normalize_dim(dim, input._data.ndim)
    size = input._data.shape[axis]
    start = int(start) + (size if start < 0 else 0)
    if not 0 <= start <= size or start + length > size or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = (slice(None),) * axis + (slice(start, start + length),)
    out = view_of(input, input._data[key])
    if compute_requires_grad(input):
        node = SliceBackward0(input)
        node._key, node._self_shape = key, input._data.shape
        node.dim, node.start, node.end, node.step, node.self_sym_sizes = axis, start, start + length, 1, input._data.shape
        set_history(out, node)
    return out


class NarrowCopyBackward0(Node):
    """out = self.narrow_copy(dim, start, length): the gradient goes back into its place, zeros elsewhere."""

    dim: int
    length: int
    self_sym_sizes: tuple
    start: int

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import _put_back

        key = (slice(None),) * self.dim + (slice(self.start, self.start + self.length),)
        return (_put_back(grad, self.self_sym_sizes, key, "SliceBackward0"),)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``narrow`` as a new tensor (a copy, not a view of ``input``)."""
    piece = narrow(input.detach(), dim, start, length)  # checks the arguments as narrow does
    out = _wrap(piece._data.copy())
    if compute_requires_grad(input):
        node = NarrowCopyBackward0(input)
        node.dim, node.length, node.self_sym_sizes = _normalize_dim(dim, input._data.ndim), length, input._data.shape
        node.start = int(start) + (input._data.shape[node.dim] if start < 0 else 0)
        set_history(out, node)
    return out


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other._data.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other._data.shape)


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dims to new positions, the others keeping their order (a permute)."""
    ndim = input._data.ndim
    source = [source] if isinstance(source, (int, np.integer)) else list(source)
    destination = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain the "
                           f"same number of dims as destination ({destination} dims)")
    source = [_normalize_dim(d, ndim) for d in source]
    destination = [_normalize_dim(d, ndim) for d in destination]
    for name, dims in (("source", source), ("destination", destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    rest = iter(d for d in range(ndim) if d not in source)
    placed = dict(zip(destination, source))
    return permute(input, *[placed[i] if i in placed else next(rest) for i in range(ndim)])


moveaxis = movedim


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose(input, axis0, axis1)


swapdims = swapaxes


class TrilBackward0(Node):
    """The gradient passes on the kept triangle only."""

    diagonal: int

    def backward(self, grad: Tensor) -> tuple:
        return (tril(grad, self.diagonal),)


class TriuBackward0(Node):
    diagonal: int

    def backward(self, grad: Tensor) -> tuple:
        return (triu(grad, self.diagonal),)


def _triangle(input: Tensor, diagonal: int, lower: bool) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
    out = _wrap((np.tril if lower else np.triu)(input._data, diagonal))
    if compute_requires_grad(input):
        node = (TrilBackward0 if lower else TriuBackward0)(input)
        node.diagonal = diagonal
        set_history(out, node)
    return out


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the ``diagonal``-th diagonal); zeros above."""
    return _triangle(input, diagonal, lower=True)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the ``diagonal``-th diagonal); zeros below."""
    return _triangle(input, diagonal, lower=False)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Grids from 1-D tensors: the i-th result varies along dim i (``indexing='ij'``, the default,
    with a warning as in PyTorch) or with the first two dims swapped (``'xy'``). Each result is a
    view and an expand of its input, as in PyTorch."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings

        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    sizes = [t._data.size for t in tensors]
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[order[i]] = -1
        grids.append(t.view(shape).expand(sizes))
    return tuple(grids)


class UnfoldBackward0(Node):
    """out = self.unfold(dim, size, step): every window's gradient is added back at the places
    the window was read from (windows overlap when step < size)."""

    dimension: int
    self_sym_sizes: tuple
    size: int
    step: int

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import _put_back

        if not self.self_sym_sizes:  # a 0-dim self: its one window is [self]
            return (grad.reshape(()),)
        dim = self.dimension
        moved = grad.movedim(-1, dim + 1)  # (..., windows, size, ...) next to each other
        flat = moved.reshape(moved.shape[:dim] + (-1,) + moved.shape[dim + 2:])
        starts = np.arange(0, self.self_sym_sizes[dim] - self.size + 1, self.step)
        positions = (starts[:, None] + np.arange(self.size)).reshape(-1)  # read positions, window by window
        return (_put_back(flat, self.self_sym_sizes, (slice(None),) * dim + (positions,), "IndexBackward0"),)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim (a
    view: windows share memory)."""
    ndim = input._data.ndim
    axis = _normalize_dim(dimension, ndim) if ndim else 0
    length = input._data.shape[axis] if ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {axis} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, stride, offset = _geometry(input)
    shape, stride = shape or (1,), stride or (1,)
    count = (shape[axis] - size) // step + 1
    windows = storage.strided_window(input._data, shape[:axis] + (count,) + shape[axis + 1:] + (size,),
                                     stride[:axis] + (stride[axis] * step,) + stride[axis + 1:] + (stride[axis],), offset)
    out = view_of(input, windows if ndim else windows.reshape(size))  # 0-dim: the windows, not a dim of them
    if compute_requires_grad(input):
        node = UnfoldBackward0(input)
        node.dimension, node.self_sym_sizes, node.size, node.step = axis, input._data.shape, size, step
        set_history(out, node)
    return out


# in-place view changes: the tensor itself takes the new shape (PyTorch: its metadata changes)
class UnsqueezeBackward1(UnsqueezeBackward0):
    pass


class SqueezeBackward3(SqueezeBackward0):
    pass


class SqueezeBackward5(SqueezeBackward0):
    dim: tuple


class TransposeBackward1(TransposeBackward0):
    pass


class TBackward1(TBackward0):
    pass


def _reshape_in_place(tensor: Tensor, out_of_place: Any, node_class: type, *args: Any) -> Tensor:
    """Give ``tensor`` the shape ``out_of_place(tensor, *args)`` would have, in place: same memory,
    new view; a recorded tensor gets the out-of-place op's Node under the in-place name."""
    from .inplace import check_inplace

    check_inplace(tensor)
    result = out_of_place(tensor, *args)
    if result.grad_fn is not None:
        node = node_class(tensor)  # its edge: the tensor's old grad_fn
        node.__dict__.update(result.grad_fn.__dict__)  # what the out-of-place Node kept (dim, shape)
        tensor.grad_fn = node
    tensor._data = result._data
    return tensor


def unsqueeze_(tensor: Tensor, dim: int) -> Tensor:
    return _reshape_in_place(tensor, unsqueeze, UnsqueezeBackward1, dim)


def squeeze_(tensor: Tensor, dim: Any = None) -> Tensor:
    node_class = SqueezeBackward3 if dim is None else SqueezeBackward4 if isinstance(dim, (int, np.integer)) else SqueezeBackward5
    return _reshape_in_place(tensor, squeeze, node_class, dim)


def transpose_(tensor: Tensor, dim0: int, dim1: int) -> Tensor:
    return _reshape_in_place(tensor, transpose, TransposeBackward1, dim0, dim1)


def t_(tensor: Tensor) -> Tensor:
    return _reshape_in_place(tensor, t, TBackward1)


# --- windows over the storage (issue 17): as_strided, diagonal --------------------------------------
def _positions(size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The storage index of every element of the window (size, stride, offset), in its shape."""
    at = np.array(offset, dtype=np.int64)
    for n, step in zip(size, stride):
        at = at[..., None] + np.arange(n, dtype=np.int64) * step
    return at


class AsStridedBackward0(Node):
    """out = self.as_strided(size, stride, storage_offset): every element of out is some element of
    the storage. The gradient is added up per storage element (windows may overlap), then read back
    in self's window (``as_strided_backward`` in ``FunctionsManual.cpp``). Simplified: PyTorch also
    divides by the count where self's own window overlaps itself (an expanded self)."""

    size: tuple
    stride: tuple
    storage_offset: int

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import _put_back

        self_size, self_stride, self_offset = self._self_geometry
        out_at = _positions(self.size, self.stride, self._offset - self_offset)
        self_at = _positions(self_size, self_stride, 0)
        span = int(max(out_at.max(initial=0), self_at.max(initial=0))) + 1
        per_element = _put_back(grad.reshape(-1), (span,), (out_at.reshape(-1),), "IndexBackward0")
        return (per_element[_wrap(self_at)],)


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with any ``size``, ``stride`` and ``storage_offset`` (in
    elements; the offset defaults to input's own). Every other view is a special case of this one."""
    size, stride = tuple(int(n) for n in size), tuple(int(n) for n in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    offset = storage.storage_offset(input._data) if storage_offset is None else int(storage_offset)
    out = view_of(input, storage.strided_window(input._data, size, stride, offset))
    if compute_requires_grad(input):
        node = AsStridedBackward0(input)
        node.size, node.stride, node.storage_offset, node._offset = size, stride, storage_offset, offset
        node._self_geometry = _geometry(input)
        set_history(out, node)
    return out


def _geometry(tensor: Tensor) -> tuple:
    """(size, stride, storage offset): PyTorch's ``TensorGeometry``."""
    return tensor._data.shape, storage.element_strides(tensor._data), storage.storage_offset(tensor._data)


class DiagonalBackward0(Node):
    """out = self.diagonal(offset, dim1, dim2): the gradient goes onto that diagonal of zeros
    (``diagonal_backward``: ``grad_input.diagonal(...).copy_(grad)``, itself recorded under create_graph)."""

    dim1: int
    dim2: int
    offset: int
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        from .inplace import copy_

        grad_input = _wrap(np.zeros(self.self_sym_sizes, dtype=grad._data.dtype))
        copy_(diagonal(grad_input, self.offset, self.dim1, self.dim2), grad)
        return (grad_input,)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The elements (i, i + offset) of dims ``dim1`` and ``dim2``, as a new last dim: a view whose
    stride along it is the sum of the two strides."""
    ndim = input._data.ndim
    d1, d2 = _normalize_dim(dim1, ndim), _normalize_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size, stride, start = _geometry(input)
    length = max(min(size[d1], size[d2] - offset) if offset >= 0 else min(size[d1] + offset, size[d2]), 0)
    if length:
        start += offset * stride[d2] if offset >= 0 else -offset * stride[d1]
    rest = [i for i in range(ndim) if i not in (d1, d2)]
    window = storage.strided_window(input._data, tuple(size[i] for i in rest) + (length,),
                                    tuple(stride[i] for i in rest) + (stride[d1] + stride[d2],), start)
    out = view_of(input, window)
    if compute_requires_grad(input):
        node = DiagonalBackward0(input)
        node.dim1, node.dim2, node.offset, node.self_sym_sizes = d1, d2, offset, input._data.shape
        set_history(out, node)
    return out


# --- stacking along existing dims: hstack, vstack, dstack, column_stack ------------------------------
def _at_least(tensor: Tensor, ndim: int) -> Tensor:
    """``atleast_1d/2d/3d``: a 0-d tensor becomes [1, ...] (a reshape), a vector a row [1, n], a
    matrix [m, n, 1] (unsqueezes, as PyTorch records them)."""
    shape = tensor._data.shape
    if len(shape) >= ndim:
        return tensor
    if not shape:
        return reshape(tensor, (1,) * ndim)
    if len(shape) == 1:
        tensor = unsqueeze(tensor, 0)
    return unsqueeze(tensor, -1) if ndim == 3 else tensor


def atleast_1d(*tensors: Any) -> Any:
    return _each(tensors, 1)


def atleast_2d(*tensors: Any) -> Any:
    return _each(tensors, 2)


def atleast_3d(*tensors: Any) -> Any:
    return _each(tensors, 3)


def _each(tensors: tuple, ndim: int) -> Any:
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        return tuple(_at_least(t, ndim) for t in tensors[0])
    results = tuple(_at_least(t, ndim) for t in tensors)
    return results[0] if len(results) == 1 else results


def _non_empty(tensors: Sequence[Tensor], name: str) -> list:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Side by side: along dim 1, or dim 0 for vectors."""
    tensors = [_at_least(t, 1) for t in _non_empty(tensors, "hstack")]
    return cat(tensors, 0 if tensors and tensors[0]._data.ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """One under the other: vectors become rows, then cat along dim 0."""
    return cat([_at_least(t, 2) for t in _non_empty(tensors, "vstack")], 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """In depth: every tensor made at least 3-d, then cat along dim 2."""
    return cat([_at_least(t, 3) for t in _non_empty(tensors, "dstack")], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Vectors (and numbers) become columns [n, 1]; then cat along dim 1."""
    return cat([reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in _non_empty(tensors, "column_stack")], 1)


def regenerate_grad_fn(view: Tensor) -> None:
    """A view whose memory changed in place since its grad_fn was made (through itself, its base or
    another view of the base) gets a new grad_fn: ``AsStridedBackward0`` of its window over the
    base, whose history now includes the change. PyTorch does this when ``grad_fn`` is read
    (``VariableHooks::grad_fn``); glasstorch when the view is next used by an op."""
    from .inplace import _rebase_history

    base = view._base
    view._view_version = view._version_counter[0]
    if not base._requires_grad:
        return
    node = AsStridedBackward0(base)
    size, stride, offset = _geometry(view)
    node.size, node.stride, node.storage_offset, node._offset = size, stride, offset, offset
    node._self_geometry = _geometry(base)
    node._input_metadata = view._data.shape, view._data.dtype
    _rebase_history(view, node)
