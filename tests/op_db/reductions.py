"""Reductions, cumulative ops, statistics, sorting, histograms and distance (ops/reduction.py,
statistics.py, sorting.py, histograms.py, distance.py).

Where an op picks elements (max with a dim, median, kthvalue, sort, topk, cummax ...), PyTorch
documents which index wins a tie only for some (max/argmax: the first; sort(stable=True): the
original order; amax/amin and a full max: ties share the gradient); glasstorch also reports
PyTorch's index for median, kthvalue and mode. Those get a ``ties`` sample (finite differences
skipped: a tie is a kink); the others draw ``distinct`` values.
Nothing here is random (the random ops belong to no family of this table).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from .core import (NONEMPTY_DIMS, SHAPES, ErrorInput, NoGrad, OpInfo, SampleInput, array, binary, dim_of,
                   values_of)

# --- drawing samples -------------------------------------------------------------------------


def ties(draw: Callable, shape: tuple) -> np.ndarray:
    """Values from a few steps of 0.5 (-1 ... 1): many equal values, none near another."""
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(np.float64) * 0.5


def with_nans(draw: Callable, shape: tuple, kind: str = "distinct") -> np.ndarray:
    """Values of ``kind`` with some NaN (for the nan* ops), never a whole line of NaN along a dim of
    size 2 or more: an element whose indices add up to an even number is never NaN. (A slice of
    NaN only makes NaN, where finite differences cannot check a gradient.)"""
    values = array(draw, shape, kind)
    coin = values_of(shape, np.random.default_rng(draw(st.integers(0, 2**32 - 1))), "any") > 0
    odd = np.indices(shape).sum(axis=0) % 2 == 1 if shape else np.zeros((), bool)
    return np.where(coin & odd, np.nan, values)


NAN_SHAPES = array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=3)


def with_zeros(draw: Callable, shape: tuple) -> np.ndarray:
    """Values of which about half are exactly 0 (count_nonzero)."""
    values = array(draw, shape)
    return np.where(values > 0, 0.0, values)


def values(draw: Callable, shape: tuple, kind: str) -> np.ndarray:
    if kind == "ties":
        return ties(draw, shape)
    if kind == "nan":
        return with_nans(draw, shape)
    if kind == "zeros":
        return with_zeros(draw, shape)
    return array(draw, shape, kind)


def dims_of(draw: Callable, shape: tuple) -> Any:
    """A dim (an int, negative half the time) or a tuple of distinct dims."""
    if draw(st.booleans()):
        return dim_of(draw, shape)
    chosen = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    return tuple(d - len(shape) if draw(st.booleans()) else d for d in chosen)


def full(kind: str = "any", shapes: Any = SHAPES, *args: Any, **kwargs: Any) -> Callable:
    """A reduction of the whole tensor (0-dim included): ``op(x, *args, **kwargs)``."""
    def samples(draw: Callable) -> SampleInput:
        return SampleInput(values(draw, draw(shapes), kind), args, dict(kwargs))

    return samples


def along(kind: str = "any", *, dims: bool = False, keepdim: bool = True, dim_key: str | None = None,
          shapes: Any = NONEMPTY_DIMS, **kwargs: Any) -> Callable:
    """A reduction along a drawn dim: ``op(x, dim, keepdim)`` (with ``dims``, a tuple of dims half
    the time; ``keepdim=False``: no keepdim argument; ``dim_key``: the dim passed by that keyword)."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(shapes)
        dim = dims_of(draw, shape) if dims else dim_of(draw, shape)
        more = dict(kwargs)
        if dim_key:
            more[dim_key] = dim
            if keepdim:
                more["keepdim"] = draw(st.booleans())
            return SampleInput(values(draw, shape, kind), (), more)
        args = (dim, draw(st.booleans())) if keepdim else (dim,)
        return SampleInput(values(draw, shape, kind), args, more)

    return samples


