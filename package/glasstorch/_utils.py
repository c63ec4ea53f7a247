"""The functions a checkpoint calls to rebuild its tensors: ``_rebuild_tensor_v2`` and its family.

Mirrors the rebuild functions of ``torch/_utils.py`` (and ``_rebuild_from_type_v2`` of
``torch/_tensor.py``). The ``data.pkl`` of a checkpoint holds no tensors: it holds *calls*, "call
``torch._utils._rebuild_tensor_v2`` with storage 0, offset 0, size (16, 1), strides (1, 1)". Loading
makes those calls, with glasstorch's functions standing in for PyTorch's under the same names, so
this is the place where the numbers of a file become tensors. Every number comes from the file, and
is checked against the storage it points into before a view is made (PyTorch's ``set_`` does the
same check, with the message used here).

A tensor in PyTorch is a view of a **storage**: a flat run of elements, plus an offset, a size and
strides saying which elements, in what shape. glasstorch's tensors hold numpy arrays and need no
storage objects, so ``TypedStorage`` below exists for checkpoints only: on save it stands for the
memory behind one or more tensors, on load it is the flat array their views are cut from. Two
tensors that shared memory when they were saved share it again when they are loaded.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from ._tensor import Tensor, _wrap
from .nn.parameter import Parameter

MAX_DIMS = 64  # a tensor has at most this many dimensions (numpy's limit; PyTorch's is the same order)
MAX_INDEX = 2**63 - 1  # sizes, strides, offsets and element counts are int64 in PyTorch


class TypedStorage:
    """A flat run of elements of one dtype, which tensors view: ``torch.TypedStorage``, reduced to
    what a checkpoint needs. ``array`` is a one-dimensional numpy array of ``dtype``."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray, dtype: _dtypes.dtype) -> None:
        self.array = array
        self.dtype = dtype

    def size(self) -> int:
        """The number of elements (``TypedStorage.size()``; PyTorch's ``nbytes()`` is this times the itemsize)."""
        return self.array.size

    def __repr__(self) -> str:
        return f"TypedStorage(dtype={self.dtype!r}, size={self.size()})"


def _rebuild_tensor(storage: TypedStorage, storage_offset: int, size: Any, stride: Any) -> Tensor:
    """A tensor viewing ``storage``: its element at index ``(i_0, i_1, ...)`` is
    ``storage[storage_offset + i_0 * stride[0] + i_1 * stride[1] + ...]``. The view shares the
    storage's memory, so tensors rebuilt from one storage share memory, as they did when saved."""
    if type(storage) is not TypedStorage:
        raise RuntimeError(f"_rebuild_tensor: expected a storage, got {type(storage).__name__}")
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    offset = _int_tuple((storage_offset,), "storage offset")[0]
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: size {list(size)}, stride {list(stride)}")
    if len(size) > MAX_DIMS:
        raise RuntimeError(f"a tensor of {len(size)} dimensions: at most {MAX_DIMS} are supported")
    if math.prod(size) > MAX_INDEX:
        raise RuntimeError(f"a tensor of size {list(size)} has more than 2**63 - 1 elements")
    itemsize = storage.dtype.itemsize
    if 0 in size:  # no element is read: a fresh empty array (PyTorch checks nothing either)
        return _wrap(np.empty(size, dtype=storage.dtype.numpy_dtype))
    # The last element the view reaches, + 1: PyTorch's computeStorageNbytes, in elements.
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage.size():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {needed * itemsize} are out of bounds for storage of size "
            f"{storage.size() * itemsize}"
        )
    # (an ndarray over the storage's buffer: its .base is the storage's array, which is how saving
    # finds the memory two tensors share)
    view = np.ndarray(size, storage.dtype.numpy_dtype, buffer=storage.array, offset=offset * itemsize,
                      strides=tuple(s * itemsize for s in stride))
    return _wrap(view)


def _int_tuple(values: Any, what: str) -> tuple[int, ...]:
    """``values`` as a tuple of ints in [0, 2**63), or the RuntimeError of a damaged file."""
    if type(values) not in (tuple, list) or not all(type(v) is int and 0 <= v <= MAX_INDEX for v in values):
        text = repr(values)
        raise RuntimeError(f"invalid tensor {what}: {text if len(text) < 80 else text[:77] + '...'}")
    return tuple(values)


