"""Part III layers and losses: LayerNorm, GroupNorm, Embedding, LeakyReLU, GELU, and L1Loss,
NLLLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss (ops/normalization.py, ops/embedding.py,
ops/activation.py, ops/loss.py, nn/functional.py and their modules): gradients by finite
differences in float64, then numbers, gradients, graphs, reprs, warnings and errors against real
PyTorch."""
from __future__ import annotations

import math
import re
import types
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glasstorch
from glasstorch.autograd import gradcheck, gradgradcheck
from glasstorch.nn import functional as F
from glasstorch.nn.modules.activation import GELU, LeakyReLU
from glasstorch.nn.modules.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, NLLLoss
from glasstorch.nn.modules.normalization import GroupNorm, LayerNorm
from glasstorch.nn.modules.sparse import Embedding
from glasstorch.ops.activation import erf
from glasstorch.testing import real_torch

TORCH = real_torch()
needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed: comparisons with real PyTorch "
                                                       "are skipped (pip install torch==2.13.0)")


def f64(*shape, seed=0, low=None, high=None, requires_grad=True):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return glasstorch.tensor(values, requires_grad=requires_grad)


def long(values):
    return glasstorch.tensor(np.asarray(values, dtype=np.int64))


# --- gradients by finite differences (float64) -------------------------------------------------
@pytest.mark.parametrize("shape,normalized", [((3, 4), (4,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,))])
@pytest.mark.parametrize("affine", ["weight and bias", "weight", "bias", "none"])
def test_layer_norm_gradcheck(shape, normalized, affine):
    x = f64(*shape)
    w = f64(*normalized, seed=1) if "weight" in affine else None
    b = f64(*normalized, seed=2) if "bias" in affine else None
    assert gradcheck(lambda x, w, b: F.layer_norm(x, normalized, w, b, eps=1e-3), (x, w, b))


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 1), ((2, 6, 3), 3), ((2, 6, 3), 6), ((3, 4), 2),
                                          ((2, 4, 2, 2), 2)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_gradcheck(shape, groups, affine):
    x = f64(*shape)
    w, b = (f64(shape[1], seed=1), f64(shape[1], seed=2)) if affine else (None, None)
    assert gradcheck(lambda x, w, b: F.group_norm(x, groups, w, b, eps=1e-3), (x, w, b))


@pytest.mark.parametrize("padding_idx", [None, 1, -1])
def test_embedding_gradcheck(padding_idx):
    """The padding row, whose gradient is zero by design, is held constant outside the check.
    (``scale_grad_by_freq`` departs from the true derivative by design: checked against PyTorch.)"""
    indices = long([[1, 2, 1], [0, 4, 4]])  # repeated indices: their gradients add up
    row = None if padding_idx is None else padding_idx % 5
    padding = glasstorch.full((1, 3), 0.5, dtype=glasstorch.float64)

    def lookup(others):
        weight = others if row is None else glasstorch.cat([others[:row], padding, others[row:]])
        return F.embedding(indices, weight, padding_idx)

    assert gradcheck(lookup, (f64(5 if row is None else 4, 3),))


@pytest.mark.parametrize("slope", [0.01, 0.2, -0.5, 1.5])
def test_leaky_relu_gradcheck(slope):
    x = glasstorch.tensor([[-2.0, -0.5, 0.3], [1.2, -0.1, 2.5]], dtype=glasstorch.float64, requires_grad=True)
    assert gradcheck(lambda x: F.leaky_relu(x, slope), (x,))


@pytest.mark.parametrize("slope", [0.01, 0.3])
def test_leaky_relu_inplace_gradcheck(slope):
    x = glasstorch.tensor([[-2.0, -0.5, 0.3], [1.2, -0.1, 2.5]], dtype=glasstorch.float64, requires_grad=True)
    assert gradcheck(lambda x: F.leaky_relu(x * 1, slope, inplace=True), (x,))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradcheck_and_gradgradcheck(approximate):
    x = f64(3, 4) * 2
    x = x.detach().requires_grad_()
    assert gradcheck(lambda x: F.gelu(x, approximate), (x,))
    assert gradgradcheck(lambda x: F.gelu(x, approximate), (x,))


def _class_weight(classes):
    return glasstorch.tensor(np.linspace(0.5, 2.0, classes))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape,target", [((4, 5), [0, 3, -100, 4]), ((4, 5), [0, 3, 2, 4]), ((5,), 2),
                                          ((2, 5, 3), [[0, 1, 4], [-100, 2, 2]]),
                                          ((2, 5, 2, 2), [[[0, 1], [4, -100]], [[2, 2], [3, 0]]])])
