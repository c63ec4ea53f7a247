"""``embedding``: a lookup of rows of a weight table, recorded as PyTorch records it
(``EmbeddingBackward0``), and its backward ``embedding_dense_backward``, which is itself
differentiable (``EmbeddingDenseBackwardBackward0``) for a double backward. ``embedding_bag``:
bags of looked-up rows, each summed, averaged or maxed into one (``EmbeddingBagBackward0``;
PyTorch's EmbeddingBag.cpp).

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


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Scale each row of ``weight`` that ``indices`` names and whose ``norm_type``-norm exceeds
    ``max_norm`` down to that norm (times max_norm / (norm + 1e-7), as PyTorch), in place. Called
    by ``F.embedding(max_norm=...)`` under no_grad on ``weight.detach()``: the change is not
    recorded, but it bumps the weight's version (a Node that saved the weight will notice)."""
    from ..autograd.grad_mode import no_grad

    rows = np.unique(indices._data.astype(np.int64).reshape(-1))
    data = weight._data[rows]
    norms = np.linalg.norm(data, ord=norm_type, axis=1) if data.size else np.zeros(rows.shape)
    over = norms > max_norm
    if over.any():
        scale = (max_norm / (norms[over] + 1e-7)).astype(data.dtype)
        with no_grad():
            weight[_wrap(rows[over])] = _wrap(data[over] * scale[:, None])
    return weight


# --- embedding_bag ----------------------------------------------------------------------------
_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


class EmbeddingBagBackward0(Node):
    """out[b] = reduce over the bag b of weight[indices] (sum, mean or max). The gradient of bag b
    goes to each of its rows: as is for sum (times its per_sample_weight), divided by the bag's
    size for mean, to the row that gave each maximum for max. Padding rows get none. Written with
    tensor ops (``index_add``, ``scatter_add``), so it can be differentiated again.
    Simplified: PyTorch also saves ``result1``/``result2``/``result3`` (offset2bag, bag sizes, the
    max's rows) as outputs of the op; glasstorch keeps them privately."""

    weight_: SavedTensor
    indices_: SavedTensor
    offsets_: SavedTensor
    per_sample_weights_: SavedTensor
    mode: int
    padding_idx: int
    scale_grad_by_freq: bool
    sparse: bool
    weight_sym_argsize_0: int

    def backward(self, grad: Tensor) -> tuple:
        kept = _wrap(np.flatnonzero(self._kept))  # the indices that count (not padding)
        bag_grads = grad.index_select(0, _wrap(self._bag_of)).index_select(0, kept)  # each kept index's bag
        grad_weight = grad_per_sample = None
        if self.needs_input_grad(0):
            zeros = _wrap(np.zeros((self.weight_sym_argsize_0, grad.shape[1]), dtype=grad._data.dtype))
            if self.mode == 2:  # max: each bag's gradient goes to the row that gave each maximum
                filled = _wrap((self._chosen >= 0).astype(grad._data.dtype))
                grad_weight = zeros.scatter_add(0, _wrap(np.maximum(self._chosen, 0)), grad * filled)
            else:
                grad_weight = zeros.index_add(0, _wrap(self._indices).index_select(0, kept),
                                              bag_grads * self._scale_of().index_select(0, kept).unsqueeze(1))
        if self.needs_input_grad(1):  # sum mode only: d out[b] / d psw[i] = weight[indices[i]]
            rows = self._saved_weight.index_select(0, _wrap(self._indices)).index_select(0, kept)
            per_kept = (bag_grads * rows).sum(1)
            grad_per_sample = _wrap(np.zeros(self._indices.shape, dtype=grad._data.dtype)).index_add(
                0, kept, per_kept)
        return grad_weight, grad_per_sample

    def _scale_of(self) -> Tensor:
        """Each index's factor: its per_sample_weight (a tensor: its own gradient flows), or the
        constant 1 (sum) or 1 / bag size (mean)."""
        weights = self._saved_per_sample_weights
        return weights if weights is not None else _wrap(self._scale)


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, mode: str, per_sample_weights: Tensor | None,
                  include_last_offset: bool, padding_idx: int, scale_grad_by_freq: bool, sparse: bool) -> Tensor:
    """Bags of rows of ``weight``, each reduced to one row: bag b holds indices[offsets[b]:offsets[b+1]]
    (the last bag runs to the end unless ``include_last_offset``). Empty bags give zeros; indices equal
    to ``padding_idx`` (>= 0) are left out of their bag (and of its size for mean)."""
    idx = indices._data.astype(np.int64)
    starts = offsets._data.astype(np.int64)
    count = starts.shape[0] - 1 if include_last_offset else starts.shape[0]
    num_rows, width = weight._data.shape
    bad = np.flatnonzero((idx < 0) | (idx >= num_rows))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in the valid range "
                           f"[0, {num_rows})")
    bounds = np.append(starts[:count], idx.shape[0]) if not include_last_offset else starts
    bag_of = np.repeat(np.arange(count), np.diff(bounds))  # the bag of each index
    kept = idx != padding_idx if padding_idx >= 0 else np.ones(idx.shape, dtype=bool)
    rows = weight._data[idx]
    sizes = np.bincount(bag_of[kept], minlength=count)
    chosen = None
    if mode == "max":
        out = np.full((count, width), -np.inf, dtype=rows.dtype)
        np.maximum.at(out, bag_of[kept], rows[kept])
        # the row that gave each maximum (the first of equal ones), -1 in an empty bag
        hits = (rows == out[bag_of]) & kept[:, None]
        first = np.full((count, width), idx.shape[0], dtype=np.int64)
        np.minimum.at(first, bag_of, np.where(hits, np.arange(idx.shape[0])[:, None], idx.shape[0]))
        chosen = np.where(first < idx.shape[0], np.append(idx, -1)[first], -1)
        out[sizes == 0] = 0
        scale = np.ones(idx.shape, dtype=rows.dtype)
    else:
        scale = (per_sample_weights._data if per_sample_weights is not None
                 else np.ones(idx.shape, dtype=rows.dtype)).astype(rows.dtype)
        if mode == "mean":
            scale = scale / np.maximum(sizes, 1)[bag_of].astype(rows.dtype)
        out = np.zeros((count, width), dtype=rows.dtype)
        np.add.at(out, bag_of[kept], rows[kept] * scale[kept, None])
    result = _wrap(out.astype(weight._data.dtype, copy=False))
    if compute_requires_grad(weight, per_sample_weights):
        node = EmbeddingBagBackward0(weight, per_sample_weights)
        node.weight_, node.indices_, node.offsets_ = SavedTensor(weight), SavedTensor(indices), SavedTensor(offsets)
        node.per_sample_weights_ = SavedTensor(per_sample_weights) if per_sample_weights is not None else None
        node.mode, node.padding_idx = _BAG_MODES[mode], padding_idx
        node.scale_grad_by_freq, node.sparse, node.weight_sym_argsize_0 = scale_grad_by_freq, sparse, num_rows
        node._indices, node._bag_of, node._kept, node._scale, node._chosen = idx, bag_of, kept, scale, chosen
        set_history(result, node)
    return result
