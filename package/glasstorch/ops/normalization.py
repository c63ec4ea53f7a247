"""``batch_norm``, ``layer_norm`` and ``group_norm``, each recorded as PyTorch records it: one fused
kernel with one backward Node (``NativeBatchNormBackward0``, ``NativeLayerNormBackward0``,
``NativeGroupNormBackward0``).

Mirrors aten/src/ATen/native/Normalization.cpp, layer_norm.cpp and group_norm.cpp, and the backward formulas of
tools/autograd/derivatives.yaml and FunctionsManual.cpp (``layer_norm_backward``).

Each backward is written with tensor ops, so ``create_graph=True`` differentiates it again.
Simplified: PyTorch's second-order Node has a name of its own (``NativeLayerNormBackwardBackward0``);
here a double backward goes through the ordinary ops the backward is made of. (``F.batch_norm`` in
``nn/functional.py`` checks its input and updates the running statistics, then calls ``batch_norm`` here.)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from .._typename import scalar_type_name
from ._nn_checks import _check_floating, _work
from ._util import compute_requires_grad, saved_optional, set_history


# --- what both norms share --------------------------------------------------------------------
def _normalize(x: Tensor, dims: tuple, eps: float) -> tuple:
    """``((x - mean) * rstd, rstd)`` over ``dims``, with tensor ops: the backward of the norms
    recomputes them this way so that a double backward also differentiates the statistics."""
    centred = x - x.mean(dims, keepdim=True)
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps) ** -0.5
    return centred * rstd, rstd


def _normalize_backward(grad_hat: Tensor, x_hat: Tensor, rstd: Tensor, dims: tuple) -> Tensor:
    """The gradient through ``x_hat = (x - mean) * rstd``, given ``grad_hat`` = d loss / d x_hat:
    rstd * (grad_hat - mean(grad_hat) - x_hat * mean(grad_hat * x_hat)), means over ``dims``."""
    return rstd * (grad_hat - grad_hat.mean(dims, keepdim=True) - x_hat * (grad_hat * x_hat).mean(dims, keepdim=True))


def _saved_statistic(values: np.ndarray, input: Tensor) -> SavedTensor:
    """A mean or 1/std of the forward, as the input's dtype (PyTorch's ``result1``/``result2``)."""
    return SavedTensor(_wrap(values.astype(input._data.dtype, copy=False)))


def _sum_over(value: Tensor, dims: tuple) -> Tensor:
    return value.sum(dims) if dims else value


# --- layer_norm -------------------------------------------------------------------------------
class NativeLayerNormBackward0(Node):
    """out = x_hat * weight + bias, with x_hat = (x - mean) * rstd over the last dims:
    grad_input through ``_normalize_backward`` with grad_hat = grad * weight,
    grad_weight = sum of grad * x_hat and grad_bias = sum of grad, over the leading dims.
    Saves PyTorch's ``result1``/``result2`` (the mean and 1/std, shaped to broadcast), but the
    backward recomputes them with tensor ops, so that a double backward differentiates them too."""

    input_: SavedTensor
    normalized_shape: tuple
    weight_: SavedTensor
    bias_: SavedTensor
    result1_: SavedTensor
    result2_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self._saved_input, self._saved_weight
        dims = tuple(range(-len(self.normalized_shape), 0))
        x_hat, rstd = _normalize(input, dims, self._eps)
        leading = tuple(range(input.dim() - len(dims)))
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_hat = grad * weight if weight is not None else grad
            grad_input = _normalize_backward(grad_hat, x_hat, rstd, dims)
        if self.needs_input_grad(1):
            grad_weight = _sum_over(grad * x_hat, leading)
        if self.needs_input_grad(2):
            grad_bias = _sum_over(grad, leading)
        return grad_input, grad_weight, grad_bias


def _check_layer_norm(input: Tensor, shape: tuple, weight: Tensor | None, bias: Tensor | None) -> None:
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(shape)}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(param.shape)} and normalized_shape = {list(shape)}")
    if tuple(input.shape[input.dim() - len(shape):]) != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(n) for n in shape)}], but got input of size{list(input.shape)}")
    _check_floating(input, "LayerNormKernelImpl")
    for param in (weight, bias):
        if param is not None and param.dtype is not input.dtype:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of {scalar_type_name(input.dtype)}")


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims to mean 0 and variance 1 (the biased
    variance, as PyTorch), then scale by ``weight`` and shift by ``bias`` elementwise."""
    shape = tuple(int(n) for n in normalized_shape)
    _check_layer_norm(input, shape, weight, bias)
    dims = tuple(range(-len(shape), 0))
    data = _work(input._data)
    mean = data.mean(axis=dims, keepdims=True)
    centred = data - mean
    std = np.sqrt((centred * centred).mean(axis=dims, keepdims=True) + eps)
    values = centred / std
    if weight is not None:
        values *= weight._data
    if bias is not None:
        values += bias._data
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input, weight, bias):
        node = NativeLayerNormBackward0(input, weight, bias)
        node.input_, node.normalized_shape = SavedTensor(input), shape
        node.weight_, node.bias_ = saved_optional(weight), saved_optional(bias)
        node.result1_, node.result2_ = _saved_statistic(mean, input), _saved_statistic(1 / std, input)
        node._eps = eps
        set_history(out, node)
    return out


