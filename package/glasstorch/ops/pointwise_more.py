"""More elementwise functions, found missing by running the examples in PyTorch's own docstrings
(issue 14): addcmul, addcdiv, lerp, hypot, logaddexp, copysign, fmod, remainder, floor_divide,
float_power, fmax, fmin, heaviside, ldexp, xlogy, gcd, lcm, logical_xor, the bit shifts, isinf,
isposinf, isneginf, signbit, nan_to_num, rad2deg, deg2rad, positive, frexp, isin.

Mirrors ``aten/src/ATen/native/BinaryOps.cpp``, ``PointwiseOps.cpp``, ``UnaryOps.cpp`` and
``TensorCompare.cpp``. Simplified: the differentiable ones are *composed* from ops that already
have a backward Node (``hypot`` is ``sqrt(a*a + b*b)``), so their gradients are right (each is
gradchecked) but their ``grad_fn`` is the last op of the composition (``SqrtBackward0``) where
PyTorch records one Node of its own (``HypotBackward0``). ``fmod`` and ``remainder`` have PyTorch's
Nodes (``FmodBackward0/1``, ``RemainderBackward0/1``): numpy's values keep the sign of a zero result. Integer inputs and the ops whose
derivative is zero almost everywhere (comparisons, ``heaviside``, ``gcd``) compute in numpy and
record nothing, as PyTorch records nothing for them.
"""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..dtypes import promoted_values, result_type
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .comparison import maximum, minimum
from .indexing import where


def _tensor(value: Any, like: Tensor) -> Tensor:
    """A Python number as a 0-dim tensor, so the composed ops can use it."""
    return value if isinstance(value, Tensor) else _wrap(np.asarray(value, dtype=result_type(like, value).numpy_dtype))


def _is_floating(*operands: Any) -> bool:
    return result_type(*operands).is_floating_point


def _check_not_bool(name: str, *operands: Any) -> None:
    if result_type(*operands) is dtypes.bool:
        raise RuntimeError(f"\"{name}\" not implemented for 'Bool'")


# --- products and interpolation (PointwiseOps.cpp, Lerp.cpp) ---------------------------------
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """input + value * tensor1 * tensor2 (PyTorch: one AddcmulBackward0)."""
    return input + value * tensor1 * tensor2 if value != 1 else input + tensor1 * tensor2


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """input + value * tensor1 / tensor2. Integer division is refused, as in PyTorch."""
    if not _is_floating(tensor1, tensor2):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                           "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                           "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                           "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    return input + value * (tensor1 / tensor2) if value != 1 else input + tensor1 / tensor2


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """input + weight * (end - input): the point ``weight`` of the way from input to end."""
    return input + weight * (end - input)


