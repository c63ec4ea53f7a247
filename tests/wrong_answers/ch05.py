"""Plausible wrong answers to chapter 05's exercises: each must be caught by its check."""
import numpy as np

import glasstorch as torch


def mul_backward_without_unbroadcast(grad, a, b):
    return grad * b, grad * a


def mul_backward_swapped(grad, a, b):
    return grad * a, grad * b


def mul_backward_float64(grad, a, b):  # right values, but promotes the gradients to float64
    ga, gb = grad.astype(np.float64) * b, grad.astype(np.float64) * a
    while ga.ndim > a.ndim:
        ga = ga.sum(0)
    while gb.ndim > b.ndim:
        gb = gb.sum(0)
    return (ga.sum(axis=tuple(i for i, n in enumerate(a.shape) if n == 1), keepdims=True),
            gb.sum(axis=tuple(i for i, n in enumerate(b.shape) if n == 1), keepdims=True))


def mm_backward_wrong_order(grad, a, b):
    return b.T @ grad if b.shape[0] == grad.shape[1] else grad @ b, grad @ a.T if a.shape[0] == grad.shape[1] else a.T @ grad


def mm_backward_untransposed(grad, a, b):
    return grad @ b, a @ grad


def run_backward_recursive(root, grad):
    """Depth first and recursive: wrong order on a diamond, and it overflows on a long chain."""
    with torch.no_grad():
        grads = root(grad)
        for (next_node, _), next_grad in zip(root.next_functions, grads):
            if next_node is not None and next_grad is not None:
                run_backward_recursive(next_node, next_grad)


def run_backward_without_counting(root, grad):
    """Runs a Node as soon as one gradient reaches it, so a Node fed by two paths runs twice."""
    with torch.no_grad():
        stack = [(root, grad)]
        while stack:
            node, node_grad = stack.pop()
            for (next_node, _), next_grad in zip(node.next_functions, node(node_grad)):
                if next_node is not None and next_grad is not None:
                    stack.append((next_node, next_grad))


def run_backward_recording(root, grad):
    """Right order and sums, but records the backward formulas as a new graph (no no_grad)."""
    from glasstorch.autograd.engine import execute
    with torch.enable_grad():
        execute([root], [grad], retain_graph=False, create_graph=True)


WRONG = {
    "05.mul_backward": [mul_backward_without_unbroadcast, mul_backward_swapped, mul_backward_float64],
    "05.mm_backward": [mm_backward_wrong_order, mm_backward_untransposed],
    "05.run_backward": [run_backward_recursive, run_backward_without_counting, run_backward_recording],
}
