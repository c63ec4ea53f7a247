"""The layers of Part II (Linear, activations, Flatten, Dropout, BatchNorm, MSELoss) and their
functional twins: gradients by finite differences, and numbers, reprs and graphs against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch
from glasstorch import nn
from glasstorch.nn import functional as F
from glasstorch.testing import real_torch

TORCH = real_torch()
needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed: comparisons with real PyTorch "
                                                       "are skipped (pip install torch==2.13.0)")


def f64(*shape, seed=0):
    return glasstorch.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


# --- gradients by finite differences (float64) -------------------------------------------------
@pytest.mark.parametrize("input_shape", [(3,), (4, 3), (2, 4, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_gradcheck(input_shape, bias):
    x, w = f64(*input_shape), f64(2, 3, seed=1)
    b = f64(2, seed=2) if bias else None
    inputs = (x, w, b) if bias else (x, w)
    assert glasstorch.autograd.gradcheck(lambda *args: F.linear(*args), inputs)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_gradcheck(reduction):
    assert glasstorch.autograd.gradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), (f64(3, 2), f64(3, 2, seed=1)))


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (2, 3, 2, 2)])
def test_batch_norm_training_gradcheck(shape):
    x, w, b = f64(*shape), f64(3, seed=1), f64(3, seed=2)
    assert glasstorch.autograd.gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))


def test_batch_norm_eval_gradcheck():
    mean = glasstorch.tensor([0.1, -0.2, 0.3], dtype=glasstorch.float64)
    var = glasstorch.tensor([1.5, 0.5, 2.0], dtype=glasstorch.float64)
    x, w, b = f64(4, 3), f64(3, seed=1), f64(3, seed=2)
    assert glasstorch.autograd.gradcheck(lambda x, w, b: F.batch_norm(x, mean, var, w, b, training=False), (x, w, b))


def test_dropout_gradcheck_with_a_fixed_mask():
    def dropped(x):
        glasstorch.manual_seed(3)  # the same mask on every call
        return F.dropout(x, 0.4, training=True)

    assert glasstorch.autograd.gradcheck(dropped, (f64(6, 5),))


def test_dropout_behaviour():
    glasstorch.manual_seed(0)
    x = glasstorch.ones(200, 100)
    out = F.dropout(x, 0.3)
    values = np.unique(out.numpy())
    assert np.allclose(values, [0, 1 / 0.7])  # dropped, or scaled up by 1/(1-p)
    assert abs((out.numpy() == 0).mean() - 0.3) < 0.02
    assert F.dropout(x, 0.3, training=False) is x and F.dropout(x, 0.0) is x
    assert F.dropout(x, 1.0).sum().item() == 0
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    y = glasstorch.ones(3, 3)
    assert F.dropout(y, 0.5, inplace=True) is y


# --- against PyTorch ------------------------------------------------------------------------
def both(build):
    """Run ``build(lib)`` with glasstorch and with PyTorch."""
    return build(glasstorch), build(TORCH)


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a.detach().numpy(), dtype=np.float64),
                               np.asarray(b.detach().numpy(), dtype=np.float64), rtol=rtol, atol=atol)


def fixed(lib, *shape, offset=0.0):
    n = int(np.prod(shape))
    return lib.tensor(np.sin(np.arange(n) * 0.7 + offset).reshape(shape).astype(np.float32))


def set_parameters(lib, module):
    with lib.no_grad():
        for i, (_, p) in enumerate(module.named_parameters()):
            p.copy_(fixed(lib, *p.shape, offset=i))
    return module


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("input_shape", [(3,), (4, 3), (2, 4, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_pytorch(input_shape, bias):
    def build(lib):
        lin = set_parameters(lib, lib.nn.Linear(3, 2, bias=bias))
        x = fixed(lib, *input_shape, offset=5.0).requires_grad_()
        out = lin(x)
        out.pow(2).sum().backward()
        return lin, x, out

    (g_lin, g_x, g_out), (t_lin, t_x, t_out) = both(build)
    close(g_out, t_out)
    close(g_x.grad, t_x.grad)
    for gp, tp in zip(g_lin.parameters(), t_lin.parameters()):
        close(gp.grad, tp.grad)
    assert g_out.grad_fn.name() == type(t_out.grad_fn).__name__
    assert repr(g_lin) == repr(t_lin)


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)), ("BatchNorm2d", (2, 3, 4, 4))])
@pytest.mark.parametrize("options", [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False},
                                     {"momentum": 0.5, "eps": 1e-3}])
def test_batchnorm_matches_pytorch_in_training_and_evaluation(cls, shape, options):
    def build(lib):
        bn = set_parameters(lib, getattr(lib.nn, cls)(3, **options))
        seen = []
        for step in range(3):
            x = fixed(lib, *shape, offset=step).requires_grad_()
            out = bn(x)
            (out * fixed(lib, *shape, offset=10)).sum().backward()
            seen.append((out, x.grad))
        bn.eval()
        x = fixed(lib, *shape, offset=20)
        seen.append((bn(x), None))
        return bn, seen

    (g_bn, g_seen), (t_bn, t_seen) = both(build)
    for (g_out, g_grad), (t_out, t_grad) in zip(g_seen, t_seen):
        close(g_out, t_out, rtol=1e-4, atol=1e-5)
        if g_grad is not None:
            close(g_grad, t_grad, rtol=1e-4, atol=1e-5)
    assert list(g_bn.state_dict()) == list(t_bn.state_dict())
    for (name, g_value), t_value in zip(g_bn.state_dict().items(), t_bn.state_dict().values()):
        close(g_value, t_value, rtol=1e-5, atol=1e-6)
        assert str(g_value.dtype).replace("glasstorch", "torch") == str(t_value.dtype), name
    assert repr(g_bn) == repr(t_bn)


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (3, 3, 3, 3)), ("BatchNorm2d", (3, 3))])
def test_batchnorm_input_checks_match_pytorch(cls, shape):
    errors = []
    for lib in (glasstorch, TORCH):
        with pytest.raises(ValueError) as caught:
            getattr(lib.nn, cls)(3)(lib.ones(*shape))
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


@needs_torch
@pytest.mark.torch
def test_batchnorm_needs_more_than_one_value_per_channel_in_training():
    for lib in (glasstorch, TORCH):
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
            lib.nn.BatchNorm1d(3)(lib.ones(1, 3))


LAYERS = {
    "ReLU": lambda lib: lib.nn.ReLU(),
    "ReLU_inplace": lambda lib: lib.nn.ReLU(inplace=True),
    "Sigmoid": lambda lib: lib.nn.Sigmoid(),
    "Tanh": lambda lib: lib.nn.Tanh(),
    "Softmax": lambda lib: lib.nn.Softmax(dim=1),
    "LogSoftmax": lambda lib: lib.nn.LogSoftmax(dim=-1),
    "Flatten": lambda lib: lib.nn.Flatten(),
    "Flatten_all": lambda lib: lib.nn.Flatten(0, -1),
    "Identity": lambda lib: lib.nn.Identity(54, unused_argument=0.1),
    "Dropout_eval": lambda lib: lib.nn.Dropout(0.2).eval(),
}


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_simple_layers_match_pytorch(name):
    def build(lib):
        layer = LAYERS[name](lib)
        x = fixed(lib, 2, 3, 2).requires_grad_()
        source = x * 1.0 if name == "ReLU_inplace" else x  # in place needs a non-leaf
        out = layer(source)
        (out * fixed(lib, *out.shape, offset=1)).sum().backward()
        return layer, out, x.grad

    (g_layer, g_out, g_grad), (t_layer, t_out, t_grad) = both(build)
    close(g_out, t_out)
    close(g_grad, t_grad)
    assert repr(g_layer) == repr(t_layer)
    t_name = None if t_out.grad_fn is None else type(t_out.grad_fn).__name__
    assert (None if g_out.grad_fn is None else g_out.grad_fn.name()) == t_name


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_pytorch(reduction):
    def build(lib):
        a = fixed(lib, 3, 4).requires_grad_()
        b = fixed(lib, 3, 4, offset=2).requires_grad_()
        loss = lib.nn.MSELoss(reduction=reduction)(a, b)
        loss.sum().backward()
        return loss, a.grad, b.grad

    for g, t in zip(*both(build)):
        close(g, t)
    g_loss, t_loss = both(lambda lib: lib.nn.functional.mse_loss(fixed(lib, 2).requires_grad_(), fixed(lib, 2)))
    assert g_loss.grad_fn.name() == type(t_loss.grad_fn).__name__ == "MseLossBackward0"


@needs_torch
@pytest.mark.torch
def test_mse_loss_broadcast_warning_and_errors_match_pytorch():
    for lib in (glasstorch, TORCH):
        with pytest.warns(UserWarning, match="Using a target size"):
            lib.nn.functional.mse_loss(lib.ones(3, 1), lib.ones(3))
        with pytest.raises(ValueError, match="is not a valid value for reduction"):
            lib.nn.functional.mse_loss(lib.ones(3), lib.ones(3), reduction="average")


@needs_torch
@pytest.mark.torch
def test_normal_distribution_matches_pytorch():
    def build(lib):
        loc = fixed(lib, 3).requires_grad_()
        scale = (fixed(lib, 3, offset=1).abs() + 0.5).detach().requires_grad_()
        d = lib.distributions.Normal(loc, scale)
        lp = d.log_prob(fixed(lib, 3, offset=4))
        lp.sum().backward()
        return lp, d.entropy(), loc.grad, scale.grad, repr(lib.distributions.Normal(lib.zeros(1), lib.ones(1)))

    g, t = both(build)
    for a, b in zip(g[:4], t[:4]):
        close(a, b)
    assert g[4] == t[4]


@needs_torch
@pytest.mark.torch
def test_init_weights_example_of_the_source_notes():
    """seed 001 / PyTorch's own docstring of Module.apply: the printout is identical."""
    import contextlib
    import io

    def program(lib):
        out = io.StringIO()

        @lib.no_grad()
        def init_weights(m):
            print(m, file=out)
            if type(m) is lib.nn.Linear:
                m.weight.fill_(1.0)
                print(m.weight, file=out)

        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 2))
        with contextlib.redirect_stdout(out):
            print(net.apply(init_weights))
        return out.getvalue()

    assert program(glasstorch) == program(TORCH)
