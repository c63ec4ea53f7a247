"""Decompositions of ``torch.linalg`` and what is computed from them: ``slogdet``, ``qr``, ``eigh``
/ ``eigvalsh``, ``pinv``, ``matrix_rank``, ``lstsq``, and the ``_ex`` forms of ``inv``,
``cholesky`` and ``solve``, which also return LAPACK's ``info`` (0: success).

Mirrors ``aten/src/ATen/native/BatchLinearAlgebra.cpp`` (the forwards and their checks) and
``torch/csrc/autograd/FunctionsManual.cpp`` (``slogdet_backward``, ``linalg_qr_backward``,
``linalg_eig_backward`` for a symmetric matrix, ``pinv_backward``, ``linalg_lstsq_backward``);
``tensorinv`` and ``tensorsolve`` (``LinearAlgebra.cpp``) reshape around ``inv`` and ``solve``.
numpy's LAPACK computes each forward (the same routines PyTorch calls: geqrf/orgqr, syevd, gesdd);
each backward is written with tensor ops, so it can be differentiated again.

Simplified: PyTorch records one Node for all outputs of a decomposition (Q and R share one
``LinalgQrBackward0``); a glasstorch Node has one output, so each output gets its own Node of that
name, whose backward is the formula with the other outputs' gradients zero (the formulas are linear
in the outputs' gradients, so the gradients add up to PyTorch's). A Node that needs another output
saves that output as an input would be saved (it links back to that output's own Node), so a
double backward reaches it. Real matrices only.
"""
from __future__ import annotations

import math
import warnings
from collections import namedtuple
from typing import Any, Callable

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._arguments import write_out
from ._util import compute_requires_grad, set_history
from .linalg_solve import (_check_square, _failed_minor, _first_zero_pivot, _LinAlgError, _singular, cholesky,
                           inv, solve, solve_triangular)


# --- return types ---------------------------------------------------------------------------------
def _return_type(name: str, fields: str) -> type:
    """A named tuple printed as PyTorch's ``torch.return_types.<name>``."""
    base = namedtuple(name, fields)

    def __repr__(self: Any) -> str:
        parts = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"glasstorch.return_types.{name}(\n{parts})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


return_types_slogdet = _return_type("slogdet", "sign logabsdet")
return_types_linalg_slogdet = _return_type("linalg_slogdet", "sign logabsdet")
return_types_qr = _return_type("qr", "Q R")
return_types_linalg_qr = _return_type("linalg_qr", "Q R")
return_types_linalg_eigh = _return_type("linalg_eigh", "eigenvalues eigenvectors")
return_types_linalg_lstsq = _return_type("linalg_lstsq", "solution residuals rank singular_values")
return_types_linalg_inv_ex = _return_type("linalg_inv_ex", "inverse info")
return_types_linalg_cholesky_ex = _return_type("linalg_cholesky_ex", "L info")
return_types_linalg_solve_ex = _return_type("linalg_solve_ex", "result info")


def _written(result: tuple, out: Any) -> tuple:
    """``out=(t1, t2, ...)``: each result written into its tensor (resized if needed), which are returned."""
    if out is None:
        return result
    for target, value in zip(out, result):
        write_out(target, value)
    return type(result)(*out)


def _one_node_per_output(node_class: type, inputs: tuple, outputs: list, positions: tuple,
                         saved: Callable[[int], dict]) -> None:
    """Give each output at ``positions`` its own ``node_class`` Node (``_output`` says which).
    ``saved(position)`` names what that Node saves; an output is saved as its own Node's output."""
    nodes = []
    for position in positions:
        node = node_class(*inputs)
        node._output = position
        nodes.append((position, node))
    for position, node in nodes:
        for name, value in saved(position).items():
            setattr(node, name, value)
        set_history(outputs[position], node)


def _saved_output(outputs: list, index: int, position: int) -> SavedTensor:
    """Output ``index`` as the Node of output ``position`` keeps it: as its own output, or as a
    tensor made by another Node (its unpacked copy then leads back to that Node)."""
    return SavedTensor(outputs[index], is_output=index == position)


