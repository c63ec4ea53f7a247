"""Samplers: the order in which a DataLoader visits a dataset, and how it groups indices into batches.

Mirrors ``torch/utils/data/sampler.py``: ``Sampler``, ``SequentialSampler``, ``RandomSampler``,
``WeightedRandomSampler`` and ``BatchSampler``, with PyTorch's arguments, checks and messages.

Simplified: no ``SubsetRandomSampler`` or ``DistributedSampler``.
``RandomSampler`` draws from glasstorch's generator (numpy's PCG64), not PyTorch's Mersenne
Twister, so it cannot reproduce PyTorch's permutations. What it does keep: every index exactly once
per pass (without replacement), a new order on every pass, and the same sequence of orders after
the same ``glasstorch.manual_seed`` (or from a generator seeded the same way).
"""
from __future__ import annotations

import itertools
from typing import Generic, Iterable, Iterator, Sized, TypeVar

from ..._creation import empty
from ...dtypes import int64
from ...random import Generator

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: a sampler is an iterable over dataset indices (or over batches of them), usually with ``__len__``."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``, the same every time."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The indices in random order: a fresh permutation per pass, or ``num_samples`` draws with
    replacement when ``replacement=True``.

    Without a ``generator``, each pass seeds a private generator from the default one (as PyTorch
    does), so ``glasstorch.manual_seed`` fixes every epoch's order and epochs still differ.
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # a private generator, seeded from the default one as PyTorch seeds it
            seed = int(empty((), dtype=int64).random_().item())
            generator = Generator().manual_seed(seed)
        if self.replacement:
            yield from generator.integers(0, n, (self.num_samples,)).tolist()
        else:  # whole permutations, then the head of one more for the remainder
            for _ in range(self.num_samples // n):
                yield from generator.permutation(n).tolist()
            yield from generator.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups the indices of ``sampler`` into lists of ``batch_size``; the last, shorter list is
    dropped when ``drop_last`` is True."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch and (len(batch) == self.batch_size or not self.drop_last):
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement by default): oversample a rare class, for instance."""

    def __init__(self, weights: Iterable[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        from ..._creation import as_tensor
        from ...dtypes import double

        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ...ops.random_ops import multinomial

        rand_tensor = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self) -> int:
        return self.num_samples
