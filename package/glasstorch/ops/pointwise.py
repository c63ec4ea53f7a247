"""Elementwise functions of one tensor: abs, exp, log, sqrt, sin, cos, tanh, sigmoid, relu, clamp
(and clamp_min, clamp_max), the other logs, trigonometry, rounding and signs.

Each backward multiplies the incoming gradient by the function's derivative (the chain rule for
an elementwise function). Where the derivative is easiest to write with the function's *result*
(exp, tanh, sigmoid, sqrt, relu), the Node saves the output rather than the input, as PyTorch does.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._elementwise import apply_binary, floating_data
from ._util import compute_requires_grad, set_history


def _unary(input: Tensor, values: np.ndarray, node_class: type, *, save_input: bool = False,
           save_output: bool = False) -> Tensor:
    """Wrap ``values`` as the output of an elementwise op and record ``node_class`` for it."""
    out = _wrap(values)
    if compute_requires_grad(input):
        node = node_class(input)
        if save_input:
            node.self_ = SavedTensor(input)
        if save_output:
            node.result_ = SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


class AbsBackward0(Node):
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad * self_.sign(),)


def abs(input: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return _unary(input, np.abs(input._data), AbsBackward0, save_input=True)


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 elementwise. Its gradient is zero, but PyTorch records it (SignBackward0)."""
    return _signed(input)


class ExpBackward0(Node):
    """d exp(x) = exp(x): the saved output is the derivative."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad * result,)


def exp(input: Tensor) -> Tensor:
    with np.errstate(over="ignore"):  # exp(1000) = inf, silently, as in PyTorch
        values = np.exp(floating_data(input))
    return _unary(input, values, ExpBackward0, save_output=True)


class LogBackward0(Node):
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / self_,)


def log(input: Tensor) -> Tensor:
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf and log(-1) = nan, as in PyTorch
        values = np.log(floating_data(input))
    return _unary(input, values, LogBackward0, save_input=True)


class SqrtBackward0(Node):
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad / (2 * result),)


def sqrt(input: Tensor) -> Tensor:
    with np.errstate(invalid="ignore"):
        values = np.sqrt(floating_data(input))
    return _unary(input, values, SqrtBackward0, save_output=True)


class SinBackward0(Node):
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad * self_.cos(),)


def sin(input: Tensor) -> Tensor:
    return _unary(input, np.sin(floating_data(input)), SinBackward0, save_input=True)


class CosBackward0(Node):
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad * -self_.sin(),)


def cos(input: Tensor) -> Tensor:
    return _unary(input, np.cos(floating_data(input)), CosBackward0, save_input=True)


class TanhBackward0(Node):
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad * (1 - result * result),)


def tanh(input: Tensor) -> Tensor:
    return _unary(input, np.tanh(floating_data(input)), TanhBackward0, save_output=True)


class SigmoidBackward0(Node):
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad * result * (1 - result),)


def sigmoid(input: Tensor) -> Tensor:
    data = floating_data(input)
    # float16 and bfloat16 are computed in float32 and rounded once, as PyTorch does
    work = data.astype(np.float32) if data.dtype.itemsize < 4 else data
    # 1 / (1 + exp(-x)) overflows for very negative x; this form never does
    with np.errstate(over="ignore"):
        values = np.where(work >= 0, 1 / (1 + np.exp(-np.abs(work))), np.exp(-np.abs(work)) / (1 + np.exp(-np.abs(work))))
    return _unary(input, values.astype(data.dtype, copy=False), SigmoidBackward0, save_output=True)


class ReluBackward0(Node):
    """The gradient passes where the output is positive and stops where it is zero."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        passes = _wrap(result._data > 0)  # a mask has no gradient: no need to go through an op
        return (grad * passes,)


def relu(input: Tensor) -> Tensor:
    if input.dtype is dtypes.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return _unary(input, np.maximum(input._data, 0), ReluBackward0, save_output=True)


class ClampBackward1(Node):
    """The gradient passes where ``min <= self <= max`` and is zero where the clamp cut."""

    self_: SavedTensor
    min: Any
    max: Any

    def backward(self, grad: Tensor) -> tuple:
        inside = _wrap(_inside(self._saved_self._data, self.min, self.max))
        return (grad * inside,)