# --- group_norm -------------------------------------------------------------------------------
class NativeGroupNormBackward0(Node):
    """The input (N, C, *) is viewed as (N, G, C/G * spatial) and each group normalised, then
    scaled and shifted per channel: the layer-norm backward inside each group, and grad_weight,
    grad_bias summed over the batch and the spatial dims. (``result1``/``result2``, the (N, G)
    means and 1/stds, are saved as in PyTorch but recomputed, as in layer_norm's backward.)"""

    N: int
    C: int
    HxW: int
    group: int
    eps: float
    input_: SavedTensor
    weight_: SavedTensor
    result1_: SavedTensor
    result2_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self._saved_input, self._saved_weight
        grouped_shape = (self.N, self.group, self.C // self.group * self.HxW)
        channel_shape = (1, self.C) + (1,) * (input.dim() - 2)  # broadcasts a per-channel vector
        x_hat_grouped, rstd = _normalize(input.reshape(grouped_shape), (-1,), self.eps)
        x_hat = x_hat_grouped.reshape(input.shape)
        not_channel = (0, *range(2, input.dim()))
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_hat = grad * weight.reshape(channel_shape) if weight is not None else grad
            grad_input = _normalize_backward(grad_hat.reshape(grouped_shape), x_hat_grouped, rstd, (-1,))
            grad_input = grad_input.reshape(input.shape)
        if self.needs_input_grad(1):
            grad_weight = (grad * x_hat).sum(not_channel)
        if self.needs_input_grad(2):
            grad_bias = grad.sum(not_channel)
        return grad_input, grad_weight, grad_bias


def _check_group_norm(input: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None) -> None:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    channels = input.shape[1]
    if channels % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(param.shape)} and input of shape {list(input.shape)}")
    _check_floating(input, "GroupNormKernelImpl")


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Split the channels (dim 1) into ``num_groups`` groups and normalise each group of each
    sample over its channels and spatial positions; then scale and shift per channel."""
    _check_group_norm(input, num_groups, weight, bias)
    shape = input._data.shape
    grouped_shape = (shape[0], num_groups, int(np.prod(shape[1:], dtype=np.int64)) // num_groups)
    channel_shape = (1, shape[1]) + (1,) * (len(shape) - 2)  # broadcasts a per-channel vector
    grouped = _work(input._data).reshape(grouped_shape)
    mean = grouped.mean(axis=-1, keepdims=True)
    centred = grouped - mean
    std = np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)
    values = (centred / std).reshape(shape)
    if weight is not None:
        values = values * weight._data.reshape(channel_shape)
    if bias is not None:
        values = values + bias._data.reshape(channel_shape)
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input, weight, bias):
        node = NativeGroupNormBackward0(input, weight, bias)
        node.N, node.C, node.group, node.eps = shape[0], shape[1], num_groups, eps
        node.HxW = int(np.prod(shape[2:], dtype=np.int64))
        node.input_, node.weight_ = SavedTensor(input), saved_optional(weight)
        node.result1_ = _saved_statistic(mean.reshape(grouped_shape[:2]), input)
        node.result2_ = _saved_statistic((1 / std).reshape(grouped_shape[:2]), input)
        set_history(out, node)
    return out


# --- batch_norm -------------------------------------------------------------------------------
class NativeBatchNormBackward0(Node):
    """out = x_hat * weight + bias per channel (dim 1), x_hat normalised over every other dim.
    In training x_hat uses the batch's mean and biased variance: grad_input is the layer-norm
    backward over (0, 2, ...) with grad_hat = grad * weight. In evaluation it uses the running
    statistics, constants: grad_input = grad * weight * invstd. In both, grad_weight = sum of
    grad * x_hat and grad_bias = sum of grad over the non-channel dims. Saves PyTorch's names;
    ``result1``/``result2`` are the batch mean and 1/std in training and empty in evaluation, as in
    PyTorch; the training backward recomputes them with tensor ops (double backward)."""

    input_: SavedTensor
    weight_: SavedTensor
    running_mean_: SavedTensor
    running_var_: SavedTensor
    result1_: SavedTensor
    result2_: SavedTensor
    training: bool
    eps: float

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self._saved_input, self._saved_weight
        dims = (0, *range(2, input.dim()))
        channel_shape = (1, input.shape[1]) + (1,) * (input.dim() - 2)  # broadcasts a per-channel vector
        if self.training:
            x_hat, rstd = _normalize(input, dims, self.eps)
        else:
            rstd = ((self._saved_running_var + self.eps) ** -0.5).reshape(channel_shape)
            x_hat = (input - self._saved_running_mean.reshape(channel_shape)) * rstd
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_hat = grad * weight.reshape(channel_shape) if weight is not None else grad
            grad_input = _normalize_backward(grad_hat, x_hat, rstd, dims) if self.training else grad_hat * rstd
        if self.needs_input_grad(1):
            grad_weight = (grad * x_hat).sum(dims)
        if self.needs_input_grad(2):
            grad_bias = grad.sum(dims)
        return grad_input, grad_weight, grad_bias


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None,
               bias: Tensor | None, training: bool, eps: float) -> Tensor:
    """Normalise each channel (dim 1) with the batch's mean and biased variance (``training``, or
    no running statistics) or with the running ones, then scale and shift per channel. The running
    statistics are not updated here (``F.batch_norm`` does that)."""
    shape = input._data.shape
    dims = (0, *range(2, len(shape)))
    channel_shape = (1, shape[1]) + (1,) * (len(shape) - 2)  # broadcasts a per-channel vector
    data = _work(input._data)
    use_batch = training or running_mean is None
    if use_batch:
        mean = data.mean(axis=dims, keepdims=True)
        centred = data - mean
        invstd = 1 / np.sqrt((centred * centred).mean(axis=dims, keepdims=True) + eps)
    else:
        mean = running_mean._data.reshape(channel_shape).astype(data.dtype, copy=False)
        centred = data - mean
        invstd = 1 / np.sqrt(running_var._data.reshape(channel_shape).astype(data.dtype, copy=False) + eps)
    values = centred * invstd
    if weight is not None:
        values = values * weight._data.reshape(channel_shape)
    if bias is not None:
        values = values + bias._data.reshape(channel_shape)
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input, weight, bias):
        node = NativeBatchNormBackward0(input, weight, bias)
        node.input_, node.weight_ = SavedTensor(input), saved_optional(weight)
        node.running_mean_, node.running_var_ = saved_optional(running_mean), saved_optional(running_var)
        node.training, node.eps = use_batch, eps
        if use_batch:
            node.result1_ = _saved_statistic(mean.reshape(-1), input)
            node.result2_ = _saved_statistic(invstd.reshape(-1), input)
        else:
            node.result1_ = node.result2_ = _saved_statistic(np.empty(0), input)
        set_history(out, node)
    return out