def _eye_like(A: Tensor) -> Tensor:
    return _wrap(np.eye(A.shape[-1], dtype=A._data.dtype))


# --- slogdet ----------------------------------------------------------------------------------------
class LinalgSlogdetBackward0(Node):
    """(sign, logabsdet) = slogdet(A):  d logabsdet / dA = A^-T; the sign is piecewise constant (no
    gradient). PyTorch also saves the LU factors it computed the determinant with (``_saved_LU``,
    ``_saved_pivots``); glasstorch's backward uses the inverse of A, so it saves only A and sign."""

    A_: SavedTensor
    sign_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        if self._output == 0:
            return (None,)
        return (inv(self._saved_A).mT * grad.unsqueeze(-1).unsqueeze(-1),)


def _slogdet(A: Tensor, name: str, result_type: type) -> Any:
    _check_square(A, name)
    sign, logabsdet = np.linalg.slogdet(A._data)
    outputs = [_wrap(np.asarray(v, dtype=A._data.dtype)) for v in (sign, logabsdet)]
    if compute_requires_grad(A):
        _one_node_per_output(LinalgSlogdetBackward0, (A,), outputs, (0, 1), lambda position: {
            "A_": SavedTensor(A), "sign_": _saved_output(outputs, 0, position)})
    return result_type(*outputs)


def linalg_slogdet(A: Tensor, *, out: Any = None) -> Any:
    """(sign, log|det A|) of a square matrix (of each in a batch): the determinant is sign *
    exp(logabsdet), with no overflow for a large matrix; sign 0 and logabsdet -inf when singular."""
    return _written(_slogdet(A, "linalg.slogdet", return_types_linalg_slogdet), out)


def slogdet(input: Tensor) -> Any:
    """``torch.slogdet``: ``linalg.slogdet`` under its older name."""
    return _slogdet(input, "linalg.slogdet", return_types_slogdet)


# --- QR -------------------------------------------------------------------------------------------
_QR_MODE_R = ("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
_QR_COMPLETE_TALL = "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."


def _qr_square_grad(Q: Tensor, R: Tensor, gQ: Tensor | None, gR: Tensor | None) -> Tensor:
    """A = Q R with m >= n (R square, n x n):  X = triu(gR R^T - Q^T gQ), made symmetric with its
    diagonal once (copyltu), then gA = (gQ + Q sym(X)) R^-T."""
    if gR is not None:
        X = gR.matmul(R.mT) - (Q.mT.matmul(gQ) if gQ is not None else 0)
    else:
        X = -Q.mT.matmul(gQ)
    X = X.triu()
    symmetric = X + X.mT - X.diagonal(0, -2, -1).diag_embed()
    gA = Q.matmul(symmetric)
    if gQ is not None:
        gA = gA + gQ
    return solve_triangular(R.mT, gA, upper=False, left=False)


def _qr_grad(Q: Tensor, R: Tensor, gQ: Tensor | None, gR: Tensor | None) -> Tensor:
    """PyTorch's ``linalg_qr_backward``. For a wide A (m < n) write A = [X | Y], R = [U | V] with
    X = Q U square and V = Q^T Y: then gY = Q gV and X gets the square formula with gQ + Y gV^T."""
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        return _qr_square_grad(Q, R, gQ, gR)
    U, V = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    if gR is None:
        return _cat_columns(_qr_square_grad(Q, U, gQ, None), V.new_zeros(tuple(V.shape)))
    gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    Y = Q.matmul(V)
    gQ_X = Y.matmul(gV.mT) + (gQ if gQ is not None else 0)
    return _cat_columns(_qr_square_grad(Q, U, gQ_X, gU), Q.matmul(gV))


def _cat_columns(left: Tensor, right: Tensor) -> Tensor:
    from .shape import cat

    return cat([left, right], -1)


class LinalgQrBackward0(Node):
    """(Q, R) = qr(A):  d/dA from ``_qr_grad`` (PyTorch's ``linalg_qr_backward``). Not defined for
    ``mode='r'`` (no Q) nor for ``mode='complete'`` with more rows than columns: PyTorch's errors."""

    Q_: SavedTensor
    R_: SavedTensor
    mode: str

    def backward(self, grad: Tensor) -> tuple:
        if self.mode == "r":
            raise RuntimeError(_QR_MODE_R)
        Q, R = self._saved_Q, self._saved_R
        if self.mode == "complete" and Q.shape[-2] > R.shape[-1]:
            raise RuntimeError(_QR_COMPLETE_TALL)
        gQ, gR = (grad, None) if self._output == 0 else (None, grad)
        return (_qr_grad(Q, R, gQ, gR),)


def _qr(A: Tensor, mode: str, result_type: type) -> Any:
    if A.dim() < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.qr: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.legacy_name[:-6]}")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    dtype = A._data.dtype
    if mode == "r":  # Q is not computed: an empty tensor, as PyTorch returns it
        q, r = np.zeros((0,), dtype), np.linalg.qr(A._data, mode="r")
    else:
        q, r = np.linalg.qr(A._data, mode=mode)
    outputs = [_wrap(np.ascontiguousarray(x, dtype=dtype)) for x in (q, r)]
    if compute_requires_grad(A):
        _one_node_per_output(LinalgQrBackward0, (A,), outputs, (0, 1), lambda position: {
            "Q_": _saved_output(outputs, 0, position), "R_": _saved_output(outputs, 1, position), "mode": mode})
    return result_type(*outputs)


