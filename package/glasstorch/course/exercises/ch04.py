"""Chapter 04 exercises: when an op records a Node (``compute_requires_grad``), collecting the autograd DAG from
its roots (the walk ``draw_graph`` uses), and recording an op yourself (``add`` with its
``AddBackward0``).

Each is checked on small graphs built fresh for every case, and plugged into the package: the
learner's rule decides for every op of glasstorch whether it records, the learner's walk numbers
the boxes of ``draw_graph``'s picture, and the learner's ``add`` serves as ``+`` while a small
model with a residual connection trains.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator

import numpy as np

import glasstorch
from glasstorch._tensor import Tensor
from glasstorch.autograd.graph import AccumulateGrad, Node, grad_accumulator
from glasstorch.ops import _util, arithmetic
from glasstorch.viz import dag

from ..checking import Case, exercise, replaced
from ._harness import descend, normal, random_graph, random_seed


def node_name(node: Node | None) -> str | None:
    """A Node as a learner reads it: its class name (None for a missing edge)."""
    return None if node is None else node.name()


def running_example() -> dict:
    """The chapter's y = (x + w) * (w + 1), with w = 1 and x = 2: every tensor, by name."""
    w = glasstorch.tensor([1.0], requires_grad=True)
    x = glasstorch.tensor([2.0], requires_grad=True)
    a = w + x
    b = w + 1
    return {"w": w, "x": x, "a": a, "b": b, "y": a * b}


# -- 04.compute_requires_grad -------------------------------------------------------------------------------

@contextlib.contextmanager
def _records_everywhere(impl: Callable[..., bool]) -> Iterator[None]:
    """Put ``impl`` in place of ``compute_requires_grad`` in every glasstorch module that imported it."""
    original = _util.compute_requires_grad
    with contextlib.ExitStack() as stack:
        for name, module in list(sys.modules.items()):
            if name.startswith("glasstorch.") and getattr(module, "compute_requires_grad", None) is original:
                stack.enter_context(replaced(module, "compute_requires_grad", impl))
        yield


def _make_input(spec: Any) -> Any:
    """A case's input: "leaf" requires grad, "constant" does not, "computed" has a grad_fn,
    "detached" is a computed tensor's detach(); numbers and None stay as they are."""
    if spec == "leaf":
        return glasstorch.tensor([1.0, 2.0], requires_grad=True)
    if spec == "constant":
        return glasstorch.tensor([3.0, 4.0])
    if spec == "computed":
        return glasstorch.tensor([1.0, 2.0], requires_grad=True) * 2
    if spec == "detached":
        return (glasstorch.tensor([1.0, 2.0], requires_grad=True) * 2).detach()
    return spec


_GRAD_MODES = {
    "on": contextlib.nullcontext,
    "no_grad": glasstorch.no_grad,
    "enable_grad inside no_grad": lambda: _nested(glasstorch.no_grad(), glasstorch.enable_grad()),
    "set_grad_enabled(False)": lambda: glasstorch.set_grad_enabled(False),
}


@contextlib.contextmanager
def _nested(*managers: Any) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for manager in managers:
            stack.enter_context(manager)
        yield


def _observe_records(impl: Callable[..., bool], mode: str, *specs: Any) -> Any:
    inputs = [_make_input(spec) for spec in specs]  # made with grad mode on
    with _GRAD_MODES[mode]():
        return impl(*inputs)


