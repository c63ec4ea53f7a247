"""More activation functions of aten/src/ATen/native/Activation.cpp, each recorded as PyTorch
records it: ``elu`` (``EluBackward0``, also behind ``selu``), ``silu``, ``mish``, ``softplus``,
``hardtanh`` (also behind ``relu6``), ``log_sigmoid``, ``glu`` and ``prelu``
(``PreluKernelBackward0``). ``leaky_relu`` and ``gelu`` are in activation.py.

Each backward is written with tensor ops (the derivative's piecewise choice as a constant 0/1
mask), so ``create_graph=True`` differentiates it again.

The in-place forms (``elu_``, ``celu_``, ``selu_``, ``hardtanh_``, ``threshold_``, ``silu_``,
``mish_``, ``hardswish_``, ``hardsigmoid_``: what ``F.elu(x, inplace=True)`` runs) record the Node
PyTorch records for them: ``EluBackward1`` and ``CeluBackward1`` save the *result* (the input is
overwritten) and read the derivative off it; ``ThresholdBackward1`` is threshold's in-place Node;
the others keep their out-of-place Node's name.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._nn_checks import _check_floating, _work
from ._util import compute_requires_grad, set_history
from .inplace import apply_inplace


# --- elementwise activations with a constant-shaped derivative ------------------------------------
def _record(input: Tensor, values: np.ndarray, node_class: type, **fields: float) -> Tensor:
    """Wrap ``values`` (in the input's dtype) and, if needed, record ``node_class`` saving the input
    (or its result, for the in-place forms' Nodes that say ``saves_result``)."""
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input):
        node = node_class(input)
        if getattr(node_class, "saves_result", False):
            node.result_ = SavedTensor(out, is_output=True)
        else:
            node.self_ = SavedTensor(input)
        for name, value in fields.items():
            setattr(node, name, value)
        set_history(out, node)
    return out


def _mask(condition: np.ndarray, like: Tensor) -> Tensor:
    """A 0/1 constant in ``like``'s dtype: where a derivative takes one formula or the other."""
    return _wrap(condition.astype(like._data.dtype))


class EluBackward0(Node):
    """out = scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1):
    grad_input = grad * scale, or grad * scale * alpha * input_scale * exp(input_scale * x)."""

    alpha: float
    scale: float
    input_scale: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        positive = _mask(x._data > 0, x)
        # clamp(max=0): exp of a large positive x would overflow to inf, and inf * 0 is nan
        negative = (x.clamp(max=0) * self.input_scale).exp() * (self.scale * self.alpha * self.input_scale)
        return (grad * (positive * self.scale + (1 - positive) * negative),)


class EluBackward1(Node):
    """The in-place elu saves its result r: where r > 0 the slope is ``scale``, elsewhere
    r = scale * alpha * (exp(input_scale * x) - 1), so the slope is input_scale * (r + scale * alpha)."""

    saves_result = True
    alpha: float
    scale: float
    input_scale: float
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        positive = _mask(result._data > 0, result)
        negative = (result + self.scale * self.alpha) * self.input_scale
        return (grad * (positive * self.scale + (1 - positive) * negative),)


def elu(input: Tensor, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0,
        _node_class: type = EluBackward0) -> Tensor:
    """scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1) (``selu`` is one case)."""
    _check_floating(input, "elu")
    x = _work(input._data)
    with np.errstate(over="ignore"):
        values = np.where(x > 0, x * scale, np.expm1(np.minimum(x, 0) * input_scale) * (alpha * scale))
    return _record(input, values, _node_class, alpha=float(alpha), scale=float(scale), input_scale=float(input_scale))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``elu`` written into ``input`` (``EluBackward1``, which saves the result)."""
    return apply_inplace(input, lambda old: elu(old, alpha, _node_class=EluBackward1))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al."""
    return elu(input, _SELU_ALPHA, _SELU_SCALE)


def selu_(input: Tensor) -> Tensor:
    """``selu`` written into ``input`` (PyTorch runs ``elu_``: ``EluBackward1``)."""
    return apply_inplace(input, lambda old: elu(old, _SELU_ALPHA, _SELU_SCALE, _node_class=EluBackward1))


class SiluBackward0(Node):
    """out = x * sigmoid(x): grad_input = grad * s * (1 + x * (1 - s)), s = sigmoid(x)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        s = x.sigmoid()
        return (grad * (s * (1 + x * (1 - s))),)


def _sigmoid_values(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def silu(input: Tensor) -> Tensor:
    """x * sigmoid(x) (also called swish)."""
    _check_floating(input, "silu")
    x = _work(input._data)
    return _record(input, x * _sigmoid_values(x), SiluBackward0)


def _softplus_values(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (where they agree in float)."""
    with np.errstate(over="ignore"):
        return np.where(x * beta > threshold, x, np.log1p(np.exp(np.minimum(x * beta, threshold))) / beta)


class SoftplusBackward0(Node):
    """grad_input = grad * sigmoid(beta x), or grad where beta x > threshold (the linear part)."""

    beta: float
    threshold: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        linear = _mask(x._data * self.beta > self.threshold, x)
        return (grad * (linear + (1 - linear) * (x * self.beta).sigmoid()),)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """A smooth relu: log(1 + exp(beta x)) / beta."""
    _check_floating(input, "softplus")
    return _record(input, _softplus_values(_work(input._data), beta, threshold), SoftplusBackward0,
                   beta=float(beta), threshold=float(threshold))


class MishBackward0(Node):
    """out = x * tanh(softplus(x)): grad_input = grad * (t + x * sigmoid(x) * (1 - t**2)), t = tanh(softplus(x))."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        t = softplus(x).tanh()
        return (grad * (t + x * x.sigmoid() * (1 - t * t)),)


def mish(input: Tensor) -> Tensor:
    """x * tanh(softplus(x))."""
    _check_floating(input, "mish")
    x = _work(input._data)
    return _record(input, x * np.tanh(_softplus_values(x, 1.0, 20.0)), MishBackward0)


class HardtanhBackward0(Node):
    """out = clamp(x, min_val, max_val): grad_input = grad where min_val < x < max_val, else 0."""

    min_val: float
    max_val: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        return (grad * _mask((x._data > self.min_val) & (x._data < self.max_val), x),)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """x clamped to [min_val, max_val] (``relu6`` is hardtanh(x, 0, 6))."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    data = input._data
    if data.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if data.dtype.kind in "iu":  # an integer tensor is clamped to the bounds cast to its type (truncated)
        return _wrap(np.clip(data, int(min_val), int(max_val)).astype(data.dtype))
    return _record(input, np.clip(data, min_val, max_val), HardtanhBackward0,
                   min_val=float(min_val), max_val=float(max_val))


class LogSigmoidBackward0(Node):
    """out = log(sigmoid(x)) = -softplus(-x): grad_input = grad * sigmoid(-x). (PyTorch's CPU
    kernel also saves ``buffer`` = exp(-|x|), from which its backward computes the same.)"""

    self_: SavedTensor
    buffer_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * (-self._saved_self).sigmoid(),)


