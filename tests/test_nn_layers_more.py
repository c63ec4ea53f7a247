"""Issue 14's layers, activations and functions against PyTorch 2.13: ConvTranspose1d/2d,
AdaptiveMaxPool1d/2d, InstanceNorm1d/2d, Unflatten, PReLU, ELU, SELU, SiLU, GELU, Mish, Softplus,
Hardtanh, ReLU6, GLU, LogSigmoid, Bilinear, Dropout1d/3d, AlphaDropout, FeatureAlphaDropout,
F.one_hot, F.pad, F.normalize, F.cosine_similarity: values, gradients, grad_fn names, reprs,
errors; gradcheck (and gradgradcheck) in float64 for the new differentiable ops."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck, gradgradcheck
from test_nn_vs_torch import outcomes, same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)


def run_both(f, *arrays, tol=1e-10, names=True):
    """f(lib, *tensors) with float64 copies of ``arrays`` in both libraries: the same values,
    gradients and (unless ``names=False``) grad_fn name."""
    ours = [gt.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    got, want = f(gt, *ours), f(torch, *theirs)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    if names:
        assert (got.grad_fn and got.grad_fn.name()) == (want.grad_fn and want.grad_fn.name().replace("torch::autograd::", ""))
    if want.requires_grad:
        cotangent = rng.standard_normal(tuple(want.shape))
        got.backward(gt.tensor(cotangent))
        want.backward(torch.tensor(cotangent))
        for o, t in zip(ours, theirs):
            if t.grad is not None:
                np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


X = rng.standard_normal((2, 3, 6)) * 2

ACTIVATIONS = [
    ("elu", lambda lib, x: lib.nn.functional.elu(x, 0.7)),
    ("selu", lambda lib, x: lib.nn.functional.selu(x)),
    ("silu", lambda lib, x: lib.nn.functional.silu(x)),
    ("mish", lambda lib, x: lib.nn.functional.mish(x)),
    ("softplus", lambda lib, x: lib.nn.functional.softplus(x, 2.0, 3.0)),
    ("hardtanh", lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 1.5)),
    ("relu6", lambda lib, x: lib.nn.functional.relu6(x * 4)),
    ("glu", lambda lib, x: lib.nn.functional.glu(x, -1)),
    ("logsigmoid", lambda lib, x: lib.nn.functional.logsigmoid(x * 20)),
    ("gelu_tanh", lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh")),
    ("celu", lambda lib, x: lib.nn.functional.celu(x, 0.7)),
    ("hardswish", lambda lib, x: lib.nn.functional.hardswish(x)),
    ("hardsigmoid", lambda lib, x: lib.nn.functional.hardsigmoid(x)),
    ("threshold", lambda lib, x: lib.nn.functional.threshold(x, 0.1, 20.0)),
    ("hardshrink", lambda lib, x: lib.nn.functional.hardshrink(x, 0.7)),
    ("softshrink", lambda lib, x: lib.nn.functional.softshrink(x, 0.3)),
    ("softsign", lambda lib, x: lib.nn.functional.softsign(x)),
    ("tanhshrink", lambda lib, x: lib.nn.functional.tanhshrink(x)),
    ("softmin", lambda lib, x: lib.nn.functional.softmin(x, 1)),
    ("avg_pool1d", lambda lib, x: lib.nn.functional.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    ("adaptive_avg_pool1d", lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 4)),
]


@pytest.mark.parametrize("name, f", ACTIVATIONS)
def test_activation_functions(name, f):
    run_both(f, X)
    x = gt.tensor(X[:1, :2], requires_grad=True)
    assert gradcheck(lambda t: f(gt, t), (x,))
    assert gradgradcheck(lambda t: f(gt, t), (x,))


def test_prelu_function_and_gradcheck():
    weight = rng.random(3)
    run_both(lambda lib, x, w: lib.nn.functional.prelu(x, w), X, weight)
    run_both(lambda lib, x, w: lib.nn.functional.prelu(x, w), X, np.array([0.1]))
    assert gradcheck(gt.nn.functional.prelu, (gt.tensor(X[:1], requires_grad=True),
                                              gt.tensor(weight, requires_grad=True)))


@pytest.mark.parametrize("name, kwargs, shape, weight", [
    ("conv_transpose1d", {"stride": 2, "padding": 1, "output_padding": 1}, (2, 4, 5), (4, 3, 3)),
    ("conv_transpose2d", {"stride": (2, 1), "padding": (0, 1), "dilation": 2, "groups": 2}, (2, 4, 4, 5), (4, 3, 3, 2)),
    ("conv_transpose2d", {}, (4, 3, 3), (4, 2, 2, 2)),  # unbatched
])
def test_conv_transpose_functions(name, kwargs, shape, weight):
    bias = rng.standard_normal(weight[1] * kwargs.get("groups", 1))
    run_both(lambda lib, x, w, b: getattr(lib.nn.functional, name)(x, w, b, **kwargs),
             rng.standard_normal(shape), rng.standard_normal(weight), bias)
    small = tuple(n if i < 2 else 2 for i, n in enumerate((1,) + shape[1:] if len(shape) == len(weight) else shape))
    args = (gt.tensor(rng.standard_normal(small), requires_grad=True), gt.tensor(rng.standard_normal(weight),
                                                                                requires_grad=True))
    assert gradcheck(lambda x, w: getattr(gt.nn.functional, name)(x, w, **kwargs), args)
    assert gradgradcheck(lambda x, w: getattr(gt.nn.functional, name)(x, w, **kwargs), args)


@pytest.mark.parametrize("f", [
    lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 4),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (2, None)),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x.unsqueeze(0), 5),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 1, return_indices=True)[1].double() + x.sum() * 0,
])
def test_adaptive_max_pool(f):
    run_both(f, X)
    assert gradcheck(lambda t: f(gt, t), (gt.tensor(X[:1], requires_grad=True),))


@pytest.mark.parametrize("f", [
    lambda lib, x: lib.nn.functional.pad(x, (1, 2)),
    lambda lib, x: lib.nn.functional.pad(x, (1, 2, 0, -1), value=3.5),
    lambda lib, x: lib.nn.functional.pad(x, (2, 1), mode="reflect"),
    lambda lib, x: lib.nn.functional.pad(x, (2, 1, 1, 1), mode="replicate"),
    lambda lib, x: lib.nn.functional.normalize(x),
    lambda lib, x: lib.nn.functional.normalize(x, p=1, dim=-1),
    lambda lib, x: lib.nn.functional.cosine_similarity(x, x.flip(0) * 2 + 1, dim=-1),
    lambda lib, x: lib.nn.functional.cosine_similarity(x, x[:1, :1] + 1),
    lambda lib, x: lib.nn.functional.instance_norm(x),
    lambda lib, x: lib.nn.functional.bilinear(x, x.flip(-1), lib.ones(4, 6, 6, dtype=lib.float64)),
])
def test_functions(f):
    run_both(f, X)


def test_pairwise_distance():
    """(PyTorch records torch.norm's NormBackward1; glasstorch's norm is LinalgVectorNormBackward0,
    an item of the Tensor API's naming: values and gradients are compared here)"""
    for p in (2.0, 1.0, 3.0):
        run_both(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, p=p, keepdim=True), X[0], X[1],
                 names=False)


