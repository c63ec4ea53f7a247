"""LU factorisation with partial pivoting: ``linalg.lu_factor`` (``torch.lu``), ``linalg.lu``, ``lu_unpack``,
``linalg.lu_solve`` (``torch.lu_solve``). Found missing by running the examples in PyTorch's own
docstrings (issue 14).

Mirrors LAPACK's ``getrf`` as PyTorch calls it (``aten/src/ATen/native/BatchLinearAlgebra.cpp``):
column by column, the row with the largest entry becomes the pivot row, the entries below the
pivot become the multipliers of L, and the rest of the matrix is updated. ``LU`` holds L (below
the diagonal, its unit diagonal implied) and U (on and above it); ``pivots[i]`` (1-based, int32)
is the row swapped with row i. The loop is over columns, each step vectorised over the batch.

Gradients: ``lu_factor`` has PyTorch's formula for square matrices
(gA = P L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T); ``lu_unpack`` (``LuUnpackBackward0``) puts the
gradients of L and U back into the packed LU, and ``linalg.lu`` (``LinalgLuBackward0``) does that and
then applies lu_factor's formula. ``lu_solve`` solves with the triangular factors and records
``LinalgLuSolveBackward0``, whose gradient of LU is the gradient of A = P L U pulled back to L and U.
"""
from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .linalg_solve import solve_triangular


def _named(name: str, fields: list) -> type:
    base = namedtuple(name, fields)

    def __repr__(self: Any) -> str:
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"glasstorch.return_types.{name}(\n{body})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


return_types_linalg_lu_factor = _named("linalg_lu_factor", ["LU", "pivots"])
return_types_lu_unpack = _named("lu_unpack", ["P", "L", "U"])
return_types_lu_with_info = _named("_lu_with_info", ["LU", "pivots", "info"])
return_types_linalg_lu = _named("linalg_lu", ["P", "L", "U"])


def _factor_values(data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LU, pivots, infos)`` of each matrix, as LAPACK's getrf returns them."""
    *batch, m, n = data.shape
    lu = data.reshape(-1, m, n).copy()
    k = min(m, n)
    pivots = np.zeros((lu.shape[0], k), dtype=np.int32)
    infos = np.zeros(lu.shape[0], dtype=np.int32)
    every = np.arange(lu.shape[0])
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)  # the first largest, as idamax
        pivots[:, j] = p + 1
        row_j, row_p = lu[every, j].copy(), lu[every, p].copy()
        lu[every, j], lu[every, p] = row_p, row_j
        pivot = lu[:, j, j]
        infos = np.where((pivot == 0) & (infos == 0), j + 1, infos)  # the first zero pivot (1-based)
        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(pivot == 0, 1, pivot)
            lu[:, j + 1:, j] = np.where(pivot[:, None] == 0, lu[:, j + 1:, j], lu[:, j + 1:, j] / safe[:, None])
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(*batch, m, n), pivots.reshape(*batch, k), infos.reshape(batch)


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """P as a matrix, from the row swaps: A = P L U."""
    flat = pivots.reshape(-1, pivots.shape[-1])
    matrices = np.zeros((flat.shape[0], m, m))
    for b, swaps in enumerate(flat):
        order = np.arange(m)
        for i, p in enumerate(swaps):
            order[[i, p - 1]] = order[[p - 1, i]]
        matrices[b, order, np.arange(m)] = 1.0
    return matrices.reshape(*pivots.shape[:-1], m, m)


