"""The backward engine: runs the graph's Nodes from the outputs back to the leaves.

Mirrors ``torch/csrc/autograd/engine.cpp``, single-threaded; each function below names the
function of ``engine.cpp`` it follows. The algorithm is Kahn's topological sort, run backwards:

1. ``compute_dependencies``: walk the graph once from the roots and count, for every Node, how
   many edges point into it. A Node may run only when all of them have delivered their gradient.
2. The loop in ``execute``: a Node whose count reached zero is *ready*. Take the ready Node created
   last (the ``ReadyQueue`` orders by sequence number; an AccumulateGrad comes first), run it
   (``evaluate_function``: its hooks, its ``backward``), add each gradient it returns into the
   ``InputBuffer`` of the Node that edge leads to, and count that edge as done.
3. Unless ``keep_graph`` (``retain_graph=True``), each Node frees its saved tensors once it has run.

Nothing here recurses, so a chain of 100,000 operations backpropagates as easily as a short one.
"""
from __future__ import annotations

import heapq
import itertools
from typing import TYPE_CHECKING, Sequence

from ..dtypes import from_numpy_dtype
from .anomaly_mode import _AnomalyMode, call_function_checked
from .grad_mode import _GradMode
from .graph import AccumulateGrad, Node

if TYPE_CHECKING:
    from .._tensor import Tensor


def execute(
    roots: Sequence[Node],
    root_grads: Sequence["Tensor"],
    *,
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Node] = (),
) -> dict:
    """Backpropagate ``root_grads`` from ``roots`` (``Engine::execute``).

    ``inputs``: the Nodes whose incoming gradient the caller wants (``autograd.grad`` and
    ``backward(inputs=...)``). Then only the part of the graph that leads to them runs, no
    ``.grad`` is touched, and the result is ``{node: gradient}``; otherwise it is ``{}``.
    """
    task = GraphTask(keep_graph, compute_dependencies(roots))
    if inputs:
        task.init_to_execute(roots, inputs)
    ready = ReadyQueue()
    for root, grad in zip(roots, root_grads):  # the gradients arrive as if along edges from the caller
        task.not_ready.add(root, grad)
    for root in dict.fromkeys(roots):  # each root once
        if task.dependencies.get(root, 0) == 0:
            ready.push(root)

    previous_mode = _GradMode.enabled
    _GradMode.enabled = create_graph  # backward formulas are recorded only for create_graph
    try:
        while ready:
            node = ready.pop()
            grads = evaluate_function(task, node, task.not_ready.pop(node, None))  # None: no gradient came
            for next_node, grad in zip(node._next, grads):
                if next_node is None:
                    continue
                task.not_ready.add(next_node, grad)
                task.dependencies[next_node] -= 1
                if task.dependencies[next_node] == 0:
                    ready.push(next_node)
    finally:
        _GradMode.enabled = previous_mode
    return task.captured


class GraphTask:
    """What one call of the engine keeps while it runs (``engine.h``'s ``GraphTask``)."""

    __slots__ = ("keep_graph", "dependencies", "not_ready", "needed", "captures", "captured")

    def __init__(self, keep_graph: bool, dependencies: dict) -> None:
        self.keep_graph = keep_graph
        self.dependencies = dependencies  # Node -> number of edges into it not yet done
        self.not_ready = InputBuffer()  # gradients waiting for their Node to become ready
        self.needed: set | None = None  # with inputs=: the Nodes worth running (None: all)
        self.captures: set = set()  # with inputs=: the Nodes whose gradient is returned
        self.captured: dict = {}

    def init_to_execute(self, roots: Sequence[Node], inputs: Sequence[Node]) -> None:
        """``GraphTask::init_to_execute``: mark the Nodes that lead to some input; only those run.
        An input's own Node runs only if it leads on to another input; otherwise its gradient is
        just captured (a leaf's AccumulateGrad never runs here: no ``.grad`` changes)."""
        parents: dict = {}  # walk the graph once, remember each Node's parents ...
        for node in _reachable(roots):
            for next_node in node._next:
                if next_node is not None:
                    parents.setdefault(next_node, []).append(node)
        self.needed = set()  # ... then walk up from the inputs
        stack = list(inputs)
        while stack:
            for parent in parents.get(stack.pop(), ()):
                if parent not in self.needed:
                    self.needed.add(parent)
                    stack.append(parent)
        self.captures = set(inputs)