def test_circular_pad_values_and_gradients():
    """Circular padding is slice copies (CopySlices) in both libraries; the numbers agree."""
    f = lambda lib, x: lib.nn.functional.pad(x, (2, 1), mode="circular")  # noqa: E731
    got, want = f(gt, gt.tensor(X)), f(torch, torch.tensor(X))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_one_hot_and_errors():
    def program(lib):
        F = lib.nn.functional
        results = [F.one_hot(lib.tensor([[0, 2], [1, 1]])), F.one_hot(lib.tensor([1, 0]), 4),
                   F.one_hot(lib.tensor([], dtype=lib.long), 3).shape]
        calls = [lambda: F.one_hot(lib.tensor([1.0])), lambda: F.one_hot(lib.tensor([-1])),
                 lambda: F.one_hot(lib.tensor([3]), 2), lambda: F.one_hot(lib.tensor([], dtype=lib.long)),
                 lambda: F.pad(lib.ones(2, 3), (1,)), lambda: F.pad(lib.ones(2, 3), (1, 1, 1, 1, 1, 1)),
                 lambda: F.pad(lib.ones(1, 2, 3), (1, 1), mode="reflect", value=1.0),
                 lambda: F.pad(lib.ones(1, 2, 3), (3, 1), mode="reflect"),
                 lambda: F.dropout1d(lib.ones(2, 3, 4, 5)), lambda: F.alpha_dropout(lib.ones(2), 1.5),
                 lambda: F.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 3)),
                 lambda: F.bilinear(lib.ones(2, 3), lib.ones(2, 1, 3), lib.ones(5, 3, 3)),
                 lambda: F.glu(lib.ones(2, 3)), lambda: F.prelu(lib.ones(2, 3), lib.ones(2)),
                 lambda: F.adaptive_max_pool1d(lib.ones(2, 3, 4, 5), 2),
                 lambda: F.adaptive_max_pool2d(lib.ones(2, 3, 0, 5), 2),
                 lambda: F.instance_norm(lib.ones(1, 3, 1)),
                 lambda: F.conv_transpose1d(lib.ones(1, 3, 5), lib.ones(4, 2, 3)),
                 lambda: F.conv_transpose1d(lib.ones(1, 4, 5), lib.ones(4, 2, 3), stride=2, output_padding=2)]
        results += outcomes(calls)
        return results

    same_in_both(program)


