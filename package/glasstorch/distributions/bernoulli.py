"""``Bernoulli``: 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0.
Mirrors torch/distributions/bernoulli.py."""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..ops.random_ops import bernoulli
from .distribution import Distribution, _check_one_of
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class Bernoulli(Distribution):
    """A coin with probability ``probs`` of 1, batched over the parameter's shape."""

    arg_constraints = {"probs": "unit_interval", "logits": "real"}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        _check_one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(tuple(self._param.size()), validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        with no_grad():
            return bernoulli(self.probs.expand(*self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        """value log p + (1 - value) log(1 - p), computed stably from the logits."""
        self._validate_sample(value, (value == 0) | (value == 1), "Boolean()")
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from .._creation import arange

        values = arange(2, dtype=self._param.dtype).view(-1, *((1,) * len(self._batch_shape)))
        return values.expand(-1, *self._batch_shape) if expand else values
