"""How an op joins the graph, and the one gradient helper formulas share: ``compute_requires_grad``
and ``set_history`` (PyTorch's ``torch/csrc/autograd/functions/utils.h``; they live in
``autograd/graph.py``), ``record`` (both, and the Node's saved state, in one call), an optional
saved tensor, and ``reduce_grad_to`` (``sum_to_size``)."""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.graph import SavedTensor, compute_requires_grad, set_history  # noqa: F401 - how an op joins the graph


def record(out: Tensor, node_class: type, inputs: tuple, **saved: Any) -> Tensor:
    """Give ``out`` a ``node_class`` grad_fn if any of ``inputs`` requires grad. ``inputs`` are the
    Node's edges (the tensor operands, in PyTorch's order); ``saved`` its state under PyTorch's
    names: a tensor (``self_``, ``result_``) is saved as a SavedTensor (the output as an output),
    anything else (``dim``, ``value``, a SavedTensor made by the caller) as it is."""
    if not compute_requires_grad(*inputs):
        return out
    node = node_class(*inputs)
    for name, value in saved.items():
        if isinstance(value, Tensor):
            value = SavedTensor(value, is_output=value is out)
        setattr(node, name, value)
    return set_history(out, node)


def saved_optional(tensor: Tensor | None) -> SavedTensor | None:
    """An optional tensor argument saved for backward (a weight, a bias): None if it was not given
    (PyTorch saves an undefined tensor, which ``grad_fn._saved_weight`` shows as None)."""
    return None if tensor is None else SavedTensor(tensor)


def reduce_grad_to(grad: Tensor, shape: tuple) -> Tensor:
    """Undo broadcasting in backward: sum ``grad`` over the dimensions that were broadcast, so the
    gradient of an input has the input's shape."""
    if grad._data.shape == shape:
        return grad
    return grad.sum_to_size(shape)
