"""Bind the ops to ``Tensor``: methods (``x.exp()``), operators (``x + y``) and in-place forms.

PyTorch generates these bindings from ``native_functions.yaml``; here they are one table, so a
learner can see that ``x + y`` is nothing but ``glasstorch.add(x, y)``.
"""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import arithmetic, comparison, conversion, indexing, inplace, linalg, pointwise, reduction, shape

_METHODS = {
    # arithmetic
    "add": arithmetic.add, "sub": arithmetic.sub, "mul": arithmetic.mul, "div": arithmetic.div,
    "pow": arithmetic.pow, "neg": arithmetic.neg, "reciprocal": arithmetic.reciprocal,
    "subtract": arithmetic.sub, "multiply": arithmetic.mul, "divide": arithmetic.div,
    "true_divide": arithmetic.div,
    # elementwise functions
    "abs": pointwise.abs, "sign": pointwise.sign, "exp": pointwise.exp, "log": pointwise.log,
    "sqrt": pointwise.sqrt, "sin": pointwise.sin, "cos": pointwise.cos, "tanh": pointwise.tanh,
    "sigmoid": pointwise.sigmoid, "relu": pointwise.relu, "clamp": pointwise.clamp, "clip": pointwise.clamp,
    # reductions
    "sum": reduction.sum, "mean": reduction.mean, "max": reduction.max, "min": reduction.min,
    "amax": reduction.amax, "amin": reduction.amin, "argmax": reduction.argmax, "argmin": reduction.argmin,
    "var": reduction.var, "softmax": reduction.softmax, "log_softmax": reduction.log_softmax,
    "all": reduction.all, "any": reduction.any, "sum_to_size": reduction.sum_to_size,
    # matrix products
    "matmul": linalg.matmul, "mm": linalg.mm, "addmm": linalg.addmm, "mv": linalg.mv, "dot": linalg.dot,
    # shapes
    "reshape": shape.reshape, "view": shape.view, "flatten": shape.flatten, "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze, "transpose": shape.transpose, "permute": shape.permute, "t": shape.t,
    "expand": shape.expand, "expand_as": shape.expand_as,
    # indexing
    "where": lambda self, condition, other: indexing.where(condition, self, other),
    "masked_fill": indexing.masked_fill,
    # comparisons
    "eq": comparison.eq, "ne": comparison.ne, "lt": comparison.lt, "le": comparison.le,
    "gt": comparison.gt, "ge": comparison.ge, "maximum": comparison.maximum, "minimum": comparison.minimum,
    "logical_not": comparison.logical_not, "logical_and": comparison.logical_and,
    "logical_or": comparison.logical_or, "isnan": comparison.isnan, "isfinite": comparison.isfinite,
    "isclose": comparison.isclose, "allclose": comparison.allclose, "equal": comparison.equal,
    # copies
    "clone": conversion.clone,
    # in place
    "add_": inplace.add_, "sub_": inplace.sub_, "mul_": inplace.mul_, "div_": inplace.div_,
    "pow_": inplace.pow_, "neg_": inplace.neg_, "clamp_": inplace.clamp_, "relu_": inplace.relu_,
    "exp_": inplace.exp_, "zero_": inplace.zero_, "fill_": inplace.fill_, "copy_": inplace.copy_,
    "masked_fill_": inplace.masked_fill_, "uniform_": inplace.uniform_, "normal_": inplace.normal_,
}


def _reflected(function: Any) -> Any:
    """``2 * x`` arrives as ``x.__rmul__(2)``: swap the operands back."""
    return lambda self, other: function(other, self)


_OPERATORS = {
    "__add__": arithmetic.add, "__radd__": arithmetic.add,
    "__sub__": arithmetic.sub, "__rsub__": arithmetic.rsub,
    "__mul__": arithmetic.mul, "__rmul__": arithmetic.mul,
    "__truediv__": arithmetic.div, "__rtruediv__": arithmetic.rdiv,
    "__pow__": arithmetic.pow, "__rpow__": _reflected(arithmetic.pow),
    "__matmul__": linalg.matmul, "__rmatmul__": _reflected(linalg.matmul),
    "__neg__": arithmetic.neg, "__abs__": pointwise.abs,
    "__eq__": comparison.eq, "__ne__": comparison.ne, "__lt__": comparison.lt,
    "__le__": comparison.le, "__gt__": comparison.gt, "__ge__": comparison.ge,
    "__and__": comparison.bitwise_and, "__or__": comparison.bitwise_or, "__xor__": comparison.bitwise_xor,
    "__rand__": comparison.bitwise_and, "__ror__": comparison.bitwise_or,
    "__invert__": comparison.bitwise_not,
    "__getitem__": indexing.getitem, "__setitem__": inplace.setitem,
    # x += y changes x in place, as in PyTorch
    "__iadd__": inplace.add_, "__isub__": inplace.sub_, "__imul__": inplace.mul_,
    "__itruediv__": inplace.div_,
}

for _name, _function in {**_METHODS, **_OPERATORS}.items():
    setattr(Tensor, _name, _function)

Tensor.T = property(shape.T, doc="All dims reversed.")
Tensor.mT = property(shape.mT, doc="The last two dims swapped.")
Tensor.__floordiv__ = lambda self, other: pointwise_more.floor_divide(self, other)  # (imported below)
Tensor.__rfloordiv__ = lambda self, other: pointwise_more.floor_divide(other, self)
Tensor.__mod__ = lambda self, other: self - arithmetic.div(self, other, rounding_mode="floor") * other


# --- the Tensor API of issue 14: more methods, in-place twins, numpy's axis=/keepdims= ---------------
from . import distance, factory_methods, histograms, random_ops, scatter_gather, sorting  # noqa: E402
from ._arguments import numpy_aliases, takes_dim  # noqa: E402
from .inplace import apply_inplace  # noqa: E402


def _inplace_twin(function: Any) -> Any:
    """``x.sin_()`` from ``sin``: computed out of place, written into x (see ``inplace.apply_inplace``)."""
    return lambda self, *args, **kwargs: apply_inplace(self, function, *args, **kwargs)


_UNARY = {name: getattr(pointwise, name) for name in (
    "log10", "log2", "log1p", "expm1", "asin", "acos", "atan", "ceil", "floor", "round", "trunc", "frac", "rsqrt",
    "square")}
_UNARY.update(arcsin=pointwise.asin, arccos=pointwise.acos, arctan=pointwise.atan, fix=pointwise.trunc)
_UNARY.update({name: getattr(pointwise, name) for name in ("tan", "sinh", "cosh", "asinh", "acosh", "atanh")})
_UNARY.update(arcsinh=pointwise.asinh, arccosh=pointwise.acosh, arctanh=pointwise.atanh)

_TENSOR_API_METHODS = {
    **_UNARY,
    "atan2": pointwise.atan2, "arctan2": pointwise.atan2,
    # reductions and scans
    "norm": reduction.norm, "std": reduction.std, "logsumexp": reduction.logsumexp, "cumsum": reduction.cumsum,
    "cumprod": reduction.cumprod, "prod": reduction.prod,
    "cumsum_": _inplace_twin(reduction.cumsum), "cumprod_": _inplace_twin(reduction.cumprod),
    # sorting
    "sort": sorting.sort, "argsort": sorting.argsort, "msort": sorting.msort, "topk": sorting.topk,
    "sgn": pointwise.sgn,
    "unique": sorting.unique,
    # indexing, gather and scatter
    "nonzero": indexing.nonzero, "argwhere": indexing.argwhere, "masked_select": indexing.masked_select,
    "gather": scatter_gather.gather, "scatter": scatter_gather.scatter, "scatter_": scatter_gather.scatter_,
    "scatter_add": scatter_gather.scatter_add, "scatter_add_": scatter_gather.scatter_add_,
    "index_select": scatter_gather.index_select, "index_add": scatter_gather.index_add,
    "index_add_": scatter_gather.index_add_, "take_along_dim": scatter_gather.take_along_dim,
    # shapes
    "repeat": shape.repeat, "tile": shape.tile, "repeat_interleave": shape.repeat_interleave, "chunk": shape.chunk,
    "split": shape.split, "unbind": shape.unbind, "flip": shape.flip, "fliplr": shape.fliplr,
    "flipud": shape.flipud, "roll": shape.roll, "tril": shape.tril, "triu": shape.triu, "unfold": shape.unfold,
    "narrow": shape.narrow, "narrow_copy": shape.narrow_copy, "view_as": shape.view_as, "reshape_as": shape.reshape_as,
    "movedim": shape.movedim, "moveaxis": shape.movedim, "swapaxes": shape.swapaxes,
    "swapdims": shape.swapaxes, "unsqueeze_": shape.unsqueeze_, "squeeze_": shape.squeeze_,
    "transpose_": shape.transpose_, "t_": shape.t_, "as_strided": shape.as_strided, "diagonal": shape.diagonal,
    "scatter_reduce": scatter_gather.scatter_reduce, "scatter_reduce_": scatter_gather.scatter_reduce_,
    "histc": histograms.histc, "histogram": histograms.histogram, "dist": distance.dist, "det": linalg.det,
    "svd": linalg.svd,
    "tril_": _inplace_twin(shape.tril), "triu_": _inplace_twin(shape.triu),
    # products
    "bmm": linalg.bmm, "baddbmm": linalg.baddbmm, "outer": linalg.outer, "ger": linalg.outer, "cross": linalg.cross,
    # random
    "normal_": random_ops.normal_, "uniform_": random_ops.uniform_, "random_": random_ops.random_,
    "exponential_": random_ops.exponential_, "bernoulli": random_ops.bernoulli, "bernoulli_": random_ops.bernoulli_,
    "multinomial": random_ops.multinomial,
    # new tensors like this one, and its memory layout
    "new_zeros": factory_methods.new_zeros, "new_ones": factory_methods.new_ones,
    "new_full": factory_methods.new_full, "new_empty": factory_methods.new_empty,
    "new_tensor": factory_methods.new_tensor, "stride": factory_methods.stride,
}
# the in-place twin of every elementwise function that lacks one
for _name, _function in {**_UNARY, "sin": pointwise.sin, "cos": pointwise.cos, "tanh": pointwise.tanh,
                         "sigmoid": pointwise.sigmoid, "log": pointwise.log, "sqrt": pointwise.sqrt,
                         "abs": pointwise.abs, "sign": pointwise.sign, "reciprocal": arithmetic.reciprocal,
                         "atan2": pointwise.atan2, "sgn": pointwise.sgn}.items():
    if not hasattr(Tensor, _name + "_") and _name + "_" not in _TENSOR_API_METHODS:
        _TENSOR_API_METHODS[_name + "_"] = _inplace_twin(_function)

