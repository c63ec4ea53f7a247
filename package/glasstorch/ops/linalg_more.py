"""More products and integrals, found missing by running the examples in PyTorch's own docstrings
(issue 14): addmv, addr, addbmm, chain_matmul, cdist, logdet, trapezoid (trapz),
cumulative_trapezoid.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp``, ``Distance.cpp`` and ``Integration.cpp``.
``addmv``, ``addr``, ``addbmm`` and ``cdist`` compute their forward with numpy and
record PyTorch's Node (``AddmvBackward0`` ...), whose backward is written with tensor ops (so it can
be differentiated again). ``chain_matmul``, ``logdet``, ``trapezoid`` and ``cumulative_trapezoid``
are composed of other ops, in the order PyTorch composes them, so their ``grad_fn`` is PyTorch's
too (``logdet``: ``WhereBackward0`` over slogdet's ``LinalgSlogdetBackward0``; ``trapezoid``:
``MulBackward1`` or ``DivBackward1``). Simplified: for more than 25 rows PyTorch's ``cdist`` with
p = 2 switches to a matrix-product formula (recording ``ViewBackward0``...); glasstorch always
records ``CdistBackward0``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .linalg import _check_dtypes, bmm, matmul, mv
from .loss import _div_scalar  # (DivBackward1: ATen's div.Scalar, as PyTorch's C++ ops record it)


# --- beta * input + alpha * product, one Node each ------------------------------------------------
def _add_scaled(input: Tensor, product: np.ndarray, beta: Any, alpha: Any) -> Tensor:
    """beta * input + alpha * product (input broadcast to the product's shape, with PyTorch's expand
    error if it does not fit); beta = 0 ignores input, its NaNs too, as in PyTorch."""
    from .shape import expand

    _check_dtypes(input, _wrap(product))
    added = expand(input.detach(), product.shape)._data
    values = product * alpha if alpha != 1 else product
    if beta != 0:
        values = values + (added if beta == 1 else beta * added)
    return _wrap(np.asarray(values, dtype=product.dtype))


def _scaled(grad: Tensor, factor: Any) -> Tensor:
    return grad if factor == 1 else grad * factor


def _finish(result: Tensor, out: Any) -> Tensor:
    if out is None:
        return result
    from ._arguments import write_out

    return write_out(out, result)


class AddmvBackward0(Node):
    """out = beta * self + alpha * (mat @ vec):  d/dself = beta * grad (summed to self's shape),
    d/dmat = alpha * outer(grad, vec),  d/dvec = alpha * mat^T @ grad."""

    alpha: Any
    beta: Any
    mat_: SavedTensor
    vec_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        scaled = _scaled(grad, self.alpha)
        return (_scaled(grad, self.beta) if self.needs_input_grad(0) else None,
                scaled.unsqueeze(1) * self._saved_vec if self.needs_input_grad(1) else None,
                self._saved_mat.t().mv(scaled) if self.needs_input_grad(2) else None)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    result = _add_scaled(input, mv(mat.detach(), vec.detach())._data, beta, alpha)
    if compute_requires_grad(input, mat, vec):
        node = AddmvBackward0(input, mat, vec)
        node.alpha, node.beta = alpha, beta
        node.mat_ = SavedTensor(mat) if node.needs_input_grad(2) else None
        node.vec_ = SavedTensor(vec) if node.needs_input_grad(1) else None
        set_history(result, node)
    return _finish(result, out)


class AddrBackward0(Node):
    """out = beta * self + alpha * outer(vec1, vec2):  d/dself = beta * grad,
    d/dvec1 = alpha * grad @ vec2,  d/dvec2 = alpha * grad^T @ vec1."""

    alpha: Any
    beta: Any
    vec1_: SavedTensor
    vec2_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        scaled = _scaled(grad, self.alpha)
        return (_scaled(grad, self.beta) if self.needs_input_grad(0) else None,
                scaled.mv(self._saved_vec2) if self.needs_input_grad(1) else None,
                scaled.t().mv(self._saved_vec1) if self.needs_input_grad(2) else None)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t.dim()}-D")
    result = _add_scaled(input, np.multiply.outer(vec1._data, vec2._data), beta, alpha)
    if compute_requires_grad(input, vec1, vec2):
        node = AddrBackward0(input, vec1, vec2)
        node.alpha, node.beta = alpha, beta
        node.vec1_ = SavedTensor(vec1) if node.needs_input_grad(2) else None
        node.vec2_ = SavedTensor(vec2) if node.needs_input_grad(1) else None
        set_history(result, node)
    return _finish(result, out)


class AddbmmBackward0(Node):
    """out = beta * self + alpha * sum_b batch1[b] @ batch2[b]:  d/dself = beta * grad,
    d/dbatch1[b] = alpha * grad @ batch2[b]^T,  d/dbatch2[b] = alpha * batch1[b]^T @ grad."""

    alpha: Any
    batch1_: SavedTensor
    batch2_: SavedTensor
    beta: Any

    def backward(self, grad: Tensor) -> tuple:
        batch1, batch2 = self._saved_batch1, self._saved_batch2
        size = (batch1 if batch1 is not None else batch2).shape[0]
        spread = _scaled(grad, self.alpha).unsqueeze(0).expand(size, *grad.shape)  # the same grad for each b
        return (_scaled(grad, self.beta) if self.needs_input_grad(0) else None,
                spread.bmm(batch2.transpose(1, 2)) if self.needs_input_grad(1) else None,
                batch1.transpose(1, 2).bmm(spread) if self.needs_input_grad(2) else None)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None) -> Tensor:
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    result = _add_scaled(input, bmm(batch1.detach(), batch2.detach())._data.sum(0), beta, alpha)
    if compute_requires_grad(input, batch1, batch2):
        node = AddbmmBackward0(input, batch1, batch2)
        node.alpha, node.beta = alpha, beta
        node.batch1_, node.batch2_ = SavedTensor(batch1), SavedTensor(batch2)  # (batch1 also gives the batch size)
        set_history(result, node)
    return _finish(result, out)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """matrices[0] @ matrices[1] @ ... (deprecated in PyTorch for ``linalg.multi_dot``, which ends
    with a view of the product: ``ViewBackward0``; one matrix is returned as a clone)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    result = matrices[0]
    for m in matrices[1:]:
        result = matmul(result, m)
    return result.view(result.shape)


# --- cdist --------------------------------------------------------------------------------------
class CdistBackward0(Node):
    """out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p. With d = x1_i - x2_j and r = out_ij,
    d r / d d = 0 (p = 0),  sign(d) (p = 1),  d / r (p = 2),  sign(d) |d|^(p-1) / r^(p-1),
    sign(d) [|d| = r] (p = inf: every coordinate that attains the max, as PyTorch);
    x1_i gets the sum over j, x2_j minus the sum over i (0 where r = 0)."""

    p: float
    result_: SavedTensor
    x1_: SavedTensor
    x2_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from ._util import reduce_grad_to

        x1, x2 = self._saved_x1, self._saved_x2
        d = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
        g = _distance_derivative(d, self._saved_result.unsqueeze(-1), self.p) * grad.unsqueeze(-1)
        return (reduce_grad_to(g.sum(-2), x1.shape) if self.needs_input_grad(0) else None,
                reduce_grad_to(-g.sum(-3), x2.shape) if self.needs_input_grad(1) else None)


def _distance_derivative(d: Tensor, r: Tensor, p: float) -> Tensor:
    """d ||d||_p / d d, elementwise, for the distances r (0 where r = 0)."""
    from .indexing import where

    if p == 0:
        return d * 0
    if p == 1:
        return d.sign()
    if math.isinf(p):
        return d.sign() * (d.abs() == r).to(d.dtype)
    safe_r = where(r == 0, 1.0, r)  # (a zero distance gets 0, not 0/0)
    derivative = d / safe_r if p == 2 else d.sign() * (d.abs() / safe_r) ** (p - 1)
    return where(r == 0, 0.0, derivative)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched): out[..., i, j]
    = ||x1[..., i, :] - x2[..., j, :]||_p."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    d = np.abs(x1._data[..., :, None, :] - x2._data[..., None, :, :])  # (..., P, R, M)
    if p == 0:
        values = (d != 0).sum(-1)
    elif math.isinf(p):
        values = d.max(-1, initial=0)
    else:
        values = (d ** p).sum(-1) ** (1.0 / p)
    result = _wrap(np.asarray(values, dtype=np.result_type(x1._data, x2._data)))
    if compute_requires_grad(x1, x2):
        node = CdistBackward0(x1, x2)
        node.p, node.x1_, node.x2_ = p, SavedTensor(x1), SavedTensor(x2)
        node.result_ = SavedTensor(result, is_output=True)
        set_history(result, node)
    return result


