"""Matrix functions and products of ``torch.linalg``: ``matrix_exp``, ``matrix_power``,
``multi_dot``, ``vecdot``, ``torch.vdot``, ``cholesky_solve`` and ``cholesky_inverse``, and the
``linalg`` forms of ``cross``, ``diagonal`` and ``vander``.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp`` (``linalg_matrix_exp``,
``linalg_matrix_power``, ``linalg_multi_dot``, ``linalg_vecdot``, ``linalg_vander``) and
``BatchLinearAlgebra.cpp`` (``cholesky_solve``, ``cholesky_inverse``), with the backward formulas of
``torch/csrc/autograd/FunctionsManual.cpp`` (``differential_analytic_matrix_function``,
``cholesky_solve_backward``, ``cholesky_inverse_backward``), written with tensor ops so that they
can be differentiated again.

Composed as PyTorch composes them, so the ``grad_fn`` is the last op's Node: ``matrix_power`` is
a clone, an inverse and matmuls (``MmBackward0``), ``multi_dot`` matmuls in the cheapest order and a
``view`` (``ViewBackward0``), ``vecdot`` ``(x * y).sum(dim)`` (``SumBackward1``), ``vander`` a
``cat`` of ones and a ``cumprod`` (``CatBackward0``). ``matrix_exp``, ``vdot`` and the Cholesky
solves have Nodes of their own.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._arguments import write_out
from ._util import compute_requires_grad, set_history
from .linalg import cross as _cross, dot, matmul, mm
from .linalg_solve import _check_square, inv
from .shape import cat, diagonal as _diagonal


# --- matrix_exp ------------------------------------------------------------------------------------
def _expm(a: np.ndarray) -> np.ndarray:
    """exp(a) by scaling and squaring: exp(a) = exp(a / 2^s)^(2^s), with a / 2^s of 1-norm at most
    1/2, where 18 terms of the Taylor series are exact to float64's precision."""
    a = a.astype(np.float64)
    n = a.shape[-1]
    one_norm = float(np.abs(a).sum(-2).max()) if a.size else 0.0
    squarings = max(0, math.ceil(math.log2(one_norm)) + 1) if one_norm > 0.5 else 0
    x = a / 2.0 ** squarings
    term = np.broadcast_to(np.eye(n), a.shape).copy()
    result = term.copy()
    for k in range(1, 19):
        term = term @ x / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