def linalg_qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> Any:
    """A = Q R, Q with orthonormal columns, R upper triangular. ``mode``: 'reduced' (Q m x k, R
    k x n, k = min(m, n)), 'complete' (Q m x m, R m x n), 'r' (R only; Q empty). The signs of R's
    diagonal are LAPACK's (geqrf), as in PyTorch."""
    return _written(_qr(A, mode, return_types_linalg_qr), out)


def qr(input: Tensor, some: bool = True, *, out: Any = None) -> Any:
    """The deprecated ``torch.qr``: ``some=True`` is mode 'reduced', ``some=False`` 'complete'."""
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
                  "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
                  "'complete')", UserWarning, stacklevel=2)
    return _written(_qr(input, "reduced" if some else "complete", return_types_qr), out)


# --- eigh -----------------------------------------------------------------------------------------
class LinalgEighBackward0(Node):
    """(L, V) = eigh(A), A = V diag(L) V^T:  gA = V (diag(gL) + skew(V^T gV) / E) V^T with
    skew(X) = (X - X^T) / 2 and E[i, j] = L[j] - L[i] (the quotient's diagonal is 0). Undefined
    where two eigenvalues are equal, as in PyTorch."""

    eigenvalues_: SavedTensor
    eigenvectors_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        L, V = self._saved_eigenvalues, self._saved_eigenvectors
        if self._output == 0:
            inner = grad.diag_embed()
        else:
            VtgV = V.mT.matmul(grad)
            gaps = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye_like(V)  # 1 on the diagonal, where skew is 0
            inner = (VtgV - VtgV.mT) * 0.5 / gaps
        return (V.matmul(inner).matmul(V.mT),)


def _check_uplo(UPLO: str) -> None:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Any:
    """The eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix; only the
    ``UPLO`` triangle is read. Simplified: each eigenvector is unique up to its sign, which numpy's
    LAPACK (OpenBLAS) chooses; PyTorch's (MKL) chooses the other sign for about half the matrices."""
    _check_uplo(UPLO)
    _check_square(A, "linalg.eigh")
    values, vectors = np.linalg.eigh(A._data, UPLO=UPLO)
    outputs = [_wrap(np.ascontiguousarray(x, dtype=A._data.dtype)) for x in (values, vectors)]
    if compute_requires_grad(A):
        _one_node_per_output(LinalgEighBackward0, (A,), outputs, (0, 1), lambda position: {
            "eigenvalues_": _saved_output(outputs, 0, position), "eigenvectors_": _saved_output(outputs, 1, position)})
    return _written(return_types_linalg_eigh(*outputs), out)


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Tensor:
    """The eigenvalues of a symmetric matrix, ascending. Differentiated, they need the eigenvectors:
    PyTorch then computes them too and records ``LinalgEighBackward0``, as here."""
    _check_uplo(UPLO)
    if compute_requires_grad(A):
        result = eigh(A, UPLO).eigenvalues
    else:
        _check_square(A, "linalg.eigvalsh")
        result = _wrap(np.linalg.eigvalsh(A._data, UPLO=UPLO).astype(A._data.dtype))
    return result if out is None else write_out(out, result)


