"""``Uniform(low, high)``: every value in [low, high) equally likely.
Mirrors torch/distributions/uniform.py."""
from __future__ import annotations

from typing import Any

from .._creation import rand
from .._tensor import Tensor
from .distribution import Distribution
from .utils import broadcast_all


class Uniform(Distribution):
    """Uniform on the half-open interval [low, high), batched over the broadcast shape."""

    arg_constraints = {"low": "dependent", "high": "dependent"}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if validate_args is not False and not bool((self.low < self.high).all()):
            raise ValueError(f"Expected parameter low (Tensor of shape {tuple(self.low.shape)}) of distribution "
                             f"{self!r} to satisfy the constraint LessThan(upper_bound={self.high}), but found "
                             f"invalid values:\n{self.low}")
        super().__init__(tuple(self.low.size()), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """low + U(0, 1) * (high - low): gradients flow to low and high."""
        u = rand(*self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """-log(high - low) inside [low, high), -inf outside."""
        self._validate_sample(value, self.low.le(value) & value.le(self.high),
                              f"Interval(lower_bound={self.low}, upper_bound={self.high})")
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