def bad_dim(*args: Any, **kwargs: Any) -> ErrorInput:
    """A dim past the end of a (2, 3) tensor."""
    return ErrorInput(SampleInput(np.ones((2, 3)), args, kwargs), IndexError, "Dimension out of range")


def errors(*inputs: ErrorInput) -> Callable[[], list]:
    return lambda: list(inputs)


def correction(draw: Callable) -> dict:
    """``correction=`` (0, 1, 2) or the older ``unbiased=`` (True, False), or neither."""
    how = draw(st.sampled_from(["correction", "unbiased", "neither"]))
    if how == "correction":
        return {"correction": draw(st.sampled_from([0, 1, 2]))}
    return {"unbiased": draw(st.booleans())} if how == "unbiased" else {}


def statistic(kind: str = "any", *, always_dim: bool = False) -> Callable:
    """var/std samples: dims (or all, unless ``always_dim``), keepdim, correction= or unbiased=;
    every side is at least 3, so the count exceeds the correction and the result is finite."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(st.sampled_from([(3,), (4,), (3, 4), (4, 3), (3, 3, 3)]))
        kwargs = correction(draw)
        if always_dim or draw(st.booleans()):
            kwargs.update(dim=dims_of(draw, shape), keepdim=draw(st.booleans()))
        return SampleInput(values(draw, shape, kind), (), kwargs)

    return samples


def zero_dim(*args: Any, **kwargs: Any) -> Callable:
    """A 0-dim tensor reduced along dim 0 or -1 (PyTorch takes it as a dim of size 1):
    ``op(x, dim, *args, **kwargs)``."""
    def samples(draw: Callable) -> SampleInput:
        return SampleInput(array(draw, ()), (draw(st.sampled_from([0, -1])), *args), dict(kwargs))

    return samples


# --- sample functions of single ops ------------------------------------------------------------


def sum_to_size_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    target = tuple(1 if draw(st.booleans()) else n for n in shape)[draw(st.integers(0, len(shape) - 1)):]
    return SampleInput(array(draw, shape), target)


def kthvalue_samples(kind: str = "distinct") -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape = draw(NONEMPTY_DIMS)
        dim = dim_of(draw, shape)
        k = draw(st.integers(1, shape[dim]))
        return SampleInput(values(draw, shape, kind), (k, dim, draw(st.booleans())))

    return samples


def topk_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    dim = dim_of(draw, shape)
    return SampleInput(array(draw, shape, "distinct"), (draw(st.integers(0, shape[dim])),),
                       {"dim": dim, "largest": draw(st.booleans())})


def quantile_samples(nan: bool = False) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape = draw(NAN_SHAPES if nan else NONEMPTY_DIMS)
        x = with_nans(draw, shape) if nan else array(draw, shape, "distinct")
        if draw(st.booleans()):
            q: Any = float(draw(st.sampled_from([0.0, 0.25, 0.3, 0.5, 0.9, 1.0])))
        else:
            q = NoGrad(np.asarray(draw(st.lists(st.sampled_from([0.1, 0.5, 0.75, 1.0]), min_size=1, max_size=3))))
        kwargs: dict = {"interpolation": draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))}
        if draw(st.booleans()):
            kwargs.update(dim=dim_of(draw, shape), keepdim=draw(st.booleans()))
        return SampleInput(x, (q,), kwargs)

    return samples


def mode_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    return SampleInput(ties(draw, shape), (dim_of(draw, shape), draw(st.booleans())))


def diff_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    dim = dim_of(draw, shape)
    kwargs: dict = {"dim": dim}
    length = shape[dim]
    for key in ("prepend", "append"):
        if draw(st.booleans()):
            side = list(shape)
            side[dim] = draw(st.integers(1, 2))
            kwargs[key] = array(draw, side)
            length += side[dim]
    kwargs["n"] = draw(st.integers(0, min(length - 1, 3)))  # (n >= length: diff-empty)
    return SampleInput(array(draw, shape), (), kwargs)


def diff_empty(draw: Callable) -> SampleInput:
    """As many differences as elements or more: an empty result."""
    shape = draw(NONEMPTY_DIMS)
    return SampleInput(array(draw, shape), (), {"n": shape[-1] + draw(st.integers(0, 1))})


def gradient_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(3,), (4,), (3, 4), (4, 3), (3, 3, 3)]))
    kwargs: dict = {"edge_order": draw(st.sampled_from([1, 2]))}
    how = draw(st.sampled_from(["all", "dim", "dims"]))
    if how == "dim":
        kwargs["dim"] = dim_of(draw, shape)
    elif how == "dims":
        kwargs["dim"] = tuple(range(len(shape)))
    if draw(st.booleans()):
        kwargs["spacing"] = draw(st.sampled_from([0.5, 2.0]))
    return SampleInput(array(draw, shape), (), kwargs)


def gradient_coordinates(draw: Callable) -> SampleInput:
    """``spacing`` as coordinates: one increasing 1-D tensor per dim (constants)."""
    shape = draw(st.sampled_from([(3,), (4,), (3, 4)]))
    coordinates = tuple(NoGrad(np.cumsum(values_of((n,), np.random.default_rng(draw(st.integers(0, 99))), "positive")))
                        for n in shape)
    return SampleInput(array(draw, shape), (), {"spacing": coordinates, "edge_order": draw(st.sampled_from([1, 2]))})


def cov_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(3,), (2, 4), (3, 3), (1, 4), (4,)]))
    kwargs: dict = {"correction": draw(st.sampled_from([0, 1, 2]))}
    observations = shape[-1]
    if draw(st.booleans()):
        kwargs["fweights"] = np.asarray(draw(st.lists(st.integers(1, 3), min_size=observations, max_size=observations)),
                                        dtype=np.int64)
    if draw(st.booleans()):
        kwargs["aweights"] = NoGrad(array(draw, (observations,), "positive"))
    return SampleInput(array(draw, shape), (), kwargs)


def unique_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    kwargs = {"sorted": True, "return_inverse": draw(st.booleans()), "return_counts": draw(st.booleans())}
    if draw(st.booleans()):
        kwargs["dim"] = dim_of(draw, shape)
    return SampleInput(ties(draw, shape), (), kwargs)


def histc_samples(draw: Callable) -> SampleInput:
    low = draw(st.sampled_from([0.0, -1.0, -0.5]))
    high = low + draw(st.sampled_from([0.0, 1.0, 2.0])) if low else 0.0  # (0, 0): the data's range
    return SampleInput(array(draw, draw(SHAPES)), (draw(st.integers(1, 6)), low, high))


def histogram_samples(draw: Callable) -> SampleInput:
    x = array(draw, draw(NONEMPTY_DIMS))
    kwargs: dict = {"density": draw(st.booleans())}
    if draw(st.booleans()):
        bins: Any = draw(st.integers(1, 5))
        if draw(st.booleans()):
            kwargs["range"] = (-1.0, 1.5)
    else:
        bins = NoGrad(np.sort(values_of((draw(st.integers(2, 5)),), np.random.default_rng(draw(st.integers(0, 99))),
                                        "distinct")))
    if draw(st.booleans()):
        kwargs["weight"] = NoGrad(array(draw, x.shape, "positive"))
    return SampleInput(x, (bins,), kwargs)


def histogramdd_samples(draw: Callable) -> SampleInput:
    points = array(draw, (draw(st.integers(1, 6)), draw(st.integers(1, 3))))
    dims = points.shape[1]
    kwargs: dict = {"density": draw(st.booleans())}
    if draw(st.booleans()):
        kwargs["range"] = [v for _ in range(dims) for v in (-1.0, 1.0)]
    if draw(st.booleans()):
        kwargs["weight"] = NoGrad(array(draw, points.shape[:1], "positive"))
    return SampleInput(points, (list(draw(st.lists(st.integers(1, 3), min_size=dims, max_size=dims))),), kwargs)


def dist_samples(draw: Callable) -> SampleInput:
    sample = binary("odd", "even")(draw)  # never equal elements: |a - b| has a kink at 0
    return SampleInput(sample.input, sample.args + (draw(st.sampled_from([0.5, 1.0, 2.0, 3.0, float("inf")])),))


def norm_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    p = draw(st.sampled_from(["fro", 1, 2, 3, 0.5, float("inf"), float("-inf")]))
    kind = "distinct" if p in (float("inf"), float("-inf")) else "nonzero"
    kwargs: dict = {"p": p}
    if shape and draw(st.booleans()):
        dim = dims_of(draw, shape)
        if p == "fro" and isinstance(dim, tuple) and len(dim) > 2:
            dim = dim[:2]  # 'fro' over 3 dims is a matrix norm PyTorch refuses
        kwargs.update(dim=dim, keepdim=draw(st.booleans()))
    return SampleInput(array(draw, shape, kind), (), kwargs)


def softmax_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    dim = dim_of(draw, shape) if shape else draw(st.sampled_from([0, -1]))
    return SampleInput(array(draw, shape), (dim,))


def scan_samples(kind: str = "any") -> Callable:
    """cumsum/cumprod/logcumsumexp/cummax: a dim of any tensor, 0-dim included."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        dim = dim_of(draw, shape) if shape else draw(st.sampled_from([0, -1]))
        return SampleInput(values(draw, shape, kind), (dim,))

    return samples


