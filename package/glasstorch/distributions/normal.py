"""``Normal(loc, scale)``: the Gaussian distribution. Mirrors torch/distributions/normal.py.

``log_prob`` and ``rsample`` are built from tensor ops, so gradients flow back to ``loc`` and
``scale`` when they require grad; ``sample`` draws without recording. Simplified: no
``validate_args``, ``expand``, ``cdf`` or ``icdf``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._creation import randn, tensor as _tensor
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad


def _as_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return _tensor(float(value), dtype=like.dtype if like is not None else None)


class Normal:
    """A normal distribution with mean ``loc`` and standard deviation ``scale`` (broadcast together)."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        loc = _as_tensor(loc, scale if isinstance(scale, Tensor) else None)
        scale = _as_tensor(scale, loc)
        if validate_args is not False and bool((scale <= 0).any()):
            raise ValueError(f"Expected parameter scale ({type(scale).__name__} of shape {tuple(scale.shape)}) of "
                             f"distribution Normal(loc: {loc.shape}, scale: {scale.shape}) to satisfy the constraint "
                             f"GreaterThan(lower_bound=0.0), but found invalid values:\n{scale}")
        shape = Size(np.broadcast_shapes(loc.shape, scale.shape))
        self.loc = loc.expand(shape) if loc.shape != shape else loc
        self.scale = scale.expand(shape) if scale.shape != shape else scale
        self.batch_shape = shape

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def _extended_shape(self, sample_shape: tuple) -> tuple:
        return tuple(sample_shape) + tuple(self.batch_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample that gradients flow through (the reparameterisation trick): loc + eps * scale."""
        eps = randn(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample drawn without recording (no gradient to loc or scale)."""
        with no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        """log N(value; loc, scale) = -(value - loc)² / (2 scale²) - log(scale) - log(sqrt(2π))."""
        value = _as_tensor(value, self.loc)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    def __repr__(self) -> str:
        # PyTorch shows a one-element parameter's value, a larger one's size
        shown = [f"{name}: {t if t.numel() == 1 else t.size()}" for name, t in (("loc", self.loc), ("scale", self.scale))]
        return "Normal(" + ", ".join(shown) + ")"
