"""The floor: the least a Python autograd over numpy can do per op.

A whole reverse-mode autograd for ``+`` and ``*``, as lean as Python allows: slotted objects, one
closure per op for its backward, and a dependency-counted engine with no checks at all. None of
what glasstorch adds to behave as PyTorch does: no dtype promotion, broadcasting errors, version
counters, saved-tensor checks, hooks, retain_grad, ``create_graph``, named Nodes to inspect.

``make bench`` times it beside glasstorch and PyTorch on the graphs of ``+`` and ``*`` (the 2,000-op
graph, the chains, the tiny ops): what no Python autograd over numpy can beat, and so what the speed
targets ask of glasstorch.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np


class Node:
    """A backward closure and the Nodes its gradients go to (None: an input without grad)."""

    __slots__ = ("backward", "next")

    def __init__(self, backward: Callable, next: tuple) -> None:
        self.backward, self.next = backward, next


class Leaf(Node):
    """Where a leaf's gradient is accumulated."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: "Tensor") -> None:
        super().__init__(None, ())
        self.tensor = tensor


class Tensor:
    __slots__ = ("data", "grad_fn", "grad", "requires_grad", "_leaf")

    def __init__(self, data: np.ndarray, grad_fn: Node | None = None, requires_grad: bool = False) -> None:
        self.data, self.grad_fn, self.grad = data, grad_fn, None
        self.requires_grad = requires_grad or grad_fn is not None
        self._leaf = None

    def _edge(self) -> Node | None:
        if self.grad_fn is not None:
            return self.grad_fn
        if self.requires_grad:
            if self._leaf is None:
                self._leaf = Leaf(self)
            return self._leaf
        return None

    def __add__(self, other: Any) -> "Tensor":
        if isinstance(other, Tensor):
            return _record(self.data + other.data, lambda g: (g, g), self, other)
        return _record(self.data + other, lambda g: (g,), self)

    def __mul__(self, other: Any) -> "Tensor":
        if isinstance(other, Tensor):
            a, b = self.data, other.data
            return _record(a * b, lambda g: (g * b, g * a), self, other)
        return _record(self.data * other, lambda g: (g * other,), self)

    def sum(self) -> "Tensor":
        shape = self.data.shape
        return _record(self.data.sum(), lambda g: (np.broadcast_to(g, shape),), self)

    def backward(self) -> None:
        _execute(self.grad_fn, np.ones_like(self.data))


def _record(data: np.ndarray, backward: Callable, *inputs: Tensor) -> Tensor:
    if any(t.requires_grad for t in inputs):
        return Tensor(data, Node(backward, tuple(t._edge() for t in inputs)))
    return Tensor(data)


def _execute(root: Node, grad: np.ndarray) -> None:
    dependencies: dict = {}
    stack, seen = [root], {root}
    while stack:
        for node in stack.pop().next:
            if node is not None:
                dependencies[node] = dependencies.get(node, 0) + 1
                if node not in seen:
                    seen.add(node)
                    stack.append(node)
    buffers, ready = {root: grad}, [root]
    while ready:
        node = ready.pop()
        grad = buffers.pop(node)
        if type(node) is Leaf:
            leaf = node.tensor
            leaf.grad = grad if leaf.grad is None else leaf.grad + grad
            continue
        for next_node, next_grad in zip(node.next, node.backward(grad)):
            if next_node is not None:
                buffers[next_node] = buffers[next_node] + next_grad if next_node in buffers else next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    ready.append(next_node)


def tensor(values: list, requires_grad: bool = False) -> Tensor:
    """As ``torch.tensor`` for a list of floats: float32."""
    return Tensor(np.array(values, dtype=np.float32), requires_grad=requires_grad)