class InputBuffer(dict):
    """The gradients that have reached each Node not yet run (``input_buffer.cpp``; PyTorch keeps
    one buffer per Node in the ``not_ready`` map). Gradients from several edges are summed: the
    second one to arrive starts a sum that the buffer owns, and later ones are added into it in
    place (``InputBuffer::accumulate`` adds in place when nothing else holds the tensor)."""

    def __init__(self) -> None:
        super().__init__()
        self.owned: set = set()  # the Nodes whose buffered gradient is a sum made here

    def add(self, node: Node, grad: "Tensor | None") -> None:
        if grad is None:
            return  # "no gradient" along this edge: nothing to add
        previous = self.get(node)
        if previous is None:
            self[node] = grad
        elif node in self.owned and not grad._requires_grad:
            previous._data += grad._data  # (under create_graph the sum is recorded instead)
        else:
            self[node] = previous + grad
            if not _GradMode.enabled:
                self.owned.add(node)  # (a Node gets no gradient after it ran: never stale)


class ReadyQueue:
    """The Nodes ready to run, the one created last first (``ReadyQueue`` with
    ``CompareNodeTaskTime``: highest sequence number first; an AccumulateGrad's is infinite)."""

    __slots__ = ("heap", "order")

    def __init__(self) -> None:
        self.heap: list = []
        self.order = itertools.count()  # ties between equal sequence numbers: first come, first run

    def push(self, node: Node) -> None:
        heapq.heappush(self.heap, (-node._sequence_nr, next(self.order), node))

    def pop(self) -> Node:
        return heapq.heappop(self.heap)[2]

    def __bool__(self) -> bool:
        return bool(self.heap)


def evaluate_function(task: GraphTask, node: Node, grad: "Tensor | None") -> tuple:
    """Run one Node and return the gradients for its edges (``Engine::evaluate_function``)."""
    if task.needed is not None:  # inputs=: capture, and skip the Nodes that lead to no input
        runs = node in task.needed
        if not runs and grad is not None:
            grad = call_tensor_pre_hooks(node, grad)  # the hooks run once either way
        if node in task.captures:
            task.captured[node] = grad
        if not runs:
            return (None,) * len(node._next)
    if grad is None:  # no gradient reached this Node: nothing to compute, none to pass on
        return (None,) * len(node._next)
    # in anomaly mode a failure names the forward call that created the Node (anomaly_mode.py)
    grads = call_function_checked(node, grad) if _AnomalyMode.enabled else call_function(node, grad)
    if not task.keep_graph:
        node.release_variables()
    return grads


def call_function(node: Node, grad: "Tensor") -> tuple:
    """The hooks around a Node's backward, in PyTorch's order (``call_function``): the tensor's
    hooks and retained gradient, the Node's pre-hooks, ``backward``, the Node's post-hooks."""
    grad = call_tensor_pre_hooks(node, grad)
    if node._pre_hooks:
        grad = call_pre_hooks(node, grad)
    grads = validate_outputs(node, node.backward(grad))
    if node._post_hooks:
        grads = call_post_hooks(node, grads, grad)
    return grads


def call_tensor_pre_hooks(node: Node, grad: "Tensor") -> "Tensor":
    """The hooks registered on the tensor this Node produced (``tensor.register_hook``), in order,
    each result replacing the gradient; then ``retain_grad()``'s copy of the final gradient
    (``call_tensor_pre_hooks``: since PyTorch 2.0 the retained gradient comes last)."""
    if node._tensor_pre_hooks:
        for hook in tuple(node._tensor_pre_hooks.values()):  # a hook may remove itself
            grad = _replaced_by(hook(grad), grad, hook)
    if node._retain_grad_ref is not None:
        _store_retained_grad(node._retain_grad_ref(), grad)
    return grad


def call_pre_hooks(node: Node, grad: "Tensor") -> "Tensor":
    """The Node's own pre-hooks (``grad_fn.register_prehook``): ``hook((grad,))`` may return a
    replacement tuple (``call_pre_hooks``)."""
    for hook in tuple(node._pre_hooks.values()):
        result = hook((grad,))
        if result is not None:
            grad = _replaced_by(result[0], grad, hook)
    return grad


