"""Chapter 05 exercises: the backward of mul and of mm, and the engine's dependency-counted order.

Each backward exercise is checked twice: on its own (arrays in, arrays out) and plugged into the
package, where a small model trains for a few steps with the learner's formula in place of
glasstorch's.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch._tensor import Tensor
from glasstorch.autograd.engine import execute
from glasstorch.autograd.graph import Node
from glasstorch.ops.arithmetic import MulBackward0
from glasstorch.ops.linalg import MmBackward0

from ..checking import Case, exercise, replaced
from ._harness import descend, normals, random_graph, random_seed

# -- shared by both backward exercises ------------------------------------------------------------


def _reference_backward(op: Callable[[Tensor, Tensor], Tensor]) -> Callable[..., tuple]:
    """glasstorch's own answer: run ``op`` forward and let autograd compute both gradients."""
    @glasstorch.enable_grad()  # it also runs inside the engine, plugged in as the reference
    def backward(grad: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple:
        ta = glasstorch.from_numpy(a).requires_grad_()
        tb = glasstorch.from_numpy(b).requires_grad_()
        out = op(ta, tb)
        out.backward(glasstorch.from_numpy(grad))
        return ta.grad.numpy(), tb.grad.numpy()
    return backward


def _plugged(learner_backward: Callable[..., tuple]) -> Callable[[Node, Tensor], tuple]:
    """A Node ``backward`` that calls the learner's array function: what is plugged into the package."""
    def backward(node: Node, grad: Tensor) -> tuple:
        second = node._saved_mat2 if isinstance(node, MmBackward0) else node._saved_other
        a, b = node._saved_self.detach().numpy(), second.detach().numpy()
        dtype = grad.numpy().dtype
        return tuple(glasstorch.from_numpy(np.asarray(g, dtype=dtype)) for g in learner_backward(grad.numpy(), a, b))
    return backward


def _train(node_class: type, learner_backward: Callable[..., tuple] | None, model: str,
           x: np.ndarray, target: np.ndarray) -> dict:
    """Train a tiny model for 10 SGD steps, with ``learner_backward`` in place of ``node_class``'s
    backward (or glasstorch's own when None). Returns the losses and the final weights."""
    glasstorch.manual_seed(0)
    features = x.shape[1]
    w = glasstorch.full((features, 1) if model == "mm" else (features,), 0.1, requires_grad=True)
    # the inputs require grad too, so that the Node saves both operands and asks for both gradients
    inputs, targets = glasstorch.from_numpy(x).requires_grad_(), glasstorch.from_numpy(target)

    def loss() -> Tensor:
        prediction = inputs.mm(w).squeeze(1) if model == "mm" else (inputs * w).sum(1)
        return ((prediction - targets) ** 2).mean()

    with replaced(node_class, "backward", _plugged(learner_backward)) if learner_backward else nullcontext():
        losses = descend(w, loss)
    return {"losses": losses, "w": w}


def _training_case(node_class: type, model: str, reference: Callable[..., tuple], rng: np.random.Generator) -> Case:
    x = rng.standard_normal((16, 3)).astype(np.float32)
    target = (x @ np.array([1.5, -2.0, 0.5], np.float32)).astype(np.float32)

    def observe(impl: Callable[..., tuple], *inputs: Any) -> dict:
        # the reference is autograd itself: plugged in, it would call the Node it replaces
        return _train(node_class, None if impl is reference else impl, *inputs)

    return Case(
        f"inside glasstorch: 10 steps of linear regression with your backward ({model})",
        (model, x, target),
        observe=observe,
        hint="the unit cases above pass but training does not match: check the dtype you return "
             "(keep the incoming gradient's) and that each gradient has its own input's shape.",
    )


# -- 05.mul_backward ------------------------------------------------------------------------------

_mul_reference = _reference_backward(lambda a, b: a * b)

def _mul_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("same shapes (2, 3) * (2, 3)", normals(rng, (2, 3), (2, 3), (2, 3))),
        Case("float64 (4,) * (4,)", normals(rng, (4,), (4,), (4,), dtype=np.float64)),
        Case("broadcast (3, 1) * (1, 4)", normals(rng, (3, 4), (3, 1), (1, 4)),
             hint="a has shape (3, 1) but grad has (3, 4): sum grad * b over the dimensions "
                  "broadcasting stretched (axis 1, keepdims) so grad_a gets a's shape."),
        Case("broadcast (2, 3, 4) * (4,)", normals(rng, (2, 3, 4), (2, 3, 4), (4,)),
             hint="b has fewer dimensions than the output: sum over the leading dimensions "
                  "broadcasting added, then over the ones where b had size 1."),
        Case("a scalar tensor () * (2, 2)", normals(rng, (2, 2), (), (2, 2))),
        _training_case(MulBackward0, "mul", _mul_reference, rng),
    ]


exercise(
    id="05.mul_backward",
    entry="mul_backward",
    title="the backward of mul, with broadcasting",
    cases=_mul_cases,
    reference=_mul_reference,
    hint="d(a*b)/da = b and d(a*b)/db = a, so grad_a = grad * b and grad_b = grad * a; then each "
         "must be summed back to its own input's shape (unbroadcast).",
)


# -- 05.mm_backward -------------------------------------------------------------------------------

