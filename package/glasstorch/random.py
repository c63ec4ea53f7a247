"""Random numbers: ``manual_seed`` and the default ``Generator``. Mirrors ``torch/random.py``.

Simplified: glasstorch draws from numpy's PCG64 generator, so a seed gives reproducible numbers,
but not the *same* numbers as PyTorch's Mersenne Twister. To compare with PyTorch, create the
values in one library and copy them to the other (``torch.from_numpy(t.numpy())``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

# get_state's bytes: PCG64's state and increment (128 bits each), its cached 32 bits (a flag and the
# value), the seed
_STATE_LAYOUT = (16, 16, 1, 4, 8)


def _cpu_device() -> Any:
    from ._tensor import CPU

    return CPU


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

    device = property(lambda self: _cpu_device(), doc="Where it draws: always the CPU.")

    def __repr__(self) -> str:
        # PyTorch's Generator is a C++ class that torch._C exposes, so the echo of
        # torch.manual_seed(0) at the end of a tutorial's cell prints <torch._C.Generator object at 0x...>;
        # glasstorch prints the same words (there is no glasstorch._C module behind them).
        return f"<glasstorch._C.Generator object at {id(self):#x}>"

    def seed(self) -> int:
        """Seed with a fresh number from the operating system's entropy; returns that seed."""
        new_seed = int(np.random.SeedSequence().entropy % (2**63))
        self.manual_seed(new_seed)
        return new_seed

    def get_state(self) -> Any:
        """The state as a ``uint8`` tensor, as PyTorch gives it (PyTorch's holds a Mersenne
        Twister's 5056 bytes; this one PCG64's 128-bit state and increment, then the seed)."""
        from ._tensor import _wrap

        state = self._rng.bit_generator.state
        numbers = (state["state"]["state"], state["state"]["inc"], state["has_uint32"], state["uinteger"], self._seed)
        raw = b"".join(int(n).to_bytes(size, "little") for n, size in zip(numbers, _STATE_LAYOUT))
        return _wrap(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Any) -> "Generator":
        """Restore a state that ``get_state`` returned."""
        raw = np.asarray(getattr(new_state, "_data", new_state), dtype=np.uint8).tobytes()
        if len(raw) != sum(_STATE_LAYOUT):
            raise RuntimeError(f"Expected either a PCG64 state of {sum(_STATE_LAYOUT)} bytes, got {len(raw)}")
        numbers, start = [], 0
        for size in _STATE_LAYOUT:
            numbers.append(int.from_bytes(raw[start:start + size], "little"))
            start += size
        self._rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": numbers[0], "inc": numbers[1]},
                                         "has_uint32": numbers[2], "uinteger": numbers[3]}
        self._seed = numbers[4]
        return self

    def exponential(self, rate: float, shape: tuple) -> np.ndarray:
        return self._rng.exponential(1.0 / rate, shape)

    def random(self, shape: tuple) -> np.ndarray:
        """Uniform on [0, 1) in float64."""
        return self._rng.random(shape)

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


def get_rng_state() -> Any:
    return default_generator.get_state()


def set_rng_state(state: Any) -> None:
    default_generator.set_state(state)


def _generator_of(generator: Generator | None) -> Generator:
    return default_generator if generator is None else generator
