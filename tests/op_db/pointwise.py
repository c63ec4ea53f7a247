"""Elementwise ops: functions of one tensor, arithmetic and functions of two or three (ops/pointwise*.py,
ops/arithmetic.py, ops/comparison.py, ops/gamma_functions.py).

Reflected operators (``2.5 - x``, ``2 ** x``) are entries whose ``op`` writes the expression; a
scalar operand on the right comes from ``binary(scalar_other=True)``. No op here is random.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from .core import SHAPES, ErrorInput, NoGrad, OpInfo, SampleInput, array, binary, unary, values_of


# --- sample makers of this family ------------------------------------------------------------
def ternary(*kinds: str, **kwargs: Any) -> Callable:
    """Three tensors whose shapes broadcast together (addcmul, addcdiv, lerp with a tensor weight)."""
    def samples(draw: Callable) -> SampleInput:
        shapes = draw(mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=1, max_side=3))
        first, *rest = (array(draw, shape, kind) for shape, kind in zip(shapes.input_shapes, kinds))
        return SampleInput(first, tuple(rest), dict(kwargs))

    return samples


def with_specials(draw: Callable, shape: tuple) -> np.ndarray:
    """Normal values with some of them nan, inf or -inf (isnan, isinf, nan_to_num)."""
    values = array(draw, shape)
    seed = draw(st.integers(0, 2**32 - 1))
    specials = np.random.default_rng(seed).choice([np.nan, np.inf, -np.inf, 0.0, 0.0, 0.0], values.shape)
    return np.where(specials != 0.0, specials, values)


def special_unary(**kwargs: Any) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        return SampleInput(with_specials(draw, draw(SHAPES)), kwargs=dict(kwargs))

    return samples


def special_binary(draw: Callable) -> SampleInput:
    """Two same-shaped tensors with nans and infs here and there (fmax, fmin, isclose)."""
    shape = draw(SHAPES)
    return SampleInput(with_specials(draw, shape), (with_specials(draw, shape),))


def reflected(kind: str = "any") -> Callable:
    """One tensor, for the ops written as ``number <op> x`` (``op=lambda lib, x: 2.5 - x``)."""
    return unary(kind)


def integer_pair(low: int = -20, high: int = 20, other_low: int | None = None) -> Callable:
    """Two int64 tensors that broadcast (gcd, the shifts): integer arrays enter as constants."""
    def samples(draw: Callable) -> SampleInput:
        shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        first, second = shapes.input_shapes
        other = rng.integers(low if other_low is None else other_low, high, second)
        return SampleInput(rng.integers(low, high, first), (other,))

    return samples


def integer_unary(draw: Callable) -> SampleInput:
    return SampleInput(np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(-20, 20, draw(SHAPES)))


def bool_pair(draw: Callable) -> SampleInput:
    """Two bool tensors that broadcast (bitwise_and of masks)."""
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    first, second = (rng.integers(0, 2, shape).astype(bool) for shape in shapes.input_shapes)
    return SampleInput(first, (second,))


def ldexp_samples(draw: Callable) -> SampleInput:
    """A float mantissa and an int64 exponent (a constant) that broadcast. The exponents are not
    negative: PyTorch's gradient for a negative integer exponent is 0 (it computes 2**other in
    integers, where 2**-1 is 0); glasstorch's is 2**other."""
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3))
    first, second = shapes.input_shapes
    exponents = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(0, 4, second)
    return SampleInput(array(draw, first), (exponents,))


def close_pair(draw: Callable) -> SampleInput:
    """Two tensors that agree in some places and not in others (isclose, allclose)."""
    shape = draw(SHAPES)
    first = array(draw, shape)
    nudged = np.asarray(first + np.where(array(draw, shape) > 0, 1e-9, 1e-3))
    return SampleInput(first, (nudged if draw(st.booleans()) else first.copy(),), {})


