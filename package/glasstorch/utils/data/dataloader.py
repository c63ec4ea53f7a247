"""``DataLoader``: a dataset, a sampler and a collate function, iterated batch by batch.

Mirrors ``torch/utils/data/dataloader.py`` (and the map-style fetcher of ``_utils/fetch.py``).
One pass (``for batch in loader``) builds a fresh iterator; each step asks the index sampler for a
batch of indices, fetches those samples from the dataset and collates them:

    sampler          SequentialSampler, or RandomSampler when shuffle=True (or your own)
    batch_sampler    BatchSampler(sampler, batch_size, drop_last): lists of indices
    collate_fn       default_collate: a list of samples -> one batch of tensors

``batch_size=None`` turns batching off: the loader yields one sample at a time, converted by
``default_convert`` (numpy arrays become tensors) instead of collated.

Simplified, compared with PyTorch:

- Loading always happens in the main process. ``num_workers > 0`` (and ``prefetch_factor``,
  ``persistent_workers``, ``multiprocessing_context``, ``timeout``) are accepted and checked as
  PyTorch checks them, then the data is loaded exactly as with ``num_workers=0``: same batches,
  same order. ``worker_init_fn`` is never called, since there are no workers to start.
- ``pin_memory=True`` warns, as PyTorch does on a machine without an accelerator, and does nothing.
- An ``IterableDataset`` is read in the main process; ``get_worker_info()`` is always None.
- Shuffling draws from glasstorch's generator, not PyTorch's: ``shuffle=True`` is reproducible
  under ``glasstorch.manual_seed`` or an explicit ``generator``, visits every index once per epoch
  in a new order each epoch, but is not PyTorch's order. It draws as often as PyTorch's does,
  though: each pass first draws a base seed (PyTorch's, for its workers), then the sampler its seed.

Fast path (glasstorch only). A batch from a ``TensorDataset`` normally costs ``batch_size``
indexings, each giving a small view, and then a ``stack`` of them: Python work per sample. When the
dataset is a TensorDataset (possibly inside the ``Subset``s that ``random_split`` returns) and the
loader uses its default sampler and ``default_collate``, the loader instead indexes each tensor
once with the whole batch of indices (``X[rows]``). The result is identical — the same values,
dtypes and shapes in the same list — only much faster (see ``_tensor_dataset_rows``).
"""
from __future__ import annotations

import multiprocessing
import warnings
from typing import Any, Callable, Generic, Iterable, Iterator, TypeVar

import numpy as np

from ..._creation import empty
from ..._tensor import Tensor
from ...dtypes import int64
from ...random import Generator
from ._collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

T_co = TypeVar("T_co", covariant=True)


class DataLoader(Generic[T_co]):
    """Iterate over ``dataset`` in batches of ``batch_size``, in order or shuffled, collated into tensors.

    Args are PyTorch's (see the module docstring for what runs differently): ``sampler`` and
    ``shuffle`` exclude each other; ``batch_sampler`` excludes ``batch_size``, ``shuffle``,
    ``sampler`` and ``drop_last``; ``len(loader)`` is the number of batches per pass.
    """

    __initialized = False  # set at the end of __init__; then the attributes that shape a pass are frozen

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Generator | None = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        iterable = isinstance(dataset, IterableDataset)
        if iterable:  # a stream: no indices, so nothing to shuffle or sample (PyTorch's checks)
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        # the fast path relies on the default samplers' plain integer indices (see the module docstring)
        self._default_samplers = sampler is None and batch_sampler is None
        if batch_sampler is not None:  # the user's batches: they fix the batch size and what is dropped
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None and iterable:
            sampler = _InfiniteConstantSampler()
        elif sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True

    @property
    def multiprocessing_context(self) -> Any:
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                start_methods = multiprocessing.get_all_start_methods()
                if context not in start_methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{start_methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr: str, val: Any) -> None:
        # a running iterator read these when it started; changing them would silently not apply
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Sampler | Iterable:
        """What one step draws from: a batch of indices (auto-collation) or a single index."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):  # the stream's own length, in batches
            length = len(self.dataset)  # type: ignore[arg-type] - a TypeError without __len__, as in PyTorch
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: ``None`` forever; the dataset's iterator says when to stop."""

    def __iter__(self) -> Any:
        while True:
            yield None


