"""``nn.functional``: the functions behind the layers. Mirrors torch/nn/functional.py, in its order:
convolution, pooling, dropout, activations, linear, embedding, normalisation, losses.

A layer (``nn.Linear``) holds parameters and calls its functional twin (``F.linear``) in
``forward``; the function holds no state, so you can also call it with tensors of your own. Here
are PyTorch's Python-level signatures and argument checks; the computing happens in the ops
(``glasstorch/ops/conv.py``, ``pooling.py``, ``activation.py``, ``elementwise_activation.py``,
``embedding.py``, ``normalization.py``, ``loss.py``, ``margin_losses.py``, ``ctc_loss.py``,
``pairwise.py``, ``affine_grid.py`` ...), each forward beside its backward Node. Where PyTorch
composes a function in Python (``softsign``, ``kl_div``, the weighted losses ...), so does
glasstorch, and the graph shows the same Nodes.

``conv1d/2d/3d`` are C++ functions in PyTorch (aten/src/ATen/native/Convolution.cpp: ``conv2d``,
``conv2d_padding``, ``_convolution_mode``, ``batchify``). Each normalises its arguments and calls
``convolution``: an unbatched input (C, *size) is given a batch dim of 1 and the output loses it
again (so the graph shows ``SqueezeBackward1`` on top of ``ConvolutionBackward0``, as in PyTorch);
``padding='same'`` pads so that the output has the input's size (stride 1 only), the odd zero of
an odd total padding going after, by an explicit zero padding (``ConstantPadNdBackward0``).

``size_average`` and ``reduce`` are PyTorch's deprecated way of choosing a reduction: accepted,
with PyTorch's warning, and turned into ``reduction`` (``_Reduction.legacy_get_string``).

Simplified:

* PyTorch's argument parser reports a wrong argument type with the list of accepted signatures;
  glasstorch names the argument and the type it got.
* PyTorch's ``max_pool*d`` is a ``boolean_dispatch`` between two functions; here one function with
  the same signature. Without ``return_indices`` (and without grad) PyTorch runs kernels that skip
  the indices; glasstorch always computes them, with the same values and errors.
* ``embedding`` supports ``sparse=False`` only (PyTorch can return a sparse gradient).
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import ops
from .. import dtypes
from .._creation import arange, empty, empty_like, from_numpy, ones, ones_like, rand, zeros, zeros_like
from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.grad_mode import no_grad
from ..ops import activation as _activation
from ..ops import affine_grid as _affine_grid
from ..ops import embedding as _embedding
from ..ops import fold as _fold_ops
from ..ops import fractional_pooling as _fractional
from ..ops import loss as _loss
from ..ops import normalization as _normalization
from ..ops import pooling as _pool
from ..ops.conv import _SCALAR_NAMES, convolution, pad_for_convolution
from ..ops.pooling import adaptive_avg_pool2d as _adaptive_avg_pool2d
from ..ops.pooling import avg_pool2d  # noqa: F401 - PyTorch's F.avg_pool2d is the op itself
from ..ops import elementwise_activation as _elementwise
from ..ops import robust_loss as _robust
from ..ops._elementwise import broadcast_error
from ..ops._util import compute_requires_grad, set_history
from ..ops.shape import UnsafeViewBackward0
from ..ops.adaptive_pooling import adaptive_max_pool2d as _adaptive_max_pool2d_op
from ..ops.conv import _constant_pad_values
from ..ops.conv_transpose import conv_transpose as _conv_transpose_op
# found missing by running PyTorch's docstring examples (issue 14): each op in its own file under ops/
from ..ops.normalization_more import local_response_norm, rms_norm  # noqa: F401
from ..ops.pooling_more import (adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,  # noqa: F401
                                avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d, max_unpool3d)
from ..ops import random_activations as _random_activations
from ..ops.random_activations import gumbel_softmax  # noqa: F401
from ..ops.margin_losses import multi_margin_loss, multilabel_margin_loss  # noqa: F401
from ..ops.ctc_loss import ctc_loss  # noqa: F401
from ..ops.pairwise import pairwise_distance, pdist  # noqa: F401
from ..ops.upsampling import (channel_shuffle, interpolate, native_channel_shuffle, pixel_shuffle,  # noqa: F401
                              pixel_unshuffle, upsample, upsample_bilinear, upsample_nearest)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: a random negative slope in [lower, upper] in training, their mean otherwise."""
    if inplace:
        return _random_activations.rrelu_(input, lower, upper, training)
    return _random_activations.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)

