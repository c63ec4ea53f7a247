"""Reductions: sum, mean, max/min, amax/amin, var, and the softmax family.

(This module defines functions named ``sum``, ``max``, ``any`` ... as PyTorch does, so it reaches
Python's own through ``builtins``.)

A reduction's backward spreads the gradient of each result back over the elements it came from:
``sum`` copies it to every element, ``mean`` divides it evenly, ``max`` sends it to the winning
element(s). ``_restore_dims`` puts back the reduced dimensions (as size 1) so the gradient can
broadcast over them.
"""
from __future__ import annotations

import builtins
import math
from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import set_history, normalize_dims, compute_requires_grad


def _restore_dims(grad: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """Give back to ``grad`` the dims a reduction removed (as size 1), ready to broadcast."""
    if keepdim or not dims:
        return grad
    shape = list(grad._data.shape)
    for d in dims:  # dims are sorted, so each insertion lands where the dim was
        shape.insert(d, 1)
    return grad.reshape(shape)


def _reduce_args(input: Tensor, dim: Any) -> tuple:
    return normalize_dims(dim, input._data.ndim), dim is None


class SumBackward0(Node):
    """out = self.sum():  every element gets the whole gradient."""

    def backward(self, grad: Tensor) -> tuple:
        return (grad.expand(self.self_shape),)


class SumBackward1(Node):
    """out = self.sum(dim):  every element of a summed slice gets that slice's gradient.
    ``kept_shape`` is the result's shape with the summed dims kept (as size 1)."""

    def backward(self, grad: Tensor) -> tuple:
        if grad._data.shape != self.kept_shape:
            grad = grad.reshape(self.kept_shape)
        return (grad.expand(self.self_shape),)


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    dims, full = _reduce_args(input, dim)
    data = input._data
    if dtype is not None:
        data = data.astype(dtypes.canonical(dtype).numpy_dtype)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64)  # PyTorch sums integers (and bools) as int64
    out = _wrap(np.asarray(data.sum(axis=dims, keepdims=keepdim)))
    if compute_requires_grad(input):
        node = SumBackward0(input) if full else SumBackward1(input)
        node.self_shape, node.dims, node.keepdim = input._data.shape, dims, keepdim
        node.kept_shape = _reduced_shape(input._data.shape, dims, keepdim=True)
        set_history(out, node)
    return out


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum ``input`` down to ``size`` (the reverse of broadcasting ``size`` up to input's shape)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], (int, np.integer)) else tuple(size)
    have = input._data.shape
    lead = len(have) - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(have)}.")
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s != have[lead + i]:
            if s != 1:
                raise RuntimeError(f"size {list(shape)} is not expandable to size {list(have)}.")
            dims.append(lead + i)
    dims = tuple(dims)
    if not dims:
        return input
    # as PyTorch: a sum that keeps the dims (SumBackward1), then a view without the leading ones.
    # Every broadcast op's backward comes through here, so it skips sum()'s argument checks.
    summed = np.add.reduce(input._data, axis=dims, keepdims=True)  # (ndarray.sum, minus a Python layer)
    if not compute_requires_grad(input):
        return _wrap(summed.reshape(shape))
    node = SumBackward1(input)
    node.self_shape, node.dims, node.keepdim = have, dims, True
    node.kept_shape = summed.shape
    out = set_history(_wrap(summed), node)
    return out.reshape(shape) if lead else out


class MeanBackward0(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (grad.expand(self.self_shape) / self.count,)


class MeanBackward1(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (_restore_dims(grad, self.dims, self.keepdim).expand(self.self_shape) / self.count,)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dtype is None and not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input.dtype.legacy_name.replace('Tensor', '')}"
        )
    if dtype is not None and not dtypes.canonical(dtype).is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
            f"complex dtype. Got: {dtypes.canonical(dtype).legacy_name.replace('Tensor', '')}"
        )
    dims, full = _reduce_args(input, dim)
    data = input._data if dtype is None else input._data.astype(dtypes.canonical(dtype).numpy_dtype)
    count = math.prod(data.shape[d] for d in dims)
    # sum / count, as ndarray.mean computes it (float16 summed in float32), without its slow Python
    total = data.sum(axis=dims, keepdims=keepdim, dtype=np.float32 if data.dtype == np.float16 else None)
    with np.errstate(invalid="ignore"):  # the mean of no elements is nan, silently, as in PyTorch
        out = _wrap(np.asarray(total / count, dtype=data.dtype))
    if compute_requires_grad(input):
        node = MeanBackward0(input) if full else MeanBackward1(input)
        node.self_shape, node.dims, node.keepdim, node.count = input._data.shape, dims, keepdim, count
        set_history(out, node)
    return out


