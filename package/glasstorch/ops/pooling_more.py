"""More pooling, found missing by running the examples in PyTorch's own docstrings (issue 14):
adaptive_avg_pool3d, adaptive_max_pool3d, lp_pool1d/2d/3d, max_unpool1d/2d/3d (``avg_pool3d``
lives in pooling.py beside ``avg_pool2d``, adaptive max pooling in adaptive_pooling.py).

Mirrors ``aten/src/ATen/native/AdaptiveAveragePooling3d.cpp``, ``MaxUnpooling.cpp`` and
``torch/nn/functional.py`` (``lp_pool*d`` and ``max_unpool1d``, composed there too):

* adaptive average pooling is separable: the mean over a box is the mean along each dim in turn,
  one matrix product per dim with a matrix of window weights; its backward the transposed
  products (``AdaptiveAvgPool3DBackward0``);
* ``max_unpool``: the values written to the flat positions the indices name; the backward reads
  the gradient back there (``MaxUnpool2DBackward0``; 1-D runs as 2-D of width 1, as PyTorch's);
* ``lp_pool``: average pooling of x ** p, times the window size, to the power 1/p (PyTorch's
  formula, so the same ``PowBackward0``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .adaptive_pooling import adaptive_max_pool3d as _adaptive_max_pool3d
from .pooling import avg_pool3d  # noqa: F401 - F.avg_pool3d imports it from here


def _adaptive_bounds(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's windows: [floor(i * in / out), ceil((i + 1) * in / out))."""
    i = np.arange(out_size)
    return (i * in_size) // out_size, -((-(i + 1) * in_size) // out_size)


def _output_size(input: Tensor, output_size: Any, dims: int) -> tuple:
    sizes = (output_size,) * dims if isinstance(output_size, int) or output_size is None else tuple(output_size)
    return tuple(input.shape[input.dim() - dims + i] if s is None else s for i, s in enumerate(sizes))


def _check_adaptive(input: Tensor, dims: int, name: str) -> None:
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {list(input.shape)}")


