"""Distances between rows: ``pairwise_distance`` (row i of x1 to row i of x2) and ``pdist`` (every
pair of rows of one matrix). Mirrors aten/src/ATen/native/Distance.cpp (whose ``dist``, the
distance between two whole tensors, is in distance.py).

``pairwise_distance`` is composed there of a subtraction and ATen's ``norm(x, p, dim, keepdim)``,
which records ``NormBackward1`` (the Python ``x.norm`` goes through ``linalg.vector_norm``
instead). ``pdist`` is one kernel with its own Node, ``PdistBackward0``; its backward is written
here with tensor ops (a matrix of +1/-1 picks each pair's difference), so it can be differentiated
again, which PyTorch's ``_pdist_backward`` cannot.
"""
from __future__ import annotations

import math
import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .reduction import LinalgVectorNormBackward0, norm


class NormBackward1(Node):
    """ATen's ``norm(self, p, dim, keepdim)``: the vector norm's derivative (the one
    ``LinalgVectorNormBackward0`` computes) under its own Node, which calls the order ``p``."""

    p: float
    dim: tuple
    keepdim: bool
    result_: SavedTensor
    self_: SavedTensor

    @property
    def ord(self) -> float:  # the name the vector norm's backward reads
        return self.p

    def backward(self, grad: Tensor) -> tuple:
        return LinalgVectorNormBackward0.backward(self, grad)


def norm_dim(input: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """The p-norm along ``dim``, recorded as ATen's ``norm`` (``NormBackward1``)."""
    result = norm(input.detach(), p, dim, keepdim)
    if compute_requires_grad(input):
        node = NormBackward1(input)
        node.p, node.dim, node.keepdim = float(p), (dim % max(input.dim(), 1),), keepdim
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The p-norm of x1 - x2 + eps along the last dim (``eps`` keeps the norm of equal rows away from 0)."""
    innermost_dim = max(x1.dim(), x2.dim()) - 1
    return norm_dim(x1 - x2 + eps, p, innermost_dim, keepdim)


def _pair_differences(rows: int, dtype: np.dtype) -> np.ndarray:
    """A (pairs, rows) matrix with +1 at i and -1 at j for each pair i < j, in ``pdist``'s order."""
    first, second = np.triu_indices(rows, k=1)
    picks = np.zeros((first.size, rows), dtype=dtype)
    picks[np.arange(first.size), first] = 1
    picks[np.arange(first.size), second] = -1
    return picks


class PdistBackward0(Node):
    """out_k = ||x_i - x_j||_p for the k-th pair i < j. With D = P x the pairs' differences (P of
    +1/-1): d out_k / d D_k is the vector norm's derivative, and grad_x = P^T (grad_D)."""

    p: float
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        x, result = self._saved_self, self._saved_result
        picks = _wrap(_pair_differences(x.shape[0], x._data.dtype))
        differences = picks.matmul(x)
        grad_differences = _norm_grad(differences, result.unsqueeze(1), grad.unsqueeze(1), self.p)
        return (picks.t().matmul(grad_differences),)


def _norm_grad(x: Tensor, norm: Tensor, grad: Tensor, p: float) -> Tensor:
    """d ||x||_p / d x times ``grad`` (norm and grad broadcast along the reduced dim); 0 where the norm is 0."""
    if p == 0:
        return x * 0
    if p == 1:
        return grad * x.sign()
    if math.isinf(p):
        winners = _wrap((np.abs(x._data) == norm._data).astype(x._data.dtype))
        return x.sign() * winners * grad / winners.sum(1, keepdim=True)
    safe = norm.masked_fill(_wrap(norm._data == 0), 1.0)
    if p == 2:
        return grad * x / safe
    return grad * x * x.abs() ** (p - 2) / safe ** (p - 1)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows i < j of an (N, M) matrix: N (N - 1) / 2 values."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    data = input._data
    differences = _pair_differences(data.shape[0], data.dtype) @ data
    values = norm(_wrap(differences), p, 1)._data if differences.size else np.zeros(differences.shape[0], data.dtype)
    result = _wrap(values)
    if compute_requires_grad(input):
        node = PdistBackward0(input)
        node.p = float(p)
        node.self_, node.result_ = SavedTensor(input), SavedTensor(result, is_output=True)
        set_history(result, node)
    return result

