"""``Distribution``: what every distribution shares. Mirrors torch/distributions/distribution.py.

A distribution has a ``batch_shape`` (independent distributions side by side) and an
``event_shape`` (the shape of one draw: () for a number, (k,) for a Multinomial's counts).
``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``.
Simplified: the parameters' constraints are plain strings; no ``expand``, ``icdf``.
"""
from __future__ import annotations

from typing import Any

from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad


class Distribution:
    """The base class: subclasses set ``arg_constraints`` (their parameters' names, in repr order)
    and implement ``sample`` or ``rsample``, ``log_prob`` and ``entropy``."""

    has_rsample = False
    arg_constraints: dict = {}

    def __init__(self, batch_shape: tuple = (), event_shape: tuple = (), validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        self._validate_args = validate_args is not False  # PyTorch's default: validate (when __debug__)

    def _validate_sample(self, value: Tensor, inside: Any, support: str) -> None:
        """PyTorch's check that ``value`` lies in the support (``inside``: a bool tensor)."""
        if self._validate_args and not bool(inside.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: tuple = ()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A draw, without recording (no gradient to the parameters)."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def __repr__(self) -> str:
        names = [name for name in self.arg_constraints if name in self.__dict__]
        shown = ", ".join(f"{name}: {self.__dict__[name] if self.__dict__[name].numel() == 1 else self.__dict__[name].size()}"
                          for name in names)
        return f"{type(self).__name__}({shown})"


def _check_one_of(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
