"""What an elementwise op of two operands shares (PyTorch's ``TensorIterator``): the values in the
common dtype (``dtypes.promoted_values``), the ufunc applied with broadcasting, and PyTorch's
message when the shapes do not broadcast."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor


def data_of(value: Any) -> Any:
    """The numpy array of a tensor; a Python number stays a number (numpy treats it as 'weak',
    the way PyTorch treats Python scalars)."""
    return value._data if isinstance(value, Tensor) else value


def shape_of(value: Any) -> tuple:
    return value._data.shape if isinstance(value, Tensor) else ()


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


def apply_binary(ufunc: Any, a: Any, b: Any, *, floating: bool = False, quiet: bool = False) -> np.ndarray:
    """``ufunc(a, b)`` with PyTorch's promotion and broadcasting errors. ``quiet=True`` for ops
    where inf and nan are ordinary results (1/0, (-1)**0.5): PyTorch returns them silently."""
    low = _half_with_number(a, b) if (ufunc is np.multiply or ufunc is np.true_divide) and type(a) is not type(b) else None
    if low is not None:
        # PyTorch's mul and div compute float16/bfloat16 times a Python number in float32 and round
        # once (add, sub and pow round the number to the tensor's dtype first, as numpy does)
        x, y = (v._data.astype(np.float32) if isinstance(v, Tensor) else v for v in (a, b))
        with np.errstate(all="ignore"):
            return np.asarray(ufunc(x, y)).astype(low)
    x, y = dtypes.promoted_values(a, b, floating=floating)
    try:
        if quiet:
            with np.errstate(all="ignore"):
                return np.asarray(ufunc(x, y))
        return np.asarray(ufunc(x, y))
    except ValueError:
        raise broadcast_error(shape_of(a), shape_of(b)) from None


def _half_with_number(a: Any, b: Any) -> Any:
    """The dtype of a float16 or bfloat16 tensor paired with a number, else None."""
    if isinstance(a, Tensor) == isinstance(b, Tensor):
        return None
    dtype = (a if isinstance(a, Tensor) else b)._data.dtype
    return dtype if dtype == np.float16 or dtype == dtypes.bfloat16.numpy_dtype else None
