"""Matrix products and linear algebra (ops/linalg*.py, einsum.py, glasstorch.linalg).

Matrix functions get matrices where they are smooth: ``_invertible`` adds n*I to a random matrix
(inverse, solve, det, LU), ``_spd`` enters as A and the op sees A A^T + n*I (Cholesky, logdet: a
symmetric positive-definite matrix, whatever the finite differences do to A), and triangular
solves get a diagonal away from 0. Decompositions are compared on what is unique: singular values,
and the squares of the singular vectors (each vector is defined up to its sign), never U or V
themselves.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from .core import ErrorInput, NoGrad, OpInfo, SampleInput, array

_F = np.zeros  # float sample arrays in error inputs (they become float32 tensors)
_SIDES = st.integers(1, 3)


# --- drawing matrices ----------------------------------------------------------------------------
def _batch(draw: Callable, max_dims: int = 1) -> tuple:
    return tuple(draw(st.lists(st.integers(1, 2), max_size=max_dims)))


def _invertible(draw: Callable, n: int, batch: tuple = ()) -> np.ndarray:
    """A random matrix plus n*I: far from singular, its determinant positive."""
    return array(draw, (*batch, n, n)) * 0.5 + n * np.eye(n)


def _spd(lib: Any, a: Any) -> Any:
    """A A^T + n*I: symmetric positive-definite for any A (the op's real input)."""
    n = a.shape[-1]
    return a @ a.mT + n * lib.eye(n, dtype=a.dtype)


def _triangular(draw: Callable, n: int, batch: tuple = ()) -> np.ndarray:
    """A random matrix whose diagonal is away from 0 (the solve reads one triangle of it)."""
    return array(draw, (*batch, n, n)) * 0.5 + n * np.eye(n) * np.where(draw(st.booleans()), 1, -1)


def _chain(draw: Callable) -> list:
    """Two to four matrices whose inner sides agree."""
    sides = draw(st.lists(_SIDES, min_size=3, max_size=5))
    return [array(draw, (a, b)) for a, b in zip(sides, sides[1:])]


# --- products --------------------------------------------------------------------------------------
def _product_samples(left: Callable, right: Callable, **kwargs: Any) -> Callable:
    """``op(a, b)`` with shapes ``left(n, k, m)`` and ``right(n, k, m)`` of drawn sides."""
    def samples(draw: Callable) -> SampleInput:
        n, k, m = draw(_SIDES), draw(_SIDES), draw(_SIDES)
        return SampleInput(array(draw, left(n, k, m)), (array(draw, right(n, k, m)),), dict(kwargs))

    return samples


def _matmul_batched_samples(draw: Callable) -> SampleInput:
    """Batched matmul, the batch dims broadcasting (one side may be a vector or a matrix)."""
    n, k, m = draw(_SIDES), draw(_SIDES), draw(_SIDES)
    left = draw(st.sampled_from([(2, n, k), (1, n, k), (k,), (2, 1, n, k)]))
    right = draw(st.sampled_from([(2, k, m), (k, m), (k,)] if len(left) > 1 else [(2, k, m)]))
    if left == (1, n, k) and len(right) == 3:  # (PyTorch computes it as 2-D @ 3-D: another Node, see 2d_3d)
        right = (k, m)
    return SampleInput(array(draw, left), (array(draw, right),))


def _add_product_samples(kind: str, **kwargs: Any) -> Callable:
    """``addmm``-like ``op(input, a, b)``: the input broadcasts to the product's shape."""
    def samples(draw: Callable) -> SampleInput:
        n, k, m, b = draw(_SIDES), draw(_SIDES), draw(_SIDES), draw(st.integers(1, 3))
        first, second, result = {
            "mm": ((n, k), (k, m), (n, m)), "bmm": ((b, n, k), (b, k, m), (b, n, m)),
            "addbmm": ((b, n, k), (b, k, m), (n, m)), "mv": ((n, k), (k,), (n,)), "r": ((n,), (m,), (n, m)),
        }[kind]
        input_shape = result if kind in ("r", "mv") else draw(st.sampled_from([result, result[-1:], ()]))
        return SampleInput(array(draw, input_shape), (array(draw, first), array(draw, second)), dict(kwargs))

    return samples


_CANNOT_MULTIPLY = "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
_MM_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)),)), RuntimeError, _CANNOT_MULTIPLY),
    ErrorInput(SampleInput(_F((2, 3, 1)), (_F((2, 3)),)), RuntimeError, "self must be a matrix"),
]

