"""Creating tensors: ``tensor``, ``zeros``, ``ones``, ``arange``, ``rand`` ... and ``from_numpy``.

Mirrors the factory functions of ``torch`` (``torch/_refs`` and the C++ factories). Every one
takes ``dtype=``, ``device=`` and ``requires_grad=`` keywords, as in PyTorch.
"""
from __future__ import annotations

import builtins
import functools
import warnings
from typing import Any, Sequence

import numpy as np

from . import dtypes
from ._tensor import Tensor, _check_device, _wrap
from .random import _generator_of


def _finish(data: np.ndarray, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    """Apply the keywords every factory shares."""
    _check_device(device)
    if dtype is not None:
        dtype = dtypes.canonical(dtype)
    if dtype is not None and data.dtype != dtype.numpy_dtype:
        data = data.astype(dtype.numpy_dtype)
    out = _wrap(data)
    if requires_grad:
        if not out.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        out._requires_grad = True
    return out


def _infer(data: Any) -> np.ndarray:
    """Python data to a numpy array with PyTorch's dtype inference: bools stay bool, integers
    become int64, floats become the default dtype (float32). numpy arrays keep their dtype."""
    if isinstance(data, np.ndarray):
        dtypes.from_numpy_dtype(data.dtype)  # PyTorch's error for an unsupported dtype
        return data.copy()
    if isinstance(data, np.generic):
        return np.array(data)
    try:
        array = np.array(_unwrap_nested(data))
    except ValueError:
        raise ValueError(_ragged_message(data)) from None
    if array.dtype == object or array.dtype.kind in "USV":
        raise TypeError(f"new(): invalid data type '{_first_leaf_type(data)}'")
    if array.dtype.kind == "f":
        return array.astype(dtypes.get_default_dtype().numpy_dtype)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    return array


def _unwrap_nested(data: Any) -> Any:
    """Lists may hold tensors (``tensor([t1, t2])``): use their values."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(d) for d in data]
    return data


def _first_leaf_type(data: Any) -> str:
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return type(data).__name__


def _ragged_message(data: Any) -> str:
    """PyTorch's message for nested lists of unequal length."""
    def walk(item: Any, dim: int) -> str | None:
        if not isinstance(item, (list, tuple)) or not item:
            return None
        first = item[0]
        expected = len(first) if isinstance(first, (list, tuple)) else None
        for child in item:
            length = len(child) if isinstance(child, (list, tuple)) else None
            if expected is not None and length != expected:
                return f"expected sequence of length {expected} at dim {dim + 1} (got {length})"
            found = walk(child, dim + 1)
            if found:
                return found
        return None

    return walk(data, 0) or "could not build a tensor from ragged nested sequences"


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data``, its dtype inferred unless given."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        array = data._data.copy()
    else:
        array = _infer(data)
        if dtype is not None and array.dtype.kind == "f" and not isinstance(data, (np.ndarray, np.generic)):
            # Python floats go straight to the dtype asked for, not through float32 first:
            # tensor([0.3], dtype=float64) holds 0.3 exactly, as in PyTorch
            array = np.array(_unwrap_nested(data), dtype=np.float64)
    return _finish(array, dtype, device, requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor`` but shares memory with a numpy array or tensor when it can."""
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == dtype.numpy_dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory: changing one changes the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    return _wrap(array)


def _size(size: tuple) -> tuple:
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for n in size:
        if not isinstance(n, (builtins.int, np.integer)) or isinstance(n, builtins.bool):
            if isinstance(n, Tensor) and n._data.ndim == 0 and n._data.dtype != np.bool_:
                # a 0-dim tensor counts as its number (randint(..., size=(lengths.sum(),)), as in PyTorch)
                return _size(tuple(builtins.int(m.item()) if isinstance(m, Tensor) and m._data.ndim == 0 else m
                                   for m in size))
            raise TypeError(f"expected a sequence of integers for the size, but got {type(n).__name__}")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    return tuple(builtins.int(n) for n in size)


def _shape_arg(sizes: tuple, size: Any) -> tuple:
    """The size given by position (``zeros(2, 3)``, ``zeros((2, 3))``) or by keyword
    (``zeros(size=(2, 3))``, as d2l writes ``torch.rand(size=(2, 4))``)."""
    if size is not None:
        if sizes:
            raise TypeError("got multiple values for argument 'size'")
        sizes = (size,)
    return _size(sizes)


def _float_dtype(dtype: Any) -> Any:
    return dtypes.get_default_dtype() if dtype is None else dtypes.canonical(dtype)


def zeros(*sizes: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    try:
        shape = _shape_arg(sizes, size)
    except RuntimeError:  # PyTorch's zeros has its own message; the other factories say "negative dimension"
        raise RuntimeError("zeros: Dimension size must be non-negative.") from None
    return _finish(np.zeros(shape, _float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def ones(*sizes: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(_shape_arg(sizes, size), _float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def empty(*sizes: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """PyTorch leaves the memory uninitialised; glasstorch fills it with zeros (reproducible)."""
    return _finish(np.zeros(_shape_arg(sizes, size), _float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (its dtype inferred from the value)."""
    dtype = dtypes.result_type(fill_value) if dtype is None else dtypes.canonical(dtype)
    return _finish(np.full(_size((size,)), fill_value, dtype.numpy_dtype), None, device, requires_grad)


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return zeros(input.shape, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return ones(input.shape, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    """``arange(5)`` is 0..4; integers give int64, any float argument gives the default dtype."""
    if end is None:
        start, end = 0, start
    dtype = dtypes.result_type(start, end, step) if dtype is None else dtypes.canonical(dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    return _finish(np.arange(start, end, step).astype(dtype.numpy_dtype), None, device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    return _finish(np.linspace(start, end, steps).astype(_float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def rand(*sizes: Any, size: Any = None, generator: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    values = _generator_of(generator).uniform(0.0, 1.0, _shape_arg(sizes, size))
    return _finish(values.astype(_float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def randn(*sizes: Any, size: Any = None, generator: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal (mean 0, standard deviation 1)."""
    values = _generator_of(generator).normal(0.0, 1.0, _shape_arg(sizes, size))
    return _finish(values.astype(_float_dtype(dtype).numpy_dtype), None, device, requires_grad)


def randint(low: int, high: Any = None, size: Any = None, *, generator: Any = None, dtype: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    """Integers in [low, high); ``randint(high, size)`` starts at 0. int64 unless told."""
    if size is None:
        low, high, size = 0, low, high
    values = _generator_of(generator).integers(low, high, _size((size,)))
    return _finish(values, dtype, device, requires_grad)


def randperm(n: int, *, generator: Any = None, dtype: Any = None, device: Any = None) -> Tensor:
    return _finish(_generator_of(generator).permutation(n), dtype, device, False)


def rand_like(input: Tensor, **kwargs: Any) -> Tensor:
    return rand(input.shape, dtype=kwargs.pop("dtype", input.dtype), **kwargs)


def randn_like(input: Tensor, **kwargs: Any) -> Tensor:
    return randn(input.shape, dtype=kwargs.pop("dtype", input.dtype), **kwargs)


def _factory_with_out(function: Any, keeps_shape: bool = False) -> Any:
    """``function`` with PyTorch's ``out=`` keyword (``torch.rand(2, 2, out=c)``): the values are made
    in ``out``'s dtype unless ``dtype=`` says otherwise, written into ``out``, and ``out`` returned.
    ``keeps_shape``: as PyTorch's arange/linspace, an ``out`` with as many elements keeps its shape."""
    @functools.wraps(function)
    def wrapper(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        if out is None:
            return function(*args, **kwargs)
        from .ops._arguments import write_out

        if not isinstance(out, Tensor):
            raise TypeError(f"{function.__name__}(): argument 'out' must be Tensor, not {type(out).__name__}")
        kwargs.setdefault("dtype", out.dtype)
        result = function(*args, **kwargs)
        if keeps_shape and result._data.size == out._data.size:
            result = result.reshape(out.shape)
        return write_out(out, result)

    return wrapper


zeros, ones, empty, full, eye = (_factory_with_out(f) for f in (zeros, ones, empty, full, eye))
arange, linspace = _factory_with_out(arange, keeps_shape=True), _factory_with_out(linspace, keeps_shape=True)
rand, randn, randint, randperm = (_factory_with_out(f) for f in (rand, randn, randint, randperm))
