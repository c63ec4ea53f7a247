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

from .._tensor import Tensor, _normalize_dim, _wrap
from ..autograd.graph import Node
from ._util import set_history, normalize_dims, compute_requires_grad


def view_of(input: Tensor, data: np.ndarray) -> Tensor:
    """A tensor sharing ``input``'s memory and version counter (PyTorch: a view)."""
    out = _wrap(data)
    out._version_counter = input._version_counter
    out._base = input if input._base is None else input._base
    return out


def _sizes(size: tuple) -> tuple:
    """Accept both ``f(2, 3)`` and ``f((2, 3))`` as PyTorch does."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer, Tensor)):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


class ViewBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (grad.reshape(self.self_shape),)


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
        node.self_shape = self_shape
        set_history(out, node)
    return out


def view(input: Tensor, *shape: Any) -> Tensor:
    """Like ``reshape`` but never copies: an error if the memory layout does not allow a view."""
    if len(shape) == 1 and hasattr(shape[0], "numpy_dtype"):
        raise NotImplementedError("glasstorch does not reinterpret memory as another dtype: use .to(dtype)")
    shape = _sizes(shape)
    out = view_of(input, _reshape_values(input, shape, copy_allowed=False))
    if compute_requires_grad(input):
        node = ViewBackward0(input)
        node.self_shape = input._data.shape
        set_history(out, node)
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
    def backward(self, grad: Tensor) -> tuple:
        return (grad.reshape(self.self_shape),)


class SqueezeBackward1(SqueezeBackward0):
    """squeeze(dim) with one dim."""


class SqueezeBackward2(SqueezeBackward0):
    """squeeze(dims) with a tuple of dims."""


class SqueezeBackward4(SqueezeBackward0):
    """squeeze_(dim), in place: how matmul drops the dim it added to a 1-D operand."""


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
        node.self_shape = shape
        set_history(out, node)
    return out


class UnsqueezeBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (grad.squeeze(self.dim),)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at ``dim``."""
    axis = _normalize_dim(dim, input._data.ndim + 1)
    out = view_of(input, np.expand_dims(input._data, axis))
    if compute_requires_grad(input):
        node = UnsqueezeBackward0(input)
        node.dim = axis
        set_history(out, node)
    return out


class TransposeBackward0(Node):
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
    """``tensor.T``: all dims reversed (PyTorch records it as a permute)."""
    return permute(input, *reversed(range(input._data.ndim))) if input._data.ndim > 1 else input


def mT(input: Tensor) -> Tensor:  # noqa: N802
    """``tensor.mT``: the last two dims swapped (a batch of matrices transposed)."""
    if input._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(input, -2, -1)


class ExpandBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (grad.sum_to_size(self.self_shape),)


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
        node.self_shape = shape
        set_history(out, node)
    return out


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


class CatBackward0(Node):
    """Cut the gradient into the pieces that were concatenated."""

    def backward(self, grad: Tensor) -> tuple:
        pieces, start = [], 0
        for size, needed in zip(self.sizes, map(self.needs_input_grad, range(len(self.sizes)))):
            key = (slice(None),) * self.dim + (slice(start, start + size),)
            pieces.append(grad[key] if needed else None)
            start += size
        return tuple(pieces)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise ValueError("glasstorch.cat(): expected a non-empty list of Tensors")
    from ._util import promoted

    arrays = promoted(*tensors)
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
        node.dim, node.sizes = axis, [t._data.shape[axis] for t in tensors]
        set_history(out, node)
    return out


concat = concatenate = cat


class StackBackward0(Node):
    """Give each stacked tensor its slice of the gradient."""

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
    from ._util import promoted

    axis = _normalize_dim(dim, tensors[0]._data.ndim + 1)
    out = _wrap(np.stack(promoted(*tensors), axis=axis))
    if compute_requires_grad(*tensors):
        node = StackBackward0(*tensors)
        node.dim = axis
        set_history(out, node)
    return out