_mm_reference = _reference_backward(lambda a, b: a.mm(b))

def _mm_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("square (3, 3) @ (3, 3)", normals(rng, (3, 3), (3, 3), (3, 3))),
        Case("rectangular (2, 4) @ (4, 5)", normals(rng, (2, 5), (2, 4), (4, 5)),
             hint="with out = a @ b of shape (2, 5): grad_a = grad @ b.T has a's shape (2, 4), "
                  "grad_b = a.T @ grad has b's shape (4, 5). Check the shapes first."),
        Case("a row times a matrix (1, 3) @ (3, 2)", normals(rng, (1, 2), (1, 3), (3, 2))),
        Case("float64 (5, 2) @ (2, 3)", normals(rng, (5, 3), (5, 2), (2, 3), dtype=np.float64)),
        _training_case(MmBackward0, "mm", _mm_reference, rng),
    ]


exercise(
    id="05.mm_backward",
    entry="mm_backward",
    title="the backward of a matrix product",
    cases=_mm_cases,
    reference=_mm_reference,
    hint="for out = a @ b: grad_a = grad @ b.T and grad_b = a.T @ grad. The order matters; the "
         "shapes tell you which one is right.",
)


# -- 05.run_backward ------------------------------------------------------------------------------

def _seed_example() -> tuple:
    w = glasstorch.tensor([1.0], requires_grad=True)
    x = glasstorch.tensor([2.0], requires_grad=True)
    y = (x + w) * (w + 1)
    return y, {"w": w, "x": x}


def _diamond() -> tuple:
    a = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    c = b.exp() + b * b  # b feeds two Nodes: its gradient must be the sum of both, before b runs
    d = c.sum() * a.sum()
    return d, {"a": a}


def _shared_leaf() -> tuple:
    x = glasstorch.tensor(3.0, requires_grad=True)
    y = x * x * x + x  # dy/dx = 3x² + 1 = 28
    return y, {"x": x}


def _long_chain(length: int = 20_000) -> Callable[[], tuple]:
    def build() -> tuple:
        x = glasstorch.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(length):
            y = y * 1.0001
        return y, {"x": x}
    return build


_DEEP_HINT = ("a recursive walk overflows Python's stack on a long chain: keep your own stack (a list) "
              "of Nodes to visit, both to count dependencies and to run.")
_GRAPHS = {  # name: (builder, hint when it fails)
    "the seeds' y = (x + w) * (w + 1)": (_seed_example, None),
    "a diamond: b feeds two paths": (_diamond, "b's Node must wait for the gradients of *both* Nodes "
                                               "that use b, and then run once, with their sum."),
    "one leaf used three times": (_shared_leaf, None),
    "a chain of 20,000 multiplications": (_long_chain(), _DEEP_HINT),
}


def _count_runs(root: Node) -> dict:
    """Make every Node of the graph count the times its backward runs: {node: [count]}."""
    counts: dict = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node in counts:
            continue
        counts[node] = count = [0]

        def counting(grad: Tensor, _backward: Callable = node.backward, _count: list = count) -> tuple:
            _count[0] += 1
            return _backward(grad)

        node.backward = counting  # an instance attribute: node(grad) and the engine both call it
        stack.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return counts


def _observe_engine(run_backward: Callable[[Node, Tensor], Any], graph: str) -> dict:
    root, leaves = _GRAPHS[graph][0]()
    return _run_and_observe(run_backward, root, leaves)


def _observe_random_engine(run_backward: Callable[[Node, Tensor], Any], seed: int) -> dict:
    root, leaves = random_graph(seed)
    return _run_and_observe(run_backward, root, leaves)


def _run_and_observe(run_backward: Callable[[Node, Tensor], Any], root: Tensor, leaves: dict) -> dict:
    counts = _count_runs(root.grad_fn)
    run_backward(root.grad_fn, glasstorch.ones_like(root))
    observed = {"Nodes that did not run exactly once":
                sorted(node.name() for node, count in counts.items() if count[0] != 1)}
    for name, leaf in leaves.items():
        observed[f"{name}.grad"] = leaf.grad
        # the engine runs backward formulas with grad mode off: a .grad has no history of its own
        observed[f"{name}.grad.requires_grad"] = None if leaf.grad is None else leaf.grad.requires_grad
    return observed


def _engine_reference(root: Node, grad: Tensor) -> None:
    execute([root], [grad], keep_graph=False, create_graph=False)


def _engine_cases(rng: np.random.Generator) -> list[Case]:
    return [Case(name, (name,), hint=hint) for name, (_, hint) in _GRAPHS.items()] + [
        Case("a graph drawn from the grader's seed", (random_seed(rng),), observe=_observe_random_engine,
             hint="leaves that do not require grad get no .grad; a result reused along several paths "
                  "must wait for all of them")]


exercise(
    id="05.run_backward",
    entry="run_backward",
    title="the engine: dependency counting and execution order",
    cases=_engine_cases,
    reference=_engine_reference,
    observe=_observe_engine,
    hint="first walk the graph from the root and count, for every Node, how many edges point into "
         "it; then run a Node only when its count has dropped to zero, adding up the gradients "
         "that several Nodes send to the same one. Run it all under `torch.no_grad()`: the engine "
         "does not record the backward formulas themselves (only create_graph=True would).",
)
