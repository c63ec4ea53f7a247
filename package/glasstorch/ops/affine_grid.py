"""``affine_grid``: the sampling grid of a batch of affine transforms, for ``grid_sample``.
Mirrors aten/src/ATen/native/AffineGridGenerator.cpp and its Node ``AffineGridGeneratorBackward0``.

The grid is a fixed base grid B of the output's normalised coordinates in [-1, 1] (x along the
width, y along the height, z along the depth, then a 1), each row mapped by the transform:
grid = B theta^T. So d grid / d theta is linear, and grad_theta = (B^T grad)^T, written with
tensor ops (a second derivative works).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import compute_requires_grad, set_history


def _linspace_from_neg_one(steps: int, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """The normalised coordinates of ``steps`` pixels: their centres (``align_corners=False``)
    or their corners (True) spread over [-1, 1]; a single pixel sits at 0."""
    if steps <= 1:
        return np.zeros(max(steps, 0), dtype=dtype)
    values = np.linspace(-1.0, 1.0, steps)
    if not align_corners:
        values = values * (steps - 1) / steps
    return values.astype(dtype)


def _base_grid(spatial: tuple, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """(prod(spatial), len(spatial) + 1): each output position's (x, y[, z], 1)."""
    axes = [_linspace_from_neg_one(n, align_corners, dtype) for n in spatial]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")  # coordinates indexed as (D,) H, W
    columns = [m.reshape(-1) for m in reversed(mesh)]  # x (along W) first, then y, then z
    return np.stack([*columns, np.ones(columns[0].shape, dtype=dtype)], axis=1)


class AffineGridGeneratorBackward0(Node):
    """grid[n] = B theta[n]^T (B the base grid, one row per output position):
    grad_theta[n] = grad[n]^T B, a (dims, dims + 1) matrix per sample."""

    size: tuple
    align_corners: bool

    def backward(self, grad: Tensor) -> tuple:
        spatial = self.size[2:]
        base = _wrap(_base_grid(spatial, self.align_corners, grad._data.dtype))
        rows = grad.reshape(self.size[0], -1, len(spatial))  # (N, positions, dims)
        return (rows.transpose(1, 2).matmul(base),)


def affine_grid_generator(theta: Tensor, size: tuple, align_corners: bool) -> Tensor:
    """(N, *spatial, dims) coordinates in the input of each output position (ATen's kernel)."""
    spatial = tuple(int(n) for n in size[2:])
    base = _base_grid(spatial, align_corners, theta._data.dtype)
    grid = np.einsum("pk,ndk->npd", base, theta._data).reshape(size[0], *spatial, len(spatial))
    out = _wrap(np.ascontiguousarray(grid))
    if compute_requires_grad(theta):
        node = AffineGridGeneratorBackward0(theta)
        node.size, node.align_corners = tuple(int(n) for n in size), bool(align_corners)
        set_history(out, node)
    return out