def _inside(data: np.ndarray, low: Any, high: Any) -> np.ndarray:
    mask = np.ones(data.shape, dtype=bool)
    if low is not None:
        mask &= data >= low
    if high is not None:
        mask &= data <= high
    return mask


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
    if min is None and max is None:
        raise RuntimeError("glasstorch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(input, min, max)
    target = dtypes.result_type(input, *(b for b in (min, max) if b is not None)).numpy_dtype
    values = np.clip(input._data.astype(target, copy=False), min, max).astype(target, copy=False)  # (bfloat16 clips to float32)
    out = _unary(input, values, ClampBackward1, save_input=True)
    if out.grad_fn is not None:
        out.grad_fn.min, out.grad_fn.max = min, max
    return out


class ClampBackward0(Node):
    """clamp with tensor bounds, out = minimum(maximum(self, min), max) elementwise: each place's
    gradient goes to whichever of self, min and max gave its value (max wins where min > max)."""

    self_: SavedTensor
    min_: SavedTensor
    max_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from_self, from_min, from_max = _clamp_sources(self._saved_self, self._saved_min, self._saved_max)
        return (grad * _wrap(from_self),
                grad * _wrap(from_min) if self.needs_input_grad(1) else None,
                grad * _wrap(from_max) if self.needs_input_grad(2) else None)


def _clamp_sources(self_: Tensor, low: Tensor | None, high: Tensor | None) -> tuple:
    """Three masks: where the clamp's value came from self, from min, from max."""
    x = self_._data
    from_max = np.zeros(x.shape, bool) if high is None else x > high._data
    if low is not None and high is not None:
        from_max = from_max | (low._data > high._data)
    from_min = np.zeros(x.shape, bool) if low is None else (x < low._data) & ~from_max
    return ~(from_min | from_max), from_min, from_max


def _clamp_tensor(input: Tensor, min: Tensor | None, max: Tensor | None) -> Tensor:  # noqa: A002
    """The clamp whose bounds are tensors (they broadcast, as in PyTorch)."""
    low, high = _as_bound(input, min), _as_bound(input, max)
    values = input._data
    if low is not None:
        values = np.maximum(values, low._data)
    if high is not None:
        values = np.minimum(values, high._data)
    out = _wrap(np.asarray(values, dtype=dtypes.result_type(input, *(b for b in (low, high) if b is not None)).numpy_dtype))
    if compute_requires_grad(input, low, high):
        node = ClampBackward0(input, low, high)
        node.self_ = SavedTensor(input)
        node.min_, node.max_ = (None if b is None else SavedTensor(b) for b in (low, high))
        set_history(out, node)
    return out


class _OneSidedClampBackward(Node):
    """clamp_min / clamp_max: the gradient passes to self where self kept its value (ties
    included), and to a tensor bound everywhere else."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from_self = grad * _wrap(self.kept(self._saved_self._data, _bound_data(self.bound())))
        if len(self._next) == 1:  # a number bound
            return (from_self,)
        return (from_self if self.needs_input_grad(0) else None, grad - from_self if self.needs_input_grad(1) else None)


class ClampMinBackward0(_OneSidedClampBackward):
    """out = max(self, min), ``min`` a number: d/dself = grad where self >= min."""

    min: Any
    kept = staticmethod(np.greater_equal)

    def bound(self) -> Any:
        return self.min


class ClampMinBackward1(_OneSidedClampBackward):
    """out = max(self, min), ``min`` a tensor: d/dself = grad where self >= min, d/dmin = grad elsewhere."""

    min_: SavedTensor
    kept = staticmethod(np.greater_equal)

    def bound(self) -> Tensor:
        return self._saved_min


class ClampMaxBackward0(_OneSidedClampBackward):
    """out = min(self, max), ``max`` a number: d/dself = grad where self <= max."""

    max: Any
    kept = staticmethod(np.less_equal)

    def bound(self) -> Any:
        return self.max


class ClampMaxBackward1(_OneSidedClampBackward):
    """out = min(self, max), ``max`` a tensor: d/dself = grad where self <= max, d/dmax = grad elsewhere."""

    max_: SavedTensor
    kept = staticmethod(np.less_equal)

    def bound(self) -> Tensor:
        return self._saved_max


def _bound_data(bound: Any) -> Any:
    return bound._data if isinstance(bound, Tensor) else bound


def _one_sided_clamp(input: Tensor, bound: Any, ufunc: Any, nodes: tuple, name: str) -> Tensor:
    """clamp_min / clamp_max: ``ufunc(input, bound)`` (np.maximum / np.minimum) with its own Node."""
    out = _wrap(apply_binary(ufunc, input, bound))
    tensor_bound = isinstance(bound, Tensor)
    if compute_requires_grad(input, bound):
        node = nodes[1](input, bound) if tensor_bound else nodes[0](input)
        node.self_ = SavedTensor(input)
        setattr(node, name + "_" if tensor_bound else name, SavedTensor(bound) if tensor_bound else bound)
        set_history(out, node)
    return out


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002 - PyTorch's names
    """``clamp(input, min=min)`` as its own op (PyTorch records ClampMinBackward0/1)."""
    return _one_sided_clamp(input, min, np.maximum, (ClampMinBackward0, ClampMinBackward1), "min")


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)`` as its own op (PyTorch records ClampMaxBackward0/1)."""
    return _one_sided_clamp(input, max, np.minimum, (ClampMaxBackward0, ClampMaxBackward1), "max")


def _as_bound(input: Tensor, bound: Any) -> Tensor | None:
    """A clamp bound as a tensor of ``input``'s dtype (a number beside a tensor bound becomes one)."""
    if bound is None or isinstance(bound, Tensor):
        return bound
    return _wrap(np.asarray(bound, dtype=input._data.dtype))


# --- more elementwise functions (issue 14): logs in other bases, inverse trigonometry, rounding -----
_LN10, _LN2 = float(np.log(10.0)), float(np.log(2.0))


def _quiet(function: Any, data: np.ndarray) -> np.ndarray:
    """``function(data)`` where inf and nan are ordinary results (log10(0), asin(2)), as in PyTorch."""
    with np.errstate(all="ignore"):
        return function(data)


class Log10Backward0(Node):
    """d log10(x) = 1 / (x ln 10)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (self_ * _LN10),)


def log10(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.log10, floating_data(input)), Log10Backward0, save_input=True)


class Log2Backward0(Node):
    """d log2(x) = 1 / (x ln 2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (self_ * _LN2),)


def log2(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.log2, floating_data(input)), Log2Backward0, save_input=True)


