"""Differentiable operations, each forward next to its backward Node, one file per family.

``_methods.py`` binds them to ``Tensor`` as methods and operators (``x.sum()``, ``x + y``).
"""
import types as _types
import typing as _typing

from .arithmetic import add, div, mul, neg, pow, reciprocal, rsub, sub
from .comparison import (allclose, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, eq, equal, ge, gt,
                         isclose, isfinite, isnan, le, logical_and, logical_not, logical_or, lt, maximum,
                         minimum, ne)
from .conversion import clone
from .indexing import masked_fill, where
from .linalg import addmm, dot, matmul, mm, mv
from .pointwise import abs, clamp, clamp_max, clamp_min, cos, exp, log, relu, sgn, sigmoid, sign, sin, sqrt, tanh
from .reduction import (all, amax, amin, any, argmax, argmin, log_softmax, max, mean, min, softmax, sum,
                        sum_to_size, var)
from .shape import cat, concat, concatenate, expand, flatten, permute, reshape, squeeze, stack, t, transpose, unsqueeze, view
from .einsum import einsum
from .indexing import argwhere, index_put, masked_select, nonzero
from .linalg import baddbmm, bmm, cross, ger, outer
from .pointwise import (acos, acosh, arctan2, asin, asinh, atan, atan2, atanh, ceil, cosh, expm1, fix, floor, frac,
                        log1p, log2, log10, round, rsqrt, sinh, square, tan, trunc)
from .random_ops import bernoulli, multinomial, normal
from .reduction import cumprod, cumsum, logsumexp, norm, prod, std, std_mean, var_mean
from .scatter_gather import gather, index_add, index_select, scatter, scatter_add, take_along_dim
from .shape import (chunk, flip, fliplr, flipud, meshgrid, moveaxis, movedim, narrow, repeat_interleave, roll, split,
                    swapaxes, swapdims, tile, tril, triu, unbind)
from .sorting import argsort, msort, sort, topk, unique
from .distance import dist
from .histograms import histc, histogram, histogramdd
from .linalg import det, svd
from .scatter_gather import scatter_reduce
from .shape import (as_strided, atleast_1d, atleast_2d, atleast_3d, column_stack, diagonal, dstack, hstack, row_stack,
                    vstack)
from .pointwise_more import (addcdiv, addcmul, bitwise_left_shift, bitwise_right_shift, copysign, deg2rad,
                             float_power, floor_divide, fmax, fmin, fmod, frexp, gcd, heaviside, hypot, isin, isinf,
                             isneginf, isposinf, lcm, ldexp, lerp, logaddexp, logaddexp2, logical_xor, nan_to_num,
                             nextafter, positive, rad2deg, remainder, signbit, xlogy)
from .statistics import (aminmax, corrcoef, count_nonzero, cov, cummax, cummin, diff, gradient, kthvalue, logcumsumexp,
                         median, mode, nanmean, nanmedian, nanquantile, nansum, quantile)
from .shape_more import (bincount, block_diag, broadcast_to, bucketize, cartesian_prod, combinations, diag,
                         diag_embed, diagflat, dsplit, hsplit, inner, kron, logspace, range_ as range, ravel, renorm, rot90,
                         searchsorted, take, tensor_split, trace, tril_indices, triu_indices, unflatten, unique_consecutive,
                         unravel_index,
                         vander, vsplit)
from .indexing_more import (as_strided_scatter, diagonal_scatter, index_copy, index_fill, index_reduce, masked_scatter,
                            nonzero_static, put, select_scatter, slice_scatter)
from .linalg_more import addbmm, addmv, addr, cdist, chain_matmul, cumulative_trapezoid, logdet, trapezoid, trapz
from .linalg_solve import cholesky_deprecated as cholesky, inverse, triangular_solve
from .gamma_functions import digamma, lgamma, polygamma
from .linalg_lu import lu, lu_solve, lu_unpack
from .linalg_decompositions import pinverse, qr, slogdet
from .linalg_functions import cholesky_inverse, cholesky_solve, matrix_exp, matrix_power, vdot
from .special import erf, erfc, erfinv, exp2, logit, sinc
from .real_tensors import adjoint, conj, imag, is_complex, is_conj, is_neg, isreal, real, resolve_conj, resolve_neg
from . import _methods  # noqa: F401  (binds the ops to Tensor)