def get_worker_info() -> None:
    """Which worker process runs this code: None in the main process, which is where glasstorch's
    DataLoader always loads (PyTorch's workers get a WorkerInfo with id, num_workers, seed, dataset)."""
    return None


def _check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                          persistent_workers: bool) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                         "to enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader: next index (or batch of indices) -> fetch -> collate."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.num_workers == 0 and loader.timeout != 0:  # a timeout only means something for workers
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory:  # there is no accelerator here, as PyTorch on a CPU-only machine
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        # PyTorch draws each pass's base seed for its workers from the loader's generator (the default
        # one if None) before the first batch. glasstorch has no workers but draws it too, so that the
        # random numbers drawn after a pass, and a shuffled pass's order, come from the same position
        # of the stream as under PyTorch.
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        self._tensor_rows = _tensor_dataset_rows(loader)
        # an IterableDataset is read from its own iterator (PyTorch's _IterableDatasetFetcher)
        self._dataset_iter = iter(self._dataset) if isinstance(self._dataset, IterableDataset) else None
        self._drop_last = loader.drop_last

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return self

    def __next__(self) -> Any:
        index = next(self._sampler_iter)  # StopIteration ends the pass
        return self._fetch(index)

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _fetch(self, index: Any) -> Any:
        if self._dataset_iter is not None:
            return self._fetch_from_stream(index)
        if self._tensor_rows is not None:  # the fast path: one indexing per tensor for the whole batch
            tensors, rows = self._tensor_rows
            batch_rows = np.asarray(index, dtype=np.int64)
            if rows is not None:
                batch_rows = rows[batch_rows]
            return [t[batch_rows] for t in tensors]  # default_collate returns a list for tuple samples
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        if callable(getattr(self._dataset, "__getitems__", None)):  # a dataset that fetches batches itself
            data = self._dataset.__getitems__(index)
        else:
            data = [self._dataset[i] for i in index]
        return self._collate_fn(data)

    def _fetch_from_stream(self, index: Any) -> Any:
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                break
        if not data or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)


def _tensor_dataset_rows(loader: DataLoader) -> tuple[tuple[Tensor, ...], np.ndarray | None] | None:
    """``(tensors, rows)`` when a batch can be fetched as ``[t[rows[indices]] for t in tensors]``, else None.

    That gives exactly what ``default_collate`` would build from the samples one by one, provided
    the dataset is a plain TensorDataset (or plain Subsets of one; ``rows`` then maps the loader's
    indices to rows of the tensors, None meaning "the same"), the indices come from the default
    samplers (plain integers), the batch is collated by ``default_collate``, and no tensor requires
    grad (per-sample indexing then ``stack`` would record a different graph than one indexing).
    """
    if not (loader._auto_collation and loader._default_samplers and loader.collate_fn is default_collate):
        return None
    dataset, rows = loader.dataset, None
    while type(dataset) is Subset:  # a subclass may change what an index means
        subset_rows = _as_rows(dataset.indices)
        if subset_rows is None:
            return None
        rows = subset_rows if rows is None else subset_rows[rows]
        dataset = dataset.dataset
    if not isinstance(dataset, TensorDataset) or type(dataset).__getitem__ is not TensorDataset.__getitem__:
        return None
    if not all(isinstance(t, Tensor) and not t.requires_grad for t in dataset.tensors):
        return None
    return dataset.tensors, rows


def _as_rows(indices: Any) -> np.ndarray | None:
    """A Subset's indices as a 1-d integer array, or None when they are not plain integers."""
    try:
        rows = np.asarray(indices.numpy() if isinstance(indices, Tensor) else indices)
    except (TypeError, ValueError):
        return None
    return rows.astype(np.int64) if rows.ndim == 1 and rows.dtype.kind in "iu" else None
