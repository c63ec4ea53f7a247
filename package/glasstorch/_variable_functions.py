"""The ``nn.functional`` ops that PyTorch also exposes as ``torch.<name>``: ``torch.conv2d`` is the
ATen op that ``F.conv2d`` calls (PyTorch binds them from ``torch._C._VariableFunctions``).

Most take the same arguments as their ``F`` twin, and are that function. A few take them as ATen
declares them (``aten/src/ATen/native/native_functions.yaml``), and are wrapped here:
``torch.dropout(input, p, train)`` has no defaults; ``torch.embedding(weight, indices)`` swaps F's
order and says "no padding" with -1; ``torch.batch_norm`` and ``torch.instance_norm`` put the
weight before the running statistics; the losses take ``reduction`` as ATen's number (0 none,
1 mean, 2 sum); ``torch.adaptive_max_pool1d`` always returns the indices too.
"""
from __future__ import annotations

import warnings
from typing import Any

from ._tensor import Tensor
from .nn import functional as F

_SAME_ARGUMENTS = (
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "pixel_shuffle",
    "pixel_unshuffle", "channel_shuffle", "prelu", "selu", "celu", "rrelu", "threshold", "hardshrink", "selu_",
    "celu_", "threshold_", "rrelu_", "cosine_similarity", "pairwise_distance", "pdist", "bilinear", "max_pool1d",
    "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d", "rms_norm")
globals().update({name: getattr(F, name) for name in _SAME_ARGUMENTS})

_REDUCTIONS = ("none", "mean", "sum")  # ATen's Reduction enum: 0, 1, 2


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, training=train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, training=train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, training=train)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple:
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def kl_div(input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False) -> Tensor:
    with warnings.catch_warnings():  # F.kl_div's advice to use 'batchmean' is F's, not ATen's
        warnings.simplefilter("ignore")
        return F.kl_div(input, target, reduction=_REDUCTIONS[reduction], log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_REDUCTIONS[reduction],
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1) -> Tensor:
    return F.hinge_embedding_loss(input, target, margin, reduction=_REDUCTIONS[reduction])


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: int = 1) -> Tensor:
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_REDUCTIONS[reduction])


__all__ = [*_SAME_ARGUMENTS, "adaptive_max_pool1d", "alpha_dropout", "batch_norm", "binary_cross_entropy_with_logits",
           "cosine_embedding_loss", "dropout", "embedding", "feature_alpha_dropout", "group_norm",
           "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm", "margin_ranking_loss", "poisson_nll_loss",
           "triplet_margin_loss"]