def log_sigmoid(input: Tensor) -> Tensor:
    """log(1 / (1 + exp(-x))), computed without overflow as min(x, 0) - log1p(exp(-|x|))."""
    _check_floating(input, "log_sigmoid_forward")
    x = _work(input._data)
    buffer = np.exp(-np.abs(x))
    out = _record(input, np.minimum(x, 0) - np.log1p(buffer), LogSigmoidBackward0)
    if out.grad_fn is not None:
        out.grad_fn.buffer_ = SavedTensor(_wrap(buffer.astype(input._data.dtype, copy=False)))
    return out


# --- glu and prelu: activations with a structure -----------------------------------------------------
class GluBackward0(Node):
    """out = a * sigmoid(b), (a, b) the two halves of x along ``dim``:
    grad_a = grad * sigmoid(b), grad_b = grad * a * sigmoid(b) * (1 - sigmoid(b))."""

    dim: int
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from .shape import cat

        a, b = self._saved_self.chunk(2, self.dim)
        s = b.sigmoid()
        return (cat([grad * s, grad * a * s * (1 - s)], self.dim),)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second half."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = dim % input.dim() if -input.dim() <= dim < input.dim() else dim
    size = input.shape[axis]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {size}")
    _check_floating(input, "glu")
    a, b = np.split(_work(input._data), 2, axis=axis)
    return _record(input, a * _sigmoid_values(b), GluBackward0, dim=dim)


