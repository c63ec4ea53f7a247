"""Pooling (MaxPool1d/2d/3d, AvgPool2d, AdaptiveAvgPool2d), their functional twins, and Dropout2d:
gradients by finite differences in float64, and values, indices, gradients, graphs, output
shapes, reprs and errors against real PyTorch."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import glasstorch
from glasstorch.autograd import gradcheck, gradgradcheck
from glasstorch.nn import functional as F
from glasstorch.nn.modules.dropout import Dropout2d
from glasstorch.nn.modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool1d, MaxPool2d, MaxPool3d
from glasstorch.testing import real_torch

TORCH = real_torch()
_NO_TORCH = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed: comparisons with real PyTorch are "
                                                      "skipped (pip install torch==2.13.0)")


def needs_torch(test):
    """Marks a comparison with real PyTorch: ``-m torch`` selects it, and it skips without PyTorch."""
    return pytest.mark.torch(_NO_TORCH(test))


def distinct(shape, seed=0, dtype=np.float64) -> np.ndarray:
    """Values without ties (a shuffled range, 1/8 apart): a maximum is never shared, so the
    gradient of max pooling is well defined and finite differences see it."""
    n = int(np.prod(shape))
    return ((np.random.default_rng(seed).permutation(n) - n / 2) / 8).reshape(shape).astype(dtype)


def gt(array, requires_grad=False):
    return glasstorch.tensor(array, requires_grad=requires_grad)


def th(array, requires_grad=False):
    return TORCH.tensor(array, requires_grad=requires_grad)


def torch_f():
    return TORCH.nn.functional


MAX2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=2, stride=1, dilation=2),
    dict(kernel_size=(3, 2), stride=2, padding=(1, 0), dilation=(1, 2), ceil_mode=True),
    dict(kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,)),
]
MAX1D = [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1), dict(kernel_size=2, stride=2, dilation=3),
         dict(kernel_size=4, stride=3, padding=2, ceil_mode=True), dict(kernel_size=[3], stride=None, padding=[0])]
MAX3D = [dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=1, padding=(1, 1, 0)),
         dict(kernel_size=2, stride=(1, 2, 2), dilation=(2, 1, 1), ceil_mode=True),
         dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)]
AVG2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), divisor_override=5),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 0), ceil_mode=True, count_include_pad=False),
    dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, divisor_override=-3),
]
ADAPTIVE = [3, (2, 4), (None, 3), (5, None), (5, 7), (4, 3), (7, 9), 1, (1, 1), (1, 2)]


# --- gradients by finite differences (float64) ----------------------------------------------
@pytest.mark.parametrize("options", MAX2D)
@pytest.mark.parametrize("shape", [(2, 2, 6, 7), (2, 5, 6)])
def test_max_pool2d_gradcheck(options, shape):
    x = gt(distinct(shape), requires_grad=True)
    assert gradcheck(lambda t: F.max_pool2d(t, **options), (x,))


@pytest.mark.parametrize("options", MAX1D)
@pytest.mark.parametrize("shape", [(2, 3, 9), (3, 8)])
def test_max_pool1d_gradcheck(options, shape):
    x = gt(distinct(shape), requires_grad=True)
    assert gradcheck(lambda t: F.max_pool1d(t, **options), (x,))


@pytest.mark.parametrize("options", MAX3D)
def test_max_pool3d_gradcheck(options):
    x = gt(distinct((1, 2, 4, 5, 4)), requires_grad=True)
    assert gradcheck(lambda t: F.max_pool3d(t, **options), (x,))


@pytest.mark.parametrize("options", AVG2D)
@pytest.mark.parametrize("shape", [(2, 2, 5, 7), (2, 6, 5)])
def test_avg_pool2d_gradcheck(options, shape):
    x = gt(np.random.default_rng(1).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: F.avg_pool2d(t, **options), (x,))


@pytest.mark.parametrize("output_size", ADAPTIVE)
@pytest.mark.parametrize("shape", [(2, 2, 5, 7), (3, 5, 7)])
def test_adaptive_avg_pool2d_gradcheck(output_size, shape):
    x = gt(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, output_size), (x,))


@pytest.mark.parametrize("pool", [
    lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True),
    lambda t: F.max_pool1d(t[0], 2, 1),
    lambda t: F.max_pool3d(t.unsqueeze(0), 2, 1),
    lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda t: F.adaptive_avg_pool2d(t, (2, 3)),
], ids=["max2d", "max1d", "max3d", "avg2d", "adaptive"])
def test_second_derivatives(pool):
    """With create_graph=True the backward is recorded too (scatter <-> gather, pool <-> spread)."""
    x = gt(distinct((1, 2, 5, 6)), requires_grad=True)
    assert gradgradcheck(lambda t: pool(t) ** 2, (x,))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 9), k=st.integers(1, 4), s=st.integers(1, 3), p=st.integers(0, 2), d=st.integers(1, 3),
       ceil_mode=st.booleans())
def test_max_pool1d_gradcheck_generated(n, k, s, p, d, ceil_mode):
    """Generated 1-D geometries: whatever the window arithmetic, the gradient matches."""
    x = gt(distinct((2, n), seed=n), requires_grad=True)
    try:
        out = F.max_pool1d(x, k, s, p, d, ceil_mode)
    except RuntimeError:
        return  # an invalid geometry (its message is compared with PyTorch's below)
    if not np.isfinite(out.detach().numpy()).all():
        return  # a window wholly in the padding (dilation can skip the input): -inf, no derivative
    assert gradcheck(lambda t: F.max_pool1d(t, k, s, p, d, ceil_mode) * 1.5, (x,))


# --- against PyTorch: values, indices, gradients ----------------------------------------------
def _compare_pool(gl_fn, th_fn, x, dtype=np.float32, atol=1e-6):
    a, b = gt(x.astype(dtype), requires_grad=True), th(x.astype(dtype), requires_grad=True)
    out_a, out_b = gl_fn(a), th_fn(b)
    if isinstance(out_b, tuple):
        np.testing.assert_array_equal(out_a[1].numpy(), out_b[1].numpy())
        assert out_a[1].dtype.name == "int64"
        out_a, out_b = out_a[0], out_b[0]
    assert tuple(out_a.shape) == tuple(out_b.shape)
    np.testing.assert_allclose(out_a.detach().numpy(), out_b.detach().numpy(), rtol=1e-6, atol=atol)
    grad = np.random.default_rng(5).standard_normal(tuple(out_b.shape)).astype(dtype)
    try:
        out_b.backward(th(grad))
    except RuntimeError as error:  # PyTorch refuses some backwards (an empty adaptive output)
        with pytest.raises(RuntimeError) as caught:
            out_a.backward(gt(grad))
        assert str(caught.value) == str(error)
        return out_a, out_b
    out_a.backward(gt(grad))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=atol)
    return out_a, out_b


@needs_torch
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("options", MAX2D)
@pytest.mark.parametrize("shape", [(3, 4, 9, 8), (4, 7, 10)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool2d_matches_torch(options, shape, dtype, return_indices):
    _compare_pool(lambda t: F.max_pool2d(t, **options, return_indices=return_indices),
                  lambda t: torch_f().max_pool2d(t, **options, return_indices=return_indices),
                  distinct(shape, seed=3), dtype)


@needs_torch
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("options", MAX1D)
@pytest.mark.parametrize("shape", [(3, 4, 11), (4, 10)])
def test_max_pool1d_matches_torch(options, shape, return_indices):
    _compare_pool(lambda t: F.max_pool1d(t, **options, return_indices=return_indices),
                  lambda t: torch_f().max_pool1d(t, **options, return_indices=return_indices),
                  distinct(shape, seed=4))


@needs_torch
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("options", MAX3D)
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 6, 5, 4)])
def test_max_pool3d_matches_torch(options, shape, return_indices):
    _compare_pool(lambda t: F.max_pool3d(t, **options, return_indices=return_indices),
                  lambda t: torch_f().max_pool3d(t, **options, return_indices=return_indices),
                  distinct(shape, seed=5))


@needs_torch
@pytest.mark.parametrize("options", AVG2D)
@pytest.mark.parametrize("shape", [(3, 4, 9, 8), (4, 7, 10)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool2d_matches_torch(options, shape, dtype):
    x = np.random.default_rng(6).standard_normal(shape)
    _compare_pool(lambda t: F.avg_pool2d(t, **options), lambda t: torch_f().avg_pool2d(t, **options), x, dtype)


@needs_torch
@pytest.mark.parametrize("output_size", ADAPTIVE + [(0, 3), (14, 2)])
@pytest.mark.parametrize("shape", [(3, 4, 9, 8), (4, 7, 10)])
def test_adaptive_avg_pool2d_matches_torch(output_size, shape):
    x = np.random.default_rng(7).standard_normal(shape)
    _compare_pool(lambda t: F.adaptive_avg_pool2d(t, output_size),
                  lambda t: torch_f().adaptive_avg_pool2d(t, output_size), x)


@needs_torch
def test_ties_nan_and_minus_inf_pick_pytorchs_index():
    """Ties: the first maximum. NaN: always wins (the last NaN of a window). A window of -inf
    (or one wholly in the padding): PyTorch's starting index, its first position in the input."""
    nan, inf = float("nan"), float("inf")
    rows = np.array([[3, 3, 1, 3, nan, 2, nan, 0, -inf, -inf, -inf, 5, 5]], dtype=np.float32)
    cases = [((1, 1, 1, 13), dict(kernel_size=(1, 2), stride=1, padding=(0, 1))),
             ((1, 1, 1, 13), dict(kernel_size=(1, 3), stride=(1, 2), padding=(0, 1), ceil_mode=True)),
             ((1, 1, 1, 13), dict(kernel_size=(1, 2), stride=1, padding=(0, 1), dilation=(1, 3))),
             ((1, 1, 1, 13), dict(kernel_size=(1, 4), stride=3))]
    for shape, options in cases:
        a, b = F.max_pool2d(gt(rows.reshape(shape)), **options, return_indices=True), \
            torch_f().max_pool2d(th(rows.reshape(shape)), **options, return_indices=True)
        np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
        np.testing.assert_array_equal(a[1].numpy(), b[1].numpy(), err_msg=str(options))
    lonely = np.array([[[[1.0, 2.0]]]], dtype=np.float32)  # width 2, dilation 3: a window of padding only
    options = dict(kernel_size=(1, 2), stride=1, padding=(0, 1), dilation=(1, 3), return_indices=True)
    a, b = F.max_pool2d(gt(lonely), **options), torch_f().max_pool2d(th(lonely), **options)
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
    x = gt(lonely, requires_grad=True)
    F.max_pool2d(x, **options)[0].sum().backward()  # its index points past the plane: no gradient sent
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros_like(lonely))


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"])
def test_dtypes_match_torch(dtype):
    x = (np.random.default_rng(8).standard_normal((2, 3, 6, 6)) * 5)
    cases = {"max1d": lambda f, t: f.max_pool1d(t[0], 2),
             "max1d_indices": lambda f, t: f.max_pool1d(t[0], 2, return_indices=True)[0],
             "max2d": lambda f, t: f.max_pool2d(t, 3, 2, 1),
             "max3d": lambda f, t: f.max_pool3d(t.unsqueeze(0), 2),
             "avg2d": lambda f, t: f.avg_pool2d(t, 3, 2, 1, ceil_mode=True),
             "adaptive": lambda f, t: f.adaptive_avg_pool2d(t, (4, 5))}
    a = gt(x).to(getattr(glasstorch, dtype))
    b = th(x).to(getattr(TORCH, dtype))
    for name, case in cases.items():
        try:
            expected = case(torch_f(), b)
        except Exception as error:  # noqa: BLE001 - the type and message are what we compare
            with pytest.raises(type(error)) as caught:
                case(F, a)
            assert str(caught.value) == str(error), name
            continue
        got = case(F, a)
        assert got.dtype.name == str(expected.dtype).replace("torch.", ""), name
        np.testing.assert_allclose(got.float().numpy(), expected.float().numpy(), rtol=1e-2, atol=1e-2,
                                   err_msg=name)