_MATMUL_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)),)), RuntimeError, _CANNOT_MULTIPLY),
    ErrorInput(SampleInput(_F(()), (_F((2, 3)),)), RuntimeError, "both arguments to matmul need to be at least 1D"),
    ErrorInput(SampleInput(_F((3,)), (_F((2,)),)), RuntimeError, "inconsistent tensor size"),
]

_BATCHED = ("MatmulBackward0", "UnsafeViewBackward0")  # ops/linalg.py's docstring: one Node for a batched matmul

PRODUCTS = [
    OpInfo("mm", _product_samples(lambda n, k, m: (n, k), lambda n, k, m: (k, m)), supports_out=True,
           other_dtypes=("int64", "bool"),
           error_inputs=_MM_ERRORS),
    OpInfo("mm", _product_samples(lambda n, k, m: (k, n), lambda n, k, m: (k, m)), variant="transposed",
           op=lambda lib, a, b: a.t().mm(b), method=False),  # (a column-major first operand: mm's strides path)
    OpInfo("matmul", lambda draw: SampleInput(NoGrad(array(draw, (2, 4, 3))), (array(draw, (3, 2)),)),
           variant="constant_left", grad_fn_difference=_BATCHED),
    OpInfo("mv", _product_samples(lambda n, k, m: (n, k), lambda n, k, m: (k,)), supports_out=True,
           error_inputs=lambda: [ErrorInput(SampleInput(_F((2, 3)), (_F((2,)),)), RuntimeError, "size mismatch")]),
    OpInfo("dot", _product_samples(lambda n, k, m: (k,), lambda n, k, m: (k,)), supports_out=True,
           error_inputs=lambda: [
               ErrorInput(SampleInput(_F((3,)), (_F((2,)),)), RuntimeError, "inconsistent tensor size"),
               ErrorInput(SampleInput(_F((2, 3)), (_F((3,)),)), RuntimeError, "1D tensors expected")]),
    OpInfo("matmul", _product_samples(lambda n, k, m: (n, k), lambda n, k, m: (k, m)), variant="2d_2d",
           supports_out=True, error_inputs=_MATMUL_ERRORS),
    OpInfo("matmul", _product_samples(lambda n, k, m: (n, k), lambda n, k, m: (k,)), variant="2d_1d"),
    OpInfo("matmul", _product_samples(lambda n, k, m: (k,), lambda n, k, m: (k, m)), variant="1d_2d"),
    OpInfo("matmul", _product_samples(lambda n, k, m: (k,), lambda n, k, m: (k,)), variant="1d_1d"),
    OpInfo("matmul", _matmul_batched_samples, variant="batched", grad_fn_difference=_BATCHED, other_dtypes=("int64",)),
    # (n, m >= 2: with a side of 1 PyTorch records TransposeBackward0 instead of CloneBackward0)
    OpInfo("matmul", _product_samples(lambda n, k, m: (n + 1, k), lambda n, k, m: (2, k, m + 1)), variant="2d_3d",
           grad_fn_difference=("MatmulBackward0", "CloneBackward0")),
    OpInfo("bmm", _product_samples(lambda n, k, m: (2, n, k), lambda n, k, m: (2, k, m)), supports_out=True,
           error_inputs=lambda: [
               ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3, 1)),)), RuntimeError, "batch1 must be a 3D tensor"),
               ErrorInput(SampleInput(_F((2, 2, 3)), (_F((2, 2, 1)),)), RuntimeError,
                          "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 2]")]),
    OpInfo("outer", _product_samples(lambda n, k, m: (n,), lambda n, k, m: (m,)), aliases=("ger",), supports_out=True,
           error_inputs=lambda: [ErrorInput(SampleInput(_F((2, 3)), (_F((3,)),)), RuntimeError,
                                            "outer: Expected 1-D argument self")]),
    OpInfo("addmm", _add_product_samples("mm"), inplace="addmm_", supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 2)), (_F((2, 3)), _F((2, 3)))), RuntimeError, _CANNOT_MULTIPLY)]),
    OpInfo("addmm", _add_product_samples("mm", beta=0.5, alpha=2.0), variant="beta_alpha", inplace="addmm_"),
    OpInfo("baddbmm", _add_product_samples("bmm"), inplace="baddbmm_", supports_out=True),
    OpInfo("baddbmm", _add_product_samples("bmm", beta=0.5, alpha=2.0), variant="beta_alpha", inplace="baddbmm_"),
    OpInfo("addbmm", _add_product_samples("addbmm"), inplace="addbmm_", supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3, 2)), (_F((2, 3)), _F((2, 3, 2)))), RuntimeError, "batch1 must be a 3D tensor")]),
    OpInfo("addbmm", _add_product_samples("addbmm", beta=0.5, alpha=2.0), variant="beta_alpha", inplace="addbmm_"),
    OpInfo("addmv", _add_product_samples("mv"), inplace="addmv_", supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2,)), (_F((2, 3)), _F((2,)))), RuntimeError, "size mismatch")]),
    OpInfo("addmv", _add_product_samples("mv", beta=0.5, alpha=2.0), variant="beta_alpha", inplace="addmv_"),
    OpInfo("addr", _add_product_samples("r"), inplace="addr_", supports_out=True, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 1)), _F((3,)))), RuntimeError, "addr: Expected 1-D argument vec1")]),
    OpInfo("addr", _add_product_samples("r", beta=0.5, alpha=2.0), variant="beta_alpha", inplace="addr_"),
    OpInfo("chain_matmul", lambda draw: SampleInput(_chain(draw)), op=lambda lib, ms: lib.chain_matmul(*ms),
           method=False, error_inputs=lambda: [
               ErrorInput(SampleInput([_F((2, 3)), _F((3,))]), RuntimeError,
                          "Tensor dimension is 1, expected 2 instead")]),
    OpInfo("chain_matmul", lambda draw: SampleInput([array(draw, (2, 3))]), variant="one", method=False,
           op=lambda lib, ms: lib.chain_matmul(*ms)),
]