__all__ = ["conv1d", "conv2d", "conv3d", "avg_pool2d", "max_pool1d_with_indices", "max_pool1d",
           "max_pool2d_with_indices", "max_pool2d", "max_pool3d_with_indices", "max_pool3d", "adaptive_avg_pool2d",
           "dropout", "dropout2d", "relu", "leaky_relu", "gelu", "softmax", "log_softmax", "tanh", "sigmoid",
           "linear", "embedding", "batch_norm", "layer_norm", "group_norm", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "l1_loss", "mse_loss",
           "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "dropout1d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "elu", "selu", "silu", "mish", "softplus", "hardtanh", "relu6",
           "glu", "logsigmoid", "prelu", "bilinear", "instance_norm", "one_hot", "pad", "normalize",
           "cosine_similarity", "huber_loss", "smooth_l1_loss", "kl_div", "margin_ranking_loss",
           "cosine_embedding_loss", "celu", "hardswish", "hardsigmoid", "threshold", "hardshrink", "softshrink",
           "softsign", "tanhshrink", "softmin", "avg_pool1d", "adaptive_avg_pool1d", "pairwise_distance",
           "soft_margin_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss", "pdist",
           "linear_cross_entropy", "affine_grid", "relu_", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "threshold_"]


# --- reduction and broadcasting helpers (PyTorch: torch/nn/_reduction.py, torch/functional.py) 
def legacy_get_string(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """The reduction that the deprecated ``size_average``/``reduce`` flags stand for
    (PyTorch's ``torch.nn._reduction.legacy_get_string``)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                      stacklevel=3)
    return reduction


def _reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    return legacy_get_string(size_average, reduce) if size_average is not None or reduce is not None else reduction


def _broadcast_shapes(*shapes: tuple) -> tuple:
    """``torch.broadcast_shapes(*shapes)``, with PyTorch's message when they do not broadcast."""
    result: list = []
    for index, given in enumerate(shapes):
        sizes = (given,) if isinstance(given, int) else tuple(given)
        if any(size < 0 for size in sizes):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        result = [1] * (len(sizes) - len(result)) + result
        for i in range(-1, -len(sizes) - 1, -1):
            if sizes[i] == 1 or sizes[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {sizes[i]} at {i}! Mismatching argument at index "
                    f"{index} had {given!r}; but expected shape should be broadcastable to {result}")
            result[i] = sizes[i]
    return tuple(result)


# --- convolution ------------------------------------------------------------------------------
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


# --- max pooling ------------------------------------------------------------------------------
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
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{scalar_type_name(input.dtype)}'")


# --- adaptive average pooling -----------------------------------------------------------------
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


# --- dropout ----------------------------------------------------------------------------------
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """In training, zero each element with probability ``p`` and scale the survivors by 1/(1-p), so
    the expected value is unchanged; in evaluation, the input itself. (PyTorch records the
    multiplication by the mask: ``MulBackward0``.)"""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    with no_grad():
        keep = empty_like(input).uniform_(0.0, 1.0) >= p
        mask = keep.to(input.dtype) * (1.0 / (1.0 - p)) if p < 1.0 else keep.to(input.dtype)
    return input.mul_(mask) if inplace else input * mask


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
                               f"{scalar_type_name(input.dtype)}")
        shape = (input.shape[0], input.shape[1]) + (1,) * (input.dim() - 2)
        with no_grad():  # PyTorch: noise.bernoulli_(1 - p).div_(1 - p)
            noise = (empty(*shape).uniform_(0.0, 1.0) < 1 - p).to(input.dtype) / (1 - p)
    return input.mul_(noise) if inplace else input * noise


