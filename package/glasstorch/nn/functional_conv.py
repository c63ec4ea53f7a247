"""``conv1d``, ``conv2d``, ``conv3d``: the functional twins of the convolution layers.

Mirrors ``torch.nn.functional.conv1d/2d/3d``, which are C++ functions (aten/src/ATen/native/
Convolution.cpp: ``conv2d``, ``conv2d_padding``, ``_convolution_mode``, ``batchify``). Each one
normalises its arguments and calls ``convolution`` (glasstorch/ops/conv.py):

* an unbatched input, (C, *size), is given a batch dim of 1 and the output loses it again (so the
  graph shows ``SqueezeBackward1`` on top of ``ConvolutionBackward0``, as in PyTorch);
* ``stride``, ``padding``, ``dilation``: an int (the same for every spatial dim) or a sequence;
* ``padding='valid'`` is no padding; ``padding='same'`` pads so that the output has the input's
  size (stride 1 only). When the total padding ``dilation * (kernel - 1)`` of a dim is odd, the
  extra zero goes after, by an explicit zero padding (``ConstantPadNdBackward0``) before a
  symmetric convolution, exactly as PyTorch does.

Simplified: PyTorch's argument parser reports a wrong argument type with the list of accepted
signatures; glasstorch names the argument and the type it got.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..ops.conv import _SCALAR_NAMES, convolution, pad_for_convolution

__all__ = ["conv1d", "conv2d", "conv3d"]


def _int_list(value: Any, name: str, function: str, dims: int) -> list:
    """An int becomes ``dims`` copies (PyTorch's parser does this for ``int[2]`` arguments); a
    sequence is kept as it is, for ``convolution`` to check against the weight's dims."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * dims
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in value):
        return [int(v) for v in value]
    raise TypeError(f"{function}() received an invalid combination of arguments - got {name}="
                    f"{type(value).__name__}, but expected an int or a tuple of ints")


def _batchify(input: Any, dims: int, function: str) -> tuple[Tensor, bool]:
    """(input with a batch dim, whether it had one). PyTorch's ``batchify``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}() received an invalid combination of arguments - got input="
                        f"{type(input).__name__}, but expected a Tensor")
    unbatched, batched = dims + 1, dims + 2
    if input.dim() not in (unbatched, batched):
        raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to {function}, but got "
                           f"input of size: [{', '.join(str(n) for n in input.shape)}]")
    is_batched = input.dim() == batched
    return (input if is_batched else input.unsqueeze(0)), is_batched


def _same_padding(input: Tensor, weight: Tensor, stride: list, dilation: list) -> tuple[Tensor, list]:
    """PyTorch's ``_convolution_same``: (the input, zero-padded after where the total padding of a
    dim is odd, and the symmetric padding left for the convolution)."""
    dims = weight.dim() - 2
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = dilation * dims if len(dilation) == 1 else dilation
    before, extra = [], []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        before.append(total // 2)
        extra.append(total - 2 * (total // 2))  # 1 when the total is odd: one more zero after
    if any(extra):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                      "copy of the input be created", stacklevel=4)
        input = pad_for_convolution(input, [(0, e) for e in extra], "constant")
    return input, before


def _conv(function: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
          padding: Any, dilation: Any, groups: int) -> Tensor:
    if bias is not None and input.dtype is not bias.dtype:
        raise RuntimeError(f"Input type ({_SCALAR_NAMES[input.dtype.name]}) and bias type "
                           f"({_SCALAR_NAMES[bias.dtype.name]}) should be the same")
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool):
        raise TypeError(f"{function}() received an invalid combination of arguments - got groups="
                        f"{type(groups).__name__}, but expected an int")
    stride = _int_list(stride, "stride", function, dims)
    dilation = _int_list(dilation, "dilation", function, dims)
    batch, is_batched = _batchify(input, dims, function)
    if isinstance(padding, str):
        if padding == "same":
            if weight.dim() < 3:
                raise RuntimeError("weight should have at least three dimensions")
            batch, padding = _same_padding(batch, weight, stride, dilation)
        elif padding == "valid":
            padding = [0]  # as PyTorch passes it: grad_fn._saved_padding is (0,)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _int_list(padding, "padding", function, dims)
    out = convolution(batch, weight, bias, stride, padding, dilation, groups)
    return out if is_batched else out.squeeze(0)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution of an input (N, C_in, L) or (C_in, L) with a weight (C_out, C_in / groups, k)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution of an input (N, C_in, H, W) or (C_in, H, W) with a weight
    (C_out, C_in / groups, kH, kW)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution of an input (N, C_in, D, H, W) or (C_in, D, H, W) with a weight
    (C_out, C_in / groups, kD, kH, kW)."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)