@needs_torch
def test_integer_average_truncates_toward_zero():
    x = np.array([[[[-7, -3, 5, -9, 4, 8, -1]]]])
    for options in (dict(kernel_size=(1, 2)), dict(kernel_size=(1, 3), stride=1, padding=(0, 1)),
                    dict(kernel_size=(1, 2), divisor_override=-3), dict(kernel_size=(1, 3), stride=2, ceil_mode=True)):
        np.testing.assert_array_equal(F.avg_pool2d(gt(x), **options).numpy(),
                                      torch_f().avg_pool2d(th(x), **options).numpy())


# --- output sizes with ceil_mode, and the errors of bad geometry ------------------------------
def _outcome(call):
    try:
        return tuple(call().shape)
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error)


@needs_torch
def test_output_sizes_and_errors_over_a_grid():
    """PyTorch's pooling_output_shape (ceil_mode keeps the last window starting inside the input
    or its left padding) and its checks, over a grid of sizes and windows."""
    seen = set()
    for n, k, s, p, d, ceil_mode in itertools.product(range(1, 10), range(1, 5), range(1, 4), range(0, 3),
                                                      range(1, 4), (False, True)):
        if p > k // 2 + 1 or (k == 1 and d > 1):
            continue  # further from the boundary of the padding check; dilation moves nothing in a 1-wide window
        options = dict(kernel_size=(1, k), stride=(1, s), padding=(0, p), dilation=(1, d), ceil_mode=ceil_mode)
        x = np.zeros((1, 2, 1, n), dtype=np.float32)
        expected = _outcome(lambda: torch_f().max_pool2d(th(x), **options))
        assert _outcome(lambda: F.max_pool2d(gt(x), **options)) == expected, options
        seen.add(expected if isinstance(expected[0], str) else "ok")
        if d == 1:
            del options["dilation"]
            expected = _outcome(lambda: torch_f().avg_pool2d(th(x), **options))
            assert _outcome(lambda: F.avg_pool2d(gt(x), **options)) == expected, options
    assert len(seen) >= 3  # the grid reaches the errors as well as valid sizes


