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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet: what a Lazy module holds until its
    first call (torch/nn/parameter.py). It holds an empty tensor; ``materialize(shape)`` gives it
    memory and turns it into its ``cls_to_become`` (a Parameter, or a plain Tensor for a buffer).

    PyTorch refuses every torch function on it through ``__torch_function__``; glasstorch has no
    such dispatch, so it refuses the Tensor *methods* outside the allowed few (a free function such
    as ``torch.mm(x, w)`` fails on the empty data instead).
    """

    cls_to_become: type
    _allowed_methods = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
                                  "char", "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize",
                                  "share_memory_", "data", "dtype", "device", "requires_grad", "requires_grad_",
                                  "grad", "is_leaf", "grad_fn", "detach"})

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor ``shape`` (zeros here; PyTorch leaves ``empty`` memory) and become a
        Parameter (or a Tensor): Python's ``__class__`` assignment, as in PyTorch."""
        from .._creation import empty

        if dtype is None:
            dtype = self.dtype
        self.data = empty(shape, dtype=dtype, device=device)
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def share_memory_(self) -> Any:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo: dict) -> Any:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, None, self.dtype)
        return memo[id(self)]

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if (callable(value) and not name.startswith("_") and name not in UninitializedTensorMixin._allowed_methods
                and hasattr(Tensor, name)):
            raise ValueError(
                f"Attempted to use an uninitialized parameter in {name}. This error happens when you are using a "
                f"`LazyModule` or explicitly manipulating `torch.nn.parameter.{type(self).__name__}` objects. "
                "When using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
                "calling torch functions"
            )
        return value


def is_lazy(param: Any) -> bool:
    """Is ``param`` an ``UninitializedParameter`` or ``UninitializedBuffer``?"""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is still unknown (a Lazy module's ``weight`` before its first call)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        from .._creation import empty

        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass  # all the work is in __new__


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is still unknown (a LazyBatchNorm's ``running_mean``)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> "UninitializedBuffer":
        from .._creation import empty

        buffer = _wrap(empty(0, device=device, dtype=dtype)._data, cls)
        buffer._requires_grad = bool(requires_grad)
        buffer.persistent = persistent
        return buffer


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


def _empty_float32():
    import numpy as np

    return np.empty((0,), dtype=np.float32)