class LinalgMatrixExpBackward0(Node):
    """out = exp(A):  gA = the upper-right block of exp([[A^T, G], [0, A^T]]) (the derivative of
    an analytic matrix function, Mathias 1996), computed with ``matrix_exp`` itself."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        At = self._saved_self.mT
        n = At.shape[-1]
        block = cat([cat([At, grad], -1), cat([At * 0, At], -1)], -2)
        return (matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n),)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential sum_k A^k / k! of a square matrix (of each in a batch)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    _check_square(A, "linalg.matrix_exp")
    out = _wrap(_expm(A._data).astype(A._data.dtype))
    if compute_requires_grad(A):
        node = LinalgMatrixExpBackward0(A)
        node.self_ = SavedTensor(A)
        set_history(out, node)
    return out


# --- matrix_power ------------------------------------------------------------------------------------
def _check_square_shape(A: Tensor, name: str) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def matrix_power(A: Tensor, n: int, *, out: Any = None) -> Tensor:
    """A^n for an integer n (n < 0: the inverse's power, n = 0: the identity), as PyTorch computes
    it: a copy of the identity into a clone (``CopyBackwards``), the clone (n = 1), one or two matmuls
    (n = 2, 3), else repeated squaring (``MmBackward0``)."""
    _check_square_shape(A, "linalg.matrix_power")
    if n == 0:
        eye = _wrap(np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A.shape).copy())
        result = A.clone().copy_(eye)
    elif n == -1:
        result = inv(A)
    else:
        result = _positive_power(inv(A) if n < 0 else A, abs(n))
    return result if out is None else write_out(out, result)


def _positive_power(a: Tensor, n: int) -> Tensor:
    if n == 1:
        return a.clone()
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    result, square = None, None
    while n > 0:  # the binary digits of n, lowest first: square = a^(2^k)
        bit, n = n % 2, n // 2
        square = a if square is None else matmul(square, square)
        if bit:
            result = square if result is None else matmul(result, square)
    return result


# --- multi_dot ---------------------------------------------------------------------------------------
def _check_chain(tensors: Sequence[Tensor]) -> None:
    count = len(tensors)
    if count < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {count}")
    for i, t in enumerate(tensors):
        if i == 0 and t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {t.dim()}D")
        if i == count - 1 and t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {t.dim()}D")
        if 0 < i < count - 1 and t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{scalar_type_name(tensors[0].dtype)} and tensor {i} is {scalar_type_name(t.dtype)}")


def _chain_order(sides: list) -> dict:
    """The cheapest parenthesisation of matrices i..j (sides[i] x sides[i+1]): split[(i, j)] = k
    means (i..k)(k+1..j) (the classic dynamic programme over chain lengths)."""
    count = len(sides) - 1
    cost = {(i, i): 0 for i in range(count)}
    split = {}
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            options = [(cost[i, k] + cost[k + 1, j] + sides[i] * sides[k + 1] * sides[j + 1], k) for k in range(i, j)]
            cost[i, j], split[i, j] = min(options)
    return split


def _multiply(matrices: list, split: dict, i: int, j: int) -> Tensor:
    if i == j:
        return matrices[i]
    k = split[i, j]
    return mm(_multiply(matrices, split, i, k), _multiply(matrices, split, k + 1, j))


def multi_dot(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """tensors[0] @ tensors[1] @ ... in the order with the fewest multiplications; the first may
    be a row vector and the last a column vector (1-D), whose dims the result drops."""
    _check_chain(tensors)
    first, last = tensors[0], tensors[-1]
    out_shape = [*([first.shape[0]] if first.dim() == 2 else []), *([last.shape[-1]] if last.dim() == 2 else [])]
    matrices = [first.unsqueeze(0) if first.dim() == 1 else first, *tensors[1:-1],
                last.unsqueeze(-1) if last.dim() == 1 else last]
    for i, (left, right) in enumerate(zip(matrices, matrices[1:])):
        if left.shape[-1] != right.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                               f"{list(tensors[i + 1].shape)} cannot be multiplied")
    sides = [matrices[0].shape[0]] + [m.shape[1] for m in matrices]
    result = _multiply(matrices, _chain_order(sides), 0, len(matrices) - 1).view(*out_shape)
    return result if out is None else write_out(out, result)


# --- dot products --------------------------------------------------------------------------------------
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The dot product of vectors along ``dim`` (the inputs broadcast): (x * y).sum(dim), or
    ``vdot`` for two 1-D tensors, as in PyTorch."""
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{scalar_type_name(x.dtype)} and y of type {scalar_type_name(y.dtype)} instead")
    if x.dim() == 1 and y.dim() == 1:  # PyTorch takes the dot product of two vectors: VdotBackward0
        result = vdot(x, y)
    else:
        result = (x * y).sum(dim)
    return result if out is None else write_out(out, result)


class VdotBackward0(Node):
    """out = sum_i conj(self_i) other_i (real here: dot):  d/dself = grad * other,
    d/dother = grad * self."""

    other_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self._saved_other if self.needs_input_grad(0) else None,
                grad * self._saved_self if self.needs_input_grad(1) else None)