# --- activations ------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if input.dtype is dtypes.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return input.relu_() if inplace else ops.relu(input)


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else ``negative_slope * x``."""
    return _activation.leaky_relu_(input, negative_slope) if inplace else _activation.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _activation.leaky_relu_(input, negative_slope)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    return _activation.gelu(input, approximate)


def _check_softmax_input(input: Tensor, dim: int | None, dtype: Any, kernel: str) -> None:
    """PyTorch's kernels refuse integer input unless ``dtype`` converts it first (the kernel's name
    says whether the dim was the last)."""
    if dtype is None and not input.dtype.is_floating_point and dim is not None:
        last = dim in (-1, input.dim() - 1) or input.dim() <= 1
        name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name(input.dtype)}'")


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    _check_softmax_input(input, dim, dtype, "softmax")
    return ops.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    _check_softmax_input(input, dim, dtype, "log_softmax")
    return ops.log_softmax(input, dim, dtype=dtype)


def tanh(input: Tensor) -> Tensor:
    return ops.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    return ops.sigmoid(input)


# --- linear -----------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``, recorded as PyTorch records it: one ``AddmmBackward0`` for a
    2-D input with a bias, a ``matmul`` without one, and leading dims folded into rows (then viewed
    back) for a batch of higher rank."""
    if bias is None:
        if input.dim() <= 2:
            return ops.matmul(input, weight.t())
        out = ops.mm(input.reshape(-1, input.shape[-1]), weight.t())
        return _unsafe_view(out, (*input.shape[:-1], out.shape[-1]))
    if input.dim() == 2:
        return ops.addmm(bias, input, weight.t())
    rows = input.reshape(-1, input.shape[-1]) if input.dim() != 1 else input.unsqueeze(0)
    out = ops.addmm(bias, rows, weight.t())
    return out.view(*input.shape[:-1], out.shape[-1])


def _unsafe_view(input: Tensor, shape: tuple) -> Tensor:
    """ATen's ``_unsafe_view``: a fresh result reshaped without being tracked as a view (what
    ``matmul`` does after folding a batch into the rows of one ``mm``: ``UnsafeViewBackward0``)."""
    out = _wrap(input._data.reshape(shape))
    if compute_requires_grad(input):
        node = UnsafeViewBackward0(input)
        node.self_sym_sizes = input._data.shape
        set_history(out, node)
    return out


# --- embedding --------------------------------------------------------------------------------
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up the rows of ``weight`` named by the integer tensor ``input``: the result has shape
    ``input.shape + (embedding_dim,)``. The row at ``padding_idx`` gets no gradient."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1  # torch.embedding's "none"
    if max_norm is not None:  # the looked-up rows of weight renormalised in place, unrecorded
        with no_grad():
            _embedding.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return _embedding.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum, average or max of bags of embeddings, without the (bags, length, dim) tensor in
    between. ``input`` is (B, N), B bags of N indices, or 1-D with ``offsets`` (where each bag
    starts). ``per_sample_weights`` (mode="sum") weighs each looked-up row."""
    if weight.dtype is dtypes.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:  # as embedding: the looked-up rows renormalised in place, unrecorded
        with no_grad():
            _embedding.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if sparse:
        raise NotImplementedError("glasstorch's embedding_bag supports sparse=False only (it has no sparse tensors)")
    if scale_grad_by_freq:
        raise NotImplementedError("glasstorch's embedding_bag supports scale_grad_by_freq=False only (PyTorch 2.13's "
                                  "CPU kernel does not divide each row's gradient by that row's own frequency, and "
                                  "glasstorch does not copy its numbers)")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        padding_idx += weight.size(0)
    return _embedding.embedding_bag(weight, input, offsets, mode, per_sample_weights, include_last_offset,
                                    padding_idx, scale_grad_by_freq, sparse)


# --- normalisation ----------------------------------------------------------------------------
def _verify_batch_size(size: list) -> None:
    """Statistics of a single value are meaningless: PyTorch refuses them (as batch_norm does)."""
    values = size[0]
    for n in size[2:]:
        values *= n
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _update_running_stats(input: Tensor, dims: list, running_mean: Tensor, running_var: Tensor,
                          momentum: float) -> None:
    """running = (1 - momentum) * running + momentum * batch statistic, with the batch's *unbiased*
    variance. Computed in float64 and rounded once, as PyTorch accumulates batch statistics in
    double (computed in float32, a running variance can end one rounding step away from PyTorch's)."""
    values = input.detach().numpy().astype(np.float64)
    batch_mean = values.mean(axis=tuple(dims))
    batch_var = values.var(axis=tuple(dims), ddof=1)
    with no_grad():
        for running, batch in ((running_mean, batch_mean), (running_var, batch_var)):
            updated = (1 - momentum) * running.numpy().astype(np.float64) + momentum * batch
            running.copy_(from_numpy(updated.astype(running.numpy().dtype)))


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) to mean 0 and variance 1, then scale by ``weight`` and shift
    by ``bias``. In training the batch's statistics are used and the running ones updated
    (``running = (1 - momentum) * running + momentum * batch``, with the unbiased variance); in
    evaluation the running statistics are used."""
    if training:
        size = input.numel() // input.shape[1]
        if size == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in evaluation mode")
    if training and running_mean is not None:  # before the op saves them, as PyTorch's kernel
        _update_running_stats(input, [0, *range(2, input.dim())], running_mean, running_var, momentum)
    return _normalization.batch_norm(input, running_mean, running_var, weight, bias, training, eps)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing dims given by ``normalized_shape`` (a tuple, list or Size)."""
    if isinstance(normalized_shape, int):  # the layer accepts an int, the function does not
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    return _normalization.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each group of ``C / num_groups`` channels of each sample."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _normalization.group_norm(input, num_groups, weight, bias, eps)


