"""Special functions: erf and its relatives, logit, exp2, sinc (ops/special.py) and the
``special`` namespace (glasstorch/special.py)."""
from __future__ import annotations

import numpy as np

from .core import SHAPES, OpInfo, SampleInput, array, unary


def probabilities(eps: float | None = None):
    """Values in (0.2, 0.8), or with ``eps`` some of them below eps or above 1 - eps (where the
    clamp makes the gradient 0), kept 0.05 away from the clamp's corners."""
    def samples(draw) -> SampleInput:
        values = array(draw, draw(SHAPES), "positive") / 2.5
        kwargs = {}
        if eps is not None:
            values = np.where(values > 0.5, values + 0.15, values - 0.15)  # now in (0.05, 0.95)
            values = np.where(np.abs(values - eps) < 0.05, values + 0.1, values)
            values = np.where(np.abs(values - (1 - eps)) < 0.05, values - 0.1, values)
            kwargs["eps"] = eps
        return SampleInput(values, kwargs=kwargs)

    return samples


def with_zeros(draw) -> SampleInput:
    """Any values, a few of them exactly 0 (where sinc's formula is 0/0)."""
    values = array(draw, draw(SHAPES), "any")
    return SampleInput(np.where(np.abs(values) < 0.5, 0.0, values))


def fixed(*values: float):
    """Always the same values: the edges of an op's domain, where a hypothesis draw rarely lands."""
    return lambda draw: SampleInput(np.array(values, dtype=np.float64))


OPS = [
    OpInfo("erf", unary(), inplace="erf_", aliases=("special.erf",), other_dtypes=("int64", "bool")),
    OpInfo("erfc", unary(), inplace="erfc_", aliases=("special.erfc",), other_dtypes=("int64",)),
    OpInfo("erfinv", unary("unit"), inplace="erfinv_", aliases=("special.erfinv",), other_dtypes=("int64",)),
    OpInfo("erfinv", fixed(-1.0, 1.0, 1.5, -2.0, 0.0, 0.999999, -0.9999, 1e-9), variant="edges", supports_grad=False),
    OpInfo("erfc", fixed(3.0, 5.0, 10.0, 26.0, 27.0, -5.0, 0.0), variant="tail", supports_grad=False),
    OpInfo("exp2", unary(), inplace="exp2_", aliases=("special.exp2",), other_dtypes=("int64", "bool")),
    OpInfo("logit", probabilities(), inplace="logit_", aliases=("special.logit",)),
    OpInfo("logit", probabilities(eps=0.3), variant="eps", inplace="logit_"),
    OpInfo("sinc", with_zeros, inplace="sinc_", aliases=("special.sinc",), other_dtypes=("int64",),
           skips={"gradgradcheck": "at x = 0 the backward puts 0 (PyTorch: masked_fill_), a constant, so the "
                                   "second derivative there is 0, not sinc''(0) = -pi**2/3, in both libraries; "
                                   "the away_from_0 entry checks it everywhere else"}),
    OpInfo("sinc", unary("nonzero"), variant="away_from_0"),
    # PyTorch composes ndtr in C++ with mul's Scalar overload (MulBackward1); glasstorch has one Node
    # for a tensor times a tensor or a number
    OpInfo("special.ndtr", unary(), grad_fn_difference=("MulBackward0", "MulBackward1")),
    OpInfo("special.entr", unary("positive")),
    OpInfo("special.expit", unary(), aliases=("sigmoid",)),
    OpInfo("special.psi", unary("positive"), aliases=("digamma", "special.digamma"),
           supports_gradgrad=False),  # trigamma's derivative (polygamma of order 2) is not implemented
    OpInfo("special.gammaln", unary("positive"), aliases=("lgamma",), supports_gradgrad=False),
]
