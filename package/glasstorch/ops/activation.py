"""``leaky_relu`` (and its in-place form) and ``gelu``, each recorded as PyTorch records it
(``LeakyReluBackward0``/``LeakyReluBackward1``, ``GeluBackward0``), with ``erf``, which ``gelu`` needs.

Mirrors aten/src/ATen/native/Activation.cpp (``erf``: UnaryOps.cpp) and the backward formulas of
tools/autograd/derivatives.yaml.

Each backward is written with tensor ops, so ``create_graph=True`` differentiates it again.
Simplified: PyTorch's second-order Node has a name of its own (``GeluBackwardBackward0``); here a
double backward goes through the ordinary ops the backward is made of. ``erf`` has no numpy
function: glasstorch evaluates polynomials fitted once to ``math.erf``.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._nn_checks import _check_floating, _work
from ._elementwise import floating_data
from ._util import compute_requires_grad, set_history
from .inplace import apply_inplace


# --- leaky_relu -------------------------------------------------------------------------------
class LeakyReluBackward0(Node):
    """out = x where x > 0, else negative_slope * x:  grad_input = grad * (1 or negative_slope)."""

    negative_slope: float
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * _slopes(self._saved_self, self.negative_slope),)


class LeakyReluBackward1(Node):
    """The in-place form: it saves the *result*, whose sign tells the input's only when the slope
    is not negative (PyTorch's error otherwise)."""

    negative_slope: float
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        if self.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
                "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
                "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope")
        return (grad * _slopes(self._saved_result, self.negative_slope),)


def _slopes(tensor: Tensor, negative_slope: float) -> Tensor:
    """The derivative of leaky_relu: 1 where positive, ``negative_slope`` elsewhere (a constant)."""
    data = tensor._data
    return _wrap(np.where(data > 0, np.ones((), data.dtype), np.asarray(negative_slope, data.dtype)))


def _leaky_relu(input: Tensor, negative_slope: float, node_class: type) -> Tensor:
    _check_floating(input, "leaky_relu_cpu")
    data = input._data
    out = _wrap(np.where(data > 0, data, data * np.asarray(negative_slope, data.dtype)))
    if compute_requires_grad(input):
        node = node_class(input)
        node.negative_slope = negative_slope
        if node_class is LeakyReluBackward0:
            node.self_ = SavedTensor(input)
        else:
            node.result_ = SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x where x > 0, else ``negative_slope * x``."""
    return _leaky_relu(input, float(negative_slope), LeakyReluBackward0)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu`` written into ``input`` itself (``LeakyReluBackward1``)."""
    slope = float(negative_slope)
    return apply_inplace(input, lambda old: _leaky_relu(old, slope, LeakyReluBackward1))


# --- erf --------------------------------------------------------------------------------------
def _fit_erf_pieces(width: float, degree: int = 10, top: float = 6.0) -> np.ndarray:
    """Polynomials fitted once (at import) to ``math.erf``. Piece k covers x in [(k - 1/2) width,
    (k + 1/2) width), where erf is a polynomial in the local variable t = (x - k width) * 2 / width,
    which runs over [-1, 1]. Interpolated at Chebyshev points, degree 10 is within 2e-15 of erf
    everywhere; beyond ``top`` = 6, erf(x) is +-1 in float64. Row j of the result holds every
    piece's coefficient of t**(degree - j): highest power first, as Horner's rule reads them."""
    from numpy.polynomial import chebyshev

    count = int(round(top / width))
    pieces = []
    for k in range(-count, count + 1):
        fitted = chebyshev.Chebyshev.interpolate(np.vectorize(math.erf), degree,
                                                 domain=[(k - 0.5) * width, (k + 0.5) * width])
        coefficients = chebyshev.cheb2poly(fitted.coef)
        if k == 0:  # erf is odd: make the middle piece exactly odd, so erf(0) = 0 and tiny x keep their precision
            coefficients[0::2] = 0.0
        pieces.append(coefficients[::-1])
    return np.ascontiguousarray(np.array(pieces).T)