def call_post_hooks(node: Node, grad_inputs: tuple, grad: "Tensor") -> tuple:
    """The Node's post-hooks (``grad_fn.register_hook``): ``hook(grad_inputs, grad_outputs)``
    after backward; a returned tuple replaces the gradients passed on (``call_post_hooks``)."""
    for hook in tuple(node._post_hooks.values()):
        result = hook(grad_inputs, (grad,))
        if result is not None:
            result = tuple(result)
            if len(result) != len(grad_inputs):
                raise RuntimeError(f"hook '{_name(hook)}' has returned an incorrect number of values "
                                   f"(got {len(result)}, but expected {len(grad_inputs)})")
            grad_inputs = result
    return grad_inputs


def validate_outputs(node: Node, grads: tuple) -> tuple:
    """Check and fit the gradients a Node returned (``validate_outputs``): one per edge, and each
    given the shape and dtype of the tensor its edge leads back to. So a backward formula is just
    its math (``grad * other``): where the forward broadcast an input, its gradient is summed back
    to the input's shape here, in one place (``InputMetadata::reduce_grad``)."""
    if len(grads) != len(node._next):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node._next)}, got {len(grads)})")
    fitted = []
    to_leaves = []  # the ids of the gradients handed to leaves so far
    for i, (next_node, grad) in enumerate(zip(node._next, grads)):
        if grad is not None and next_node is not None and next_node._input_metadata is not None:
            shape, dtype = next_node._input_metadata
            if grad._data.shape != shape:
                grad = _sum_to(grad, shape, node, i)
            if grad._data.dtype != dtype:
                grad = grad.to(from_numpy_dtype(dtype))  # a float32 input of a float64 product
            if type(next_node) is AccumulateGrad:
                # ``a + b`` hands one ``grad`` to both leaves, and a ``.grad`` is changed in place
                # later: the second leaf gets a copy (PyTorch's AccumulateGrad checks the use count)
                if id(grad) in to_leaves:
                    grad = grad.clone()
                to_leaves.append(id(grad))
        fitted.append(grad)
    return tuple(fitted)


def _sum_to(grad: "Tensor", shape: tuple, node: Node, i: int) -> "Tensor":
    """The gradient of a broadcast input: summed over the dimensions broadcasting added."""
    try:
        return grad.sum_to_size(shape)
    except RuntimeError:
        raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                           f"{list(grad.shape)} but expected shape compatible with {list(shape)}") from None


def _replaced_by(result: "Tensor | None", grad: "Tensor", hook) -> "Tensor":
    """A hook's result replaces the gradient; it must keep its shape."""
    if result is None:
        return grad
    if result.shape != grad.shape:
        raise RuntimeError(f"hook '{_name(hook)}' has changed the size of value")
    return result


def _store_retained_grad(tensor: "Tensor | None", grad: "Tensor") -> None:
    """``retain_grad()``'s hook: keep a copy of the gradient in ``tensor.grad``, or add to it."""
    if tensor is None or not tensor._retains_grad:  # the tensor is gone, or gave up retaining
        return
    if grad._data.dtype != tensor._data.dtype:
        grad = grad.to(tensor.dtype)
    if tensor._grad is None:
        tensor._grad = grad if grad.requires_grad else grad.detach().clone()
    else:
        tensor._grad = tensor._grad + grad


def _name(hook) -> str:
    return getattr(hook, "__name__", repr(hook))


def compute_dependencies(roots: Sequence[Node]) -> dict:
    """For every Node reachable from the roots: how many edges point into it
    (``Engine::compute_dependencies``)."""
    dependencies: dict = {}
    for node in _reachable(roots):
        for next_node in node._next:
            if next_node is not None:
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
    return dependencies


def _reachable(roots: Sequence[Node]) -> list:
    """Every Node reachable from the roots, each once (an explicit stack: no recursion)."""
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    found = []
    while stack:
        node = stack.pop()
        found.append(node)
        for next_node in node._next:
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return found


def execution_order(roots: Sequence[Node]) -> list:
    """The Nodes in the order ``backward`` from ``roots`` would run them, without running them
    (for pictures): ``execute``'s loop with the gradients left out."""
    dependencies = compute_dependencies(roots)
    ready = ReadyQueue()
    for root in dict.fromkeys(roots):
        if dependencies.get(root, 0) == 0:
            ready.push(root)
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for next_node in node._next:
            if next_node is not None:
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    ready.push(next_node)
    return order