# --- pseudo-inverse, rank, least squares ------------------------------------------------------------
def _default_rtol(A: Tensor) -> float:
    """PyTorch's default relative tolerance: machine epsilon times the larger side."""
    return float(np.finfo(A._data.dtype).eps) * max(A.shape[-2], A.shape[-1])


def _tolerance(singular_values: np.ndarray, A: Tensor, atol: Any, rtol: Any) -> np.ndarray:
    """Singular values at most max(atol, rtol * largest) count as zero (rtol's default is eps *
    max(m, n) when atol is not given either, else 0)."""
    atol = 0.0 if atol is None else atol
    rtol = (_default_rtol(A) if atol == 0 else 0.0) if rtol is None else rtol
    largest = singular_values[..., :1] if singular_values.shape[-1] else np.zeros(singular_values.shape[:-1] + (1,))
    return np.maximum(atol, rtol * largest)


def _pinv_values(A: Tensor, atol: Any, rtol: Any, hermitian: bool) -> np.ndarray:
    if hermitian:  # A = V diag(L) V^T: invert the eigenvalues of large magnitude
        values, vectors = np.linalg.eigh(A._data)
        order = np.argsort(-np.abs(values), axis=-1)
        magnitudes = np.take_along_axis(np.abs(values), order, -1)
        keep = np.abs(values) > _tolerance(magnitudes, A, atol, rtol)
        inverted = np.where(keep, 1 / np.where(keep, values, 1), 0)
        return (vectors * inverted[..., None, :]) @ np.swapaxes(vectors, -1, -2)
    u, s, vh = np.linalg.svd(A._data, full_matrices=False)
    keep = s > _tolerance(s, A, atol, rtol)
    inverted = np.where(keep, 1 / np.where(keep, s, 1), 0)
    return np.swapaxes(vh, -1, -2) @ (inverted[..., :, None] * np.swapaxes(u, -1, -2))


class LinalgPinvBackward0(Node):
    """P = pinv(A) (A is m x n, P n x m), G the gradient of P:
    gA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)
    (the derivative of the pseudo-inverse where A's rank does not change)."""

    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (_pinv_grad(grad, self._saved_result, self._saved_self),)


def _pinv_grad(G: Tensor, P: Tensor, A: Tensor) -> Tensor:
    m, n = A.shape[-2], A.shape[-1]
    eye_m, eye_n = (_wrap(np.eye(k, dtype=A._data.dtype)) for k in (m, n))
    Pt, Gt = P.mT, G.mT
    return (-Pt.matmul(G).matmul(Pt) + (eye_m - A.matmul(P)).matmul(Gt).matmul(P.matmul(Pt))
            + Pt.matmul(P).matmul(Gt).matmul(eye_n - P.matmul(A)))