# --- binary functions of floats (BinaryOps.cpp) ------------------------------------------------
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """sqrt(input² + other²), the length of the hypotenuse."""
    return (input * input + other * other).sqrt()


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """log(exp(a) + exp(b)), computed as max(a, b) + log1p(exp(-|a - b|)) so that it never overflows."""
    return maximum(input, other) + (-(input - other).abs()).exp().log1p()


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log2(2^a + 2^b), as logaddexp in base 2."""
    return maximum(input, other) + (-(input - other).abs() * math.log(2)).exp().log1p() / math.log(2)


def copysign(input: Tensor, other: Any) -> Tensor:
    """|input| with the sign of ``other`` (a -0.0 counts as negative). Always floating point."""
    sign_of_other = np.where(np.signbit(other._data if isinstance(other, Tensor) else np.asarray(other)), -1.0, 1.0)
    floating = input if _is_floating(input, other) else input.to(dtypes.get_default_dtype())
    dtype = result_type(floating, other)
    return floating.to(dtype).abs() * _wrap(sign_of_other.astype(dtype.numpy_dtype))


class FmodBackward0(Node):
    """out = fmod(self, number): d/dself = grad (the rounded quotient changes in steps)."""

    def backward(self, grad: Tensor) -> tuple:
        return (grad,)


class RemainderBackward0(FmodBackward0):
    """out = remainder(self, number): d/dself = grad."""


class FmodBackward1(Node):
    """out = self - trunc(self / other) * other: d/dself = grad, d/dother = -grad * trunc(self / other)."""

    self_: SavedTensor
    other_: SavedTensor
    _rounding = "trunc"

    def backward(self, grad: Tensor) -> tuple:
        grad_other = None
        if self.needs_input_grad(1):
            grad_other = -grad * self._saved_self.div(self._saved_other, rounding_mode=self._rounding)
        return (grad if self.needs_input_grad(0) else None, grad_other)


class RemainderBackward1(FmodBackward1):
    """out = self - floor(self / other) * other: d/dother = -grad * floor(self / other)."""

    _rounding = "floor"


def _fmod_or_remainder(input: Any, other: Any, function: Any, nodes: tuple) -> Tensor:
    x, y = promoted_values(input, other)
    if np.asarray(x).dtype.kind in "iub" and np.asarray(y).dtype.kind in "iub" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _wrap(np.asarray(function(x, y)).astype(np.result_type(x, y), copy=False))
    if not isinstance(input, Tensor):  # remainder(number, tensor): PyTorch has no derivative; the composition does
        return _composed_remainder(input, other) if other.requires_grad else out
    if compute_requires_grad(input, other):
        if isinstance(other, Tensor):
            node = nodes[1](input, other)
            if node.needs_input_grad(1):
                node.self_, node.other_ = SavedTensor(input), SavedTensor(other)
        else:
            node = nodes[0](input)
        set_history(out, node)
    return out


def _remainder_values(x: Any, y: Any) -> np.ndarray:
    """PyTorch's float remainder: fmod, moved by ``other`` when its sign differs from other's
    (a zero result keeps the sign of ``input``, where numpy's remainder gives other's)."""
    mod = np.fmod(x, y)
    if mod.dtype.kind != "f":
        return np.remainder(x, y)
    return np.where((mod != 0) & ((np.asarray(y) < 0) != (mod < 0)), mod + y, mod)


def _composed_remainder(number: Any, other: Tensor) -> Tensor:
    return number - (number / other).detach().floor() * other


def fmod(input: Tensor, other: Any) -> Tensor:
    """input - trunc(input / other) * other: the remainder with the sign of ``input`` (C's fmod)."""
    return _fmod_or_remainder(input, other, np.fmod, (FmodBackward0, FmodBackward1))


def remainder(input: Any, other: Any) -> Tensor:
    """input - floor(input / other) * other: the remainder with the sign of ``other`` (Python's %)."""
    return _fmod_or_remainder(input, other, _remainder_values, (RemainderBackward0, RemainderBackward1))


def floor_divide(input: Tensor, other: Any) -> Tensor:
    """floor(input / other), as Python's //."""
    return input.div(other, rounding_mode="floor")


def float_power(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in float64, whatever the inputs' dtypes."""
    base = input.double() if isinstance(input, Tensor) else input
    power = exponent.double() if isinstance(exponent, Tensor) else exponent
    if not isinstance(base, Tensor):
        base = _wrap(np.asarray(base, dtype=np.float64))
    return base ** power


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores a NaN (numpy's fmax); maximum propagates it."""
    pick_other = _wrap(np.isnan(input._data) & ~np.isnan(other._data)) | (input < other)
    return where(pick_other, other, input)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores a NaN (numpy's fmin)."""
    pick_other = _wrap(np.isnan(input._data) & ~np.isnan(other._data)) | (input > other)
    return where(pick_other, other, input)


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), and 0 where input is 0 (even where other is 0). Simplified: the gradient
    for ``input`` is 0 where input is 0; PyTorch's is log(other) there."""
    if not isinstance(input, Tensor):
        input = _tensor(input, other)
    if not isinstance(other, Tensor):
        other = _tensor(other, input)
    product = input * other.log() if _is_floating(input, other) else input.double() * other.double().log()
    return where(_wrap(input._data == 0) & ~_wrap(np.isnan(other._data)), 0.0, product)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2 ** other."""
    scale = _wrap(np.ldexp(1.0, np.asarray(other._data if isinstance(other, Tensor) else other, dtype=np.int64)).astype(
        result_type(input, 1.0).numpy_dtype))
    return input * scale


def nextafter(input: Tensor, other: Any) -> Tensor:
    """The next floating point number after ``input`` in the direction of ``other``."""
    x, y = promoted_values(input, other)
    return _wrap(np.asarray(np.nextafter(x, y)))


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where input < 0, 1 where input > 0, ``values`` where input == 0 (not differentiable)."""
    if input.dtype is not values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes")
    return _wrap(np.heaviside(input._data, values._data).astype(input._data.dtype))


def _integer_op(name: str, function: Any) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        x, y = promoted_values(input, other)
        if np.asarray(x).dtype.kind not in "iub":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar_type(result_type(input, other))}'")
        return _wrap(np.asarray(function(x, y)))
    op.__name__ = name
    return op


def scalar_type(dtype: Any) -> str:
    from .._typename import scalar_type_name

    return scalar_type_name(dtype)


gcd = _integer_op("gcd", np.gcd)
gcd.__doc__ = "The greatest common divisor, elementwise (integers only)."
lcm = _integer_op("lcm", np.lcm)
lcm.__doc__ = "The least common multiple, elementwise (integers only)."
bitwise_left_shift = _integer_op("lshift", np.left_shift)
bitwise_left_shift.__doc__ = "input << other, elementwise."
bitwise_right_shift = _integer_op("rshift", np.right_shift)
bitwise_right_shift.__doc__ = "input >> other, elementwise."


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """True where exactly one of the two is nonzero."""
    return _wrap(np.logical_xor(input._data, getattr(other, "_data", other)))


# --- functions of one tensor (UnaryOps.cpp, TensorCompare.cpp) ------------------------------------
def isinf(input: Tensor) -> Tensor:
    return _wrap(np.isinf(input._data))


def isposinf(input: Tensor) -> Tensor:
    return _wrap(np.isposinf(input._data))


def isneginf(input: Tensor) -> Tensor:
    return _wrap(np.isneginf(input._data))


def signbit(input: Tensor) -> Tensor:
    """True where the sign bit is set (negative numbers and -0.0)."""
    return _wrap(np.signbit(input._data))


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """NaN -> ``nan``, +inf -> ``posinf`` (the dtype's largest number by default), -inf -> ``neginf``.
    The gradient passes where the value was finite and is 0 at the replaced places."""
    if input._data.dtype.kind != "f":
        return input.clone()
    finfo = np.finfo(input._data.dtype)
    values = np.nan_to_num(input._data, nan=nan, posinf=finfo.max if posinf is None else posinf,
                           neginf=finfo.min if neginf is None else neginf)
    replaced = _wrap(~np.isfinite(input._data))
    return where(replaced, _wrap(values), input)


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees: input * 180 / pi."""
    return (input if input.is_floating_point() else input.float()) * (180.0 / math.pi)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians: input * pi / 180."""
    return (input if input.is_floating_point() else input.float()) * (math.pi / 180.0)


def positive(input: Tensor) -> Tensor:
    """The input itself (PyTorch returns it, not a copy); bool refused as PyTorch refuses it."""
    if input.dtype is dtypes.bool:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


_frexp = namedtuple("frexp", ["mantissa", "exponent"])


class return_types_frexp(_frexp):
    """``(mantissa, exponent)``, printed as PyTorch's ``torch.return_types.frexp``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glasstorch.return_types.frexp(\nmantissa={self.mantissa!r},\nexponent={self.exponent!r})"


def frexp(input: Tensor) -> return_types_frexp:
    """input = mantissa * 2 ** exponent with 0.5 <= |mantissa| < 1 (floating inputs only)."""
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input._data)
    return return_types_frexp(_wrap(mantissa), _wrap(exponent.astype(np.int32)))


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """True where an element of ``elements`` is among ``test_elements``."""
    values = np.asarray(getattr(elements, "_data", elements))
    found = np.isin(values, np.asarray(getattr(test_elements, "_data", test_elements)), invert=invert)
    return _wrap(np.asarray(found))