class PreluKernelBackward0(Node):
    """out = x where x > 0, else w * x, with one w per channel (dim 1) or one for all:
    grad_x = grad * (1 or w), grad_w = the sum of grad * x where x <= 0 over all but the channels."""

    self_: SavedTensor
    weight_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x, weight = self._saved_self, self._saved_weight
        positive = _mask(x._data > 0, x)
        w = _channel_view(weight, x.dim())
        grad_x = grad * (positive + (1 - positive) * w) if self.needs_input_grad(0) else None
        grad_w = None
        if self.needs_input_grad(1):
            per_element = grad * x * (1 - positive)
            dims = [d for d in range(x.dim()) if weight.numel() == 1 or d != min(1, x.dim() - 1)]
            grad_w = (per_element.sum(dims) if dims else per_element).reshape(weight.shape)
        return grad_x, grad_w


def _channel_view(weight: Tensor, ndim: int) -> Tensor:
    """The weight shaped to broadcast along the channel dim (dim 1, or dim 0 of a 1-D input)."""
    if weight.numel() == 1 or ndim < 2:
        return weight.reshape(()) if weight.numel() == 1 else weight
    return weight.reshape((1, weight.numel()) + (1,) * (ndim - 2))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """leaky_relu whose negative slope ``weight`` is learned (one per channel, or one for all)."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    channels = 1 if input.dim() == 0 else input.shape[min(1, input.dim() - 1)]
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    _check_floating(input, "prelu_cpu")
    x = input._data
    w = _channel_view(weight, input.dim())._data
    out = _wrap(np.where(x > 0, x, x * w).astype(x.dtype, copy=False))
    if compute_requires_grad(input, weight):
        node = PreluKernelBackward0(input, weight)
        node.self_, node.weight_ = SavedTensor(input), SavedTensor(weight)
        set_history(out, node)
    return out


# --- piecewise activations whose derivative is a constant mask (or a line) ------------------------
class CeluBackward0(Node):
    """out = x for x > 0, else alpha * (exp(x / alpha) - 1): grad_input = grad or grad * exp(x / alpha)."""

    alpha: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        positive = _mask(x._data > 0, x)
        # PyTorch's formula (derivatives.yaml) takes 1 / alpha.toFloat(): alpha rounded to float32
        input_scale = 1.0 / float(np.float32(self.alpha))
        negative = (x.clamp(max=0) * input_scale).exp() * (input_scale * self.alpha)
        return (grad * (positive + (1 - positive) * negative),)


class CeluBackward1(Node):
    """The in-place celu saves its result r = alpha * (exp(x / alpha) - 1) where x <= 0, so there
    the slope is exp(x / alpha) = (r + alpha) / alpha (1 / alpha rounded to float32, as PyTorch)."""

    saves_result = True
    alpha: float
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        result = self._saved_result
        positive = _mask(result._data > 0, result)
        negative = (result + self.alpha) * (1.0 / float(np.float32(self.alpha)))
        return (grad * (positive + (1 - positive) * negative),)


def celu(input: Tensor, alpha: float = 1.0, _node_class: type = CeluBackward0) -> Tensor:
    """elu with input_scale 1 / alpha: continuously differentiable for every alpha."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    _check_floating(input, "elu")
    x = _work(input._data)
    return _record(input, np.where(x > 0, x, np.expm1(np.minimum(x, 0) / alpha) * alpha), _node_class,
                   alpha=float(alpha))


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu`` written into ``input`` (``CeluBackward1``, which saves the result)."""
    return apply_inplace(input, lambda old: celu(old, alpha, _node_class=CeluBackward1))


class HardswishBackward0(Node):
    """out = x * relu6(x + 3) / 6: grad_input = 0 below -3, grad above 3, grad * (2x + 3) / 6 between."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        between = _mask((x._data > -3) & (x._data < 3), x)
        above = _mask(x._data >= 3, x)
        return (grad * (between * (x * (2 / 6) + 0.5) + above),)