def isin_samples(draw: Callable) -> SampleInput:
    """Whole numbers, so that some elements are among the test elements."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return SampleInput(rng.integers(-3, 4, draw(SHAPES)).astype(np.float64),
                       (rng.integers(-3, 4, draw(st.integers(1, 4))).astype(np.float64),))


def _shape_within(draw: Callable, shape: tuple) -> tuple:
    """A shape that broadcasts to ``shape`` without growing it: some leading dims dropped, some set to 1."""
    kept = shape[draw(st.integers(0, len(shape))):]
    return tuple(1 if draw(st.booleans()) else side for side in kept)


def _clamp_tensor_bounds(draw: Callable) -> SampleInput:
    """Bounds at -0.5 +- 0.1 and 0.5 +- 0.1, the input away from both; the bounds broadcast to the
    input's shape (PyTorch 2.13 refuses a min that grows a 0-dim input when max is 0-dim: "output
    with shape [] doesn't match the broadcast shape [1]", and accepts it otherwise)."""
    shape = draw(SHAPES)
    low, high = _shape_within(draw, shape), _shape_within(draw, shape)
    return SampleInput(array(draw, shape, "clamp"), (np.asarray(array(draw, low, "unit") * 0.1 - 0.5),
                                                      np.asarray(array(draw, high, "unit") * 0.1 + 0.5)))


def _no_grad(samples: Callable) -> Callable:
    """The same samples with every float operand after the first a constant (no gradient)."""
    def wrapped(draw: Callable) -> SampleInput:
        sample = samples(draw)
        return SampleInput(sample.input, tuple(NoGrad(a) if isinstance(a, np.ndarray) else a for a in sample.args),
                           sample.kwargs)

    return wrapped


def _constant_input(samples: Callable) -> Callable:
    """The same samples with the first operand a constant: only the other one gets a gradient."""
    def wrapped(draw: Callable) -> SampleInput:
        sample = samples(draw)
        return SampleInput(NoGrad(sample.input), sample.args, sample.kwargs)

    return wrapped


def _one_side(name: str, samples: Callable, **changes: Any) -> list:
    """Two entries of a binary op where only one operand requires grad (the Node skips the other's gradient)."""
    return [OpInfo(name, _no_grad(samples), variant="other_constant", **changes),
            OpInfo(name, _constant_input(samples), variant="input_constant", **changes)]


def _fmod_samples(draw: Callable) -> SampleInput:
    """Dividends away from the multiples of the divisor, where fmod and remainder jump."""
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3))
    first, second = shapes.input_shapes
    divisor = array(draw, second, "nonzero")
    quotient = array(draw, np.broadcast_shapes(first, second), "any") * 2
    quotient = np.floor(quotient) + 0.2 + 0.6 * (quotient - np.floor(quotient))  # fractional part in [0.2, 0.8]
    dividend = quotient * divisor
    return SampleInput(dividend, (divisor,))  # (the dividend has the broadcast shape)


def _error(*args: Any, error: type = RuntimeError, match: str, **kwargs: Any) -> ErrorInput:
    first, *rest = args
    return ErrorInput(SampleInput(first, tuple(rest), kwargs), error, match)


def _refused(dtype_values: np.ndarray, *args: Any, error: type = NotImplementedError,
             match: str = "not implemented for", **kwargs: Any) -> Callable:
    """The entry's ``error_inputs``: PyTorch has no kernel for this dtype (``"abs_cpu" not implemented for 'Bool'``)."""
    return lambda: [_error(dtype_values, *args, error=error, match=match, **kwargs)]


BOOLS, INTS = np.array([True, False]), np.array([3, -2])


def _mismatch(*extra: Any) -> list:
    """Shapes that do not broadcast: PyTorch's message names the clashing sizes."""
    return [_error(np.ones(3), np.ones(4), *extra, match="must match the size of tensor b")]