# --- the modules -----------------------------------------------------------------------------------
MODULES = [
    ("ConvTranspose1d", (4, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, 3), {"stride": 2, "groups": 2, "bias": False}, (2, 4, 3, 3)),
    ("ConvTranspose2d", (4, 2, (2, 3)), {"dilation": (1, 2)}, (4, 3, 3)),
    ("AdaptiveMaxPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", ((2, 3),), {}, (2, 3, 5, 7)),
    ("InstanceNorm1d", (3,), {}, (2, 3, 6)),
    ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (3, 6)),
    ("InstanceNorm2d", (3,), {"affine": True}, (2, 3, 4, 4)),
    ("Unflatten", (1, (2, -1)), {}, (2, 6, 3)),
    ("PReLU", (), {}, (2, 3, 4)),
    ("PReLU", (3,), {"init": 0.1}, (2, 3, 4)),
    ("ELU", (), {"alpha": 0.5}, (2, 3)),
    ("SELU", (), {}, (2, 3)),
    ("SiLU", (), {}, (2, 3)),
    ("GELU", (), {"approximate": "tanh"}, (2, 3)),
    ("Mish", (), {}, (2, 3)),
    ("Softplus", (), {"beta": 2, "threshold": 1}, (2, 3)),
    ("Hardtanh", (-2.0, 2.0), {}, (2, 3)),
    ("ReLU6", (), {"inplace": True}, (2, 3)),
    ("GLU", (), {"dim": 1}, (2, 4)),
    ("LogSigmoid", (), {}, (2, 3)),
    ("Dropout1d", (0.5,), {}, (2, 3, 4)),
    ("Dropout3d", (0.2,), {}, (2, 3, 2, 2, 2)),
    ("AlphaDropout", (0.3,), {}, (2, 3)),
    ("FeatureAlphaDropout", (0.3,), {}, (2, 3, 4)),
    ("CELU", (0.5,), {}, (2, 3)), ("Hardswish", (), {}, (2, 3)), ("Hardsigmoid", (), {}, (2, 3)),
    ("Threshold", (0.1, 20.0), {}, (2, 3)), ("Hardshrink", (), {}, (2, 3)), ("Softshrink", (0.3,), {}, (2, 3)),
    ("Softsign", (), {}, (2, 3)), ("Tanhshrink", (), {}, (2, 3)), ("Softmin", (1,), {}, (2, 3)),
    ("Softmax2d", (), {}, (2, 3, 2, 2)),
    ("ZeroPad2d", (2,), {}, (1, 2, 3, 3)), ("ZeroPad1d", ((1, 2),), {}, (2, 3)),
    ("ConstantPad2d", (1, 3.5), {}, (1, 2, 3, 3)), ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), -1.0), {}, (1, 2, 3, 3)),
    ("ReflectionPad1d", (2,), {}, (1, 2, 4)), ("ReflectionPad2d", ((1, 0, 2, 1),), {}, (1, 3, 3)),
    ("ReplicationPad2d", (1,), {}, (1, 2, 3, 3)), ("ReplicationPad3d", (1,), {}, (1, 1, 2, 2, 2)),
    ("CircularPad1d", (2,), {}, (1, 2, 4)), ("CircularPad2d", ((1, 2, 0, 1),), {}, (1, 2, 3, 3)),
    ("AvgPool1d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}, (2, 3, 8)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 7)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", MODULES)