# --- max / min ------------------------------------------------------------------------------
def _return_type(name: str) -> type:
    """A named (values, indices) pair that prints like PyTorch's ``torch.return_types.max``."""
    base = namedtuple(name, ["values", "indices"])

    def __repr__(self) -> str:
        return f"glasstorch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


return_types_max = _return_type("max")
return_types_min = _return_type("min")


class _EvenlyDistributed(Node):
    """Backward of a full max/min or of amax/amin: the gradient goes to the elements equal to the
    result, shared evenly when there are ties (as PyTorch does)."""

    def backward(self, grad: Tensor) -> tuple:
        (self_, result) = self.saved_tensors
        kept = _restore_dims(result, self.dims, self.keepdim)
        winners = _wrap(self_._data == kept._data)
        count = winners._data.sum(axis=self.dims, keepdims=True)
        share = _restore_dims(grad, self.dims, self.keepdim) / _wrap(count.astype(grad._data.dtype))
        return (share * winners,)


class MaxBackward1(_EvenlyDistributed):
    pass


class MinBackward1(_EvenlyDistributed):
    pass


class AmaxBackward0(_EvenlyDistributed):
    pass


class AminBackward0(_EvenlyDistributed):
    pass


class _IndexedReduction(Node):
    """Backward of max(dim)/min(dim): the gradient goes to the one index each result came from."""

    def backward(self, grad: Tensor) -> tuple:
        one_hot = np.zeros(self.self_shape, dtype=bool)
        indices = np.expand_dims(self.indices, self.dim) if not self.keepdim else self.indices
        np.put_along_axis(one_hot, indices, True, axis=self.dim)
        return (_restore_dims(grad, (self.dim,), self.keepdim) * _wrap(one_hot),)


class MaxBackward0(_IndexedReduction):
    pass


class MinBackward0(_IndexedReduction):
    pass


def _extreme(input: Tensor, dim: Any, keepdim: bool, largest: bool) -> Any:
    name = "max" if largest else "min"
    if isinstance(dim, Tensor):  # max(a, b): the elementwise maximum
        from .comparison import maximum, minimum

        return (maximum if largest else minimum)(input, dim)
    if input._data.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        )
    data = input._data
    if dim is None:
        out = _wrap(np.asarray(data.max() if largest else data.min()))
        if compute_requires_grad(input):
            node = (MaxBackward1 if largest else MinBackward1)(input)
            node.dims, node.keepdim = tuple(range(data.ndim)), False
            node.save_for_backward(input, output=out)
            set_history(out, node)
        return out
    (axis,) = normalize_dims(dim, data.ndim)
    indices = np.asarray(data.argmax(axis=axis) if largest else data.argmin(axis=axis))
    values = np.take_along_axis(data, np.expand_dims(indices, axis), axis=axis)
    if not keepdim:
        values = np.squeeze(values, axis=axis)
    else:
        indices = np.expand_dims(indices, axis)
    out = _wrap(values)
    if compute_requires_grad(input):
        node = (MaxBackward0 if largest else MinBackward0)(input)
        node.self_shape, node.dim, node.keepdim, node.indices = data.shape, axis, keepdim, indices
        set_history(out, node)
    return (return_types_max if largest else return_types_min)(out, _wrap(indices.astype(np.int64)))


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max()``: the largest value. ``max(dim)``: ``(values, indices)`` along ``dim``."""
    return _extreme(input, dim, keepdim, largest=True)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return _extreme(input, dim, keepdim, largest=False)


def _amax_amin(input: Tensor, dim: Any, keepdim: bool, largest: bool) -> Tensor:
    ndim = input._data.ndim
    dims = tuple(range(ndim)) if dim is None or dim == () else normalize_dims(dim, ndim)
    name = "amax" if largest else "amin"
    if input._data.size == 0 and (dim is None or dim == ()):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    reduce = np.max if largest else np.min
    out = _wrap(np.asarray(reduce(input._data, axis=dims, keepdims=keepdim)))
    if compute_requires_grad(input):
        node = (AmaxBackward0 if largest else AminBackward0)(input)
        node.dims, node.keepdim = dims, keepdim
        node.save_for_backward(input, output=out)
        set_history(out, node)
    return out


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The largest values along ``dim`` (all dims by default); ties share the gradient."""
    return _amax_amin(input, dim, keepdim, largest=True)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(input, dim, keepdim, largest=False)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return _wrap(np.asarray(input._data.argmax(), dtype=np.int64))
    (axis,) = normalize_dims(dim, input._data.ndim)
    return _wrap(np.asarray(input._data.argmax(axis=axis, keepdims=keepdim), dtype=np.int64))


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return _wrap(np.asarray(input._data.argmin(), dtype=np.int64))
    (axis,) = normalize_dims(dim, input._data.ndim)
    return _wrap(np.asarray(input._data.argmin(axis=axis, keepdims=keepdim), dtype=np.int64))


