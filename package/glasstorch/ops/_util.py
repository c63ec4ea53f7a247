"""What every op shares: deciding whether to record, wrapping results, PyTorch's type promotion
and broadcasting errors, and reducing a broadcast gradient back to its input's shape."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _normalize_dim, _wrap
from ..autograd.grad_mode import _GradMode
from ..autograd.graph import Node, SavedTensor, compute_requires_grad, set_history  # how an op joins the graph


def as_tensor_arg(value: Any, name: str = "input") -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a Tensor, not {type(value).__name__}")
    return value


def data_of(value: Any) -> Any:
    """The numpy array of a tensor; a Python number stays a number (numpy treats it as 'weak',
    the way PyTorch treats Python scalars)."""
    return value._data if isinstance(value, Tensor) else value


def promoted(*operands: Any, floating: bool = False) -> tuple:
    """The operands' values converted to PyTorch's result dtype, ready for a numpy ufunc.
    ``floating=True`` for ops such as true division whose result is always floating point."""
    result = dtypes.result_type(*operands)
    if floating and not result.is_floating_point:
        result = dtypes.get_default_dtype()
    target = result.numpy_dtype
    values = [data_of(v) for v in operands]
    if target == _BFLOAT16:  # numpy's bfloat16 (ml_dtypes) turns bfloat16 * 2.5 into float32: give it a bfloat16 number
        values = [v if isinstance(v, np.ndarray) else np.asarray(v, target) for v in values]
    return tuple(v.astype(target) if isinstance(v, np.ndarray) and v.dtype != target else v for v in values)


_BFLOAT16 = dtypes.bfloat16.numpy_dtype


def _needs_promotion(x: Any, y: Any, floating: bool) -> bool:
    """False in the common cases where numpy already computes in PyTorch's result dtype: two
    arrays of one dtype, a bool mask with another array, or an array and a Python number of the
    same or a lower category."""
    if isinstance(x, np.ndarray):
        kind = _category(x.dtype)
        if isinstance(y, np.ndarray):
            # numpy and PyTorch agree when the dtypes match or one side is a bool mask
            same = x.dtype == y.dtype or y.dtype == np.bool_ or x.dtype == np.bool_
            kind = max(kind, _category(y.dtype))
        else:
            same = _python_category(y) <= kind and x.dtype != _BFLOAT16
    elif isinstance(y, np.ndarray):
        kind = _category(y.dtype)
        same = _python_category(x) <= kind and y.dtype != _BFLOAT16
    else:
        return True
    return not same or (floating and kind < 2)


def _category(np_dtype: np.dtype) -> int:
    return 0 if np_dtype == np.bool_ else 1 if np_dtype.kind in "iu" else 2


def _python_category(value: Any) -> int:
    return 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2


def floating_data(tensor: Tensor) -> np.ndarray:
    """Data for a floating-point-only function (exp, log, ...): integers become the default dtype."""
    data = tensor._data
    if data.dtype.kind in "biu":
        return data.astype(dtypes.get_default_dtype().numpy_dtype)
    return data


def broadcast_error(shape_a: tuple, shape_b: tuple) -> RuntimeError:
    """PyTorch's message for shapes that do not broadcast (it reports the rightmost clash)."""
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    for i in range(ndim - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return RuntimeError(
                f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton dimension {i}"
            )
    return RuntimeError(f"shapes {list(shape_a)} and {list(shape_b)} cannot be broadcast together")


def shape_of(value: Any) -> tuple:
    return value._data.shape if isinstance(value, Tensor) else ()


def apply_binary(ufunc: Any, a: Any, b: Any, *, floating: bool = False, quiet: bool = False) -> np.ndarray:
    """``ufunc(a, b)`` with PyTorch's promotion and broadcasting errors. ``quiet=True`` for ops
    where inf and nan are ordinary results (1/0, (-1)**0.5): PyTorch returns them silently."""
    x = a._data if isinstance(a, Tensor) else a
    y = b._data if isinstance(b, Tensor) else b
    if _plain(x, y, floating):
        # the commonest cases first: nothing to convert
        try:
            return _quietly(ufunc, x, y) if quiet else np.asarray(ufunc(x, y))
        except ValueError:
            raise broadcast_error(shape_of(a), shape_of(b)) from None
    low = _half_with_number(x, y) if ufunc is np.multiply or ufunc is np.true_divide else None
    if low is not None:
        # PyTorch's mul and div compute float16/bfloat16 times a Python number in float32 and round
        # once (add, sub and pow round the number to the tensor's dtype first, as numpy does)
        with np.errstate(all="ignore"):
            return np.asarray(ufunc(x.astype(np.float32) if isinstance(x, np.ndarray) else x,
                                    y.astype(np.float32) if isinstance(y, np.ndarray) else y)).astype(low)
    if _needs_promotion(x, y, floating):
        x, y = promoted(a, b, floating=floating)
    try:
        return _quietly(ufunc, x, y) if quiet else np.asarray(ufunc(x, y))
    except ValueError:
        raise broadcast_error(shape_of(a), shape_of(b)) from None


_WIDE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _plain(x: Any, y: Any, floating: bool) -> bool:
    """The cases that need no thought: arrays of one dtype (and not an integer division), a
    float32/float64 array times a bool mask (relu's backward), or a float32/float64 array with a
    Python int or float."""
    if type(x) is np.ndarray:
        if type(y) is np.ndarray:
            if x.dtype is y.dtype:
                return not floating or x.dtype in _WIDE_FLOATS
            return y.dtype == np.bool_ and x.dtype in _WIDE_FLOATS
        return (type(y) is float or type(y) is int) and x.dtype in _WIDE_FLOATS
    return (type(x) is float or type(x) is int) and type(y) is np.ndarray and y.dtype in _WIDE_FLOATS


def _quietly(ufunc: Any, x: Any, y: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(ufunc(x, y))


def _half_with_number(x: Any, y: Any) -> Any:
    """The dtype of a float16 or bfloat16 array paired with a number, else None."""
    if isinstance(x, np.ndarray) == isinstance(y, np.ndarray):
        return None
    array = x if isinstance(x, np.ndarray) else y
    return array.dtype if array.dtype == np.float16 or array.dtype == _BFLOAT16 else None


def grad_times(grad: Tensor, value: Any) -> Tensor:
    """``grad * value`` in a backward formula. Under ``create_graph`` it is recorded like any op;
    otherwise, in the plain case (one dtype, or a float32/float64 gradient and a Python number),
    it is one numpy multiply: the op's dispatch would cost more than the arithmetic on small tensors."""
    if not _GradMode.enabled:
        x = grad._data
        y = value._data if isinstance(value, Tensor) else value
        if _plain(x, y, False):
            return _wrap(x * y)  # (_wrap makes the numpy scalar of a 0-d product an array)
    return grad * value


def saved_optional(tensor: Tensor | None) -> SavedTensor | None:
    """An optional tensor argument saved for backward (a weight, a bias): None if it was not given
    (PyTorch saves an undefined tensor, which ``grad_fn._saved_weight`` shows as None)."""
    return None if tensor is None else SavedTensor(tensor)


def reduce_grad_to(grad: Tensor, shape: tuple) -> Tensor:
    """Undo broadcasting in backward: sum ``grad`` over the dimensions that were broadcast, so the
    gradient of an input has the input's shape."""
    if grad._data.shape == shape:
        return grad
    return grad.sum_to_size(shape)


def new_tensor(data: np.ndarray) -> Tensor:
    return _wrap(data)


def normalize_dims(dim: Any, ndim: int) -> tuple:
    """``dim`` (an int, a sequence, or None for all) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        return (_normalize_dim(int(dim), ndim),)
    dims = tuple(sorted(_normalize_dim(int(d), ndim) for d in dim))
    if len(set(dims)) != len(dims):
        repeated = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return dims