def test_nll_loss_gradcheck(reduction, weighted, shape, target):
    weight = _class_weight(5) if weighted else None
    assert gradcheck(lambda x: F.nll_loss(x, long(target), weight, reduction=reduction), (f64(*shape),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_cross_entropy_class_indices_gradcheck(reduction, weighted, label_smoothing, ignore_index):
    weight = _class_weight(5) if weighted else None
    target = long([0, 1, ignore_index, 4, 1])
    assert gradcheck(lambda x: F.cross_entropy(x, target, weight, ignore_index=ignore_index, reduction=reduction,
                                               label_smoothing=label_smoothing), (f64(5, 5),))


@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (4,)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("options", [{}, {"label_smoothing": 0.3}, {"weighted": True}])
def test_cross_entropy_class_probabilities_gradcheck(shape, reduction, options):
    """Probabilities are differentiable too: the gradient reaches the target."""
    weight = _class_weight(4) if options.get("weighted") else None
    smoothing = options.get("label_smoothing", 0.0)
    target = f64(*shape, seed=3, low=0, high=1)
    assert gradcheck(lambda x, p: F.cross_entropy(x, p, weight, reduction=reduction, label_smoothing=smoothing),
                     (f64(*shape), target))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target_shape", [(3, 4), (4,)])
def test_l1_loss_gradcheck(reduction, target_shape):
    x, y = f64(3, 4), f64(*target_shape, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a broadcast target warns
        assert gradcheck(lambda x, y: F.l1_loss(x, y, reduction=reduction), (x, y))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss_with_weight_gradcheck(reduction):
    weight = glasstorch.tensor(np.linspace(0.1, 2, 12).reshape(3, 4))
    assert gradcheck(lambda x, y: F.l1_loss(x, y, reduction=reduction, weight=weight), (f64(3, 4), f64(3, 4, seed=1)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight_shape", [None, (4,), (3, 4)])
def test_binary_cross_entropy_gradcheck(reduction, weight_shape):
    x, y = f64(3, 4, low=0.05, high=0.95), f64(3, 4, seed=1, low=0, high=1)
    weight = None if weight_shape is None else f64(*weight_shape, seed=2, low=0.5, high=2, requires_grad=False)
    assert gradcheck(lambda x, y: F.binary_cross_entropy(x, y, weight, reduction=reduction), (x, y))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
def test_binary_cross_entropy_with_logits_gradcheck(reduction, weighted, pos_weighted):
    x, y = f64(3, 4) * 3, f64(3, 4, seed=1, low=0, high=1)
    x = x.detach().requires_grad_()
    weight = f64(4, seed=2, low=0.5, high=2, requires_grad=False) if weighted else None
    pos_weight = f64(4, seed=3, low=0.5, high=3, requires_grad=False) if pos_weighted else None
    assert gradcheck(lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight, reduction=reduction,
                                                                     pos_weight=pos_weight), (x, y))


def test_second_derivatives_by_finite_differences():
    """Every backward is made of tensor ops, so create_graph differentiates it again."""
    target = long([0, 2, -100])
    weight = _class_weight(4)
    cases = [
        (lambda x, w, b: F.layer_norm(x, (4,), w, b), (f64(3, 4), f64(4, seed=1), f64(4, seed=2))),
        (lambda x, w, b: F.group_norm(x, 2, w, b), (f64(2, 4, 3), f64(4, seed=1), f64(4, seed=2))),
        (lambda x: F.cross_entropy(x, target, weight, label_smoothing=0.2), (f64(3, 4),)),
        (lambda x, y: F.binary_cross_entropy(x, y), (f64(2, 3, low=0.1, high=0.9), f64(2, 3, seed=1, low=0, high=1))),
        (lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=weight[:3]), (f64(2, 3), f64(2, 3, seed=1))),
        (lambda w: F.embedding(long([[0, 2], [2, 3]]), w, padding_idx=3) ** 2, (f64(4, 2),)),
        (lambda x: F.leaky_relu(x, 0.1) ** 2, (f64(2, 3),)),
        (lambda x: erf(x), (f64(2, 3),)),
    ]
    for function, inputs in cases:
        assert gradgradcheck(function, inputs)


# --- properties that need no oracle -----------------------------------------------------------
def test_erf_matches_math_erf_to_double_precision():
    xs = np.concatenate([np.linspace(-7, 7, 20001), [1e-12, -3e-200, 5.9999, 6.2, 30.0]])
    got = erf(glasstorch.tensor(xs)).numpy()
    want = np.array([math.erf(v) for v in xs])
    assert np.max(np.abs(got - want)) < 4e-15
    assert np.all(np.abs(got - want) <= 1e-13 * np.abs(want))  # relative too: tiny x keep their digits
    assert erf(glasstorch.tensor([0.0])).item() == 0.0
    assert np.isnan(erf(glasstorch.tensor([float("nan")])).item())


def test_nll_loss_weighted_mean_divides_by_the_weights_of_the_targets_kept():
    log_probs = glasstorch.tensor([[-1.0, -2.0, -3.0], [-0.5, -1.5, -2.5], [-4.0, -5.0, -6.0]])
    weight = glasstorch.tensor([1.0, 2.0, 4.0])
    loss = F.nll_loss(log_probs, long([2, 1, -100]), weight)
    assert loss.item() == pytest.approx((4 * 3.0 + 2 * 1.5) / (4 + 2))
    everything_ignored = F.nll_loss(log_probs, long([-100, -100, -100]), weight)
    assert math.isnan(everything_ignored.item())


def test_binary_cross_entropy_clamps_the_log_at_minus_100():
    losses = F.binary_cross_entropy(glasstorch.tensor([0.0, 1.0, 0.0, 1.0]), glasstorch.tensor([0.0, 1.0, 1.0, 0.0]),
                                    reduction="none")
    assert losses.tolist() == [0.0, 0.0, 100.0, 100.0]


def test_binary_cross_entropy_with_logits_is_stable_for_large_logits():
    x = glasstorch.tensor([-1000.0, 1000.0, 80.0], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, glasstorch.tensor([1.0, 0.0, 1.0]), reduction="sum")
    assert loss.item() == pytest.approx(2000.0)
    loss.backward()
    assert np.all(np.isfinite(x.grad.numpy()))


def test_embedding_padding_row_gets_no_gradient_and_starts_at_zero():
    layer = Embedding(6, 3, padding_idx=-2)
    assert layer.padding_idx == 4 and layer.weight[4].tolist() == [0.0, 0.0, 0.0]
    layer(long([[4, 1, 4], [1, 0, 5]])).sum().backward()
    grad = layer.weight.grad.numpy()
    assert grad[4].tolist() == [0, 0, 0] and grad[1].tolist() == [2, 2, 2] and grad[2].tolist() == [0, 0, 0]


def test_embedding_from_pretrained_shares_memory_and_freezes():
    table = glasstorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    layer = Embedding.from_pretrained(table)
    assert not layer.weight.requires_grad and np.shares_memory(layer.weight.numpy(), table.numpy())
    assert Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    assert layer(long([1, 1, 0])).tolist() == [[3.0, 4.0], [3.0, 4.0], [1.0, 2.0]]


def test_embedding_sparse_is_refused_clearly_and_max_norm_renormalises_the_rows_it_looks_up():
    with pytest.raises(NotImplementedError, match="sparse=False only"):
        Embedding(5, 2, sparse=True)
    layer = Embedding(4, 2, max_norm=1.0)
    layer.weight.data = glasstorch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0], [1.0, 0.0]])
    out = layer(long([0, 1, 0]))
    np.testing.assert_allclose(out.detach().numpy(), [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]], atol=1e-6)
    assert layer.weight.data[2].tolist() == [6.0, 8.0]  # not looked up: left as it was
    assert layer.weight.data[0].tolist() == pytest.approx([0.6, 0.8], abs=1e-6)  # changed in place, as PyTorch
    weight = f64(5, 2) * 3  # F.embedding renormalises the looked-up rows in place (the op table compares it with PyTorch)
    F.embedding(long([1, 3]), weight, max_norm=1.0)
    norms = weight.norm(2, 1)
    assert float(norms[1]) <= 1.0 and float(norms[3]) <= 1.0


