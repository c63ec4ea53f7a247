"""The backward engine: runs the graph's Nodes from the outputs back to the leaves.

Mirrors ``torch/csrc/autograd/engine.cpp`` (``Engine::execute``), single-threaded.

1. Count dependencies: walk the graph once from the roots and count, for every Node, how many
   edges point into it. A Node may run only when all of them have delivered their gradient.
2. Run: a Node whose count reached zero is *ready*. Take the ready Node created last (PyTorch
   orders its ready queue by sequence number; AccumulateGrad goes first), call its hooks, then its
   ``backward``, and add each returned gradient into the buffer of the Node it is meant for.
3. Free: unless ``retain_graph``, each Node drops its saved tensors once it has run.

Nothing here recurses, so a chain of 100,000 operations backpropagates as easily as a short one.
"""
from __future__ import annotations

import heapq
import itertools
from typing import TYPE_CHECKING, Sequence

from .grad_mode import _GradMode
from .graph import AccumulateGrad, Node

if TYPE_CHECKING:
    from .._tensor import Tensor


def execute(
    roots: Sequence[Node],
    root_grads: Sequence["Tensor"],
    *,
    retain_graph: bool,
    create_graph: bool,
    capture: Sequence[Node] = (),
    accumulate: bool = True,
) -> dict:
    """Backpropagate ``root_grads`` from ``roots``.

    ``capture``: Nodes whose incoming gradient is wanted (``autograd.grad`` and
    ``backward(inputs=...)``); only the part of the graph that leads to them runs, and it returns
    ``{node: gradient}``. ``accumulate=False`` leaves every ``.grad`` untouched.
    """
    dependencies = _count_dependencies(roots)
    needed = _nodes_leading_to(roots, capture) if capture else None
    capture_set = set(capture)
    captured: dict = {}

    buffers: dict = {}
    for node, grad in zip(roots, root_grads):
        _add_into(buffers, node, grad)

    previous_mode = _GradMode.enabled
    _GradMode.enabled = create_graph  # backward formulas are recorded only for create_graph
    try:
        for node in _in_run_order(roots, dependencies):
            grad = buffers.pop(node, None)  # None: no gradient reached this Node
            if grad is None:
                continue
            if needed is None and node._pre_hooks is None and node._retain_grad_ref is None and node._post_hooks is None:
                grads = node.backward(grad)  # the common case, kept short: no hooks, no capture
                if node._saved and not retain_graph:  # (a Node that saved nothing has nothing to free)
                    node.release_variables()
            else:
                runs = needed is None or node in needed
                grads = _run_node(node, grad, runs, capture_set, captured, accumulate, retain_graph)
            if grads:
                _pass_on(buffers, node._next, grads)
    finally:
        _GradMode.enabled = previous_mode
    return captured


def _in_run_order(roots: Sequence[Node], dependencies: dict):
    """Yield the Nodes in the order the engine runs them: a Node becomes ready when every edge
    into it has been processed; among the ready ones, the most recently created runs first.

    An AccumulateGrad has the highest priority of all (it would be the next out of the queue), and
    it has no edges of its own: it is yielded the moment it becomes ready, without the queue."""
    order = itertools.count()  # breaks ties between Nodes of equal priority, first come first run
    ready: list = []
    if len(roots) == 1:  # the common case: backward() from one tensor
        node = roots[0] if dependencies.get(roots[0], 0) == 0 else None
    else:
        for node in dict.fromkeys(roots):  # each root once, in order
            if dependencies.get(node, 0) == 0:
                heapq.heappush(ready, (-node._sequence_nr, next(order), node))
        node = heapq.heappop(ready)[2] if ready else None
    while node is not None:
        yield node  # the caller runs it; then its edges count as processed
        only_ready = None  # a Node that became ready (while it is the only one, skip the heap)
        for next_node in node._next:
            if next_node is None:
                continue
            remaining = dependencies[next_node] - 1
            dependencies[next_node] = remaining
            if remaining == 0:
                if type(next_node) is AccumulateGrad:
                    yield next_node
                    continue
                if only_ready is not None:
                    heapq.heappush(ready, (-only_ready._sequence_nr, next(order), only_ready))
                only_ready = next_node
        if only_ready is not None and (not ready or -only_ready._sequence_nr < ready[0][0]):
            node = only_ready  # it would come straight back out of the heap: a chain runs heap-free
        else:
            if only_ready is not None:
                heapq.heappush(ready, (-only_ready._sequence_nr, next(order), only_ready))
            node = heapq.heappop(ready)[2] if ready else None