# found missing by running PyTorch's docstring examples (issue 14)
from . import pointwise_more, shape_more, statistics  # noqa: E402

_TENSOR_API_METHODS.update({name: getattr(module, name) for module, names in (
    (pointwise_more, "addcmul addcdiv lerp hypot logaddexp logaddexp2 copysign fmod remainder floor_divide float_power "
                     "fmax fmin heaviside ldexp xlogy gcd lcm logical_xor bitwise_left_shift bitwise_right_shift isinf "
                     "isposinf isneginf signbit nan_to_num rad2deg deg2rad positive frexp isin nextafter"),
    (statistics, "median nanmedian quantile nanquantile kthvalue mode aminmax cummax cummin logcumsumexp count_nonzero "
                 "nansum nanmean diff cov corrcoef"),
    (shape_more, "tensor_split hsplit vsplit dsplit broadcast_to ravel unflatten rot90 diag diag_embed diagflat trace "
                 "inner kron take bincount unique_consecutive renorm"),
) for name in names.split()})
from . import gamma_functions, indexing_more, linalg_lu, linalg_more, linalg_solve  # noqa: E402

_TENSOR_API_METHODS.update({name: getattr(module, name) for module, names in (
    (indexing_more, "index_copy index_copy_ index_fill index_fill_ masked_scatter masked_scatter_ put put_ "
                    "fill_diagonal_ select_scatter slice_scatter diagonal_scatter as_strided_scatter index_reduce "
                    "index_reduce_ nonzero_static"),
    (linalg_more, "addmv addr addbmm logdet"),
    (linalg_solve, "inverse triangular_solve"),
    (gamma_functions, "lgamma digamma"),
    (linalg_lu, "lu_solve"),
) for name in names.split()})
_TENSOR_API_METHODS.update(lu=lambda self, pivot=True, get_infos=False: linalg_lu.lu(self, pivot, get_infos))
_TENSOR_API_METHODS.update(cholesky=linalg_solve.cholesky_deprecated,
                           polygamma=lambda self, n: gamma_functions.polygamma(n, self),
                           lgamma_=_inplace_twin(gamma_functions.lgamma), digamma_=_inplace_twin(gamma_functions.digamma))
_TENSOR_API_METHODS.update(index_put=indexing.index_put, index_put_=indexing.index_put_)
from . import linalg_decompositions, linalg_functions  # noqa: E402

