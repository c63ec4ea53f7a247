"""Random numbers: ``manual_seed`` and the default ``Generator``. Mirrors ``torch/random.py``.

Simplified: glasstorch draws from numpy's PCG64 generator, so a seed gives reproducible numbers,
but not the *same* numbers as PyTorch's Mersenne Twister. To compare with PyTorch, create the
values in one library and copy them to the other (``torch.from_numpy(t.numpy())``).
"""
from __future__ import annotations

import numpy as np


class Generator:
    """A source of random numbers with its own state (PyTorch: ``torch.Generator``)."""

    def __init__(self, device: str = "cpu") -> None:
        self._seed = 67280421310721  # PyTorch's default seed
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        return self._rng.bit_generator.state

    def set_state(self, state: dict) -> "Generator":
        self._rng.bit_generator.state = state
        return self

    # the draws the creation functions use
    def uniform(self, low: float, high: float, shape: tuple) -> np.ndarray:
        return self._rng.uniform(low, high, shape)

    def normal(self, mean: float, std: float, shape: tuple) -> np.ndarray:
        return self._rng.normal(mean, std, shape)

    def integers(self, low: int, high: int, shape: tuple) -> np.ndarray:
        return self._rng.integers(low, high, shape, dtype=np.int64)

    def permutation(self, n: int) -> np.ndarray:
        return self._rng.permutation(n).astype(np.int64)


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator: the same seed gives the same numbers on every run."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    new_seed = int(np.random.SeedSequence().entropy % (2**63))
    default_generator.manual_seed(new_seed)
    return new_seed


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> dict:
    return default_generator.get_state()


def set_rng_state(state: dict) -> None:
    default_generator.set_state(state)


def _generator_of(generator: Generator | None) -> Generator:
    return default_generator if generator is None else generator