@needs_torch
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 12), k=st.integers(1, 5), s=st.integers(1, 4), p=st.integers(0, 3), d=st.integers(1, 3),
       ceil_mode=st.booleans(), indices=st.booleans())
def test_max_pool1d_sizes_generated(n, k, s, p, d, ceil_mode, indices):
    x = np.zeros((2, 3, n), dtype=np.float32)
    args = (k, s, p, d, ceil_mode, indices)
    assert _outcome(lambda: _first(F.max_pool1d(gt(x), *args))) == \
        _outcome(lambda: _first(torch_f().max_pool1d(th(x), *args)))


def _first(result):
    return result[0] if isinstance(result, tuple) else result


BAD_MAX = [dict(kernel_size=3, padding=2), dict(kernel_size=2, padding=2, dilation=3), dict(kernel_size=0),
           dict(kernel_size=2, stride=0), dict(kernel_size=2, dilation=0), dict(kernel_size=2, padding=-1),
           dict(kernel_size=9), dict(kernel_size=(2, 2, 2, 2)), dict(kernel_size=2, stride=(1, 1, 1, 1)),
           dict(kernel_size=2, padding=(1, 1, 1, 1)), dict(kernel_size=2, dilation=(1, 1, 1, 1)), dict(kernel_size=()),
           dict(kernel_size=2.0), dict(kernel_size=2, padding=1.5), dict(kernel_size=(2, 2.0)),
           dict(kernel_size=True), dict(kernel_size=2, ceil_mode=1), dict(kernel_size=(2, 2)),
           dict(kernel_size=(0, 2)), dict(kernel_size=(2, -2)), dict(kernel_size=(2, 2), stride=(1, -1)),
           dict(kernel_size=(2, 2), dilation=(1, 0)), dict(kernel_size=(2, 2), dilation=(-1, 1)),
           dict(kernel_size=(3, 1), padding=(1, 1)), dict(kernel_size=(1, 3), padding=(1, 1)),
           dict(kernel_size=(2, 2), padding=(1, 1), dilation=(3, 1)), dict(kernel_size=(8, 2)),
           dict(kernel_size=(2, 2, 2), padding=(2, 0, 0)), dict(kernel_size=(2, 2, 2), stride=(1, 0, 1)),
           dict(kernel_size=(0, 2, 2), stride=1), dict(kernel_size=(2, 2, 2), stride=(1, -1, 1)),
           dict(kernel_size=(3, 3, 3), padding=(0, 1, 2)), dict(kernel_size=(8, 2, 2)), dict(kernel_size=(2, -1),
                                                                                              stride=1)]