def test_losses_keep_their_weights_as_buffers():
    weight, pos_weight = glasstorch.ones(3), glasstorch.full((3,), 2.0)
    for loss in (NLLLoss(weight), CrossEntropyLoss(weight), BCELoss(weight)):
        assert list(loss.state_dict()) == ["weight"] and list(loss.parameters()) == []
    assert list(BCEWithLogitsLoss(weight, pos_weight=pos_weight).state_dict()) == ["weight", "pos_weight"]
    assert list(CrossEntropyLoss().state_dict()) == []  # a None buffer is registered, not saved


def test_norm_layers_reset_to_the_identity_map():
    for layer in (LayerNorm((2, 3)), GroupNorm(2, 4)):
        assert np.all(layer.weight.detach().numpy() == 1) and np.all(layer.bias.detach().numpy() == 0)
    assert LayerNorm(3, elementwise_affine=False).weight is None and LayerNorm(3, bias=False).bias is None
    assert GroupNorm(1, 3, affine=False).weight is None


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(1, 2), st.booleans())
def test_layer_norm_gradcheck_over_generated_shapes(lead, trailing, affine):
    shape = tuple(lead) + (3,) * trailing
    normalized = shape[len(shape) - trailing:]
    w = f64(*normalized, seed=1) if affine else None
    assert gradcheck(lambda x, w: F.layer_norm(x, normalized, w), (f64(*shape), w))


# --- against real PyTorch ---------------------------------------------------------------------
def _glass_namespace():
    return types.SimpleNamespace(
        name="glasstorch", lib=glasstorch, F=F, LayerNorm=LayerNorm, GroupNorm=GroupNorm, Embedding=Embedding,
        LeakyReLU=LeakyReLU, GELU=GELU, L1Loss=L1Loss, NLLLoss=NLLLoss, CrossEntropyLoss=CrossEntropyLoss,
        BCELoss=BCELoss, BCEWithLogitsLoss=BCEWithLogitsLoss)


def _torch_namespace():
    nn = TORCH.nn
    return types.SimpleNamespace(
        name="torch", lib=TORCH, F=nn.functional, LayerNorm=nn.LayerNorm, GroupNorm=nn.GroupNorm,
        Embedding=nn.Embedding, LeakyReLU=nn.LeakyReLU, GELU=nn.GELU, L1Loss=nn.L1Loss, NLLLoss=nn.NLLLoss,
        CrossEntropyLoss=nn.CrossEntropyLoss, BCELoss=nn.BCELoss, BCEWithLogitsLoss=nn.BCEWithLogitsLoss)


def normalise(text: str) -> str:
    return re.sub(r"(?<!glass)torch\.", "glasstorch.", text)


def graph(tensor, depth: int = 8):
    """The backward graph as nested (name, children) tuples, as far as ``depth``."""
    def walk(node, level):
        if node is None:
            return None
        children = () if level == depth else tuple(walk(n, level + 1) for n, _ in node.next_functions)
        return (type(node).__name__, children)
    return walk(tensor.grad_fn, 0)


# PyTorch records a tensor times (over, plus) a Python number as MulBackward1 (DivBackward1, AddBackward1);
# glasstorch's mul, div and add record MulBackward0, DivBackward0, AddBackward0 for both kinds of operand.
_SCALAR_NODES = {"MulBackward1": "MulBackward0", "DivBackward1": "DivBackward0", "AddBackward1": "AddBackward0"}


def _same_graph(got, want):
    if got is None or want is None:
        return got is None and want is None
    (got_name, got_children), (want_name, want_children) = got, want
    if want_name in _SCALAR_NODES:  # glasstorch's Node has an edge (None) for the number too
        got_children = tuple(child for child in got_children if child is not None)
    # PyTorch's own name (glasstorch records DivBackward1 where it follows PyTorch's C++), or its Python twin
    return (got_name in (want_name, _SCALAR_NODES.get(want_name, want_name)) and len(got_children) == len(want_children)
            and all(_same_graph(a, b) for a, b in zip(got_children, want_children)))