class LinalgLuFactorExBackward0(Node):
    """LU = L + U - I with A = P L U (square A): gA = P L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T."""

    LU_: SavedTensor
    pivots_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        LU = self._saved_LU
        n = LU.shape[-1]
        if LU.shape[-2] != n:
            raise NotImplementedError("lu_factor's derivative for non-square matrices is not implemented in glasstorch")
        eye = _wrap(np.eye(n, dtype=LU._data.dtype))
        L, U = LU.tril(-1) + eye, LU.triu()
        phi = L.mT.matmul(grad.tril(-1)).tril(-1) + grad.triu().matmul(U.mT).triu()
        inner = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
        inner = solve_triangular(U.mT, inner, upper=False, left=False)
        P = _wrap(_permutation(self._saved_pivots._data, n).astype(LU._data.dtype))
        return (P.matmul(inner),)


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``(LU, pivots)``: the LU factorisation with partial pivoting of A (of each matrix of a batch)."""
    result, infos = _lu_factor_ex(A, pivot, "torch.lu_factor")
    _check_infos(infos)
    return result


def _check_infos(infos: np.ndarray) -> None:
    if infos.any():
        first = int(infos.reshape(-1)[infos.reshape(-1) > 0][0])
        raise RuntimeError(f"torch.linalg.lu_factor: U[{first},{first}] is zero and using it on lu_solve would result "
                           f"in a division by zero. If you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def _lu_factor_ex(A: Tensor, pivot: bool, name: str) -> tuple:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")
    if A._data.dtype.kind != "f":
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype.legacy_name[:-6]}'")
    lu, pivots, infos = _factor_values(A._data)
    LU, piv = _wrap(lu), _wrap(pivots)
    if compute_requires_grad(A):
        node = LinalgLuFactorExBackward0(A)
        node.LU_, node.pivots_ = SavedTensor(LU, is_output=True), SavedTensor(piv)
        set_history(LU, node)
    return return_types_linalg_lu_factor(LU, piv), infos


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:
    """The deprecated ``torch.lu``: ``(LU, pivots)``, and the infos (first zero pivot, 0 if none)."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    result, infos = _lu_factor_ex(A, pivot, "torch.lu")
    if get_infos:
        return return_types_lu_with_info(result.LU, result.pivots, _wrap(infos.astype(np.int32)))
    _check_infos(infos)
    return result.LU, result.pivots


def _packed_grad(grad: Tensor, output: int, shape: tuple) -> Tensor:
    """The gradient of LU (``shape`` (..., m, n)) from that of L (``output`` 1, (m, k): its strict
    lower triangle) or of U (``output`` 2, (k, n): its upper triangle), k = min(m, n)."""
    from .shape import cat

    m, n = shape[-2:]
    k = min(m, n)
    part = grad.tril(-1) if output == 1 else grad.triu()
    missing = (*shape[:-2], m, n - k) if output == 1 else (*shape[:-2], m - k, n)
    if 0 in missing[-2:]:
        return part
    return cat([part, part.new_zeros(missing)], dim=-1 if output == 1 else -2)


class LuUnpackBackward0(Node):
    """(P, L, U) = lu_unpack(LU, pivots), L = tril(LU, -1) + I, U = triu(LU):  d/dLU is the gradient
    of L on the strict lower triangle and that of U on the upper one (``_packed_grad``). One Node
    per output (``_output``: 1 for L, 2 for U), as glasstorch's svd."""

    LU_data_sym_argsize_minus_1: int
    LU_data_sym_argsize_minus_2: int

    def backward(self, grad: Tensor) -> tuple:
        return (_packed_grad(grad, self._output, self._shape),)


def _unpacked(LU: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L, U) of a packed LU: L (m, k) unit lower triangular, U (k, n) upper triangular."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=LU.dtype)
    return L, np.triu(LU[..., :k, :])


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """``(P, L, U)`` with A = P L U, from the packed factorisation."""
    m = LU_data.shape[-2]
    empty = _wrap(np.empty((0,), dtype=LU_data._data.dtype))
    L = U = empty
    if unpack_data:
        L, U = (_wrap(x) for x in _unpacked(LU_data._data))
        if compute_requires_grad(LU_data):
            for output, factor in ((1, L), (2, U)):
                node = LuUnpackBackward0(LU_data)
                node._output, node._shape = output, LU_data._data.shape
                node.LU_data_sym_argsize_minus_1, node.LU_data_sym_argsize_minus_2 = LU_data.shape[-1], m
                set_history(factor, node)
    P = _wrap(_permutation(LU_pivots._data, m).astype(LU_data._data.dtype)) if unpack_pivots else empty
    return return_types_lu_unpack(P, L, U)


class LinalgLuBackward0(LinalgLuFactorExBackward0):
    """(P, L, U) = linalg.lu(A): the gradient of L or U packed into that of LU (``_packed_grad``),
    then lu_factor's formula. One Node per output (``_output``: 1 for L, 2 for U). (PyTorch saves
    P, L, U; glasstorch the packed LU and pivots its formula reads.)"""

    def backward(self, grad: Tensor) -> tuple:
        return super().backward(_packed_grad(grad, self._output, self._saved_LU.shape))