# --- log-determinants -----------------------------------------------------------------------------------
def logdet(input: Tensor) -> Tensor:
    """log(det(input)): NaN for a negative determinant, -inf for a singular matrix. As PyTorch:
    ``slogdet``, then NaN where the sign is negative."""
    from .indexing import where
    from .linalg_decompositions import slogdet

    sign, logabsdet = slogdet(input)
    return where(sign == -1, math.nan, logabsdet)


# --- integrals by the trapezoidal rule ---------------------------------------------------------------
class MulBackward1(Node):
    """out = self * other for a number ``other`` (ATen's ``mul.Scalar``, which C++ code such as
    trapezoid calls; Python's ``x * 2`` records MulBackward0): d/dself = grad * other."""

    other: Any

    def backward(self, grad: Tensor) -> tuple:
        return (grad * self.other,)


def _mul_scalar(input: Tensor, other: Any) -> Tensor:
    """``input * other`` recorded as PyTorch's C++ code records it (MulBackward1, saving the number)."""
    out = _wrap(np.multiply(input._data, other).astype(input._data.dtype, copy=False))
    if compute_requires_grad(input):
        node = MulBackward1(input)
        node.other = other
        set_history(out, node)
    return out


def _trapezoid_spacing(y: Tensor, x: Tensor, axis: int) -> Tensor:
    """x[i+1] - x[i] along ``axis``, shaped to broadcast with y's pairs (x 1-D, or of y's shape)."""
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[axis] = x.shape[0] - 1
        return (x[1:] - x[:-1]).reshape(*shape)
    length = x.shape[axis]
    return x.narrow(axis, 1, length - 1) - x.narrow(axis, 0, length - 1)