def run_both(program, arrays, *, grad_seed=0, atol=1e-5, rtol=1e-5, exact_graph=True):
    """Run ``program(ns, *tensors)`` with both libraries on float32 copies of ``arrays`` (float
    arrays require grad, integer ones are indices), backward a random gradient, compare."""
    results = []
    for ns in (_glass_namespace(), _torch_namespace()):
        tensors = [ns.lib.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a
                   for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = program(ns, *tensors)
        grad = np.random.default_rng(grad_seed).standard_normal(tuple(out.shape)).astype(np.float32)
        out.backward(ns.lib.tensor(grad))
        grads = [t.grad.numpy() if getattr(t, "requires_grad", False) else None for t in tensors]
        results.append((out.detach().numpy(), grads, graph(out)))
    (got, got_grads, got_graph), (want, want_grads, want_graph) = results
    np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)
    for a, b in zip(got_grads, want_grads):
        if b is not None:
            np.testing.assert_allclose(a, b, atol=atol, rtol=1e-4)
    assert got_graph == want_graph if exact_graph else _same_graph(got_graph, want_graph), (got_graph, want_graph)
    return got


def arrays(*shape, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return values.astype(np.float32)


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("shape,normalized", [((4, 6), (6,)), ((2, 3, 4), (3, 4)), ((0, 3), (3,))])
@pytest.mark.parametrize("affine", [(True, True), (True, False), (False, False)])
def test_layer_norm_like_pytorch(shape, normalized, affine):
    params = [arrays(*normalized, seed=1) if affine[0] else None, arrays(*normalized, seed=2) if affine[1] else None]
    run_both(lambda ns, x, w, b: ns.F.layer_norm(x, normalized, w, b, 1e-4), [arrays(*shape), *params])


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((4, 6), 2), ((2, 4, 3, 3), 4), ((2, 4, 5), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_like_pytorch(shape, groups, affine):
    params = [arrays(shape[1], seed=1), arrays(shape[1], seed=2)] if affine else [None, None]
    run_both(lambda ns, x, w, b: ns.F.group_norm(x, groups, w, b), [arrays(*shape), *params])


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("padding_idx", [None, 0, -1])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_embedding_like_pytorch(padding_idx, scale_grad_by_freq, index_dtype):
    indices = np.array([[1, 2, 1, 0], [0, 5, 5, 5]], dtype=index_dtype)
    run_both(lambda ns, w, i: ns.F.embedding(i, w, padding_idx, scale_grad_by_freq=scale_grad_by_freq),
             [arrays(6, 3), indices])


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("program", [
    lambda ns, x: ns.F.leaky_relu(x),
    lambda ns, x: ns.F.leaky_relu(x, 0.3),
    lambda ns, x: ns.F.leaky_relu(x * 1, 0.2, inplace=True),
    lambda ns, x: ns.F.gelu(x * 3),
    lambda ns, x: ns.F.gelu(x * 3, approximate="tanh"),
])
def test_activations_like_pytorch(program):
    run_both(program, [arrays(5, 7)])


def _target(shape, classes, seed=0, ignored=(), ignore_index=-100):
    values = np.random.default_rng(seed).integers(0, classes, shape)
    for index in ignored:
        values[index] = ignore_index
    return values


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
# (a 1-D input with a one-element target works forward, but PyTorch 2.13's backward raises
# "size mismatch" for it; glasstorch's backward works: tested on its own below)
@pytest.mark.parametrize("shape,target_shape,ignored", [((6, 5), (6,), [(1,)]), ((5,), (), []),
                                                        ((2, 5, 3), (2, 3), [(0, 1)]),
                                                        ((2, 5, 3, 2), (2, 3, 2), [(1, 2, 0)]),
                                                        ((2, 5, 2, 2, 2), (2, 2, 2, 2), []), ((0, 5), (0,), [])])
def test_nll_loss_like_pytorch(reduction, weighted, shape, target_shape, ignored):
    weight = np.linspace(0.5, 2, 5).astype(np.float32) if weighted else None

    def program(ns, x, t):
        w = None if weight is None else ns.lib.tensor(weight)
        return ns.F.nll_loss(x, t, w, reduction=reduction)

    run_both(program, [arrays(*shape), _target(target_shape, 5, ignored=ignored)])


@needs_torch
@pytest.mark.torch
def test_nll_loss_of_one_sample_with_a_one_element_target():
    x = np.array([-1.0, -2.0, -0.5], dtype=np.float32)
    want = TORCH.nn.functional.nll_loss(TORCH.tensor(x), TORCH.tensor([2]), reduction="none")
    got = F.nll_loss(glasstorch.tensor(x, requires_grad=True), long([2]), reduction="none")
    assert got.shape == tuple(want.shape) == () and got.item() == want.item() == 0.5
    got.backward()
    assert got.grad_fn.next_functions[0][0].variable.grad.tolist() == [0.0, 0.0, -1.0]


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2, 1.0])
@pytest.mark.parametrize("shape,target_shape,ignore_index", [((6, 5), (6,), -100), ((6, 5), (6,), 2), ((5,), (), -100),
                                                             ((2, 5, 3), (2, 3), -100), ((2, 5, 3, 2), (2, 3, 2), 1)])