# --- functions of one tensor -----------------------------------------------------------------
INT_BOOL = ("int64", "bool")
# float16 and bfloat16 too, for a sample of the family (PyTorch computes them in float32 and rounds once);
# a gradient summed over broadcast dims rounds at other steps in each library: a wider tolerance
HALF = dict(dtypes=("float32", "float64", "float16", "bfloat16"), tolerances={"float16": (1e-2, 2e-3),
                                                                               "bfloat16": (3e-2, 1e-2)})


def _unary_entry(name: str, kind: str = "any", *, out: bool = True, dtypes_other: tuple = INT_BOOL,
                 **changes: Any) -> OpInfo:
    """An elementwise function of one tensor with its in-place twin ``name_``."""
    return OpInfo(name, unary(kind), inplace=name + "_", supports_out=out, other_dtypes=dtypes_other, **changes)


ZERO_TENSOR = ("PyTorch's gradient of sgn for a real input is an efficient ZeroTensor, which the comparison "
               "cannot read (as_numpy refuses it); sgn-values compares the values")
NO_INPLACE_DERIVATIVE = ("PyTorch records it in place (AcoshBackward1, AsinhBackward1, AtanhBackward1) but a "
                         "backward through it is an error (NotImplementedError: the derivative for 'inplace version of ...'), in glasstorch too: "
                         "the in-place check ends with a backward")

NO_DERIVATIVE = ("PyTorch has no derivative for it: the in-place check, which runs on a tensor that requires grad, "
                 "fails in PyTorch (derivative for aten::..._ is not implemented)")

