"""Chapter 03 (autograd from scratch) against glasstorch and real PyTorch.

The chapter builds a scalar ``Value`` and claims that it computes what glasstorch and PyTorch
compute, and that each of its bugs maps onto something PyTorch does. These tests take the
chapter's own ``Value`` (its notebook's code, run in-process) and check those claims: the same
gradients as both libraries, the Node names its table gives, accumulation for a value used twice,
backward twice (doubling with ``retain_graph=True``, PyTorch's error without it), the deep chain
(the chapter's recursive order fails, both engines do not), and the same training run as a
tensor network with the same weights.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from course_support import notebook_namespace

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 03's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch

CHAPTER = Path(__file__).resolve().parents[1] / "book" / "03_autograd_from_scratch.ipynb"
LIBRARIES = {"glasstorch": glasstorch, "torch": torch}


@pytest.fixture(scope="module")
def chapter() -> dict:
    return notebook_namespace(CHAPTER)


EXPRESSIONS = {
    "the chapter's L = (a * b + c) * f": lambda a, b, c: (a * b + c) * -4.0,
    "the compare cell's expression": lambda a, b, c: (a * b + c).tanh() * 2 + (a / c) ** 2 - (b * 0.5).exp(),
    "numbers on the left: 2 - a, 3 / c, 1 + b, 2 * a": lambda a, b, c: (2 - a) * (3 / c) + (1 + b) * (2 * a),
    "negation, subtraction, a float power": lambda a, b, c: -(a - b) ** 3 + (c * c) ** 0.5 - a.exp() / c,
    "a value used several times": lambda a, b, c: a * a * a + a * b - (a + a).tanh() * c,
}


def value_gradients(Value, expression, point):  # noqa: N803 - the chapter's class
    leaves = [Value(x) for x in point]
    expression(*leaves).backward()
    return [v.grad for v in leaves]


def tensor_gradients(lib, expression, point):
    leaves = [lib.tensor(x, dtype=lib.float64, requires_grad=True) for x in point]
    expression(*leaves).backward()
    return [t.grad.item() for t in leaves]


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_value_gives_the_gradients_of_glasstorch_and_pytorch(chapter, name):
    rng = np.random.default_rng(3)
    for _ in range(5):
        point = [float(rng.uniform(0.5, 2.0)), float(rng.uniform(-2.0, -0.5)), float(rng.uniform(1.0, 3.0))]
        ours = value_gradients(chapter["Value"], EXPRESSIONS[name], point)
        for lib in LIBRARIES.values():
            assert np.allclose(ours, tensor_gradients(lib, EXPRESSIONS[name], point), rtol=1e-10, atol=1e-12)


def test_the_chapters_hand_computed_gradients(chapter):
    grads = {name: value.grad for name, value in chapter["names"].items()}
    assert grads == {"a": 8.0, "b": -12.0, "c": -4.0, "f": 2.0, "e": -4.0, "d": -4.0, "L": 1.0}


NODES = {  # each operation of the chapter: its Value _op, and the Node both libraries record
    "w + 2": (lambda w: w + 2, "+", "AddBackward0"),
    "w * 3": (lambda w: w * 3, "*", "MulBackward0"),
    "w ** 2": (lambda w: w ** 2, "**2", "PowBackward0"),
    "w.tanh()": (lambda w: w.tanh(), "tanh", "TanhBackward0"),
    "w.exp()": (lambda w: w.exp(), "exp", "ExpBackward0"),
}


@pytest.mark.parametrize("name", NODES)
def test_each_op_maps_to_the_node_the_chapters_table_names(chapter, name):
    expression, op, node = NODES[name]
    assert expression(chapter["Value"](0.5))._op == op
    for lib in LIBRARIES.values():
        assert type(expression(lib.tensor(0.5, requires_grad=True)).grad_fn).__name__ == node


def test_a_value_used_twice_accumulates_as_in_both_libraries(chapter):
    Value = chapter["Value"]  # noqa: N806
    a = Value(3.0)
    (a + a).backward()
    assert a.grad == 2.0
    with_assignment = chapter["add_assigning"]
    b = Value(3.0)
    twice = with_assignment(b, b)
    twice.grad = 1.0
    twice._backward()
    assert b.grad == 1.0  # the chapter's bug: the second write replaces the first
    for lib in LIBRARIES.values():
        t = lib.tensor(3.0, requires_grad=True)
        s = t + t
        (first, _), (second, _) = s.grad_fn.next_functions
        assert first is second and type(first).__name__ == "AccumulateGrad"
        s.backward()
        assert t.grad.item() == 2.0


def test_backward_twice_doubles_with_retain_graph_and_fails_without(chapter):
    Value = chapter["Value"]  # noqa: N806 - the chapter's fixed Value (section 7.2)
    a, b = Value(2.0), Value(-3.0)
    L = (a * b) ** 2
    L.backward()
    assert a.grad == 36.0
    L.backward()
    assert a.grad == 72.0
    for lib in LIBRARIES.values():
        a, b = lib.tensor(2.0, requires_grad=True), lib.tensor(-3.0, requires_grad=True)
        L = (a * b) ** 2
        L.backward(retain_graph=True)
        L.backward()
        assert a.grad.item() == 72.0
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            L.backward()
    assert str(_second_backward_error(glasstorch)) == str(_second_backward_error(torch))


def _second_backward_error(lib):
    w = lib.tensor(2.0, requires_grad=True)
    y = (w * w) ** 2
    y.backward()
    try:
        y.backward()
    except RuntimeError as error:
        return error
    raise AssertionError("the second backward did not fail")


def test_the_chapters_stale_gradient_bug_gives_108(chapter):
    """Section 7.2's first engine (no zeroing of computed values): 36, then 108."""
    Value = chapter["Value"]  # noqa: N806
    a, b = Value(2.0), Value(-3.0)
    ab = a * b
    L = ab ** 2
    for _ in range(2):
        L.grad = 1.0
        for value in reversed(chapter["topological_order"](L)):
            value._backward()
    assert (a.grad, ab.grad) == (108.0, -24.0)


