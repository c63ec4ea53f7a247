"""``nn.functional``: the functions behind the layers. Mirrors torch/nn/functional.py.

A layer (``nn.Linear``) holds parameters and calls its functional twin (``F.linear``) in
``forward``; the function holds no state, so you can also call it with tensors of your own.

The functions of Part III live in ``functional_conv.py``, ``functional_pooling.py`` and
``functional_extra.py`` (norms, embedding, activations, losses) and are imported here.

Simplified for now: ``batch_norm`` is composed of elementwise ops (PyTorch records one
``NativeBatchNormBackward0``), with the same numbers.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from .._creation import empty_like, from_numpy
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.loss import mse_loss  # noqa: F401 - part of the functional API
# the Part III twins live in their own files (one family each) and are re-exported here, so that
# ``F.conv2d``, ``F.max_pool2d``, ``F.cross_entropy`` ... are where PyTorch has them
from .functional_conv import conv1d, conv2d, conv3d  # noqa: F401
from .functional_extra import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,  # noqa: F401
                               embedding, gelu, group_norm, l1_loss, layer_norm, leaky_relu, legacy_get_string,
                               nll_loss)
from .functional_pooling import (adaptive_avg_pool2d, avg_pool2d, dropout2d, max_pool1d,  # noqa: F401
                                 max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices, max_pool3d,
                                 max_pool3d_with_indices)

__all__ = ["linear", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "batch_norm", "mse_loss",
           "conv1d", "conv2d", "conv3d", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "dropout2d",
           "layer_norm", "group_norm", "embedding", "leaky_relu", "gelu", "nll_loss", "cross_entropy", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits"]


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


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else ops.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    return ops.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return ops.tanh(input)


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    return ops.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    return ops.log_softmax(input, dim, dtype=dtype)


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