# --- cross products, determinants, distances, integrals ------------------------------------------------
def _cross_samples(with_dim: bool) -> Callable:
    """Two stacks of 3-vectors that broadcast; the 3 along a drawn dim."""
    def samples(draw: Callable) -> SampleInput:
        ndim = draw(st.integers(1, 3))
        dim = draw(st.integers(0, ndim - 1))
        shape = [draw(st.integers(1, 2)) for _ in range(ndim)]
        shape[dim] = 3
        other = [1 if d != dim and draw(st.booleans()) else n for d, n in enumerate(shape)]
        kwargs = {"dim": dim - ndim if draw(st.booleans()) else dim} if with_dim else {}
        return SampleInput(array(draw, tuple(shape)), (array(draw, tuple(other)),), kwargs)

    return samples


def _square_samples(make: Callable = _invertible, max_batch: int = 1, **kwargs: Any) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        return SampleInput(make(draw, draw(_SIDES), _batch(draw, max_batch)), kwargs=dict(kwargs))

    return samples


def _any_matrix_samples(draw: Callable) -> SampleInput:
    """A matrix (or a batch of 2) of any sides, entries apart: distinct nonzero singular values."""
    shape = (*_batch(draw), draw(_SIDES), draw(_SIDES))
    return SampleInput(array(draw, shape, "distinct"))


def _cdist_samples(p: float) -> Callable:
    """Rows of x1 and x2 apart from each other (no zero distance, where the p-norm has a kink)."""
    def samples(draw: Callable) -> SampleInput:
        batch, m = _batch(draw), draw(_SIDES)
        x1 = array(draw, (*batch, draw(_SIDES), m), "odd")
        x2 = array(draw, (*batch, draw(_SIDES), m), "even")
        return SampleInput(x1, (x2,), {"p": p})

    return samples