# --- losses -----------------------------------------------------------------------------------
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood loss of class indices under log-probabilities."""
    return _loss.nll_loss(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
                  ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """The cross entropy between the softmax of the logits ``input`` and ``target`` (class
    indices, or class probabilities of the input's shape)."""
    return _loss.cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index,
                                label_smoothing)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``: input (N, in) or
    (in,), linear_weight (C, *d, in) for a K-dimensional loss. PyTorch's reference path; its
    ``options`` choose a chunked computation of the same loss (to save memory), which glasstorch
    does not have: they are ignored."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if out_features:
        rows = math.prod(out_features, start=classes)
        linear_weight = linear_weight.reshape(rows, in_features)
        linear_bias = None if linear_bias is None else linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """The binary cross entropy of probabilities ``input`` in [0, 1] against ``target``."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_broadcast_shapes(target.size(), weight.size()))
    return _loss.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """The binary cross entropy of ``sigmoid(input)``, computed stably from the logits."""
    reduction = _reduction(size_average, reduce, reduction)
    if not target.size() == input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _loss.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) absolute error; ``target`` broadcasts to ``input``."""
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=2)
    return _loss.l1_loss(input, target, _reduction(size_average, reduce, reduction), weight)


# --- issue 14: transposed convolution, adaptive max pooling, the dropout family, more activations,
# bilinear, instance norm, one_hot, pad, normalize, cosine_similarity (in torch/nn/functional.py's
# families; the ops they call: ops/conv_transpose.py, adaptive_pooling.py, elementwise_activation.py)
def _conv_transpose(function: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                    padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    batch, is_batched = _batchify(input, dims, function)
    out = _conv_transpose_op(batch, weight, bias, _int_list(stride, "stride", function, dims),
                             _int_list(padding, "padding", function, dims),
                             _int_list(output_padding, "output_padding", function, dims), groups,
                             _int_list(dilation, "dilation", function, dims))
    return out if is_batched else out.squeeze(0)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """1-D transposed convolution of (N, C_in, L) or (C_in, L) with a weight (C_in, C_out / groups, k)."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """2-D transposed convolution of (N, C_in, H, W) or (C_in, H, W) with a weight (C_in, C_out / groups, kH, kW)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """3-D transposed convolution of (N, C_in, D, H, W) or (C_in, D, H, W)."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    """The maximum of each adaptive window of the last two dims, and its flat position in the plane."""
    _pool._check_tensor(input, "adaptive_max_pool2d")
    return _adaptive_max_pool2d_op(input, _list_with_default(output_size, list(input.size())))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to ``output_size`` (an int, or a pair whose ``None`` entries keep the input's size)."""
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    """PyTorch runs it as a 2-D pooling of height 1 (so the graph ends in ``SqueezeBackward1``)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    size = output_size if isinstance(output_size, int) else tuple(output_size)
    if not isinstance(size, int) and len(size) != 1:
        raise RuntimeError("adaptive_max_pool1d: output_size must be 1")
    out, indices = _adaptive_max_pool2d_op(input.unsqueeze(-2), (1, size if isinstance(size, int) else size[0]))
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an (N, C, L) or (C, L) input."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _unbatched_feature_dropout(input, p, training, inplace, is_batched=input.dim() == 3)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    return _unbatched_feature_dropout(input, p, training, inplace, is_batched=input.dim() == 5)


def _unbatched_feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, is_batched: bool) -> Tensor:
    """feature dropout, an unbatched input given a batch dim of 1 for the while."""
    batch = input if is_batched else input.unsqueeze(0)
    result = _feature_dropout(batch, p, training, inplace and is_batched)
    return result if is_batched else result.squeeze(0)


_SELU_ALPHA_DROPOUT = 1.7580993408473766  # -selu's scale * alpha: the value selu saturates at


def _alpha_dropout(input: Tensor, p: float, training: bool, feature: bool) -> Tensor:
    """ATen's ``_dropout_impl`` with alpha: dropped values are set to selu's saturation value,
    then ``a * x + b`` restores a zero mean and unit variance (Klambauer et al.). Recorded as the
    multiplication and addition it is (``AddBackward0``)."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input * zeros((), dtype=input.dtype)
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = (input.shape[0], input.shape[1]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    alpha = _SELU_ALPHA_DROPOUT
    a = 1.0 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    with no_grad():
        keep = (empty(*shape).uniform_(0.0, 1.0) < 1 - p).to(input.dtype)
        b = (keep - 1) * (alpha * a) + alpha * a * p
        noise = keep * a
    return input * noise + b


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps selu's self-normalisation: mean and variance are preserved."""
    result = _alpha_dropout(input, p, training, feature=False)
    return input.copy_(result) if inplace and result is not input else result


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    result = _alpha_dropout(input, p, training, feature=True)
    return input.copy_(result) if inplace and result is not input else result


# ``inplace=True`` runs the op's in-place form (``elu_``): it writes into ``input`` and records
# PyTorch's Node for it (``EluBackward1``, which saves the result).
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, else alpha * (exp(x) - 1)."""
    return _elementwise.elu_(input, alpha) if inplace else _elementwise.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _elementwise.elu_(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha), with the self-normalising constants."""
    return _elementwise.selu_(input) if inplace else _elementwise.selu(input)


def selu_(input: Tensor) -> Tensor:
    return _elementwise.selu_(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return _elementwise.silu_(input) if inplace else _elementwise.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return _elementwise.mish_(input) if inplace else _elementwise.mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, linear above ``threshold``."""
    return _elementwise.softplus(input, beta, threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]."""
    if inplace:
        return _elementwise.hardtanh_(input, min_val, max_val)
    return _elementwise.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6): hardtanh(x, 0, 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The first half of ``dim`` times the sigmoid of the second half."""
    return _elementwise.glu(input, dim)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed stably."""
    return _elementwise.log_sigmoid(input)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """leaky_relu with a learned slope per channel (or one for all)."""
    return _elementwise.prelu(input, weight)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x1ᵀ A x2 + b for each output feature: weight (out, in1, in2). Leading dims are folded
    into rows and viewed back before the bias is added (PyTorch's ``_trilinear`` path, which
    shows ``ViewBackward0``, or ``AddBackward0`` with a bias)."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    for which, x, dim in (("input1", input1, 1), ("input2", input2, 2)):
        if x.shape[-1] != weight.shape[dim]:
            raise RuntimeError(f"bilinear(): {which} size does not match weight size: got {x.shape[-1]} but expected "
                               f"{weight.shape[dim]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    out_features, in1, in2 = weight.shape
    x1, x2 = input1.reshape(-1, in1), input2.reshape(-1, in2)
    # (x1 @ A_o) for every o at once, then the dot product with x2
    left = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_features * in2)).reshape(-1, out_features, in2)
    out = (left * x2.unsqueeze(1)).sum(-1).view(*input1.shape[:-1], out_features)
    return out if bias is None else out + bias


def _verify_spatial_size(size: Any) -> None:
    if int(np.prod(size[2:])) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample on its own. As ATen's ``instance_norm``: the input is
    viewed as one sample of N * C channels and batch-normalised; the running statistics (if any)
    get the average over the batch of the per-sample updates."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    n, c = input.shape[0], input.shape[1]
    shaped = input.reshape(1, n * c, *input.shape[2:])

    def repeat(t: Tensor | None) -> Tensor | None:  # one copy per sample
        return None if t is None else t.repeat(n)

    mean_n, var_n = repeat(running_mean), repeat(running_var)
    out = batch_norm(shaped, mean_n, var_n, repeat(weight), repeat(bias), use_input_stats, momentum, eps)
    if use_input_stats and running_mean is not None:
        with no_grad():
            running_mean.copy_(mean_n.view(n, c).mean(0))
            running_var.copy_(var_n.view(n, c).mean(0))
    return out.view(*input.shape)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """An int64 tensor of shape ``tensor.shape + (num_classes,)`` with a 1 at each class index
    (``num_classes=-1``: the largest class + 1)."""
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if data.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return from_numpy(np.zeros(data.shape + (num_classes,), dtype=np.int64))
    if data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1
    elif data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return from_numpy((data[..., None] == np.arange(num_classes)).astype(np.int64))


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left, right, top, bottom, ...)``, the last
    dim first. ``mode``: 'constant' (with ``value``, default 0; a negative padding crops),
    'reflect', 'replicate' or 'circular'."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    pairs = [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]
    out = pad_for_convolution(input, pairs, mode)
    if mode == "constant" and value:
        inside = _constant_pad_values(np.ones(input.shape, dtype=bool), pairs)
        out._data[~inside] = value  # a fresh array: the padded border takes the value
    return out


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is not None:
        return ops.div(input, denom, out=out)
    return input / denom


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 along ``dim``. As ATen: each is divided by its
    norm first (clamped to ``eps``, the clamp not differentiated), which keeps the result in [-1, 1]."""
    try:
        shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    except ValueError:
        raise broadcast_error(tuple(x1.shape), tuple(x2.shape)) from None
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    x1_norm, x2_norm = x1.norm(2, dim, keepdim=True).clone(), x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        x1_norm.clamp_(min=eps)
        x2_norm.clamp_(min=eps)
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)


# --- issue 14: more losses (the robust ones in ops/robust_loss.py; the others composed as ATen composes them)
def _warn_target_size(input: Tensor, target: Tensor) -> None:
    """PyTorch's warning when target and input differ in size, and its error (from
    ``broadcast_tensors``) when they do not even broadcast."""
    if target.size() != input.size():
        try:
            np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
        except ValueError:
            raise broadcast_error(tuple(input.shape), tuple(target.shape)) from None
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Quadratic for |input - target| < delta, linear beyond: robust to outliers. With ``weight``
    (elementwise), PyTorch weighs the unreduced loss, and 'mean' is the plain mean of that."""
    _warn_target_size(input, target)
    if weight is None:
        return _robust.huber_loss(input, target, reduction, delta)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    input, target = _loss._broadcast_pair(input, target)
    return _loss.weighted_reduction(_robust.huber_loss(input, target, "none", delta), weight, reduction,
                                    mean_by_weight=False)


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) squared error; ``weight`` weighs each element."""
    return _loss.mse_loss(input, target, _reduction(size_average, reduce, reduction), weight)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """huber_loss / beta: quadratic below ``beta``, |input - target| - beta / 2 above (beta 0: l1_loss)."""
    _warn_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta == 0.0:
        return _loss.l1_loss(input, target, reduction)
    return _robust.smooth_l1_loss(input, target, reduction, beta)


def _apply_loss_reduction(loss: Tensor, reduction: str) -> Tensor:
    """ATen's ``apply_loss_reduction``."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence of ``target`` from the distribution whose *log*-probabilities
    are ``input``: sum of target * (log target - input). ``reduction='batchmean'`` is the true KL
    divergence per sample; 'mean' also divides by the number of classes (PyTorch warns)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        output = target.exp() * (target - input)
    else:  # xlogy(target, target): 0 where target is 0
        output = target * target.clamp(min=np.finfo(target._data.dtype).tiny).log() - target * input
    reduced = _apply_loss_reduction(output, "sum" if reduction == "batchmean" else reduction)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin): input1 should rank higher where target is 1."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _apply_loss_reduction(ops.clamp_min(-target * (input1 - input2) + margin, 0), reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    epsilon = 1e-12
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + epsilon
    mag_square2 = (input2 * input2).sum(targ_dim) + epsilon
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = cos.detach() * 0
    output_pos = ops.where(target == 1, 1 - cos, zeros)
    output_neg = ops.where(target == -1, ops.clamp_min(cos - margin, 0), zeros)
    return _apply_loss_reduction(output_pos + output_neg, reduction)


