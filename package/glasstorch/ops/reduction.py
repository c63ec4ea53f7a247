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
from .._typename import scalar_type_name
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node, SavedTensor
from ._arguments import normalize_dims
from ._util import compute_requires_grad, set_history


def _restore_dims(grad: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """Give back to ``grad`` the dims a reduction removed (as size 1), ready to broadcast."""
    if keepdim or not dims:
        return grad
    shape = list(grad._data.shape)
    for d in dims:  # dims are sorted, so each insertion lands where the dim was
        shape.insert(d, 1)
    return grad.reshape(shape)


def _reduced(dim: Any, ndim: int) -> tuple:
    """The dims a reduction over ``dim`` removes (``normalize_dims``). A 0-dim tensor has none,
    though PyTorch accepts dim 0 or -1 for it (as if it had one dim of size 1)."""
    dims = normalize_dims(dim, ndim)
    return dims if ndim else ()


def _reduce_args(input: Tensor, dim: Any) -> tuple:
    return _reduced(dim, input._data.ndim), dim is None


def _as_given(dim: Any) -> tuple:
    """The dims as the call gave them, which is what PyTorch saves (-1 stays -1, the order stays)."""
    return (int(dim),) if isinstance(dim, (int, np.integer)) else tuple(int(d) for d in dim)


class SumBackward0(Node):
    """out = self.sum():  every element gets the whole gradient."""

    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (grad.expand(self.self_sym_sizes),)


class SumBackward1(Node):
    """out = self.sum(dim):  every element of a summed slice gets that slice's gradient."""

    dim: tuple
    keepdim: bool
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        dims = _reduced(self.dim, len(self.self_sym_sizes))
        return (_restore_dims(grad, dims, self.keepdim).expand(self.self_sym_sizes),)


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    dims, full = _reduce_args(input, dim)
    data = input._data
    if dtype is not None:
        data = data.astype(dtypes.canonical(dtype).numpy_dtype)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64)  # PyTorch sums integers (and bools) as int64
    out = _wrap(np.asarray(data.sum(axis=dims, keepdims=keepdim)))
    if compute_requires_grad(input):
        if full:
            node = SumBackward0(input)
        else:
            node = SumBackward1(input)
            node.dim, node.keepdim = _as_given(dim), keepdim
        node.self_sym_sizes = input._data.shape
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
    node.dim, node.keepdim, node.self_sym_sizes = dims, True, have
    out = set_history(_wrap(summed), node)
    return out.reshape(shape) if lead else out


class MeanBackward0(Node):
    """out = self.mean():  every element gets the gradient divided by the number of elements."""

    self_sym_numel: int
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (grad.expand(self.self_sym_sizes) / self.self_sym_numel,)


class MeanBackward1(Node):
    """out = self.mean(dim):  each element gets its slice's gradient divided by the slice's size."""

    dim: tuple
    keepdim: bool
    self_sym_numel: int
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        dims = _reduced(self.dim, len(self.self_sym_sizes))
        count = math.prod(self.self_sym_sizes[d] for d in dims)  # the size of each averaged slice
        return (_restore_dims(grad, dims, self.keepdim).expand(self.self_sym_sizes) / count,)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dtype is None and not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {scalar_type_name(input.dtype)}"
        )
    if dtype is not None and not dtypes.canonical(dtype).is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
            f"complex dtype. Got: {scalar_type_name(dtypes.canonical(dtype))}"
        )
    dims, full = _reduce_args(input, dim)
    data = input._data if dtype is None else input._data.astype(dtypes.canonical(dtype).numpy_dtype)
    count = math.prod(data.shape[d] for d in dims)
    # sum / count, as ndarray.mean computes it (float16 summed in float32), without its slow Python
    total = data.sum(axis=dims, keepdims=keepdim, dtype=np.float32 if data.dtype == np.float16 else None)
    with np.errstate(invalid="ignore"):  # the mean of no elements is nan, silently, as in PyTorch
        out = _wrap(np.asarray(total / count, dtype=data.dtype))
    if compute_requires_grad(input):
        if full:
            node = MeanBackward0(input)
        else:
            node = MeanBackward1(input)
            node.dim, node.keepdim = _as_given(dim), keepdim
        node.self_sym_numel, node.self_sym_sizes = input._data.size, input._data.shape
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

    self_: SavedTensor
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (evenly_distribute_backward(grad, self._saved_self, self._saved_result, self._reduced_dims(),
                                           self._kept()),)

    def _reduced_dims(self) -> tuple:
        return tuple(range(self.self_.data.ndim))  # a full max/min reduces every dim

    def _kept(self) -> bool:
        return False