UNARY_OPS = [
    _unary_entry("abs", "nonzero", dtypes_other=("int64",), aliases=("absolute",),
                 error_inputs=_refused(BOOLS, match="not implemented for 'Bool'")),
    _unary_entry("acos", "unit", aliases=("arccos",)),
    _unary_entry("acosh", "above_one", aliases=("arccosh",), skips={"inplace": NO_INPLACE_DERIVATIVE}),
    _unary_entry("asin", "unit", aliases=("arcsin",)),
    _unary_entry("asinh", aliases=("arcsinh",), skips={"inplace": NO_INPLACE_DERIVATIVE}),
    _unary_entry("atan", aliases=("arctan",)),
    _unary_entry("atanh", "unit", aliases=("arctanh",), skips={"inplace": NO_INPLACE_DERIVATIVE}),
    _unary_entry("ceil", dtypes_other=("int64", "bool"),
                 error_inputs=_refused(BOOLS, match="\"ceil_vml_cpu\" not implemented")),
    _unary_entry("cos"),
    _unary_entry("cosh"),
    _unary_entry("exp", **HALF),
    _unary_entry("expm1"),
    _unary_entry("floor", error_inputs=_refused(BOOLS, match="\"floor_vml_cpu\" not implemented for 'Bool'")),
    _unary_entry("frac", dtypes_other=("int64",),
                 error_inputs=_refused(INTS, match="\"frac_cpu\" not implemented for 'Long'")),
    _unary_entry("log", "positive", **HALF),
    _unary_entry("log10", "positive"),
    _unary_entry("log1p", "positive"),
    _unary_entry("log2", "positive"),
    _unary_entry("relu", "nonzero", out=False, dtypes_other=("int64",),  # (torch.relu has no out=)
                 error_inputs=_refused(BOOLS, error=RuntimeError, match="Boolean inputs not supported for relu")),
    _unary_entry("round", error_inputs=_refused(BOOLS, match="\"round_vml_cpu\" not implemented for 'Bool'")),
    _unary_entry("round").with_variant("decimals", samples=unary(decimals=2), **HALF, other_dtypes=("int64",),
                                       error_inputs=_refused(INTS, decimals=2, match="\"round_cpu\" not implemented")),
    _unary_entry("round").with_variant("negative_decimals", samples=unary(decimals=-1)),
    _unary_entry("rsqrt", "positive"),
    _unary_entry("sgn", skips={"vs_torch": ZERO_TENSOR, "inplace": ZERO_TENSOR}),
    _unary_entry("sgn").with_variant("values", supports_grad=False, inplace=None),
    _unary_entry("sigmoid", **HALF),
    _unary_entry("sign"),
    _unary_entry("sin"),
    _unary_entry("sinh"),
    _unary_entry("sqrt", "positive"),
    _unary_entry("square"),
    _unary_entry("tan", "unit"),
    _unary_entry("tanh", **HALF),
    _unary_entry("trunc", aliases=("fix",), error_inputs=_refused(BOOLS, match="\"trunc_vml_cpu\" not implemented")),
    _unary_entry("neg", aliases=("negative",), dtypes_other=("int64", "bool"),
                 error_inputs=_refused(BOOLS, error=RuntimeError, match="Negation, the `-` operator, on a bool tensor")),
    OpInfo("neg", unary(), variant="operator", op=lambda lib, x: -x, method=False),
    _unary_entry("reciprocal", "nonzero"),
    _unary_entry("rad2deg"),
    _unary_entry("deg2rad"),
    OpInfo("positive", unary(), other_dtypes=("int64", "bool")),
    OpInfo("digamma", unary("positive"), inplace="digamma_", supports_out=True, other_dtypes=("int64",)),
    OpInfo("lgamma", unary("positive"), inplace="lgamma_", supports_out=True, other_dtypes=("int64",)),
    OpInfo("polygamma", unary("positive"), op=lambda lib, x, n=1: lib.polygamma(n, x), method=False,
           other_dtypes=("int64",),
           error_inputs=lambda: [_error(np.ones(2), -1, match="polygamma(n, x) does not support negative n")]),
    OpInfo("polygamma", unary("positive"), variant="order3", op=lambda lib, x: lib.polygamma(3, x), method=False),
    OpInfo("polygamma", unary("positive"), variant="method", op=lambda lib, x: x.polygamma(2), method=False),
    OpInfo("nan_to_num", special_unary(), **HALF, inplace="nan_to_num_", supports_out=True,
           other_dtypes=("int64", "bool")),
    OpInfo("nan_to_num", special_unary(nan=1.5, posinf=9.0, neginf=-9.0), variant="values", inplace="nan_to_num_"),
    OpInfo("frexp", unary("nonzero"), supports_out=False, other_dtypes=("int64",),
           error_inputs=lambda: [_error(np.array([1, 2]), match="only supports floating-point dtypes")]),
]

CLAMP_OPS = [
    OpInfo("clamp", unary("clamp", min=-0.5, max=0.5), inplace="clamp_", supports_out=True, aliases=("clip",),
           other_dtypes=("int64",),
           error_inputs=lambda: [_error(np.ones(3), match="At least one of 'min' or 'max' must not be None")]),
    OpInfo("clamp", unary("clamp", min=-0.5), variant="min", inplace="clamp_", aliases=("clip",)),
    OpInfo("clamp", unary("clamp", max=0.5), variant="max", inplace="clamp_", aliases=("clip",)),
    OpInfo("clamp", _clamp_tensor_bounds, variant="tensor_bounds", inplace="clamp_", aliases=("clip",)),
    # odd and even values never tie (at a tie PyTorch gives the whole gradient to self)
    *(OpInfo(name, binary("odd", "even", scalar_other=True), inplace=name + "_", supports_out=True,
             other_dtypes=("int64",), error_inputs=lambda: _mismatch()) for name in ("clamp_min", "clamp_max")),
]