@needs_torch
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("return_indices", [False, True])
def test_max_pool_errors_match_torch(dims, return_indices):
    shape = (2, 3) + (7,) * dims
    name = f"max_pool{dims}d"
    x = np.zeros(shape, dtype=np.float32)
    inputs = [(x, options) for options in BAD_MAX]
    inputs += [(x[0, 0], dict(kernel_size=2)), (x[None], dict(kernel_size=2)), (x[:, :0], dict(kernel_size=2)),
               (x[:0], dict(kernel_size=2)), (x[0, :0], dict(kernel_size=2))]
    for value, options in inputs:
        expected = _outcome(lambda: _first(getattr(torch_f(), name)(th(value), **options,
                                                                    return_indices=return_indices)))
        got = _outcome(lambda: _first(getattr(F, name)(gt(value), **options, return_indices=return_indices)))
        assert got == expected, (shape, value.shape, options)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        getattr(F, name)([1.0, 2.0], 2, return_indices=return_indices)


BAD_AVG = [dict(kernel_size=3, padding=2), dict(kernel_size=2, divisor_override=0), dict(kernel_size=0),
           dict(kernel_size=2, stride=0), dict(kernel_size=(2, 2, 2)), dict(kernel_size=2, stride=(1, 1, 1)),
           dict(kernel_size=2, padding=(1, 1, 1)), dict(kernel_size=9), dict(kernel_size=2, padding=-1),
           dict(kernel_size=2, stride=-1), dict(kernel_size=(2, -1)), dict(kernel_size=2, divisor_override=2.5),
           dict(kernel_size=2, ceil_mode=1), dict(kernel_size=2, count_include_pad=0),
           dict(kernel_size=(1, 3), padding=(1, 1)), dict(kernel_size=2.5), dict(kernel_size=(2, 2.5))]