def hardswish(input: Tensor) -> Tensor:
    """x * relu6(x + 3) / 6 (MobileNetV3's cheap swish)."""
    _check_floating(input, "hardswish_cpu")
    x = _work(input._data)
    return _record(input, x * np.clip(x + 3, 0, 6) / 6, HardswishBackward0)


class HardsigmoidBackward0(Node):
    """out = relu6(x + 3) / 6: grad_input = grad / 6 between -3 and 3, else 0."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        return (grad * (_mask((x._data > -3) & (x._data < 3), x) * _ONE_SIXTH),)


_ONE_SIXTH = float(np.float32(1.0 / 6.0))  # PyTorch's kernel constant is a float: 1.0f / 6.0f


def hardsigmoid(input: Tensor) -> Tensor:
    """relu6(x + 3) / 6: a piecewise-linear sigmoid."""
    _check_floating(input, "hardsigmoid_cpu")
    return _record(input, np.clip(_work(input._data) + 3, 0, 6) / 6, HardsigmoidBackward0)


class ThresholdBackward0(Node):
    """out = x where x > threshold, else value: grad_input = grad where x > threshold, else 0."""

    threshold: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        return (grad * _mask(x._data > self.threshold, x),)


class ThresholdBackward1(ThresholdBackward0):
    """The in-place threshold: the same derivative, PyTorch's Node of ``threshold_``."""


def threshold(input: Tensor, threshold: float, value: float, _node_class: type = ThresholdBackward0) -> Tensor:
    """x where x > threshold, else ``value``."""
    x = input._data
    return _record(input, np.where(x > threshold, x, np.asarray(value, x.dtype)), _node_class,
                   threshold=float(threshold))


def threshold_(input: Tensor, threshold_value: float, value: float) -> Tensor:
    """``threshold`` written into ``input`` (``ThresholdBackward1``)."""
    return apply_inplace(input, lambda old: threshold(old, threshold_value, value, _node_class=ThresholdBackward1))


def _in_place(function: Any) -> Any:
    """``function`` written into its input, recording ``function``'s own Node (as PyTorch's
    ``silu_``, ``hardtanh_`` ... record ``SiluBackward0``, ``HardtanhBackward0`` ...)."""
    def in_place(input: Tensor, *args: Any) -> Tensor:
        return apply_inplace(input, lambda old: function(old, *args))

    in_place.__name__ = function.__name__ + "_"
    in_place.__doc__ = f"``{function.__name__}`` written into ``input`` (its own Node)."
    return in_place


hardtanh_ = _in_place(hardtanh)
silu_ = _in_place(silu)
mish_ = _in_place(mish)
hardswish_ = _in_place(hardswish)
hardsigmoid_ = _in_place(hardsigmoid)


class HardshrinkBackward0(Node):
    """out = x where |x| > lambd, else 0: grad_input = grad where |x| > lambd."""

    lambd: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        return (grad * _mask(np.abs(x._data) > self.lambd, x),)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    _check_floating(input, "hardshrink_cpu")
    x = input._data
    return _record(input, np.where(np.abs(x) > lambd, x, 0), HardshrinkBackward0, lambd=float(lambd))


class SoftshrinkBackward0(Node):
    """out = x - lambd above lambd, x + lambd below -lambd, else 0: grad_input = grad where |x| > lambd."""

    lambd: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        return (grad * _mask(np.abs(x._data) > self.lambd, x),)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x shrunk towards 0 by ``lambd`` (0 inside [-lambd, lambd])."""
    _check_floating(input, "softshrink_cpu")
    largest = float(np.finfo(_work(input._data[:0]).dtype if input._data.dtype.kind == "V" else input._data.dtype).max)
    if not 0 <= lambd <= largest:
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{input.dtype.legacy_name[:-6]}, but found {lambd:g}")
    x = _work(input._data)
    return _record(input, np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)), SoftshrinkBackward0,
                   lambd=float(lambd))
