"""Inverting and solving: ``linalg.inv`` (``inverse``), ``linalg.solve``, ``linalg.cholesky``
(``cholesky``), ``linalg.solve_triangular`` (``triangular_solve``). Found missing by running the
examples in PyTorch's own docstrings (issue 14).

Mirrors ``aten/src/ATen/native/BatchLinearAlgebra.cpp`` and the formulas of
``torch/csrc/autograd/FunctionsManual.cpp`` (``linalg_solve_backward``, ``cholesky_backward``,
``linalg_solve_triangular_backward``). numpy's LAPACK computes the forward; each backward is
written with tensor ops (``matmul``, ``mT``, ``tril``, and the solves themselves), so it can be
differentiated again. The triangular solves read one triangle of A and use the general solve on
it for the values, and record PyTorch's ``LinalgSolveTriangularBackward0`` /
``TriangularSolveBackward0``. Real numbers only (glasstorch has no complex dtype), batches of matrices in
the leading dims, as in PyTorch.
"""
from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history


class _LinAlgError(RuntimeError):
    """A matrix the factorisation cannot handle (singular, not positive-definite): PyTorch's
    ``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``), a RuntimeError."""


LinAlgError = _LinAlgError


def _check_square(A: Tensor, name: str) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.legacy_name[:-6]}")


def _singular(name: str, data: np.ndarray) -> RuntimeError:
    """PyTorch's message names the first zero pivot of the LU factorisation (1-based)."""
    return _LinAlgError(f"{name}: The diagonal element {_first_zero_pivot(data)} is zero, the inversion could not be "
                        f"completed because the input matrix is singular.")


def _first_zero_pivot(data: np.ndarray) -> int:
    matrix = data.reshape(-1, *data.shape[-2:])[0].astype(np.float64).copy()
    n = matrix.shape[0]
    for k in range(n):  # Gaussian elimination with partial pivoting, as LAPACK's getrf
        pivot = k + int(np.argmax(np.abs(matrix[k:, k])))
        if matrix[pivot, k] == 0:
            return k + 1
        matrix[[k, pivot]] = matrix[[pivot, k]]
        matrix[k + 1:] -= np.outer(matrix[k + 1:, k] / matrix[k, k], matrix[k])
    return n


def _written_to(out: Any, result: Tensor) -> Tensor:
    """``result``, or ``out`` resized and holding it when ``out=`` was given."""
    if out is None:
        return result
    from ._arguments import write_out

    return write_out(out, result)


# --- inverse ----------------------------------------------------------------------------------------
class LinalgInvExBackward0(Node):
    """out = A^-1:  d/dA = -out^T grad out^T."""

    inverse_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        inverse_t = self._saved_inverse.mT
        return (-(inverse_t.matmul(grad).matmul(inverse_t)),)


def inv(A: Tensor, *, out: Any = None) -> Tensor:
    """The inverse of a square matrix (of each matrix of a batch)."""
    _check_square(A, "linalg.inv")
    try:
        values = np.linalg.inv(A._data)
    except np.linalg.LinAlgError:
        raise _singular("linalg.inv", A._data) from None
    result = _wrap(values.astype(A._data.dtype, copy=False))
    if compute_requires_grad(A):
        node = LinalgInvExBackward0(A)
        node.inverse_ = SavedTensor(result, is_output=True)
        set_history(result, node)
    return _written_to(out, result)


inverse = inv


