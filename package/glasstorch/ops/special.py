"""Special functions of one tensor: ``erfc``, ``erfinv``, ``logit``, ``exp2``, ``sinc``, ``entr`` (``erf``
lives in activation.py, beside ``gelu``, which needs it). Mirrors aten/src/ATen/native/UnaryOps.cpp
and the formulas of tools/autograd/derivatives.yaml; ``glasstorch.special`` gathers them under
PyTorch's ``torch.special`` names.

Each is recorded as one Node with PyTorch's name, its derivative in the docstring, and a backward
written with tensor ops (so ``create_graph=True`` differentiates it again).
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._elementwise import floating_data
from ._util import record
from .activation import _erf_values, erf
from .indexing import where

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


# --- erfc ---------------------------------------------------------------------------------------
class ErfcBackward0(Node):
    """d erfc(x) / dx = -2 / sqrt(pi) * exp(-x**2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        return (grad * -_TWO_OVER_SQRT_PI * (-(x * x)).exp(),)


def erfc(input: Tensor) -> Tensor:
    """1 - erf(x), computed directly: for large x, 1 - erf(x) would lose every digit (erfc(5) is
    1.5e-12). numpy has no erfc; Python's ``math.erfc`` computes one element at a time."""
    data = floating_data(input)
    values = _erfc_values(data).astype(data.dtype)
    return record(_wrap(values), ErfcBackward0, (input,), self_=input)


# --- erfinv -------------------------------------------------------------------------------------
def _erfinv_start(y: np.ndarray) -> np.ndarray:
    """Giles's approximation ("Approximating the erfinv function", GPU Computing Gems, 2011): a
    polynomial in w = -log(1 - y**2), about 7 correct digits, the start for Newton's method."""
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
    central = w - 2.5
    p_central = np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941], central)
    tail = np.sqrt(np.maximum(w, 5.0)) - 3.0
    p_tail = np.polyval([-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682], tail)
    return np.where(w < 5.0, p_central, p_tail) * y


def _erfc_values(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _erfinv_values(y: np.ndarray) -> np.ndarray:
    """The x with erf(x) = y: Giles's start, then Newton steps, each of which doubles the correct
    digits. For |y| < 1/2 they solve erf(x) = y; nearer +-1 they solve erfc(|x|) = 1 - |y|, because
    1 - |y| keeps the digits that erf(x) - y would cancel away. erfinv(+-1) = +-inf; outside
    [-1, 1] it is nan."""
    y = y.astype(np.float64)
    inside = np.abs(y) < 1
    target = np.where(inside, y, 0.0)
    x = _erfinv_start(target)
    central = np.abs(target) < 0.5
    for _ in range(3):
        slope = _TWO_OVER_SQRT_PI * np.exp(-x * x)
        tail_step = np.sign(x) * (_erfc_values(np.abs(x)) - (1 - np.abs(target))) / slope
        x = x - np.where(central, (_erf_values(x) - target) / slope, -tail_step)
    with np.errstate(invalid="ignore"):
        return np.where(inside, x, np.where(np.abs(y) == 1, np.sign(y) * np.inf, np.nan))


class ErfinvBackward0(Node):
    """d erfinv(y) / dy = sqrt(pi) / 2 * exp(erfinv(y)**2): one over erf's derivative there."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = erfinv(self._saved_self)
        return (grad * (math.sqrt(math.pi) / 2) * (x * x).exp(),)


def erfinv(input: Tensor) -> Tensor:
    data = floating_data(input)
    return record(_wrap(_erfinv_values(data).astype(data.dtype)), ErfinvBackward0, (input,), self_=input)


# --- logit ----------------------------------------------------------------------------------------
class LogitBackward0(Node):
    """d log(x / (1 - x)) / dx = 1 / (x (1 - x)). With ``eps`` the input was clamped to
    [eps, 1 - eps] first: outside it the gradient is 0 (PyTorch: nan outside [0, 1] without eps)."""

    eps: float | None
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        derivative = grad / (x * (1 - x))
        if self.eps is None:
            return (where((x < 0) | (x > 1), float("nan"), derivative),)
        return (where((x < self.eps) | (x > 1 - self.eps), 0.0, derivative),)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), the inverse of sigmoid; ``eps`` clamps x to [eps, 1 - eps] first."""
    data = floating_data(input)
    x = data if eps is None else np.clip(data, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log(x / (1 - x)).astype(data.dtype)
    return record(_wrap(values), LogitBackward0, (input,), self_=input, eps=eps)


# --- exp2 and sinc --------------------------------------------------------------------------------
class Exp2Backward0(Node):
    """d 2**x / dx = 2**x * log(2): the saved output times a constant."""

    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self._saved_result * math.log(2.0),)


def exp2(input: Tensor) -> Tensor:
    data = floating_data(input)
    with np.errstate(over="ignore"):
        out = _wrap(np.exp2(data))
    return record(out, Exp2Backward0, (input,), result_=out)


class SincBackward0(Node):
    """sinc(x) = sin(pi x) / (pi x); its derivative (cos(pi x) pi x - sin(pi x)) / (pi x**2) is 0
    at x = 0, where sinc has its maximum."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        safe = where(x == 0, 1.0, x)  # the formula is 0/0 at 0: evaluate it elsewhere, then put 0 there
        pi_x = math.pi * safe
        derivative = (pi_x.cos() * pi_x - pi_x.sin()) / (pi_x * safe)
        return (grad * where(x == 0, 0.0, derivative),)


def sinc(input: Tensor) -> Tensor:
    """The normalised sinc, numpy's ``np.sinc``: 1 at x = 0."""
    data = floating_data(input)
    return record(_wrap(np.sinc(data).astype(data.dtype)), SincBackward0, (input,), self_=input)


# --- entr -----------------------------------------------------------------------------------------
class SpecialEntrBackward0(Node):
    """d (-x log x) / dx = -(log x + 1)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * -(self._saved_self.log() + 1),)


def entr(input: Tensor) -> Tensor:
    """-x log x elementwise: 0 at x = 0 (the limit), -inf for x < 0 (no entropy there)."""
    data = floating_data(input)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(data > 0, -data * np.log(data), np.where(data == 0, 0.0, -np.inf)).astype(data.dtype)
    return record(_wrap(values), SpecialEntrBackward0, (input,), self_=input)


__all__ = ["entr", "erf", "erfc", "erfinv", "exp2", "logit", "sinc"]