@needs_torch
def test_avg_pool2d_errors_match_torch():
    x = np.zeros((2, 3, 7, 7), dtype=np.float32)
    inputs = [(x, options) for options in BAD_AVG]
    inputs += [(value, dict(kernel_size=2)) for value in (x[0, 0], x[None], x[:, :0], x[0, 0, 0], x[:0])]
    for value, options in inputs:
        rest = {key: option for key, option in options.items() if key != "kernel_size"}
        # the kernel size positionally, the rest by keyword, as usual (PyTorch's messages name the
        # position of an argument given positionally)
        expected = _outcome(lambda: torch_f().avg_pool2d(th(value), options["kernel_size"], **rest))
        got = _outcome(lambda: F.avg_pool2d(gt(value), options["kernel_size"], **rest))
        assert got == expected, (value.shape, options)


@needs_torch
def test_adaptive_avg_pool2d_errors_match_torch():
    x = np.zeros((2, 3, 7, 7), dtype=np.float32)
    sizes = [(-1, 3), (3, -2), (1, 2, 3), (3,), None, 2.5, (2, 2.5)]
    inputs = [(x, size) for size in sizes]
    inputs += [(x[0, 0], 3), (x[0, 0], 1), (x[None], 3), (x[None], 1), (x[:, :, :0], 3), (x[:, :, :, :0], 2),
               (x[:, :0], 3), (x[:0], 3), (x[0, 0, 0], (None, 2)), (x.astype(np.int64), 1),
               (x.astype(np.int64), 2)]
    for value, size in inputs:
        expected = _outcome(lambda: torch_f().adaptive_avg_pool2d(th(value), size))
        assert _outcome(lambda: F.adaptive_avg_pool2d(gt(value), size)) == expected, (value.shape, size)


# --- against PyTorch: graphs --------------------------------------------------------------------
def _chain(tensor):
    """The grad_fn names from the output down the first edges, and the edges' shape (None or not)."""
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append((type(node).__name__, tuple(n is None for n, _ in node.next_functions)))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


