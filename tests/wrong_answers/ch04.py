"""Plausible wrong answers to chapter 04's exercises: each must be caught by its check."""
from collections import deque

import numpy as np

import glasstorch as torch
from glasstorch.autograd.graph import AccumulateGrad, Node


# -- 04.compute_requires_grad -------------------------------------------------------------------------------

def records_ignoring_grad_mode(*inputs):
    """Forgets torch.no_grad(): records whenever an input requires grad."""
    return any(getattr(value, "requires_grad", False) for value in inputs)


def records_all_inputs(*inputs):
    """Wants every tensor input to require grad (w * c with a constant c would not record)."""
    tensors = [value for value in inputs if isinstance(value, torch.Tensor)]
    return torch.is_grad_enabled() and bool(tensors) and all(t.requires_grad for t in tensors)


def records_first_input_only(*inputs):
    """Looks at the first input only, as if it were a method's self."""
    return torch.is_grad_enabled() and getattr(inputs[0], "requires_grad", False)


def records_tensors_only(*inputs):
    """Asks every input for requires_grad: a Python number or None has none."""
    return torch.is_grad_enabled() and any(value.requires_grad for value in inputs)


# -- 04.walk_graph --------------------------------------------------------------------------------

def walk_without_memo(roots):
    """Breadth first, but never remembers what it has seen: shared Nodes come back again and again."""
    found, queue = [], deque(roots)
    while queue:
        node = queue.popleft()
        found.append(node)
        queue.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return found


def walk_depth_first(roots):
    """Each Node once, but with a stack: depth first, so the Nodes come in another order."""
    seen, stack = {}, list(reversed(roots))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        stack.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return list(seen)


def walk_recursive(roots):
    """Breadth-first order by levels, each Node once, but recursing level by level: a long chain
    overflows the stack."""
    seen = dict.fromkeys(roots)

    def visit(level):
        following = []
        for node in level:
            for next_node, _ in node.next_functions:
                if next_node is not None and next_node not in seen:
                    seen[next_node] = None
                    following.append(next_node)
        if following:
            visit(following)

    visit(list(seen))
    return list(seen)


def walk_keeps_none(roots):
    """Breadth first with a memo, but queues the None edges too."""
    seen = dict.fromkeys(roots)
    queue = deque(seen)
    while queue:
        node = queue.popleft()
        if node is None:
            continue
        for next_node, _ in node.next_functions:
            if next_node not in seen:
                seen[next_node] = None
                queue.append(next_node)
    return list(seen)


def walk_first_root_only(roots):
    """Walks from roots[0] only (a single output is the common case)."""
    seen = {roots[0]: None}
    queue = deque(seen)
    while queue:
        for next_node, _ in queue.popleft().next_functions:
            if next_node is not None and next_node not in seen:
                seen[next_node] = None
                queue.append(next_node)
    return list(seen)


# -- 04.add ---------------------------------------------------------------------------------------

def _values(value):
    return value._data if isinstance(value, torch.Tensor) else value


def _records(*inputs):
    return torch.is_grad_enabled() and any(getattr(value, "requires_grad", False) for value in inputs)


class _AddBackward0(Node):
    def backward(self, grad):
        return (grad if self.needs_input_grad(0) else None, grad if self.needs_input_grad(1) else None)


_AddBackward0.__name__ = _AddBackward0.__qualname__ = "AddBackward0"


def add_always_records(input, other):
    """Records a Node whatever the inputs and the grad mode."""
    out = torch.from_numpy(np.asarray(_values(input) + _values(other)))
    out.grad_fn = _AddBackward0(input, other)
    out._requires_grad = True
    return out


def add_without_requires_grad(input, other):
    """Attaches the Node but forgets to mark the result as requiring grad."""
    out = torch.from_numpy(np.asarray(_values(input) + _values(other)))
    if _records(input, other):
        out.grad_fn = _AddBackward0(input, other)
    return out


def add_edges_for_tensors_only(input, other):
    """Gives the Node only the tensor inputs: w + 1 gets one edge, and 2 + w misplaces it."""
    out = torch.from_numpy(np.asarray(_values(input) + _values(other)))
    if _records(input, other):
        out.grad_fn = _AddBackward0(*[value for value in (input, other) if isinstance(value, torch.Tensor)])
        out._requires_grad = True
    return out


class _OneGradient(Node):
    def backward(self, grad):
        return grad  # one gradient, not a tuple of one per input


_OneGradient.__name__ = _OneGradient.__qualname__ = "AddBackward0"


def add_backward_returns_one_gradient(input, other):
    """The Node's backward returns grad itself instead of a tuple with one gradient per input."""
    out = torch.from_numpy(np.asarray(_values(input) + _values(other)))
    if _records(input, other):
        out.grad_fn = _OneGradient(input, other)
        out._requires_grad = True
    return out


def add_new_accumulators(input, other):
    """Makes each leaf's edge a fresh AccumulateGrad instead of the leaf's own, shared one."""
    out = torch.from_numpy(np.asarray(_values(input) + _values(other)))
    if _records(input, other):
        node = _AddBackward0(input, other)
        node._next = tuple(AccumulateGrad(value) if isinstance(edge, AccumulateGrad) else edge
                           for value, edge in zip((input, other), node._next))
        out.grad_fn = node
        out._requires_grad = True
    return out


WRONG = {
    "04.compute_requires_grad": [records_ignoring_grad_mode, records_all_inputs, records_first_input_only, records_tensors_only],
    "04.walk_graph": [walk_without_memo, walk_depth_first, walk_recursive, walk_keeps_none, walk_first_root_only],
    "04.add": [add_always_records, add_without_requires_grad, add_edges_for_tensors_only,
               add_backward_returns_one_gradient, add_new_accumulators],
}
