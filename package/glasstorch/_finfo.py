"""``torch.finfo`` and ``torch.iinfo``: the numeric limits of a dtype (PyTorch: ``torch/csrc/TypeInfo.cpp``).

Read from ``ml_dtypes.finfo`` (numpy's, extended to bfloat16) and numpy's ``iinfo`` of the dtype's numpy twin; the attribute names and the
repr are PyTorch's.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from . import dtypes


def _dtype_of(type: Any) -> Any:  # noqa: A002 - PyTorch's parameter name
    return dtypes.get_default_dtype() if type is None else type


class finfo:
    """Limits of a floating point dtype: ``bits, eps, max, min, tiny (= smallest_normal), resolution``."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002
        dtype = _dtype_of(type)
        if not dtype.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = ml_dtypes.finfo(dtype.numpy_dtype)  # numpy's finfo does not know bfloat16
        self.dtype = dtype.name
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # a Python float, as PyTorch's

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``bits, max, min``."""

    def __init__(self, type: Any) -> None:  # noqa: A002
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy_dtype) if type is not dtypes.bool else None
        self.dtype = type.name
        self.bits = int(info.bits) if info else 8
        self.max, self.min = (int(info.max), int(info.min)) if info else (1, 0)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