class Log1PBackward0(Node):
    """d log(1 + x) = 1 / (1 + x)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (self_ + 1),)


def log1p(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.log1p, floating_data(input)), Log1PBackward0, save_input=True)


class Expm1Backward0(Node):
    """d (exp(x) - 1) = exp(x) = result + 1."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad * (result + 1),)


def expm1(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.expm1, floating_data(input)), Expm1Backward0, save_output=True)


class AsinBackward0(Node):
    """d asin(x) = 1 / sqrt(1 - x**2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (1 - self_ * self_).sqrt(),)


def asin(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.arcsin, floating_data(input)), AsinBackward0, save_input=True)


class AcosBackward0(Node):
    """d acos(x) = -1 / sqrt(1 - x**2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (-grad / (1 - self_ * self_).sqrt(),)


def acos(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.arccos, floating_data(input)), AcosBackward0, save_input=True)


class AtanBackward0(Node):
    """d atan(x) = 1 / (1 + x**2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (self_ * self_ + 1),)


def atan(input: Tensor) -> Tensor:
    return _unary(input, np.arctan(floating_data(input)), AtanBackward0, save_input=True)


class TanBackward0(Node):
    """d tan(x) = 1 + tan(x)**2 = 1 + result**2."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad * (result * result + 1),)


def tan(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.tan, floating_data(input)), TanBackward0, save_output=True)


class SinhBackward0(Node):
    """d sinh(x) = cosh(x)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self._saved_self.cosh(),)


def sinh(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.sinh, floating_data(input)), SinhBackward0, save_input=True)


class CoshBackward0(Node):
    """d cosh(x) = sinh(x)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self._saved_self.sinh(),)


def cosh(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.cosh, floating_data(input)), CoshBackward0, save_input=True)


class AsinhBackward0(Node):
    """d asinh(x) = 1 / sqrt(x**2 + 1)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (self_ * self_ + 1).sqrt(),)


def asinh(input: Tensor) -> Tensor:
    return _unary(input, np.arcsinh(floating_data(input)), AsinhBackward0, save_input=True)


class AcoshBackward0(Node):
    """d acosh(x) = 1 / sqrt(x**2 - 1)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (self_ * self_ - 1).sqrt(),)


def acosh(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.arccosh, floating_data(input)), AcoshBackward0, save_input=True)


class AtanhBackward0(Node):
    """d atanh(x) = 1 / (1 - x**2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad / (1 - self_ * self_),)


def atanh(input: Tensor) -> Tensor:
    return _unary(input, _quiet(np.arctanh, floating_data(input)), AtanhBackward0, save_input=True)


class AcoshBackward1(Node):
    """``x.acosh_()``: PyTorch records the in-place op but has no derivative for it; a backward
    through it is PyTorch's error."""

    _op = "acosh"

    def backward(self, grad: Tensor) -> tuple:
        raise NotImplementedError(f"the derivative for 'inplace version of {self._op}' is not implemented.")


class AsinhBackward1(AcoshBackward1):
    _op = "asinh"


class AtanhBackward1(AcoshBackward1):
    _op = "atanh"


def without_derivative(input: Tensor, function: Any, node_class: type) -> Tensor:
    """``function(input)`` recorded with ``node_class``, whose backward is an error (acosh_ ...)."""
    out = function(input.detach())
    if compute_requires_grad(input):
        set_history(out, node_class(input))
    return out


