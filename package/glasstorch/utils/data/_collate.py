"""Collation: turning a list of samples into one batch. Mirrors ``torch/utils/data/_utils/collate.py``.

``default_collate`` looks at the first sample and recurses into its structure:

    Tensor                 -> stack(batch): a new first dimension, the batch
    numpy array            -> tensors, stacked
    numpy scalar           -> a tensor of its dtype
    float / int / bool     -> float64 / int64 / bool tensor (Python numbers are 64-bit, so are these)
    str / bytes            -> left as a list
    dict (Mapping)         -> the same keys, each value collated across the batch
    namedtuple             -> the same namedtuple, each field collated
    tuple / list           -> a list (PyTorch turns tuples into lists), each position collated

``collate_fn_map`` is PyTorch's registry: a type maps to the function that collates it, so a user
can teach ``default_collate`` a new type. ``default_convert`` is what the DataLoader uses without
batching (``batch_size=None``): numpy arrays become tensors, nothing is stacked.
"""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any, Callable, Sequence

import numpy as np

from ..._creation import as_tensor, from_numpy, tensor
from ..._tensor import Tensor
from ...dtypes import float64
from ...ops.shape import stack

# numpy dtypes with no tensor counterpart: bytes (S, a), unicode (U), Python objects (O)
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_convert(data: Any) -> Any:
    """Numpy arrays and scalars inside ``data`` become tensors; everything else is left as it is."""
    data_type = type(data)
    if isinstance(data, Tensor):
        return data
    if data_type.__module__ == "numpy" and data_type.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return data_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as in PyTorch (backwards compatibility)
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch: Sequence, *, collate_fn_map: dict | None = None) -> Any:
    """Collate ``batch`` by the type of its first element: a registered type's function, else
    recurse into mappings and sequences, else TypeError."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:  # in insertion order: the first matching base class wins
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # each position's samples arrive as a tuple: strings inside a sample come back as a tuple, as in PyTorch
        collated = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return collated  # a list, as in PyTorch (backwards compatibility)
        return _rebuild_sequence(elem, collated)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _rebuild_mapping(like: collections.abc.Mapping, values: dict) -> Any:
    """A mapping of ``like``'s type holding ``values`` (a copy keeps e.g. a defaultdict's factory),
    or a plain dict when that type cannot be built this way."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(values)
            return clone
        return type(like)(values)
    except TypeError:
        return values


def _rebuild_sequence(like: collections.abc.Sequence, items: list) -> Any:
    """A sequence of ``like``'s type holding ``items``, or a plain list when that fails."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


# --- the functions default_collate registers, one per leaf type ---------------------------------
def collate_tensor_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return stack(batch, 0)


def collate_numpy_array_fn(batch: list, *, collate_fn_map: dict | None = None) -> Any:
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    # np.asarray keeps the scalars' dtype (a batch of np.int32 stays int32, as in PyTorch)
    return from_numpy(np.asarray(batch))


def collate_float_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return tensor(batch, dtype=float64)


def collate_int_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return tensor(batch)  # int64; bools (a subclass of int) give a bool tensor


def collate_str_fn(batch: list, *, collate_fn_map: dict | None = None) -> list:
    return batch


# Insertion order matters: np.float64 is a subclass of float and must meet the numpy entry first.
default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: list) -> Any:
    """Put a list of samples together into a batch with an outer batch dimension (see the module docstring)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