clip = clamp
negative = neg
subtract = sub
multiply = mul
divide = true_divide = div
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge
absolute = abs

arccos, arcsin, arctan = acos, asin, atan
arccosh, arcsinh, arctanh = acosh, asinh, atanh

# PyTorch's argument conventions (ops/_arguments.py): numpy's axis=/keepdims= wherever an op has a
# dim, and out= on the common functions
import inspect as _inspect  # noqa: E402

from ._arguments import numpy_aliases as _numpy_aliases, takes_dim as _takes_dim, with_out as _with_out  # noqa: E402

for _name in ("add", "sub", "mul", "div", "pow", "matmul", "mm", "mv", "dot", "sum", "mean", "amax", "amin",
              "argmax", "argmin", "cat", "stack", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid",
              "abs", "neg", "clamp", "maximum", "minimum", "var", "std", "logsumexp", "where", "outer", "log2",
              "log10", "asin", "acos", "atan", "atan2", "ceil", "floor", "round", "trunc", "frac", "sign",
              "reciprocal", "rsqrt", "index_select", "gather", "masked_select", "flip", "roll", "tril", "triu",
              "cross", "baddbmm", "einsum", "multinomial", "bernoulli", "cumsum", "cumprod", "softmax", "log_softmax",
              "prod", "logical_and", "logical_or", "logical_not", "logical_xor",
              "all", "any", "nansum", "nanmean", "logcumsumexp", "quantile", "nanquantile",  # (tests/op_db/reductions.py)
              # the rest of the elementwise family (tests/op_db/pointwise.py checks each against PyTorch)
              "acosh", "asinh", "atanh", "cosh", "sinh", "tan", "expm1", "log1p", "sgn", "square", "digamma", "lgamma",
              "rad2deg", "deg2rad", "nan_to_num", "float_power", "fmod", "remainder", "floor_divide", "fmax", "fmin",
              "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy", "ldexp", "lerp", "addcmul", "addcdiv", "nextafter",
              "heaviside", "gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_or",
              "bitwise_xor", "bitwise_not", "eq", "ne", "lt", "le", "gt", "ge", "signbit", "isposinf", "isneginf", "isin",
              "clamp_min", "clamp_max"):
    if "out" not in _inspect.signature(globals()[_name]).parameters:
        globals()[_name] = _with_out(globals()[_name])
from .shape import narrow_copy  # noqa: E402
for _name in ("concat", "concatenate", "hstack", "vstack", "row_stack", "dstack", "column_stack", "take", "diag", "kron",
              "inner", "renorm", "narrow_copy"):  # the shape functions that take out= in PyTorch
    globals()[_name] = _with_out(globals()[_name])
for _name, _value in list(globals().items()):
    if callable(_value) and not _name.startswith("_") and not isinstance(_value, type) and _takes_dim(_value):
        globals()[_name] = _numpy_aliases(_value)



def _namespace_inplace(name: str) -> _typing.Callable:
    """``torch.sin_(x)``: PyTorch's namespace has the in-place twins of many ops; each is ``x.sin_()``."""
    def twin(input: "Tensor", *args: _typing.Any, **kwargs: _typing.Any) -> "Tensor":
        return getattr(input, name)(*args, **kwargs)

    twin.__name__ = twin.__qualname__ = name
    twin.__doc__ = f"``input.{name}(...)``, in place (PyTorch's ``torch.{name}``)."
    return twin


for _name in ("abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
              "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "cos_", "cosh_", "detach_", "exp_", "expm1_", "fill_",
              "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "log_", "neg_", "reciprocal_", "relu_", "round_",
              "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_",
              "xlogy_", "clip_", "negative_", "clamp_min_", "clamp_max_"):
    globals()[_name] = _namespace_inplace(_name)

# What ``from .ops import *`` gives glasstorch's namespace: the ops, not the files they live in
# (``glasstorch.linalg`` must not be this package's linalg.py: in PyTorch it is torch.linalg).
__all__ = [name for name, value in globals().items()
           if not name.startswith("_") and not isinstance(value, _types.ModuleType)]