GRAPHS = {
    "max1d": lambda f, t: f.max_pool1d(t[0], 2),
    "max1d_indices": lambda f, t: f.max_pool1d(t[0, 0], 3, 1, 1, return_indices=True)[0],
    "max2d": lambda f, t: f.max_pool2d(t, 2),
    "max2d_unbatched": lambda f, t: f.max_pool2d(t[0], 2, return_indices=True)[0],
    "max3d": lambda f, t: f.max_pool3d(t.unsqueeze(0), 2),
    "avg2d": lambda f, t: f.avg_pool2d(t, 3, 2, 1),
    "adaptive": lambda f, t: f.adaptive_avg_pool2d(t, 3),
    "adaptive_mean": lambda f, t: f.adaptive_avg_pool2d(t, 1),
    "adaptive_unbatched": lambda f, t: f.adaptive_avg_pool2d(t[0], (None, 2)),
    "dropout2d": lambda f, t: f.dropout2d(t, 0.3),
    "dropout2d_p1": lambda f, t: f.dropout2d(t, 1.0),
}


@needs_torch
@pytest.mark.parametrize("name", list(GRAPHS))
def test_grad_fn_graphs_match_torch(name):
    x = distinct((2, 3, 6, 6), seed=9, dtype=np.float32)
    a, b = gt(x, requires_grad=True), th(x, requires_grad=True)
    assert _chain(GRAPHS[name](F, a)) == _chain(GRAPHS[name](torch_f(), b))


@needs_torch
@pytest.mark.parametrize("name", ["max1d", "max2d", "max3d", "avg2d", "adaptive", "adaptive_mean"])
def test_double_backward_graphs_match_torch(name):
    x = distinct((2, 3, 6, 6), seed=10, dtype=np.float32)
    chains, grads = [], []
    for lib, f, make in ((glasstorch, F, gt), (TORCH, torch_f(), th)):
        t = make(x, requires_grad=True)
        out = GRAPHS[name](f, t)
        weight = make(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32))
        (g,) = lib.autograd.grad((out * weight).sum(), t, create_graph=True)
        chains.append((g.requires_grad, _chain(g)))
        if g.requires_grad:  # the second derivative: 0 for these piecewise-linear ops, but it must flow
            (g * g).sum().backward()
        grads.append(None if t.grad is None else t.grad.numpy())
    assert chains[0] == chains[1]
    assert (grads[0] is None) == (grads[1] is None)
    if grads[1] is not None:
        np.testing.assert_allclose(grads[0], grads[1], atol=1e-6)


@needs_torch
def test_saved_attributes_match_torch():
    x = distinct((1, 2, 6, 6), dtype=np.float32)
    a, b = gt(x, requires_grad=True), th(x, requires_grad=True)
    cases = [lambda f, t: f.max_pool2d(t, 3, padding=1, ceil_mode=True),
             lambda f, t: f.max_pool2d(t, (3,), stride=(1,), dilation=2),
             lambda f, t: f.max_pool1d(t[0], 2).grad_fn.next_functions[0][0],
             lambda f, t: f.max_pool3d(t.unsqueeze(0), 2, (1, 2, 2)),
             lambda f, t: f.avg_pool2d(t, 3, padding=1, divisor_override=2, count_include_pad=False)]
    names = ["kernel_size", "stride", "padding", "dilation", "ceil_mode", "count_include_pad", "divisor_override"]
    for case in cases:
        node_a, node_b = case(F, a), case(torch_f(), b)
        node_a, node_b = getattr(node_a, "grad_fn", node_a), getattr(node_b, "grad_fn", node_b)
        for name in names:
            if hasattr(node_b, "_saved_" + name):
                assert getattr(node_a, "_saved_" + name) == getattr(node_b, "_saved_" + name), name
        assert tuple(node_a._saved_self.shape) == tuple(node_b._saved_self.shape)
    out, indices = F.max_pool2d(a, 2, return_indices=True)
    np.testing.assert_array_equal(out.grad_fn._saved_result1.numpy(), indices.numpy())


def test_changing_the_indices_in_place_is_caught():
    x = gt(distinct((1, 1, 4, 4)), requires_grad=True)
    out, indices = F.max_pool2d(x, 2, return_indices=True)
    indices.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# --- modules ---------------------------------------------------------------------------------