# --- arithmetic --------------------------------------------------------------------------------
ARITHMETIC_OPS = [
    OpInfo("add", binary(scalar_other=True), inplace="add_", supports_out=True, other_dtypes=INT_BOOL,
           error_inputs=lambda: _mismatch()),
    OpInfo("add", binary(alpha=2.5), variant="alpha", **HALF, inplace="add_"),
    OpInfo("add", reflected(), variant="reflected", op=lambda lib, x: 2.5 + x, method=False),
    OpInfo("add", reflected(), variant="reflected_int", op=lambda lib, x: 2 + x, method=False),
    *_one_side("add", binary()),
    OpInfo("sub", binary(scalar_other=True), inplace="sub_", supports_out=True, aliases=("subtract",),
           other_dtypes=("int64", "bool"),
           error_inputs=lambda: _mismatch() + [
               _error(BOOLS, BOOLS, match="Subtraction, the `-` operator, with two bool tensors")]),
    OpInfo("sub", binary(alpha=-0.5), variant="alpha", inplace="sub_"),
    OpInfo("sub", reflected(), variant="reflected", op=lambda lib, x: 2.5 - x, method=False),
    OpInfo("rsub", binary(scalar_other=True), method=False, other_dtypes=("int64",),
           error_inputs=_refused(BOOLS, 1, error=RuntimeError,
                                 match="Subtraction, the `-` operator, with a bool tensor")),
    OpInfo("rsub", binary(alpha=2.0), variant="alpha", method=False),
    OpInfo("mul", binary(scalar_other=True), **HALF, inplace="mul_", supports_out=True, aliases=("multiply",),
           other_dtypes=INT_BOOL, error_inputs=lambda: _mismatch()),
    OpInfo("mul", reflected(), variant="reflected", op=lambda lib, x: -1.5 * x, method=False),
    OpInfo("mul", unary(), variant="same_input", op=lambda lib, x: x * x, method=False),
    OpInfo("mul", binary(), variant="mixed_dtypes", op=lambda lib, x, y: x * y.double(), method=False),
    *_one_side("mul", binary()),
    OpInfo("div", binary(other_kind="nonzero", scalar_other=True), **HALF, inplace="div_", supports_out=True,
           aliases=("divide", "true_divide"), other_dtypes=INT_BOOL, error_inputs=lambda: _mismatch()),
    OpInfo("div", reflected("nonzero"), variant="reflected", op=lambda lib, x: 3.0 / x, method=False),
    *_one_side("div", binary(other_kind="nonzero")),
    OpInfo("div", _no_grad(binary(other_kind="nonzero", rounding_mode="floor")), variant="floor", inplace="div_",
           other_dtypes=("int64",),
           error_inputs=lambda: [_error(np.ones(2), np.ones(2), rounding_mode="round",
                                        match="div expected rounding_mode to be one of None, 'trunc', or 'floor'")]),
    OpInfo("div", _no_grad(binary(other_kind="nonzero", rounding_mode="trunc")), variant="trunc", inplace="div_"),
    OpInfo("pow", binary("positive", scalar_other=True), inplace="pow_", supports_out=True,
           error_inputs=lambda: _mismatch()),
    OpInfo("pow", unary(exponent=3), variant="int", op=lambda lib, x, exponent: lib.pow(x, exponent),
           inplace="pow_", other_dtypes=("int64",)),
    OpInfo("pow", unary("positive", exponent=0.5), variant="half", op=lambda lib, x, exponent: lib.pow(x, exponent),
           inplace="pow_"),
    OpInfo("pow", unary("nonzero", exponent=-2), variant="negative", op=lambda lib, x, exponent: lib.pow(x, exponent),
           inplace="pow_",
           error_inputs=_refused(INTS, -2, error=RuntimeError,
                                 match="Integers to negative integer powers are not allowed")),
    OpInfo("pow", unary(exponent=0), variant="zero", op=lambda lib, x, exponent: lib.pow(x, exponent), inplace="pow_"),
    OpInfo("pow", reflected(), variant="reflected", op=lambda lib, x: 2.0 ** x, method=False),
    *_one_side("pow", binary("positive")),
    OpInfo("pow", reflected(), variant="reflected_fraction", op=lambda lib, x: 0.5 ** x, method=False),
    OpInfo("pow", reflected(), variant="number_base", op=lambda lib, x: lib.pow(2.5, x), method=False),
    OpInfo("float_power", binary("positive", scalar_other=True), inplace="float_power_", supports_out=True,
           other_dtypes=("int64",), skips={"inplace": "float_power_ needs a float64 tensor and the in-place check "
                                                      "runs in float32 (float_power-inplace_float32 checks the error)"}),
    OpInfo("float_power", binary("positive"), variant="inplace_float32", op=lambda lib, x, y: x.clone().float_power_(y),
           method=False, supports_grad=False, dtypes=(),
           error_inputs=_refused(np.ones(2), np.ones(2), error=RuntimeError,
                                 match="the base given to float_power_ has dtype Float")),
    OpInfo("float_power", reflected(), variant="number_base", op=lambda lib, x: lib.float_power(2.5, x), method=False,
           other_dtypes=("int64",)),
    OpInfo("fmod", _fmod_samples, inplace="fmod_", supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=_refused(INTS, np.array([0, 1]), error=RuntimeError, match="ZeroDivisionError")),
    OpInfo("fmod", unary(other=0.7), variant="number", op=lambda lib, x, other: lib.fmod(x, other), inplace="fmod_"),
    OpInfo("remainder", _fmod_samples, inplace="remainder_", supports_out=True, other_dtypes=("int64",),
           error_inputs=_refused(INTS, np.array([0, 1]), error=RuntimeError, match="ZeroDivisionError")),
    OpInfo("remainder", unary(other=0.7), variant="number", op=lambda lib, x, other: lib.remainder(x, other),
           inplace="remainder_"),
    OpInfo("remainder", reflected("nonzero"), variant="number_dividend", op=lambda lib, x: lib.remainder(2.5, x),
           method=False, supports_grad=False),
    # floor_divide, heaviside and remainder(number, x) record PyTorch's Node "NotImplemented" on inputs
    # that require grad; the drivers cannot compare them (a backward through it is an error)
    OpInfo("floor_divide", _no_grad(binary(other_kind="nonzero")), inplace="floor_divide_", supports_out=True,
           supports_grad=False, other_dtypes=("int64",), skips={"inplace": NO_DERIVATIVE},
           error_inputs=_refused(INTS, np.array([0, 1]), error=RuntimeError, match="ZeroDivisionError")),
]

