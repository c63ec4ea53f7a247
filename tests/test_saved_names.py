"""Every Node saves what PyTorch's saves, under PyTorch's names (issue 13, section 2).

PyTorch's generated Nodes show what they saved for backward as ``grad_fn._saved_<name>``
(``_saved_self``, ``_saved_alpha``, ``_saved_dim`` ...). For every call of the op tables
(``OP_CASES`` of test_vs_torch.py, ``CASES`` of test_tensor_api.py, and ``NN_CASES`` below for the
nn ops those two do not reach), the call runs in both libraries, and every ``_saved_*`` name that
PyTorch 2.13 shows on the output's ``grad_fn`` must exist on glasstorch's and hold the same value:
a tensor the same dtype, shape and values; a tuple, int, float, bool, str or None equal.

Two of PyTorch's encodings are normalised before comparing: a saved ``int64`` is shown as an
unsigned 64-bit number, so a negative one (``dim=-1``, ``index=-1``, ``ignore_index=-100``, the
``padding_idx=-1`` that means "none") reads as ``2**64 - n``, where glasstorch stores the signed value
PyTorch was given; and a Python number saved as a tensor (``x * 2``'s ``other``) is wrapped by
PyTorch in a 0-d tensor, where glasstorch keeps the number. (A slice without an end is given ``sys.maxsize``, as CPython hands it to
PyTorch; a loss's ``reduction`` is the int of PyTorch's enum, none=0, mean=1, sum=2: both are
stored as PyTorch stores them, nothing to normalise.)

Where glasstorch records a different Node than PyTorch on purpose (its docstring says so), the
call is skipped, with the reason, in ``DIFFERENT_NODES``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

import glasstorch  # noqa: E402
from test_tensor_api import CASES as TENSOR_API_CASES  # noqa: E402
from pytorch_oracle import assert_same_saved, pytorch_saved_state  # noqa: E402
from test_vs_torch import OP_CASES, data, grad_fn_name, positive, torch_name  # noqa: E402

pytestmark = pytest.mark.torch


def _f(lib):
    return lib.nn.functional


def _pad(lib, x, pad, mode):
    """``F.pad``: glasstorch pads only for its convolution layers' padding modes (and takes the
    padding as (before, after) pairs in dim order)."""
    if lib is torch:
        return torch.nn.functional.pad(x, pad, mode=mode)
    from glasstorch.ops.conv import _pairs, pad_for_convolution

    return pad_for_convolution(x, _pairs(pad), mode)


def _erf(lib, x):
    if lib is torch:
        return torch.erf(x)
    from glasstorch.ops.activation import erf

    return erf(x)


def _probabilities(shape, seed=0):
    return 1 / (1 + np.exp(-data(shape, seed)))


IMAGE = data((2, 3, 5, 5))
TARGETS = np.array([0, 2, 1, 2])

# the nn ops: name -> (inputs, function of (lib, *leaves)); constants are made inside the function
NN_CASES = {
    # activations
    "leaky_relu": ([data((2, 3))], lambda lib, a: _f(lib).leaky_relu(a, 0.2)),
    "leaky_relu_inplace": ([data((2, 3))], lambda lib, a: _f(lib).leaky_relu(a * 1, 0.3, inplace=True)),
    "gelu": ([data((2, 3))], lambda lib, a: _f(lib).gelu(a)),
    "gelu_tanh": ([data((2, 3))], lambda lib, a: _f(lib).gelu(a, approximate="tanh")),
    "erf": ([data((2, 3))], lambda lib, a: _erf(lib, a)),
    # normalisation
    "layer_norm": ([IMAGE, data((5,), 1), data((5,), 2)], lambda lib, x, w, b: _f(lib).layer_norm(x, (5,), w, b)),
    "layer_norm_no_affine": ([IMAGE], lambda lib, x: _f(lib).layer_norm(x, (5, 5), eps=1e-3)),
    "group_norm": ([IMAGE, data((3,), 1), data((3,), 2)], lambda lib, x, w, b: _f(lib).group_norm(x, 3, w, b)),
    "group_norm_no_affine": ([data((2, 4, 3))], lambda lib, x: _f(lib).group_norm(x, 2, eps=1e-4)),
    # embedding
    "embedding": ([data((10, 3))], lambda lib, w: _f(lib).embedding(lib.tensor([[1, 2], [4, 1]]), w)),
    "embedding_padding_scale": ([data((10, 3))], lambda lib, w: _f(lib).embedding(
        lib.tensor([1, 2, 1, 9]), w, padding_idx=-1, scale_grad_by_freq=True)),
    # losses
    "mse_loss": ([data((3, 4)), data((3, 4), 1)], lambda lib, a, t: _f(lib).mse_loss(a, t)),
    "mse_loss_sum": ([data((3, 4))], lambda lib, a: _f(lib).mse_loss(a, lib.tensor(data((3, 4), 1)), reduction="sum")),
    "mse_loss_none": ([data((3, 4))], lambda lib, a: _f(lib).mse_loss(a, lib.tensor(data((3, 4), 1)), reduction="none")),
    "nll_loss": ([data((4, 3))], lambda lib, a: _f(lib).nll_loss(a, lib.tensor(TARGETS))),
    "nll_loss_weight_ignore_sum": ([data((4, 3))], lambda lib, a: _f(lib).nll_loss(
        a, lib.tensor(TARGETS), weight=lib.tensor(positive((3,), 1)), ignore_index=1, reduction="sum")),
    "nll_loss_none": ([data((4, 3))], lambda lib, a: _f(lib).nll_loss(a, lib.tensor(TARGETS), reduction="none")),
    "nll_loss_2d": ([data((2, 3, 2, 2))], lambda lib, a: _f(lib).nll_loss(a, lib.tensor(TARGETS.reshape(1, 2, 2).repeat(2, 0)))),
    "cross_entropy": ([data((4, 3))], lambda lib, a: _f(lib).cross_entropy(a, lib.tensor(TARGETS))),
    "cross_entropy_weight": ([data((4, 3))], lambda lib, a: _f(lib).cross_entropy(
        a, lib.tensor(TARGETS), weight=lib.tensor(positive((3,), 2)), ignore_index=0)),
    "binary_cross_entropy": ([_probabilities((2, 3))], lambda lib, p: _f(lib).binary_cross_entropy(
        p, lib.tensor(_probabilities((2, 3), 1)))),
    "binary_cross_entropy_weight_sum": ([_probabilities((2, 3))], lambda lib, p: _f(lib).binary_cross_entropy(
        p, lib.tensor(_probabilities((2, 3), 1)), weight=lib.tensor(positive((2, 3), 2)), reduction="sum")),
    "bce_with_logits": ([data((2, 3)), _probabilities((2, 3), 1)],
                        lambda lib, a, t: _f(lib).binary_cross_entropy_with_logits(a, t)),
    "bce_with_logits_weights": ([data((2, 3))], lambda lib, a: _f(lib).binary_cross_entropy_with_logits(
        a, lib.tensor(_probabilities((2, 3), 1)), weight=lib.tensor(positive((3,), 2)),
        pos_weight=lib.tensor(positive((3,), 3)), reduction="none")),
    "l1_loss": ([data((2, 3)), data((2, 3), 1)], lambda lib, a, t: _f(lib).l1_loss(a, t)),
    # convolutions
    "conv1d": ([data((2, 2, 7)), data((3, 2, 3), 1)], lambda lib, x, w: _f(lib).conv1d(x, w)),
    "conv2d_bias_stride_padding": ([IMAGE, data((4, 3, 3, 3), 1), data((4,), 2)],
                                   lambda lib, x, w, b: _f(lib).conv2d(x, w, b, stride=2, padding=1)),
    "conv2d_groups_dilation": ([data((1, 4, 6, 6)), data((2, 2, 2, 2), 1)],
                               lambda lib, x, w: _f(lib).conv2d(x, w, groups=2, dilation=(2, 1), padding=(1, 0))),
    "conv2d_constant_input": ([data((4, 3, 3, 3), 1)], lambda lib, w: _f(lib).conv2d(lib.tensor(IMAGE), w)),
    "conv3d": ([data((1, 2, 4, 4, 4)), data((2, 2, 2, 2, 2), 1)], lambda lib, x, w: _f(lib).conv3d(x, w, stride=(1, 2, 1))),
    # pooling
    "max_pool2d": ([IMAGE], lambda lib, x: _f(lib).max_pool2d(x, 2)),
    "max_pool2d_all_arguments": ([IMAGE], lambda lib, x: _f(lib).max_pool2d(x, 3, 2, 1, 1, True)),
    "max_pool2d_with_indices": ([IMAGE], lambda lib, x: _f(lib).max_pool2d(x, (2, 3), return_indices=True)),
    "max_pool3d": ([data((1, 2, 4, 4, 4))], lambda lib, x: _f(lib).max_pool3d(x, 2, stride=(1, 2, 2))),
    "max_pool1d": ([data((2, 3, 6))], lambda lib, x: _f(lib).max_pool1d(x, 2)),
    "avg_pool2d": ([IMAGE], lambda lib, x: _f(lib).avg_pool2d(x, 2)),
    "avg_pool2d_all_arguments": ([IMAGE], lambda lib, x: _f(lib).avg_pool2d(x, 3, 1, 1, True, False, 2)),
    "adaptive_avg_pool2d": ([IMAGE], lambda lib, x: _f(lib).adaptive_avg_pool2d(x, (2, 3))),
    "adaptive_avg_pool2d_to_one": ([IMAGE], lambda lib, x: _f(lib).adaptive_avg_pool2d(x, 1)),
    # padding
    "pad_constant": ([IMAGE], lambda lib, x: _pad(lib, x, (1, 2, 0, 1), "constant")),
    "pad_constant_crop": ([IMAGE], lambda lib, x: _pad(lib, x, (-1, 2), "constant")),
    "pad_reflect": ([IMAGE], lambda lib, x: _pad(lib, x, (1, 2, 2, 1), "reflect")),
    "pad_reflect_1d": ([data((2, 3, 5))], lambda lib, x: _pad(lib, x, (2, 1), "reflect")),
    "pad_replicate": ([IMAGE], lambda lib, x: _pad(lib, x, (1, 1, 0, 2), "replicate")),
    "pad_replicate_3d": ([data((1, 1, 3, 3, 3))], lambda lib, x: _pad(lib, x, (1, 0, 0, 1, 1, 1), "replicate")),
    "pad_circular": ([IMAGE], lambda lib, x: _pad(lib, x, (1, 1, 1, 1), "circular")),
    # random numbers (the saved state is sizes, the same whatever was drawn)
    "normal_mean_tensor": ([data((2, 3))], lambda lib, a: lib.normal(a, 0.5)),
    "normal_std_tensor": ([positive((3,))], lambda lib, s: lib.normal(1.0, s)),
    "normal_both_tensors": ([data((2, 3)), positive((3,), 1)], lambda lib, a, s: lib.normal(a, s)),
    "bernoulli": ([_probabilities((2, 3))], lambda lib, p: lib.bernoulli(p)),
    "uniform_": ([data((2, 3))], lambda lib, a: (a * 1).uniform_()),
    "normal_": ([data((2, 3))], lambda lib, a: (a * 1).normal_()),
}

# Calls where glasstorch records a different Node than PyTorch, on purpose: {case: reason}
DIFFERENT_NODES = {
    **{case: "glasstorch records one EinsumBackward0 where PyTorch records permutes, views and bmm (ops/einsum.py)"
       for case in TENSOR_API_CASES if case.startswith("einsum")},
}

TABLES = {"vs_torch": OP_CASES, "tensor_api": TENSOR_API_CASES, "nn": NN_CASES}
ALL_CASES = [(table, case) for table, cases in TABLES.items() for case in sorted(cases)]


def _call(table, case, lib):
    """The Node of the case's first output that has one (the values of ``max(dim)``, say)."""
    inputs, function = TABLES[table][case][:2]
    leaves = [lib.tensor(array, requires_grad=True) for array in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = function(lib, *leaves)
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    return next((o.grad_fn for o in outputs if isinstance(o, lib.Tensor) and o.grad_fn is not None), None)


@pytest.mark.parametrize("table, case", ALL_CASES, ids=[f"{t}:{c}" for t, c in ALL_CASES])
def test_saved_state_as_pytorch(table, case):
    if case in DIFFERENT_NODES:
        pytest.skip(DIFFERENT_NODES[case])
    want_node = _call(table, case, torch)
    got_node = _call(table, case, glasstorch)
    if want_node is None:
        assert got_node is None, f"PyTorch records no Node, glasstorch {got_node.name()}"
        return
    assert got_node is not None, f"glasstorch records no Node, PyTorch {type(want_node).__name__}"
    want_name, got_name = type(want_node).__name__, got_node.name()
    assert got_name == torch_name(want_name).replace("glasstorch::autograd::", ""), (
        f"glasstorch records {got_name}, PyTorch {want_name}: if on purpose, add the reason to DIFFERENT_NODES")
    for name, value in pytorch_saved_state(want_node).items():
        assert hasattr(got_node, name), f"{got_name} has no {name}"
        assert_same_saved(getattr(got_node, name), value, f"{got_name}.{name}")


def test_the_tables_cover_every_node_family():
    """At least one call per file of glasstorch/ops that records a Node with saved state."""
    recorded = set()
    for table, case in ALL_CASES:
        if case not in DIFFERENT_NODES:
            node = _call(table, case, glasstorch)
            if node is not None:
                recorded.add(type(node).__module__.rsplit(".", 1)[-1])
    assert {"arithmetic", "pointwise", "linalg", "reduction", "shape", "indexing", "comparison", "activation",
            "normalization", "embedding", "loss", "conv", "pooling", "conversion", "inplace", "random_ops",
            "scatter_gather", "sorting"} <= recorded
    assert len(ALL_CASES) - len(DIFFERENT_NODES) >= 60