MODULES = [
    ("MaxPool1d", (3,), {}), ("MaxPool1d", (2, 1, 1, 2, True, True), {}),
    ("MaxPool2d", (2,), {}), ("MaxPool2d", ((3, 2),), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    ("MaxPool2d", (3,), dict(stride=2, ceil_mode=True, return_indices=True)),
    ("MaxPool3d", (2,), dict(stride=(1, 2, 2))), ("MaxPool3d", ((2, 3, 3),), dict(padding=1, ceil_mode=True)),
    ("AvgPool2d", (2,), {}), ("AvgPool2d", (3, 2, 1, True, False, 4), {}), ("AvgPool2d", ((3, 2),), dict(stride=1)),
    ("AdaptiveAvgPool2d", (3,), {}), ("AdaptiveAvgPool2d", ((None, 4),), {}), ("AdaptiveAvgPool2d", ((5, 7),), {}),
    ("Dropout2d", (), {}), ("Dropout2d", (0.2, True), {}),
]
OURS = {"MaxPool1d": MaxPool1d, "MaxPool2d": MaxPool2d, "MaxPool3d": MaxPool3d, "AvgPool2d": AvgPool2d,
        "AdaptiveAvgPool2d": AdaptiveAvgPool2d, "Dropout2d": Dropout2d}


@needs_torch
@pytest.mark.parametrize("name, args, kwargs", MODULES)
def test_module_repr_and_forward_match_torch(name, args, kwargs):
    ours, theirs = OURS[name](*args, **kwargs), getattr(TORCH.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs).replace("torch.", "glasstorch.")
    assert ours.__dict__.keys() >= {"training"} and list(ours.parameters()) == []
    if name == "Dropout2d":
        ours.eval(), theirs.eval()
    dims = {"MaxPool1d": 1, "MaxPool3d": 3}.get(name, 2)
    x = distinct((2, 3) + (7,) * dims, seed=11, dtype=np.float32)
    got, expected = ours(gt(x)), theirs(th(x))
    if isinstance(expected, tuple):
        np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())
        got, expected = got[0], expected[0]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_module_attributes_are_stored_as_given():
    pool = MaxPool2d((3, 2), padding=1)
    assert (pool.kernel_size, pool.stride, pool.padding, pool.dilation) == ((3, 2), (3, 2), 1, 1)
    assert (pool.return_indices, pool.ceil_mode) == (False, False)
    avg = AvgPool2d(3, stride=1, divisor_override=2)
    assert (avg.kernel_size, avg.stride, avg.count_include_pad, avg.divisor_override) == (3, 1, True, 2)
    assert AdaptiveAvgPool2d((None, 2)).output_size == (None, 2)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        Dropout2d(1.5)


# --- dropout2d ----------------------------------------------------------------------------------
def test_dropout2d_zeroes_whole_channels():
    glasstorch.manual_seed(0)
    x = gt(np.ones((40, 50, 3, 4), dtype=np.float32), requires_grad=True)
    out = F.dropout2d(x, 0.3)
    values = out.detach().numpy()
    per_channel = values.reshape(40, 50, -1)
    assert np.all(per_channel == per_channel[..., :1])  # a channel is kept or dropped as a whole
    np.testing.assert_allclose(np.unique(values), [0.0, np.float32(1) / np.float32(0.7)])
    assert abs((per_channel[..., 0] == 0).mean() - 0.3) < 0.04
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient is the mask
    assert type(out.grad_fn).__name__ == "MulBackward0"


def test_dropout2d_identity_cases_and_inplace():
    x = gt(np.ones((2, 3, 4, 4), dtype=np.float32), requires_grad=True)
    assert F.dropout2d(x, training=False) is x
    assert F.dropout2d(x, 0.0) is x
    assert F.dropout2d(gt(np.ones((0, 3, 4, 4))), 0.5).shape == (0, 3, 4, 4)
    module = Dropout2d(0.5).eval()
    assert module(x) is x
    np.testing.assert_array_equal(F.dropout2d(x, 1.0).detach().numpy(), np.zeros((2, 3, 4, 4)))
    glasstorch.manual_seed(1)
    y = x.clone()
    z = F.dropout2d(y, 0.5, inplace=True)
    assert z is y and type(z.grad_fn).__name__ == "MulBackward0"
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.dropout2d(x, -0.1)


