"""Storage: the flat run of bytes a tensor and all its views look into.

Mirrors ``torch/storage.py`` (``UntypedStorage``) and the storage half of ``c10/core/TensorImpl.h``
(``storage_offset``, ``data_ptr``). A PyTorch tensor is a *window* over a storage: an offset, a
size and strides (in elements) say which elements it shows, in what shape. A view (``t()``,
``x[0]``, ``view``, ``expand`` ...) is a new window over the same storage.

glasstorch keeps no storage objects of its own: a numpy array is such a window already. Its
``.base`` chain ends at the array that owns the memory (the *root*); that root's buffer is the
storage, the array's byte distance from the root's first byte is the storage offset, and numpy's
``strides`` (in bytes) divided by the item size are PyTorch's strides.
"""
from __future__ import annotations

import weakref
from typing import Any, Iterator

import numpy as np


def storage_root(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory: follow ``.base`` (numpy's stride tricks put a
    small ``DummyArray`` in the chain; it has a ``.base`` too) to the last ndarray."""
    root, link = array, array.base
    while link is not None:
        if isinstance(link, np.ndarray):
            root = link
        link = getattr(link, "base", None)
    return root


def address(array: np.ndarray) -> int:
    """The address of the array's first element (PyTorch's ``data_ptr()``)."""
    return array.__array_interface__["data"][0]


def storage_bytes(array: np.ndarray) -> np.ndarray:
    """The root's memory as a flat uint8 array (a view, not a copy)."""
    root = storage_root(array)
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise RuntimeError("glasstorch: this tensor's memory is not one contiguous block (a numpy array it was made from "
                           "is itself a strided view); make a copy with .clone() first")
    return root.reshape(-1, order="A").view(np.uint8)  # (a contiguous array reshapes without copying)


def storage_offset(array: np.ndarray) -> int:
    """How many elements into its storage the array's first element lies."""
    return (address(array) - address(storage_root(array))) // array.itemsize


def contiguous_strides(shape: tuple) -> tuple:
    """The strides of a tensor of ``shape`` laid out row by row (PyTorch's ``contiguous_strides``
    in ``c10/util/strides.h``): the last dim steps 1 element, each dim before it steps over one
    whole row of the dims after it. A size-0 dim counts as 1, as in PyTorch."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def element_strides(array: np.ndarray) -> tuple:
    """numpy's byte strides as PyTorch's element strides. numpy gives a new array without
    elements zero strides; PyTorch gives it the contiguous ones."""
    if array.size == 0 and array.base is None:
        return contiguous_strides(array.shape)
    return tuple(step // array.itemsize for step in array.strides)


def strided_window(array: np.ndarray, size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """A new window over ``array``'s storage: ``size`` and ``stride`` in elements, starting
    ``offset`` elements in (PyTorch's ``as_strided``). Refuses to reach past the storage's end,
    with the message of PyTorch's ``setStorage`` check."""
    memory = storage_bytes(array)
    itemsize = array.itemsize
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed * itemsize > memory.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize {itemsize} "
            f"requiring a storage size of {needed * itemsize} are out of bounds for storage of size {memory.size}")
    return np.ndarray(size, array.dtype, buffer=memory, offset=offset * itemsize if needed else 0,
                      strides=tuple(s * itemsize for s in stride))


_storages: "weakref.WeakValueDictionary[int, UntypedStorage]" = weakref.WeakValueDictionary()


def untyped_storage(array: np.ndarray) -> "UntypedStorage":
    """The one storage object of ``array``'s memory: a tensor and its views get the same object,
    as in PyTorch (which keeps one Python object per storage)."""
    root = storage_root(array)
    storage = _storages.get(id(root))
    if storage is None or storage._root is not root:
        storage = _storages[id(root)] = UntypedStorage(root)
    return storage


class UntypedStorage:
    """``torch.UntypedStorage``: a tensor's memory as bytes. Indexing gives a byte as an int;
    writing a byte changes every tensor that looks into this storage."""

    def __init__(self, root: np.ndarray) -> None:
        self._root = root  # keeps the memory alive (and with it, this object's entry in _storages)
        self._bytes = storage_bytes(root)

    def data_ptr(self) -> int:
        return address(self._root) if self._bytes.size else 0

    def nbytes(self) -> int:
        return self._bytes.size

    def size(self) -> int:
        return self._bytes.size

    def __len__(self) -> int:
        return self._bytes.size

    def element_size(self) -> int:
        return 1

    @property
    def device(self) -> Any:
        from ._tensor import CPU

        return CPU

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return UntypedStorage(self._bytes[index].copy())  # (PyTorch: a storage sharing memory)
        return int(self._bytes[index])

    def __setitem__(self, index: Any, value: int) -> None:
        self._bytes[index] = value

    def __iter__(self) -> Iterator[int]:
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._bytes.tolist()

    def __repr__(self) -> str:
        lines = "".join(f" {b}\n" for b in self._bytes.tolist())
        return f"{lines}[glasstorch.storage.UntypedStorage(device=cpu) of size {self._bytes.size}]"
