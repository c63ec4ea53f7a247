"""torch.linalg's functions beyond the products and solvers: norms, decompositions (qr, eigh,
slogdet, pinv, lstsq), matrix_power, matrix_exp, multi_dot, vecdot (ops/linalg_norms.py,
ops/linalg_decompositions.py, ops/linalg_functions.py).

Matrices are drawn where the functions are smooth and fast to check: ``_conditioned`` is 3*I plus
small noise (inverses, slogdet, pinv, matrix_power), its sign flipped half the time so a determinant
may be negative; ``_spread`` has distinct singular values and eigenvalues (norms, eigh, qr);
sides <= 4 and batches <= 2. Symmetric and positive-definite inputs are made inside the op
(``_symmetric``, ``_spd``), so finite differences never leave the set the function is defined on.

Eigenvectors are only unique up to sign, and PyTorch's LAPACK (MKL) chooses other signs than
numpy's (OpenBLAS) for about half of the matrices: the eigh entries compare each eigenvector with its
largest entry made positive (``_fixed_signs``). Q and R of QR come out the same in both.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from .core import ErrorInput, OpInfo, SampleInput, array, dim_of

_F = np.zeros  # float arrays in error inputs
_SIDES = st.integers(1, 4)


# --- drawing matrices ---------------------------------------------------------------------------------
def _batch(draw: Callable) -> tuple:
    return tuple(draw(st.lists(st.integers(1, 2), max_size=1)))


def _conditioned(draw: Callable, n: int, batch: tuple = ()) -> np.ndarray:
    """3*I plus noise (sign flipped half the time): far from singular."""
    sign = 1 if draw(st.booleans()) else -1
    return sign * (3 * np.eye(n) + 0.3 * array(draw, (*batch, n, n)))


def _spread(draw: Callable, m: int, n: int, batch: tuple = ()) -> np.ndarray:
    """An m x n matrix whose singular values are well apart: diag(1, 2, 3, ...) plus noise."""
    k = min(m, n)
    base = np.zeros((m, n))
    base[range(k), range(k)] = np.arange(1, k + 1) * 1.5
    return base + 0.2 * array(draw, (*batch, m, n))


def _square(draw: Callable) -> tuple:
    return draw(_SIDES), _batch(draw)


def _conditioned_samples(**kwargs: Any) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        n, batch = _square(draw)
        return SampleInput(_conditioned(draw, n, batch), kwargs=dict(kwargs))

    return samples


def _spread_samples(shape: str = "any", *args: Any, **kwargs: Any) -> Callable:
    """``shape``: 'square', 'tall' (m >= n), 'wide' (m < n) or 'any'."""
    def samples(draw: Callable) -> SampleInput:
        m, n = draw(_SIDES), draw(_SIDES)
        if shape == "square":
            n = m
        elif shape == "tall":
            m, n = max(m, n), min(m, n)
        elif shape == "wide":
            m, n = min(m, n), max(m, n) + 1
        return SampleInput(_spread(draw, m, n, _batch(draw)), args, dict(kwargs))

    return samples


def _symmetric(lib: Any, a: Any) -> Any:
    return a + a.mT


def _spd(lib: Any, a: Any) -> Any:
    n = a.shape[-1]
    return a @ a.mT + n * lib.eye(n, dtype=a.dtype)


def _fixed_signs(vectors: Any) -> Any:
    """Each column with its largest entry positive (the eigenvector unique up to sign)."""
    biggest = vectors.abs().argmax(-2, keepdim=True)
    return vectors * vectors.gather(-2, biggest).sign()


def _eigh(lib: Any, a: Any, **kwargs: Any) -> tuple:
    values, vectors = lib.linalg.eigh(_symmetric(lib, a), **kwargs)
    return values, _fixed_signs(vectors)


# --- norms ---------------------------------------------------------------------------------------------
# ord=0 counts the nonzero elements: no gradient at all in PyTorch (.grad stays None), nor in glasstorch
_ORDERS = (2, 1, 3, 0.5, math.inf, -math.inf, 0)


def _vector_norm_samples(draw: Callable) -> SampleInput:
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    ord = draw(st.sampled_from(_ORDERS))
    kwargs: dict = {"ord": ord, "keepdim": draw(st.booleans())}
    if shape and draw(st.booleans()):
        kwargs["dim"] = dim_of(draw, shape)
    elif len(shape) > 1 and draw(st.booleans()):
        kwargs["dim"] = (0, -1)
    return SampleInput(array(draw, shape, "distinct" if math.isinf(ord) else "nonzero"), kwargs=kwargs)


def _matrix_norm_samples(ord: Any) -> Callable:
    """A matrix or a batch, over the last two dims or (0, 2) of a 3-D input, keepdim or not."""
    def samples(draw: Callable) -> SampleInput:
        m, n = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        if draw(st.booleans()):
            a, dim = _spread(draw, m, n, (2,)), draw(st.sampled_from([(-2, -1), (-1, -2)]))
        else:
            a, dim = _spread(draw, m, n), (-2, -1)
        if a.ndim == 3 and draw(st.booleans()):
            a, dim = np.moveaxis(a, 0, 1).copy(), (0, 2)
        if ord in (1, -1, math.inf, -math.inf):  # no |a| = 0, no ties between the sums
            a = a + np.sign(a) * 0.1 + np.arange(a.size).reshape(a.shape) * 0.05
        return SampleInput(a, (ord,), {"dim": dim, "keepdim": draw(st.booleans())})

    return samples


def _norm_samples(kind: str) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        if kind == "default":  # ord=None, dim=None: the 2-norm of all elements, any shape
            return SampleInput(array(draw, tuple(draw(st.lists(st.integers(1, 3), max_size=3))), "nonzero"))
        if kind == "vector":
            shape = (2, draw(st.integers(1, 3)), 3)
            return SampleInput(array(draw, shape, "nonzero"), (draw(st.sampled_from((1, 3, math.inf))),),
                               {"dim": dim_of(draw, shape), "keepdim": draw(st.booleans())})
        a = _spread(draw, draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        a = a + np.arange(a.size).reshape(a.shape) * 0.05
        return SampleInput(a, (draw(st.sampled_from(("fro", "nuc", 2, 1, -math.inf))),))

    return samples


_MATRIX_NORM_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((3,))), RuntimeError, "linalg.matrix_norm: The input tensor A must have at least 2"),
    ErrorInput(SampleInput(_F((3, 3)), (3,)), RuntimeError, "linalg.matrix_norm: Order 3 not supported."),
    ErrorInput(SampleInput(_F((3, 3)), ("abc",)), RuntimeError, "linalg.matrix_norm: Order abc not supported."),
    ErrorInput(SampleInput(_F((3, 3)), kwargs={"dim": (0, 0)}), RuntimeError, "dims must be different"),
]

_NORMS = [
    OpInfo("linalg.vector_norm", _vector_norm_samples, supports_out=True, other_dtypes=("int64",), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3, 3)), kwargs={"dim": 3}), IndexError, "Dimension out of range")]),
    *(OpInfo("linalg.matrix_norm", _matrix_norm_samples(ord), variant=str(ord).replace("-", "minus"), supports_out=ord == "fro",
             supports_gradgrad=ord not in ("nuc", 2, -2),  # svdvals' backward is numpy (ops/linalg.py)
             error_inputs=_MATRIX_NORM_ERRORS if ord == "fro" else list)
      for ord in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)),
    OpInfo("linalg.norm", _norm_samples("default"), supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3, 3)), (2,)), RuntimeError,
                   "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
        ErrorInput(SampleInput(_F((2, 3, 3)), kwargs={"dim": (0, 1, 2)}), RuntimeError,
                   "linalg.norm: If dim is specified, it must be of length 1 or 2."),
        ErrorInput(SampleInput(_F((3,)), ("fro",)), RuntimeError, "linalg.matrix_norm: The input tensor A must have at least")]),
    OpInfo("linalg.norm", _norm_samples("vector"), variant="vector"),
    OpInfo("linalg.norm", _norm_samples("matrix"), variant="matrix", supports_gradgrad=False),  # nuc, 2: svdvals
    # the 2-norm and nuc go through svdvals, whose backward numpy computes: no gradgradcheck
    OpInfo("linalg.cond", _spread_samples("square"), supports_out=True, supports_gradgrad=False),
    # PyTorch's backward of cond(A, 'fro') fails (its inverse is changed in place: "one of the variables
    # needed for gradient computation has been modified by an inplace operation"): values only
    OpInfo("linalg.cond", _conditioned_samples(p="fro"), variant="fro", supports_grad=False),
]


# --- decompositions -------------------------------------------------------------------------------------
def _not_square(name: str, message: str | None = None) -> Callable:
    return lambda: [
        ErrorInput(SampleInput(_F((2, 3))), RuntimeError, message or f"{name}: A must be batches of square matrices"),
        ErrorInput(SampleInput(_F((3,))), RuntimeError, f"{name}: The input tensor A must have at least 2 dimensions"),
    ]


def _lstsq_samples(kind: str) -> Callable:
    """A full-rank tall or square A, B a matrix (or a vector), batched or not."""
    def samples(draw: Callable) -> SampleInput:
        n = draw(st.integers(1, 3))
        m = n + draw(st.integers(0, 1))
        batch = () if kind == "vector" else _batch(draw)
        a = _spread(draw, m, n, batch)
        b = array(draw, (*batch, m) if kind == "vector" else (*batch, m, draw(st.integers(1, 2))))
        return SampleInput(a, (b,))

    return samples


def _rank_samples(draw: Callable) -> SampleInput:
    """A matrix of a drawn rank (a product of m x r and r x n matrices)."""
    m, n, r = draw(_SIDES), draw(_SIDES), draw(st.integers(0, 3))
    return SampleInput(array(draw, (m, r)) @ array(draw, (r, n)))


def _ex_samples(kind: str) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        n, batch = _square(draw)
        a = _conditioned(draw, n, batch)
        if kind == "solve":
            return SampleInput(a, (array(draw, (*batch, n, draw(st.integers(1, 2)))),))
        return SampleInput(a, kwargs={"upper": draw(st.booleans())} if kind == "cholesky" else {})

    return samples


_QR_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((3, 3)), ("x",)), RuntimeError, "qr received unrecognized mode 'x'"),
    ErrorInput(SampleInput(_F((3,))), RuntimeError, "linalg.qr: The input tensor A must have at least 2 dimensions"),
]
_EIGH_ERRORS = lambda: [  # noqa: E731  (the entries' op adds A^T to A first: a square A only)
    ErrorInput(SampleInput(_F((3, 3)), kwargs={"UPLO": "X"}), RuntimeError, "Expected UPLO argument to be 'L' or 'U'")]
_PINV_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((3,))), RuntimeError, "expected a tensor with 2 or more dimensions")]

# float32 decompositions by two LAPACKs (MKL, OpenBLAS) differ by ~1e-6 absolute in the gradients
_FLOAT32_LAPACK = {"float32": (1e-4, 1e-5)}

def _qr_after_backward(lib: Any, a: Any, mode: str = "reduced") -> Any:
    """``linalg.qr``, after differentiating Q and R of a copy of ``a``: where PyTorch refuses that
    backward (mode='r', mode='complete' with more rows than columns), the call raises its error."""
    leaf = a.detach().requires_grad_()
    q, r = lib.linalg.qr(leaf, mode)
    lib.autograd.grad(q.sum() + r.sum(), leaf)
    return lib.linalg.qr(a, mode)


def _tensorinv_samples(draw: Callable) -> SampleInput:
    """A well-conditioned 6 x 6 (or 4 x 4) matrix as a tensor whose first ``ind`` dims make one side."""
    shape, ind = draw(st.sampled_from([((2, 3, 6), 2), ((6, 2, 3), 1), ((2, 2, 4), 2), ((2, 2, 2, 2), 2)]))
    n = math.prod(shape[:ind])
    return SampleInput(_conditioned(draw, n).reshape(shape), kwargs={"ind": ind})


def _tensorsolve_samples(draw: Callable) -> SampleInput:
    shape, b_shape, dims = draw(st.sampled_from([((2, 3, 6), (2, 3), None), ((6, 2, 3), (2, 3), (0,)),
                                                 ((2, 2, 2, 2), (2, 2), None)]))
    a = _conditioned(draw, 6 if 6 in shape else 4).reshape(shape)
    return SampleInput(a, (array(draw, b_shape),), {} if dims is None else {"dims": dims})


_DECOMPOSITIONS = [
    OpInfo("linalg.slogdet", _conditioned_samples(), error_inputs=_not_square("linalg.slogdet")),
    OpInfo("slogdet", _conditioned_samples(), error_inputs=_not_square("linalg.slogdet")),
    OpInfo("linalg.qr", _spread_samples("tall"), error_inputs=_QR_ERRORS),
    OpInfo("linalg.qr", _spread_samples("wide"), variant="wide"),
    OpInfo("linalg.qr", _spread_samples("wide", "complete"), variant="complete_wide"),
    OpInfo("linalg.qr", _spread_samples("square", "complete"), variant="complete_square"),
    # mode='r' computes no Q, and PyTorch refuses to differentiate R alone (its error in backward)
    OpInfo("linalg.qr", _spread_samples("any", "r"), variant="r", supports_grad=False),
    OpInfo("linalg.qr", _spread_samples("tall"), variant="backward_errors", op=_qr_after_backward,
           supports_grad=False, dtypes=("float64",), error_inputs=lambda: [
               ErrorInput(SampleInput(_F((3, 2)), ("r",)), RuntimeError, "The derivative of linalg.qr depends on Q, "
                          "which is not computed when mode='r'"),
               ErrorInput(SampleInput(_F((3, 2)), ("complete",)), RuntimeError, "The QR decomposition is not "
                          "differentiable when mode='complete' and nrows > ncols.")]),
    OpInfo("qr", _spread_samples("tall"), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,))), RuntimeError, "linalg.qr: The input tensor A must have at least 2")]),
    # some=False is mode='complete': not differentiable for a tall matrix (PyTorch's error, entry backward_errors)
    OpInfo("qr", _spread_samples("any", False), variant="some_false", supports_grad=False),
    OpInfo("linalg.eigh", _spread_samples("square"), op=_eigh, error_inputs=_EIGH_ERRORS, tolerances=_FLOAT32_LAPACK),
    OpInfo("linalg.eigh", _spread_samples("square", UPLO="U"), variant="upper", op=_eigh, tolerances=_FLOAT32_LAPACK),
    OpInfo("linalg.eigvalsh", _spread_samples("square"), op=lambda lib, a, **k: lib.linalg.eigvalsh(a + a.mT, **k),
           error_inputs=_EIGH_ERRORS),
    OpInfo("linalg.pinv", _spread_samples("any"), supports_out=True, error_inputs=_PINV_ERRORS),
    OpInfo("linalg.pinv", _spread_samples("square", hermitian=True), variant="hermitian",
           op=lambda lib, a, **k: lib.linalg.pinv(a + a.mT, **k)),
    OpInfo("linalg.pinv", _spread_samples("any", rtol=0.05), variant="rtol"),  # singular values >= 1: all kept
    OpInfo("pinverse", _spread_samples("any"), error_inputs=_PINV_ERRORS),
    OpInfo("linalg.matrix_rank", _rank_samples, supports_grad=False, supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,))), RuntimeError, "The input tensor input must have at least 2 dimensions")]),
    OpInfo("linalg.matrix_rank", _spread_samples("any", atol=2.5, rtol=0.1), variant="tolerances", supports_grad=False),
    OpInfo("linalg.matrix_rank", _rank_samples, variant="hermitian", supports_grad=False,
           op=lambda lib, a: lib.linalg.matrix_rank(a @ a.mT, hermitian=True)),
    OpInfo("linalg.lstsq", _lstsq_samples("matrix"), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3, 3)), (_F((2, 2)),)), RuntimeError, "input.size(-2) should match other.size(-2)"),
        ErrorInput(SampleInput(_F((3,)), (_F((3, 2)),)), RuntimeError, "input must have at least 2 dimensions"),
        ErrorInput(SampleInput(_F((2, 2)), (_F((2, 1)),), {"driver": "x"}), RuntimeError,
                   "parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")]),
    OpInfo("linalg.lstsq", _lstsq_samples("vector"), variant="vector"),
    OpInfo("linalg.tensorinv", _tensorinv_samples, supports_out=True,
           grad_fn_difference=("ViewBackward0", "ReshapeAliasBackward0"), error_inputs=lambda: [
               ErrorInput(SampleInput(_F((2, 3)), kwargs={"ind": 1}), RuntimeError,
                          "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind])"),
               ErrorInput(SampleInput(_F((2, 2)), kwargs={"ind": 0}), RuntimeError,
                          "Expected a strictly positive integer for 'ind', but got 0"),
               ErrorInput(SampleInput(_F((2, 2)), kwargs={"ind": 1}), RuntimeError, "the input matrix is singular")]),
    OpInfo("linalg.tensorsolve", _tensorsolve_samples, supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3, 6)), (_F((2, 2)),)), RuntimeError,
                   "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim])")]),
    OpInfo("linalg.inv_ex", _ex_samples("inv"), error_inputs=_not_square("linalg.inv")),
    OpInfo("linalg.cholesky_ex", _ex_samples("cholesky"),
           op=lambda lib, a, **k: lib.linalg.cholesky_ex(_spd(lib, a), **k)),
    OpInfo("linalg.solve_ex", _ex_samples("solve")),
]


# --- matrix functions and products -------------------------------------------------------------------------
def _power_samples(n: int, batched: bool = False) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        side = draw(st.integers(1, 3))
        scale = 1 / 3 if abs(n) > 3 else 1  # keeps A^n of order 1
        return SampleInput(_conditioned(draw, side, (2,) if batched else ()) * scale, (n,))

    return samples


def _matrix_exp_samples(draw: Callable) -> SampleInput:
    n, batch = _square(draw)
    return SampleInput(array(draw, (*batch, n, n)) * draw(st.sampled_from([0.3, 1.0])))


def _multi_dot_samples(count: int, vector_ends: bool = False) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        sides = [draw(_SIDES) for _ in range(count + 1)]
        matrices = [array(draw, (a, b)) for a, b in zip(sides, sides[1:])]
        if vector_ends:
            matrices[0], matrices[-1] = matrices[0][0], matrices[-1][:, 0]
        return SampleInput(matrices)

    return samples


def _vecdot_samples(draw: Callable) -> SampleInput:
    n = draw(st.integers(1, 3))
    x_shape = draw(st.sampled_from([(n,), (2, n), (1, 2, n)]))
    y_shape = draw(st.sampled_from([(n,), (2, n), x_shape]))
    kwargs = {} if draw(st.booleans()) else {"dim": -1}
    return SampleInput(array(draw, x_shape), (array(draw, y_shape),), kwargs)


def _cholesky_solve_samples(upper: bool) -> Callable:
    """B, and a triangular factor (its other triangle is zeroed in the op: LAPACK reads one)."""
    def samples(draw: Callable) -> SampleInput:
        n = draw(st.integers(1, 3))
        b = array(draw, (n, draw(st.integers(1, 2))))
        return SampleInput(b, (_conditioned(draw, n) * (1 if upper else -1),), {"upper": upper})

    return samples


def _triangle(lib: Any, factor: Any, upper: bool) -> Any:
    if factor.dim() < 2:  # an error input: the op's own check must see it
        return factor
    return factor.triu() if upper else factor.tril()


def _vander_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(2,), (3,), (2, 3), (1, 4)]))
    kwargs = {"N": draw(st.integers(2, 4))} if draw(st.booleans()) else {}
    return SampleInput(array(draw, shape), kwargs=kwargs)


def _cross_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(3,), (2, 3), (1, 2, 3)]))
    other = draw(st.sampled_from([shape, (1,) * (len(shape) - 1) + (3,)]))
    return SampleInput(array(draw, shape), (array(draw, other),))


def _diagonal_samples(draw: Callable) -> SampleInput:
    # sides >= 2: an offset diagonal is never empty (gradgradcheck's grad_output of an empty output fails)
    shape = tuple(draw(st.lists(st.integers(2, 3), min_size=2, max_size=3)))
    kwargs = {} if draw(st.booleans()) else {"offset": draw(st.integers(-1, 1)), "dim1": 0, "dim2": -1}
    return SampleInput(array(draw, shape), kwargs=kwargs)


# PyTorch computes a float32 exponential in float32 (a Pade approximant of lower degree), glasstorch in
# float64 then rounds: they differ by ~1e-5 relative
_EXP_TOLERANCES = {"float32": (1e-4, 1e-4)}
_BATCHED_MATMUL = ("MatmulBackward0", "UnsafeViewBackward0")  # ops/linalg.py: one Node for a batched matmul

_POWER_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (2,)), RuntimeError, "linalg.matrix_power: A must be batches of square matrices"),
    ErrorInput(SampleInput(_F((3,)), (2,)), RuntimeError, "linalg.matrix_power: The input tensor A must have at least 2")]

_FUNCTIONS = [
    OpInfo("linalg.matrix_exp", _matrix_exp_samples, tolerances=_EXP_TOLERANCES, error_inputs=_not_square("linalg.matrix_exp")),
    OpInfo("matrix_exp", _matrix_exp_samples, tolerances=_EXP_TOLERANCES, error_inputs=lambda: [
        ErrorInput(SampleInput(np.zeros((2, 2), dtype=np.int64)), RuntimeError,
                   "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got Long")]),
    *(OpInfo("linalg.matrix_power", _power_samples(n), variant=str(n).replace("-", "minus"),
             other_dtypes=("int64",) if n >= 0 else (),
             error_inputs=_POWER_ERRORS if n == 2 else list)
      for n in (0, 1, 2, 3, 4, 5, -1, -2)),
    OpInfo("linalg.matrix_power", _power_samples(4, batched=True), variant="4_batched",
           grad_fn_difference=_BATCHED_MATMUL),
    OpInfo("matrix_power", _power_samples(6)),
    OpInfo("linalg.multi_dot", _multi_dot_samples(2), op=lambda lib, ms, **k: lib.linalg.multi_dot(ms, **k),
           supports_out=True, error_inputs=lambda: [
               ErrorInput(SampleInput([_F((3, 3))]), RuntimeError, "multi_dot(): expected at least 2 tensors but got 1"),
               ErrorInput(SampleInput([_F((3, 3)), _F((2, 3))]), RuntimeError,
                          "multi_dot(): tensors 0 and 1 with shapes [3, 3] and [2, 3] cannot be multiplied"),
               ErrorInput(SampleInput([_F((1, 3, 3)), _F((3, 3))]), RuntimeError,
                          "multi_dot(): the first tensor must be 1D or 2D but got 3D"),
               ErrorInput(SampleInput([_F((3, 3)), _F((3,)), _F((3, 3))]), RuntimeError,
                          "multi_dot(): tensor 1 must be 2D but got 1D")]),
    OpInfo("linalg.multi_dot", _multi_dot_samples(3), variant="three", op=lambda lib, ms: lib.linalg.multi_dot(ms)),
    OpInfo("linalg.multi_dot", _multi_dot_samples(4), variant="four", op=lambda lib, ms: lib.linalg.multi_dot(ms)),
    OpInfo("linalg.multi_dot", _multi_dot_samples(3, True), variant="vector_ends",
           op=lambda lib, ms: lib.linalg.multi_dot(ms)),
    OpInfo("linalg.multi_dot", lambda draw: SampleInput([array(draw, (3,)), array(draw, (3,))]), variant="two_vectors",
           op=lambda lib, ms: lib.linalg.multi_dot(ms)),
    OpInfo("linalg.vecdot", _vecdot_samples, supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,)), (np.zeros(3, dtype=np.int64),)), RuntimeError,
                   "linalg.vecdot: Expected x and y to have the same dtype"),
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 2)),)), RuntimeError, "The size of tensor a (3) must match")]),
    OpInfo("vdot", lambda draw: SampleInput(array(draw, (3,)), (array(draw, (3,)),)), supports_out=True,
           error_inputs=lambda: [
               ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)),)), RuntimeError, "1D tensors expected, but got 2D and 2D"),
               ErrorInput(SampleInput(_F((3,)), (_F((2,)),)), RuntimeError, "inconsistent tensor size")]),
    OpInfo("cholesky_solve", _cholesky_solve_samples(False), supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,)), (_F((3, 3)), False)), RuntimeError, "b should have at least 2 dimensions"),
        ErrorInput(SampleInput(_F((2, 1)), (_F((3, 3)), False)), RuntimeError,
                   "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 2 by 1")],
           op=lambda lib, b, factor, upper, **k: lib.cholesky_solve(b, _triangle(lib, factor, upper), upper, **k),
           skips={"method": "the entry's op zeroes the factor's other triangle"}),
    OpInfo("cholesky_solve", _cholesky_solve_samples(True), variant="upper",
           op=lambda lib, b, factor, upper: lib.cholesky_solve(b, _triangle(lib, factor, upper), upper),
           skips={"method": "the entry's op zeroes the factor's other triangle"}),
    OpInfo("cholesky_inverse", lambda draw: SampleInput(_conditioned(draw, draw(st.integers(1, 3))),
                                                       kwargs={"upper": draw(st.booleans())}),
           op=lambda lib, factor, upper=False: lib.cholesky_inverse(_triangle(lib, factor, upper), upper),
           error_inputs=lambda: [ErrorInput(SampleInput(_F((3,))), RuntimeError,
                                            "cholesky_inverse: The input tensor A must have at least 2 dimensions")],
           skips={"method": "the entry's op zeroes the factor's other triangle"}),
    OpInfo("linalg.cross", _cross_samples, variant="default_dim", error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3, 2)), (_F((3, 2)),)), RuntimeError, "linalg.cross: inputs dimension -1 must have length 3"),
        ErrorInput(SampleInput(_F((2, 3)), (_F((3,)),)), RuntimeError, "inputs must have the same number of dimensions")]),
    OpInfo("linalg.diagonal", _diagonal_samples),
    OpInfo("linalg.vander", _vander_samples, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,)), kwargs={"N": 1}), RuntimeError, "N must be greater than 1."),
        ErrorInput(SampleInput(_F((1,))), RuntimeError, "N must be greater than 1.")]),
]

OPS: list = [*_NORMS, *_DECOMPOSITIONS, *_FUNCTIONS]