def test_modules_match_torch(name, args, kwargs, shape):
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(gt.nn, name)(*args, **kwargs).double()
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
           [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    ours.load_state_dict({k: gt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    if "Dropout" in name:  # random in training: compare in evaluation, where it is the identity
        ours.eval(), theirs.eval()
    x = rng.standard_normal(shape)
    if kwargs.get("inplace"):
        got, want = ours(gt.tensor(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(got.numpy(), want.numpy())
        return
    run_both(lambda lib, t: (ours if lib is gt else theirs)(t), x)
    if "running_mean" in theirs.state_dict():  # the running statistics were updated alike
        for k, v in theirs.state_dict().items():
            np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-12)


def test_conv_transpose_output_size_and_init():
    def program(lib):
        up = lib.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
        x = lib.ones(1, 3, 4, 4)
        results = [tuple(up(x).shape), tuple(up(x, output_size=[8, 8]).shape), tuple(up(x, output_size=(1, 2, 7, 8)).shape)]
        for bad in (lambda: up(x, output_size=[9, 9]), lambda: up(x, output_size=[8]),
                    lambda: lib.nn.ConvTranspose1d(2, 2, 3, padding_mode="reflect")):
            try:
                bad()
            except ValueError as error:
                results.append(str(error))
        return results

    same_in_both(program)
    gt.manual_seed(0)
    layer = gt.nn.ConvTranspose2d(16, 8, 3)  # fan_in = weight.size(1) * 9 = 72
    bound = 1 / np.sqrt(72)
    w = layer.weight.detach().numpy()
    assert np.abs(w).max() <= bound and w.std() > bound / 2
    bilinear = gt.nn.Bilinear(20, 30, 4)  # bound 1/sqrt(in1_features)
    assert np.abs(bilinear.weight.detach().numpy()).max() <= 1 / np.sqrt(20)


def test_bilinear_module():
    theirs = torch.nn.Bilinear(3, 4, 5).double()
    ours = gt.nn.Bilinear(3, 4, 5).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: gt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    run_both(lambda lib, a, b: (ours if lib is gt else theirs)(a, b), rng.standard_normal((2, 6, 3)),
             rng.standard_normal((2, 6, 4)))


def test_alpha_dropout_keeps_mean_and_variance():
    gt.manual_seed(0)
    x = gt.randn(200_000, dtype=gt.float64)
    for f in (lambda t: gt.nn.functional.alpha_dropout(t, 0.3, training=True),
              lambda t: gt.nn.functional.feature_alpha_dropout(t.view(1000, 200, 1), 0.3, training=True)):
        y = f(x)
        assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02
        alpha, p = 1.7580993408473766, 0.3
        dropped = -alpha * (1 - p) / np.sqrt((alpha * alpha * p + 1) * (1 - p))  # a * (-alpha) + b
        assert abs(np.isclose(y.numpy(), dropped).mean() - 0.3) < 0.02  # dropped: all at one value
    for f, name in ((gt.nn.functional.dropout1d, "SqueezeBackward1"), (gt.nn.functional.dropout3d, "SqueezeBackward1")):
        x = gt.ones(3, 50, 2, 2, 2, requires_grad=True) if f is gt.nn.functional.dropout3d else gt.ones(50, 3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = f(x[0] if f is gt.nn.functional.dropout3d else x, 0.5)
        assert y.grad_fn.name() == name
        values = np.unique(y.detach().numpy())
        assert set(values) <= {0.0, 2.0}


def test_distance_modules():
    for name, kwargs, names in (("CosineSimilarity", {"dim": -1}, True), ("PairwiseDistance", {"p": 1.0}, False)):
        ours, theirs = getattr(gt.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
        assert repr(ours) == repr(theirs)
        run_both(lambda lib, a, b: (ours if lib is gt else theirs)(a, b), X[0], X[1], names=names)
