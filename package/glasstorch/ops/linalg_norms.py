"""Norms of ``torch.linalg``: ``vector_norm``, ``matrix_norm`` and ``norm``, which dispatches to one
of them, and ``cond``.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp`` (``linalg_vector_norm``, ``linalg_matrix_norm``,
``linalg_norm``, ``linalg_cond``). As there, only the vector norm has a Node of its own
(``LinalgVectorNormBackward0``, computed by ``ops/reduction.py: norm``); a matrix norm is composed,
so its ``grad_fn`` is the last op of the composition:

- ``'fro'``: the vector 2-norm over the two dims (``LinalgVectorNormBackward0``);
- ``'nuc'``: ``svdvals(A).sum(-1)`` (``SumBackward1``);
- ``2`` / ``-2``: ``svdvals(A).amax(-1)`` / ``amin`` (``AmaxBackward0`` / ``AminBackward0``);
- ``1`` / ``-1`` (``inf`` / ``-inf``): the largest / smallest column (row) sum of ``|A|``, i.e. a
  vector 1-norm over one dim, then ``amax`` / ``amin`` over the other.

For ``nuc`` and ``+-2`` with ``keepdim`` PyTorch moves the two dims to the back first and
permutes back after (``PermuteBackward0``), as here.
"""
from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor, _normalize_dim
from ._arguments import write_out
from .linalg import svdvals
from .reduction import norm as _vector_norm

_MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
                out: Any = None) -> Tensor:
    """(sum |x|**ord) ** (1/ord) over ``dim`` (all elements by default); ``ord`` inf/-inf the
    largest/smallest |x|, 0 the number of non-zeros. Its Node: ``LinalgVectorNormBackward0``."""
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not str")
    return _vector_norm(x, ord, dim, keepdim, out=out, dtype=dtype)


def _check_matrix_norm(A: Tensor, ord: Any, dim: Any) -> tuple:
    """PyTorch's checks of ``linalg.matrix_norm``; the two dims, made non-negative."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if ord not in _MATRIX_ORDERS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    first, second = (_normalize_dim(d, A.dim()) for d in dims)
    if first == second:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    return first, second


def _backshift(ndim: int, first: int, second: int) -> list:
    """The permutation that moves dims ``first`` and ``second`` to the back (PyTorch's
    ``create_dim_backshift_permutation``)."""
    return [d for d in range(ndim) if d not in (first, second)] + [first, second]


def _spectral(A: Tensor, ord: Any, first: int, second: int, keepdim: bool) -> Tensor:
    """'nuc' (the sum of the singular values), 2 (the largest) or -2 (the smallest)."""
    permutation = _backshift(A.dim(), first, second)
    values = svdvals(A.permute(*permutation))
    if ord == "nuc":
        result = values.sum(-1)
    else:
        result = values.amax(-1) if ord > 0 else values.amin(-1)
    if keepdim:  # back to A's dims, the two reduced ones of size 1
        reverse = [permutation.index(d) for d in range(A.dim())]
        result = result.unsqueeze(-1).unsqueeze(-1).permute(*reverse)
    return result


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *, dtype: Any = None,
                out: Any = None) -> Tensor:
    """The matrix norm of A (of each matrix over ``dim``): 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    first, second = _check_matrix_norm(A, ord, dim)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        result = _vector_norm(A, 2, (first, second), keepdim)
    elif ord == "nuc" or abs(ord) == 2:
        result = _spectral(A, ord, first, second, keepdim)
    else:
        if math.isinf(ord):  # the largest row sum: sum over the columns first
            first, second = second, first
        if not keepdim and first < second:
            second -= 1  # the dim the vector norm removed shifted this one
        column_sums = _vector_norm(A, 1, first, keepdim)
        result = column_sums.amax(second, keepdim) if ord > 0 else column_sums.amin(second, keepdim)
    return result if out is None else write_out(out, result)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, out: Any = None,
         dtype: Any = None) -> Tensor:
    """``linalg.norm``: a matrix norm when ``ord`` is a string, or is given with two dims (or a 2-D
    input and no dim); otherwise a vector norm (the 2-norm of all elements when neither is given)."""
    dims = None if dim is None else (tuple(dim) if isinstance(dim, (tuple, list)) else (dim,))
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if dims is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    if isinstance(ord, str) or (ord is not None and (dims is None and A.dim() == 2 or dims and len(dims) == 2)):
        result = matrix_norm(A, ord, dims or (0, 1), keepdim, dtype=dtype)
    else:
        result = _vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
    return result if out is None else write_out(out, result)


def cond(A: Tensor, p: Any = None, *, out: Any = None) -> Tensor:
    """The condition number ||A|| ||A^-1|| in the norm ``p``. For None and +-2 the ratio of the
    largest and the smallest singular value (one-element slices divided, then squeezed:
    ``SqueezeBackward1``); otherwise the two matrix norms multiplied, a singular A's NaN made inf
    (``NanToNumBackward0``)."""
    from .linalg_solve import inv

    if p is None or (not isinstance(p, str) and abs(p) == 2):
        values = svdvals(A)
        largest, smallest = values.narrow(-1, 0, 1), values.narrow(-1, values.shape[-1] - 1, 1)
        result = (smallest / largest if p == -2 else largest / smallest).squeeze(-1)
    else:
        result = (matrix_norm(A, p) * matrix_norm(inv(A), p)).nan_to_num(math.inf, math.inf)
    return result if out is None else write_out(out, result)
