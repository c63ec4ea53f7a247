"""Plausible wrong answers to chapter 03's exercises: each must be caught by its check."""
from collections import deque

from glasstorch.course.exercises.ch03 import Value as ReferenceValue


# -- 03.sigmoid_backward --------------------------------------------------------------------------

def sigmoid_backward_assigning(x, out):
    """= instead of +=: forgets what x collected from other operations (chapter 03, section 7.1)."""
    def _backward():
        x.grad = out.data * (1 - out.data) * out.grad
    return _backward


def sigmoid_backward_without_chain(x, out):
    """The local derivative alone: forgets to multiply by out.grad."""
    def _backward():
        x.grad += out.data * (1 - out.data)
    return _backward


def sigmoid_backward_from_the_input(x, out):
    """s (1 - s) with s the input x instead of the sigmoid of x."""
    def _backward():
        x.grad += x.data * (1 - x.data) * out.grad
    return _backward


def sigmoid_backward_like_tanh(x, out):
    """tanh's formula, 1 - s**2, copied from the chapter."""
    def _backward():
        x.grad += (1 - out.data ** 2) * out.grad
    return _backward


def sigmoid_backward_sign(x, out):
    """s (s - 1): the sign flipped."""
    def _backward():
        x.grad += out.data * (out.data - 1) * out.grad
    return _backward


def sigmoid_backward_runs_at_once(x, out):
    """Does the work when the closure is made (out.grad is still the old one) and returns nothing."""
    x.grad += out.data * (1 - out.data) * out.grad


def sigmoid_backward_frozen(x, out):
    """Reads out.grad when the closure is made, not when it runs: in an engine, out.grad is only
    known later."""
    grad = out.grad

    def _backward():
        x.grad += out.data * (1 - out.data) * grad
    return _backward


# -- 03.topological_order -------------------------------------------------------------------------

def order_recursive(root):
    """The chapter's recursive depth-first order: right, but a chain of 5,000 breaks it."""
    order, visited = [], set()

    def visit(value):
        if value not in visited:
            visited.add(value)
            for child in value._prev:
                visit(child)
            order.append(value)

    visit(root)
    return order


def order_without_visited(root):
    """Depth first without recursion, but never remembers what it has listed: shared values come
    back (and a = a + a twelve times lists the bottom value 4,096 times)."""
    order, stack = [], [(root, False)]
    while stack:
        value, inputs_done = stack.pop()
        if inputs_done:
            order.append(value)
        else:
            stack.append((value, True))
            stack.extend((child, False) for child in value._prev)
    return order


def order_reversed_breadth_first(root):
    """Breadth first from the root, each value once, then reversed: not always inputs first."""
    seen, queue = {id(root): root}, deque([root])
    while queue:
        for child in queue.popleft()._prev:
            if id(child) not in seen:
                seen[id(child)] = child
                queue.append(child)
    return list(reversed(list(seen.values())))


def order_outputs_first(root):
    """A correct depth-first order, but not reversed at the end: the root comes first."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        value, inputs_done = stack.pop()
        if inputs_done:
            order.append(value)
        elif id(value) not in visited:
            visited.add(id(value))
            stack.append((value, True))
            stack.extend((child, False) for child in value._prev)
    return order[::-1]


def order_appends_when_popped(root):
    """An iterative depth-first walk that lists a value when it is first popped (pre-order), then
    reverses: inputs can still come after a value that uses them."""
    order, visited, stack = [], set(), [root]
    while stack:
        value = stack.pop()
        if id(value) in visited:
            continue
        visited.add(id(value))
        order.append(value)
        stack.extend(value._prev)
    return order[::-1]


def order_skips_leaves(root):
    """Lists only the computed values (they are the ones with a _backward to run)."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        value, inputs_done = stack.pop()
        if inputs_done:
            if value._prev:
                order.append(value)
        elif id(value) not in visited:
            visited.add(id(value))
            stack.append((value, True))
            stack.extend((child, False) for child in value._prev)
    return order


# -- 03.max_gradient_error ------------------------------------------------------------------------

def _analytic(f, xs, Value):  # noqa: N803 - the exercise's parameter name
    inputs = [Value(x) for x in xs]
    f(inputs).backward()
    return [v.grad for v in inputs]


def _slope(f, xs, Value, i, h, central=True):  # noqa: N803
    up = [Value(x + h if j == i else x) for j, x in enumerate(xs)]
    if not central:
        return (f(up).data - f([Value(x) for x in xs]).data) / h
    down = [Value(x - h if j == i else x) for j, x in enumerate(xs)]
    return (f(up).data - f(down).data) / (2 * h)


def error_forward_differences(f, xs, Value, h=1e-6):  # noqa: N803
    """One-sided differences (f(x + h) - f(x)) / h: an error of about h/2 times the curvature."""
    grads = _analytic(f, xs, Value)
    return max(abs(_slope(f, xs, Value, i, h, central=False) - g) for i, g in enumerate(grads))


def error_divides_by_h(f, xs, Value, h=1e-6):  # noqa: N803
    """Central differences divided by h instead of 2h: every slope twice too large."""
    grads = _analytic(f, xs, Value)
    return max(abs(2 * _slope(f, xs, Value, i, h) - g) for i, g in enumerate(grads))


def error_signed(f, xs, Value, h=1e-6):  # noqa: N803
    """The largest signed difference: forgets abs(), so an error below zero goes unseen."""
    grads = _analytic(f, xs, Value)
    return max(_slope(f, xs, Value, i, h) - g for i, g in enumerate(grads))


def error_mean(f, xs, Value, h=1e-6):  # noqa: N803
    """The mean error over the inputs instead of the largest."""
    grads = _analytic(f, xs, Value)
    return sum(abs(_slope(f, xs, Value, i, h) - g) for i, g in enumerate(grads)) / len(xs)


def error_reference_engine(f, xs, Value, h=1e-6):  # noqa: N803
    """Ignores the class it is given and always builds the inputs with one fixed engine."""
    grads = _analytic(f, xs, ReferenceValue)
    return max(abs(_slope(f, xs, ReferenceValue, i, h) - g) for i, g in enumerate(grads))


def error_backward_each_time(f, xs, Value, h=1e-6):  # noqa: N803
    """Calls backward() on the same inputs once per input: their gradients add up."""
    inputs = [Value(x) for x in xs]
    worst = 0.0
    for i, value in enumerate(inputs):
        f(inputs).backward()
        worst = max(worst, abs(_slope(f, xs, Value, i, h) - value.grad))
    return worst


def error_relative(f, xs, Value, h=1e-6):  # noqa: N803
    """A relative error, |slope - grad| / |slope|, where the exercise asks for the absolute one."""
    grads = _analytic(f, xs, Value)
    slopes = [_slope(f, xs, Value, i, h) for i in range(len(xs))]
    return max(abs(s - g) / max(abs(s), 1e-12) for s, g in zip(slopes, grads))


WRONG = {
    "03.sigmoid_backward": [sigmoid_backward_assigning, sigmoid_backward_without_chain,
                            sigmoid_backward_from_the_input, sigmoid_backward_like_tanh, sigmoid_backward_sign,
                            sigmoid_backward_runs_at_once, sigmoid_backward_frozen],
    "03.topological_order": [order_recursive, order_without_visited, order_reversed_breadth_first,
                             order_outputs_first, order_appends_when_popped, order_skips_leaves],
    "03.max_gradient_error": [error_forward_differences, error_divides_by_h, error_signed, error_mean,
                              error_reference_engine, error_backward_each_time, error_relative],
}