def execution_order(roots: Sequence[Node]) -> list:
    """The Nodes in the order ``backward`` from ``roots`` would run them, without running them."""
    return list(_in_run_order(roots, _count_dependencies(roots)))


def _run_node(node, grad, runs, capture_set, captured, accumulate, retain_graph):
    """Hooks, capture, then the Node's backward. Returns the gradients for its next Nodes."""
    if node in capture_set and runs:
        captured[node] = grad  # PyTorch captures a Node it runs anyway before its hooks
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            result = hook(grad)
            if result is not None:
                if result.shape != grad.shape:
                    raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value")
                grad = result
    if node._retain_grad_ref is not None:
        _retain_grad(node, grad)
    if node in capture_set and not runs:
        captured[node] = grad
    if not runs or (not accumulate and type(node) is AccumulateGrad):
        return None
    grads = node.backward(grad)
    if node._post_hooks:
        grads = _run_post_hooks(node, grads, grad)
    if not retain_graph:
        node.release_variables()
    return grads


def _run_post_hooks(node: Node, grad_inputs: tuple, grad: "Tensor") -> tuple:
    """``grad_fn.register_hook`` hooks: ``hook(grad_inputs, grad_outputs)`` after the Node ran;
    a returned tuple replaces the gradients it passes on."""
    for hook in tuple(node._post_hooks.values()):
        result = hook(grad_inputs, (grad,))
        if result is not None:
            result = tuple(result)
            if len(result) != len(grad_inputs):
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of "
                                   f"values (got {len(result)}, but expected {len(grad_inputs)})")
            grad_inputs = result
    return grad_inputs


def _retain_grad(node: Node, grad: "Tensor") -> None:
    # PyTorch 2.x stores the gradient after all the tensor's other hooks have run
    tensor = node._retain_grad_ref()
    if tensor is None or not tensor._retains_grad:
        return
    if grad._data.dtype != tensor._data.dtype:
        grad = grad.to(tensor.dtype)
    if tensor._grad is None:
        tensor._grad = grad.detach().clone() if not grad.requires_grad else grad
    else:
        tensor._grad = tensor._grad + grad


def _pass_on(buffers: dict, next_nodes: tuple, grads: tuple) -> None:
    """Hand each gradient to the Node it is meant for. A backward may return one gradient object
    for two inputs (``a + b`` gives ``grad`` to both); the second gets a copy, so that no two
    ``.grad`` ever share memory (PyTorch checks the reference count for the same reason)."""
    if len(grads) == 2:  # the common case, checked without building a set
        if grads[0] is grads[1] and grads[0] is not None:
            grads = (grads[0], grads[1].clone())
    elif len(grads) > 2:
        ids = [id(g) for g in grads if g is not None]
        if len(set(ids)) < len(ids):
            grads = _without_repeats(grads)
    for next_node, grad in zip(next_nodes, grads):
        if next_node is None or grad is None:
            continue
        previous = buffers.get(next_node)  # (what _add_into does, inlined: this is the hot loop)
        buffers[next_node] = grad if previous is None else previous + grad


def _without_repeats(grads: tuple) -> tuple:
    """The gradients with every repeat of an object replaced by a copy."""
    seen: set = set()
    result = []
    for grad in grads:
        if grad is not None and id(grad) in seen:
            grad = grad.clone()
        seen.add(id(grad))
        result.append(grad)
    return tuple(result)


def _add_into(buffers: dict, node: Node, grad: "Tensor") -> None:
    """Sum the gradients that reach ``node`` along different edges."""
    previous = buffers.get(node)
    buffers[node] = grad if previous is None else previous + grad


def _edges(roots: Sequence[Node]):
    """Every edge (node, next_node) of the graph reachable from the roots, each once."""
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for next_node in node._next:
            if next_node is None:
                continue
            yield node, next_node
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)


def _count_dependencies(roots: Sequence[Node]) -> dict:
    """For every Node reachable from the roots: how many edges point into it."""
    dependencies: dict = {}
    stack = list(dict.fromkeys(roots))  # Nodes whose edges are still to be counted
    seen = set(stack)
    while stack:
        for next_node in stack.pop()._next:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:  # each Node's own edges are counted once
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def _nodes_leading_to(roots: Sequence[Node], targets: Sequence[Node]) -> set:
    """The Nodes with a path to some target: the only ones worth running. A target itself runs
    only if it leads on to another target; otherwise its gradient is just captured."""
    # walk the graph once, remember each Node's parents, then walk back up from the targets
    parents: dict = {}
    for node, next_node in _edges(roots):
        parents.setdefault(next_node, []).append(node)
    needed: set = set()
    stack = [t for t in targets if t in parents or t in roots]
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed
