"""More elementwise functions, found missing by running the examples in PyTorch's own docstrings
(issue 14): addcmul, addcdiv, lerp, hypot, logaddexp, copysign, fmod, remainder, floor_divide,
float_power, fmax, fmin, heaviside, ldexp, xlogy, gcd, lcm, logical_xor, the bit shifts, isinf,
isposinf, isneginf, signbit, nan_to_num, rad2deg, deg2rad, positive, frexp, isin.

Mirrors ``aten/src/ATen/native/BinaryOps.cpp``, ``PointwiseOps.cpp``, ``UnaryOps.cpp`` and
``TensorCompare.cpp``. Each differentiable op computes its values in numpy and records one Node
named and saving as PyTorch's (``LerpBackward0``, ``HypotBackward0``, ``XlogyBackward0`` ...), whose
backward is written with tensor ops so that it can be differentiated again. ``fmod`` and
``remainder``: numpy's values keep the sign of a zero result. ``floor_divide`` and
``float_power`` are composed (``div(rounding_mode='floor')``, ``pow`` in float64: PyTorch records
the same Nodes). Integer inputs and the ops whose derivative is zero almost everywhere
(comparisons, ``heaviside``, ``gcd``) compute in numpy and record nothing, as PyTorch records
nothing for them.
"""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import ml_dtypes
import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..dtypes import promoted_values, result_type
from ..autograd.graph import Node, SavedTensor
from . import arithmetic
from ._elementwise import broadcast_error
from .comparison import apply_logical
from ._util import compute_requires_grad, record, set_history


def _is_floating(*operands: Any) -> bool:
    return result_type(*operands).is_floating_point


def _check_floating(kernel: str, *operands: Any) -> None:
    """PyTorch has no integer kernel for some functions of floats (hypot, logaddexp): its message."""
    dtype = result_type(*operands)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type(dtype)}'")


def _check_not_bool(kernel: str, *operands: Any) -> None:
    """PyTorch has no bool kernel for some arithmetic (addcmul, fmod): its message."""
    if result_type(*operands) is dtypes.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


# --- how the ops of this file join the graph ----------------------------------------------------
def _values(function: Any, *operands: Any, floating: bool = True) -> np.ndarray:
    """``function`` of the operands' values in PyTorch's result dtype (floating point unless told),
    broadcast, with PyTorch's message where the shapes do not broadcast; inf and nan are ordinary
    results (no numpy warnings)."""
    target = result_type(*operands)
    if floating and not target.is_floating_point:
        target = dtypes.get_default_dtype()
    if target in (dtypes.float16, dtypes.bfloat16):  # computed in float32 and rounded once, as PyTorch does
        values = tuple(v._data.astype(np.float32) if isinstance(v, Tensor) else v for v in operands)
    else:
        values = promoted_values(*operands, floating=floating)
    try:
        with np.errstate(all="ignore"):
            # (a numpy constant inside ``function``, such as np.log(2.5), would widen float32 to float64)
            return np.asarray(function(*values), dtype=target.numpy_dtype)
    except ValueError:
        raise _broadcast_error([np.shape(v) for v in values]) from None


def _broadcast_error(shapes: list) -> RuntimeError:
    """PyTorch's message for the first operand whose shape does not broadcast with those before it."""
    shape = shapes[0]
    for other in shapes[1:]:
        try:
            shape = np.broadcast_shapes(shape, other)
        except ValueError:
            return broadcast_error(shape, other)
    return RuntimeError(f"shapes {shapes} cannot be broadcast together")


def _constant(mask: np.ndarray, like: Tensor) -> Tensor:
    """A mask as a tensor of ``like``'s dtype: a constant factor of a gradient formula."""
    return _wrap(mask.astype(like._data.dtype))


class NotImplementedBackward(Node):
    """PyTorch's Node for an op that has no derivative formula (floor_divide, heaviside): its name is
    ``NotImplemented``; it keeps the output in the graph (requires_grad), and a backward through it
    is an error."""

    def name(self) -> str:
        return "NotImplemented"

    def backward(self, grad: Tensor) -> tuple:
        raise RuntimeError(f"derivative for aten::{self._op} is not implemented")


def _not_differentiable(out: Tensor, op: str, *operands: Any) -> Tensor:
    return record(out, NotImplementedBackward, tuple(v for v in operands if isinstance(v, Tensor)), _op=op)


def _detached(value: Any) -> Any:
    return value.detach() if isinstance(value, Tensor) else value


