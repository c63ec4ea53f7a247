"""``Categorical``: one of K classes, with probabilities ``probs`` (or unnormalised ``logits``).
Mirrors torch/distributions/categorical.py. makemore's bigram model samples with it (or with
``torch.multinomial``, which it calls)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._creation import full
from .._tensor import Size, Tensor
from ..ops.random_ops import multinomial
from .distribution import Distribution, _check_one_of
from .utils import lazy_property, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    """Probabilities over the last dim of ``probs`` (normalised to sum to 1) or ``logits``."""

    arg_constraints = {"probs": "simplex", "logits": "real_vector"}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        _check_one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # normalised: log-probabilities
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        super().__init__(tuple(self._param.size()[:-1]), validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """Class indices, drawn with ``multinomial`` from each row of probabilities."""
        count = int(np.prod(sample_shape, dtype=np.int64))
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, count, True).t()
        return samples_2d.reshape(*self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log-probability of the class ``value`` (broadcast against the batch)."""
        self._validate_sample(value, (value == value.long()) & (value >= 0) & (value <= self._num_events - 1),
                              f"IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})")
        value = value.long().unsqueeze(-1)
        shape = np.broadcast_shapes(tuple(value.shape), tuple(self.logits.shape))
        log_pmf = self.logits.expand(*shape)
        value = value.expand(*shape)[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        """-sum p log p (a probability of 0 contributes 0: its logit is clamped to the dtype's minimum)."""
        min_real = float(np.finfo(self.logits._data.dtype).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from .._creation import arange

        values = arange(self._num_events).view(-1, *((1,) * len(self._batch_shape)))
        return values.expand(-1, *self._batch_shape) if expand else values