def test_a_deep_chain_breaks_the_recursive_order_but_neither_engine(chapter):
    Value = chapter["Value"]  # noqa: N806
    x = Value(1.0)
    y = x
    for _ in range(5000):
        y = y * 1.0001
    with pytest.raises(RecursionError):
        chapter["topological_order"](y)
    for lib in LIBRARIES.values():
        t = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
        y = t
        for _ in range(5000):
            y = y * 1.0001
        y.backward()
        assert math.isclose(t.grad.item(), 1.0001 ** 5000, rel_tol=1e-12)


def _train_values(chapter, steps):
    model = chapter["MLP"]([3, 4, 1], random.Random(0))
    xs, ys = chapter["xs"], chapter["ys"]
    weights = [[[w.data for w in n.w] + [n.b.data] for n in layer.neurons] for layer in model.layers]
    losses = []
    for _ in range(steps):
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
        for p in model.parameters():
            p.grad = 0.0
        loss.backward()
        for p in model.parameters():
            p.data -= 0.1 * p.grad
        losses.append(loss.data)
    return weights, losses


def _train_tensors(lib, weights, xs, ys, steps):
    params = []
    for layer in weights:
        rows = np.array(layer)
        params += [lib.tensor(rows[:, :-1], dtype=lib.float64, requires_grad=True),
                   lib.tensor(rows[:, -1], dtype=lib.float64, requires_grad=True)]
    X, Y = lib.tensor(xs, dtype=lib.float64), lib.tensor(ys, dtype=lib.float64)  # noqa: N806
    losses = []
    for _ in range(steps):
        h = X
        for w, b in zip(params[::2], params[1::2]):
            h = (h @ w.T + b).tanh()
        loss = ((h.reshape(-1) - Y) ** 2).sum()
        for p in params:
            p.grad = None
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.1 * p.grad
        losses.append(loss.item())
    return losses


def test_training_the_value_network_matches_the_same_network_of_tensors(chapter):
    weights, losses = _train_values(chapter, 30)
    assert losses[0] > 4 and losses[-1] < 0.03  # the chapter's printout: 4.72 down to 0.02
    for lib in LIBRARIES.values():
        assert np.allclose(losses, _train_tensors(lib, weights, chapter["xs"], chapter["ys"], 30), rtol=1e-9)
