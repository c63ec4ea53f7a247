"""Chapter 03 exercises: a scalar autograd engine of your own. The backward closure of a new
operation (``sigmoid``), the topological order backward walks (without recursion), and a gradient
check by central differences.

The learner's ``Value`` class lives in the exercise notebook, so no check depends on it. Each
exercise takes the pieces it needs instead: the closure receives the input and the output of the
operation (anything with ``data`` and ``grad``), the order receives a root (anything with
``_prev``), and the gradient check receives the class to build its inputs with. The checks build
their graphs with this module's reference ``Value`` (chapter 03's, with the fixes of its section
7), and plug the learner's piece into it for the last case: a small model trains with it.
"""
from __future__ import annotations

import contextlib
import math
import sys
from collections import Counter, deque
from typing import Any, Callable, Iterator

import numpy as np

from ..checking import Case, exercise, replaced

# -- the reference engine: chapter 03's Value -----------------------------------------------------

def sigmoid_backward(x: Any, out: Any) -> Callable[[], None]:
    """The backward closure of ``out = sigmoid(x)``: d out/d x = out (1 - out)."""
    def _backward() -> None:
        x.grad += out.data * (1.0 - out.data) * out.grad
    return _backward


def topological_order(root: Any) -> list:
    """Every value ``root`` was computed from, and ``root``, each once, inputs before outputs.

    Depth first with a stack of its own (no recursion): a value is pushed once to visit its inputs
    and once more, marked done, to be listed after them."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        value, inputs_done = stack.pop()
        if inputs_done:
            order.append(value)
            continue
        if id(value) in visited:
            continue
        visited.add(id(value))
        stack.append((value, True))  # listed once every input above it has been
        stack.extend((child, False) for child in reversed(value._prev) if id(child) not in visited)
    return order


class Value:
    """Chapter 03's scalar ``Value``, as its section 7 leaves it: ``+=`` into ``grad``, computed
    values' gradients zeroed at the start of each backward, and an order without recursion.
    ``label`` names the value in the checks' messages."""

    sigmoid_backward = staticmethod(sigmoid_backward)  # the exercises plug the learner's in here
    topological_order = staticmethod(topological_order)

    def __init__(self, data: float, _prev: tuple = (), _op: str = "", label: str | None = None) -> None:
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(_prev)
        self._op = _op
        self._backward: Callable[[], None] = lambda: None
        self.label = label

    def __repr__(self) -> str:
        return f"Value(data={round(self.data, 4)}, grad={round(self.grad, 4)})"

    def _made(self, data: float, inputs: tuple, op: str) -> "Value":
        return type(self)(data, inputs, op)

    def _lift(self, other: Any) -> "Value":
        return other if isinstance(other, Value) else type(self)(other)

    def __add__(self, other: Any) -> "Value":
        other = self._lift(other)
        out = self._made(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> "Value":
        other = self._lift(other)
        out = self._made(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, n: float) -> "Value":
        out = self._made(self.data ** n, (self,), f"**{n}")

        def _backward() -> None:
            self.grad += n * self.data ** (n - 1) * out.grad
        out._backward = _backward
        return out

    def tanh(self) -> "Value":
        out = self._made(math.tanh(self.data), (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def exp(self) -> "Value":
        out = self._made(math.exp(self.data), (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def sigmoid(self) -> "Value":
        out = self._made(1.0 / (1.0 + math.exp(-self.data)), (self,), "sigmoid")
        out._backward = type(self).sigmoid_backward(self, out)
        return out

    def __neg__(self) -> "Value":
        return self * -1

    def __sub__(self, other: Any) -> "Value":
        return self + (-self._lift(other))

    def __truediv__(self, other: Any) -> "Value":
        return self * self._lift(other) ** -1

    def __radd__(self, other: Any) -> "Value":
        return self + other

    def __rmul__(self, other: Any) -> "Value":
        return self * other

    def __rsub__(self, other: Any) -> "Value":
        return self._lift(other) + (-self)

    def __rtruediv__(self, other: Any) -> "Value":
        return self._lift(other) * self ** -1

    def backward(self) -> None:
        order = list(type(self).topological_order(self))
        for value in order:
            if value._prev:  # a computed value: its gradient belongs to this pass only
                value.grad = 0.0
        self.grad = 1.0
        for value in reversed(order):
            value._backward()


# -- 03.sigmoid_backward --------------------------------------------------------------------------

def _sigmoid_pair(x_data: float, out_grad: float, x_grad: float) -> tuple:
    """x (with a gradient already collected) and out = sigmoid(x), whose gradient is known."""
    x = Value(x_data, label="x")
    x.grad = x_grad
    out = Value(1.0 / (1.0 + math.exp(-x_data)), (x,), "sigmoid", label="out")
    out.grad = out_grad
    return x, out


def _observe_sigmoid_backward(impl: Callable, x_data: float, out_grad: float, x_grad: float) -> dict:
    x, out = _sigmoid_pair(x_data, out_grad, x_grad)
    step = impl(x, out)
    if not callable(step):
        return {"sigmoid_backward returned": f"a {type(step).__name__}, not a function to call later"}
    before = x.grad
    step()
    once = x.grad
    step()
    return {"x.grad before the closure ran (untouched)": before, "x.grad after it ran once": once,
            "x.grad after it ran twice": x.grad, "out.grad (unchanged)": out.grad,
            "out.data and x.data (unchanged)": [out.data, x.data]}


def _train_logistic(impl: Callable, points: list, labels: list) -> dict:
    """Twenty steps of gradient descent on a neuron sigmoid(w1 x1 + w2 x2 + b), squared error,
    with the learner's closure as the backward of every sigmoid."""
    with replaced(Value, "sigmoid_backward", staticmethod(impl)):
        w1, w2, b = Value(0.0), Value(0.0), Value(0.0)
        losses = []
        for _ in range(20):
            loss = sum(((w1 * x1 + w2 * x2 + b).sigmoid() - y) ** 2 for (x1, x2), y in zip(points, labels))
            for p in (w1, w2, b):
                p.grad = 0.0
            loss.backward()
            for p in (w1, w2, b):
                p.data -= 0.5 * p.grad
            losses.append(loss.data)
        twice = Value(0.3)
        (twice.sigmoid() * twice.sigmoid()).backward()  # one input, two sigmoids: contributions add up
    return {"losses": losses, "w1, w2, b": [w1.data, w2.data, b.data], "d/dx sigmoid(x)**2 at 0.3": twice.grad}


def _sigmoid_cases(rng: np.random.Generator) -> list[Case]:
    def number(low: float, high: float) -> float:
        return round(float(rng.uniform(low, high)), 3)

    points = [[number(-2, 2), number(-2, 2)] for _ in range(8)]
    labels = [1.0 if x1 - 0.5 * x2 > 0 else 0.0 for x1, x2 in points]
    return [
        Case("x = 0, out.grad = 1, nothing collected yet", (0.0, 1.0, 0.0),
             hint="at x = 0, sigmoid is 0.5 and its derivative 0.5 * (1 - 0.5) = 0.25"),
        Case("a positive x, out.grad = 1", (number(0.5, 3), 1.0, 0.0)),
        Case("a negative x and another out.grad", (number(-3, -0.5), number(-2, 2), 0.0),
             hint="multiply the local derivative by out.grad: that is the chain rule"),
        Case("x already has a gradient from another use", (number(-2, 2), number(0.5, 2), number(-3, 3)),
             hint="add into x.grad (+=): x may have collected gradient from other operations already"),
        Case("the closure runs twice: it adds twice", (number(-1, 1), number(1, 2), number(-1, 1))),
        Case("inside an engine: a sigmoid neuron trains with your closure", (points, labels),
             observe=_train_logistic,
             hint="the unit cases pass but training does not: the closure must read out.data and "
                  "out.grad when it runs (not when it is made), and add into x.grad"),
    ]


exercise(
    id="03.sigmoid_backward",
    entry="sigmoid_backward",
    title="the backward closure of sigmoid",
    cases=_sigmoid_cases,
    reference=sigmoid_backward,
    observe=_observe_sigmoid_backward,
    hint="return a function that, when called, does x.grad += s * (1 - s) * out.grad, where "
         "s = out.data is the sigmoid the forward pass computed.",
)


# -- 03.topological_order -------------------------------------------------------------------------

def _leaf(label: str, data: float = 1.0) -> Value:
    return Value(data, label=label)


def _graph_chapter() -> Value:
    a, b, c, f = _leaf("a", 3.0), _leaf("b", -2.0), _leaf("c", 8.0), _leaf("f", -4.0)
    return (a * b + c) * f


def _graph_twice() -> Value:
    a = _leaf("a", 3.0)
    return a * a + a


def _graph_ladder() -> Value:
    a = _leaf("a")
    for _ in range(12):
        a = a + a  # 4,096 paths from the top to the leaf
    return a


def _graph_near_and_deep() -> Value:
    x = _leaf("x", 0.5)
    deep = x
    for _ in range(5):
        deep = deep.tanh()
    return x * deep  # x is an input of the root and of the bottom of a chain of five


def _graph_shared_branches() -> Value:
    a, b = _leaf("a", 0.5), _leaf("b", -1.5)
    shared = (a * b).exp()
    return (shared + a).tanh() * (shared * b - 1.0)


def _graph_chain() -> Value:
    x = _leaf("x")
    y = x
    for _ in range(5000):
        y = y * 1.0001
    return y


def _graph_single_leaf() -> Value:
    return _leaf("x", 2.0)


def _mlp(seed: int) -> tuple[list, Callable[[], Value]]:
    """A 2-3-1 network of Values with seeded weights and its loss on four seeded points."""
    rng = np.random.default_rng(seed)
    weights = [[Value(float(w)) for w in rng.uniform(-1, 1, 3)] for _ in range(3)]  # (w1, w2, b) per neuron
    top = [Value(float(w)) for w in rng.uniform(-1, 1, 4)]
    points = rng.uniform(-2, 2, (4, 2)).tolist()
    targets = [1.0, -1.0, -1.0, 1.0]

    def loss() -> Value:
        total = Value(0.0)
        for (x1, x2), y in zip(points, targets):
            hidden = [(w1 * x1 + w2 * x2 + b).tanh() for w1, w2, b in weights]
            out = (top[0] * hidden[0] + top[1] * hidden[1] + top[2] * hidden[2] + top[3]).tanh()
            total = total + (out - y) ** 2
        return total

    return [p for neuron in weights for p in neuron] + top, loss


_GRAPHS: dict[str, tuple[Callable[[], Value], str | None]] = {
    "a single leaf": (_graph_single_leaf, "a leaf alone is a graph too: the list is just [root]"),
    "the chapter's L = (a * b + c) * f": (_graph_chapter, None),
    "a value used twice: a * a + a": (
        _graph_twice, "remember which values you have visited: a is reached along three edges but is listed once"),
    "a = a + a, twelve times": (
        _graph_ladder, "remember the visited values: here the bottom value is reached along 4,096 paths"),
    "x used by the root and at the bottom of a chain": (
        _graph_near_and_deep, "list a value only once all of its inputs are listed (depth first, a value after "
                              "its inputs); a breadth-first order reversed is not always topological"),
    "two branches sharing a subgraph": (_graph_shared_branches, None),
    "a chain of 5,000 operations": (
        _graph_chain, "a recursive visit needs one Python frame per step of the chain, and Python stops at "
                      "about 1,000: keep a stack (a list) of values still to visit, and loop"),
}


def _walk(root: Any) -> list:
    """Every value of the graph, each once (breadth first): what the order must contain."""
    seen, queue = {id(root): root}, deque([root])
    while queue:
        for child in queue.popleft()._prev:
            if id(child) not in seen:
                seen[id(child)] = child
                queue.append(child)
    return list(seen.values())


def _namer(root: Any) -> Callable[[Any], str]:
    """Names for the values of ``root``'s graph, the same on every run: a leaf's label, else the
    value's place in a breadth-first walk from the root and its operation ("#3 (tanh)")."""
    places = {id(v): k for k, v in enumerate(_walk(root))}

    def name(value: Any) -> str:
        label = getattr(value, "label", None)
        if label:
            return str(label)
        op = getattr(value, "_op", "") or "leaf"
        if value is root:
            return f"the root ({op})"
        return f"#{places[id(value)]} ({op})" if id(value) in places else f"a value not in the graph ({op})"
    return name


def _describe_order(order: Any, root: Any) -> dict:
    """What a topological order must be, observed: each value of the graph once, inputs first."""
    if not isinstance(order, (list, tuple)):
        return {"topological_order returned": f"a {type(order).__name__}, not a list"}
    graph = {id(v): v for v in _walk(root)}
    _name = _namer(root)
    listed = [id(v) for v in order]
    counts = Counter(listed)
    duplicates = sorted({_name(order[k]) for k, i in enumerate(listed) if counts[i] > 1})
    seen_first: dict[int, int] = {}
    for k, i in enumerate(listed):
        seen_first.setdefault(i, k)
    too_early = None
    for k, value in enumerate(order):
        if seen_first.get(id(value)) != k:
            continue
        late = [child for child in getattr(value, "_prev", ()) if seen_first.get(id(child), len(order)) > k]
        if late:
            too_early = f"{_name(value)} is listed before its input {_name(late[0])}"
            break
    return {
        "values listed": len(order),
        "values listed more than once": duplicates[:5],
        "values of the graph not listed": sorted(_name(v) for i, v in graph.items() if i not in seen_first)[:5],
        "values listed that are not in the graph": sum(1 for i in seen_first if i not in graph),
        "first value listed before one of its inputs": too_early,
        "last value": _name(order[-1]) if order else None,
    }


@contextlib.contextmanager
def _recursion_limit_at_most(limit: int) -> Iterator[None]:
    """A recursive answer must fail the deep case even where the learner raised Python's limit."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(min(before, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _listed(impl: Callable, root: Any) -> dict:
    with _recursion_limit_at_most(4000):
        order = impl(root)
    return _describe_order(list(order) if isinstance(order, Iterator) else order, root)


def _observe_order(impl: Callable, graph: str) -> dict:
    return _listed(impl, _GRAPHS[graph][0]())


def _mlp_order(impl: Callable, seed: int) -> dict:
    root = _mlp(seed)[1]()
    return _listed(impl, root)


def _train_with_order(impl: Callable, seed: int) -> dict:
    """Ten steps of gradient descent on the network, backward walking the learner's order."""
    parameters, loss_of = _mlp(seed)
    losses = []
    with replaced(Value, "topological_order", staticmethod(impl)):
        for _ in range(10):
            loss = loss_of()
            for p in parameters:
                p.grad = 0.0
            loss.backward()
            for p in parameters:
                p.data -= 0.1 * p.grad
            losses.append(loss.data)
    return {"losses": losses, "gradients of the last step": [p.grad for p in parameters]}


def _order_cases(rng: np.random.Generator) -> list[Case]:
    seed = int(rng.integers(0, 10_000))
    cases = [Case(name, (name,), hint=hint) for name, (_, hint) in _GRAPHS.items()]
    cases.append(Case("a small network's loss", (seed,), observe=_mlp_order))
    cases.append(Case("inside the engine: backward walks your order while the network trains", (seed,),
                      observe=_train_with_order,
                      hint="backward runs the closures in the reverse of your order: every value must "
                           "come after all of its inputs, each value once."))
    return cases


exercise(
    id="03.topological_order",
    entry="topological_order",
    title="a topological order without recursion",
    cases=_order_cases,
    reference=topological_order,
    observe=_observe_order,
    hint="keep a stack of (value, inputs_done) pairs and a set of visited values; pop a pair: if its "
         "inputs are done, append the value to the order; else, if it is not visited, mark it, push "
         "(value, True), then push (child, False) for each input. Each value once, inputs first.",
)


# -- 03.max_gradient_error ------------------------------------------------------------------------

class _TanhFromInput(Value):
    """An engine whose tanh backward uses the input where the output belongs: 1 - x**2."""

    def tanh(self) -> Value:
        out = self._made(math.tanh(self.data), (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - self.data ** 2) * out.grad
        out._backward = _backward
        return out


class _AssigningAdd(Value):
    """An engine whose + assigns the gradient instead of adding it (chapter 03, section 7.1)."""

    def __add__(self, other: Any) -> Value:
        other = self._lift(other)
        out = self._made(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad = out.grad
            other.grad = out.grad
        out._backward = _backward
        return out


class _PowWithoutChain(Value):
    """An engine whose ** forgets to multiply by out.grad."""

    def __pow__(self, n: float) -> Value:
        out = self._made(self.data ** n, (self,), f"**{n}")

        def _backward() -> None:
            self.grad += n * self.data ** (n - 1)
        out._backward = _backward
        return out


_ENGINES = {"a correct engine": Value, "an engine whose tanh backward is wrong": _TanhFromInput,
            "an engine whose + assigns instead of adding": _AssigningAdd,
            "an engine whose ** forgets out.grad": _PowWithoutChain}

_FUNCTIONS: dict[str, Callable[[list], Any]] = {
    "tanh(a * b + c)": lambda v: (v[0] * v[1] + v[2]).tanh(),
    "exp(a) * b ** 3 - a / b": lambda v: v[0].exp() * v[1] ** 3 - v[0] / v[1],
    "a * a + a * b (a used three times)": lambda v: v[0] * v[0] + v[0] * v[1],
    "tanh(a) + tanh(a * b) ** 2": lambda v: v[0].tanh() + (v[0] * v[1]).tanh() ** 2,
    "sigmoid(a * b) + a ** 2": lambda v: (v[0] * v[1]).sigmoid() + v[0] ** 2,
    "a ** 3 * 0.25 + b": lambda v: v[0] ** 3 * 0.25 + v[1],
}


def max_gradient_error(f: Callable[[list], Any], xs: list, Value: type, h: float = 1e-6) -> float:  # noqa: N803
    """The largest difference, over the inputs, between the gradient backward gives and the
    central difference (f(x + h) - f(x - h)) / 2h."""
    inputs = [Value(x) for x in xs]
    f(inputs).backward()
    worst = 0.0
    for i, value in enumerate(inputs):
        up = [Value(x + h if j == i else x) for j, x in enumerate(xs)]
        down = [Value(x - h if j == i else x) for j, x in enumerate(xs)]
        slope = (f(up).data - f(down).data) / (2 * h)
        worst = max(worst, abs(slope - value.grad))
    return worst


def _observe_error(impl: Callable, function: str, xs: list, engine: str, h: float | None) -> Any:
    arguments = {"h": h} if h is not None else {}
    result = impl(_FUNCTIONS[function], list(xs), _ENGINES[engine], **arguments)
    if isinstance(result, bool) or not isinstance(result, (int, float, np.floating)):
        return f"a {type(result).__name__}, not a number"
    return float(result)


def _error_cases(rng: np.random.Generator) -> list[Case]:
    def inputs(n: int) -> list:
        # a and c anywhere in [-1.5, 1.5]; b kept away from 0 (it divides)
        values = [round(float(rng.uniform(-1.5, 1.5)), 3) for _ in range(n)]
        if n > 1:
            values[1] = round(float(rng.choice([-1, 1]) * rng.uniform(0.6, 1.6)), 3)
        return values

    correct, tanh_wrong = "a correct engine", "an engine whose tanh backward is wrong"
    assigning, pow_wrong = "an engine whose + assigns instead of adding", "an engine whose ** forgets out.grad"
    return [
        Case("tanh(a * b + c), a correct engine", ("tanh(a * b + c)", inputs(3), correct, None),
             hint="with a correct engine the error is tiny (about 1e-9): compare with the central difference"),
        Case("exp(a) * b ** 3 - a / b, a correct engine, h = 1e-4", ("exp(a) * b ** 3 - a / b", inputs(2), correct, 1e-4),
             hint="use central differences, (f(x + h) - f(x - h)) / (2 h): the one-sided (f(x + h) - f(x)) / h "
                  "is off by about h/2 times the second derivative"),
        Case("a used three times, a correct engine, h = 1e-4", ("a * a + a * b (a used three times)", inputs(2), correct, 1e-4),
             hint="build fresh inputs for every evaluation: calling backward() again on the same inputs "
                  "adds to their gradients"),
        Case("tanh(a * b + c), tanh's backward is wrong", ("tanh(a * b + c)", inputs(3), tanh_wrong, None),
             hint="build every input with the class you are given (the argument Value): the check hands "
                  "you engines with deliberate mistakes, and the error must reveal them"),
        Case("tanh(a) + tanh(a * b) ** 2, tanh's backward is wrong", ("tanh(a) + tanh(a * b) ** 2", inputs(2), tanh_wrong, 1e-4)),
        Case("a used three times, + assigns instead of adding", ("a * a + a * b (a used three times)", inputs(2), assigning, None),
             hint="the error is the largest absolute difference over all the inputs: abs(), then max()"),
        Case("exp(a) * b ** 3 - a / b, ** forgets out.grad", ("exp(a) * b ** 3 - a / b", inputs(2), pow_wrong, 1e-4)),
        Case("sigmoid(a * b) + a ** 2, ** forgets out.grad", ("sigmoid(a * b) + a ** 2", inputs(2), pow_wrong, None)),
        Case("a ** 3 * 0.25 + b, ** forgets out.grad: backward gives too much", ("a ** 3 * 0.25 + b", inputs(2), pow_wrong, None),
             hint="the error is a distance: abs(slope - gradient), whichever of the two is larger"),
    ]


exercise(
    id="03.max_gradient_error",
    entry="max_gradient_error",
    title="a gradient check by central differences",
    cases=_error_cases,
    reference=max_gradient_error,
    observe=_observe_error,
    hint="run f on fresh inputs Value(x) and call backward() once for the gradients; then, for each "
         "input i, evaluate f with input i moved to x + h and to x - h (fresh Values each time), take "
         "(f_up - f_down) / (2 h), and return the largest abs(slope - gradient).",
)