# --- variance -------------------------------------------------------------------------------
class VarBackward0(Node):
    """out = sum((x - mean)**2) / (N - correction):  d/dx = grad * 2 (x - mean) / (N - correction)."""

    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        centred = self_ - self_.mean(self.dims, keepdim=True)
        degrees = builtins.max(0, self.count - self.correction)
        scale = 2.0 / degrees if degrees else float("inf")  # PyTorch: inf, and so a nan gradient
        return (_restore_dims(grad, self.dims, self.keepdim) * centred * scale,)


def var(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    """Variance; by default the unbiased estimate (``correction=1``), as in PyTorch."""
    if isinstance(dim, bool):  # var(unbiased) in the old positional form
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = normalize_dims(dim, input._data.ndim)
    count = int(np.prod([input._data.shape[d] for d in dims], dtype=np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.var(input._data, axis=dims, ddof=correction, keepdims=keepdim) if count > correction else \
            np.full(_reduced_shape(input._data.shape, dims, keepdim), np.nan, dtype=input._data.dtype)
    out = _wrap(np.asarray(values, dtype=input._data.dtype))
    if compute_requires_grad(input):
        node = VarBackward0(input)
        node.dims, node.keepdim, node.count, node.correction = dims, keepdim, count, correction
        node.save_for_backward(input)
        set_history(out, node)
    return out


def _reduced_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)


# --- softmax --------------------------------------------------------------------------------
class SoftmaxBackward0(Node):
    """d softmax:  grad_in = out * (grad - sum(grad * out, dim))."""

    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        return (result * (grad - (grad * result).sum(self.dim, keepdim=True)),)


class LogSoftmaxBackward0(Node):
    """d log_softmax:  grad_in = grad - exp(out) * sum(grad, dim)."""

    def backward(self, grad: Tensor) -> tuple:
        (result,) = self.saved_tensors
        return (grad - result.exp() * grad.sum(self.dim, keepdim=True),)


def _softmax_dim(input: Tensor, dim: Any, name: str) -> int:
    if dim is None:
        import warnings

        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
            UserWarning,
            stacklevel=4,
        )
        ndim = input._data.ndim
        dim = 0 if ndim in (0, 1, 3) else 1  # PyTorch's legacy choice
    (axis,) = normalize_dims(dim, input._data.ndim) if input._data.ndim else (0,)
    return axis


def _shifted(input: Tensor, axis: int, dtype: Any) -> np.ndarray:
    data = input._data if dtype is None else input._data.astype(dtypes.canonical(dtype).numpy_dtype)
    if data.dtype.kind in "biu":
        data = data.astype(dtypes.get_default_dtype().numpy_dtype)
    if data.ndim == 0:
        return data - data
    # subtracting the max keeps exp from overflowing and does not change the result
    return data - data.max(axis=axis, keepdims=True)


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    axis = _softmax_dim(input, dim, "softmax")
    exps = np.exp(_shifted(input, axis, dtype))
    out = _wrap(exps / exps.sum(axis=axis, keepdims=True) if exps.ndim else exps)
    if compute_requires_grad(input):
        node = SoftmaxBackward0(input)
        node.dim = axis
        node.save_for_backward(output=out)
        set_history(out, node)
    return out


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    axis = _softmax_dim(input, dim, "log_softmax")
    shifted = _shifted(input, axis, dtype)
    out = _wrap(shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True)) if shifted.ndim else shifted)
    if compute_requires_grad(input):
        node = LogSoftmaxBackward0(input)
        node.dim = axis
        node.save_for_backward(output=out)
        set_history(out, node)
    return out


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axis = None if dim is None else normalize_dims(dim, input._data.ndim)
    return _wrap(np.asarray(np.all(input._data, axis=axis, keepdims=keepdim)))


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axis = None if dim is None else normalize_dims(dim, input._data.ndim)
    return _wrap(np.asarray(np.any(input._data, axis=axis, keepdims=keepdim)))
