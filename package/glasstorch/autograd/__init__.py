"""Automatic differentiation. Mirrors ``torch/autograd/__init__.py``.

``backward(tensors)`` accumulates gradients into the leaves' ``.grad``; ``grad(outputs, inputs)``
returns the gradients without touching any ``.grad``. Both hand the work to ``engine.execute``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._tensor import Tensor, _wrap
from . import graph
from .engine import execute
from .function import Function, FunctionCtx
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from . import functional
from .graph import AccumulateGrad, Node, gradient_edge, grad_accumulator

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "graph", "Node", "inference_mode", "is_inference_mode_enabled", "detect_anomaly",
           "set_detect_anomaly", "functional"]


# as in PyTorch's autograd/__init__.py: the function is bound over the submodule of the same name,
# so ``autograd.gradcheck`` is the function (glasstorch/autograd/gradcheck.py holds it)
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402


def _as_tuple(value: Any) -> tuple:
    if value is None:
        return ()
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _make_grads(outputs: tuple, grad_outputs: tuple) -> list:
    """The gradient each output starts with (PyTorch's ``_make_grads``): given (copied, so ``.grad`` never shares memory with
    the caller's tensor), or 1 for a one-element output."""
    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(grad_outputs)} for {len(outputs)} outputs")
    grads = []
    for i, output in enumerate(outputs):
        given = grad_outputs[i] if grad_outputs else None
        if given is None:
            data = output._data
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not output.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {output.dtype!r}")
            ones = np.empty(data.shape, data.dtype)
            ones.fill(1)  # (three times faster than np.ones, which matters for tiny graphs)
            given = _wrap(ones)
        elif given.shape != output.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {given.shape!r} and output[{i}] has a shape of {output.shape!r}."
            )
        elif not given.requires_grad:
            given = _wrap(given._data.copy())
        grads.append(given)
    return grads


def _root_nodes(outputs: tuple) -> list:
    nodes = []
    for i, output in enumerate(outputs):
        node = gradient_edge(output)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        nodes.append(node)
    return nodes


def _input_node(tensor: Any) -> Node:
    if not tensor.requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return tensor.grad_fn if tensor.grad_fn is not None else grad_accumulator(tensor)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    outputs = _as_tuple(tensors)
    roots = _root_nodes(outputs)  # first, as PyTorch: an output that needs no grad is the error to report
    grads = _make_grads(outputs, _as_tuple(grad_tensors if grad_tensors is not None else grad_variables))
    if retain_graph is None:
        retain_graph = create_graph
    input_tensors = _as_tuple(inputs)
    if not input_tensors:
        execute(roots, grads, keep_graph=retain_graph, create_graph=create_graph)
        return
    # backward(inputs=...): accumulate only into these tensors, leaves or not
    targets = [_input_node(t) for t in input_tensors]
    captured = execute(roots, grads, keep_graph=retain_graph, create_graph=create_graph, inputs=targets)
    for tensor, node in zip(input_tensors, targets):
        if node in captured:
            _accumulate_into(tensor, captured[node], create_graph)


def _accumulate_into(tensor: Any, grad: Any, create_graph: bool) -> None:
    if tensor._grad is None:
        tensor._grad = grad if create_graph else grad.detach().clone()
    else:
        tensor._grad = tensor._grad + grad


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated."""
    outputs = _as_tuple(outputs)
    input_tensors = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    roots = _root_nodes(outputs)
    grads = _make_grads(outputs, _as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    targets = [_input_node(t) for t in input_tensors]
    captured = execute(roots, grads, keep_graph=retain_graph, create_graph=create_graph, inputs=targets)
    result = []
    for index, (tensor, node) in enumerate(zip(input_tensors, targets)):
        found = captured.get(node)
        if found is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                from .._creation import zeros_like

                found = zeros_like(tensor)
        result.append(found)
    return tuple(result)