def _trapezoid_samples(spacing: str, min_length: int = 1) -> Callable:
    """y with dim drawn; spacing: none (1), ``dx`` a float, ``x`` a 1-D tensor (or x of y's shape)."""
    def samples(draw: Callable) -> SampleInput:
        shape = list(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
        dim = draw(st.integers(-len(shape), len(shape) - 1))
        shape[dim] = max(shape[dim], min_length)
        shape = tuple(shape)
        args: tuple = ()
        kwargs: dict = {"dim": dim}
        if spacing == "dx":
            kwargs["dx"] = 0.5
        elif spacing == "x":
            args = (np.cumsum(array(draw, (shape[dim],), "positive")),)
        elif spacing == "x_full":
            args = (np.cumsum(array(draw, shape, "positive"), axis=dim),)
        return SampleInput(array(draw, shape), args, kwargs)

    return samples


def _svd_parts(lib: Any, A: Any, **kwargs: Any) -> tuple:
    """``torch.svd`` up to the signs of the singular vectors: S, U², V² (elementwise)."""
    U, S, V = lib.svd(A, **kwargs)
    return S, U * U, V * V


def _linalg_svd_parts(lib: Any, A: Any) -> tuple:
    U, S, Vh = lib.linalg.svd(A, full_matrices=False)
    return S, U * U, Vh * Vh


_NOT_SQUARE = lambda name: lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3))), RuntimeError, "must be batches of square matrices"),
]

_SVD_SKIPS: dict = {}
# (the singular vectors' gradients divide by S_i^2 - S_j^2: float32 rounding grows)
_SVD_FLOAT32 = {"float32": (1e-4, 1e-4)}

MATRIX_FUNCTIONS = [
    OpInfo("cross", _cross_samples(True), supports_out=True, other_dtypes=("int64", "bool"), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)),), {"dim": 0}), RuntimeError, "must have length 3"),
        ErrorInput(SampleInput(_F((2, 3)), (_F((3, 3)),), {"dim": 1}), RuntimeError, "must match the size")]),
    OpInfo("linalg.cross", _cross_samples(True)),
    OpInfo("det", _square_samples(), other_dtypes=("int64",), error_inputs=_NOT_SQUARE("det")),
    OpInfo("linalg.det", _square_samples()),
    OpInfo("logdet", _square_samples(lambda draw, n, batch: array(draw, (*batch, n, n))),
           op=lambda lib, a: lib.logdet(_spd(lib, a)),
           skips={"method": "the sample's matrix is A A^T + nI, made in op"}),
    OpInfo("svd", _any_matrix_samples, op=_svd_parts, method=False, skips=_SVD_SKIPS,
           tolerances=_SVD_FLOAT32),
    OpInfo("svd", _any_matrix_samples, variant="some_false", op=lambda lib, a: _svd_parts(lib, a, some=False)[:1],
           method=False, skips=_SVD_SKIPS),
    OpInfo("linalg.svd", _any_matrix_samples, op=_linalg_svd_parts, skips=_SVD_SKIPS, tolerances=_SVD_FLOAT32),
    OpInfo("linalg.svdvals", _any_matrix_samples, skips=_SVD_SKIPS, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,))), RuntimeError, "The input tensor A must have at least 2 dimensions")]),
    *[OpInfo("cdist", _cdist_samples(p), variant=f"p{p}", method=False, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 2)),)), RuntimeError,
                   "X1 and X2 must have the same number of columns"),
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)),), {"p": -1.0}), RuntimeError,
                   "cdist only supports non-negative p values")])
      for p in (2.0, 1.0, 0.0, 1.5, float("inf"))],
    # (cumulative_trapezoid: 2 points at least; one gives an empty result, which gradgradcheck refuses)
    *[OpInfo(name, _trapezoid_samples(spacing, 1 if name == "trapezoid" else 2), variant=spacing, method=False,
             aliases=("trapz",) if name == "trapezoid" and spacing != "dx" else ())
      for name in ("trapezoid", "cumulative_trapezoid") for spacing in ("none", "dx", "x", "x_full")],
]


