"""The names that error messages give types: ``typename`` (PyTorch's ``torch.typename``, in
torch/__init__.py) and ``scalar_type_name`` (c10's ``toString(ScalarType)``, in
c10/core/ScalarType.h: the 'Float' of "expected scalar type Float but found Long")."""
from __future__ import annotations

from typing import Any

# used at call time only: _tensor imports autograd, which may import the ops that use this file
from . import _tensor
from .dtypes import dtype


def typename(obj: Any, /) -> str:
    """'glasstorch.FloatTensor' for a tensor (its ``type()``); else the qualified name of a class
    or function, or of an object's class: 'glasstorch.nn.modules.linear.Linear', 'int'."""
    if isinstance(obj, _tensor.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def scalar_type_name(dtype: dtype) -> str:
    """PyTorch's C++ name of a dtype, as its messages print it: Float, Double, Long, Bool ..."""
    return dtype.legacy_name.replace("Tensor", "")