def test_cross_entropy_class_indices_like_pytorch(reduction, weighted, label_smoothing, shape, target_shape,
                                                  ignore_index):
    weight = np.linspace(0.5, 2, 5).astype(np.float32) if weighted else None
    target = _target(target_shape, 5, seed=1, ignored=[(0,)] if target_shape else [], ignore_index=ignore_index)

    def program(ns, x, t):
        w = None if weight is None else ns.lib.tensor(weight)
        return ns.F.cross_entropy(x, t, w, ignore_index=ignore_index, reduction=reduction,
                                  label_smoothing=label_smoothing)

    run_both(program, [arrays(*shape), target], exact_graph=False)


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 5, 3), (0, 5)])
def test_cross_entropy_class_probabilities_like_pytorch(reduction, weighted, label_smoothing, shape):
    weight = np.linspace(0.5, 2, 5).astype(np.float32) if weighted else None

    def program(ns, x, p):
        w = None if weight is None else ns.lib.tensor(weight)
        return ns.F.cross_entropy(x, p, w, reduction=reduction, label_smoothing=label_smoothing)

    run_both(program, [arrays(*shape), arrays(*shape, seed=1, low=0, high=1)], exact_graph=False)


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("program", [
    lambda ns, x, y, r: ns.F.l1_loss(x, y, reduction=r),
    lambda ns, x, y, r: ns.F.l1_loss(x, y[0], reduction=r),
    lambda ns, x, y, r: ns.F.l1_loss(x[0], y, reduction=r),
    lambda ns, x, y, r: ns.F.l1_loss(x, y, reduction=r, weight=y.detach().abs()),
])
def test_l1_loss_like_pytorch(reduction, program):
    run_both(lambda ns, x, y: program(ns, x, y, reduction), [arrays(3, 4), arrays(3, 4, seed=1)])


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight_shape", [None, (4,), (3, 4)])
@pytest.mark.parametrize("edges", [False, True])
def test_binary_cross_entropy_like_pytorch(reduction, weight_shape, edges):
    x = arrays(3, 4, low=0.02, high=0.98)
    if edges:  # 0 and 1 exactly: the clamped log, and the gradient's 1e-12 floor
        x[0, :2], x[1, :2] = 0.0, 1.0
    weight = None if weight_shape is None else arrays(*weight_shape, seed=2, low=0.5, high=2)

    def program(ns, x, y):
        w = None if weight is None else ns.lib.tensor(weight)
        return ns.F.binary_cross_entropy(x, y, w, reduction=reduction)

    run_both(program, [x, arrays(3, 4, seed=1, low=0, high=1)], rtol=1e-4)


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight_shape", [None, (4,), (3, 4)])
@pytest.mark.parametrize("pos_weight_shape", [None, (4,)])
def test_binary_cross_entropy_with_logits_like_pytorch(reduction, weight_shape, pos_weight_shape):
    weight = None if weight_shape is None else arrays(*weight_shape, seed=2, low=0.5, high=2)
    pos_weight = None if pos_weight_shape is None else arrays(*pos_weight_shape, seed=3, low=0.5, high=3)

    def program(ns, x, y):
        w = None if weight is None else ns.lib.tensor(weight)
        pw = None if pos_weight is None else ns.lib.tensor(pos_weight)
        return ns.F.binary_cross_entropy_with_logits(x * 5, y, w, reduction=reduction, pos_weight=pw)

    run_both(program, [arrays(3, 4), arrays(3, 4, seed=1, low=0, high=1)])


@needs_torch
@pytest.mark.torch
@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(2, 6), st.sampled_from(["mean", "sum", "none"]), st.booleans(),
       st.sampled_from([0.0, 0.1, 0.5]), st.integers(0, 2**16))
def test_cross_entropy_over_generated_batches_like_pytorch(batch, classes, reduction, weighted, smoothing, seed):
    target = np.random.default_rng(seed).integers(-1, classes, batch)
    target[target < 0] = -100
    weight = np.linspace(0.5, 2, classes).astype(np.float32) if weighted else None

    def program(ns, x, t):
        w = None if weight is None else ns.lib.tensor(weight)
        return ns.F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=smoothing)

    run_both(program, [arrays(batch, classes, seed=seed), target], exact_graph=False)


def _double_backward(ns, program, arrays_):
    """d/dx of (grad_x . v): a second derivative through the backward graph."""
    xs = [ns.lib.tensor(a, requires_grad=True) for a in arrays_]
    out = program(ns, *xs)
    grads = ns.lib.autograd.grad(out.sum() if out.dim() else out, xs, create_graph=True)
    total = sum((g * ns.lib.tensor(np.linspace(-1, 1, g.numel()).reshape(tuple(g.shape)).astype(np.float32))).sum()
                for g in grads)
    return [g.numpy() for g in ns.lib.autograd.grad(total, xs, allow_unused=True) if g is not None]


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("program,shapes", [
    (lambda ns, x, w, b: ns.F.layer_norm(x, (5,), w, b) ** 2, [(3, 5), (5,), (5,)]),
    (lambda ns, x, w, b: ns.F.group_norm(x, 2, w, b) ** 2, [(2, 4, 3), (4,), (4,)]),
    (lambda ns, x: ns.F.gelu(x) ** 2, [(3, 5)]),
    (lambda ns, x: ns.F.gelu(x, approximate="tanh") ** 2, [(3, 5)]),
    (lambda ns, x: ns.F.cross_entropy(x, ns.lib.tensor([0, 2, -100]), label_smoothing=0.2), [(3, 5)]),
    (lambda ns, x, y: ns.F.binary_cross_entropy_with_logits(x, y.sigmoid()), [(3, 5), (3, 5)]),
])
def test_second_derivatives_like_pytorch(program, shapes):
    inputs = [arrays(*shape, seed=i) for i, shape in enumerate(shapes)]
    got = _double_backward(_glass_namespace(), program, inputs)
    want = _double_backward(_torch_namespace(), program, inputs)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-3)