def _tensor_facts(t: Tensor) -> dict:
    return {"requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "grad_fn": node_name(t.grad_fn)}


def _records_inside_ops(impl: Callable[..., bool]) -> dict:
    """The chapter's examples, with the learner's rule deciding for every op whether it records."""
    with _records_everywhere(impl):
        t = running_example()
        c = glasstorch.tensor([3.0])
        observed = {name: _tensor_facts(t[name]) for name in ("a", "b", "y")}
        w, y = t["w"], t["y"]
        for name, result in {"w * c": w * c, "c * 2": c * 2, "c * c": c * c, "y * c": y * c,
                             "2 - w": 2 - w, "w.exp().sum()": w.exp().sum()}.items():
            observed[name] = _tensor_facts(result)
        with glasstorch.no_grad():
            observed["w * 2 under no_grad"] = _tensor_facts(t["w"] * 2)
        t["y"].backward()
        observed["w.grad, x.grad after y.backward()"] = [t["w"].grad, t["x"].grad]
    return observed


def _records_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("a leaf that requires grad and a constant", ("on", "leaf", "constant")),
        Case("two constants", ("on", "constant", "constant")),
        Case("a constant and a Python number", ("on", "constant", 2.0)),
        Case("a Python number, then a leaf (2 - w)", ("on", 2.0, "leaf"),
             hint="any input may require grad, not only the first; and a Python number has no "
                  "requires_grad attribute: getattr(value, 'requires_grad', False)"),
        Case("a computed tensor", ("on", "computed")),
        Case("a detached tensor", ("on", "detached")),
        Case("input, weight, bias=None (linear without bias)", ("on", "constant", "leaf", None),
             hint="ops pass every input, including None for an absent bias: it requires no grad"),
        Case("a constant, then two Python numbers", ("on", "constant", 1, 0.5)),
        Case("a leaf under torch.no_grad()", ("no_grad", "leaf"),
             hint="with recording switched off (torch.no_grad()), no op records: ask "
                  "torch.is_grad_enabled() first"),
        Case("a leaf under set_grad_enabled(False)", ("set_grad_enabled(False)", "constant", "leaf")),
        Case("a leaf under enable_grad inside no_grad", ("enable_grad inside no_grad", "leaf")),
        Case("inside glasstorch: the chapter's examples with your rule in every op", (),
             observe=_records_inside_ops),
        Case("ten sets of inputs drawn from the grader's seed", (random_seed(rng),), observe=_observe_random_records),
    ]


def _observe_random_records(impl: Callable[..., bool], seed: int) -> list[str]:
    """Ten calls, each with a grad mode and three to five inputs of kinds drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    kinds = ["leaf", "constant", "computed", "detached", 2.0, None]
    answers = []
    for _ in range(10):
        mode = list(_GRAD_MODES)[int(rng.integers(len(_GRAD_MODES)))]
        specs = [kinds[int(i)] for i in rng.integers(0, len(kinds), size=int(rng.integers(3, 6)))]
        answers.append(f"{mode}, {specs}: {_observe_records(impl, mode, *specs)}")
    return answers


exercise(
    id="04.compute_requires_grad",
    entry="compute_requires_grad",
    title="does this op record a Node?",
    cases=_records_cases,
    reference=_util.compute_requires_grad,
    observe=_observe_records,
    hint="an op records when gradient recording is on (torch.is_grad_enabled()) and at least one "
         "of its inputs requires grad; inputs that are numbers or None never do.",
)


# -- 04.walk_graph --------------------------------------------------------------------------------

def _chain(length: int) -> Callable[[], list]:
    def build() -> list:
        x = glasstorch.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(length):
            y = y * 1.0001
        return [y.grad_fn]
    return build


def _doublings(levels: int) -> Callable[[], list]:
    """a = a + a, ``levels`` times: each Node is reached along 2, 4, 8, ... paths."""
    def build() -> list:
        a = glasstorch.tensor([1.0], requires_grad=True)
        for _ in range(levels):
            a = a + a
        return [a.grad_fn]
    return build


def _running() -> list:
    return [running_example()["y"].grad_fn]


def _with_constants() -> list:
    w = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    c = glasstorch.tensor([3.0, 4.0])
    return [((w * c).exp() + 1).sum().grad_fn]


def _two_outputs() -> list:
    t = running_example()
    loss1, loss2 = t["y"] * 2, (t["a"] * t["x"]).exp()
    return [loss1.grad_fn, loss2.grad_fn, loss1.grad_fn]  # the first root twice: it counts once


def _a_leaf() -> list:
    w = glasstorch.tensor([1.0], requires_grad=True)
    return [grad_accumulator(w)]


def _mlp_loss() -> Tensor:
    glasstorch.manual_seed(0)
    x = glasstorch.randn(4, 3)
    w1 = glasstorch.randn(3, 5, requires_grad=True)
    w2 = glasstorch.randn(5, 2, requires_grad=True)
    return (x.mm(w1).relu().mm(w2) ** 2).mean()


def _mlp() -> list:
    return [_mlp_loss().grad_fn]


_DEEP_HINT = ("a recursive walk overflows Python's stack on a chain of 5,000 operations: keep a queue "
              "(collections.deque) of Nodes to visit instead.")
_GRAPHS = {  # name: (builder of the roots, hint when it fails)
    "the running example y = (x + w) * (w + 1)": (
        _running, "breadth first: the root, then all the Nodes one edge away (in the order of "
                  "next_functions), then those two edges away, ...; each Node once."),
    "edges that are None (constants, numbers)": (
        _with_constants, "skip the None entries of next_functions: they are inputs that need no gradient, not Nodes"),
    "a = a + a, twelve times": (
        _doublings(12), "remember which Nodes you have already seen (a set or a dict): here each Node is "
                        "reached along twice as many paths as the one before it, 4,096 for the last"),
    "two roots sharing a subgraph (the first root given twice)": (
        _two_outputs, "start from all the roots, each once, in the order given; they share Nodes"),
    "a leaf's AccumulateGrad as the only root": (_a_leaf, None),
    "a small MLP's loss": (_mlp, None),
    "a chain of 5,000 multiplications": (_chain(5000), _DEEP_HINT),
}


def _describe_walk(nodes: list) -> list[str]:
    """The walk as text: each Node's position, name, and the positions its edges point to."""
    position: dict = {}
    for i, node in enumerate(nodes):
        position.setdefault(node, i)
    lines = []
    for i, node in enumerate(nodes):
        if not isinstance(node, Node):
            lines.append(f"{i}: not a Node but {type(node).__name__}")
            continue
        edges = ", ".join("None" if n is None else str(position.get(n, "missing")) for n, _ in node.next_functions)
        lines.append(f"{i}: {node.name()} -> [{edges}]")
    return lines