# --- issue 14: more activations, 1-D pooling, distances --------------------------------------------
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, else alpha * (exp(x / alpha) - 1)."""
    return _elementwise.celu_(input, alpha) if inplace else _elementwise.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _elementwise.celu_(input, alpha)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return _elementwise.hardswish_(input) if inplace else _elementwise.hardswish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    return _elementwise.hardsigmoid_(input) if inplace else _elementwise.hardsigmoid(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else ``value``."""
    if inplace:
        return _elementwise.threshold_(input, threshold, value)
    return _elementwise.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _elementwise.threshold_(input, threshold, value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _elementwise.hardshrink(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _elementwise.softshrink(input, lambd)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|) (composed, as PyTorch composes it: ``DivBackward0``)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x) (composed: ``SubBackward0``)."""
    return input - input.tanh()


def softmin(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    """softmax(-x): the smallest entries get the most weight."""
    _check_softmax_input(input, dim, dtype, "softmax")
    return ops.softmax(-input, dim, dtype=dtype)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Average pooling of an (N, C, L) or (C, L) input, run as a 2-D pooling of height 1 (as ATen's
    ``avg_pool1d``, so the graph ends in ``SqueezeBackward1``)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    kernel = _int_list(kernel_size, "kernel_size", "avg_pool1d", 1)
    step = kernel if stride is None or stride == [] or stride == () else _int_list(stride, "stride", "avg_pool1d", 1)
    pad = _int_list(padding, "padding", "avg_pool1d", 1)
    out = avg_pool2d(input.unsqueeze(-2), [1, kernel[0]], [1, step[0]], [0, pad[0]], ceil_mode, count_include_pad)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed length, run as a 2-D pooling of height 1 (``SqueezeBackward1``)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_avg_pool1d)")
    size = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    return _adaptive_avg_pool2d(input.unsqueeze(-2), [1, size]).squeeze(-2)


# --- issue 14: the margin and likelihood losses of torch.nn ----------------------------------------
def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), targets ±1."""
    return _robust.soft_margin_loss(input, target, _legacy_reduction(size_average, reduce, reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: bool | None = None,
                         reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1 (input: a distance)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    zeros = input.detach() * 0
    output_margin = ops.where(target != 1, ops.clamp_min(margin - input, 0), zeros)
    output_self = ops.where(target != -1, input, zeros)
    return _apply_loss_reduction(output_margin + output_self, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    """One binary cross entropy per class (targets 0/1), averaged over the classes."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)  # one loss per sample
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _apply_loss_reduction(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of counts ``target`` under a Poisson of rate ``exp(input)``
    (or ``input`` itself, ``log_input=False``); ``full`` adds Stirling's term for log(target!)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling_term = target * target.log() - target + 0.5 * (2 * np.pi * target).log()
        loss = loss + stirling_term.masked_fill(target <= 1, 0)
    return _apply_loss_reduction(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target`` under N(input, var): 0.5 (log var + (input -
    target)² / var), var clamped to ``eps`` (the clamp not differentiated)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass  # heteroscedastic: one variance for a dim of size 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * np.log(2 * np.pi)
    return _apply_loss_reduction(loss, reduction)


def _check_triplet(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float) -> None:
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")


def _triplet_loss(anchor: Tensor, positive: Tensor, negative: Tensor, distance: Any, margin: float, swap: bool,
                  reduction: str) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) (``swap``: the smaller of
    d(a, n) and d(p, n) as the negative distance)."""
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = ops.minimum(dist_neg, distance(positive, negative))
    return _apply_loss_reduction(ops.clamp_min(margin + dist_pos - dist_neg, 0), reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The triplet loss with the pairwise p-distance."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_triplet(anchor, positive, negative, margin)
    return _triplet_loss(anchor, positive, negative, lambda a, b: pairwise_distance(a, b, p, eps), margin, swap,
                         reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """The triplet loss with any ``distance_function(x1, x2)`` (default: ``pairwise_distance``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_triplet(anchor, positive, negative, margin)
    return _triplet_loss(anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction)


# --- attention --------------------------------------------------------------------------------
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(Q K^T * scale + mask) V over the last two dims, scale = 1/sqrt(E) by default. A bool
    ``attn_mask`` says which places may be attended (False: -inf), a float one is added;
    ``is_causal`` lets place i attend to places <= i only. (PyTorch's reference "math" version, as
    its docstring writes it; PyTorch's CPU kernel computes the same in blocks.)"""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dimensions")
    length, source_length = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    if enable_gqa and query.dim() >= 3 and key.size(-3) != query.size(-3):
        key = key.repeat_interleave(query.size(-3) // key.size(-3), -3)
        value = value.repeat_interleave(query.size(-3) // value.size(-3), -3)
    scores = query @ key.transpose(-2, -1) * scale_factor
    if is_causal:
        allowed = ops.tril(ones(length, source_length, dtype=dtypes.bool))
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype is dtypes.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str, target_type: Any,
                    check_other: bool = True) -> Tensor | None:
    """A bool mask becomes a float one (True, "masked", gives -inf), as PyTorch's ``_canonical_mask``."""
    if mask is None:
        return None
    if mask.dtype is not dtypes.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if mask.dtype is dtypes.bool:
        return zeros_like(mask, dtype=target_type).masked_fill(mask, float("-inf"))
    return mask


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None) -> tuple:
    """Q, K and V from one packed (3E, E) weight: one product when q, k and v are the same tensor
    (self-attention), else one per input with its third of the weight."""
    embed_dim = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, embed_dim)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, embed_dim * 2])
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, embed_dim)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
                                 bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
                                 static_v: Tensor | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple:
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)), PyTorch's steps in order:
    project Q, K, V; split E into ``num_heads`` heads of E / num_heads; attention per head (scores
    scaled by 1/sqrt(head_dim), masks added, softmax, dropout); heads concatenated and projected by
    ``out_proj``. Returns (output, weights), the weights averaged over the heads unless
    ``average_attn_weights=False``, None unless ``need_weights``. Simplified: no ``static_k``/``static_v``."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("glasstorch: multi_head_attention_forward does not support static_k/static_v")
    is_batched = query.dim() == 3
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             "query tensor")
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal mask is applied by scaled_dot_product_attention itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")

    if not use_separate_proj_weight:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        k = ops.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ops.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    # the heads: (L, N, E) -> (N * H, L, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = ops.cat([k, zeros(zero_attn_shape, dtype=k.dtype)], dim=1)
        v = ops.cat([v, zeros(zero_attn_shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{key_padding_mask.shape}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        if attn_mask is not None:
            attn_output_weights = ops.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = ops.bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = ops.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output, attn_output_weights = attn_output.squeeze(1), attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    if attn_mask is not None:
        attn_mask = attn_mask.view(bsz, num_heads, -1, src_len) if attn_mask.size(0) != 1 or attn_mask.dim() != 3 \
            else attn_mask.unsqueeze(0)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


# --- affine grids ------------------------------------------------------------------------------
def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The (N, H, W, 2) (or (N, D, H, W, 3)) grid of input coordinates in [-1, 1] that the affine
    transforms ``theta`` (N, 2, 3) (or (N, 3, 4)) map each output position of ``size`` to
    (``ops/affine_grid.py``); ``grid_sample`` reads the input there."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    dims = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape Nx{dims}x{dims + 1} for size {size}. "
                         f"Got {theta.shape}.")
    spatial_size = size[2:]
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _affine_grid.affine_grid_generator(theta, size, align_corners)


# --- fold / unfold ------------------------------------------------------------------------------
def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """The sliding local blocks of a batch of images as columns: (N, C, H, W) -> (N, C*kh*kw, L)
    ("im2col"; ``ops/fold.py``)."""
    return _fold_ops.im2col(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """Columns of sliding blocks summed back into images: (N, C*kh*kw, L) -> (N, C, H, W)
    ("col2im", the transpose of ``unfold``; ``ops/fold.py``)."""
    return _fold_ops.col2im(input, output_size, kernel_size, dilation, padding, stride)


# --- fractional max pooling -------------------------------------------------------------------
def _fractional_max_pool(input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any, return_indices: bool,
                         _random_samples: Tensor | None, dims: int) -> Any:
    """Both ranks of ``fractional_max_pool``: the output size from ``output_size`` or from
    ``output_ratio`` (times the input's size, rounded down), one random number per plane and
    spatial dim unless ``_random_samples`` gives them (drawn with ``rand``, as PyTorch draws them)."""
    name = f"fractional_max_pool{dims}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    as_tuple = (lambda v: (v,) * dims if isinstance(v, (int, float)) else tuple(v))
    if output_size is None:
        if len(as_tuple(output_ratio)) > dims:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratios = as_tuple(output_ratio)
        output_size = [int(input.size(-dims + d) * ratios[d]) for d in range(dims)]
    if _random_samples is None:
        batch = 1 if input.dim() == dims + 1 else input.size(0)
        _random_samples = rand(batch, input.size(-dims - 1), dims, dtype=input.dtype)
    out, indices = _fractional.fractional_max_pool(input, tuple(int(k) for k in as_tuple(kernel_size)),
                                                   tuple(int(n) for n in as_tuple(output_size)), _random_samples)
    return (out, indices) if return_indices else out


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Max pooling over pseudo-randomly placed windows to a given size (or ratio) of (N, C, H, W)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Max pooling over pseudo-randomly placed windows to a given size (or ratio) of (N, C, T, H, W)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:
    """``fractional_max_pool2d`` that always returns (values, indices)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, True, _random_samples, 2)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:
    """``fractional_max_pool3d`` that always returns (values, indices)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, True, _random_samples, 3)