# --- functions of two or three tensors ----------------------------------------------------------
BINARY_OPS = [
    OpInfo("atan2", binary(), inplace="atan2_", supports_out=True, aliases=("arctan2",), other_dtypes=("int64",),
           error_inputs=lambda: _mismatch()),
    OpInfo("hypot", binary("nonzero", "nonzero"), **HALF, inplace="hypot_", supports_out=True,
           other_dtypes=("int64", "bool"),
           error_inputs=lambda: _mismatch() + _refused(INTS, INTS, match="\"hypot_cpu\" not implemented for 'Long'")()),
    OpInfo("logaddexp", binary(), **HALF, supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: _mismatch() + _refused(INTS, INTS, match="\"logaddexp_cpu\" not implemented")()),
    OpInfo("logaddexp2", binary(), supports_out=True, other_dtypes=("int64",),
           error_inputs=_refused(INTS, INTS, match="not implemented for 'Long'")),
    OpInfo("copysign", binary("nonzero", "nonzero", scalar_other=True), inplace="copysign_", supports_out=True,
           other_dtypes=("int64", "bool"), error_inputs=lambda: _mismatch()),
    OpInfo("maximum", binary("odd", "even"), supports_out=True, other_dtypes=INT_BOOL,
           error_inputs=lambda: _mismatch()),
    OpInfo("minimum", binary("odd", "even"), supports_out=True, other_dtypes=INT_BOOL),
    OpInfo("fmax", binary("odd", "even"), supports_out=True, other_dtypes=("int64",), error_inputs=lambda: _mismatch()),
    OpInfo("fmin", binary("odd", "even"), supports_out=True, other_dtypes=("int64",)),
    OpInfo("fmax", special_binary, variant="nan", supports_grad=False),
    OpInfo("fmin", special_binary, variant="nan", supports_grad=False, other_dtypes=("int64",)),
    OpInfo("xlogy", binary("any", "positive"), **HALF, inplace="xlogy_", supports_out=True,
           other_dtypes=("int64", "bool"),
           error_inputs=lambda: _mismatch()),
    OpInfo("xlogy", reflected("positive"), variant="number_self", op=lambda lib, x: lib.xlogy(2.5, x), method=False),
    OpInfo("xlogy", unary(other=2.5), variant="number_other", op=lambda lib, x, other: lib.xlogy(x, other),
           inplace="xlogy_"),
    OpInfo("ldexp", ldexp_samples, inplace="ldexp_", supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: _mismatch()),
    OpInfo("ldexp", binary(), variant="float_exponent", inplace="ldexp_"),
    OpInfo("lerp", binary(weight=0.3), **HALF, op=lambda lib, a, b, weight, **out: lib.lerp(a, b, weight, **out),
           inplace="lerp_", supports_out=True,
           error_inputs=lambda: _mismatch(0.5) + [
               _error(np.ones(2), np.array([1, 2]), 0.5, match="expected dtype float for `end` but got dtype long"),
               _error(INTS, INTS, 0.5, error=NotImplementedError, match="\"lerp_kernel_scalar\" not implemented")]),
    OpInfo("lerp", ternary("any", "any", "unit"), variant="tensor_weight", **HALF, inplace="lerp_", supports_out=True,
           other_dtypes=("int64",)),
    OpInfo("addcmul", ternary("any", "any", "any"), **HALF, inplace="addcmul_", supports_out=True,
           other_dtypes=("int64", "bool"),
           error_inputs=lambda: _mismatch(np.ones(3))),
    OpInfo("addcmul", ternary("any", "any", "any", value=-0.5), variant="value", inplace="addcmul_"),
    OpInfo("addcdiv", ternary("any", "any", "nonzero"), inplace="addcdiv_", supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: _mismatch(np.ones(3)) + [_error(np.array([1, 2]), np.array([1, 2]), np.array([1, 2]),
                                        match="Integer division with addcdiv is no longer supported")]),
    OpInfo("addcdiv", ternary("any", "any", "nonzero", value=2.0), variant="value", inplace="addcdiv_"),
    # odd and even values never tie: where self == other PyTorch's gradient is 0 by convention (finite differences: 1)
    OpInfo("nextafter", binary("odd", "even"), inplace="nextafter_", supports_out=True, other_dtypes=("int64",),
           error_inputs=_refused(INTS, INTS, match="\"nextafter_cpu\" not implemented")),
    OpInfo("heaviside", _no_grad(binary()), inplace="heaviside_", supports_out=True, supports_grad=False,
           other_dtypes=("int64", "bool"),
           skips={"inplace": NO_DERIVATIVE},
           error_inputs=lambda: _mismatch() + [_error(np.array([1.0, 0.0]), np.array([1, 2]),
                                        match="heaviside is not yet implemented for tensors with different dtypes")]),
]

