"""The functional twins of the pooling layers and of ``Dropout2d``: ``max_pool1d/2d/3d`` (and their
``_with_indices`` forms), ``avg_pool2d``, ``adaptive_avg_pool2d``, ``dropout2d``.

Mirrors the pooling part of torch/nn/functional.py (and ``feature_dropout`` in
aten/src/ATen/native/Dropout.cpp). The computing happens in ``glasstorch.ops.pooling``; here are
PyTorch's Python-level signatures and argument handling: ``stride=None`` meaning "as the
kernel", ``return_indices`` choosing which op runs, ``None`` entries of an adaptive
``output_size`` meaning "keep the input's size".

Simplified: PyTorch's ``max_pool*d`` is a ``boolean_dispatch`` between two functions; here one
function with the same signature. Without ``return_indices`` (and without grad) PyTorch runs
kernels that skip the indices; glasstorch always computes them, with the same values and errors.
"""
from __future__ import annotations

import warnings
from typing import Any

from .._creation import empty, zeros
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import pooling as _pool
from ..ops.pooling import adaptive_avg_pool2d as _adaptive_avg_pool2d
from ..ops.pooling import avg_pool2d  # noqa: F401 - PyTorch's F.avg_pool2d is the op itself

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "dropout2d"]


# --- max pooling --------------------------------------------------------------------------------
def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """1-D max pooling over a (C, L) or (N, C, L) input; returns (values, indices)."""
    return _pool.max_pool1d_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation,
                                         ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """2-D max pooling over a (C, H, W) or (N, C, H, W) input; returns (values, indices)."""
    return _pool.max_pool2d_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation,
                                         ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """3-D max pooling over a (C, T, H, W) or (N, C, T, H, W) input; returns (values, indices)."""
    return _pool.max_pool3d_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation,
                                         ceil_mode)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum of each window of ``kernel_size`` values, ``dilation`` apart, every ``stride``
    steps (default: ``kernel_size``), over an input padded with -inf by ``padding``."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_max_pool1d(input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode)
    return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """2-D max pooling; with ``return_indices=True`` also where each maximum was."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_types("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """3-D max pooling; with ``return_indices=True`` also where each maximum was."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_types("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _check_types(function: str, dims: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
                 dilation: Any, ceil_mode: Any) -> tuple:
    """The argument parser's TypeErrors, named after the function PyTorch calls without indices."""
    _pool._check_tensor(input, function)
    parsed = tuple(_pool._int_tuple(value, name, function, dims, position) for value, name, position in (
        (kernel_size, "kernel_size", 2), (() if stride is None else stride, "stride", 3), (padding, "padding", 4),
        (dilation, "dilation", 5)))
    _pool._check_bool(ceil_mode, "ceil_mode", function, 6)
    return parsed


def _check_max_pool1d(input: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                      ceil_mode: Any) -> None:
    """PyTorch's ``max_pool1d`` checks (the path without indices has messages of its own)."""
    kernel, stride, padding, dilation = _check_types("max_pool1d", 1, input, kernel_size, stride, padding, dilation,
                                                     ceil_mode)
    shape = tuple(input.shape)
    if not ((len(shape) == 2 and shape[0] != 0 and shape[1] != 0)
            or (len(shape) == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{_pool._shape_list(shape)}")
    sizes = ((kernel, "kernel_size must be an int, list of ints or tuple of ints"),
             (stride, "stride must be None, an int, list of ints, or tuple of ints"),
             (padding, "padding must be an int, list of ints, or tuple of ints"),
             (dilation, "dilation must be an int, list of ints or tuple of ints"))
    for i, (value, message) in enumerate(sizes):
        if len(value) != 1 and not (i == 1 and len(value) == 0):  # an empty stride means "as the kernel"
            raise RuntimeError(f"max_pool1d() {message} of size 1 but got size {len(value)}")
    (k,), (p,), (d,) = kernel, padding, dilation
    s = stride[0] if stride else k
    for ok, message in ((k > 0, f"kernel_size must be greater than zero, but got {k}"),
                        (s > 0, f"stride must be greater than zero, but got {s}"),
                        (p >= 0, f"padding must be non-negative, but got {p}"),
                        (p <= _pool._c_div(k, 2), f"padding should be at most half of kernel size, but got "
                                                  f"padding={p} and kernel_size={k}"),
                        (d > 0, f"dilation must be greater than zero, but got {d}")):
        if not ok:
            raise RuntimeError(f"max_pool1d() {message}")
    out = _pool.pooling_output_shape(shape[-1], k, p, s, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{_pool._scalar_type(input)}'")


# --- adaptive average pooling ---------------------------------------------------------------------
def _list_with_default(out_size: Any, defaults: list) -> Any:
    """An ``output_size`` whose ``None`` entries take the input's size there."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to ``output_size`` (an int, or a pair whose ``None`` entries keep the
    input's size): the windows are chosen to fit."""
    _pool._check_tensor(input, "adaptive_avg_pool2d")
    return _adaptive_avg_pool2d(input, _list_with_default(output_size, list(input.size())))


# --- dropout2d ----------------------------------------------------------------------------------
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels: each (sample, channel) map of an (N, C, H, W) input is kept with
    probability 1 - p (then scaled by 1/(1-p)) or zeroed entirely."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will result in an error in "
            "a future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            "that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """ATen's ``feature_dropout``: one draw per (sample, channel), broadcast over the other dims.
    The multiplication by that noise is what records the graph (``MulBackward0``)."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = zeros((), dtype=input.dtype)
    else:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        if not input.dtype.is_floating_point:  # PyTorch divides the noise by 1 - p in place
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_pool._scalar_type(input)}")
        shape = (input.shape[0], input.shape[1]) + (1,) * (input.dim() - 2)
        with no_grad():  # PyTorch: noise.bernoulli_(1 - p).div_(1 - p)
            noise = (empty(*shape).uniform_(0.0, 1.0) < 1 - p).to(input.dtype) / (1 - p)
    return input.mul_(noise) if inplace else input * noise
