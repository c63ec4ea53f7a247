"""The functional twins of the normalisation, embedding, activation and loss layers of Part III.
Mirrors the matching functions of torch/nn/functional.py, with PyTorch's signatures and argument
checks; the work is done by the ops in ``glasstorch/ops/nn_ops.py``.

``size_average`` and ``reduce`` are PyTorch's deprecated way of choosing a reduction: accepted,
with PyTorch's warning, and turned into ``reduction`` (``_Reduction.legacy_get_string``).

Simplified: ``embedding`` supports ``max_norm=None`` and ``sparse=False`` only (PyTorch can
renormalise the looked-up rows in place, and return a sparse gradient).
"""
from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor
from ..ops import nn_ops

__all__ = ["layer_norm", "group_norm", "embedding", "leaky_relu", "gelu", "nll_loss", "cross_entropy", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits"]


def legacy_get_string(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """The reduction that the deprecated ``size_average``/``reduce`` flags stand for
    (PyTorch's ``torch.nn._reduction.legacy_get_string``)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                      stacklevel=3)
    return reduction


def _reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    return legacy_get_string(size_average, reduce) if size_average is not None or reduce is not None else reduction


# --- normalisation ---------------------------------------------------------------------------
def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing dims given by ``normalized_shape`` (a tuple, list or Size)."""
    if isinstance(normalized_shape, int):  # the layer accepts an int, the function does not
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    return nn_ops.layer_norm(input, normalized_shape, weight, bias, eps)


def _verify_batch_size(size: list) -> None:
    """Statistics of a single value are meaningless: PyTorch refuses them (as batch_norm does)."""
    values = size[0]
    for n in size[2:]:
        values *= n
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each group of ``C / num_groups`` channels of each sample."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return nn_ops.group_norm(input, num_groups, weight, bias, eps)


# --- embedding -------------------------------------------------------------------------------
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up the rows of ``weight`` named by the integer tensor ``input``: the result has shape
    ``input.shape + (embedding_dim,)``. The row at ``padding_idx`` gets no gradient."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1  # torch.embedding's "none"
    if max_norm is not None:
        raise NotImplementedError("glasstorch's embedding supports max_norm=None only (PyTorch renormalises the "
                                  "looked-up rows of weight in place to at most max_norm)")
    return nn_ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# --- activations -----------------------------------------------------------------------------
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else ``negative_slope * x``."""
    return nn_ops.leaky_relu_(input, negative_slope) if inplace else nn_ops.leaky_relu(input, negative_slope)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    return nn_ops.gelu(input, approximate)


# --- losses ----------------------------------------------------------------------------------
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood loss of class indices under log-probabilities."""
    return nn_ops.nll_loss(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
                  ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """The cross entropy between the softmax of the logits ``input`` and ``target`` (class
    indices, or class probabilities of the input's shape)."""
    return nn_ops.cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index,
                                label_smoothing)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) absolute error; ``target`` broadcasts to ``input``."""
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=2)
    return nn_ops.l1_loss(input, target, _reduction(size_average, reduce, reduction), weight)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """The binary cross entropy of probabilities ``input`` in [0, 1] against ``target``."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_broadcast_shapes(target.size(), weight.size()))
    return nn_ops.binary_cross_entropy(input, target, weight, reduction)


def _broadcast_shapes(*shapes: tuple) -> tuple:
    """``torch.broadcast_shapes(*shapes)``, with PyTorch's message when they do not broadcast."""
    result: list = []
    for index, given in enumerate(shapes):
        sizes = (given,) if isinstance(given, int) else tuple(given)
        if any(size < 0 for size in sizes):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        result = [1] * (len(sizes) - len(result)) + result
        for i in range(-1, -len(sizes) - 1, -1):
            if sizes[i] == 1 or sizes[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {sizes[i]} at {i}! Mismatching argument at index "
                    f"{index} had {given!r}; but expected shape should be broadcastable to {result}")
            result[i] = sizes[i]
    return tuple(result)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """The binary cross entropy of ``sigmoid(input)``, computed stably from the logits."""
    reduction = _reduction(size_average, reduce, reduction)
    if not target.size() == input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return nn_ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)
