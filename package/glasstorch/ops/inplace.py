"""In-place operations: ``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_``, ``x += y``, ``x[i] = v`` ...

An in-place op overwrites a tensor's memory, which is dangerous for autograd in two ways:

* a leaf that requires grad must keep its values (they are what the gradient is *about*), so
  changing one in place is an error while grad mode is on;
* a Node may have saved the old values for its backward. Every in-place op therefore bumps the
  tensor's version counter, and backward refuses a saved tensor whose version changed.

When the op must be recorded, glasstorch computes it out of place on a snapshot of the old values,
writes the result into the tensor's memory and gives the tensor the new ``grad_fn`` (whose input
edge is the old one). PyTorch does the same bookkeeping ("rebasing history").
Simplified: PyTorch can also record an in-place change made through a *view* of a tensor that
requires grad (``CopySlices`` on the base); glasstorch raises an error in that case.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node
from . import arithmetic, indexing, pointwise
from ._elementwise import data_of, shape_of
from ._util import compute_requires_grad, reduce_grad_to, set_history


def check_inplace(tensor: Tensor) -> None:
    """PyTorch's errors for in-place changes that would corrupt the graph."""
    if not compute_requires_grad(tensor):
        return
    if tensor.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = tensor._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _write(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Overwrite ``tensor``'s memory (views see it) and count the change."""
    if np.dtype(values.dtype) != tensor._data.dtype and not np.can_cast(values.dtype, tensor._data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {_c10_name(values.dtype)} can't be cast to the desired output type {_c10_name(tensor._data.dtype)}"
        )
    tensor._data[...] = values
    tensor._version_counter[0] += 1
    return tensor


def _c10_name(np_dtype: np.dtype) -> str:
    return scalar_type_name(dtypes.from_numpy_dtype(np.dtype(np_dtype)))


def apply_inplace(tensor: Tensor, out_of_place: Callable, *args: Any, **kwargs: Any) -> Tensor:
    """Run ``out_of_place(tensor, *args)`` and store its result in ``tensor`` itself."""
    check_inplace(tensor)
    if not compute_requires_grad(tensor, *args, *kwargs.values()):
        return _write(tensor, out_of_place(_wrap(tensor._data), *args, **kwargs)._data)
    if tensor._base is not None:
        raise RuntimeError(
            "glasstorch does not record in-place changes made through a view of a tensor that requires grad "
            "(PyTorch rewrites the base's history with CopySlices). Change the base tensor, or work out of place."
        )
    old = _wrap(tensor._data.copy())  # the old values, for Nodes that need them in backward
    old.grad_fn, old._requires_grad = tensor.grad_fn, tensor._requires_grad
    result = out_of_place(old, *args, **kwargs)
    _write(tensor, result._data)
    _rebase_history(tensor, result.grad_fn)
    return tensor


def _rebase_history(tensor: Tensor, grad_fn: Node) -> None:
    """The tensor now comes out of ``grad_fn``; a retained gradient moves along with it."""
    if tensor._retains_grad and tensor.grad_fn is not None:
        tensor.grad_fn._retain_grad_ref = None  # retained once, at the new Node only
    tensor.grad_fn, tensor._requires_grad = grad_fn, True
    if tensor._retains_grad:
        tensor._retains_grad = False
        tensor.retain_grad()


# --- the fast path of arithmetic in place (optimizers, accumulators) ------------------------
def _ufunc_inplace(tensor: Tensor, ufunc: Any, other: Any, out_of_place: Callable, **kwargs: Any) -> Tensor:
    """``tensor = ufunc(tensor, other)`` straight into the tensor's memory when nothing is recorded."""
    if compute_requires_grad(tensor, other):
        return apply_inplace(tensor, out_of_place, other, **kwargs)
    value = data_of(other)
    if not (isinstance(value, np.ndarray) and value.dtype == tensor._data.dtype):  # else: same dtype, nothing to check
        _check_castable(tensor, other, ufunc)
    alpha = kwargs.get("alpha", 1)
    if alpha != 1:
        value = value * alpha
    try:
        ufunc(tensor._data, value, out=tensor._data, casting="unsafe")
    except ValueError:
        raise RuntimeError(
            f"output with shape {list(tensor._data.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(tensor._data.shape, shape_of(other)))}"
        ) from None
    tensor._version_counter[0] += 1
    return tensor


def _check_castable(tensor: Tensor, other: Any, ufunc: Any) -> None:
    """PyTorch refuses an in-place op whose result would not fit the tensor's dtype (float into int)."""
    result = dtypes.result_type(tensor, other)
    if ufunc is np.true_divide and not result.is_floating_point:
        result = dtypes.get_default_dtype()
    if result is not tensor.dtype and result._category > tensor.dtype._category:
        raise RuntimeError(
            f"result type {scalar_type_name(result)} can't be cast to the desired output type "
            f"{scalar_type_name(tensor.dtype)}"
        )


def add_(tensor: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return _ufunc_inplace(tensor, np.add, other, arithmetic.add, alpha=alpha)


def sub_(tensor: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return _ufunc_inplace(tensor, np.subtract, other, arithmetic.sub, alpha=alpha)


def mul_(tensor: Tensor, other: Any) -> Tensor:
    return _ufunc_inplace(tensor, np.multiply, other, arithmetic.mul)


def div_(tensor: Tensor, other: Any) -> Tensor:
    return _ufunc_inplace(tensor, np.true_divide, other, arithmetic.div)


def pow_(tensor: Tensor, exponent: Any) -> Tensor:
    return apply_inplace(tensor, arithmetic.pow, exponent)


def neg_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, arithmetic.neg)


def clamp_(tensor: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return apply_inplace(tensor, pointwise.clamp, min, max)


def relu_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, pointwise.relu)


def exp_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, pointwise.exp)


def masked_fill_(tensor: Tensor, mask: Tensor, value: Any) -> Tensor:
    return apply_inplace(tensor, indexing.masked_fill, mask, value)


def setitem(tensor: Tensor, key: Any, value: Any) -> None:
    """``tensor[key] = value``."""
    apply_inplace(tensor, indexing.index_put, key, value)


# --- filling --------------------------------------------------------------------------------
class ZeroBackward0(Node):
    """The old values were thrown away: no gradient reaches them."""

    def backward(self, grad: Tensor) -> tuple:
        return (grad * 0,)


class FillBackward2(ZeroBackward0):
    """PyTorch's name for the Node of ``fill_(number)`` (``FillBackward0`` is out-of-place ``fill``)."""


def _filled(input: Tensor, value: Any, node_class: type) -> Tensor:
    out = _wrap(np.full(input._data.shape, value, dtype=input._data.dtype))
    if compute_requires_grad(input):
        set_history(out, node_class(input))
    return out


def zero_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, _filled, 0, ZeroBackward0)


