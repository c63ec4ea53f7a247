"""More products and integrals, found missing by running the examples in PyTorch's own docstrings
(issue 14): addmv, addr, addbmm, chain_matmul, cdist, logdet, trapezoid (trapz),
cumulative_trapezoid.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp``, ``Distance.cpp`` and ``Integration.cpp``.
Composed from ops that have backward Nodes (``mv``, ``outer``, ``bmm``, ``sum``, ``det``), as
PyTorch composes ``chain_matmul``, ``trapezoid`` and ``cdist``'s mm path; where PyTorch records a
Node of its own (``AddmvBackward0``, ``AddrBackward0``, ``LogdetBackward0``), glasstorch's
``grad_fn`` is the last op of the composition.
"""
from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from .linalg import bmm, det, matmul, mv, outer


def _scaled(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """beta * input + alpha * product; beta = 0 ignores input (its NaNs too), as in PyTorch."""
    scaled_product = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled_product
    return (input if beta == 1 else input * beta) + scaled_product


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return _scaled(input, mv(mat, vec), beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    return _scaled(input, outer(vec1, vec2), beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    return _scaled(input, bmm(batch1, batch2).sum(0), beta, alpha)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """matrices[0] @ matrices[1] @ ... (deprecated in PyTorch for ``linalg.multi_dot``)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    result = matrices[0]
    for m in matrices[1:]:
        result = matmul(result, m)
    return result if len(matrices) > 1 else result.clone()


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched): out[..., i, j]
    = ||x1[..., i, :] - x2[..., j, :]||_p."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    differences = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
    if p == 0:
        return (differences != 0).to(x1.dtype).sum(-1)
    if math.isinf(p):
        return differences.abs().amax(-1)
    if p == 2:
        return (differences * differences).sum(-1).sqrt()
    return (differences.abs() ** p).sum(-1) ** (1.0 / p)


def logdet(input: Tensor) -> Tensor:
    """log(det(input)): NaN for a negative determinant, -inf for a singular matrix."""
    return det(input).log()


def _trapezoid_spacing(y: Tensor, x: Any, dx: Any, axis: int) -> Any:
    if x is None:
        return 1.0 if dx is None else dx
    if isinstance(x, Tensor):
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[axis] = x.shape[0] - 1
            return (x[1:] - x[:-1]).reshape(*shape)
        length = x.shape[axis]
        return x.narrow(axis, 1, length - 1) - x.narrow(axis, 0, length - 1)
    return x


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: sum of (y[i] + y[i+1]) / 2 * (x[i+1] - x[i]), with
    spacing ``dx`` (1 by default) when no ``x`` is given."""
    axis = dim % max(y.dim(), 1)
    length = y.shape[axis]
    if length == 0:
        return y.sum(axis)
    pairs = y.narrow(axis, 1, length - 1) + y.narrow(axis, 0, length - 1)
    return (pairs * _trapezoid_spacing(y, x, dx, axis)).sum(axis) / 2


trapz = trapezoid


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one element fewer than ``y`` along it)."""
    axis = dim % max(y.dim(), 1)
    length = y.shape[axis]
    if length == 0:
        return y.clone()
    pairs = y.narrow(axis, 1, length - 1) + y.narrow(axis, 0, length - 1)
    return (pairs * _trapezoid_spacing(y, x, dx, axis) / 2).cumsum(axis)