# --- products and interpolation (PointwiseOps.cpp, Lerp.cpp) ---------------------------------
class AddcmulBackward0(Node):
    """out = self + value * tensor1 * tensor2:
    d/dself = grad,  d/dtensor1 = grad * value * tensor2,  d/dtensor2 = grad * value * tensor1."""

    tensor1_: SavedTensor
    tensor2_: SavedTensor
    value: Any

    def backward(self, grad: Tensor) -> tuple:
        scaled = grad * self.value if self.value != 1 else grad
        return (grad if self.needs_input_grad(0) else None,
                scaled * self._saved_tensor2 if self.needs_input_grad(1) else None,
                scaled * self._saved_tensor1 if self.needs_input_grad(2) else None)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """input + value * tensor1 * tensor2, in one step (one rounding per product, as PyTorch)."""
    _check_not_bool("addcmul_cpu_out", input, tensor1, tensor2)
    out = _wrap(_values(lambda x, a, b: x + value * a * b, input, tensor1, tensor2, floating=False))
    return record(out, AddcmulBackward0, (input, tensor1, tensor2), tensor1_=tensor1, tensor2_=tensor2, value=value)


class AddcdivBackward0(Node):
    """out = self + value * tensor1 / tensor2:
    d/dself = grad,  d/dtensor1 = grad * value / tensor2,  d/dtensor2 = -grad * value * tensor1 / tensor2**2."""

    tensor1_: SavedTensor
    tensor2_: SavedTensor
    value: Any

    def backward(self, grad: Tensor) -> tuple:
        tensor1, tensor2 = self._saved_tensor1, self._saved_tensor2
        scaled = grad * self.value if self.value != 1 else grad
        return (grad if self.needs_input_grad(0) else None,
                scaled / tensor2 if self.needs_input_grad(1) else None,
                -scaled * tensor1 / (tensor2 * tensor2) if self.needs_input_grad(2) else None)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """input + value * tensor1 / tensor2. Integer division is refused, as in PyTorch."""
    if not _is_floating(tensor1, tensor2):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                           "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                           "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                           "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    out = _wrap(_values(lambda x, a, b: x + value * (a / b), input, tensor1, tensor2, floating=False))
    return record(out, AddcdivBackward0, (input, tensor1, tensor2), tensor1_=tensor1, tensor2_=tensor2, value=value)


class LerpBackward0(Node):
    """out = self + weight * (end - self), ``weight`` a number:
    d/dself = grad * (1 - weight),  d/dend = grad * weight."""

    weight: Any

    def backward(self, grad: Tensor) -> tuple:
        weight = self.weight
        return (grad * (1 - weight) if self.needs_input_grad(0) else None,
                grad * weight if self.needs_input_grad(1) else None)


class LerpBackward1(Node):
    """out = self + weight * (end - self), ``weight`` a tensor:
    d/dself = grad * (1 - weight),  d/dend = grad * weight,  d/dweight = grad * (end - self)."""

    self_: SavedTensor
    end_: SavedTensor
    weight_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        weight = self._saved_weight
        return (grad * (1 - weight) if self.needs_input_grad(0) else None,
                grad * weight if self.needs_input_grad(1) else None,
                grad * (self._saved_end - self._saved_self) if self.needs_input_grad(2) else None)


def _lerp_values(start: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """PyTorch's formula: from ``start`` for small weights, from ``end`` for large ones, so that
    weight 0 gives start and weight 1 gives end exactly."""
    return np.where(np.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


def _check_same_dtype(input: Tensor, **others: Any) -> None:
    for name, other in others.items():
        if isinstance(other, Tensor) and other.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {scalar_type(input.dtype).lower()} for `{name}` but got dtype "
                               f"{scalar_type(other.dtype).lower()}")


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """input + weight * (end - input): the point ``weight`` of the way from input to end."""
    _check_same_dtype(input, end=end, weight=weight)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"lerp_kernel_scalar\" not implemented for '{scalar_type(input.dtype)}'")
    out = _wrap(np.asarray(_values(_lerp_values, input, end, weight, floating=False), dtype=input._data.dtype))
    if isinstance(weight, Tensor):
        return record(out, LerpBackward1, (input, end, weight), self_=input, end_=end, weight_=weight)
    return record(out, LerpBackward0, (input, end), weight=weight)


