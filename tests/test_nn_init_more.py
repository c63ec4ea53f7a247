"""nn.init.orthogonal_, trunc_normal_, sparse_ and Module.share_memory / dump_patches, against
PyTorch 2.13. Random streams differ between the libraries, so the values are checked by their
defining property (orthogonality, bounds and moments, zeros per column) and the errors and
warnings compared with PyTorch's."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import glasstorch as gt
from test_nn_vs_torch import same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (6, 2, 2)])
@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_orthogonal(shape, gain):
    gt.manual_seed(0)
    w = gt.empty(*shape, dtype=gt.float64)
    assert gt.nn.init.orthogonal_(w, gain=gain) is w
    m = w.numpy().reshape(shape[0], -1)
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-12)


def test_orthogonal_is_uniform_over_signs():
    """Fixing signs by R's diagonal makes Q Haar-distributed: no sign is preferred."""
    gt.manual_seed(1)
    diagonals = [gt.nn.init.orthogonal_(gt.empty(3, 3)).numpy().diagonal() for _ in range(400)]
    assert abs(np.mean(np.array(diagonals) > 0) - 0.5) < 0.06


@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0), (1.0, 0.1, 0.9, 1.5)])
def test_trunc_normal_moments_match_torch(mean, std, a, b):
    gt.manual_seed(0)
    torch.manual_seed(0)
    ours = gt.nn.init.trunc_normal_(gt.empty(400, 500, dtype=gt.float64), mean, std, a, b).numpy()
    theirs = torch.nn.init.trunc_normal_(torch.empty(400, 500, dtype=torch.float64), mean, std, a, b).numpy()
    assert a <= ours.min() and ours.max() <= b
    assert abs(ours.mean() - theirs.mean()) < 5 * theirs.std() / math.sqrt(ours.size)
    assert abs(ours.std() - theirs.std()) < 0.01 * theirs.std()
    # the quartiles too: the shape of the distribution, not only its moments
    np.testing.assert_allclose(np.quantile(ours, [0.25, 0.5, 0.75]), np.quantile(theirs, [0.25, 0.5, 0.75]),
                               atol=0.02 * std)


def test_erfinv_inverts_erf():
    from glasstorch.nn.init import _erfinv

    y = np.linspace(-0.9999999, 0.9999999, 20001)
    x = _erfinv(y)
    np.testing.assert_allclose([math.erf(v) for v in x], y, atol=1e-14)


def test_sparse():
    gt.manual_seed(0)
    w = gt.nn.init.sparse_(gt.empty(10, 300), sparsity=0.25, std=0.5)
    zeros = (w.numpy() == 0)
    assert (zeros.sum(0) == 3).all()  # ceil(0.25 * 10) per column
    assert abs(zeros.mean(1) - 0.3).max() < 0.12  # spread over the rows at random
    assert abs(w.numpy()[~zeros].std() - 0.5) < 0.03


def test_errors_and_warnings_as_torch():
    def program(lib):
        init = lib.nn.init
        results = []
        for call in (lambda: init.orthogonal_(lib.empty(3)), lambda: init.sparse_(lib.empty(2, 2, 2), 0.1),
                     lambda: init.orthogonal_(lib.empty(0, 3)).shape):
            try:
                results.append(call())
            except ValueError as error:
                results.append(str(error))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            init.trunc_normal_(lib.empty(3), mean=10.0)
        results.append([str(w.message) for w in caught])
        return results

    same_in_both(program)


def test_share_memory_and_dump_patches():
    def program(lib):
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        weight = model[0].weight
        shared = model.share_memory()
        return (shared is model, model[0].weight is weight, lib.nn.Module.dump_patches, model.dump_patches,
                lib.ones(2).share_memory_().tolist())

    same_in_both(program)