def vdot(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The dot product of two 1-D tensors, the first conjugated (no difference for real tensors):
    ``dot``'s checks and value, with a Node of its own."""
    result = dot(input.detach(), other.detach())
    if compute_requires_grad(input, other):
        node = VdotBackward0(input, other)
        node.self_ = SavedTensor(input) if node.needs_input_grad(1) else None
        node.other_ = SavedTensor(other) if node.needs_input_grad(0) else None
        set_history(result, node)
    return result if out is None else write_out(out, result)


# --- Cholesky solves -------------------------------------------------------------------------------
def _gram(L: Tensor, upper: bool) -> np.ndarray:
    """A = L L^T (U^T U for ``upper``), from the triangle LAPACK reads."""
    factor = np.triu(L._data) if upper else np.tril(L._data)
    return np.swapaxes(factor, -1, -2) @ factor if upper else factor @ np.swapaxes(factor, -1, -2)


def _factor_grad(L: Tensor, symmetric: Tensor, upper: bool) -> Tensor:
    """The gradient of L (or U) for the gradient S (symmetric) of A = L L^T: -S L (-U S)."""
    return -L.matmul(symmetric) if upper else -symmetric.matmul(L)


class CholeskySolveBackward0(Node):
    """X = A^-1 B with A = L L^T (``input2`` = L):  gB = A^-1 gX (a Cholesky solve again);
    with C = gB X^T, gL = -(C + C^T) L (upper: gU = -U (C + C^T))."""

    input2_: SavedTensor
    result_: SavedTensor
    self_: SavedTensor
    upper: bool

    def backward(self, grad: Tensor) -> tuple:
        L, X = self._saved_input2, self._saved_result
        grad_B = cholesky_solve(grad, L, self.upper)
        common = grad_B.matmul(X.mT)
        grad_L = _factor_grad(L, common + common.mT, self.upper) if self.needs_input_grad(1) else None
        return (grad_B if self.needs_input_grad(0) else None, grad_L)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """X with (L L^T) X = B, L the Cholesky factor of A (``upper``: A = U^T U)."""
    if B.dim() < 2 or L.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead"
                           if B.dim() < 2 else
                           f"u should have at least 2 dimensions, but has {L.dim()} dimensions instead")
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-2]} by "
                           f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    result = _wrap(np.linalg.solve(_gram(L, upper), B._data).astype(B._data.dtype))
    if compute_requires_grad(B, L):
        node = CholeskySolveBackward0(B, L)
        node.self_, node.input2_ = SavedTensor(B), SavedTensor(L)
        node.result_, node.upper = SavedTensor(result, is_output=True), upper
        set_history(result, node)
    return result if out is None else write_out(out, result)


class CholeskyInverseBackward0(Node):
    """out = (L L^T)^-1:  with C = out G out, gL = -(C + C^T) L (upper: gU = -U (C + C^T))."""

    result_: SavedTensor
    self_: SavedTensor
    upper: bool

    def backward(self, grad: Tensor) -> tuple:
        inverse = self._saved_result
        common = inverse.matmul(grad).matmul(inverse)
        return (_factor_grad(self._saved_self, common + common.mT, self.upper),)


def cholesky_inverse(L: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """(L L^T)^-1 (``upper``: (U^T U)^-1) from a Cholesky factor."""
    if L.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    result = _wrap(np.linalg.inv(_gram(L, upper)).astype(L._data.dtype))
    if compute_requires_grad(L):
        node = CholeskyInverseBackward0(L)
        node.self_, node.result_, node.upper = SavedTensor(L), SavedTensor(result, is_output=True), upper
        set_history(result, node)
    return result if out is None else write_out(out, result)


# --- the linalg forms of cross, diagonal, vander --------------------------------------------------------
def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """``linalg.cross``: ``torch.cross`` with ``dim=-1`` by default (``LinalgCrossBackward0``); the
    inputs broadcast, but must have as many dims (PyTorch's check)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    result = _cross(input, other, dim=dim)
    return result if out is None else write_out(out, result)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``linalg.diagonal``: ``torch.diagonal`` of the last two dims by default (a view)."""
    return _diagonal(A, offset, dim1, dim2)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x`` (..., n): columns x^0, x^1, ..., x^(N-1) (N = n by default),
    increasing powers (``torch.vander`` decreases): ``cat([ones, cumprod(x repeated N-1 times)])``."""
    columns = (x.shape[-1] if x.dim() else 1) if N is None else N
    if columns <= 1:
        raise RuntimeError("N must be greater than 1.")
    column = x.unsqueeze(-1)
    powers = column.expand(*x.shape, columns - 1).cumprod(-1)
    return cat([_wrap(np.ones(column.shape, dtype=x._data.dtype)), powers], -1)