def _check_pinv_input(A: Tensor) -> None:
    if A.dim() < 2 or A._data.dtype.kind != "f":
        kind = {"float64": "Double", "float32": "Float", "int64": "Long", "bool": "Bool"}.get(A.dtype.name, A.dtype.name)
        raise RuntimeError(f"linalg.pinv({kind}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of "
                           f"float, double, cfloat or cdouble types")


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False, out: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse, from the SVD (the eigendecomposition if ``hermitian``):
    singular values below the tolerance count as zero (``_tolerance``)."""
    _check_pinv_input(A)
    result = _wrap(np.ascontiguousarray(_pinv_values(A, atol, rtol, hermitian), dtype=A._data.dtype))
    if compute_requires_grad(A):
        node = LinalgPinvBackward0(A)
        node.self_, node.result_ = SavedTensor(A), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result if out is None else write_out(out, result)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with the relative tolerance ``rcond``."""
    return pinv(input, rtol=rcond)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False, out: Any = None) -> Tensor:
    """The number of singular values above the tolerance (``_tolerance``); int64, no gradient."""
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if hermitian:
        s = -np.sort(-np.abs(np.linalg.eigvalsh(A._data)), axis=-1)
    else:
        s = np.linalg.svd(A._data, compute_uv=False)
    result = _wrap(np.asarray((s > _tolerance(s, A, atol, rtol)).sum(-1), dtype=np.int64))
    return result if out is None else write_out(out, result)


class LinalgLstsqBackward0(Node):
    """X = lstsq(A, B).solution = pinv(A) B:  gB = pinv(A)^T gX,  gA = pinv's gradient
    (``_pinv_grad``) for the gradient gX B^T of pinv(A). The residuals get no gradient here:
    the 'gelsy' driver returns them empty."""

    b_: SavedTensor
    self_: SavedTensor
    solution_: SavedTensor
    vector: bool

    def backward(self, grad: Tensor) -> tuple:
        if self._output != 0:
            return (None, None)
        A, B = self._saved_self, self._saved_b
        gX = grad.unsqueeze(-1) if self.vector else grad
        B = B.unsqueeze(-1) if self.vector else B
        P = pinv(A)
        grad_A = _pinv_grad(gX.matmul(B.mT), P, A) if self.needs_input_grad(0) else None
        grad_B = P.mT.matmul(gX) if self.needs_input_grad(1) else None
        if grad_B is not None and self.vector:
            grad_B = grad_B.squeeze(-1)
        return (grad_A, grad_B)


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: str | None = None) -> Any:
    """The X minimising ||A X - B|| (of least norm when A is rank-deficient): (solution,
    residuals, rank, singular_values) as PyTorch's CPU default driver 'gelsy' returns them: the
    residuals and singular values empty, the rank (int64) per matrix. B may be a vector.
    Simplified: every ``driver`` gives gelsy's outputs (PyTorch's gelsd and gelss also return the
    singular values and, for a tall full-rank A, the residuals)."""
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vector = B.dim() == A.dim() - 1
    if vector and A.shape[-2] != B.shape[-1]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)")
    if not vector and A.shape[-2] != B.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    dtype = A._data.dtype
    b = B._data[..., None] if vector else B._data
    s = np.linalg.svd(A._data, compute_uv=False)
    rtol = float(np.finfo(dtype).eps) * max(A.shape[-2:]) if rcond is None else rcond
    solution_values = _pinv_values(A, None, rtol, False) @ b
    solution = _wrap(np.ascontiguousarray(solution_values[..., 0] if vector else solution_values, dtype=dtype))
    rank = _wrap(np.asarray((s > _tolerance(s, A, None, rtol)).sum(-1), dtype=np.int64))
    residuals, singular_values = _wrap(np.zeros((0,), dtype)), _wrap(np.zeros((0,), dtype))
    outputs = [solution, residuals]
    if compute_requires_grad(A, B):
        _one_node_per_output(LinalgLstsqBackward0, (A, B), outputs, (0, 1), lambda position: {
            "self_": SavedTensor(A), "b_": SavedTensor(B), "solution_": _saved_output(outputs, 0, position),
            "vector": vector})
    return return_types_linalg_lstsq(solution, residuals, rank, singular_values)


# --- the _ex forms: the result and LAPACK's info ----------------------------------------------------
def _info(A: Tensor, failed: Callable[[np.ndarray], int] | None = None) -> Tensor:
    """int32 per matrix: 0, or (``failed`` given) the 1-based place where the factorisation failed."""
    batch = A.shape[:-2]
    if failed is None:
        return _wrap(np.zeros(batch, dtype=np.int32))
    matrices = A._data.reshape(-1, *A.shape[-2:])
    return _wrap(np.asarray([failed(m) for m in matrices], dtype=np.int32).reshape(batch))