def _observe_walk(impl: Callable[[list], list], graph: str) -> Any:
    return _describe_walk(list(impl(_GRAPHS[graph][0]())))


def _walk_inside_draw_graph(impl: Callable[[list], list]) -> dict:
    """``draw_graph`` numbers its boxes n0, n1, ... in the order of the walk, and cuts a big graph
    at ``max_nodes`` Nodes of the walk: both pictures depend on the learner's walk."""
    t = running_example()
    params = {name: t[name] for name in ("w", "x", "a", "y")}
    with replaced(dag, "_walk", impl):
        full = dag.draw_graph(t["y"], params=params, legend=False)
        cut = dag.draw_graph(_mlp_loss(), legend=False, max_nodes=4)
    return {"draw_graph(y) DOT lines": full.source.splitlines(),
            "draw_graph(mlp loss, max_nodes=4) DOT lines": cut.source.splitlines()}


def _observe_random_walk(impl: Callable[[list], list], seed: int) -> Any:
    root, _leaves = random_graph(seed)
    return _describe_walk(list(impl([root.grad_fn])))


def _walk_cases(rng: np.random.Generator) -> list[Case]:
    cases = [Case(name, (name,), hint=hint) for name, (_, hint) in _GRAPHS.items()]
    cases.append(Case("a graph drawn from the grader's seed", (random_seed(rng),), observe=_observe_random_walk))
    cases.append(Case("inside glasstorch: draw_graph with your walk", (), observe=_walk_inside_draw_graph,
                      hint="the picture numbers its boxes in the order of your walk: it must be breadth "
                           "first, each Node once, starting from the roots in order."))
    return cases


exercise(
    id="04.walk_graph",
    entry="walk_graph",
    title="collect the autograd DAG: every Node once, breadth first",
    cases=_walk_cases,
    reference=dag._walk,
    observe=_observe_walk,
    hint="keep a queue of Nodes to visit and a record of the Nodes already seen; for each Node taken "
         "from the front of the queue, append each of its next Nodes (skipping None) that was not seen yet.",
)


# -- 04.add ---------------------------------------------------------------------------------------

def _add_input(spec: Any, values: np.ndarray) -> Any:
    """"leaf", "constant" and "computed" tensors holding ``values``; a number stays a number."""
    if spec == "leaf":
        return glasstorch.tensor(values, requires_grad=True)
    if spec == "constant":
        return glasstorch.tensor(values)
    if spec == "computed":
        return glasstorch.tensor(values, requires_grad=True) * 1.0
    return spec


def _edge(node: Node | None, named: dict) -> str | None:
    """Where an edge of the output's Node goes, relative to the op's inputs."""
    if node is None:
        return None
    for name, value in named.items():
        if not isinstance(value, Tensor):
            continue
        if node is value.grad_fn:
            return f"{name}.grad_fn ({node.name()})"
        if value.grad_fn is None and value.requires_grad and node is grad_accumulator(value):
            return f"the AccumulateGrad of {name}"
    if isinstance(node, AccumulateGrad):
        return "an AccumulateGrad that is not its leaf's own (make edges with the Node's constructor)"
    return f"a {node.name()} that did not make either input"