def evenly_distribute_backward(grad: Tensor, self_: Tensor, result: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """The gradient of an extreme value (or a median) of ``self_`` over ``dims``: shared evenly by the
    elements equal to it (PyTorch's ``evenly_distribute_backward``); a NaN result by the NaNs."""
    kept = _restore_dims(result, dims, keepdim)._data
    winners = (self_._data == kept) | (np.isnan(self_._data) & np.isnan(kept))
    count = winners.sum(axis=dims, keepdims=True)
    share = _restore_dims(grad, dims, keepdim) / _wrap(count.astype(grad._data.dtype))
    return share * _wrap(winners)


class MaxBackward1(_EvenlyDistributed):
    pass


class MinBackward1(_EvenlyDistributed):
    pass


class AmaxBackward0(_EvenlyDistributed):
    dim: tuple
    keepdim: bool

    def _reduced_dims(self) -> tuple:
        return _reduced(self.dim or None, self.self_.data.ndim)  # dim=(): every dim

    def _kept(self) -> bool:
        return self.keepdim


class AminBackward0(AmaxBackward0):
    pass


class _IndexedReduction(Node):
    """Backward of max(dim)/min(dim): the gradient goes to the one index each result came from."""

    dim: int
    keepdim: bool
    indices_: SavedTensor
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        if not self.self_sym_sizes:  # a 0-dim input: its one element was picked
            return (grad,)
        (dim,) = normalize_dims(self.dim, len(self.self_sym_sizes))
        one_hot = np.zeros(self.self_sym_sizes, dtype=bool)
        indices = self._saved_indices._data
        indices = np.expand_dims(indices, dim) if not self.keepdim else indices
        np.put_along_axis(one_hot, indices, True, axis=dim)
        return (_restore_dims(grad, (dim,), self.keepdim) * _wrap(one_hot),)


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
            node.self_, node.result_ = SavedTensor(input), SavedTensor(out, is_output=True)
            set_history(out, node)
        return out
    (axis,) = normalize_dims(dim, data.ndim) if data.ndim else (0,)
    rows = data.reshape(data.shape or (1,))  # (a 0-dim tensor as one row of one element)
    indices = np.asarray(rows.argmax(axis=axis) if largest else rows.argmin(axis=axis))
    values = np.take_along_axis(rows, np.expand_dims(indices, axis), axis=axis)
    if not keepdim:
        values = np.squeeze(values, axis=axis)
    else:
        indices = np.expand_dims(indices, axis)
    shape = values.shape if data.ndim else ()
    out, indices = _wrap(values.reshape(shape)), _wrap(indices.astype(np.int64).reshape(shape))
    if compute_requires_grad(input):
        node = (MaxBackward0 if largest else MinBackward0)(input)
        node.dim, node.keepdim, node.self_sym_sizes = int(dim), keepdim, data.shape
        node.indices_ = SavedTensor(indices, is_output=True)  # output 1: the indices
        set_history(out, node)
    return (return_types_max if largest else return_types_min)(out, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max()``: the largest value. ``max(dim)``: ``(values, indices)`` along ``dim``."""
    return _extreme(input, dim, keepdim, largest=True)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return _extreme(input, dim, keepdim, largest=False)


def _amax_amin(input: Tensor, dim: Any, keepdim: bool, largest: bool) -> Tensor:
    ndim = input._data.ndim
    dims = tuple(range(ndim)) if dim is None or dim == () else _reduced(dim, ndim)
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
        node.dim, node.keepdim = _as_given(() if dim is None else dim), keepdim
        node.self_, node.result_ = SavedTensor(input), SavedTensor(out, is_output=True)
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
    if input._data.ndim == 0:
        _reduced(dim, 0)  # (checks the dim)
        return _wrap(np.zeros((), dtype=np.int64))
    (axis,) = normalize_dims(dim, input._data.ndim)
    return _wrap(np.asarray(input._data.argmax(axis=axis, keepdims=keepdim), dtype=np.int64))


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return _wrap(np.asarray(input._data.argmin(), dtype=np.int64))
    if input._data.ndim == 0:
        _reduced(dim, 0)  # (checks the dim)
        return _wrap(np.zeros((), dtype=np.int64))
    (axis,) = normalize_dims(dim, input._data.ndim)
    return _wrap(np.asarray(input._data.argmin(axis=axis, keepdims=keepdim), dtype=np.int64))


# --- variance -------------------------------------------------------------------------------
class VarBackward0(Node):
    """out = sum((x - mean)**2) / (N - correction):  d/dx = grad * 2 (x - mean) / (N - correction)."""

    correction: Any
    dim: tuple | None
    keepdim: bool
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        dims = _reduced(self.dim, self_._data.ndim)
        count = math.prod(self_._data.shape[d] for d in dims)
        centred = self_ - self_.mean(dims, keepdim=True)
        degrees = builtins.max(0, count - (1 if self.correction is None else self.correction))
        scale = 2.0 / degrees if degrees else float("inf")  # PyTorch: inf, and so a nan gradient
        return (_restore_dims(grad, dims, self.keepdim) * centred * scale,)


def var(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    """Variance; by default the unbiased estimate (``correction=1``), as in PyTorch."""
    if isinstance(dim, bool):  # var(unbiased) in the old positional form
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _reduced(dim, input._data.ndim)
    count = int(np.prod([input._data.shape[d] for d in dims], dtype=np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.var(input._data, axis=dims, ddof=correction, keepdims=keepdim) if count > correction else \
            np.full(_reduced_shape(input._data.shape, dims, keepdim), np.nan, dtype=input._data.dtype)
    out = _wrap(np.asarray(values, dtype=input._data.dtype))
    if compute_requires_grad(input):
        node = VarBackward0(input)
        node.dim, node.keepdim, node.self_ = None if dim is None else dims, keepdim, SavedTensor(input)
        node.correction = _saved_correction(dim, unbiased, correction)
        set_history(out, node)
    return out


def _saved_correction(dim: Any, unbiased: bool | None, correction: Any) -> Any:
    """The correction as PyTorch's var/std Nodes keep it: None for the default of a full reduction."""
    if correction is None:
        correction = 0 if unbiased is False else 1
    return None if dim is None and correction == 1 else correction


def _reduced_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)


# --- softmax --------------------------------------------------------------------------------
class SoftmaxBackward0(Node):
    """d softmax:  grad_in = out * (grad - sum(grad * out, dim))."""

    dim: int
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        if result._data.ndim == 0:  # the softmax of one number is 1, whatever the number
            return (grad * 0,)
        return (result * (grad - (grad * result).sum(self.dim, keepdim=True)),)


class LogSoftmaxBackward0(Node):
    """d log_softmax:  grad_in = grad - exp(out) * sum(grad, dim)."""

    dim: int
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        if grad._data.ndim == 0:  # the log_softmax of one number is 0, whatever the number
            return (grad * 0,)
        return (grad - self._saved_result.exp() * grad.sum(self.dim, keepdim=True),)


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


def _shifted(input: Tensor, axis: int, dtype: Any, name: str) -> np.ndarray:
    data = input._data if dtype is None else input._data.astype(dtypes.canonical(dtype).numpy_dtype)
    if data.dtype.kind in "biu":  # PyTorch has no integer kernel: dtype= must ask for a float
        kernel = f"{name}_lastdim_kernel_impl" if axis == builtins.max(data.ndim - 1, 0) else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'")
    if data.ndim == 0:
        return data - data
    # subtracting the max keeps exp from overflowing and does not change the result
    return data - data.max(axis=axis, keepdims=True)


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    axis = _softmax_dim(input, dim, "softmax")
    exps = np.exp(_shifted(input, axis, dtype, "softmax"))
    out = _wrap(exps / exps.sum(axis=axis, keepdims=True) if exps.ndim else exps)
    if compute_requires_grad(input):
        node = SoftmaxBackward0(input)
        node.dim, node.result_ = axis if dim is None else int(dim), SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    axis = _softmax_dim(input, dim, "log_softmax")
    shifted = _shifted(input, axis, dtype, "log_softmax")
    out = _wrap(shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True)) if shifted.ndim else shifted)
    if compute_requires_grad(input):
        node = LogSoftmaxBackward0(input)
        node.dim, node.result_ = axis if dim is None else int(dim), SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axis = None if dim is None else _reduced(dim, input._data.ndim)
    return _wrap(np.asarray(np.all(input._data, axis=axis, keepdims=keepdim)))


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axis = None if dim is None else _reduced(dim, input._data.ndim)
    return _wrap(np.asarray(np.any(input._data, axis=axis, keepdims=keepdim)))