class Atan2Backward0(Node):
    """out = atan2(self, other), the angle of the point (other, self):
    d/dself = other / (self**2 + other**2),  d/dother = -self / (self**2 + other**2)
    (each summed back to its input's shape by the engine where the inputs broadcast)."""

    other_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self._saved_self, self._saved_other
        scaled = grad / (self_ * self_ + other * other)
        return (scaled * other if self.needs_input_grad(0) else None,
                -scaled * self_ if self.needs_input_grad(1) else None)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    out = _wrap(apply_binary(np.arctan2, input, other, floating=True, quiet=True))
    if compute_requires_grad(input, other):
        node = Atan2Backward0(input, other)
        node.self_, node.other_ = SavedTensor(input), SavedTensor(other)
        set_history(out, node)
    return out


arctan2 = atan2


class RsqrtBackward0(Node):
    """d x**-0.5 = -0.5 x**-1.5 = -0.5 result**3."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        return (grad * result * result * result * -0.5,)


def rsqrt(input: Tensor) -> Tensor:
    return _unary(input, _quiet(lambda x: 1 / np.sqrt(x), floating_data(input)), RsqrtBackward0, save_output=True)


def square(input: Tensor) -> Tensor:
    """``input * input``, recorded as PyTorch records it: ``pow(input, 2)`` (bool becomes int64)."""
    from .arithmetic import pow

    return pow(input.long() if input.dtype is dtypes.bool else input, 2)


# Step functions: flat almost everywhere, so their gradient is zero (PyTorch records them anyway,
# so a graph through them stays connected).
class _StepBackward(Node):
    def backward(self, grad: Tensor) -> tuple:
        return (grad * 0,)


class SignBackward0(_StepBackward):
    pass


class CeilBackward0(_StepBackward):
    pass


class FloorBackward0(_StepBackward):
    pass


class TruncBackward0(_StepBackward):
    pass


class RoundBackward0(_StepBackward):
    pass


class RoundBackward1(_StepBackward):
    """``round(decimals=d)``."""


def _step(input: Tensor, function: Any, node_class: type, kernel: str) -> Tensor:
    """Integers are already whole: they come back as a copy (PyTorch's answer too); PyTorch has
    no kernel for bool (``kernel`` names the one its message names)."""
    data = input._data
    if data.dtype == np.bool_ or (kernel == "round_cpu" and data.dtype.kind in "iu"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(input.dtype)}\'')
    values = data.copy() if data.dtype.kind in "iu" else function(data)
    return _unary(input, values, node_class)


def ceil(input: Tensor) -> Tensor:
    return _step(input, np.ceil, CeilBackward0, "ceil_vml_cpu")


def floor(input: Tensor) -> Tensor:
    return _step(input, np.floor, FloorBackward0, "floor_vml_cpu")


def trunc(input: Tensor) -> Tensor:
    return _step(input, np.trunc, TruncBackward0, "trunc_vml_cpu")


fix = trunc


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 - PyTorch's name
    """To the nearest integer, halves to even (``round(2.5) == 2``), as PyTorch and numpy do.
    With ``decimals=d``: as PyTorch, ``rint(x * 10**d) / 10**d`` (for d < 0, ``rint(x / 10**-d) * 10**-d``)."""
    if decimals == 0:
        return _step(input, np.rint, RoundBackward0, "round_vml_cpu")
    scale = 10.0 ** (decimals if decimals > 0 else -decimals)  # (abs is this module's op)

    def rounded(x: np.ndarray) -> np.ndarray:
        work = x.astype(np.float32) if x.itemsize < 4 else x  # float16, bfloat16: in float32, as PyTorch
        ten = np.asarray(scale, work.dtype)
        return (np.rint(work * ten) / ten if decimals > 0 else np.rint(work / ten) * ten).astype(x.dtype)

    return _step(input, rounded, RoundBackward1, "round_cpu")  # (no integer kernel with decimals)


def _signed(input: Tensor, node_class: type = SignBackward0, *, save: bool = False) -> Tensor:
    """sign: -1, 0 or 1; bool stays bool."""
    data = input._data
    values = data.copy() if data.dtype == np.bool_ else np.sign(data)
    return _unary(input, values, node_class, save_input=save, save_output=save)


class SgnBackward0(_StepBackward):
    """Zero for real inputs; PyTorch saves self and the result for the complex formula."""

    self_: SavedTensor
    result_: SavedTensor


def sgn(input: Tensor) -> Tensor:
    """``sign`` extended to complex numbers (x / |x|) in PyTorch; for the real tensors glasstorch
    has, the same as ``sign``, recorded as PyTorch records it (SgnBackward0)."""
    return _signed(input, SgnBackward0, save=True)


class FracBackward0(Node):
    """frac(x) = x - trunc(x): its derivative is 1."""

    def backward(self, grad: Tensor) -> tuple:
        return (grad,)


def frac(input: Tensor) -> Tensor:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"frac_cpu" not implemented for \'{scalar_type_name(input.dtype)}\'')
    return _unary(input, input._data - np.trunc(input._data), FracBackward0)
