"""The log-gamma function and its derivatives: ``lgamma``, ``digamma``, ``polygamma`` (orders 0
and 1). Found missing by running the examples in PyTorch's own docstrings (issue 14).

Mirrors ``aten/src/ATen/native/Math.h`` (``calc_digamma``, ``calc_trigamma``), with numpy doing the
arithmetic for a whole tensor at once:

* ``lgamma``: the Lanczos approximation (g = 7, 9 terms; about 15 correct digits in float64), and
  the reflection formula lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) below 1/2;
* ``digamma``: the recurrence psi(x) = psi(x + 1) - 1/x carries x above 10, where the asymptotic
  series converges fast; ``trigamma`` (polygamma of order 1) as PyTorch's calc_trigamma computes it
  (six steps of psi'(x) = psi'(x + 1) + 1/x**2, then four terms); negative x use the reflection formulas;
* ``polygamma`` of order n >= 2: (-1)**(n+1) n! zeta(n + 1, x), with the Hurwitz zeta function
  summed by Euler-Maclaurin (nine terms of the series, then its tail as an integral and twelve
  Bernoulli corrections), as PyTorch's ``zeta`` does.

d lgamma(x)/dx = digamma(x) (LgammaBackward0), d digamma(x)/dx = trigamma(x) (DigammaBackward0),
d polygamma(n, x)/dx = polygamma(n + 1, x) (PolygammaBackward0).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
            12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)


def _floating(input: Tensor) -> np.ndarray:
    data = input._data
    return data if input.dtype.is_floating_point else data.astype(dtypes.get_default_dtype().numpy_dtype)


def _lgamma_values(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    reflect = x < 0.5
    z = np.where(reflect, 1.0 - x, x) - 1.0
    series = np.full_like(z, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        series += c / (z + i)
    t = z + _LANCZOS_G + 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = 0.5 * math.log(2 * math.pi) + (z + 0.5) * np.log(t) - t + np.log(series)
        reflected = np.log(math.pi / np.abs(np.sin(math.pi * x))) - upper
    result = np.where(reflect, reflected, upper)
    poles = (x <= 0) & (x == np.floor(x))
    return np.where(poles, np.inf, np.where(x == 1.0, 0.0, np.where(x == 2.0, 0.0, result)))


def _digamma_values(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        reflect = x < 0
        y = np.where(reflect, 1.0 - x, x)
        shift = np.zeros_like(y)
        for _ in range(10):  # carry y above 10: psi(y) = psi(y + 1) - 1/y
            small = y < 10
            shift -= np.where(small, 1.0 / y, 0.0)
            y = np.where(small, y + 1.0, y)
        inv2 = 1.0 / (y * y)
        series = np.log(y) - 0.5 / y - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
        result = series + shift
        result = np.where(reflect, result - math.pi / np.tan(math.pi * x), result)
    result = np.where(x == 0, -np.inf, result)  # PyTorch: -inf at 0, nan at the negative integers
    return np.where((x < 0) & (x == np.floor(x)), np.nan, result)


def _trigamma_values(x: np.ndarray) -> np.ndarray:
    """PyTorch's calc_trigamma step for step (six recurrence steps, then four terms of the series),
    so that the printed digits are PyTorch's."""
    x = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        reflect = x < 0.5
        result = np.where(reflect, -(math.pi * math.pi) / np.sin(math.pi * x) ** 2, 0.0)
        y = np.where(reflect, 1.0 - x, x)
        for _ in range(6):  # psi'(y) = psi'(y + 1) + 1/y**2
            result = result + 1.0 / (y * y)
            y = y + 1.0
        ixx = 1.0 / (y * y)
        result = result + (1 + 1 / (2 * y) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / y
        return np.where(reflect, -result, result)


# B_2k / (2k)!, the Euler-Maclaurin coefficients (Bernoulli numbers B_2 = 1/6, B_4 = -1/30, ...)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330,
              854513 / 138, -236364091 / 2730)
_EULER_MACLAURIN = tuple(b / math.factorial(2 * k) for k, b in enumerate(_BERNOULLI, start=1))


def _zeta_values(s: int, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function sum over k >= 0 of (q + k)**-s, for an integer s >= 2: the first
    nine terms summed, the rest as the integral of (q + 9 + t)**-s plus its Euler-Maclaurin corrections."""
    q = q.astype(np.float64)
    terms = 9
    with np.errstate(divide="ignore", invalid="ignore"):
        head = sum((q + k) ** -s for k in range(terms))
        a = q + terms
        tail = a ** (1 - s) / (s - 1) + 0.5 * a ** -s
        rising = float(s)  # s (s + 1) ... (s + 2k - 2)
        for k, coefficient in enumerate(_EULER_MACLAURIN, start=1):
            tail = tail + coefficient * rising * a ** (-s - 2 * k + 1)
            rising *= (s + 2 * k - 1) * (s + 2 * k)
        values = head + tail
    return np.where((q <= 0) & (q == np.floor(q)), np.inf, values)


def _polygamma_values(n: int, x: np.ndarray) -> np.ndarray:
    if n == 1:
        return _trigamma_values(x)
    return (1.0 if n % 2 else -1.0) * math.factorial(n) * _zeta_values(n + 1, x)


class LgammaBackward0(Node):
    """d lgamma(x) = digamma(x)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * digamma(self._saved_self),)


class DigammaBackward0(Node):
    """d digamma(x) = trigamma(x) = polygamma(1, x)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * polygamma(1, self._saved_self),)


class PolygammaBackward0(Node):
    """d polygamma(n, x) = polygamma(n + 1, x)."""

    n: int
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * polygamma(self.n + 1, self._saved_self),)


def _unary(input: Tensor, values: np.ndarray, node: type) -> Tensor:
    out = _wrap(values.astype(_floating(input).dtype))
    if compute_requires_grad(input):
        recorded = node(input)
        recorded.self_ = SavedTensor(input)
        set_history(out, recorded)
    return out


def lgamma(input: Tensor) -> Tensor:
    """log |Gamma(x)| (inf at 0 and the negative integers)."""
    return _unary(input, _lgamma_values(_floating(input)), LgammaBackward0)


def digamma(input: Tensor) -> Tensor:
    """The derivative of lgamma: psi(x) = Gamma'(x) / Gamma(x)."""
    return _unary(input, _digamma_values(_floating(input)), DigammaBackward0)


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma (n = 0: digamma; n = 1: trigamma)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(input)
    out = _wrap(_polygamma_values(n, _floating(input)).astype(_floating(input).dtype))
    if compute_requires_grad(input):
        node = PolygammaBackward0(input)
        node.n, node.self_ = n, SavedTensor(input)
        set_history(out, node)
    return out
