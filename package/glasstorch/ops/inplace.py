"""In-place operations: ``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_``, ``x += y``, ``x[i] = v`` ...

An in-place op overwrites a tensor's memory, which is dangerous for autograd in two ways:

* a leaf that requires grad must keep its values (they are what the gradient is *about*), so
  changing one in place is an error while grad mode is on;
* a Node may have saved the old values for its backward. Every in-place op therefore bumps the
  tensor's version counter, and backward refuses a saved tensor whose version changed.

When the op must be recorded, glasstorch computes it out of place on a snapshot of the old values,
writes the result into the tensor's memory and gives the tensor the new ``grad_fn`` (whose input
edge is the old one). PyTorch does the same bookkeeping ("rebasing history", ``rebase_history`` in
``torch/csrc/autograd/VariableTypeUtils.h``).

Through a *view* the change lands in the base's memory too, so the base's history is rewritten:
its new grad_fn is ``CopySlices`` (``torch/csrc/autograd/functions/tensor.cpp``), which wraps the
op's Node and applies it to the view's window of the gradient only; the view's grad_fn becomes
``AsStridedBackward0``, its window over the base. Other views of the base get theirs when next
used (``ops/shape.py``, ``regenerate_grad_fn``; PyTorch: when their ``grad_fn`` is read).
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .. import dtypes, storage
from .._autograd_state import _GradMode, _InferenceMode
from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import INFERENCE_INPLACE_MESSAGE, Node
from . import arithmetic, comparison, indexing, pointwise, shape
from ._elementwise import data_of, shape_of
from ._util import compute_requires_grad, reduce_grad_to, set_history


def check_inplace(tensor: Tensor) -> None:
    """PyTorch's errors for in-place changes that would corrupt the graph."""
    if tensor._is_inference and not _InferenceMode.enabled:
        raise RuntimeError(INFERENCE_INPLACE_MESSAGE)  # it has no version counter to count the change
    if not compute_requires_grad(tensor):
        return
    if tensor.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = tensor._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _has_internal_overlap(data: np.ndarray) -> bool:
    """Do two places of the array share a memory cell? (PyTorch's ``has_internal_overlap``: it
    answers yes for a stride 0 over more than one place, as ``expand`` makes. An empty array has no
    places: numpy gives it stride 0, which is no overlap.)"""
    return data.size > 0 and any(step == 0 and n > 1 for step, n in zip(data.strides, data.shape))


def check_no_internal_overlap(tensor: Tensor) -> None:
    """An expanded tensor (stride 0) shows one memory cell in several places: writing to it is refused."""
    if _has_internal_overlap(tensor._data):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


def _fills_one_value(out_of_place: Callable, args: tuple) -> bool:
    """PyTorch's ``fill_`` (``zero_``, ``x[0] = 5.0``) and ``masked_fill_`` write one value to every
    place, which is well defined on an expanded tensor: they may (masked_fill_ with PyTorch's
    deprecation warning). Every other in-place op refuses it."""
    if out_of_place is indexing.masked_fill:
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar",
                      UserWarning, stacklevel=4)
        return True
    return out_of_place is _filled or (out_of_place is indexing.index_put and not isinstance(args[1], Tensor))


def _writable_memory(tensor: Tensor, fills_one_value: bool = False) -> np.ndarray:
    """The array to write ``tensor``'s new values into. numpy marks an expanded array and the views
    cut from it read-only; their memory is not, and PyTorch writes there when no two places of the
    tensor share a cell (or when one value fills them all)."""
    if not fills_one_value:
        check_no_internal_overlap(tensor)
    data = tensor._data
    if data.flags.writeable:
        return data
    return storage.strided_window(data, data.shape, storage.element_strides(data), storage.storage_offset(data))


def _write(tensor: Tensor, values: np.ndarray, fills_one_value: bool = False) -> Tensor:
    """Overwrite ``tensor``'s memory (views see it) and count the change."""
    target = _writable_memory(tensor, fills_one_value)
    if np.dtype(values.dtype) != tensor._data.dtype and not np.can_cast(values.dtype, tensor._data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {_c10_name(values.dtype)} can't be cast to the desired output type {_c10_name(tensor._data.dtype)}"
        )
    target[...] = values
    tensor._version_counter[0] += 1
    return tensor


def _c10_name(np_dtype: np.dtype) -> str:
    return scalar_type_name(dtypes.from_numpy_dtype(np.dtype(np_dtype)))


