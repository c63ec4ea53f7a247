"""Transposed convolution (``F.conv_transpose1d/2d/3d``, the ``ConvTranspose`` layers).

Mirrors aten/src/ATen/native/Convolution.cpp with ``transposed=True``. A transposed convolution is
the *adjoint* of a convolution with respect to its input: where a convolution with stride 2
reads a window of the input for each output position, the transposed one adds the weights,
scaled by each input value, onto a window of the output. So its forward is exactly the
``grad_input`` product of ops/conv.py (col2im), with the input in the role of the output gradient:

    conv_transpose(x, w) = grad_input of conv(·, w) at grad_out = x

and its backward uses the two other products: grad_x = conv(grad, w) (the convolution itself),
grad_w = grad_weight of conv(grad, ·) at grad_out = x. The weight is (C_in, C_out / groups,
*kernel), as PyTorch stores it. ``output_padding`` adds rows at the end of the output, which a
stride otherwise leaves ambiguous (several output sizes convolve back to the same input size).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .conv import (_Geometry, _check_backend, _convolve, _expand, _input_grad_values, _shape_list, _weight_grad,
                   pad_for_convolution)


class ConvolutionBackward0(Node):
    """out = conv_transpose(input, weight) + bias, recorded under PyTorch's name for every
    convolution (``transposed`` is True). Edges (input, weight, bias)."""

    input_: SavedTensor
    weight_: SavedTensor
    bias_sym_sizes_opt: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    transposed: bool
    output_padding: tuple
    groups: int

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self._saved_input, self._saved_weight
        geometry = self._geometry
        # ``output_padding`` (and a padding of at least the stride) lets the convolution of the
        # gradient find windows past the input's last position: they belong to no input value
        sizes = tuple(input.shape[2:])
        windows = geometry.output_size(tuple(grad.shape[2:]), tuple(weight.shape[2:]))
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_input = _convolve(grad, weight, None, geometry)
            for dim, (n, m) in enumerate(zip(sizes, windows)):
                if m > n:
                    grad_input = grad_input.narrow(2 + dim, 0, n)
        if self.needs_input_grad(1):
            # the extra windows meet zeros: they add nothing to the weight's gradient
            extended = pad_for_convolution(input, [(0, m - n) for n, m in zip(sizes, windows)]) \
                if windows != sizes else input
            grad_weight = _weight_grad(grad, extended, tuple(weight.shape), geometry)
        if self.needs_input_grad(2):
            grad_bias = grad.sum(dim=(0,) + tuple(range(2, grad.dim())))
        return grad_input, grad_weight, grad_bias


def output_size(input_size: tuple, kernel: tuple, geometry: _Geometry, output_padding: tuple) -> tuple:
    """(in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1, per dim."""
    return tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, k, s, p, d, op in
                 zip(input_size, kernel, geometry.stride, geometry.padding, geometry.dilation, output_padding))


def _check(input: Tensor, weight: Tensor, bias: Tensor | None, geometry: _Geometry, output_padding: tuple) -> None:
    """PyTorch's ``check_shape_forward`` for ``transposed=True``."""
    if weight.dim() != input.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{_shape_list(weight.shape)}, but got {input.dim()}-dimensional input of size "
                           f"{_shape_list(input.shape)} instead")
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_shape_list(weight.shape)}, expected input"
                           f"{_shape_list(input.shape)} to have {weight.shape[0]} channels, but got {input.shape[1]} "
                           "channels instead")
    if weight.shape[0] % geometry.groups:
        raise RuntimeError(f"Given groups={geometry.groups}, expected weight to be divisible by {geometry.groups} at "
                           f"dimension 0, but got weight of size [{_shape_list(weight.shape)}] instead")
    channels = weight.shape[1] * geometry.groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != channels):
        raise RuntimeError(f"Given transposed=1, weight of size {_shape_list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {channels} elements, but got bias of size "
                           f"{_shape_list(bias.shape)} instead")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, geometry.stride, geometry.dilation)):
        raise RuntimeError(_output_padding_message(output_padding, geometry))
    if any(n <= 0 for n in output_size(tuple(input.shape[2:]), tuple(weight.shape[2:]), geometry, output_padding)):
        raise RuntimeError("Given input size per channel is too small: the calculated output size is not positive")
    _check_backend(input, weight, geometry)


def _output_padding_message(output_padding: tuple, geometry: _Geometry) -> str:
    """PyTorch's message names each dim (a 1-D convolution runs as a 2-D one of height 1)."""
    values = [output_padding, geometry.stride, geometry.dilation]
    if len(output_padding) == 1:
        values = [(0,) + output_padding, (1,) + geometry.stride, (1,) + geometry.dilation]
    dims = ("depth", "height", "width")[-len(values[0]):]
    parts = [f"{name}_{dim}: {v}" for name, vs in zip(("output_padding", "stride", "dilation"), values)
             for dim, v in zip(dims, vs)]
    return "output padding must be smaller than either stride or dilation, but got " + " ".join(parts)


def conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                   output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """A batched transposed convolution: input (N, C_in, *size), weight (C_in, C_out / groups,
    *kernel), bias (C_out) or None."""
    dims = weight.dim() - 2
    geometry = _Geometry(_expand(stride, "stride", dims), _expand(padding, "padding", dims),
                         _expand(dilation, "dilation", dims), int(groups))
    extra = _expand(output_padding, "output_padding", dims)
    _check(input, weight, bias, geometry, extra)
    size = output_size(tuple(input.shape[2:]), tuple(weight.shape[2:]), geometry, extra)
    out_shape = (input.shape[0], weight.shape[1] * geometry.groups) + size
    values = _input_grad_values(input._data, weight._data, out_shape, geometry)
    if bias is not None:
        values = values + bias._data.reshape((-1,) + (1,) * dims)
    out = _wrap(np.ascontiguousarray(values))
    if compute_requires_grad(input, weight, bias):
        node = ConvolutionBackward0(input, weight, bias)
        node.input_, node.weight_ = SavedTensor(input), SavedTensor(weight)
        node.bias_sym_sizes_opt = (0,) if bias is None else tuple(bias._data.shape)
        node._geometry = geometry
        node.stride, node.padding, node.dilation = geometry.stride, geometry.padding, geometry.dilation
        node.transposed, node.output_padding, node.groups = True, extra, geometry.groups
        set_history(out, node)
    return out
