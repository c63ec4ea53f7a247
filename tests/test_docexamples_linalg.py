"""linalg.inv / inverse, linalg.solve, linalg.cholesky / cholesky, linalg.solve_triangular /
triangular_solve, added for PyTorch's docstring examples (issue 14): values, gradients and grad_fn
names against PyTorch 2.13, gradcheck in float64 (batches included), PyTorch's errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from test_nn_vs_torch import outcomes  # noqa: E402

RNG = np.random.default_rng(11)
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
BATCH = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
SPD = M @ M.T + np.eye(3)
SPD_BATCH = BATCH @ np.swapaxes(BATCH, -1, -2) + np.eye(4)
B = RNG.standard_normal((3, 2))
VEC = RNG.standard_normal(3)

CALLS = {
    "inv": (M, lambda l, a: l.linalg.inv(a)),
    "inverse_batch": (BATCH, lambda l, a: l.inverse(a)),
    "inverse_method": (M, lambda l, a: a.inverse()),
    "solve_matrix": (M, lambda l, a: l.linalg.solve(a, l.tensor(B, dtype=a.dtype))),
    "solve_vector": (M, lambda l, a: l.linalg.solve(a, l.tensor(VEC, dtype=a.dtype))),
    "solve_right": (M, lambda l, a: l.linalg.solve(a, l.tensor(B.T, dtype=a.dtype), left=False)),
    "solve_batch": (BATCH, lambda l, a: l.linalg.solve(a, l.tensor(BATCH[:, :, :2], dtype=a.dtype))),
    "cholesky": (SPD, lambda l, a: l.linalg.cholesky(a)),
    "cholesky_upper_batch": (SPD_BATCH, lambda l, a: l.linalg.cholesky(a, upper=True)),
    "cholesky_deprecated": (SPD, lambda l, a: l.cholesky(a)),
    "solve_triangular_lower": (M, lambda l, a: l.linalg.solve_triangular(a, l.tensor(B, dtype=a.dtype), upper=False)),
    "solve_triangular_upper_right": (M, lambda l, a: l.linalg.solve_triangular(a, l.tensor(B.T, dtype=a.dtype), upper=True,
                                                                               left=False)),
    "solve_triangular_unit": (M, lambda l, a: l.linalg.solve_triangular(a, l.tensor(B, dtype=a.dtype), upper=True,
                                                                        unitriangular=True)),
    "triangular_solve": (M, lambda l, a: l.triangular_solve(l.tensor(B, dtype=a.dtype), a).solution),
    "triangular_solve_transpose": (M, lambda l, a: l.triangular_solve(l.tensor(B, dtype=a.dtype), a, upper=False,
                                                                      transpose=True).solution),
}
NAMES = {"inv": "LinalgInvExBackward0", "inverse_batch": "LinalgInvExBackward0", "solve_matrix": "LinalgSolveExBackward0",
         "solve_vector": "LinalgSolveExBackward0", "cholesky": "LinalgCholeskyExBackward0",
         "cholesky_deprecated": "CholeskyBackward0"}


@pytest.mark.parametrize("name", CALLS)
def test_values_gradients_names_as_pytorch(name):
    values, call = CALLS[name]
    observed = []
    for lib in (gt, torch):
        a = lib.tensor(values, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(lib, a)
        (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape).cos()).sum().backward()
        observed.append((out.detach().numpy(), a.grad.numpy(), type(out.grad_fn).__name__))
    (got, got_grad, got_name), (want, want_grad, want_name) = observed
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-9, atol=1e-11)
    if name in NAMES:
        assert got_name == want_name == NAMES[name]


@pytest.mark.parametrize("name", CALLS)
def test_gradcheck_float64(name):
    values, call = CALLS[name]
    a = gt.tensor(values, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name.startswith("cholesky"):  # a symmetric input, as the function assumes
            assert gradcheck(lambda t: call(gt, (t + t.mT) / 2), (a,), eps=1e-6, atol=1e-5)
        else:
            assert gradcheck(lambda t: call(gt, t), (a,), eps=1e-6, atol=1e-5)


def test_solve_gradient_for_b_and_second_order():
    a = gt.tensor(M, requires_grad=True)
    b = gt.tensor(B, requires_grad=True)
    assert gradcheck(lambda x, y: gt.linalg.solve(x, y), (a, b), eps=1e-6, atol=1e-5)
    from glasstorch.autograd import gradgradcheck

    assert gradgradcheck(lambda x: gt.linalg.inv(x), (a,), eps=1e-6, atol=1e-4)


def test_triangular_solve_returns_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = gt.triangular_solve(gt.tensor(B), gt.tensor(M))
        want = torch.triangular_solve(torch.tensor(B), torch.tensor(M))
    assert repr(got).replace("glasstorch.", "torch.") == repr(want)


ERRORS = [
    lambda l: l.linalg.inv(l.ones(2, 3)),
    lambda l: l.linalg.inv(l.zeros(3, 3)),
    lambda l: l.linalg.inv(l.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda l: l.linalg.inv(l.ones(3)),
    lambda l: l.linalg.inv(l.ones(2, 2, dtype=l.int64)),
    lambda l: l.linalg.solve(l.ones(2, 2), l.ones(3, 1)),
    lambda l: l.linalg.solve(l.ones(2, 2), l.ones(2)),
    lambda l: l.linalg.cholesky(l.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda l: l.linalg.cholesky(l.ones(2, 3)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_as_pytorch(index):
    got, want = (outcomes([lambda lib=lib: ERRORS[index](lib)])[0] for lib in (gt, torch))
    assert want != "no error"
    assert got[0] == want[0] and got[1][:40] == want[1][:40], (got, want)


def test_linalg_error_is_a_runtime_error_as_in_pytorch():
    for lib in (gt, torch):
        assert issubclass(lib.linalg.LinAlgError, RuntimeError)
        with pytest.raises(lib.linalg.LinAlgError, match="singular"):
            lib.linalg.inv(lib.zeros(2, 2))