def fill_(tensor: Tensor, value: Any) -> Tensor:
    value = value.item() if isinstance(value, Tensor) else value
    return apply_inplace(tensor, _filled, value, FillBackward2)


class CopyBackwards(Node):
    """``self.copy_(src)``: the old values get no gradient; ``src`` gets it, in its own shape and dtype."""

    def backward(self, grad: Tensor) -> tuple:
        return (
            grad * 0 if self.needs_input_grad(0) else None,
            reduce_grad_to(grad.to(self._src_dtype), self._src_shape) if self.needs_input_grad(1) else None,
        )


def _copied(input: Tensor, src: Tensor) -> Tensor:
    try:
        values = np.broadcast_to(src._data, input._data.shape).astype(input._data.dtype)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({input._data.shape[-1] if input._data.ndim else 1}) must match the size of "
            f"tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at non-singleton dimension {max(input._data.ndim - 1, 0)}"
        ) from None
    out = _wrap(values)
    if compute_requires_grad(input, src):
        node = CopyBackwards(input, src)
        node._src_shape, node._src_dtype = src._data.shape, src.dtype
        set_history(out, node)
    return out


def copy_(tensor: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy ``src``'s values into ``tensor`` (broadcasting, converting the dtype)."""
    return apply_inplace(tensor, _copied, src)


# --- random fills (used to initialise parameters, under no_grad) ------------------------------
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    from ..random import _generator_of

    check_inplace(tensor)
    return _write(tensor, _generator_of(generator).uniform(a, b, tensor._data.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    from ..random import _generator_of

    check_inplace(tensor)
    return _write(tensor, _generator_of(generator).normal(mean, std, tensor._data.shape))