# --- solving: inverse, solve, Cholesky, triangular systems, LU ---------------------------------------
def _solve_samples(shape_of_b: str, **kwargs: Any) -> Callable:
    """``solve(A, B)``: A invertible; B (n, k), a vector (n,), or for ``left=False`` (k, n)."""
    def samples(draw: Callable) -> SampleInput:
        n, k, batch = draw(_SIDES), draw(_SIDES), _batch(draw)
        b_shape = {"matrix": (*batch, n, k), "vector": (n,), "right": (*batch, k, n)}[shape_of_b]
        return SampleInput(_invertible(draw, n, batch), (array(draw, b_shape),), dict(kwargs))

    return samples


def _triangular_samples(**kwargs: Any) -> Callable:
    """``solve_triangular(A, B)``: B (n, k), or (k, n) with ``left=False``."""
    def samples(draw: Callable) -> SampleInput:
        n, k, batch = draw(_SIDES), draw(_SIDES), _batch(draw)
        b_shape = (*batch, n, k) if kwargs.get("left", True) else (*batch, k, n)
        return SampleInput(_triangular(draw, n, batch), (array(draw, b_shape),), dict(kwargs))

    return samples


def _triangular_solve_samples(**kwargs: Any) -> Callable:
    """``torch.triangular_solve(b, A)``: the right-hand side first."""
    def samples(draw: Callable) -> SampleInput:
        n, k, batch = draw(_SIDES), draw(_SIDES), _batch(draw)
        return SampleInput(array(draw, (*batch, n, k)), (_triangular(draw, n, batch),), dict(kwargs))

    return samples


def _lu_solve_samples(**kwargs: Any) -> Callable:
    """(A, B): the op factors A and solves with the factors; B (n, k), or (k, n) with ``left=False``."""
    def samples(draw: Callable) -> SampleInput:
        n, k, batch = draw(_SIDES), draw(_SIDES), _batch(draw)
        b_shape = (*batch, n, k) if kwargs.get("left", True) else (*batch, k, n)
        return SampleInput(_invertible(draw, n, batch), (array(draw, b_shape),), dict(kwargs))

    return samples


def _packed_lu_samples(draw: Callable) -> SampleInput:
    """``lu_unpack(LU, pivots)`` of any packed LU, square or not (the pivots swap nothing: 1..k)."""
    m, n, batch = draw(_SIDES), draw(_SIDES), _batch(draw)
    pivots = np.broadcast_to(np.arange(1, min(m, n) + 1, dtype=np.int32), (*batch, min(m, n))).copy()
    return SampleInput(array(draw, (*batch, m, n)), (pivots,))


def _spd_op(name: str) -> Callable:
    def op(lib: Any, a: Any, **kwargs: Any) -> Any:
        function = lib
        for part in name.split("."):
            function = getattr(function, part)
        return function(_spd(lib, a), **kwargs)

    return op


def _constant_spd(draw: Callable, n: int, batch: tuple) -> NoGrad:
    """A A^T + nI as a constant (the method and the errors of Cholesky, without a gradient)."""
    a = array(draw, (*batch, n, n))
    return NoGrad(a @ np.swapaxes(a, -1, -2) + n * np.eye(n))


_RAW = lambda draw, n, batch: array(draw, (*batch, n, n))  # noqa: E731  (A of A A^T + nI)
_SINGULAR = lambda: [  # noqa: E731
    ErrorInput(SampleInput(NoGrad(np.ones((2, 2)))), RuntimeError, "singular"),
]
_NOT_PD = lambda: [ErrorInput(SampleInput(NoGrad(-np.eye(2))), RuntimeError, "not positive-definite")]  # noqa: E731

