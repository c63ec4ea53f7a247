"""``embedding``: a lookup of rows of a weight table, recorded as PyTorch records it
(``EmbeddingBackward0``), and its backward ``embedding_dense_backward``, which is itself
differentiable (``EmbeddingDenseBackwardBackward0``) for a double backward.

Mirrors aten/src/ATen/native/Embedding.cpp and the formulas of tools/autograd/derivatives.yaml.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history


class EmbeddingBackward0(Node):
    """out = weight[indices]: each looked-up row's gradient is added back into its row of the
    weight (rows looked up twice get both); the padding row gets none."""

    indices_: SavedTensor
    padding_idx: int
    scale_grad_by_freq: bool
    sparse: bool
    weight_sym_argsize_0: int  # the number of rows of the weight

    def backward(self, grad: Tensor) -> tuple:
        return (embedding_dense_backward(grad, self._saved_indices, self.weight_sym_argsize_0, self.padding_idx,
                                         self.scale_grad_by_freq),)


class EmbeddingDenseBackwardBackward0(Node):
    """The dense backward is linear in ``grad``: its own gradient reads ``grad_grad`` back at the
    indices (an embedding lookup), zero at the padding index, scaled like the forward."""

    indices_: SavedTensor
    padding_idx: int

    def backward(self, grad: Tensor) -> tuple:
        looked_up = embedding(grad, self._saved_indices)
        return (looked_up * _wrap(self._row_scale[..., None].astype(grad._data.dtype)),)


def _row_scale(indices: Tensor, num_weights: int, padding_idx: int, scale_grad_by_freq: bool) -> np.ndarray:
    """The factor of each looked-up row's gradient: 0 at the padding index, and with
    ``scale_grad_by_freq`` one over how often the index occurs in this batch."""
    idx = indices._data
    scale = (idx != padding_idx).astype(np.float64)
    if scale_grad_by_freq:
        scale /= np.bincount(idx.reshape(-1), minlength=num_weights)[idx]
    return scale


def embedding_dense_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int = -1,
                             scale_grad_by_freq: bool = False) -> Tensor:
    """The gradient of an embedding's weight: ``grad``'s rows added into a (num_weights, dim)
    table of zeros at ``indices`` (``np.add.at``, so repeated indices accumulate), the padding
    index skipped."""
    idx = indices._data.reshape(-1)
    dim = grad._data.shape[-1]
    rows = grad._data.reshape(-1, dim)
    row_scale = _row_scale(indices, num_weights, padding_idx, scale_grad_by_freq)
    if scale_grad_by_freq:
        rows = rows * row_scale.reshape(-1, 1).astype(rows.dtype)
    keep = idx != padding_idx
    values = np.zeros((num_weights, dim), dtype=grad._data.dtype)
    np.add.at(values, idx[keep], rows[keep])
    out = _wrap(values)
    if compute_requires_grad(grad):
        node = EmbeddingDenseBackwardBackward0(grad)
        node.indices_, node.padding_idx, node._row_scale = SavedTensor(indices), padding_idx, row_scale
        set_history(out, node)
    return out


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``weight[indices]``: one row of ``weight`` per index (``torch.embedding``'s argument order;
    ``padding_idx=-1`` means none: ``F.embedding`` has already turned a negative index positive)."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got glasstorch.{indices.dtype.legacy_name} instead (while checking "
                           "arguments for embedding)")
    if sparse:
        raise NotImplementedError("glasstorch has no sparse tensors, so no sparse gradients: use sparse=False")
    idx = indices._data
    num_weights = weight._data.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= num_weights):
        raise IndexError("index out of range in self")
    out = _wrap(weight._data[idx])
    if compute_requires_grad(weight):
        node = EmbeddingBackward0(weight)
        node.indices_, node.weight_sym_argsize_0 = SavedTensor(indices), num_weights
        node.padding_idx, node.scale_grad_by_freq, node.sparse = padding_idx, scale_grad_by_freq, sparse
        set_history(out, node)
    return out