def _leaves_of(value: Any) -> list:
    """The leaf behind an input: itself, or the leaf a "computed" input was made from."""
    if not isinstance(value, Tensor):
        return []
    if value.grad_fn is None:
        return [value] if value.requires_grad else []
    return [node.variable for node, _ in value.grad_fn.next_functions if isinstance(node, AccumulateGrad)]


def _observe_add(impl: Callable, spec_a: Any, spec_b: Any, values: np.ndarray, grad_mode: str = "on") -> dict:
    a, b = _add_input(spec_a, values), _add_input(spec_b, values[::-1].copy())
    with _GRAD_MODES[grad_mode]():
        out = impl(a, b)
    observed = {"value": out, **_tensor_facts(out), "next_functions": None, "leaf gradients after backward": None}
    if out.grad_fn is not None:
        observed["next_functions"] = [_edge(node, {"input": a, "other": b}) for node, _ in out.grad_fn.next_functions]
    if out.requires_grad:  # a weighted sum, so that each element's gradient differs
        (out * glasstorch.arange(1, out.numel() + 1).reshape(out.shape)).sum().backward()
        observed["leaf gradients after backward"] = [leaf.grad for v in (a, b) for leaf in _leaves_of(v)]
    return observed


def _train_residual(impl: Callable, x: np.ndarray, target: np.ndarray) -> dict:
    """10 SGD steps of out = x @ w + x (a residual connection), with the learner's add as ``+``."""
    w = glasstorch.zeros(3, 3, requires_grad=True)
    inputs, targets = glasstorch.from_numpy(x), glasstorch.from_numpy(target)
    with replaced(Tensor, "__add__", impl), replaced(Tensor, "__radd__", impl):
        losses = descend(w, lambda: ((inputs.mm(w) + inputs - targets) ** 2).mean())
        graph = [node_name(n) for n, _ in (inputs.mm(w) + inputs).grad_fn.next_functions]
    return {"losses": losses, "w": w, "next_functions of (x @ w + x).grad_fn": graph}


def _add_cases(rng: np.random.Generator) -> list[Case]:
    def values(*shape: int) -> np.ndarray:
        return normal(rng, *shape)

    x = values(16, 3)
    target = x @ np.array([[0.5, -1.0, 0.0], [1.0, 0.5, 2.0], [0.0, 0.0, -0.5]], np.float32)
    return [
        Case("two leaves that require grad", ("leaf", "leaf", values(3))),
        Case("a leaf and a constant", ("leaf", "constant", values(2, 2)),
             hint="an input that needs no gradient gets the edge None, as the Node's constructor "
                  "gives it; create the Node with *all* the op's inputs, in order"),
        Case("two constants: nothing to record", ("constant", "constant", values(3)),
             hint="when no input requires grad, the result is a plain leaf: no Node, requires_grad False"),
        Case("a computed tensor and a leaf", ("computed", "leaf", values(3))),
        Case("a leaf and a Python number (w + 1)", ("leaf", 1.0, values(3)),
             hint="the number is an input too: the Node has two edges, the second None"),
        Case("a Python number and a leaf (2 + w)", (2.0, "leaf", values(2))),
        Case("a leaf under torch.no_grad()", ("leaf", "leaf", values(3), "no_grad"),
             hint="under torch.no_grad() nothing is recorded, even if an input requires grad"),
        Case("the same leaf twice (w + w)", (values(3),), observe=_observe_same_leaf_twice),
        Case("inside glasstorch: + is your add while out = x @ w + x trains", (x, target),
             observe=_train_residual,
             hint="the unit cases above pass but training does not: check that backward returns one "
                  "gradient per input, as a tuple, and that the forward keeps the inputs' dtype"),
    ]


def _observe_same_leaf_twice(impl: Callable, values: np.ndarray) -> dict:
    w = glasstorch.tensor(values, requires_grad=True)
    out = impl(w, w)
    out.sum().backward()
    return {"value": out, "next_functions": [_edge(n, {"w": w}) for n, _ in out.grad_fn.next_functions],
            "w.grad": w.grad}


exercise(
    id="04.add",
    entry="add",
    title="record an op: add and its AddBackward0",
    cases=_add_cases,
    reference=arithmetic.add,
    observe=_observe_add,
    hint="compute the values with numpy; then, only if the op records (grad mode on and some input "
         "requires grad), create AddBackward0(input, other), whose constructor makes one edge per "
         "input, and attach it: out.grad_fn = node and out._requires_grad = True. The Node's "
         "backward returns a tuple: one gradient per input, in order.",
)
