"""``Conv1d``, ``Conv2d``, ``Conv3d`` and their base ``_ConvNd``. Mirrors torch/nn/modules/conv.py.

A convolution layer holds a ``weight`` of shape (out_channels, in_channels / groups, *kernel_size)
and a ``bias`` of shape (out_channels), and calls its functional twin (``F.conv2d``) in
``forward``. Its hyper-parameters are stored as tuples, one entry per spatial dim, as in PyTorch
(``kernel_size=3`` becomes ``(3, 3)`` in a ``Conv2d``); ``padding`` may instead be the string
``'same'`` or ``'valid'``.

``padding_mode`` other than ``'zeros'`` pads the input first (``'reflect'``, ``'replicate'``,
``'circular'``, PyTorch: ``F.pad``) and then convolves without padding.

``ConvTranspose1d/2d/3d`` hold a weight (in_channels, out_channels / groups, *kernel_size) and
call ``F.conv_transpose*d``; ``forward(input, output_size)`` picks the ``output_padding`` that gives
that size. ``LazyConv1d/2d/3d`` take ``in_channels`` from their first input (see lazy.py).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import repeat
from typing import Any

from ..._creation import empty
from ..._tensor import Tensor
from ...ops.conv import pad_for_convolution
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]


def _ntuple(n: int, name: str) -> Any:
    """PyTorch's torch/nn/modules/utils.py: a sequence becomes a tuple, anything else n copies."""

    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """(1, 2) -> (2, 2, 1, 1) for n=2: the padding of each dim twice, last dim first (F.pad's order)."""
    return tuple(x for x in reversed(t) for _ in range(n))


class _ConvNd(Module):
    """What every convolution layer shares: the checks, the parameters, their initialisation and
    the repr."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    in_channels: int
    out_channels: int
    kernel_size: tuple
    stride: tuple
    padding: str | tuple
    dilation: tuple
    transposed: bool
    output_padding: tuple
    groups: int
    padding_mode: str
    weight: Tensor
    bias: Tensor | None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple,
                 padding: str | tuple, dilation: tuple, transposed: bool, output_padding: tuple, groups: int,
                 bias: bool, padding_mode: str, device: Any = None, dtype: Any = None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_pad(padding, kernel_size, dilation)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    @staticmethod
    def _padding_for_pad(padding: str | tuple, kernel_size: tuple, dilation: tuple) -> list | tuple:
        """The padding in ``F.pad``'s order (last dim first, before and after), used by the
        non-zero padding modes. For ``'same'``: dilation * (kernel - 1) in total, the odd one after."""
        if not isinstance(padding, str):
            return _reverse_repeat_tuple(padding, 2)
        pads = [0, 0] * len(kernel_size)
        if padding == "same":
            for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                total_padding = d * (k - 1)
                left_pad = total_padding // 2
                pads[2 * i] = left_pad
                pads[2 * i + 1] = total_padding - left_pad
        return pads

    def reset_parameters(self) -> None:
        """Weights uniform in ±1/sqrt(fan_in) (kaiming_uniform_ with a = sqrt(5)), fan_in =
        in_channels / groups * prod(kernel_size); the bias uniform in the same range."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):  # a layer pickled before padding_mode existed
            self.padding_mode = "zeros"

    def _pad_input(self, input: Tensor) -> Tensor:
        """Pad with the layer's ``padding_mode`` (not 'zeros'): what PyTorch does with ``F.pad``."""
        pads = self._reversed_padding_repeated_twice
        dims = len(pads) // 2
        pairs = [(pads[2 * (dims - 1 - i)], pads[2 * (dims - 1 - i) + 1]) for i in range(dims)]
        return pad_for_convolution(input, pairs, self.padding_mode)


class Conv1d(_ConvNd):
    """1-D convolution over an input (N, C_in, L) or (C_in, L)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         padding if isinstance(padding, str) else _single(padding), _single(dilation), False,
                         _single(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(self._pad_input(input), weight, bias, self.stride, _single(0), self.dilation, self.groups)
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-D convolution over an input (N, C_in, H, W) or (C_in, H, W)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         padding if isinstance(padding, str) else _pair(padding), _pair(dilation), False,
                         _pair(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(self._pad_input(input), weight, bias, self.stride, _pair(0), self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    """3-D convolution over an input (N, C_in, D, H, W) or (C_in, D, H, W)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride),
                         padding if isinstance(padding, str) else _triple(padding), _triple(dilation), False,
                         _triple(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv3d(self._pad_input(input), weight, bias, self.stride, _triple(0), self.dilation, self.groups)
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)