INTEGER_OPS = [  # integer-only ops: their samples are int64 constants
    OpInfo(name, integer_pair(1, 30), dtypes=("float32",), supports_grad=False, inplace=name + "_", supports_out=True,
           error_inputs=lambda: [_error(np.array([1, 2, 3]), INTS, match="must match the size of tensor b")])
    for name in ("gcd", "lcm")
] + [
    OpInfo(name, integer_pair(0, 40, other_low=0), dtypes=("float32",), supports_grad=False, inplace=name + "_",
           supports_out=True)
    for name in ("bitwise_left_shift", "bitwise_right_shift")
] + [
    OpInfo(name, integer_pair(), dtypes=("float32",), supports_grad=False, inplace=name + "_", supports_out=True)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor")
] + [
    OpInfo(name, bool_pair, variant="bool", dtypes=("float32",), supports_grad=False, inplace=name + "_")
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor")
] + [
    OpInfo("bitwise_not", integer_unary, dtypes=("float32",), supports_grad=False, inplace="bitwise_not_",
           supports_out=True,
           error_inputs=lambda: [_error(np.ones(2), error=NotImplementedError, match="not implemented for 'Float'")]),
    OpInfo("gcd", binary(), variant="float", supports_grad=False, dtypes=(), method=False,
           error_inputs=_refused(np.ones(2), np.ones(2), match="not implemented for 'Float'")),
]

