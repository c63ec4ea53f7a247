"""How an op joins the graph, and the one gradient helper formulas share: ``compute_requires_grad``
and ``set_history`` (PyTorch's ``torch/csrc/autograd/functions/utils.h``; they live in
``autograd/graph.py``), an optional saved tensor, and ``reduce_grad_to`` (``sum_to_size``)."""
from __future__ import annotations

from .._tensor import Tensor
from ..autograd.graph import SavedTensor, compute_requires_grad, set_history  # noqa: F401 - how an op joins the graph


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