@needs_torch
@pytest.mark.parametrize("shape", [(5,), (2, 5), (2, 3, 5), (2, 3, 4, 5), (2, 3, 4, 5, 6), ()])
@pytest.mark.parametrize("training", [True, False])
def test_dropout2d_warnings_and_errors_match_torch(shape, training):
    x = np.ones(shape, dtype=np.float32)
    outcomes = []
    for f, make in ((F, gt), (torch_f(), th)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome = _outcome(lambda: f.dropout2d(make(x), 0.5, training))
        outcomes.append((outcome, [str(w.message) for w in caught], [w.category for w in caught]))
    assert outcomes[0] == outcomes[1]


@needs_torch
def test_dropout2d_integer_input_matches_torch():
    x = np.ones((2, 3, 4, 4), dtype=np.int64)
    for p in (0.5, 1.0, 0.0):
        expected = _outcome(lambda: torch_f().dropout2d(th(x), p))
        assert _outcome(lambda: F.dropout2d(gt(x), p)) == expected


def test_dropout2d_reads_a_3d_input_as_n_c_l():
    glasstorch.manual_seed(2)
    with pytest.warns(UserWarning, match="channel-wise 1D dropout behavior"):
        out = Dropout2d(0.5)(gt(np.ones((30, 20, 6), dtype=np.float32))).numpy()
    assert np.all(out == out[..., :1]) and 0 < (out == 0).mean() < 1


@needs_torch
def test_calling_a_backward_node_with_a_wrong_gradient_matches_torch():
    """``grad_fn(grad)`` by hand checks the gradient's shape, with PyTorch's message. (PyTorch's
    average pooling skips some of these checks and may crash: those are not compared.)"""
    x = distinct((2, 3, 6, 6), dtype=np.float32)
    cases = [(lambda f, t: f.max_pool2d(t, 2), [(2, 3, 3, 4), (2, 3, 4, 3), (2, 2, 3, 3), (3, 3, 3, 3), (3, 3, 3)]),
             (lambda f, t: f.max_pool3d(t, 2), [(2, 3, 3, 3), (2, 3, 3, 4), (3, 3, 3)]),
             (lambda f, t: f.avg_pool2d(t, 2), [(2, 3, 3, 4), (2, 3, 4, 3), (2, 2, 3, 3)]),
             (lambda f, t: f.adaptive_avg_pool2d(t, 3), [(3, 3, 3)])]
    for pool, shapes in cases:
        out_a, out_b = pool(F, gt(x, requires_grad=True)), pool(torch_f(), th(x, requires_grad=True))
        for shape in shapes:
            expected = _outcome(lambda: out_b.grad_fn(TORCH.ones(shape)))
            got = _outcome(lambda: _first(out_a.grad_fn(glasstorch.ones(shape))))
            assert got == expected, shape
    out = F.adaptive_avg_pool2d(gt(x, requires_grad=True), 3)
    with pytest.raises(RuntimeError, match="Expected grad_output of sizes"):
        out.grad_fn(glasstorch.ones(3, 3, 3, 3))
    with pytest.raises(RuntimeError, match=r"tensor.size\[0\] == 2"):
        F.avg_pool2d(gt(x, requires_grad=True), 2).grad_fn(glasstorch.ones(3, 3, 3, 3))


@needs_torch
@pytest.mark.parametrize("pool, shape", [
    (lambda f, t: f.max_pool1d(t, 2, 1, 1), (0, 3, 6)),
    (lambda f, t: f.max_pool2d(t, 3, 2, 1, ceil_mode=True), (0, 3, 6, 6)),
    (lambda f, t: f.max_pool3d(t, 2), (0, 3, 4, 4, 4)),
    (lambda f, t: f.avg_pool2d(t, 2), (0, 3, 6, 6)),
    (lambda f, t: f.adaptive_avg_pool2d(t, 4), (0, 3, 6, 6)),
    (lambda f, t: f.adaptive_avg_pool2d(t, 1), (0, 3, 6, 6)),
], ids=["max1d", "max2d", "max3d", "avg2d", "adaptive", "adaptive_mean"])
def test_empty_batch_forward_and_backward_match_torch(pool, shape):
    shapes = []
    for f, make in ((F, gt), (torch_f(), th)):
        t = make(np.zeros(shape, dtype=np.float32), requires_grad=True)
        out = pool(f, t)
        out.sum().backward()
        shapes.append((tuple(out.shape), tuple(t.grad.shape)))
    assert shapes[0] == shapes[1]