_TENSOR_API_METHODS.update({name: getattr(module, name) for module, names in (
    (linalg_decompositions, "slogdet qr pinverse"),
    (linalg_functions, "matrix_power matrix_exp vdot cholesky_solve cholesky_inverse"),
) for name in names.split()})
_TENSOR_API_METHODS.update(float_power_=inplace.float_power_, bitwise_and=comparison.bitwise_and,
                           bitwise_or=comparison.bitwise_or, bitwise_xor=comparison.bitwise_xor,
                           bitwise_not=comparison.bitwise_not)
_TENSOR_API_METHODS.update({name + "_": inplace.comparison_inplace(name) for name in ("eq", "ne", "lt", "le", "gt", "ge")})
# PyTorch records these in place but cannot differentiate them (the backward is its error)
_TENSOR_API_METHODS.update(acosh_=inplace.acosh_, arccosh_=inplace.acosh_, asinh_=inplace.asinh_,
                           arcsinh_=inplace.asinh_, atanh_=inplace.atanh_, arctanh_=inplace.atanh_)
_TENSOR_API_METHODS.update(clamp_min=pointwise.clamp_min, clamp_max=pointwise.clamp_max,
                           clamp_min_=_inplace_twin(pointwise.clamp_min), clamp_max_=_inplace_twin(pointwise.clamp_max))
# PyTorch's other names of the same methods (torch.absolute is abs, torch.greater is gt, ...)
_TENSOR_API_METHODS.update(absolute=pointwise.abs, absolute_=_inplace_twin(pointwise.abs), negative=arithmetic.neg,
                           negative_=inplace.neg_, clip_=inplace.clamp_, not_equal=comparison.ne,
                           greater=comparison.gt, greater_equal=comparison.ge, less=comparison.lt,
                           less_equal=comparison.le)
_TENSOR_API_METHODS.update(renorm_=_inplace_twin(shape_more.renorm), swapaxes_=shape.transpose_, swapdims_=shape.transpose_)
_TENSOR_API_METHODS.update(addmv_=_inplace_twin(linalg_more.addmv), addr_=_inplace_twin(linalg_more.addr),
                           addbmm_=_inplace_twin(linalg_more.addbmm))
_TENSOR_API_METHODS.update(addmm_=_inplace_twin(linalg.addmm), baddbmm_=_inplace_twin(linalg.baddbmm))
from . import special  # noqa: E402

_TENSOR_API_METHODS.update({name: getattr(special, name) for name in ("erf", "erfc", "erfinv", "exp2", "logit", "sinc")})
_TENSOR_API_METHODS.update({name + "_": _inplace_twin(getattr(special, name))
                            for name in ("erf", "erfc", "erfinv", "exp2", "logit", "sinc")})
from . import real_tensors  # noqa: E402

_TENSOR_API_METHODS.update({name: getattr(real_tensors, name) for name in (
    "conj", "resolve_conj", "resolve_neg", "adjoint", "is_complex", "is_conj", "is_neg", "isreal")})
Tensor.real = property(real_tensors.real, doc="The real part: a real tensor itself.")
Tensor.imag = property(real_tensors.imag, doc="The imaginary part: an error for a real tensor, as in PyTorch.")
Tensor.H = property(real_tensors.H, doc="The conjugate transpose of a matrix.")
Tensor.mH = property(real_tensors.mH, doc="The conjugate transpose of a batch of matrices.")
from . import elementwise_activation  # noqa: E402

_TENSOR_API_METHODS.update(prelu=elementwise_activation.prelu, hardshrink=elementwise_activation.hardshrink)
for _name in ("addcmul", "addcdiv", "lerp", "hypot", "copysign", "fmod", "remainder", "floor_divide", "float_power",
              "ldexp", "xlogy", "gcd", "lcm", "logical_xor", "nan_to_num", "rad2deg", "deg2rad",
              "bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
              "nextafter", "heaviside"):
    _TENSOR_API_METHODS.setdefault(_name + "_", _inplace_twin(_TENSOR_API_METHODS[_name]))

for _name, _function in _TENSOR_API_METHODS.items():
    setattr(Tensor, _name, _function)
# axis= and keepdims= wherever a method has a dim (x.sum(axis=1, keepdims=True), as in PyTorch)
for _name in (*_METHODS, *_TENSOR_API_METHODS):
    if takes_dim(getattr(Tensor, _name)):
        setattr(Tensor, _name, numpy_aliases(getattr(Tensor, _name)))