@needs_torch
@pytest.mark.torch
def test_embedding_double_backward_node_like_pytorch():
    names = []
    for ns in (_glass_namespace(), _torch_namespace()):
        w = ns.lib.tensor(arrays(4, 2), requires_grad=True)
        out = ns.F.embedding(ns.lib.tensor([1, 3, 1]), w, padding_idx=3)
        grad_out = ns.lib.tensor(arrays(3, 2, seed=1), requires_grad=True)
        (grad_w,) = ns.lib.autograd.grad(out, w, grad_out, create_graph=True)
        (grad_grad,) = ns.lib.autograd.grad((grad_w * ns.lib.tensor(arrays(4, 2, seed=2))).sum(), grad_out)
        names.append((type(grad_w.grad_fn).__name__, grad_w.detach().numpy().tolist(), grad_grad.numpy().tolist()))
    assert names[0][0] == names[1][0] == "EmbeddingDenseBackwardBackward0"
    np.testing.assert_allclose(names[0][1], names[1][1], atol=1e-6)
    np.testing.assert_allclose(names[0][2], names[1][2], atol=1e-6)


_MODULES = [
    lambda ns: ns.LayerNorm(4), lambda ns: ns.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False),
    lambda ns: ns.LayerNorm((4,), bias=False), lambda ns: ns.GroupNorm(2, 4), lambda ns: ns.GroupNorm(1, 3, affine=False),
    lambda ns: ns.GroupNorm(3, 6, bias=False), lambda ns: ns.Embedding(10, 3),
    lambda ns: ns.Embedding(10, 3, padding_idx=-1, scale_grad_by_freq=True, norm_type=1.0),
    lambda ns: ns.Embedding.from_pretrained(ns.lib.ones(2, 3), padding_idx=0), lambda ns: ns.LeakyReLU(),
    lambda ns: ns.LeakyReLU(0.2, inplace=True), lambda ns: ns.GELU(), lambda ns: ns.GELU("tanh"), lambda ns: ns.L1Loss(),
    lambda ns: ns.NLLLoss(ns.lib.ones(3), ignore_index=1), lambda ns: ns.CrossEntropyLoss(label_smoothing=0.1),
    lambda ns: ns.BCELoss(reduction="sum"), lambda ns: ns.BCEWithLogitsLoss(pos_weight=ns.lib.ones(3)),
]


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("make", _MODULES)
def test_modules_repr_state_and_attributes_like_pytorch(make):
    seen = []
    for ns in (_glass_namespace(), _torch_namespace()):
        module = make(ns)
        attributes = {k: v for k, v in vars(module).items() if not k.startswith("_") and k != "training"}
        seen.append((normalise(repr(module)), list(module.state_dict()), [n for n, _ in module.named_parameters()],
                     [n for n, _ in module.named_buffers()], normalise(repr(attributes))))
    assert seen[0] == seen[1]


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("make,inputs", [
    (lambda ns: ns.LayerNorm((3, 4)), lambda ns: [ns.lib.tensor(arrays(2, 3, 4))]),
    (lambda ns: ns.GroupNorm(2, 4), lambda ns: [ns.lib.tensor(arrays(3, 4, 5))]),
    (lambda ns: ns.Embedding(5, 3, padding_idx=2), lambda ns: [ns.lib.tensor([[0, 2, 4], [2, 2, 1]])]),
    (lambda ns: ns.LeakyReLU(0.1), lambda ns: [ns.lib.tensor(arrays(3, 4))]),
    (lambda ns: ns.GELU("tanh"), lambda ns: [ns.lib.tensor(arrays(3, 4))]),
    (lambda ns: ns.L1Loss(), lambda ns: [ns.lib.tensor(arrays(3, 4)), ns.lib.tensor(arrays(3, 4, seed=1))]),
    (lambda ns: ns.NLLLoss(ns.lib.tensor([1.0, 2.0, 3.0, 0.5])),
     lambda ns: [ns.lib.tensor(arrays(5, 4)), ns.lib.tensor([0, 3, 1, -100, 2])]),
    (lambda ns: ns.CrossEntropyLoss(ns.lib.tensor([1.0, 2.0, 3.0, 0.5]), ignore_index=3, label_smoothing=0.2),
     lambda ns: [ns.lib.tensor(arrays(5, 4)), ns.lib.tensor([0, 3, 1, 3, 2])]),
    (lambda ns: ns.BCELoss(ns.lib.tensor([1.0, 2.0, 0.5])),
     lambda ns: [ns.lib.tensor(arrays(2, 3, low=0.1, high=0.9)), ns.lib.tensor(arrays(2, 3, seed=1, low=0, high=1))]),
    (lambda ns: ns.BCEWithLogitsLoss(pos_weight=ns.lib.tensor([1.0, 2.0, 0.5]), reduction="sum"),
     lambda ns: [ns.lib.tensor(arrays(2, 3)), ns.lib.tensor(arrays(2, 3, seed=1, low=0, high=1))]),
])
def test_modules_forward_and_backward_like_pytorch(make, inputs):
    seen = []
    for ns in (_glass_namespace(), _torch_namespace()):
        module = make(ns)
        for name, param in module.named_parameters():  # the same weights in both (PyTorch's are random)
            with ns.lib.no_grad():
                param.copy_(ns.lib.tensor(arrays(*param.shape, seed=len(name))))
        args = inputs(ns)
        args[0].requires_grad_(args[0].dtype.is_floating_point)
        out = module(*args)
        out.backward(ns.lib.ones_like(out))
        grads = [p.grad.numpy() for p in module.parameters()] + ([args[0].grad.numpy()] if args[0].requires_grad else [])
        seen.append((out.detach().numpy(), grads, type(out.grad_fn).__name__))
    np.testing.assert_allclose(seen[0][0], seen[1][0], atol=1e-5, rtol=1e-5)
    for a, b in zip(seen[0][1], seen[1][1]):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=1e-4)
    assert seen[0][2] == seen[1][2]