def _rebuild_tensor_v2(
    storage: TypedStorage,
    storage_offset: int,
    size: Any,
    stride: Any,
    requires_grad: bool,
    backward_hooks: Any,
    metadata: Any = None,
) -> Tensor:
    """What ``torch.save`` names for every tensor whose dtype has a typed storage: the view, then
    its ``requires_grad``. ``backward_hooks`` is an empty ``OrderedDict`` in every file PyTorch
    writes (hooks are never saved) and is ignored; ``metadata`` records PyTorch's conjugate and
    negative bits, which glasstorch does not have."""
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if type(requires_grad) is not bool:
        raise RuntimeError(f"invalid requires_grad: {requires_grad!r}")
    tensor.requires_grad = requires_grad  # (only floating-point tensors may: PyTorch's RuntimeError)
    _check_metadata(metadata)
    return tensor


def _rebuild_tensor_v3(
    storage: TypedStorage,
    storage_offset: int,
    size: Any,
    stride: Any,
    requires_grad: bool,
    backward_hooks: Any,
    dtype: _dtypes.dtype,
    metadata: Any = None,
) -> Tensor:
    """The same, for a storage of raw bytes (``torch.UntypedStorage``) read as ``dtype``. PyTorch
    writes it for the dtypes that have no typed storage (``uint16``, the float8 types ...)."""
    if type(storage) is not TypedStorage or storage.dtype is not _dtypes.uint8 or type(dtype) is not _dtypes.dtype:
        raise RuntimeError("_rebuild_tensor_v3 expects an untyped storage and a dtype")
    if storage.array.nbytes % dtype.itemsize:
        raise RuntimeError(f"a storage of {storage.array.nbytes} bytes cannot hold elements of {dtype.itemsize} bytes")
    typed = TypedStorage(storage.array.view(dtype.numpy_dtype), dtype)
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _check_metadata(metadata: Any) -> None:
    if metadata is None:
        return
    if type(metadata) is not dict or not all(type(k) is str and type(v) is bool for k, v in metadata.items()):
        raise RuntimeError(f"invalid tensor metadata: {metadata!r}"[:200])
    flags = sorted(k for k, v in metadata.items() if v)
    if flags:
        raise RuntimeError(f"the tensor has PyTorch's {' and '.join(flags)} bit set, which glasstorch does not have")


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Parameter:
    """``nn.Parameter(data, requires_grad)``: what ``Parameter.__reduce_ex__`` names."""
    if type(data) is not Tensor or type(requires_grad) is not bool:
        raise RuntimeError("_rebuild_parameter expects a tensor and a bool")
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any) -> Parameter:
    """A Parameter that carried Python attributes of its own."""
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func: Any, new_type: type, args: tuple, state: Any) -> Tensor:
    """A tensor of a subclass, or one with Python attributes (a buffer made by ``nn.Buffer`` carries
    ``persistent`` and ``_is_buffer``): rebuild the plain tensor with ``func``, then set the type and
    the attributes."""
    if not any(func is f for f in _TENSOR_REBUILD_FUNCTIONS) or type(args) is not tuple:
        raise RuntimeError("_rebuild_from_type_v2 expects a tensor rebuild function and a tuple of arguments")
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise RuntimeError(f"_rebuild_from_type_v2: {new_type!r} is not a tensor type")
    ret = func(*args)
    if type(ret) is not new_type:  # PyTorch: ret.as_subclass(new_type)
        requires_grad = ret.requires_grad
        ret = _wrap(ret._data, new_type)
        ret._requires_grad = requires_grad
    if "__setstate__" in dir(new_type):  # a subclass that restores its own state (Tensor does not define one)
        ret.__setstate__(state)
        return ret
    return _set_obj_state(ret, state)


def _set_obj_state(obj: Tensor, state: Any) -> Tensor:
    """Set the attributes saved with a tensor: ``state`` is its ``__dict__`` (or ``(__dict__,
    slots)``). Only attributes of the user's own may be set: a file cannot replace the tensor's data
    or autograd fields, nor shadow one of its methods."""
    dict_state, slots_state = state if type(state) is tuple and len(state) == 2 else (state, None)
    for part in (dict_state, slots_state):
        if part is None:
            continue
        if type(part) is not dict:
            raise RuntimeError(f"Invalid serialized state: {state!r}"[:200])
        for key, value in part.items():
            if type(key) is not str or is_tensor_internal(key):
                raise RuntimeError(f"a saved tensor attribute may not be named {key!r}")
            setattr(obj, key, value)
    return obj


def is_tensor_internal(name: str) -> bool:
    """Is ``name`` one of glasstorch's own attributes of a Tensor (its data, version counter, autograd
    fields, methods), rather than one a user set? Only the user's attributes are saved and restored."""
    return name.startswith("__") or name in ("_data", "_version_counter") or hasattr(Parameter, name)


_TENSOR_REBUILD_FUNCTIONS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
                             _rebuild_parameter_with_state)