# --- solve ------------------------------------------------------------------------------------------
class LinalgSolveExBackward0(Node):
    """X = A^-1 B:  d/dB = A^-T grad,  d/dA = -(d/dB) X^T (``left=False``: X = B A^-1, see backward)."""

    A_: SavedTensor
    result_: SavedTensor
    left: bool
    vector: bool

    def backward(self, grad: Tensor) -> tuple:
        A, X = self._saved_A, self._saved_result
        if not self.left:  # X = B A^-1:  d/dB = grad A^-T = (A^-1 grad^T)^T,  d/dA = -X^T (d/dB)
            grad_B = solve(A, grad.mT).mT
            grad_A = -X.mT.matmul(grad_B)
            return (grad_A if self.needs_input_grad(0) else None, grad_B if self.needs_input_grad(1) else None)
        grad_B = solve(A.mT, grad)
        if self.vector:
            grad_A = -grad_B.unsqueeze(-1) * X.unsqueeze(-2)
        else:
            grad_A = -grad_B.matmul(X.mT)
        return (grad_A if self.needs_input_grad(0) else None, grad_B if self.needs_input_grad(1) else None)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Any = None) -> Tensor:
    """X with A X = B (``left=False``: X A = B). B may be a vector (n,) or matrices (n, k)."""
    _check_square(A, "linalg.solve")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if left and not vector and B.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({A.shape[-2]}x"
                           f"{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    try:
        if not left:
            values = np.swapaxes(np.linalg.solve(np.swapaxes(A._data, -1, -2), np.swapaxes(B._data, -1, -2)), -1, -2)
        elif vector:
            values = np.linalg.solve(A._data, B._data[..., None])[..., 0]
        else:
            values = np.linalg.solve(A._data, B._data)
    except np.linalg.LinAlgError:
        raise _LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
    result = _wrap(values.astype(np.result_type(A._data.dtype, B._data.dtype), copy=False))
    if compute_requires_grad(A, B):
        node = LinalgSolveExBackward0(A, B)
        node.A_, node.result_ = SavedTensor(A), SavedTensor(result, is_output=True)
        node.left, node.vector = left, vector and left
        set_history(result, node)
    return _written_to(out, result)


# --- Cholesky -----------------------------------------------------------------------------------------
def _cholesky_grad(L: Tensor, grad: Tensor) -> Tensor:
    """PyTorch's cholesky_backward for A = L L^T: gA = L^-T Φ(L^T gL) L^-1, Φ taking the lower
    triangle with half the diagonal, symmetrised."""
    phi = L.mT.matmul(grad).tril()
    phi = (phi + phi.tril(-1).mT) * 0.5
    left = solve_triangular(L.mT, phi, upper=True)
    return solve_triangular(L, left, upper=False, left=False)


class LinalgCholeskyExBackward0(Node):
    """L = cholesky(A), A = L L^T:  d/dA from ``_cholesky_grad``."""

    L_: SavedTensor
    upper: bool

    def backward(self, grad: Tensor) -> tuple:
        L = self._saved_L
        if self.upper:  # U = L^T
            L, grad = L.mT, grad.mT
        return (_cholesky_grad(L, grad),)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """The deprecated ``torch.cholesky``'s Node (same formula)."""


def _cholesky(A: Tensor, upper: bool, name: str, node_class: type) -> Tensor:
    _check_square(A, name)
    try:
        lower = np.linalg.cholesky(A._data)
    except np.linalg.LinAlgError:
        order = _failed_minor(A._data)
        raise _LinAlgError(f"{name}: The factorization could not be completed because the input is not positive-"
                           f"definite (the leading minor of order {order} is not positive-definite).") from None
    out = _wrap((np.swapaxes(lower, -1, -2) if upper else lower).astype(A._data.dtype, copy=False))
    if compute_requires_grad(A):
        node = node_class(A)
        node.L_, node.upper = SavedTensor(out, is_output=True), upper
        set_history(out, node)
    return out


def _failed_minor(data: np.ndarray) -> int:
    matrix = data.reshape(-1, *data.shape[-2:])[0]
    for k in range(1, matrix.shape[0] + 1):
        try:
            np.linalg.cholesky(matrix[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return matrix.shape[0]


def cholesky(A: Tensor, *, upper: bool = False, out: Any = None) -> Tensor:
    """``linalg.cholesky``: the lower triangular L with A = L L^T (``upper``: U = L^T)."""
    result = _cholesky(A, upper, "linalg.cholesky", LinalgCholeskyExBackward0)
    return _written_to(out, result)


def cholesky_deprecated(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch for ``linalg.cholesky``)."""
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=2)
    result = _cholesky(input, upper, "cholesky", CholeskyBackward0)
    return _written_to(out, result)


# --- triangular systems --------------------------------------------------------------------------------
def _triangle(A: Tensor, upper: bool, unitriangular: bool) -> Tensor:
    """The part of A the solve reads (the other triangle is ignored, as LAPACK's trtrs ignores it)."""
    part = A.triu() if upper else A.tril()
    if unitriangular:
        n = A.shape[-1]
        eye = _wrap(np.eye(n, dtype=A._data.dtype))
        part = part * (1 - eye) + eye
    return part


def _triangular_grads(A: Tensor, X: Tensor, grad: Tensor, *, need_A: bool, upper: bool, left: bool,
                      unitriangular: bool, transpose: bool = False) -> tuple:
    """The gradients of X = M^-1 B (``left=False``: X = B M^-1), M = A or (``transpose``) A^T, A
    triangular:  gB = M^-T gX (or gX M^-T),  gM = -gB X^T (or -X^T gB), and A's gradient is gM
    (transposed back) kept to the triangle the solve read, without the diagonal if unitriangular."""
    system_t, upper_t = (A, upper) if transpose else (A.mT, not upper)
    grad_B = solve_triangular(system_t, grad, upper=upper_t, left=left, unitriangular=unitriangular)
    grad_A = None
    if need_A:
        grad_M = -(grad_B.matmul(X.mT) if left else X.mT.matmul(grad_B))
        grad_A = grad_M.mT if transpose else grad_M
        grad_A = grad_A.triu(int(unitriangular)) if upper else grad_A.tril(-int(unitriangular))
    return grad_A, grad_B


class LinalgSolveTriangularBackward0(Node):
    """X = A^-1 B for a triangular A (``left=False``: X = B A^-1): see ``_triangular_grads``."""

    left: bool
    result_: SavedTensor
    self_: SavedTensor  # (A: PyTorch's name for the first argument)
    unitriangular: bool
    upper: bool

    def backward(self, grad: Tensor) -> tuple:
        grad_A, grad_B = _triangular_grads(self._saved_self, self._saved_result, grad, need_A=self.needs_input_grad(0),
                                           upper=self.upper, left=self.left, unitriangular=self.unitriangular)
        return grad_A, (grad_B if self.needs_input_grad(1) else None)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out: Any = None) -> Tensor:
    """X with A X = B (``left=False``: X A = B) for a triangular A (only its ``upper`` or lower
    triangle is read). The gradient reaches that triangle only, as in PyTorch."""
    if A.dim() < 2 or B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    result = solve(_triangle(A.detach(), upper, unitriangular), B.detach(), left=left)  # the values, unrecorded
    if compute_requires_grad(A, B):
        node = LinalgSolveTriangularBackward0(A, B)
        node.left, node.upper, node.unitriangular = left, upper, unitriangular
        node.self_, node.result_ = SavedTensor(A), SavedTensor(result, is_output=True)
        set_history(result, node)
    return _written_to(out, result)


_TriangularSolve = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


class return_types_triangular_solve(_TriangularSolve):
    """``(solution, cloned_coefficient)``, printed as PyTorch's ``torch.return_types.triangular_solve``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return (f"glasstorch.return_types.triangular_solve(\nsolution={self.solution!r},\n"
                f"cloned_coefficient={self.cloned_coefficient!r})")


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> return_types_triangular_solve:
    """The deprecated ``torch.triangular_solve``: X with op(A) X = b, op(A) = A or A^T; also a copy of A."""
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
                  "in a future PyTorch release.", UserWarning, stacklevel=2)
    system = _triangle(A.detach(), upper, unitriangular)
    solution = solve(system.mT if transpose else system, b.detach())  # the values, unrecorded
    coefficient = _wrap(A._data.copy())
    if compute_requires_grad(b, A):
        nodes = []
        for position, out in enumerate((solution, coefficient)):
            node = TriangularSolveBackward0(b, A)
            node.upper, node.transpose, node.unitriangular, node._output = upper, transpose, unitriangular, position
            set_history(out, node)
            nodes.append(node)
        for node in nodes:  # the solution is the first Node's output (the second keeps it with its Node)
            node.A_, node.self_ = SavedTensor(A), SavedTensor(b)
            node.solution_ = SavedTensor(solution, is_output=node._output == 0)
    return return_types_triangular_solve(solution, coefficient)


class TriangularSolveBackward0(Node):
    """(X, A copy) = triangular_solve(b, A): X = op(A)^-1 b (see ``_triangular_grads``); the copy
    of A passes its gradient to A unchanged. One Node per output (``_output``), as glasstorch's svd."""

    A_: SavedTensor
    self_: SavedTensor  # (b)
    solution_: SavedTensor
    transpose: bool
    unitriangular: bool
    upper: bool

    def backward(self, grad: Tensor) -> tuple:
        if self._output == 1:
            return None, grad
        grad_A, grad_b = _triangular_grads(self._saved_A, self._saved_solution, grad, need_A=self.needs_input_grad(1),
                                           upper=self.upper, left=True, unitriangular=self.unitriangular,
                                           transpose=self.transpose)
        return (grad_b if self.needs_input_grad(0) else None), grad_A
