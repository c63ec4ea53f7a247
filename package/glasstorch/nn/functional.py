"""``nn.functional``: the functions behind the layers. Mirrors torch/nn/functional.py, in its order:
convolution, pooling, dropout, activations, linear, embedding, normalisation, losses.

A layer (``nn.Linear``) holds parameters and calls its functional twin (``F.linear``) in
``forward``; the function holds no state, so you can also call it with tensors of your own. Here
are PyTorch's Python-level signatures and argument checks; the computing happens in the ops
(``glasstorch/ops/conv.py``, ``pooling.py``, ``activation.py``, ``embedding.py``,
``normalization.py``, ``loss.py``), each forward beside its backward Node.

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
* ``batch_norm`` is composed of elementwise ops (PyTorch records one ``NativeBatchNormBackward0``),
  with the same numbers.
* ``embedding`` supports ``max_norm=None`` and ``sparse=False`` only (PyTorch can renormalise the
  looked-up rows in place, and return a sparse gradient).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import ops
from .._creation import empty, empty_like, from_numpy, zeros
from .._tensor import Tensor
from .._typename import scalar_type_name
from ..autograd.grad_mode import no_grad
from ..ops import activation as _activation
from ..ops import embedding as _embedding
from ..ops import loss as _loss
from ..ops import normalization as _normalization
from ..ops import pooling as _pool
from ..ops.conv import _SCALAR_NAMES, convolution, pad_for_convolution
from ..ops.loss import mse_loss  # noqa: F401 - PyTorch's F.mse_loss is the op itself here
from ..ops.pooling import adaptive_avg_pool2d as _adaptive_avg_pool2d
from ..ops.pooling import avg_pool2d  # noqa: F401 - PyTorch's F.avg_pool2d is the op itself

__all__ = ["conv1d", "conv2d", "conv3d", "avg_pool2d", "max_pool1d_with_indices", "max_pool1d",
           "max_pool2d_with_indices", "max_pool2d", "max_pool3d_with_indices", "max_pool3d", "adaptive_avg_pool2d",
           "dropout", "dropout2d", "relu", "leaky_relu", "gelu", "softmax", "log_softmax", "tanh", "sigmoid",
           "linear", "embedding", "batch_norm", "layer_norm", "group_norm", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "l1_loss", "mse_loss"]


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
    return input.relu_() if inplace else ops.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else ``negative_slope * x``."""
    return _activation.leaky_relu_(input, negative_slope) if inplace else _activation.leaky_relu(input, negative_slope)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    return _activation.gelu(input, approximate)


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    return ops.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
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
        return ops.matmul(input, weight.t())
    if input.dim() == 2:
        return ops.addmm(bias, input, weight.t())
    rows = input.reshape(-1, input.shape[-1]) if input.dim() != 1 else input.unsqueeze(0)
    out = ops.addmm(bias, rows, weight.t())
    return out.view(*input.shape[:-1], out.shape[-1])


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
    if max_norm is not None:
        raise NotImplementedError("glasstorch's embedding supports max_norm=None only (PyTorch renormalises the "
                                  "looked-up rows of weight in place to at most max_norm)")
    return _embedding.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


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
    dims = [0, *range(2, input.dim())]
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)  # broadcasts a per-channel vector
    if training or running_mean is None:
        mean = input.mean(dims, keepdim=True)
        var = ((input - mean) ** 2).mean(dims, keepdim=True)
        if training and running_mean is not None:
            _update_running_stats(input, dims, running_mean, running_var, momentum)
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


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