# --- norm, std, logsumexp, cumsum, cumprod (issue 14) ----------------------------------------------
def _float_input(input: Tensor, name: str) -> None:
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(input.dtype)}")


class LinalgVectorNormBackward0(Node):
    """out = (sum |x|**p) ** (1/p):  d/dx = grad * x |x|**(p-2) / out**(p-1); for p = 2 that is
    grad * x / out, for p = 1 grad * sign(x); for p = inf the gradient goes to the largest |x|
    (ties share it); for p = 0 (a count) there is none. Where out = 0 the gradient is 0."""

    dim: tuple | None
    keepdim: bool
    ord: float
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, result, p = self._saved_self, self._saved_result, self.ord
        dims = _reduced(self.dim, self_._data.ndim)
        grad, norm = _restore_dims(grad, dims, self.keepdim), _restore_dims(result, dims, self.keepdim)
        if p == 0:
            return (None,)  # a count: PyTorch returns no gradient at all, so .grad stays None
        if p == 1:
            return (grad * self_.sign(),)
        if math.isinf(p):
            winners = _wrap(np.abs(self_._data) == norm._data)
            count = _wrap(winners._data.sum(axis=dims, keepdims=True).astype(grad._data.dtype))
            return (self_.sign() * winners * (grad / count),)
        safe = norm.masked_fill(_wrap(norm._data == 0), 1.0)  # out = 0 only when x = 0: gradient 0 there
        if p == 2:
            return (grad * self_ / safe,)
        return (grad * self_ * self_.abs() ** (p - 2) / safe ** (p - 1),)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,
         dtype: Any = None) -> Tensor:
    """The vector p-norm over ``dim`` (all elements by default): ``p`` a number, ``inf``/``-inf``,
    or ``'fro'`` (= 2). PyTorch computes it with ``torch.linalg.vector_norm``, whose Node it records.
    Simplified: the matrix norm ``p='nuc'`` is not supported."""
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"glasstorch's norm supports vector norms only, not p={p!r} (use 'fro' or a number)")
    _float_input(input, "linalg.vector_norm")
    data = input._data if dtype is None else input._data.astype(dtypes.canonical(dtype).numpy_dtype)
    dims = _reduced(dim, data.ndim)
    absolute = np.abs(data)
    if p == 0:
        values = (absolute != 0).sum(axis=dims, keepdims=keepdim).astype(data.dtype)
    elif math.isinf(p):
        values = (absolute.max if p > 0 else absolute.min)(axis=dims, keepdims=keepdim)
    elif p == 2:
        values = np.sqrt((data * data).sum(axis=dims, keepdims=keepdim))
    else:
        with np.errstate(divide="ignore"):
            values = (absolute ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
    result = _wrap(np.asarray(values, dtype=data.dtype))
    if compute_requires_grad(input):
        node = LinalgVectorNormBackward0(input)
        node.ord, node.dim, node.keepdim = p, None if dim is None else dims, keepdim
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result if out is None else _write_out(out, result)


def _write_out(out: Tensor, result: Tensor) -> Tensor:
    from ._arguments import write_out

    return write_out(out, result)


class StdBackward0(Node):
    """out = sqrt(var):  d/dx = grad * (x - mean) / ((N - correction) * out), and 0 where out = 0."""

    correction: Any
    dim: tuple | None
    keepdim: bool
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (_std_backward(self, grad, self._saved_result),)


def _std_backward(node: Node, grad: Tensor, result: Tensor) -> Tensor:
    """The gradient of std (saved ``result``) for a Node that saves std's state (StdBackward0,
    StdMeanBackward0)."""
    self_ = node._saved_self
    dims = _reduced(node.dim, self_._data.ndim)
    count = math.prod(self_._data.shape[d] for d in dims)
    degrees = builtins.max(0, count - (1 if node.correction is None else node.correction))
    centred = self_ - self_.mean(dims, keepdim=True)
    # as PyTorch's std_backward: d std = d var / (2 std), taken as 0 where std = 0
    grad_var = (grad / (result * 2)).masked_fill(_wrap(result._data == 0), 0.0)
    scale = _restore_dims(grad_var, dims, node.keepdim) * 2
    return scale * centred / degrees if degrees else scale * centred * float("inf")


def std(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    """Standard deviation: the square root of ``var`` (``correction=1``, Bessel's, by default)."""
    if isinstance(dim, bool):  # std(unbiased) in the old positional form
        dim, unbiased = None, dim
    variance = var(input.detach(), dim, unbiased, keepdim, correction=correction)
    result = _wrap(np.sqrt(variance._data))
    if compute_requires_grad(input):
        node = StdBackward0(input)
        node.dim, node.keepdim = None if dim is None else normalize_dims(dim, input._data.ndim), keepdim
        node.correction = _saved_correction(dim, unbiased, correction)
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result


class LogsumexpBackward0(Node):
    """out = log(sum(exp(x))):  d/dx = grad * exp(x - out), the softmax of x."""

    dim: tuple
    keepdim: bool
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, result = self._saved_self, self._saved_result
        kept = _restore_dims(result, self.dim, self.keepdim)
        return (_restore_dims(grad, self.dim, self.keepdim) * (self_ - kept).exp(),)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) over ``dim``, computed without overflow (the max is taken out first)."""
    data = input._data if input.dtype.is_floating_point else input._data.astype(dtypes.get_default_dtype().numpy_dtype)
    dims = _reduced(dim, data.ndim) if dim != () else tuple(range(data.ndim))
    if data.size:
        peak = data.max(axis=dims, keepdims=True)
        peak = np.where(np.isfinite(peak), peak, 0)  # all -inf (or an inf) must not give nan
    else:
        peak = np.zeros(_reduced_shape(data.shape, dims, True), data.dtype)
    with np.errstate(divide="ignore"):
        values = np.log(np.exp(data - peak).sum(axis=dims, keepdims=True)) + peak
    result = _wrap(np.asarray(values if keepdim else values.reshape(_reduced_shape(data.shape, dims, False)), data.dtype))
    if compute_requires_grad(input):
        node = LogsumexpBackward0(input)
        node.dim, node.keepdim = dims, keepdim
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result


def _scan_dtype(input: Tensor, dtype: Any) -> np.dtype:
    """cumsum and cumprod add integers (and bools) up in int64, as sum does."""
    if dtype is not None:
        return dtypes.canonical(dtype).numpy_dtype
    return np.dtype(np.int64) if input._data.dtype.kind in "biu" else input._data.dtype


def _reverse_cumsum(grad: Tensor, dim: int) -> Tensor:
    """Sum of grad over the positions at or after each one along ``dim``."""
    return grad.flip(dim).cumsum(dim).flip(dim)


class CumsumBackward0(Node):
    """out_j = sum_{i<=j} x_i:  d/dx_i = sum_{j>=i} grad_j, a cumulative sum from the end."""

    dim: int

    def backward(self, grad: Tensor) -> tuple:
        return (_reverse_cumsum(grad, self.dim) if grad._data.ndim else grad,)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None, out: Any = None) -> Tensor:
    data = input._data
    (axis,) = normalize_dims(dim, data.ndim) if data.ndim else (0,)
    result = _wrap(np.cumsum(data, axis=axis, dtype=_scan_dtype(input, dtype)).reshape(data.shape))
    if compute_requires_grad(input):
        node = CumsumBackward0(input)
        node.dim = axis
        set_history(result, node)
    return result if out is None else _write_out(out, result)


class CumprodBackward0(Node):
    """out_j = prod_{i<=j} x_i:  d/dx_i = sum_{j>=i} grad_j * out_j / x_i when no x is zero.
    With zeros along the dim, the division is replaced by the product of the others, built with
    a scan from the end (s_i = grad_i + x_{i+1} s_{i+1}; d/dx_i = s_i * prod_{k<i} x_k)."""

    dim: int
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, result = self._saved_self, self._saved_result
        if grad._data.ndim == 0:
            return (grad,)
        if (self_._data != 0).all():
            return (_reverse_cumsum(grad * result, self.dim) / self_,)
        return (_cumprod_grad_with_zeros(grad, self_, self.dim),)


def _cumprod_grad_with_zeros(grad: Tensor, x: Tensor, dim: int) -> Tensor:
    from .shape import stack

    n = x._data.shape[dim]
    grads, xs = grad.unbind(dim), x.unbind(dim)
    before = [xs[0] * 0 + 1]  # prod_{k<i} x_k
    for i in range(1, n):
        before.append(before[-1] * xs[i - 1])
    scan = [grads[n - 1]]
    for i in range(n - 2, -1, -1):
        scan.append(grads[i] + xs[i + 1] * scan[-1])
    scan.reverse()
    return stack([s * b for s, b in zip(scan, before)], dim)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None, out: Any = None) -> Tensor:
    data = input._data
    (axis,) = normalize_dims(dim, data.ndim) if data.ndim else (0,)
    result = _wrap(np.cumprod(data, axis=axis, dtype=_scan_dtype(input, dtype)).reshape(data.shape))
    if compute_requires_grad(input):
        node = CumprodBackward0(input)
        node.dim = axis
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result if out is None else _write_out(out, result)


def _product_of_others(x: Tensor, dim: int) -> Tensor:
    """For each element, the product of the others along ``dim``: (product of those before) *
    (product of those after), two cumulative products. No division, so zeros are fine."""
    n = x.shape[dim]
    one = x.narrow(dim, 0, 1) * 0 + 1
    before = _cat_along(dim, one, x.narrow(dim, 0, n - 1)).cumprod(dim)
    after = _cat_along(dim, x.narrow(dim, 1, n - 1), one).flip(dim).cumprod(dim).flip(dim)
    return before * after


def _cat_along(dim: int, *tensors: Tensor) -> Tensor:
    from .shape import cat

    return cat(tensors, dim)


class ProdBackward0(Node):
    """out = prod(self):  d/dx_i = grad * prod_{j != i} x_j."""

    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        if self_._data.size == 0:
            return (self_ * 0,)
        return (grad * _product_of_others(self_.reshape(-1), 0).reshape(self_.shape),)


class ProdBackward1(Node):
    """out = prod(self, dim):  d/dx_i = grad * (product of the others in x_i's slice)."""

    dim: int
    keepdim: bool
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        if self_._data.size == 0:
            return (self_ * 0,)
        if self_._data.ndim == 0:  # the product of one number is that number
            return (grad,)
        return (_restore_dims(grad, (self.dim,), self.keepdim) * _product_of_others(self_, self.dim),)


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The product of all elements, or of each slice along ``dim``; integers (and bools) multiply
    in int64, as ``sum`` adds them."""
    data = input._data
    target = _scan_dtype(input, dtype)
    if dim is None:
        values, node = np.asarray(np.prod(data, dtype=target)), ProdBackward0
    else:
        (axis,) = normalize_dims(dim, data.ndim) if data.ndim else (0,)
        values = np.prod(data.reshape(data.shape or (1,)), axis=axis, keepdims=keepdim, dtype=target)
        values, node = values.reshape(values.shape if data.ndim else ()), ProdBackward1
    result = _wrap(np.asarray(values))
    if compute_requires_grad(input):
        node = node(input)
        if dim is not None:
            node.dim, node.keepdim = axis, keepdim
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result


class _PairOutputNode(Node):
    """One output of an op that returns two tensors from one Node in PyTorch (``var_mean``,
    ``aminmax``). Simplified: glasstorch's Nodes have one output, so each output gets its own
    Node of PyTorch's name and saved state; ``_output_nr`` says which output it is."""

    _output_nr: int = 0


class VarMeanBackward0(_PairOutputNode):
    """(var, mean) = var_mean(self):  output 0 as VarBackward0, output 1 as MeanBackward1."""

    correction: Any
    dim: tuple | None
    keepdim: bool
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        if self._output_nr == 0:
            return VarBackward0.backward(self, grad)  # (var's saved state under the same names)
        return (_mean_backward(grad, _reduced(self.dim, self_._data.ndim), self.keepdim, self_._data.shape),)


class StdMeanBackward0(_PairOutputNode):
    """(std, mean) = std_mean(self):  output 0 as StdBackward0, output 1 as MeanBackward1.
    PyTorch saves the std as ``result0``."""

    correction: Any
    dim: tuple | None
    keepdim: bool
    result0_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        if self._output_nr == 0:
            return (_std_backward(self, grad, self._saved_result0),)
        return (_mean_backward(grad, _reduced(self.dim, self_._data.ndim), self.keepdim, self_._data.shape),)


def _mean_backward(grad: Tensor, dims: tuple, keepdim: bool, sizes: tuple) -> Tensor:
    count = math.prod(sizes[d] for d in dims)
    return _restore_dims(grad, dims, keepdim).expand(sizes) / count


def _statistic_and_mean(statistic: Any, node_class: type, input: Tensor, dim: Any, unbiased: Any, keepdim: bool,
                        correction: Any) -> tuple:
    """``(statistic(input), mean(input))`` over the same dims, each output recorded by a ``node_class``
    (VarMeanBackward0, StdMeanBackward0) that saves what the statistic's own Node saves."""
    if isinstance(dim, bool):  # var_mean(unbiased) in the old positional form
        dim, unbiased = None, dim
    if not input.dtype.is_floating_point:
        name = "var_mean" if node_class is VarMeanBackward0 else "std_mean"
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    with no_grad():
        spread = statistic(input, dim, unbiased, keepdim, correction=correction)
        average = mean(input, tuple(range(input.dim())) if dim is None else dim, keepdim)
    if compute_requires_grad(input):
        for output_nr, out in enumerate((spread, average)):
            node = node_class(input)
            node.correction, node.keepdim = _saved_correction(dim, unbiased, correction), keepdim
            node.self_ = SavedTensor(input)
            node.dim = normalize_dims(dim, input._data.ndim) if dim is not None else None
            if node_class is StdMeanBackward0:
                node.result0_ = SavedTensor(spread, is_output=output_nr == 0)
            node._output_nr = output_nr
            set_history(out, node)
    return spread, average


def var_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """``(var, mean)`` over the same dims, in one call (PyTorch's ``torch.var_mean``). Simplified:
    PyTorch records one ``VarMeanBackward0`` Node for both outputs; glasstorch records one for each."""
    return _statistic_and_mean(var, VarMeanBackward0, input, dim, unbiased, keepdim, correction)


def std_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """``(std, mean)`` over the same dims, in one call (PyTorch's ``torch.std_mean``). Simplified:
    PyTorch records one ``StdMeanBackward0`` Node for both outputs; glasstorch records one for each."""
    return _statistic_and_mean(std, StdMeanBackward0, input, dim, unbiased, keepdim, correction)
