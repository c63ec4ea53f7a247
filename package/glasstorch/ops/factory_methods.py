"""``Tensor.new_zeros``, ``new_ones``, ``new_full``, ``new_empty``, ``new_tensor``: factories that take
their dtype and device from an existing tensor (a model's code can make a buffer "like" its
input without naming a dtype), and ``Tensor.stride()``, the memory layout.

Mirrors ``torch/_tensor.py``'s ``new_*`` methods (generated in PyTorch's C++). None of them
records anything: the new tensor is a fresh leaf (``requires_grad=False`` unless asked).
"""
from __future__ import annotations

from typing import Any

from .. import storage
from .._tensor import Tensor, _normalize_dim


def _like(tensor: Tensor, dtype: Any) -> Any:
    return tensor.dtype if dtype is None else dtype


def new_zeros(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              **kwargs: Any) -> Tensor:
    from .. import _creation

    return _creation.zeros(*size, dtype=_like(self, dtype), device=device, requires_grad=requires_grad)


def new_ones(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
             **kwargs: Any) -> Tensor:
    from .. import _creation

    return _creation.ones(*size, dtype=_like(self, dtype), device=device, requires_grad=requires_grad)


def new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              **kwargs: Any) -> Tensor:
    """Uninitialised in PyTorch; zeros here (reproducible)."""
    from .. import _creation

    return _creation.empty(*size, dtype=_like(self, dtype), device=device, requires_grad=requires_grad)


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, **kwargs: Any) -> Tensor:
    from .. import _creation

    return _creation.full(size, fill_value, dtype=_like(self, dtype), device=device, requires_grad=requires_grad)


def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               **kwargs: Any) -> Tensor:
    """A copy of ``data`` in this tensor's dtype (unless ``dtype`` is given)."""
    from .. import _creation

    if isinstance(data, Tensor):
        data = data.detach().clone()
    return _creation.tensor(data, dtype=_like(self, dtype), device=device, requires_grad=requires_grad)


def stride(self: Tensor, dim: int | None = None) -> Any:
    """How many elements to step in memory to move one place along each dim (numpy counts bytes:
    divided by the element size). An expanded dim has stride 0: every place reads the same element."""
    steps = storage.element_strides(self._data)
    if dim is None:
        return steps
    return steps[_normalize_dim(dim, self._data.ndim)]