def _ex(compute: Callable[[], Tensor], A: Tensor, check_errors: bool, failed: Callable, shape: tuple) -> tuple:
    """``compute()`` and zeros as info; a failure raises if ``check_errors``, else gives NaNs and
    the failing place in info (simplified: PyTorch returns LAPACK's partial result there)."""
    try:
        return compute(), _info(A)
    except _LinAlgError:
        if check_errors:
            raise
        return _wrap(np.full(shape, np.nan, dtype=A._data.dtype)), _info(A, failed)


def _singular_place(matrix: np.ndarray) -> int:
    return _first_zero_pivot(matrix) if np.linalg.matrix_rank(matrix) < matrix.shape[-1] else 0


def _not_positive_definite_place(matrix: np.ndarray) -> int:
    try:
        np.linalg.cholesky(matrix)
        return 0
    except np.linalg.LinAlgError:
        return _failed_minor(matrix)


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """(inverse, info): ``linalg.inv`` (``LinalgInvExBackward0``) and 0 per invertible matrix."""
    return _written(return_types_linalg_inv_ex(*_ex(lambda: inv(A), A, check_errors, _singular_place, A.shape)), out)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """(L, info): ``linalg.cholesky`` (``LinalgCholeskyExBackward0``) and 0 per positive-definite
    matrix, else the order of its first leading minor that is not."""
    return _written(return_types_linalg_cholesky_ex(*_ex(lambda: cholesky(A, upper=upper), A, check_errors,
                                                         _not_positive_definite_place, A.shape)), out)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """(result, info): ``linalg.solve`` (``LinalgSolveExBackward0``) and 0 per invertible A."""
    return _written(return_types_linalg_solve_ex(*_ex(lambda: solve(A, B, left=left), A, check_errors,
                                                      _singular_place, B.shape)), out)


# --- tensorinv, tensorsolve: the matrix inverse and solve of reshaped tensors ----------------------------
def _check_halves(A: Tensor, split: int, name: str) -> tuple:
    """The sizes of A before and after dim ``split``, whose products must agree (a square matrix)."""
    front, back = tuple(A.shape[:split]), tuple(A.shape[split:])
    if math.prod(front) != math.prod(back):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[{name}:]) == "
                           f"prod(self.shape[:{name}]), but got {math.prod(back)} != {math.prod(front)}")
    return front, back


def tensorinv(A: Tensor, ind: int = 2, *, out: Any = None) -> Tensor:
    """The tensor X with tensordot(A, X, ind) = I: A reshaped to a square matrix, inverted, and the
    inverse reshaped to ``A.shape[ind:] + A.shape[:ind]``. Simplified: PyTorch's inverse is laid out
    column by column, so its final reshape copies (``ReshapeAliasBackward0``); glasstorch's is a
    view (``ViewBackward0``)."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = _check_halves(A, ind, "ind")
    matrix = A.reshape(math.prod(front), math.prod(back))
    try:
        inverse = inv(matrix)
    except _LinAlgError:
        raise _singular("inv", matrix._data) from None
    result = inverse.reshape(*back, *front)
    return result if out is None else write_out(out, result)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None, *, out: Any = None) -> Tensor:
    """The tensor X with tensordot(A, X, X.ndim) = B: A reshaped to a square matrix (its ``dims``
    moved to the end first), solved for B flattened, the solution reshaped to A.shape[B.ndim:]
    (``ViewBackward0``)."""
    if dims is not None:
        A = A.movedim(tuple(dims), tuple(range(A.dim() - len(dims), A.dim())))
    front, back = tuple(A.shape[:B.dim()]), tuple(A.shape[B.dim():])
    if math.prod(back) != B.numel():  # PyTorch's message states the square requirement, its numbers are these
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {math.prod(back)} != {B.numel()}")
    solution = solve(A.reshape(math.prod(front), math.prod(back)), B.reshape(-1))
    result = solution.view(*back)
    return result if out is None else write_out(out, result)
