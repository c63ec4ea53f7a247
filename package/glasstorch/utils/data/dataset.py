"""Datasets: ``Dataset``, ``TensorDataset``, ``ConcatDataset``, ``Subset`` and ``random_split``.

Mirrors ``torch/utils/data/dataset.py``. A map-style dataset is anything with ``__getitem__`` (and
usually ``__len__``): the DataLoader asks it for sample ``i``. Same names, checks and messages as
PyTorch.

Simplified: no ``IterableDataset``, ``ChainDataset`` or ``StackDataset``. ``random_split`` shuffles
with glasstorch's generator (numpy's PCG64), so the same seed gives the same split on every run,
but not the split PyTorch would draw: the lengths of the pieces are PyTorch's, the members are not.
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Any, Generic, Iterable, Sequence, TypeVar

from ..._tensor import Tensor
from ...random import Generator, _generator_of, default_generator

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys (usually ``0 .. len-1``) to samples. Subclasses implement ``__getitem__``
    and, for the default samplers, ``__len__``."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])

    # No default __len__: PyTorch leaves it out on purpose, so that ``len(dataset)`` fails loudly
    # (TypeError) for a dataset that has no length, instead of returning a made-up number.


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A dataset read as a stream: subclasses define ``__iter__`` (no ``__getitem__``, no
    ``__len__`` needed). A DataLoader takes its items in the order the iterator gives them; it
    cannot shuffle them or use a sampler. (glasstorch's DataLoader loads in the main process, where
    ``get_worker_info()`` is None.) ``__iter__`` is abstract (``typing.Iterable``'s): a subclass
    without one cannot be instantiated, as in PyTorch."""

    def __add__(self, other: Any) -> Any:
        from itertools import chain

        first, second = self, other

        class _Chained(IterableDataset):
            def __iter__(self) -> Any:
                return chain(first, second)

        return _Chained()


class TensorDataset(Dataset[tuple]):
    """Sample ``i`` is ``(t[i] for t in tensors)``: the tensors are indexed along their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset[T_co]):
    """Several datasets one after the other: index ``i`` falls in the first dataset whose running
    total of lengths (``cumulative_sizes``) is above ``i``."""

    @staticmethod
    def cumsum(sequence: Iterable) -> list[int]:
        totals, running = [], 0
        for dataset in sequence:
            running += len(dataset)
            totals.append(running)
        return totals

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)  # past the end: IndexError below
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``: ``subset[i]`` is ``dataset[indices[i]]``."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        # The DataLoader fetches a batch through __getitems__; a subclass that changes only
        # __getitem__ would be silently bypassed, so PyTorch refuses it up front.
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        """A whole batch at once; uses the wrapped dataset's own ``__getitems__`` when it has one."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: Generator | None = default_generator) -> list[Subset]:
    """Split ``dataset`` at random into non-overlapping Subsets of the given ``lengths``.

    ``lengths`` are either sample counts summing to ``len(dataset)``, or fractions summing to 1:
    each piece then gets ``floor(fraction * len(dataset))`` samples, and the remainder is handed
    out one sample at a time, round-robin from the first piece (PyTorch's rule).
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _generator_of(generator).permutation(sum(lengths)).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):  # the remainder, round-robin
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=3)
    return lengths