# --- binary functions of floats (BinaryOps.cpp) ------------------------------------------------
class HypotBackward0(Node):
    """out = sqrt(self**2 + other**2):  d/dself = grad * self / out,  d/dother = grad * other / out."""

    other_: SavedTensor
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        scaled = grad / self._saved_result
        return (scaled * self._saved_self if self.needs_input_grad(0) else None,
                scaled * self._saved_other if self.needs_input_grad(1) else None)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """sqrt(input² + other²), the length of the hypotenuse (without overflow for large inputs)."""
    _check_floating("hypot_cpu", input, other)
    out = _wrap(_values(np.hypot, input, other))
    return record(out, HypotBackward0, (input, other), self_=input, other_=other, result_=out)


class LogaddexpBackward0(Node):
    """out = log(exp(self) + exp(other)):  d/dself = grad * exp(self) / exp(out) = grad * sigmoid(self - other),
    d/dother = grad * sigmoid(other - self) (the sigmoid form never overflows)."""

    other_: SavedTensor
    self_: SavedTensor
    _base_log = 1.0  # ln of the base: e for logaddexp

    def backward(self, grad: Tensor) -> tuple:
        difference = self._saved_self - self._saved_other
        if self._base_log != 1.0:
            difference = difference * self._base_log
        return (grad * difference.sigmoid() if self.needs_input_grad(0) else None,
                grad * (-difference).sigmoid() if self.needs_input_grad(1) else None)