def _t(ns, values, dtype=None, requires_grad=False):
    return ns.lib.tensor(values, dtype=None if dtype is None else getattr(ns.lib, dtype), requires_grad=requires_grad)


_ERRORS = {
    "layer_norm shape": lambda ns: ns.F.layer_norm(ns.lib.ones(4, 5), (4,)),
    "layer_norm weight": lambda ns: ns.F.layer_norm(ns.lib.ones(4, 5), (5,), ns.lib.ones(4)),
    "layer_norm bias": lambda ns: ns.F.layer_norm(ns.lib.ones(4, 5), (5,), None, ns.lib.ones(2)),
    "layer_norm int shape": lambda ns: ns.F.layer_norm(ns.lib.ones(4, 5), 5),
    "layer_norm empty shape": lambda ns: ns.F.layer_norm(ns.lib.ones(4, 5), ()),
    "layer_norm long input": lambda ns: ns.F.layer_norm(_t(ns, [[1, 2]]), (2,)),
    "layer_norm mixed dtype": lambda ns: ns.F.layer_norm(ns.lib.ones(2, 3), (3,), _t(ns, [1.0, 1, 1], "float64")),
    "group_norm groups": lambda ns: ns.F.group_norm(ns.lib.ones(2, 6, 3), 4),
    "group_norm weight": lambda ns: ns.F.group_norm(ns.lib.ones(2, 6, 3), 3, ns.lib.ones(5)),
    "group_norm bias": lambda ns: ns.F.group_norm(ns.lib.ones(2, 6), 3, None, ns.lib.ones(5)),
    "group_norm 1-D": lambda ns: ns.F.group_norm(ns.lib.ones(6), 3),
    "group_norm one value": lambda ns: ns.F.group_norm(ns.lib.ones(1, 6), 6),
    "group_norm long": lambda ns: ns.F.group_norm(_t(ns, [[1, 2, 3, 4], [1, 2, 3, 5]]), 2),
    "GroupNorm divisible": lambda ns: ns.GroupNorm(4, 6),
    "embedding float indices": lambda ns: ns.F.embedding(_t(ns, [1.0]), ns.lib.ones(3, 2)),
    "embedding byte indices": lambda ns: ns.F.embedding(_t(ns, [1], "uint8"), ns.lib.ones(3, 2)),
    "embedding out of range": lambda ns: ns.F.embedding(_t(ns, [3]), ns.lib.ones(3, 2)),
    "embedding negative": lambda ns: ns.F.embedding(_t(ns, [-1]), ns.lib.ones(3, 2)),
    "embedding 1-D weight": lambda ns: ns.F.embedding(_t(ns, [1]), ns.lib.ones(3)),
    "embedding padding high": lambda ns: ns.F.embedding(_t(ns, [1]), ns.lib.ones(3, 2), padding_idx=3),
    "embedding padding low": lambda ns: ns.F.embedding(_t(ns, [1]), ns.lib.ones(3, 2), padding_idx=-4),
    "Embedding padding": lambda ns: ns.Embedding(3, 2, padding_idx=5),
    "Embedding weight shape": lambda ns: ns.Embedding(3, 2, _weight=ns.lib.ones(3, 3)),
    "Embedding pretrained 1-D": lambda ns: ns.Embedding.from_pretrained(ns.lib.ones(3)),
    "leaky_relu long": lambda ns: ns.F.leaky_relu(_t(ns, [1, -2])),
    "leaky_relu bool": lambda ns: ns.F.leaky_relu(_t(ns, [True])),
    "leaky_relu_ leaf": lambda ns: ns.F.leaky_relu(ns.lib.ones(2, requires_grad=True), inplace=True),
    "leaky_relu_ negative slope": lambda ns: ns.F.leaky_relu(ns.lib.ones(2, requires_grad=True) * 1, -0.5,
                                                             inplace=True).sum().backward(),
    "gelu approximate": lambda ns: ns.F.gelu(ns.lib.ones(2), approximate="erf"),
    "gelu long": lambda ns: ns.F.gelu(_t(ns, [1, 2])),
    "nll batch": lambda ns: ns.F.nll_loss(ns.lib.ones(4, 5), _t(ns, [0, 1, 2])),
    "nll out of bounds": lambda ns: ns.F.nll_loss(ns.lib.ones(4, 5), _t(ns, [0, 1, 5, 2])),
    "nll negative": lambda ns: ns.F.nll_loss(ns.lib.ones(4, 5), _t(ns, [0, -1, 2, 2])),
    "nll 0-d target": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 3), _t(ns, 1)),
    "nll 4-D weight grad": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 3, 2, 2), ns.lib.zeros(2, 2, 2).long(),
                                                    ns.lib.ones(3, requires_grad=True)),
    "nll float target": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0.0, 1.0])),
    "nll int target": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0, 1], "int32")),
    "nll 0-d input": lambda ns: ns.F.nll_loss(_t(ns, 1.0), _t(ns, 0)),
    "nll weight size": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0, 1]), ns.lib.ones(3)),
    "nll weight 2-D": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0, 1]), ns.lib.ones(1, 5)),
    "nll weight dtype": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0, 1]), ns.lib.ones(5).double()),
    "nll weight grad": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0, 1]), ns.lib.ones(5, requires_grad=True)),
    "nll reduction": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [0, 1]), reduction="avg"),
    "nll 1-D input, 2 targets": lambda ns: ns.F.nll_loss(ns.lib.ones(5), _t(ns, [0, 1])),
    "nll 2-D target": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 5), _t(ns, [[0], [1]])),
    "nll 3-D target size": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 4, 3), _t(ns, [[0, 1], [1, 1]])),
    "nll 4-D target dims": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 4, 3, 3), _t(ns, [[0, 1, 1], [1, 1, 0]])),
    "nll 4-D target size": lambda ns: ns.F.nll_loss(ns.lib.ones(2, 4, 3, 3), ns.lib.zeros(2, 2, 3).long()),
    "nll long input": lambda ns: ns.F.nll_loss(_t(ns, [[1, 2]]), _t(ns, [0])),
    "ce smoothing > 1": lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), _t(ns, [0, 1]), label_smoothing=1.5),
    "ce probabilities smoothing > 1": lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), ns.lib.ones(2, 3),
                                                                    label_smoothing=1.5),
    "ce probabilities weight": lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), ns.lib.ones(2, 3), ns.lib.ones(2)),
    "ce probabilities long": lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), ns.lib.ones(2, 3).long()),
    "ce probabilities ignore_index": lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), ns.lib.ones(2, 3),
                                                                   ignore_index=1),
    "ce smoothing out of bounds": lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), _t(ns, [5, 0]), label_smoothing=0.3),
    "ce long input": lambda ns: ns.F.cross_entropy(_t(ns, [[1, 2]]), _t(ns, [0])),
    "bce input > 1": lambda ns: ns.F.binary_cross_entropy(_t(ns, [1.5]), _t(ns, [1.0])),
    "bce input nan": lambda ns: ns.F.binary_cross_entropy(_t(ns, [float("nan")]), _t(ns, [1.0])),
    "bce target": lambda ns: ns.F.binary_cross_entropy(_t(ns, [0.5, 0.5]), _t(ns, [2.0, 0.0])),
    "bce size": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(3), ns.lib.ones(3, 1)),
    "bce long target": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(3), ns.lib.ones(3).long()),
    "bce double target": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(3), ns.lib.ones(3).double()),
    "bce long input": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(3).long(), ns.lib.ones(3).long()),
    "bce weight shape": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(2, 3), ns.lib.ones(2, 3), ns.lib.ones(4)),
    "bce weight grad": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(3), ns.lib.ones(3),
                                                            ns.lib.ones(3, requires_grad=True)),
    "bce reduction": lambda ns: ns.F.binary_cross_entropy(ns.lib.ones(3), ns.lib.ones(3), reduction="x"),
    "bcel size": lambda ns: ns.F.binary_cross_entropy_with_logits(ns.lib.ones(3), ns.lib.ones(3, 1)),
    "bcel long target": lambda ns: ns.F.binary_cross_entropy_with_logits(ns.lib.ones(3), ns.lib.ones(3).long()),
    "bcel weight shape": lambda ns: ns.F.binary_cross_entropy_with_logits(ns.lib.ones(2, 3), ns.lib.ones(2, 3),
                                                                          ns.lib.ones(4)),
    "bcel pos_weight shape": lambda ns: ns.F.binary_cross_entropy_with_logits(ns.lib.ones(2, 3), ns.lib.ones(2, 3),
                                                                              pos_weight=ns.lib.ones(4)),
    "bcel pos_weight grad": lambda ns: ns.F.binary_cross_entropy_with_logits(
        ns.lib.ones(3), ns.lib.ones(3), pos_weight=ns.lib.ones(3, requires_grad=True)),
    "l1 reduction": lambda ns: ns.F.l1_loss(ns.lib.ones(3), ns.lib.ones(3), reduction="x"),
    "l1 weight size": lambda ns: ns.F.l1_loss(ns.lib.ones(3), ns.lib.ones(3), weight=ns.lib.ones(2)),
}


