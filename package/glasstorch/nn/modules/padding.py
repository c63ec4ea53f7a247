"""Padding layers: ``ZeroPad``, ``ConstantPad``, ``ReflectionPad``, ``ReplicationPad`` and
``CircularPad``, each 1d, 2d and 3d. Mirrors torch/nn/modules/padding.py: each holds its padding
as F.pad takes it, (left, right, top, bottom, front, back), and calls ``F.pad``."""
from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .conv import _ntuple, _pair
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_quadruple = _ntuple(4, "_quadruple")
_sextuple = _ntuple(6, "_sextuple")


class _PadNd(Module):
    """One padding mode; the subclasses fix the mode and the number of padded dims."""

    mode: str = "constant"
    _expand: Any = _pair

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = type(self)._expand(padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``."""

    _expand = _quadruple


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``."""

    _expand = _sextuple


class _ZeroPadNd:
    """Constant padding with 0 (mixed in before the ConstantPad class of the same dims)."""

    def __init__(self, padding: Any) -> None:
        _ConstantPadNd.__init__(self, padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pad the last dim with zeros."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pad the last two dims with zeros."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pad the last three dims with zeros."""


def _padding_class(name: str, mode: str, expand: Any, doc: str) -> type:
    return type(name, (_PadNd,), {"mode": mode, "_expand": expand, "__doc__": doc, "__module__": __name__})


ReflectionPad1d = _padding_class("ReflectionPad1d", "reflect", _pair, "Pad the last dim with its mirror image.")
ReflectionPad2d = _padding_class("ReflectionPad2d", "reflect", _quadruple, "Pad the last two dims by reflection.")
ReflectionPad3d = _padding_class("ReflectionPad3d", "reflect", _sextuple, "Pad the last three dims by reflection.")
ReplicationPad1d = _padding_class("ReplicationPad1d", "replicate", _pair, "Pad the last dim with its edge values.")
ReplicationPad2d = _padding_class("ReplicationPad2d", "replicate", _quadruple, "Pad the last two dims with edges.")
ReplicationPad3d = _padding_class("ReplicationPad3d", "replicate", _sextuple, "Pad the last three dims with edges.")
CircularPad1d = _padding_class("CircularPad1d", "circular", _pair, "Pad the last dim by wrapping around.")
CircularPad2d = _padding_class("CircularPad2d", "circular", _quadruple, "Pad the last two dims by wrapping around.")
CircularPad3d = _padding_class("CircularPad3d", "circular", _sextuple, "Pad the last three dims by wrapping around.")