class Logaddexp2Backward0(LogaddexpBackward0):
    """out = log2(2**self + 2**other):  d/dself = grad * sigmoid((self - other) ln 2), d/dother likewise."""

    _base_log = math.log(2)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """log(exp(a) + exp(b)), computed without overflow (numpy's logaddexp)."""
    _check_floating("logaddexp_cpu", input, other)
    out = _wrap(_values(np.logaddexp, input, other))
    return record(out, LogaddexpBackward0, (input, other), self_=input, other_=other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log2(2^a + 2^b), as logaddexp in base 2."""
    _check_floating("logaddexp2_cpu", input, other)
    out = _wrap(_values(np.logaddexp2, input, other))
    return record(out, Logaddexp2Backward0, (input, other), self_=input, other_=other)


class CopysignBackward0(Node):
    """out = |self| with the sign of other (a tensor):  d/dself = grad * out / self (the sign that
    was given to |self|; 0 where self is 0),  d/dother = 0 (only its sign counts)."""

    result_: SavedTensor
    self_: SavedTensor

    def grad_self(self, grad: Tensor) -> Tensor:
        self_ = self._saved_self
        return grad * (self._saved_result / self_).masked_fill(_wrap(self_._data == 0), 0)

    def backward(self, grad: Tensor) -> tuple:
        return (self.grad_self(grad) if self.needs_input_grad(0) else None,
                grad * 0 if self.needs_input_grad(1) else None)


class CopysignBackward1(CopysignBackward0):
    """copysign(self, number):  d/dself = grad * out / self (0 where self is 0); no edge to the number."""

    def backward(self, grad: Tensor) -> tuple:
        return (self.grad_self(grad),)


def copysign(input: Tensor, other: Any) -> Tensor:
    """|input| with the sign of ``other`` (a -0.0 counts as negative). Always floating point."""
    out = _wrap(_values(np.copysign, input, other))
    if isinstance(other, Tensor):
        return record(out, CopysignBackward0, (input, other), self_=input, result_=out)
    return record(out, CopysignBackward1, (input,), self_=input, result_=out)


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


def _fmod_or_remainder(input: Any, other: Any, function: Any, nodes: tuple, kernel: str) -> Tensor:
    _check_not_bool(kernel, input, other)
    x, y = promoted_values(input, other)
    if np.asarray(x).dtype.kind in "iub" and np.asarray(y).dtype.kind in "iub" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _wrap(np.asarray(function(x, y)).astype(np.result_type(x, y), copy=False))
    if not isinstance(input, Tensor):  # remainder(number, tensor): PyTorch has no derivative; the composition does
        return _not_differentiable(out, "remainder", other)  # PyTorch has no derivative for this form
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


def fmod(input: Tensor, other: Any) -> Tensor:
    """input - trunc(input / other) * other: the remainder with the sign of ``input`` (C's fmod)."""
    return _fmod_or_remainder(input, other, np.fmod, (FmodBackward0, FmodBackward1), "fmod_cpu")


def remainder(input: Any, other: Any) -> Tensor:
    """input - floor(input / other) * other: the remainder with the sign of ``other`` (Python's %)."""
    return _fmod_or_remainder(input, other, _remainder_values, (RemainderBackward0, RemainderBackward1), "remainder_cpu")


def floor_divide(input: Any, other: Any) -> Tensor:
    """floor(input / other), as Python's // (PyTorch has no derivative for it: NotImplemented)."""
    out = arithmetic.div(_detached(input), _detached(other), rounding_mode="floor")
    return _not_differentiable(out, "floor_divide", input, other)


def float_power(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in float64, whatever the inputs' dtypes."""
    base = input.double() if isinstance(input, Tensor) else input
    power = exponent.double() if isinstance(exponent, Tensor) else exponent
    if not isinstance(base, Tensor):
        return arithmetic.pow(float(base), power)  # a number base: PowBackward2, as in PyTorch
    return base ** power


class FmaxBackward0(Node):
    """out = fmax(self, other): the gradient goes to whichever input was picked; a tie goes to
    self, and a nan ``other`` is never picked:  d/dself = grad * (self >= other or other is nan),
    d/dother = grad - d/dself."""

    other_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self._saved_self._data, self._saved_other._data
        from_self = grad * _constant(self.keeps(self_, other) | np.isnan(other), grad)
        return (from_self if self.needs_input_grad(0) else None, grad - from_self if self.needs_input_grad(1) else None)

    keeps = staticmethod(np.greater_equal)


class FminBackward0(FmaxBackward0):
    """out = fmin(self, other): as fmax, with self kept where self <= other."""

    keeps = staticmethod(np.less_equal)


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores a NaN (numpy's fmax); maximum propagates it."""
    out = _wrap(_values(np.fmax, input, other, floating=False))
    return record(out, FmaxBackward0, (input, other), self_=input, other_=other)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores a NaN (numpy's fmin)."""
    out = _wrap(_values(np.fmin, input, other, floating=False))
    return record(out, FminBackward0, (input, other), self_=input, other_=other)


def _xlogy_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x * log(y), and 0 where x is 0 (unless y is nan)."""
    return np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y))


class XlogyBackward0(Node):
    """out = xlogy(self, other), both tensors:  d/dself = grad * xlogy(self != 0, other) (log(other),
    or 0 where self is 0),  d/dother = grad * self / other."""

    other_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self._saved_self, self._saved_other
        return (grad * _xlogy_self_grad(self_, other) if self.needs_input_grad(0) else None,
                grad * self_ / other if self.needs_input_grad(1) else None)


class XlogyBackward1(Node):
    """out = xlogy(self, other) with ``self`` a number:  d/dother = grad * self / other."""

    other_: SavedTensor
    self: Any  # the number (PyTorch's name)

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self._saved_self / self._saved_other,)


class XlogyBackward2(Node):
    """out = xlogy(self, other) with ``other`` a number:  d/dself = grad * xlogy(self != 0, other)."""

    self_: SavedTensor
    other: Any

    def backward(self, grad: Tensor) -> tuple:
        return (grad * _xlogy_self_grad(self._saved_self, self._saved_other),)


def _xlogy_self_grad(self_: Tensor, other: Any) -> Tensor:
    """xlogy(self != 0, other), differentiable in ``other`` (for second derivatives)."""
    return xlogy(_constant(self_._data != 0, self_), other)


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), and 0 where input is 0 (even where other is 0)."""
    out = _wrap(_values(_xlogy_values, input, other))
    if not isinstance(input, Tensor):
        return record(out, XlogyBackward1, (other,), self=input, other_=other)
    if not isinstance(other, Tensor):
        return record(out, XlogyBackward2, (input,), self_=input, other=other)
    return record(out, XlogyBackward0, (input, other), self_=input, other_=other)


class LdexpBackward0(Node):
    """out = self * 2**other:  d/dself = grad * 2**other,  d/dother = grad * out * ln 2."""

    other_: SavedTensor
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        other = self._saved_other
        scale = (other * math.log(2)).exp() if other.is_floating_point() else _wrap(np.exp2(other._data).astype(grad._data.dtype))
        return (grad * scale if self.needs_input_grad(0) else None,
                grad * self._saved_result * math.log(2) if self.needs_input_grad(1) else None)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2 ** other (in floating point, whatever the inputs' dtypes)."""
    out = _wrap(_values(lambda x, e: x * np.exp2(e), input, other))
    return record(out, LdexpBackward0, (input, other), other_=other, result_=out)


def nextafter(input: Tensor, other: Any) -> Tensor:
    """The next floating point number after ``input`` in the direction of ``other``."""
    _check_floating("nextafter_cpu", input, other)
    out = _wrap(_values(np.nextafter, input, other))
    return record(out, NextafterBackward0, (input, other), self_=input, other_=other)


class NextafterBackward0(Node):
    """out = nextafter(self, other), one step from self towards other: d/dself = grad (the step is
    too small to count) where self != other, and 0 where they are equal (out is other there, as
    PyTorch counts it); d/dother = 0."""

    other_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        moves = _constant(self._saved_self._data != self._saved_other._data, grad)
        return (grad * moves if self.needs_input_grad(0) else None, grad * 0 if self.needs_input_grad(1) else None)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where input < 0, 1 where input > 0, ``values`` where input == 0 (not differentiable)."""
    if input.dtype is not values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes")
    return _not_differentiable(_wrap(_values(np.heaviside, input, values, floating=False)), "heaviside", input, values)


def _integer_op(name: str, function: Any) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        dtype = result_type(input, other)
        if dtype.is_floating_point:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar_type(dtype)}'")
        return _wrap(_values(function, input, other, floating=False))
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
    return apply_logical(np.logical_xor, input, other)


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


class NanToNumBackward0(Node):
    """The gradient passes where the value was finite and is 0 at the replaced places."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * _constant(np.isfinite(self._saved_self._data), grad),)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """NaN -> ``nan``, +inf -> ``posinf`` (the dtype's largest number by default), -inf -> ``neginf``."""
    if not input.dtype.is_floating_point:
        return input.clone()
    data, finfo = input._data, ml_dtypes.finfo(input._data.dtype)  # (numpy's finfo has no bfloat16)
    # (np.nan_to_num leaves bfloat16, which numpy does not count as floating point, unchanged)
    replaced = np.where(np.isnan(data), nan, data)
    replaced = np.where(data == np.inf, finfo.max if posinf is None else posinf, replaced)
    values = np.where(data == -np.inf, finfo.min if neginf is None else neginf, replaced).astype(data.dtype)
    return record(_wrap(values), NanToNumBackward0, (input,), self_=input)


class Rad2DegBackward0(Node):
    """out = self * 180 / pi:  d/dself = grad * 180 / pi."""

    _factor = 180.0 / math.pi

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self._factor,)


class Deg2RadBackward0(Rad2DegBackward0):
    """out = self * pi / 180:  d/dself = grad * pi / 180."""

    _factor = math.pi / 180.0


def _scaled(input: Tensor, node_class: type) -> Tensor:
    """input * the node's factor, in floating point (integers become the default dtype)."""
    out = _wrap(_values(lambda x: x * np.asarray(node_class._factor, x.dtype), input))
    return record(out, node_class, (input,))


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees: input * 180 / pi."""
    return _scaled(input, Rad2DegBackward0)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians: input * pi / 180."""
    return _scaled(input, Deg2RadBackward0)


def positive(input: Tensor) -> Tensor:
    """The input itself (PyTorch returns it, not a copy); bool refused as PyTorch refuses it."""
    if input.dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


_frexp = namedtuple("frexp", ["mantissa", "exponent"])


class return_types_frexp(_frexp):
    """``(mantissa, exponent)``, printed as PyTorch's ``torch.return_types.frexp``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glasstorch.return_types.frexp(\nmantissa={self.mantissa!r},\nexponent={self.exponent!r})"


class FrexpBackward0(Node):
    """mantissa = self / 2**exponent, the exponent a step function:  d/dself = grad / 2**exponent."""

    exponent_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * _wrap(np.exp2(-self._saved_exponent._data.astype(grad._data.dtype))),)


def frexp(input: Tensor) -> return_types_frexp:
    """input = mantissa * 2 ** exponent with 0.5 <= |mantissa| < 1 (floating inputs only)."""
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input._data)
    exponent = _wrap(exponent.astype(np.int32))
    return return_types_frexp(record(_wrap(mantissa), FrexpBackward0, (input,), exponent_=exponent), exponent)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """True where an element of ``elements`` is among ``test_elements``."""
    values = np.asarray(getattr(elements, "_data", elements))
    found = np.isin(values, np.asarray(getattr(test_elements, "_data", test_elements)), invert=invert)
    return _wrap(np.asarray(found))