class _ConvTransposeNd(_ConvNd):
    """What the transposed convolutions share: zero padding only, and ``output_size``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple, padding: tuple,
                 dilation: tuple, transposed: bool, output_padding: tuple, groups: int, bias: bool,
                 padding_mode: str, device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input: Tensor, output_size: Any, stride: tuple, padding: tuple, kernel_size: tuple,
                        num_spatial_dims: int, dilation: tuple | None = None) -> tuple | list:
        """The output_padding that makes the output ``output_size`` (a stride leaves the size
        ambiguous: any size from the smallest to smallest + stride - 1 convolves back to the input's)."""
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes = [(input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d]
                     + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                     for d in range(num_spatial_dims)]
        max_sizes = [low + s - 1 for low, s in zip(min_sizes, stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[2:]})")
        return [size - low for size, low in zip(output_size, min_sizes)]

    def _transposed_forward(self, function: Any, dims: int, input: Tensor, output_size: Any) -> Tensor:
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, dims,
                                              self.dilation)
        return function(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                        self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (the adjoint of Conv1d): upsamples an (N, C_in, L) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), _single(padding),
                         _single(dilation), True, _single(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return self._transposed_forward(F.conv_transpose1d, 1, input, output_size)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (the adjoint of Conv2d): upsamples an (N, C_in, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding),
                         _pair(dilation), True, _pair(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return self._transposed_forward(F.conv_transpose2d, 2, input, output_size)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution (the adjoint of Conv3d)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), _triple(padding),
                         _triple(dilation), True, _triple(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return self._transposed_forward(F.conv_transpose3d, 3, input, output_size)

class _LazyConvXdMixin(LazyModuleMixin):
    """What the Lazy convolutions share: ``in_channels`` read from the first input."""

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        # in_channels 0 and bias False: no tensors that would be replaced at once
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        num_dims_no_batch = self._get_num_spatial_dims() + 1  # + the channels
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D (batched) input "
                               f"to {self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        raise NotImplementedError


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A Conv1d whose ``in_channels`` is taken from its first input."""

    cls_to_become = Conv1d

    def _get_num_spatial_dims(self) -> int:
        return 1


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A Conv2d whose ``in_channels`` is taken from its first input."""

    cls_to_become = Conv2d

    def _get_num_spatial_dims(self) -> int:
        return 2


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A Conv3d whose ``in_channels`` is taken from its first input."""

    cls_to_become = Conv3d

    def _get_num_spatial_dims(self) -> int:
        return 3


class _LazyConvTransposeXdMixin(_LazyConvXdMixin):
    """The Lazy transposed convolutions: the transposed layers' arguments, ``in_channels`` from
    the first input, the weight (in_channels, out_channels / groups, *kernel)."""

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        # (skip _LazyConvXdMixin's __init__, which takes a convolution's arguments)
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                                 padding_mode, **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)


class LazyConvTranspose1d(_LazyConvTransposeXdMixin, ConvTranspose1d):
    """A ConvTranspose1d whose ``in_channels`` is taken from its first input."""

    cls_to_become = ConvTranspose1d

    def _get_num_spatial_dims(self) -> int:
        return 1


class LazyConvTranspose2d(_LazyConvTransposeXdMixin, ConvTranspose2d):
    """A ConvTranspose2d whose ``in_channels`` is taken from its first input."""

    cls_to_become = ConvTranspose2d

    def _get_num_spatial_dims(self) -> int:
        return 2


class LazyConvTranspose3d(_LazyConvTransposeXdMixin, ConvTranspose3d):
    """A ConvTranspose3d whose ``in_channels`` is taken from its first input."""

    cls_to_become = ConvTranspose3d

    def _get_num_spatial_dims(self) -> int:
        return 3