def with_dtype(lib: Any, name: str, x: Any, *args: Any, **kwargs: Any) -> Any:
    """``lib.<name>(x, ..., dtype=lib.float64)``: the dtype= keyword, spelt in each library."""
    return getattr(lib, name)(x, *args, dtype=lib.float64, **kwargs)


# finite differences cannot check a gradient at a tie: there the function has a kink
NOT_DIFFERENTIABLE_AT_TIES = {
    "gradcheck": "equal values: the op is not differentiable there (finite differences see the mean of the "
                 "one-sided slopes); the gradient PyTorch documents for ties is compared in vs_torch",
    "gradgradcheck": "equal values: not differentiable there (see gradcheck)",
}

# --- the entries -------------------------------------------------------------------------------
ERR_2x3 = np.ones((2, 3))
INTEGERS = np.ones((2, 3), dtype=np.int64)

OPS = [
    # sum, mean, prod
    OpInfo("sum", full(), other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2), ErrorInput(SampleInput(ERR_2x3, ((0, 0),)), RuntimeError,
                                                       "appears multiple times in the list of dims"))),
    OpInfo("sum", along(dims=True), variant="dim", supports_out=True, other_dtypes=("int64", "bool")),
    OpInfo("sum", zero_dim(), variant="0-dim"),
    OpInfo("sum", full(), variant="dtype", op=lambda lib, x: with_dtype(lib, "sum", x), method=False),
    OpInfo("sum_to_size", sum_to_size_samples, method=True, op=lambda lib, x, *size: x.sum_to_size(*size),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (2, 2)), RuntimeError, "is not expandable to size"))),
    OpInfo("mean", full(), other_dtypes=("int64",),
           error_inputs=errors(bad_dim(-3))),
    OpInfo("mean", along(dims=True), variant="dim", supports_out=True),
    OpInfo("mean", zero_dim(True), variant="0-dim"),
    OpInfo("mean", along(dims=True), variant="dtype", op=lambda lib, x, *a: with_dtype(lib, "mean", x, *a),
           method=False),
    OpInfo("prod", full("nonzero"), other_dtypes=("int64", "bool")),
    OpInfo("prod", along("nonzero"), variant="dim", supports_out=True, other_dtypes=("int64",),
           error_inputs=errors(bad_dim(2))),
    OpInfo("prod", along("ties"), variant="zeros"),
    OpInfo("prod", along("nonzero"), variant="dtype", op=lambda lib, x, *a: with_dtype(lib, "prod", x, *a),
           method=False),
    OpInfo("prod", zero_dim(True), variant="0-dim"),  # zeros among the factors: the product of the others
    # max, min, amax, amin, argmax, argmin, aminmax
    OpInfo("max", full("distinct"), other_dtypes=("int64", "bool"),
           error_inputs=errors(ErrorInput(SampleInput(np.ones((0, 2))), RuntimeError, "Expected reduction dim"),
                               bad_dim(2))),
    OpInfo("max", full("ties"), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),  # ties share the gradient
    OpInfo("max", along("distinct"), variant="dim", other_dtypes=("int64",)),
    OpInfo("max", along("ties", keepdim=False), variant="dim-ties",  # the first of equal values (documented)
           skips=NOT_DIFFERENTIABLE_AT_TIES),
    OpInfo("max", binary("odd", "even"), variant="binary"),  # (max(a, b): maximum)
    OpInfo("max", zero_dim(), variant="0-dim"),
    OpInfo("min", full("distinct"), other_dtypes=("int64", "bool"), error_inputs=errors(bad_dim(-3))),
    OpInfo("min", full("ties"), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),
    OpInfo("min", along("distinct"), variant="dim", other_dtypes=("int64",)),
    OpInfo("min", along("ties", keepdim=False), variant="dim-ties", skips=NOT_DIFFERENTIABLE_AT_TIES),
    OpInfo("min", binary("odd", "even"), variant="binary"),
    OpInfo("min", zero_dim(True), variant="0-dim"),
    OpInfo("amax", along("distinct", dims=True), supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2), ErrorInput(SampleInput(np.ones((0, 2)), (0,)), IndexError,
                                                      "Expected reduction dim 0 to have non-zero size"))),
    OpInfo("amax", full("distinct"), variant="all"),
    OpInfo("amax", full("ties"), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),  # ties share the gradient
    OpInfo("amin", along("distinct", dims=True), supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2))),
    OpInfo("amin", full("distinct"), variant="all"),
    OpInfo("amax", zero_dim(True), variant="0-dim"),
    OpInfo("amin", along("ties", dims=True), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),
    OpInfo("argmax", full("ties"), supports_grad=False, other_dtypes=("int64",)),  # the first of ties (documented)
    OpInfo("argmax", along("ties"), variant="dim", supports_grad=False, supports_out=True,
           error_inputs=errors(bad_dim(2))),
    OpInfo("argmax", zero_dim(True), variant="0-dim", supports_grad=False),
    OpInfo("argmin", full("ties"), supports_grad=False, other_dtypes=("int64",)),
    OpInfo("argmin", along("ties"), variant="dim", supports_grad=False, supports_out=True,
           error_inputs=errors(bad_dim(-3))),
    OpInfo("aminmax", full("distinct"), other_dtypes=("int64", "bool")),
    OpInfo("aminmax", along("ties", keepdim=True, dim_key="dim"), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),
    OpInfo("aminmax", along("distinct", dim_key="dim"), variant="dim",
           error_inputs=errors(bad_dim(dim=2),
                               ErrorInput(SampleInput(np.ones(0)), RuntimeError, "cannot compute aminmax over an empty"),
                               ErrorInput(SampleInput(np.ones((0, 2)), (), {"dim": 0}), IndexError,
                                          "Expected reduction dim 0 to have non-zero size"))),
    # all, any, count_nonzero
    OpInfo("all", full("zeros"), supports_grad=False, other_dtypes=("int64", "bool")),
    OpInfo("all", along("zeros", dims=True), variant="dim", supports_grad=False, supports_out=True,
           other_dtypes=("bool",),
           error_inputs=errors(bad_dim(2))),
    OpInfo("any", full("zeros"), supports_grad=False, other_dtypes=("int64", "bool")),
    OpInfo("any", along("zeros", dims=True), variant="dim", supports_grad=False, supports_out=True,
           other_dtypes=("bool",),
           error_inputs=errors(bad_dim(-3))),
    OpInfo("count_nonzero", full("zeros"), supports_grad=False, other_dtypes=("int64", "bool")),
    OpInfo("count_nonzero", along("zeros", dims=True, keepdim=False), variant="dim", supports_grad=False,
           error_inputs=errors(bad_dim(2))),
    # variance and standard deviation
    OpInfo("var", statistic(), other_dtypes=("int64",), error_inputs=errors(bad_dim(2))),
    OpInfo("var", statistic(always_dim=True), variant="dim", supports_out=True),  # (out= needs a dim in PyTorch)
    OpInfo("std", statistic("distinct"), other_dtypes=("int64",), error_inputs=errors(bad_dim(2))),
    OpInfo("var", zero_dim(), variant="0-dim", skips={"gradcheck": "the variance of one element is nan (0 / 0)",
                                                      "gradgradcheck": "nan, as gradcheck"}),
    OpInfo("std", statistic("distinct", always_dim=True), variant="dim", supports_out=True),
    OpInfo("var_mean", statistic(), method=False, other_dtypes=("int64",),
           error_inputs=errors(bad_dim(2), ErrorInput(SampleInput(INTEGERS), RuntimeError,
                                                      "var_mean only support floating point and complex dtypes"))),
    OpInfo("std_mean", statistic("distinct"), method=False,
           error_inputs=errors(ErrorInput(SampleInput(INTEGERS), RuntimeError,
                                          "std_mean only support floating point and complex dtypes"))),
    # norms and the log-sum-exp family
    OpInfo("norm", norm_samples, supports_out=True, other_dtypes=("int64", "bool")),
    OpInfo("dist", dist_samples, other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (np.ones((2, 2)),)), RuntimeError,
                                          "must match the size of tensor b"))),
    OpInfo("logsumexp", zero_dim(), variant="0-dim"),
    OpInfo("logsumexp", along(dims=True), supports_out=True, other_dtypes=("int64",), error_inputs=errors(bad_dim(2))),
    OpInfo("softmax", softmax_samples, supports_out=True, other_dtypes=("int64",),
           error_inputs=errors(bad_dim(2), ErrorInput(SampleInput(INTEGERS, (1,)), NotImplementedError,
                                                      "not implemented for 'Long'"))),
    OpInfo("softmax", softmax_samples, variant="dtype", op=lambda lib, x, d: lib.softmax(x, d, dtype=lib.float64),
           method=False),
    OpInfo("log_softmax", softmax_samples, supports_out=True, other_dtypes=("int64",),
           error_inputs=errors(bad_dim(-3), ErrorInput(SampleInput(INTEGERS, (0,)), NotImplementedError,
                                                       "not implemented for 'Long'"))),
    OpInfo("log_softmax", softmax_samples, variant="dtype",
           op=lambda lib, x, d: lib.log_softmax(x, d, dtype=lib.float64), method=False),
    # cumulative ops
    OpInfo("cumsum", scan_samples(), inplace="cumsum_", supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2))),
    OpInfo("cumsum", scan_samples(), variant="dtype", op=lambda lib, x, d: lib.cumsum(x, d, dtype=lib.float64),
           method=False),
    OpInfo("cumprod", scan_samples("nonzero"), inplace="cumprod_", supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(-3))),
    OpInfo("cumprod", scan_samples("ties"), variant="zeros"),
    OpInfo("logcumsumexp", scan_samples(), supports_out=True, other_dtypes=("int64", "bool"), error_inputs=errors(bad_dim(2))),
    OpInfo("cummax", scan_samples("distinct"), other_dtypes=("int64", "bool"), error_inputs=errors(bad_dim(2))),
    OpInfo("cummin", scan_samples("distinct"), other_dtypes=("int64", "bool"), error_inputs=errors(bad_dim(-3))),
    # order statistics
    OpInfo("median", full("distinct"), other_dtypes=("int64", "bool")),
    OpInfo("median", along("distinct"), variant="dim", other_dtypes=("int64",), error_inputs=errors(bad_dim(2))),
    OpInfo("median", along("ties"), variant="dim-ties", skips=NOT_DIFFERENTIABLE_AT_TIES),  # PyTorch's index
    OpInfo("median", zero_dim(), variant="0-dim"),
    OpInfo("nanmedian", full("nan", NAN_SHAPES)),
    OpInfo("nanmedian", along("nan", shapes=NAN_SHAPES), variant="dim", error_inputs=errors(bad_dim(-3))),
    OpInfo("kthvalue", kthvalue_samples(), other_dtypes=("int64", "bool"),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (4, 1)), RuntimeError,
                                          "selected number k out of range"), bad_dim(1, 2))),
    OpInfo("kthvalue", kthvalue_samples("ties"), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),  # PyTorch's index
    OpInfo("kthvalue", zero_dim(), variant="0-dim", op=lambda lib, x, dim: lib.kthvalue(x, 1, dim), method=False),
    OpInfo("mode", zero_dim(), variant="0-dim"),
    OpInfo("mode", mode_samples, skips=NOT_DIFFERENTIABLE_AT_TIES, other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2))),
    OpInfo("quantile", quantile_samples(), supports_out=True, other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (1.5,)), RuntimeError, "q must be in the range [0, 1]"),
                               ErrorInput(SampleInput(INTEGERS, (0.5,)), RuntimeError,
                                          "input tensor must be either float or double dtype"),
                               ErrorInput(SampleInput(ERR_2x3, (0.5,), {"interpolation": "cubic"}), RuntimeError,
                                          "interpolation must be one of linear, lower, higher, midpoint or nearest"))),
    OpInfo("nanquantile", quantile_samples(nan=True), supports_out=True,
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (-0.5,)), RuntimeError, "q must be in the range"))),
    # sums and means that skip NaN
    OpInfo("nansum", full("nan", NAN_SHAPES), other_dtypes=("int64",)),
    OpInfo("nansum", along("nan", dims=True, shapes=NAN_SHAPES), variant="dim", supports_out=True,
           other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2))),
    OpInfo("nansum", along("nan", dims=True, shapes=NAN_SHAPES), variant="dtype", method=False,
           op=lambda lib, x, *a: with_dtype(lib, "nansum", x, *a)),
    OpInfo("nanmean", full("nan", NAN_SHAPES), other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(INTEGERS), RuntimeError,
                                          "expected input to have floating point or complex dtype"))),
    OpInfo("nanmean", along("nan", dims=True, shapes=NAN_SHAPES), variant="dim", supports_out=True),
    # differences and statistics of rows
    OpInfo("diff", diff_samples, other_dtypes=("int64", "bool"),
           error_inputs=errors(ErrorInput(SampleInput(np.ones(())), RuntimeError,
                                          "diff expects input to be at least one-dimensional"),
                               ErrorInput(SampleInput(ERR_2x3, (), {"prepend": np.ones((3, 3))}), RuntimeError,
                                          "diff expects the shape of tensor to prepend or append to match"),
                               ErrorInput(SampleInput(ERR_2x3, (), {"append": np.ones(3)}), RuntimeError,
                                          "diff expects prepend or append to be the same dimension as input"))),
    OpInfo("diff", diff_empty, variant="empty"),
    OpInfo("gradient", gradient_samples, method=False, other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(np.ones((1, 3)), (), {"dim": 0}), RuntimeError,
                                          "expected each dimension size to be at least"),
                               ErrorInput(SampleInput(np.ones((3, 3)), (), {"spacing": [1.0, 2.0, 3.0]}), RuntimeError,
                                          "a list of length equal to 'self.dim() = 2'"))),
    OpInfo("gradient", gradient_coordinates, variant="coordinates", method=False),
    OpInfo("cov", cov_samples, other_dtypes=("int64", "bool"), error_inputs=errors(
        ErrorInput(SampleInput(np.ones((2, 2, 2))), RuntimeError, "expected input to have two or fewer dimensions"),
        ErrorInput(SampleInput(ERR_2x3, (), {"fweights": NoGrad(np.ones(3))}), RuntimeError,
                   "expected fweights to have integral dtype"),
        ErrorInput(SampleInput(ERR_2x3, (), {"fweights": np.array([1, -1, 1])}), RuntimeError,
                   "fweights cannot be negative"),
        ErrorInput(SampleInput(ERR_2x3, (), {"aweights": NoGrad(np.ones(2))}), RuntimeError,
                   "expected aweights to have the same numel as there are observations"))),
    OpInfo("corrcoef", full("any", st.sampled_from([(2, 4), (3, 3), (3,), (1, 4)])), other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(np.ones((2, 2, 2))), RuntimeError,
                                          "corrcoef(): expected input to have two or fewer dimensions")),
           tolerances={"float32": (1e-4, 1e-5)}),  # a quotient of sums: float32 rounding grows
    # sorting and selecting
    OpInfo("sort", along("distinct", keepdim=False, descending=True), other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(2))),
    OpInfo("sort", along("distinct", keepdim=False), variant="ascending"),
    OpInfo("sort", along("ties", keepdim=False, dim_key="dim", stable=True), variant="stable",  # equal values keep
           skips=NOT_DIFFERENTIABLE_AT_TIES),                                                   # their order

    OpInfo("sort", zero_dim(), variant="0-dim"),
    OpInfo("argsort", along("distinct", keepdim=False), supports_grad=False, other_dtypes=("int64", "bool"),
           error_inputs=errors(bad_dim(-3))),
    OpInfo("argsort", along("ties", keepdim=False, dim_key="dim", stable=True, descending=True), variant="stable",
           supports_grad=False),
    OpInfo("msort", full("distinct", NONEMPTY_DIMS), other_dtypes=("int64", "bool")),
    OpInfo("topk", zero_dim(), variant="0-dim", op=lambda lib, x, dim: lib.topk(x, 1, dim), method=False),
    OpInfo("topk", topk_samples, other_dtypes=("int64", "bool"),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (4,)), RuntimeError, "selected index k out of range"))),
    OpInfo("unique", unique_samples, supports_grad=False, other_dtypes=("int64", "bool")),
    OpInfo("cummax", scan_samples("ties"), variant="ties", skips=NOT_DIFFERENTIABLE_AT_TIES),  # the last of ties
    # histograms (not differentiable: a count does not move when a value moves a little)
    OpInfo("histc", histc_samples, supports_grad=False, supports_out=True, other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (0,)), RuntimeError, "bins must be > 0"),
                               ErrorInput(SampleInput(ERR_2x3, (3, 2.0, 1.0)), RuntimeError,
                                          "max must be larger than min"))),
    OpInfo("histogram", histogram_samples, supports_grad=False, other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, (0,)), RuntimeError, "bins must be > 0"),
                               ErrorInput(SampleInput(ERR_2x3, (NoGrad(np.ones((2, 2))),)), RuntimeError,
                                          "bins tensor should have one dimension"))),
    OpInfo("histogramdd", histogramdd_samples, supports_grad=False, method=False, other_dtypes=("int64",),
           error_inputs=errors(ErrorInput(SampleInput(ERR_2x3, ([2, 2],)), RuntimeError,
                                          "The size of bins must be equal to the innermost dimension"))),
]