class AdaptiveAvgPool3DBackward0(Node):
    """out = the mean of each adaptive box: separable, so ``M_d self`` along each spatial dim, with
    M_d (out_d, in_d) holding 1/length over each window. grad_self = ``grad @ M_d`` along each dim
    (Tensor ops, so create_graph works)."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        first = grad.dim() - 3
        for offset, matrix in enumerate(self._matrices):
            dim = first + offset
            grad = grad.movedim(dim, -1).matmul(_wrap(matrix.astype(grad._data.dtype))).movedim(-1, dim)
        return (grad,)


def _mean_matrix(in_size: int, out_size: int) -> np.ndarray:
    """(out, in): row i averages adaptive window i."""
    start, end = _adaptive_bounds(in_size, out_size)
    positions = np.arange(in_size)
    inside = (positions >= start[:, None]) & (positions < end[:, None])
    return inside / (end - start)[:, None]


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed (D, H, W) output, whatever the input size."""
    _check_adaptive(input, 3, "adaptive_avg_pool3d")
    sizes = _output_size(input, output_size, 3)
    if sizes == (1, 1, 1):  # PyTorch computes a global average as the mean (MeanBackward1)
        return input.mean((-1, -2, -3), keepdim=True)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_avg_pool3d_cpu\" not implemented for '{scalar_type_name(input.dtype)}'")
    first = input.dim() - 3
    matrices = [_mean_matrix(input.shape[first + i], size) for i, size in enumerate(sizes)]
    data = input._data
    for offset, matrix in enumerate(matrices):
        dim = first + offset
        data = np.moveaxis(np.moveaxis(data, dim, -1) @ matrix.T.astype(data.dtype), -1, dim)
    out = _wrap(np.ascontiguousarray(data))
    if compute_requires_grad(input):
        node = AdaptiveAvgPool3DBackward0(input)
        node.self_, node._matrices = SavedTensor(input), matrices
        set_history(out, node)
    return out


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    """Max pooling to a fixed (D, H, W) output (``None``: keep that side), and where each maximum
    was: a flat position in its (D, H, W) volume."""
    _check_adaptive(input, 3, "adaptive_max_pool3d")
    return _adaptive_max_pool3d(input, _output_size(input, output_size, 3))


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to a fixed (D, H, W) output, whatever the input size (``None``: keep that side)."""
    out, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool, dims: int) -> Tensor:
    from ..nn import functional as F

    kernel = (kernel_size,) * dims if isinstance(kernel_size, int) else tuple(kernel_size)
    if dims == 1:
        out = F.avg_pool1d(input.pow(norm_type), kernel[0], stride, 0, ceil_mode)
    elif dims == 2:
        out = F.avg_pool2d(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    # PyTorch's formula: sign(out) * relu(|out|), times the window size, to the power 1/p
    return (out.sign() * out.abs().relu()).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p): max pooling at p = inf, sum pooling at p = 1."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """(sum over each kH x kW window of x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """(sum over each kD x kH x kW window of x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


class _MaxUnpoolBackward(Node):
    """out = zeros with each input value at its index: grad_self = grad read back at the indices
    (a gather, recorded, so create_graph works)."""

    indices_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        indices = self._saved_indices
        lead = tuple(indices.shape[:-self.dims])
        flat = grad.reshape(*lead, -1).gather(-1, indices.reshape(*lead, -1))
        return (flat.reshape(indices.shape),)


class MaxUnpool2DBackward0(_MaxUnpoolBackward):
    dims = 2


class MaxUnpool3DBackward0(_MaxUnpoolBackward):
    dims = 3


def _unpool_output_size(input: Tensor, kernel_size: Any, stride: Any, padding: Any, output_size: Any,
                        dims: int) -> tuple:
    """PyTorch's ``_unpool_output_size``: (in - 1) stride - 2 padding + kernel, or ``output_size``
    if it is one of the sizes max pooling could have come from."""
    def _tuple(value: Any) -> tuple:
        return (value,) * dims if isinstance(value, int) else tuple(value)

    kernel = _tuple(kernel_size)
    strides = kernel if stride is None else _tuple(stride)
    pads = _tuple(padding)
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(input.shape[-dims:], strides, pads, kernel))
    if output_size is None:
        return default
    sizes = tuple(output_size)[-dims:]
    for size, d, s in zip(sizes, default, strides):
        if not d - s < size < d + s:
            raise ValueError(f"invalid output_size \"{list(output_size)}\" (dim 0 must be between "
                             f"{d - s} and {d + s})")
    return sizes


def _max_unpool(input: Tensor, indices: Tensor, out_spatial: tuple) -> Tensor:
    """``max_unpool2d`` / ``max_unpool3d`` proper: each value at its flat index in its plane."""
    dims = len(out_spatial)
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    lead = tuple(input.shape[:-dims])
    flat_index = indices._data.reshape(lead + (-1,))
    size = math.prod(out_spatial)
    if flat_index.size and (flat_index.max() >= size or flat_index.min() < 0):
        bad = int(flat_index.max()) if flat_index.max() >= size else int(flat_index.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(n) for n in out_spatial)}")
    values = np.zeros(lead + (size,), dtype=input._data.dtype)
    np.put_along_axis(values, flat_index, input._data.reshape(lead + (-1,)), -1)
    out = _wrap(values.reshape(lead + tuple(out_spatial)))
    if compute_requires_grad(input):
        node = (MaxUnpool2DBackward0 if dims == 2 else MaxUnpool3DBackward0)(input)
        node.indices_ = SavedTensor(indices)
        set_history(out, node)
    return out


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of ``max_pool1d``: each max back at its index, zeros elsewhere. PyTorch runs it
    as a 2-D unpooling of width 1 (so the graph ends in ``SqueezeBackward1``)."""
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size, 1)
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + (1,)).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of ``max_pool2d``: each max back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, _unpool_output_size(input, kernel_size, stride, padding, output_size, 2))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of ``max_pool3d``: each max back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, _unpool_output_size(input, kernel_size, stride, padding, output_size, 3))