def linalg_lu(A: Tensor, *, pivot: bool = True) -> Any:
    """``(P, L, U)`` with A = P L U: the LU factorisation, unpacked."""
    # LU keeps its own history (lu_factor's Node): differentiating the saved LU gives the second derivative
    (LU, pivots), _ = _lu_factor_ex(A, pivot, "torch.linalg.lu")
    P = _wrap(_permutation(pivots._data, LU.shape[-2]).astype(LU._data.dtype))
    L, U = (_wrap(x) for x in _unpacked(LU._data))
    if compute_requires_grad(A):
        for output, factor in ((1, L), (2, U)):
            node = LinalgLuBackward0(A)
            node.LU_, node.pivots_, node._output = SavedTensor(LU), SavedTensor(pivots), output
            set_history(factor, node)
    return return_types_linalg_lu(P, L, U)


class LinalgLuSolveBackward0(Node):
    """X = op(A)^-1 B (``left=False``: B op(A)^-1), op(A) = A or (``adjoint``) A^T, A = P L U given
    packed in LU:

        gB = op(A)^-T gX  (or gX op(A)^-T): lu_solve again, with the other ``adjoint``
        g op(A) = -gB X^T  (or -X^T gB), and gA its transpose when ``adjoint``
        gLU = tril(P^T gA U^T, -1) + triu(L^T P^T gA)   (from dA = P (dL U + L dU))
    """

    LU_: SavedTensor
    adjoint: bool
    left: bool
    pivots_: SavedTensor
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        LU, pivots, X = self._saved_LU, self._saved_pivots, self._saved_result
        grad_B = linalg_lu_solve(LU, pivots, grad, left=self.left, adjoint=not self.adjoint)
        grad_LU = None
        if self.needs_input_grad(0):
            grad_op = -(grad_B.matmul(X.mT) if self.left else X.mT.matmul(grad_B))
            grad_A = grad_op.mT if self.adjoint else grad_op
            P, L, U = lu_unpack(LU, pivots)
            permuted = P.mT.matmul(grad_A)
            grad_LU = permuted.matmul(U.mT).tril(-1) + L.mT.matmul(permuted).triu()
        return grad_LU, (grad_B if self.needs_input_grad(1) else None)


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """X with A X = B (``adjoint``: A^T X = B; ``left=False``: X A = B), A given by its LU
    factorisation: triangular solves for the values, recorded as one LinalgLuSolveBackward0."""
    result = _lu_solve_values(LU.detach(), pivots, B.detach(), left, adjoint)
    if compute_requires_grad(LU, B):
        node = LinalgLuSolveBackward0(LU, B)
        node.LU_, node.pivots_, node.result_ = SavedTensor(LU), SavedTensor(pivots), SavedTensor(result, is_output=True)
        node.left, node.adjoint = left, adjoint
        set_history(result, node)
    return result


def _lu_solve_values(LU: Tensor, pivots: Tensor, B: Tensor, left: bool, adjoint: bool) -> Tensor:
    """X of ``linalg_lu_solve`` by two triangular solves and the permutation."""
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:  # L U X = P^T B
        return solve_triangular(U, solve_triangular(L, P.mT.matmul(B), upper=False, unitriangular=True), upper=True)
    if left:  # A^T = U^T L^T P^T:  X = P L^-T U^-T B
        y = solve_triangular(U.mT, B, upper=False)
        return P.matmul(solve_triangular(L.mT, y, upper=True, unitriangular=True))
    if not adjoint:  # X P L U = B
        y = solve_triangular(U, B, upper=True, left=False)
        return solve_triangular(L, y, upper=False, left=False, unitriangular=True).matmul(P.mT)
    y = B.matmul(P)  # X U^T L^T P^T = B
    y = solve_triangular(L.mT, y, upper=True, left=False, unitriangular=True)
    return solve_triangular(U.mT, y, upper=False, left=False)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The deprecated ``torch.lu_solve`` (arguments in the old order)."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=2)
    return linalg_lu_solve(LU_data, LU_pivots, b)
