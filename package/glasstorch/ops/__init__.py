"""Differentiable operations, each forward next to its backward Node, one file per family.

``_methods.py`` binds them to ``Tensor`` as methods and operators (``x.sum()``, ``x + y``).
"""
import types as _types

from .arithmetic import add, div, mul, neg, pow, reciprocal, rsub, sub
from .comparison import (allclose, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, eq, equal, ge, gt,
                         isclose, isfinite, isnan, le, logical_and, logical_not, logical_or, lt, maximum,
                         minimum, ne)
from .conversion import clone
from .indexing import masked_fill, where
from .linalg import addmm, dot, matmul, mm, mv
from .pointwise import abs, clamp, cos, exp, log, relu, sigmoid, sign, sin, sqrt, tanh
from .reduction import (all, amax, amin, any, argmax, argmin, log_softmax, max, mean, min, softmax, sum,
                        sum_to_size, var)
from .shape import cat, concat, concatenate, expand, flatten, permute, reshape, squeeze, stack, t, transpose, unsqueeze, view
from . import _methods  # noqa: F401  (binds the ops to Tensor)

clip = clamp
negative = neg
subtract = sub
multiply = mul
divide = true_divide = div

# What ``from .ops import *`` gives glasstorch's namespace: the ops, not the files they live in
# (``glasstorch.linalg`` must not be this package's linalg.py: in PyTorch it is torch.linalg).
__all__ = [name for name, value in globals().items()
           if not name.startswith("_") and not isinstance(value, _types.ModuleType)]
