"""Two argument conventions PyTorch's argument parser applies to every op, added here around the
ops that need them, so no op repeats them:

* numpy's names: wherever a parameter is called ``dim`` or ``keepdim``, PyTorch also accepts
  ``axis`` and ``keepdims`` (``P.sum(1, keepdims=True)``, ``x.mean(axis=0)``); its parser keeps a
  table of these aliases (``numpy_compatibility_arg_names`` in ``python_arg_parser.cpp``).
* ``out=``: the result is written into a tensor the caller gives (resized if needed) and that
  tensor is returned. Autograd cannot record a write into ``out``, so an input that requires grad
  is an error while grad mode is on.
"""
from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable

import numpy as np

from .._tensor import Tensor, _normalize_dim
from ..autograd.grad_mode import _GradMode

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def takes_dim(function: Callable) -> bool:
    """Does ``function`` have a ``dim`` or ``keepdim`` parameter?"""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "dim" in parameters or "keepdim" in parameters


def numpy_aliases(function: Callable) -> Callable:
    """``function`` accepting ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``."""
    if getattr(function, "_numpy_aliases", False):
        return function

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs):  # (one cheap test on the common path)
            kwargs = {_ALIASES.get(name, name): value for name, value in kwargs.items()}
        return function(*args, **kwargs)

    wrapper._numpy_aliases = True
    return wrapper


def with_out(function: Callable) -> Callable:
    """``function`` with an ``out=`` keyword, for the function form (``torch.add(a, b, out=c)``)."""

    @functools.wraps(function)
    def wrapper(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return function(*args, **kwargs)
        if _GradMode.enabled and any(getattr(a, "_requires_grad", False) for a in (*args, *kwargs.values())):
            raise RuntimeError(f"{function.__name__}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        return write_out(out, function(*args, **kwargs))

    return wrapper


def write_out(out: Tensor, result: Tensor) -> Tensor:
    """Store ``result`` in ``out``: in place when the shapes agree; else ``out`` is resized first
    (with PyTorch's warning unless it was empty)."""
    from .inplace import _write

    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    shape = result._data.shape
    if out._data.shape != shape:
        if out._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(out._data.shape)}, which "
                f"does not match the required output shape {list(shape)}. This behavior is deprecated, and in a "
                "future PyTorch release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                UserWarning, stacklevel=3)
        out._data = np.empty(shape, out._data.dtype)
    return _write(out, result._data)


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
