"""``nn.Parameter`` and ``nn.Buffer``: tensors that a Module registers when they are assigned.

Mirrors torch/nn/parameter.py. A Parameter is an ordinary Tensor subclass; the only thing that
makes it special is ``Module.__setattr__``, which files Parameters under ``_parameters``. A
``Buffer`` is a plain tensor marked ``_is_buffer``: ``__setattr__`` files it under ``_buffers``.
"""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor, _wrap


class Parameter(Tensor):
    """A kind of Tensor that is to be considered a module parameter.

    ``Parameter(data)`` shares ``data``'s memory (and version counter) and is always a leaf, even
    when ``data`` was computed: the history stays behind. It requires grad unless told otherwise,
    also inside ``no_grad()``.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = _wrap(_empty_float32())
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        param = _wrap(data._data, cls)
        param._version_counter = data._version_counter  # an alias, as Tensor._make_subclass makes
        param._requires_grad = bool(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # all the work is in __new__ (Tensor has no __init__ to call)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: Any) -> tuple:
        # copy.copy and pickle rebuild a Parameter, not a plain Tensor
        return (_rebuild_parameter, (self.data, self.requires_grad))


class _BufferMeta(type):
    # isinstance(t, Buffer) asks for the mark, not the class: Buffer(...) returns a plain Tensor
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor that is module state but not a parameter (BatchNorm's ``running_mean``):
    ``self.running_mean = nn.Buffer(torch.zeros(3))`` is ``register_buffer``'s shorthand.
    ``persistent=False`` keeps it out of ``state_dict``."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:
        if data is None:
            data = _wrap(_empty_float32())
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


def _empty_float32():
    import numpy as np

    return np.empty((0,), dtype=np.float32)