def apply_inplace(tensor: Tensor, out_of_place: Callable, *args: Any, **kwargs: Any) -> Tensor:
    """Run ``out_of_place(tensor, *args)`` and store its result in ``tensor`` itself."""
    check_inplace(tensor)
    fills = _has_internal_overlap(tensor._data) and _fills_one_value(out_of_place, args)
    recording = compute_requires_grad(tensor, *args, *kwargs.values())
    if tensor._creation_meta is not None:
        handle_view_on_rebase(tensor, recording)
    if not recording:
        return _write(tensor, out_of_place(_wrap(tensor._data), *args, **kwargs)._data, fills)
    is_view = tensor._base is not None
    if is_view and tensor._view_version != tensor._version_counter[0]:
        shape.regenerate_grad_fn(tensor)
    old = _wrap(tensor._data.copy())  # the old values, for Nodes that need them in backward
    old.grad_fn, old._requires_grad = tensor.grad_fn, tensor._requires_grad
    result = out_of_place(old, *args, **kwargs)
    _write(tensor, result._data, fills)
    if is_view:
        _rebase_view_history(tensor, result.grad_fn)
    else:
        _rebase_history(tensor, result.grad_fn)
    return tensor


def handle_view_on_rebase(view: Tensor, recording: bool) -> None:
    """PyTorch's refusals of an in-place change through a view whose history cannot be rewritten
    (``handle_view_on_rebase`` in ``torch/csrc/autograd/variable.cpp``): a view made in no_grad mode
    of a tensor that requires grad, changed with grad mode on (PyTorch counts such a view as
    requiring grad), and one output of an op that returns several views, changed with recording."""
    meta = view._creation_meta
    if meta == shape.NO_GRAD_MODE:
        if not _GradMode.enabled:
            return
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
            "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
            "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside "
            "(if you want the inplace to be tracked).")
    if not recording:
        return
    position, name = meta
    current = None if view.grad_fn is None else view.grad_fn.name().rsplit("Backward", 1)[0]
    if current is not None and current != name:  # a view of the piece: PyTorch names the piece's own view op
        position, name = 0, current
    raise RuntimeError(
        f"Output {position} of {name} is a view and is being modified inplace. This view is the output of a function "
        "that returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
        "replace the inplace operation by an out-of-place one.")


def _rebase_view_history(view: Tensor, fn: Node) -> None:
    """The op ``fn`` changed ``view`` in place: the base now comes out of ``CopySlices(fn)``, and
    the view out of its window over the base (PyTorch's ``rebase_history`` for a view)."""
    base = view._base
    copy_slices = CopySlices(base, shape._geometry(view), fn)
    copy_slices._input_metadata = base._data.shape, base._data.dtype
    _rebase_history(base, copy_slices)
    shape.regenerate_grad_fn(view)


class CopySlices(Node):
    """The base's grad_fn after an in-place op ``fn`` changed a view of it (``torch/csrc/autograd/
    functions/tensor.cpp``). Backward: lay the gradient out as the base is laid out, run ``fn``'s
    backward on the view's window of it, and write fn's gradient for the old view values back into
    that window; the rest of the base's gradient passes unchanged. Its edges: the base's old
    history, then fn's edges to its other inputs."""

    def __init__(self, base: Tensor, view_geometry: tuple, fn: Node) -> None:
        super().__init__(base)
        self._next = self._next + fn._next[1:]
        self._base_geometry, self._view_geometry, self.fn = shape._geometry(base), view_geometry, fn

    def backward(self, grad: Tensor) -> tuple:
        (base_size, base_stride, base_offset), (view_size, view_stride, view_offset) = self._base_geometry, self._view_geometry
        span = max(int(shape._positions(size, stride, 0).max(initial=0)) for size, stride in
                   ((base_size, base_stride), (view_size, view_stride))) + 1 + view_offset - base_offset
        memory = _wrap(np.zeros(span, dtype=grad._data.dtype))  # grad.new_empty_strided(base's sizes and strides)
        result = shape.as_strided(memory, base_size, base_stride, 0)
        copy_(result, grad)
        grad_slice = shape.as_strided(memory, view_size, view_stride, view_offset - base_offset)
        res = self.fn.backward(grad_slice.clone())
        if self.needs_input_grad(0):
            zero_(grad_slice) if res[0] is None else copy_(grad_slice, reduce_grad_to(res[0], view_size))
        return (result if self.needs_input_grad(0) else None,) + tuple(res[1:])

    def release_variables(self) -> None:
        self.fn.release_variables()


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
    if compute_requires_grad(tensor, other) or tensor._is_inference:
        return apply_inplace(tensor, out_of_place, other, **kwargs)  # (which checks, and records)
    if tensor._creation_meta is not None:
        handle_view_on_rebase(tensor, False)
    target = _writable_memory(tensor)
    value = data_of(other)
    if not (isinstance(value, np.ndarray) and value.dtype == tensor._data.dtype):  # else: same dtype, nothing to check
        _check_castable(tensor, other, ufunc)
    alpha = kwargs.get("alpha", 1)
    if alpha != 1:
        value = value * alpha
    try:
        ufunc(target, value, out=target, casting="unsafe")
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