_ERF_WIDTH = 0.25
_ERF_POWERS = {np.dtype(np.float64): _fit_erf_pieces(_ERF_WIDTH)}
_ERF_POWERS[np.dtype(np.float32)] = _ERF_POWERS[np.dtype(np.float64)].astype(np.float32)  # within 1 ulp of float32


def _erf_values(data: np.ndarray) -> np.ndarray:
    """erf, vectorised: find each element's piece, then Horner's rule over the powers, gathering
    each power's coefficient with ``take`` (float16 and bfloat16 are computed in float32)."""
    x = _work(data)
    powers = _ERF_POWERS[x.dtype]
    count = powers.shape[1] // 2  # pieces -count .. count
    # the nearest piece centre (fmax/fmin rather than clip: a nan goes to a piece, and stays nan)
    centre = np.fmin(np.fmax(np.rint(x * (1 / _ERF_WIDTH)), -count), count)
    t = (x - centre * _ERF_WIDTH) * (2 / _ERF_WIDTH)
    piece = centre.astype(np.intp) + count
    values = np.array(powers[0].take(piece))  # an array even for a 0-dim input (take gives a scalar)
    for row in powers[1:]:
        values *= t
        values += row.take(piece)
    beyond = np.abs(x) >= (count + 0.5) * _ERF_WIDTH
    values[beyond] = np.sign(x[beyond])
    return values


class ErfBackward0(Node):
    """d erf(x) / dx = 2 / sqrt(pi) * exp(-x**2)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        return (grad * (2 / math.sqrt(math.pi)) * (-(self_ * self_)).exp(),)


def erf(input: Tensor) -> Tensor:
    """The error function, 2/sqrt(pi) times the integral of exp(-t**2) from 0 to x."""
    data = floating_data(input)  # integers become the default float dtype, as in PyTorch
    out = _wrap(_erf_values(data).astype(data.dtype, copy=False))
    if compute_requires_grad(input):
        node = ErfBackward0(input)
        node.self_ = SavedTensor(input)
        set_history(out, node)
    return out


# --- gelu -------------------------------------------------------------------------------------
_SQRT1_2 = 1 / math.sqrt(2)
_TANH_BETA = math.sqrt(2 / math.pi)  # PyTorch's kBeta = M_SQRT2 * M_2_SQRTPI * 0.5
_TANH_KAPPA = 0.044715


class GeluBackward0(Node):
    """'none': out = x * Phi(x), so grad_input = grad * (Phi(x) + x * phi(x)) with Phi the normal
    CDF and phi its density. 'tanh': the derivative of 0.5 x (1 + tanh(beta (x + kappa x**3)))."""

    approximate: str
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x = self._saved_self
        if self.approximate == "tanh":
            tanh_inner = (_TANH_BETA * (x + _TANH_KAPPA * x * x * x)).tanh()
            inner_derivative = _TANH_BETA * (1 + 3 * _TANH_KAPPA * x * x)
            derivative = 0.5 * (1 + tanh_inner) + 0.5 * x * (1 - tanh_inner * tanh_inner) * inner_derivative
        else:
            cdf = 0.5 * (1 + erf(x * _SQRT1_2))
            pdf = (-0.5 * x * x).exp() * (1 / math.sqrt(2 * math.pi))
            derivative = cdf + x * pdf
        return (grad * derivative,)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x), Phi the standard normal CDF; ``approximate='tanh'``: PyTorch's tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_floating(input, "GeluKernelImpl")
    x = _work(input._data)
    if approximate == "tanh":
        values = 0.5 * x * (1 + np.tanh(_TANH_BETA * (x + _TANH_KAPPA * x * x * x)))
    else:
        values = 0.5 * x * (1 + _erf_values(x * _SQRT1_2))
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input):
        node = GeluBackward0(input)
        node.approximate = approximate
        node.self_ = SavedTensor(input)
        set_history(out, node)
    return out
