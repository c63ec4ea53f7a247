"""``im2col`` and ``col2im``: the sliding blocks of an image as columns, and back (what ``F.unfold``,
``F.fold``, ``nn.Unfold`` and ``nn.Fold`` call).

Mirrors aten/src/ATen/native/Im2Col.cpp and Col2Im.cpp (their shape checks in im2col_shape_check.h).

``im2col`` copies every kh x kw block the kernel visits (with dilation, padding and stride) into one
column: channel c's offset (i, j) is row c*kh*kw + i*kw + j, block (y, x) is column y*ow + x. A
convolution is then one matrix product with these columns. ``col2im`` is its transpose: each
column's values are added back onto the positions they came from, so where blocks overlap the
values sum. Each is the other's backward (``Im2ColBackward0`` runs col2im on the gradient,
``Col2ImBackward0`` im2col), and both are linear, so the backward is differentiable again.
Both loop over the kernel's few offsets, with one strided slice of the whole batch each.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node
from ._util import compute_requires_grad, set_history


def _pair(value: Any) -> tuple:
    return (int(value), int(value)) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


def _blocks(size: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple:
    """How many positions the kernel takes along each spatial dim."""
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))


def _window(offset: int, dilation: int, stride: int, count: int) -> slice:
    """The positions kernel offset ``offset`` reads, one per block, in the padded image."""
    start = offset * dilation
    return slice(start, start + stride * (count - 1) + 1, stride)


class Im2ColBackward0(Node):
    """out = im2col(self): the gradient goes back through col2im (overlapping blocks add up)."""

    kernel_size: tuple
    dilation: tuple
    padding: tuple
    stride: tuple
    self_sym_argsize_minus_2: int
    self_sym_argsize_minus_1: int

    def backward(self, grad: Tensor) -> tuple:
        size = (self.self_sym_argsize_minus_2, self.self_sym_argsize_minus_1)
        return (col2im(grad, size, self.kernel_size, self.dilation, self.padding, self.stride),)


class Col2ImBackward0(Node):
    """out = col2im(self): each column's gradient is read back by im2col."""

    kernel_size: tuple
    dilation: tuple
    padding: tuple
    stride: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (im2col(grad, self.kernel_size, self.dilation, self.padding, self.stride),)


def _check_dtype(input: Tensor, kernel_name: str) -> None:
    """PyTorch's kernels take floating (and complex) numbers only."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{scalar_type_name(input.dtype)}'")


def _check_geometry(kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> None:
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
                           f"{padding[1]}")


def im2col(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """(N, C, H, W) -> (N, C * kh * kw, L): each block the kernel visits as a column (L blocks).
    An unbatched (C, H, W) input gives (C * kh * kw, L)."""
    kernel, dilation, padding, stride = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    _check_geometry(kernel, dilation, padding, stride)
    shape = input._data.shape
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        if len(shape) < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, "
                             f"{len(shape) - 1}], but got {len(shape)})")
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    rows, cols = _blocks(shape[-2:], kernel, dilation, padding, stride)
    if input.dtype.name != "bool":  # (PyTorch's unfold copies bools, as a copy needs no arithmetic)
        _check_dtype(input, "im2col_out_cpu")
    if rows < 1 or cols < 1:
        raise RuntimeError(f"Given input with spatial size ({shape[-2]}, {shape[-1]}), kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding "
                           f"blocks as ({rows}, {cols}), but its components must be at least one.")
    x = input._data if len(shape) == 4 else input._data[None]
    padded = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    columns = np.empty(x.shape[:2] + kernel + (rows, cols), dtype=x.dtype)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            columns[:, :, i, j] = padded[:, :, _window(i, dilation[0], stride[0], rows),
                                         _window(j, dilation[1], stride[1], cols)]
    columns = columns.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], rows * cols)
    out = _wrap(columns if len(shape) == 4 else columns[0])
    if compute_requires_grad(input):
        node = Im2ColBackward0(input)
        node.kernel_size, node.dilation, node.padding, node.stride = kernel, dilation, padding, stride
        node.self_sym_argsize_minus_2, node.self_sym_argsize_minus_1 = shape[-2], shape[-1]
        set_history(out, node)
    return out


def col2im(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """(N, C * kh * kw, L) -> (N, C, H, W): each column added back onto the block it describes
    (overlaps sum). An unbatched (C * kh * kw, L) input gives (C, H, W)."""
    size, kernel, dilation, padding, stride = (_pair(v) for v in (output_size, kernel_size, dilation, padding,
                                                                   stride))
    _check_geometry(kernel, dilation, padding, stride)
    shape = input._data.shape
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    per_block = kernel[0] * kernel[1]
    if shape[-2] % per_block != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={shape[-2]} and kernel_size={kernel}.")
    rows, cols = _blocks(size, kernel, dilation, padding, stride)
    if rows * cols != shape[-1]:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {rows} * {cols} = {rows * cols}, but got "
                           f"input.size(2)={shape[-1]}.")
    _check_dtype(input, "col2im_out_cpu")
    columns = input._data if len(shape) == 3 else input._data[None]
    batch, channels = columns.shape[0], columns.shape[1] // per_block
    columns = columns.reshape(batch, channels, kernel[0], kernel[1], rows, cols)
    padded = np.zeros((batch, channels, size[0] + 2 * padding[0], size[1] + 2 * padding[1]), dtype=columns.dtype)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            padded[:, :, _window(i, dilation[0], stride[0], rows),
                   _window(j, dilation[1], stride[1], cols)] += columns[:, :, i, j]
    image = padded[:, :, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]]
    out = _wrap(np.ascontiguousarray(image if len(shape) == 3 else image[0]))
    if compute_requires_grad(input):
        node = Col2ImBackward0(input)
        node.kernel_size, node.dilation, node.padding, node.stride = kernel, dilation, padding, stride
        set_history(out, node)
    return out
