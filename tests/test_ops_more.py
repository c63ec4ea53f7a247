"""Ops that real code needed (issue 17): histc, histogram, det / linalg.det, dist, scatter_reduce
(sum, prod, mean, amax, amin; include_self), compared with PyTorch 2.13 (values, dtypes, grad_fn
names and saved names, gradients) and gradchecked in float64; PyTorch's errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

VALUES = np.array([1.0, 2.0, 1.0, 2.5, 7.0, -1.0, 3.0, 0.0], dtype=np.float32)


def _both(function):
    return function(gt, gt.tensor(VALUES)), function(torch, torch.tensor(VALUES))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.histc(x, bins=4, min=0, max=3),
    lambda lib, x: lib.histc(x, bins=5),
    lambda lib, x: x.histc(3, 1, 1),
    lambda lib, x: lib.histc(x.double(), bins=7, min=-1, max=2.5),
    lambda lib, x: lib.histc(lib.ones(3), bins=4),
], ids=["range", "data_range", "equal_bounds_method", "float64", "constant"])
def test_histc_as_pytorch(call):
    got, want = _both(call)
    assert got.dtype.name == str(want.dtype).split(".")[1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.histogram(x, bins=3),
    lambda lib, x: lib.histogram(x, 4, range=(0.0, 3.0), density=True),
    lambda lib, x: lib.histogram(x, bins=lib.tensor([0.0, 1.0, 5.0]), weight=lib.arange(8.0)),
    lambda lib, x: x.histogram(lib.tensor([-1.0, 0.5, 2.0, 7.0]), density=True),
    lambda lib, x: lib.histogram(x.double(), bins=2, weight=x.double() ** 2),
], ids=["bins", "range_density", "edges_weight", "edges_density_method", "float64_weight"])
def test_histogram_as_pytorch(call):
    got, want = _both(call)
    np.testing.assert_allclose(got.hist.numpy(), want.hist.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got.bin_edges.numpy(), want.bin_edges.numpy(), rtol=1e-6)
    assert got.hist.dtype.name == str(want.hist.dtype).split(".")[1]
    assert repr(got).startswith("glasstorch.return_types.histogram(\nhist=tensor(")


def test_histograms_are_not_differentiable_and_refuse_integers():
    x = gt.tensor(VALUES, requires_grad=True)
    assert gt.histc(x, bins=3).grad_fn is None and gt.histogram(x, bins=3).hist.grad_fn is None
    for lib in (gt, torch):
        with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
            lib.histc(lib.tensor([1, 2]), bins=3)


def _square(seed, shape=(3, 3)):
    return np.random.default_rng(seed).standard_normal(shape)


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])
RANK_ONE = np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0])


@pytest.mark.parametrize("name,values", [
    ("matrix", _square(0)), ("batch", _square(1, (2, 4, 4))), ("one_by_one", _square(2, (1, 1))), ("rank_one", RANK_ONE),
])
def test_det_as_pytorch(name, values):
    results = []
    for lib, det in ((gt, gt.linalg.det), (torch, torch.linalg.det), (gt, gt.det), (torch, lambda a: a.det())):
        A = lib.tensor(values, requires_grad=True)
        d = det(A)
        (d * lib.arange(1.0, d.numel() + 1, dtype=A.dtype).reshape(d.shape)).sum().backward()
        results.append((type(d.grad_fn).__name__, d.detach().numpy(), A.grad.numpy()))
    for got, want in (results[0], results[1]), (results[2], results[3]):
        assert got[0] == want[0] == "LinalgDetBackward0"
        np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-8, atol=1e-10)


def test_det_of_a_singular_matrix_has_the_cofactors_as_gradient():
    """A documented difference: for this rank-2 matrix PyTorch 2.13 returns a zero gradient (its LU
    path multiplies det = 0 by the inverse), though the cofactors are not zero; glasstorch returns
    the cofactors, which finite differences confirm."""
    A = gt.tensor(SINGULAR, requires_grad=True)
    gt.det(A).backward()
    cofactors = np.array([[np.linalg.det(np.delete(np.delete(SINGULAR, i, 0), j, 1)) * (-1) ** (i + j) for j in range(3)]
                          for i in range(3)])
    np.testing.assert_allclose(A.grad.numpy(), cofactors, atol=1e-12)
    assert np.abs(cofactors).max() > 1
    T = torch.tensor(SINGULAR, requires_grad=True)
    torch.det(T).backward()
    assert not T.grad.any()


def test_det_gradient_by_finite_differences():
    assert gradcheck(gt.det, (gt.tensor(_square(3, (2, 3, 3)), requires_grad=True),))
    assert gradcheck(gt.linalg.det, (gt.tensor(SINGULAR, requires_grad=True),))
    assert gradcheck(gt.linalg.det, (gt.tensor(RANK_ONE, requires_grad=True),))


def test_det_errors_as_pytorch():
    for lib in (gt, torch):
        with pytest.raises(RuntimeError, match="linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"):
            lib.det(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match="linalg.det: Expected a floating point or complex tensor as input. Got Long"):
            lib.det(lib.ones(2, 2, dtype=lib.long))


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, 0, math.inf, -math.inf])
def test_dist_as_pytorch(p):
    a, b = _square(4, (2, 3)), _square(5, (3,))
    b[1] = a[0, 1]  # one zero difference
    results = []
    for lib in (gt, torch):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        d = lib.dist(x, y, p) if p != 2 else x.dist(y)
        if p != 0:  # (PyTorch 2.13's DistBackward0 fails for p = 0 with "Expected a proper Tensor but got None";
            d.backward()  # glasstorch gives no gradient: the count of non-zeros does not change)
        grads = [np.zeros(t.shape) if t.grad is None else t.grad.numpy() for t in (x, y)]  # p = 0: no gradient at all
        results.append((type(d.grad_fn).__name__, d.item(), *grads))
    assert results[0][0] == results[1][0] == "DistBackward0"
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][3], results[1][3], rtol=1e-10, atol=1e-12)
    if p not in (0,) and not math.isinf(p):
        x, y = gt.tensor(a, requires_grad=True), gt.tensor(_square(6, (3,)), requires_grad=True)
        assert gradcheck(lambda x, y: gt.dist(x, y, p), (x, y))


def test_dist_saved_names_and_errors():
    for lib in (gt, torch):
        d = lib.dist(lib.ones(3, requires_grad=True), lib.zeros(3), 3)
        assert (d.grad_fn._saved_p, d.grad_fn._saved_result.item()) == (3, pytest.approx(3 ** (1 / 3)))
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 0"):
            lib.dist(lib.ones(2), lib.ones(3))


SELF = np.array([[1.0, -2.0, 3.0, 0.5], [2.0, 0.0, -1.0, 4.0], [1.5, 2.5, -0.5, 1.0]])
SRC = np.array([[0.5, 3.0, -1.0, 2.0], [1.0, -3.0, 0.0, 2.0], [4.0, 4.0, -2.0, 1.5]])
INDEX = np.array([[0, 0, 2, 3], [1, 1, 1, 0], [3, 3, 3, 3]])  # row 2 leaves places 0-2 untouched
TIES_SELF = np.array([[3.0, 1.0, 2.0]])
TIES_SRC = np.array([[3.0, 2.0, 3.0, 2.0]])
TIES_INDEX = np.array([[0, 2, 0, 2]])


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("case", ["general", "ties", "dim0"])
def test_scatter_reduce_as_pytorch(case, reduce, include_self):
    values, src, index, dim = {
        "general": (SELF, SRC, INDEX, 1), "ties": (TIES_SELF, TIES_SRC, TIES_INDEX, 1),
        "dim0": (SELF, SRC, INDEX % 3, 0)}[case]
    results = []
    for lib in (gt, torch):
        x, s = lib.tensor(values, requires_grad=True), lib.tensor(src, requires_grad=True)
        out = x.scatter_reduce(dim, lib.tensor(index), s, reduce, include_self=include_self)
        (out * lib.tensor(_square(7, out.shape))).sum().backward()
        node = out.grad_fn
        results.append((type(node).__name__, node._saved_reduce, node._saved_include_self, node._saved_dim,
                        out.detach().numpy(), x.grad.numpy(), s.grad.numpy()))
    assert results[0][:4] == results[1][:4]
    for got, want in zip(results[0][4:], results[1][4:]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_gradient_by_finite_differences(reduce):
    x = gt.tensor(SELF + 0.1, requires_grad=True)  # no ties (amax/amin), a zero in src (prod)
    s = gt.tensor(SRC * 1.01, requires_grad=True)
    for include_self in (True, False):
        assert gradcheck(lambda x, s: gt.scatter_reduce(x, 1, gt.tensor(INDEX), s, reduce, include_self=include_self), (x, s))


def test_scatter_reduce_in_place_and_integers_and_errors():
    for lib in (gt, torch):
        x = lib.tensor([[1, 2, 3, 4]])
        x.scatter_reduce_(1, lib.tensor([[0, 0, 3]]), lib.tensor([[4, 6, 1]]), "mean")
        assert x.tolist() == [[3, 2, 3, 2]]
        with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got foo"):
            lib.zeros(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1), "foo")
        with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
            lib.zeros(3).scatter_reduce(0, lib.tensor([5]), lib.ones(1), "sum")
