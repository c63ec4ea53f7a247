"""More pooling, found missing by running the examples in PyTorch's own docstrings (issue 14):
avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d, lp_pool1d/2d/3d, max_unpool1d/2d/3d.

Mirrors ``aten/src/ATen/native/AveragePool3d.cpp``, ``AdaptiveAveragePooling3d.cpp``,
``AdaptiveMaxPooling3d.cpp``, ``MaxUnpooling.cpp`` and ``torch/nn/functional.py`` (``lp_pool*d``,
composed there too). Composed from ops with backward Nodes:

* ``avg_pool3d``: zero padding, then ``unfold`` along each spatial dim and a mean over the window;
* adaptive average pooling is separable: the mean over a box is the mean along each dim in turn,
  one matrix product per dim with a matrix of window weights;
* adaptive max pooling: the max along each dim in turn, one window at a time (the windows of
  adaptive pooling have different lengths);
* ``max_unpool``: the values scattered to the flat positions the indices name.

Simplified: ``avg_pool3d`` has no ``ceil_mode`` and ``adaptive_max_pool3d`` no ``return_indices``
(both NotImplementedError); the ``grad_fn`` is the last op of each composition.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .shape import stack


def _triple(value: Any, name: str) -> tuple:
    values = (value,) * 3 if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * 3
    if len(values) != 3:
        raise RuntimeError(f"avg_pool3d: {name} must be a single int, or a tuple of three ints")
    return values


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean over each kD x kH x kW window of a (N, C, D, H, W) or (C, D, H, W) input."""
    if input.dim() not in (4, 5):
        raise RuntimeError(f"non-empty 4D or 5D (batch mode) tensor expected for input")
    if ceil_mode:
        raise NotImplementedError("avg_pool3d: ceil_mode=True is not implemented in glasstorch")
    kernel = _triple(kernel_size, "kernel_size")
    strides = kernel if stride is None or stride == () or stride == [] else _triple(stride, "stride")
    pads = _triple(padding, "padding")
    for k, p in zip(kernel, pads):
        if p > k // 2:
            raise RuntimeError("pad should be at most half of effective kernel size, but got pad="
                               f"{p}, kernel_size={k} and dilation=1")
    from ..nn.functional import pad as _pad

    x = _pad(input, (pads[2], pads[2], pads[1], pads[1], pads[0], pads[0])) if any(pads) else input
    first = x.dim() - 3
    for offset, (k, s) in enumerate(zip(kernel, strides)):
        x = x.unfold(first + offset, k, s)
    sums = x.sum((-3, -2, -1))
    if divisor_override:
        return sums / divisor_override
    if count_include_pad or not any(pads):
        return sums / math.prod(kernel)
    # the number of real (not padded) elements in each window
    ones = np.pad(np.ones(input.shape[-3:]), [(p, p) for p in pads])
    counts = _wrap(ones).unfold(0, kernel[0], strides[0]).unfold(1, kernel[1], strides[1]).unfold(
        2, kernel[2], strides[2]).sum((-3, -2, -1))
    return sums / counts.to(sums.dtype)


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


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed (D, H, W) output, whatever the input size."""
    _check_adaptive(input, 3, "adaptive_avg_pool3d")
    out = input
    for offset, size in enumerate(_output_size(input, output_size, 3)):
        dim = input.dim() - 3 + offset
        in_size = input.shape[dim]
        start, end = _adaptive_bounds(in_size, size)
        weights = np.zeros((size, in_size), dtype=input._data.dtype)
        for i, (a, b) in enumerate(zip(start, end)):
            weights[i, a:b] = 1.0 / (b - a)
        out = out.movedim(dim, -1).matmul(_wrap(weights.T)).movedim(-1, dim)
    return out


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to a fixed (D, H, W) output, whatever the input size."""
    _check_adaptive(input, 3, "adaptive_max_pool3d")
    if return_indices:
        raise NotImplementedError("adaptive_max_pool3d: return_indices=True is not implemented in glasstorch")
    out = input
    for offset, size in enumerate(_output_size(input, output_size, 3)):
        dim = input.dim() - 3 + offset
        start, end = _adaptive_bounds(input.shape[dim], size)
        out = stack([out.narrow(dim, int(a), int(b - a)).amax(dim) for a, b in zip(start, end)], dim)
    return out


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


def _max_unpool(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any, padding: Any, output_size: Any,
                dims: int) -> Tensor:
    def _tuple(value: Any) -> tuple:
        return (value,) * dims if isinstance(value, int) else tuple(value)

    kernel = _tuple(kernel_size)
    strides = kernel if stride is None else _tuple(stride)
    pads = _tuple(padding)
    spatial = tuple(input.shape[-dims:])
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, strides, pads, kernel))
    if output_size is None:
        out_spatial = default
    else:
        out_spatial = tuple(output_size)[-dims:]
        for size, d, s in zip(out_spatial, default, strides):
            if not d - s < size < d + s:
                raise ValueError(f"invalid output_size \"{list(output_size)}\" (dim 0 must be between "
                                 f"{d - s} and {d + s})")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    lead = tuple(input.shape[:-dims])
    flat_in = input.reshape(*lead, -1)
    flat_index = indices.reshape(*lead, -1)
    size = math.prod(out_spatial)
    if flat_index.numel() and (int(flat_index._data.max()) >= size or int(flat_index._data.min()) < 0):
        bad = int(flat_index._data.max()) if int(flat_index._data.max()) >= size else int(flat_index._data.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(n) for n in out_spatial)}")
    zeros = _wrap(np.zeros(lead + (size,), dtype=input._data.dtype))
    return zeros.scatter(-1, flat_index, flat_in).reshape(*lead, *out_spatial)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of ``max_pool1d``: each max back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of ``max_pool2d``: each max back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of ``max_pool3d``: each max back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