def _pairs(y: Tensor, axis: int) -> Tensor:
    """y[i+1] + y[i] along ``axis``."""
    length = y.shape[axis]
    return y.narrow(axis, 1, length - 1) + y.narrow(axis, 0, length - 1)


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: sum of (y[i] + y[i+1]) / 2 * (x[i+1] - x[i]). With a
    constant spacing ``dx`` (1 by default) PyTorch's form is (sum(y) - (y[0] + y[-1]) / 2) * dx."""
    axis = dim % max(y.dim(), 1)
    length = y.shape[axis]
    if length == 0:
        return y.sum(axis)
    if isinstance(x, Tensor):
        return _div_scalar((_trapezoid_spacing(y, x, axis) * _pairs(y, axis)).sum(axis), 2.0)
    spacing = x if x is not None else (1.0 if dx is None else dx)
    before = (slice(None),) * axis  # y[..., 0] and y[..., -1] along axis: PyTorch's select
    ends = y[before + (0,)] + y[before + (-1,)]
    return _mul_scalar(y.sum(axis) - _mul_scalar(ends, 0.5), spacing)


trapz = trapezoid


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one element fewer than ``y`` along it)."""
    axis = dim % max(y.dim(), 1)
    length = y.shape[axis]
    if length == 0:
        return y.clone()
    if isinstance(x, Tensor):
        return _div_scalar((_trapezoid_spacing(y, x, axis) * _pairs(y, axis)).cumsum(axis), 2.0)
    spacing = x if x is not None else (1.0 if dx is None else dx)
    return _mul_scalar(_pairs(y, axis), spacing / 2.0).cumsum(axis)
