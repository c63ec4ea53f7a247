"""Helpers shared by the distributions. Mirrors torch/distributions/utils.py."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._creation import tensor
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..dtypes import get_default_dtype


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors broadcast to one shape; numbers become tensors of the first tensor's dtype."""
    if not all(isinstance(v, (Tensor, int, float)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), get_default_dtype())
    tensors = [v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype) for v in values]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept inside [eps, 1 - eps], so that their logs are finite."""
    eps = float(np.finfo(probs._data.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """log p (or, for a Bernoulli, the log-odds log p - log(1 - p))."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """sigmoid of log-odds, or softmax of unnormalised log-probabilities."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


class lazy_property:
    """A property computed on first use and then stored on the instance (so it is computed once,
    with grad enabled, and shows in the distribution's repr, as in PyTorch)."""

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
