"""Loading data in batches: datasets, samplers, collation and the DataLoader. Mirrors ``torch/utils/data``.

Where to read what (each file names the PyTorch file it mirrors):

    dataset.py      Dataset, TensorDataset, ConcatDataset, Subset, random_split
    sampler.py      Sampler, SequentialSampler, RandomSampler, WeightedRandomSampler, BatchSampler
    _collate.py     default_collate, default_convert (a list of samples -> a batch)
    dataloader.py   DataLoader (the three above, put together)
"""
from ._collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, WeightedRandomSampler

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "get_worker_info", "RandomSampler", "Sampler",
           "SequentialSampler", "Subset", "TensorDataset", "WeightedRandomSampler", "default_collate",
           "default_convert", "random_split"]
