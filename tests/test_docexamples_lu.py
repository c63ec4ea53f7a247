"""LU factorisation (linalg.lu_factor, torch.lu, lu_unpack, linalg.lu_solve, torch.lu_solve),
added for PyTorch's docstring examples (issue 14): values, pivots, gradients against PyTorch 2.13,
gradcheck in float64, reprs and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from test_nn_vs_torch import outcomes  # noqa: E402

RNG = np.random.default_rng(5)
A = RNG.standard_normal((2, 4, 4))
B = RNG.standard_normal((2, 4, 3))
WIDE = RNG.standard_normal((3, 5))

CALLS = {
    "lu_factor": lambda l, a, b: list(l.linalg.lu_factor(a)),
    "lu_unpack": lambda l, a, b: list(l.lu_unpack(*l.linalg.lu_factor(a))),
    "linalg_lu": lambda l, a, b: list(l.linalg.lu(a)),
    "lu_solve": lambda l, a, b: l.linalg.lu_solve(*l.linalg.lu_factor(a), b),
    "lu_solve_adjoint": lambda l, a, b: l.linalg.lu_solve(*l.linalg.lu_factor(a), b, adjoint=True),
    "lu_solve_right": lambda l, a, b: l.linalg.lu_solve(*l.linalg.lu_factor(a), b.mT, left=False),
    "lu_solve_right_adjoint": lambda l, a, b: l.linalg.lu_solve(*l.linalg.lu_factor(a), b.mT, left=False, adjoint=True),
    "torch_lu_and_lu_solve": lambda l, a, b: l.lu_solve(b, *l.lu(a)),
}


@pytest.mark.parametrize("name", CALLS)
def test_values_and_gradients_as_pytorch(name):
    results = []
    for lib in (gt, torch):
        a, b = lib.tensor(A, requires_grad=True), lib.tensor(B, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = CALLS[name](lib, a, b)
        outs = outs if isinstance(outs, list) else [outs]
        total = sum((o * lib.arange(o.numel(), dtype=o.dtype).reshape(o.shape).cos()).sum() for o in outs if o.is_floating_point())
        total.backward()
        results.append(([o.detach().numpy() for o in outs], a.grad.numpy(), None if b.grad is None else b.grad.numpy(),
                        [str(o.dtype).split(".")[-1] for o in outs]))
    (got, got_ga, got_gb, got_dtypes), (want, want_ga, want_gb, want_dtypes) = results
    assert got_dtypes == want_dtypes
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(got_ga, want_ga, rtol=1e-8, atol=1e-10)
    if want_gb is not None or got_gb is not None:
        np.testing.assert_allclose(got_gb, want_gb, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", CALLS)
def test_gradcheck_float64(name):
    a, b = gt.tensor(A[:1], requires_grad=True), gt.tensor(B[:1], requires_grad=True)

    def outputs(x, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = CALLS[name](gt, x, y)
        return tuple(r for r in result if r.is_floating_point()) if isinstance(result, list) else result
    assert gradcheck(outputs, (a, b), eps=1e-6, atol=1e-5)


def test_wide_and_tall_matrices_and_reprs_as_pytorch():
    for values in (WIDE, WIDE.T.copy()):
        got, want = gt.linalg.lu_factor(gt.tensor(values)), torch.linalg.lu_factor(torch.tensor(values))
        np.testing.assert_allclose(got.LU.numpy(), want.LU.numpy(), rtol=1e-10, atol=1e-12)
        assert got.pivots.tolist() == want.pivots.tolist()
        for g, w in zip(gt.lu_unpack(*got), torch.lu_unpack(*want)):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)
    small = [[2.0, 1.0], [4.0, 3.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in (lambda l: l.linalg.lu_factor(l.tensor(small)), lambda l: l.lu_unpack(*l.linalg.lu_factor(l.tensor(small))),
                     lambda l: l.lu(l.zeros(2, 2), get_infos=True), lambda l: l.lu(l.tensor(small)),
                     lambda l: l.linalg.lu(l.tensor(small))):
            assert repr(call(gt)).replace("glasstorch.", "torch.") == repr(call(torch))


ERRORS = [
    lambda l: l.linalg.lu_factor(l.zeros(2, 2)),
    lambda l: l.linalg.lu_factor(l.ones(3)),
    lambda l: l.linalg.lu_factor(l.ones(2, 2, dtype=l.int64)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_as_pytorch(index):
    got, want = (outcomes([lambda lib=lib: ERRORS[index](lib)])[0] for lib in (gt, torch))
    assert want != "no error"
    assert got[0] == want[0] and got[1][:45] == want[1][:45], (got, want)
