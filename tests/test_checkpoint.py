"""glasstorch.utils.checkpoint against torch.utils.checkpoint (PyTorch 2.13): the same values and
gradients as without checkpointing, fewer tensors saved for backward (counted with saved-tensor
hooks, as chapter 08 measures them), the random stream replayed for dropout, and PyTorch's
warnings and errors (use_reentrant not passed, keyword arguments with the reentrant variant, a
recomputation that saves something else, an input changed in place before backward)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck
from test_nn_vs_torch import normalise, outcomes, run

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
import torch.utils.checkpoint  # noqa: E402,F401  (torch.utils.checkpoint is loaded lazily)

pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
WEIGHTS = [(rng.standard_normal((6, 6)) / 3, rng.standard_normal(6) / 3) for _ in range(6)]
INPUT = rng.standard_normal((4, 6))


def rounded(value):
    """Floats to 10 significant digits, recursively: the two libraries' BLAS may differ in the last bits."""
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(v) for v in value)
    return value


def same_in_both(program):
    got, want = rounded(run(program, gt)), rounded(run(program, torch))
    assert got == want
    return got


def mlp(lib):
    """Six Linear+Tanh blocks with the same weights in both libraries."""
    blocks = []
    for weight, bias in WEIGHTS:
        linear = lib.nn.Linear(6, 6).double()
        with lib.no_grad():
            linear.weight.copy_(lib.tensor(weight))
            linear.bias.copy_(lib.tensor(bias))
        blocks.append(lib.nn.Sequential(linear, lib.nn.Tanh()))
    return blocks


def saved_bytes(lib, run):
    """(output, number of pack calls, bytes of distinct non-parameter tensors saved)."""
    packed = []

    def pack(tensor):
        packed.append(tensor)
        return tensor

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = run()
    return out, packed


def forward(lib, blocks, x, mode):
    checkpoint = lib.utils.checkpoint.checkpoint
    if mode == "plain":
        for block in blocks:
            x = block(x)
        return x
    if mode == "every block":
        for block in blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return x
    if mode == "sequential":
        return lib.utils.checkpoint.checkpoint_sequential(lib.nn.Sequential(*blocks), 3, x, use_reentrant=False)
    if mode == "reentrant":
        for block in blocks:
            x = checkpoint(block, x, use_reentrant=True)
        return x
    raise ValueError(mode)


@pytest.mark.parametrize("mode", ["plain", "every block", "sequential", "reentrant"])
def test_values_gradients_and_what_is_saved(mode):
    def program(lib):
        blocks = mlp(lib)
        x = lib.tensor(INPUT, requires_grad=True)
        out, packed = saved_bytes(lib, lambda: forward(lib, blocks, x, mode))
        parameters = {p.data_ptr() for block in blocks for p in block.parameters()}
        activations = {t.data_ptr(): t.numel() * t.element_size() for t in packed if t.data_ptr() not in parameters}
        (out ** 2).sum().backward()
        grads = [x.grad] + [p.grad for block in blocks for p in block.parameters()]
        return out, grads, len(packed), sum(activations.values())

    out, grads, count, nbytes = same_in_both(program)
    if mode == "every block":
        assert (count, nbytes) == (6, 6 * 4 * 6 * 8)  # only each block's input is kept


def test_checkpointing_saves_fewer_tensors_than_plain():
    counts = {}
    for mode in ("plain", "every block", "sequential"):
        blocks, x = mlp(gt), gt.tensor(INPUT, requires_grad=True)
        _, packed = saved_bytes(gt, lambda: forward(gt, blocks, x, mode))
        counts[mode] = len(packed)
    assert counts["every block"] < counts["sequential"] < counts["plain"]


def test_dropout_is_replayed_with_the_same_mask():
    """The recomputation draws the forward's random numbers again, and leaves the stream where it was
    (the two libraries' Dropout masks differ, so each is compared with itself)."""
    def program(lib):
        dropout = lib.nn.Dropout(0.5)
        x = lib.tensor(INPUT, requires_grad=True)
        lib.manual_seed(3)
        y = lib.utils.checkpoint.checkpoint(lambda h: dropout(h).sin(), x, use_reentrant=False)
        y.sum().backward()
        after_checkpoint = lib.rand(2)
        lib.manual_seed(3)
        z = dropout(x).sin()
        after_plain = lib.rand(2)
        same_mask = bool(((y != 0) == (x.grad != 0)).all())
        return same_mask, bool((y == z).all()), bool((after_checkpoint == after_plain).all())

    assert same_in_both(program) == (True, True, True)


def test_autograd_grad_and_double_backward_through_a_checkpoint():
    def program(lib):
        x = lib.tensor(INPUT, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda h: (h.sin() * h).sum(), x, use_reentrant=False)
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return y, g, gg

    same_in_both(program)


def test_retain_graph_recomputes_again():
    def program(lib):
        x = lib.tensor(INPUT, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda h: h.exp().sum(), x, use_reentrant=False)
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad

    same_in_both(program)


def test_warnings_and_errors():
    def program(lib):
        checkpoint = lib.utils.checkpoint.checkpoint
        x = lib.tensor(INPUT, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = checkpoint(lambda h: h.sin(), x)
            plain = checkpoint(lambda h: h.sin(), lib.tensor(INPUT), use_reentrant=True)
        messages = [str(w.message) for w in caught]
        y.sum().backward()

        state = {"calls": 0}

        def changes(h):  # saves four tensors the first time, one when recomputed
            state["calls"] += 1
            return h.sin() * h.cos() if state["calls"] == 1 else h.sin()

        z = lib.tensor(INPUT, requires_grad=True)
        changed = checkpoint(changes, z, use_reentrant=False)

        w = lib.tensor(INPUT, requires_grad=True) * 1
        modified = checkpoint(lambda h: h.sin(), w, use_reentrant=False)
        w.mul_(2)
        calls = [lambda: checkpoint(lambda h, scale: h * scale, x, use_reentrant=True, scale=2.0),
                 lambda: changed.sum().backward(), lambda: modified.sum().backward()]
        return messages, plain.requires_grad, x.grad, outcomes(calls)

    got = normalise(program(gt))
    want = normalise(program(torch))
    assert rounded(got[:3]) == rounded(want[:3])
    assert got[3][0] == want[3][0]  # ValueError: Unexpected keyword arguments: scale
    assert got[3][1][0] == want[3][1][0] == "CheckpointError"
    assert got[3][1][1].split("\n")[:3] == want[3][1][1].split("\n")[:3]  # the counts (PyTorch's tip differs)
    assert "Number of tensors saved during recomputation: 1." in got[3][1][1]
    assert got[3][2][0] == want[3][2][0] == "RuntimeError"
    assert "modified by an inplace operation" in got[3][2][1] and "modified by an inplace operation" in want[3][2][1]


def test_checkpoint_under_no_grad_and_inference_mode():
    def program(lib):
        checkpoint = lib.utils.checkpoint.checkpoint
        x = lib.tensor(INPUT, requires_grad=True)
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            with lib.no_grad():
                a = checkpoint(lambda h: h.sin(), x, use_reentrant=False)
            with lib.inference_mode():
                b = checkpoint(lambda h: h.sin(), lib.tensor(INPUT), use_reentrant=False)
        return a, a.requires_grad, b, b.is_inference(), len(packed)

    same_in_both(program)


def test_gradcheck_through_checkpoint():
    x = gt.tensor(INPUT, requires_grad=True)
    checkpoint = gt.utils.checkpoint.checkpoint
    assert gradcheck(lambda h: checkpoint(lambda t: (t.tanh() * t).exp(), h, use_reentrant=False), (x,))
