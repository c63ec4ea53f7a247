"""``Multinomial(total_count, probs)``: the counts of each of K classes in ``total_count`` draws.
Mirrors torch/distributions/multinomial.py (it samples through a Categorical)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._creation import from_numpy, zeros
from .._tensor import Size, Tensor
from ..dtypes import get_default_dtype
from .categorical import Categorical
from .distribution import Distribution

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])  # numpy has no lgamma: log((n)!) = lgamma(n + 1)


class Multinomial(Distribution):
    """Counts over the last dim of ``probs`` (or ``logits``), summing to ``total_count``."""

    arg_constraints = {"probs": "simplex", "logits": "real_vector"}

    def __init__(self, total_count: int = 1, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(tuple(batch_shape), tuple(event_shape), validate_args=validate_args)

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """total_count categorical draws, counted per class (a scatter-add of ones)."""
        samples = self._categorical.sample((self.total_count,) + tuple(sample_shape))
        order = list(range(1, samples.dim())) + [0]  # the draws last
        samples = samples.permute(*order)
        counts = zeros(*self._extended_shape(sample_shape), dtype=samples.dtype)
        counts = counts.scatter_add(-1, samples, samples * 0 + 1)
        return counts.type_as(self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """log(n! / prod(x_i!)) + sum x_i log p_i (a class of probability 0 drawn 0 times adds 0)."""
        shape = np.broadcast_shapes(tuple(self.logits.shape), tuple(value.shape))
        logits, value = self.logits.expand(*shape), value.expand(*shape)
        counts = value.numpy().astype(np.float64)
        log_factorial_n = _lgamma(counts.sum(-1) + 1)
        log_factorial_xs = _lgamma(counts + 1).sum(-1)
        impossible = (counts == 0) & np.isneginf(logits.detach().numpy())
        if impossible.any():
            logits = logits.masked_fill(from_numpy(impossible), 0.0)
        log_powers = (logits * value).sum(-1)
        return log_powers + from_numpy(np.asarray(log_factorial_n - log_factorial_xs, dtype=log_powers._data.dtype))

    def entropy(self) -> Tensor:
        """n H(categorical) - log n! + E[sum log x_i!], the last term from each class's binomial
        distribution of counts (as PyTorch computes it)."""
        n = self.total_count
        # PyTorch computes lgamma(n + 1) on an integer tensor: in the default dtype, float32
        log_factorial_n = float(np.asarray(math.lgamma(n + 1), dtype=get_default_dtype().numpy_dtype))
        term1 = n * self._categorical.entropy() - log_factorial_n
        support = np.arange(1, n + 1, dtype=np.float64).reshape((-1,) + (1,) * self.probs.dim())
        p = self.probs.detach().numpy().astype(np.float64)
        with np.errstate(divide="ignore"):
            log_binomial = (_lgamma(n + 1) - _lgamma(support + 1) - _lgamma(n - support + 1)
                            + support * np.log(p) + (n - support) * np.log1p(-p))
        term2 = (np.exp(log_binomial) * _lgamma(support + 1)).sum(axis=(0, -1))
        return term1 + from_numpy(term2.astype(self.probs._data.dtype))