def _outcome(program, ns):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            program(ns)
        except Exception as error:  # noqa: BLE001 - the error is what we compare
            return type(error).__name__, normalise(str(error))
    return "no error", ""


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("label", list(_ERRORS))
def test_errors_like_pytorch(label):
    got, want = _outcome(_ERRORS[label], _glass_namespace()), _outcome(_ERRORS[label], _torch_namespace())
    assert want[0] != "no error"
    if label == "group_norm bias":  # PyTorch's message shows the *weight's* shape there ([0] when it is None)
        got, want = (got[0], got[1].split(" of shape")[0]), (want[0], want[1].split(" of shape")[0])
    assert got == want


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("program", [
    lambda ns: ns.F.l1_loss(ns.lib.ones(2, 3), ns.lib.ones(3)),
    lambda ns: ns.F.nll_loss(ns.lib.ones(2, 3), ns.lib.tensor([0, 1]), size_average=False),
    lambda ns: ns.F.cross_entropy(ns.lib.ones(2, 3), ns.lib.tensor([0, 1]), reduce=False),
    lambda ns: ns.L1Loss(size_average=True, reduce=True),
    lambda ns: ns.BCEWithLogitsLoss(reduce=False),
])
def test_warnings_and_legacy_reductions_like_pytorch(program):
    seen = []
    for ns in (_glass_namespace(), _torch_namespace()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = program(ns)
        value = result.reduction if hasattr(result, "reduction") else result.detach().numpy().tolist()
        seen.append(([normalise(str(w.message)) for w in caught], value))
    assert seen[0] == seen[1] and seen[0][0]