# --- comparisons and tests ---------------------------------------------------------------------
COMPARISON_OPS = [
    OpInfo(name, binary("odd", "even", scalar_other=True), supports_grad=False, supports_out=True, inplace=name + "_",
           other_dtypes=INT_BOOL, aliases=aliases, error_inputs=lambda: _mismatch())
    for name, aliases in (("eq", ()), ("ne", ("not_equal",)), ("lt", ("less",)), ("le", ("less_equal",)),
                          ("gt", ("greater",)), ("ge", ("greater_equal",)))
] + [
    OpInfo("eq", unary(), variant="operator", op=lambda lib, x: x == 0.3, method=False, supports_grad=False),
    OpInfo("lt", unary(), variant="reflected", op=lambda lib, x: 0.3 > x, method=False, supports_grad=False),
    OpInfo("equal", binary(), op=lambda lib, a, b: lib.tensor(lib.equal(a, b)), method=False, supports_grad=False),
    OpInfo("equal", unary(), variant="same", op=lambda lib, a: lib.tensor(lib.equal(a, a.clone())), method=False,
           supports_grad=False),
    OpInfo("isclose", close_pair, supports_grad=False, other_dtypes=("int64",),
           error_inputs=lambda: _mismatch() + [_error(np.ones(2), INTS, match="Float did not match Long")]),
    OpInfo("isclose", special_binary, variant="equal_nan", supports_grad=False,
           op=lambda lib, a, b: lib.isclose(a, b, equal_nan=True)),
    OpInfo("allclose", close_pair, op=lambda lib, a, b: lib.tensor(lib.allclose(a, b)), method=False,
           supports_grad=False, error_inputs=lambda: _mismatch()),
    OpInfo("allclose", close_pair, variant="atol", op=lambda lib, a, b: lib.tensor(lib.allclose(a, b, atol=1e-2)),
           method=False, supports_grad=False),
] + [
    OpInfo(name, binary("odd", "even"), supports_grad=False, supports_out=True, other_dtypes=INT_BOOL,
           error_inputs=lambda: _mismatch())
    for name in ("logical_and", "logical_or", "logical_xor")
] + [
    OpInfo("logical_not", unary("odd"), supports_grad=False, supports_out=True,
           other_dtypes=INT_BOOL),
] + [
    OpInfo(name, special_unary(), supports_grad=False, other_dtypes=INT_BOOL,
           supports_out=name in ("isposinf", "isneginf", "signbit"))
    for name in ("isnan", "isfinite", "isinf", "isposinf", "isneginf", "signbit")
] + [
    OpInfo("isin", isin_samples, supports_grad=False, method=False, other_dtypes=("int64",), supports_out=True),
    OpInfo("isin", isin_samples, variant="invert", op=lambda lib, a, b: lib.isin(a, b, invert=True), method=False,
           supports_grad=False),
]

OPS = UNARY_OPS + CLAMP_OPS + ARITHMETIC_OPS + BINARY_OPS + INTEGER_OPS + COMPARISON_OPS