SOLVING = [
    OpInfo("linalg.inv", _square_samples(), other_dtypes=("int64",),
           error_inputs=lambda: [*_SINGULAR(), *_NOT_SQUARE("inv")()]),
    OpInfo("inverse", _square_samples(), supports_out=True),
    OpInfo("linalg.solve", _solve_samples("matrix"), error_inputs=lambda: [
        ErrorInput(SampleInput(NoGrad(np.ones((2, 2))), (_F((2, 1)),)), RuntimeError, "singular"),
        ErrorInput(SampleInput(_F((2, 2)), (_F((3, 1)),)), RuntimeError, "Incompatible shapes of A and B")]),
    OpInfo("linalg.solve", _solve_samples("vector"), variant="vector"),
    OpInfo("linalg.solve", _solve_samples("right", left=False), variant="left_false"),
    OpInfo("linalg.cholesky", _square_samples(_RAW), op=_spd_op("linalg.cholesky")),
    OpInfo("linalg.cholesky", _square_samples(_constant_spd), variant="constant", supports_grad=False,
           error_inputs=_NOT_PD),
    OpInfo("linalg.cholesky", _square_samples(_RAW, upper=True), variant="upper", op=_spd_op("linalg.cholesky")),
    OpInfo("cholesky", _square_samples(_RAW), op=_spd_op("cholesky"), method=False),
    OpInfo("cholesky", _square_samples(_constant_spd), variant="constant", supports_grad=False, error_inputs=_NOT_PD),
    OpInfo("cholesky", _square_samples(_RAW, upper=True), variant="upper", op=_spd_op("cholesky"), method=False),
    OpInfo("linalg.solve_triangular", _triangular_samples(upper=True)),
    OpInfo("linalg.solve_triangular", _triangular_samples(upper=False, left=False), variant="lower_right"),
    OpInfo("linalg.solve_triangular", _triangular_samples(upper=False, unitriangular=True), variant="unitriangular"),
    OpInfo("triangular_solve", _triangular_solve_samples()),
    OpInfo("triangular_solve", _triangular_solve_samples(upper=False, transpose=True), variant="lower_transpose"),
    OpInfo("linalg.lu_factor", _square_samples(), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((3,))), RuntimeError, "Expected tensor with 2 or more dimensions")]),
    OpInfo("lu", _square_samples(), method=True),
    OpInfo("linalg.lu", _square_samples()),
    OpInfo("lu_unpack", _square_samples(), op=lambda lib, a: lib.lu_unpack(*lib.linalg.lu_factor(a)), method=False),
    OpInfo("lu_unpack", _packed_lu_samples, variant="packed", method=False),
    *[OpInfo("linalg.lu_solve", _lu_solve_samples(**kwargs), variant=variant,
             op=lambda lib, a, b, **k: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, **k))
      for variant, kwargs in (("", {}), ("adjoint", {"adjoint": True}), ("right", {"left": False}),
                              ("right_adjoint", {"left": False, "adjoint": True}))],
    OpInfo("lu_solve", _lu_solve_samples(), op=lambda lib, a, b: lib.lu_solve(b, *lib.linalg.lu_factor(a)),
           method=False),
]


# --- einsum ---------------------------------------------------------------------------------------------
def _einsum_samples(equation: str, *shapes: tuple) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        return SampleInput([array(draw, shape) for shape in shapes], (equation,))

    return samples


def _einsum(lib: Any, operands: list, equation: str) -> Any:
    return lib.einsum(equation, *operands)


_EINSUMS = {  # variant: (equation, shapes, PyTorch's last Node)
    "matmul": ("ij,jk->ik", [(2, 3), (3, 2)], "ViewBackward0"),
    "trace": ("ii", [(3, 3)], "SumBackward1"),
    "diagonal": ("ii->i", [(3, 3)], "PermuteBackward0"),
    "batched": ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], "ViewBackward0"),
    "outer": ("i,j->ij", [(2,), (3,)], "MulBackward0"),
    "ellipsis": ("...ij->...ji", [(2, 2, 3)], "PermuteBackward0"),
    "three": ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)], "ViewBackward0"),
}

EINSUM = [
    OpInfo("einsum", _einsum_samples(equation, *shapes), variant=variant, op=_einsum, method=False,
           grad_fn_difference=("EinsumBackward0", pytorch_node),
           error_inputs=lambda: [
               ErrorInput(SampleInput([_F((2, 3)), _F((2, 3))], ("ij,jk->ik",)), RuntimeError,
                          "subscript j has size 2 for operand 1 which does not broadcast with previously seen size 3"),
               ErrorInput(SampleInput([_F((2, 3))], ("ijk->i",)), RuntimeError,
                          "the number of subscripts in the equation (3) does not match the number of dimensions (2)")])
    for variant, (equation, shapes, pytorch_node) in _EINSUMS.items()
]

OPS = [*PRODUCTS, *MATRIX_FUNCTIONS, *SOLVING, *EINSUM]
