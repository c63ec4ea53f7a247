"""Lazy modules against PyTorch 2.13: LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
LazyBatchNorm1d/2d/3d.

A Lazy layer holds UninitializedParameters until its first call; the forward pre-hook then
materialises them from the input's shape and the module becomes the ordinary layer."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch
from test_nn_vs_torch import same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

LAZY = [
    ("LazyLinear", (5,), (2, 7)),
    ("LazyLinear", (5, False), (3, 2, 4)),
    ("LazyConv1d", (4, 3), (2, 3, 9)),
    ("LazyConv2d", (4, 3), (2, 3, 8, 8)),
    ("LazyConv2d", (4, 3), (3, 8, 8)),  # unbatched
    ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (), (4, 3, 2, 2)),
    ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2)),
    ("LazyConvTranspose1d", (4, 3), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3, 2), (1, 3, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), (3, 2, 2, 2)),  # unbatched
]


@pytest.mark.parametrize("name, args, shape", LAZY)
def test_before_and_after_the_first_call(name, args, shape):
    def program(lib):
        layer = getattr(lib.nn, name)(*args)
        before = (repr(layer), type(layer).__name__, layer.has_uninitialized_params(),
                  [(k, repr(v)) for k, v in layer.state_dict().items()], len(layer._forward_pre_hooks))
        out = layer(lib.ones(shape))
        after = (repr(layer), type(layer).__name__, [(k, tuple(v.shape), str(v.dtype)) for k, v in
                                                     layer.state_dict().items()],
                 [type(p).__name__ for p in layer.parameters()], tuple(out.shape), len(layer._forward_pre_hooks),
                 hasattr(layer, "_initialize_hook"))
        return before, after

    same_in_both(program)


@pytest.mark.parametrize("name, args, shape", LAZY)
def test_same_numbers_with_the_same_weights(name, args, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours = getattr(glasstorch.nn, name)(*args)
    theirs = getattr(torch.nn, name)(*args)
    theirs(torch.tensor(x))
    ours.load_state_dict({k: glasstorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert type(ours).__name__ == name  # loading materialises the parameters, but does not call forward
    assert not ours.has_uninitialized_params()
    got = ours(glasstorch.tensor(x))
    assert type(ours).__name__ == name.replace("Lazy", "")
    np.testing.assert_allclose(got.detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_init_as_the_ordinary_layer():
    """reset_parameters runs once the shape is known: uniform in +-1/sqrt(in_features)."""
    glasstorch.manual_seed(0)
    layer = glasstorch.nn.LazyLinear(300)
    layer(glasstorch.ones(1, 400))
    bound = 1 / np.sqrt(400)
    w = layer.weight.detach().numpy()
    assert w.min() >= -bound and w.max() <= bound and w.std() > bound / 2
    bn = glasstorch.nn.LazyBatchNorm1d()
    bn.eval()
    bn(glasstorch.ones(2, 3))
    assert bn.weight.tolist() == [1, 1, 1] and bn.running_var.tolist() == [1, 1, 1]


def test_d2l_lazy_mlp():
    def program(lib):
        net = lib.nn.Sequential(lib.nn.LazyLinear(256), lib.nn.ReLU(), lib.nn.LazyLinear(10))
        first = repr(net[0].weight)
        net(lib.rand(2, 20))
        return first, repr(net), [(n, tuple(p.shape)) for n, p in net.named_parameters()]

    same_in_both(program)


def test_uninitialized_parameter_refuses_use():
    def program(lib):
        p = lib.nn.UninitializedParameter()
        results = [repr(p), isinstance(p, lib.nn.Parameter), p.requires_grad]
        for use in (lambda: p.shape, lambda: p.add(1), lambda: p.share_memory_()):
            try:
                use()
            except Exception as error:  # noqa: BLE001
                results.append((type(error).__name__, str(error).split(" in ")[0][:60]))
        p.materialize((2, 3))
        results.append((type(p).__name__, tuple(p.shape)))
        b = lib.nn.UninitializedBuffer()
        b.materialize(4)
        results.append((type(b).__name__, tuple(b.shape)))
        return results

    same_in_both(program)


def test_lazy_conv_wrong_rank_and_groups():
    def program(lib):
        results = []
        for layer, shape in ((lib.nn.LazyConv2d(4, 3), (2, 8, 8)), (lib.nn.LazyConv2d(4, 3, groups=2), (1, 3, 5, 5)),
                             (lib.nn.LazyConv1d(4, 3), (1, 1, 2, 3, 5))):
            try:
                layer(lib.ones(shape))
            except Exception as error:  # noqa: BLE001
                results.append((type(error).__name__, str(error)))
        return results

    same_in_both(program)


def test_deepcopy_and_mixin_name():
    import copy

    layer = glasstorch.nn.LazyLinear(3)
    twin = copy.deepcopy(layer)
    assert type(twin.weight).__name__ == "UninitializedParameter" and twin.weight is not layer.weight
    assert isinstance(layer, glasstorch.nn.modules.lazy.LazyModuleMixin)