def div_(tensor: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        return apply_inplace(tensor, arithmetic.div, other, rounding_mode=rounding_mode)
    return _ufunc_inplace(tensor, np.true_divide, other, arithmetic.div)


def pow_(tensor: Tensor, exponent: Any) -> Tensor:
    return apply_inplace(tensor, arithmetic.pow, exponent)


def float_power_(tensor: Tensor, exponent: Any) -> Tensor:
    """``float_power`` computes in float64, so only a float64 tensor can hold its result."""
    if tensor.dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(tensor.dtype)} but the "
                           "operation's result requires dtype Double")
    from .pointwise_more import float_power

    return apply_inplace(tensor, float_power, exponent)


# --- comparisons in place: x.lt_(y) writes 1 or 0 in x's own dtype --------------------------------
class _ComparisonBackward(Node):
    """A comparison written in place: its values (0 or 1) are flat in both operands, so every
    gradient is zero. PyTorch records it all the same (``LtBackward0`` against a number,
    ``LtBackward1`` against a tensor), so the tensor stays in the graph."""

    def backward(self, grad: Tensor) -> tuple:
        return tuple(grad * 0 if self.needs_input_grad(i) else None for i in range(len(self._next)))


# EqBackward0 ... GeBackward1: one pair per comparison, named as PyTorch names them
COMPARISON_NODES = {name: tuple(type(f"{name.capitalize()}Backward{i}", (_ComparisonBackward,),
                                     {"__module__": __name__}) for i in (0, 1))
                    for name in ("eq", "ne", "lt", "le", "gt", "ge")}
globals().update({node.__name__: node for nodes in COMPARISON_NODES.values() for node in nodes})


def _compared(input: Tensor, other: Any, name: str) -> Tensor:
    """``comparison(input, other)`` as 1 and 0 of input's dtype, with the Node of the in-place comparison."""
    out = _wrap(getattr(comparison, name)(input, other)._data.astype(input._data.dtype))
    if compute_requires_grad(input, other):
        number, tensor = COMPARISON_NODES[name]
        set_history(out, tensor(input, other) if isinstance(other, Tensor) else number(input))
    return out


def comparison_inplace(name: str) -> Callable:
    """``x.eq_(y)`` and its siblings."""
    def compare_(tensor: Tensor, other: Any) -> Tensor:
        return apply_inplace(tensor, _compared, other, name)

    compare_.__name__ = compare_.__qualname__ = name + "_"
    return compare_


def acosh_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, pointwise.without_derivative, pointwise.acosh, pointwise.AcoshBackward1)


def asinh_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, pointwise.without_derivative, pointwise.asinh, pointwise.AsinhBackward1)


def atanh_(tensor: Tensor) -> Tensor:
    return apply_inplace(tensor, pointwise.without_derivative, pointwise.atanh, pointwise.AtanhBackward1)


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
    """``tensor[key] = value``, recorded as PyTorch records it (``THPVariable_setitem``): integers
    and slices give a view, which takes the value in place (CopySlices on the base); an advanced key
    is an ``index_put_`` on the tensor itself (IndexPutBackward0), or on the view its integers and
    slices give when it mixes both."""
    key = indexing._as_numpy_key(key)
    indexing._check_bounds(tensor, key)
    if not indexing._is_advanced(key):
        apply_inplace(indexing.getitem(tensor, key), indexing.index_put, Ellipsis, value)
    elif indexing._index_put_only(key) or not compute_requires_grad(tensor, value):
        apply_inplace(tensor, indexing.index_put, key, value)
    else:
        basic, rest = indexing._split_advanced(key if isinstance(key, tuple) else (key,))
        apply_inplace(indexing._basic_index(tensor, basic), indexing.index_put, rest, value)


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
        node = indexing.CopyBackwards(input, src)
        node._key, node._self_shape, node._value_shape = Ellipsis, input._data.shape, src._data.shape
        node._value_dtype = src.dtype
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
