"""Smaller torch-level functions found missing by running the examples in PyTorch's own docstrings
(issue 14): ``asarray``, ``frombuffer``, ``empty_strided``, ``empty_permuted``, ``Tensor.dim_order``, ``can_cast``, ``is_nonzero``, ``poisson``. Mirrors ``torch/_tensor_docs``/
``_torch_docs`` entries implemented in ``aten/src/ATen/native/TensorConversions.cpp``,
``TypeProperties.cpp`` and ``Distributions.cpp``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from ._tensor import Tensor, _wrap


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """``obj`` as a tensor, sharing memory when it can: a tensor of the wanted dtype comes back
    itself (``copy=True`` forces a copy), a numpy array is shared as ``from_numpy`` shares it,
    anything else (lists, numbers) is copied as ``tensor`` would. ``requires_grad=None`` keeps the
    tensor's own; ``False`` gives a detached alias of a tensor that requires grad."""
    from ._creation import from_numpy, tensor

    wanted = None if dtype is None else dtypes.canonical(dtype)
    if isinstance(obj, Tensor) and requires_grad is None and obj.requires_grad:
        import warnings

        warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                      "Pass requires_grad=False explicitly to get the old behavior and silence this warning.",
                      UserWarning, stacklevel=2)
    if isinstance(obj, Tensor):
        result = obj if wanted is None or wanted is obj.dtype else obj.to(wanted)
        if copy and result is obj:
            result = obj.clone()
        if copy is False and result is not obj:
            raise ValueError("can't alias tensor from variable of type " + str(obj.dtype) + " to " + str(wanted)
                             + " without copying")
    elif isinstance(obj, np.ndarray) and not copy:
        result = from_numpy(obj)
        if wanted is not None and wanted is not result.dtype:
            result = result.to(wanted)
    else:
        result = tensor(obj, dtype=wanted)
    if requires_grad is False and result.requires_grad:
        result = result.detach()
    elif requires_grad and not result.requires_grad:
        result.requires_grad_(True)
    return result


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` without losing the kind of number:
    no floating -> integral, no non-bool -> bool (narrowing within a kind is allowed)."""
    source, target = dtypes.canonical(from_), dtypes.canonical(to)
    return _CATEGORY[np.dtype(source.numpy_dtype).kind] <= _CATEGORY[np.dtype(target.numpy_dtype).kind]


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor over the bytes of an object with the buffer protocol (a ``bytearray``, an
    ``array.array``, ...), sharing its memory: writing one changes the other."""
    target = dtypes.canonical(dtype)
    itemsize = np.dtype(target.numpy_dtype).itemsize
    available = memoryview(buffer).nbytes - offset
    if offset < 0 or offset >= memoryview(buffer).nbytes:
        raise ValueError(f"both buffer length ({memoryview(buffer).nbytes}) and offset ({offset}) must be greater "
                         f"than 0 (and offset smaller than the length)")
    if count < 0 and available % itemsize:
        raise ValueError(f"buffer length ({available} bytes) after offset ({offset} bytes) must be a multiple of "
                         f"element size ({itemsize})")
    from ._creation import from_numpy

    result = from_numpy(np.frombuffer(buffer, dtype=target.numpy_dtype, count=count, offset=offset))
    return result.requires_grad_() if requires_grad else result


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  **_: Any) -> Tensor:
    """An (uninitialised in PyTorch; zero-filled here) tensor laid out with the given strides over a
    storage just large enough for them."""
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    target = (dtypes.get_default_dtype() if dtype is None else dtypes.canonical(dtype)).numpy_dtype
    span = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = np.zeros(span, dtype=target)
    itemsize = np.dtype(target).itemsize
    values = np.lib.stride_tricks.as_strided(storage, size, tuple(s * itemsize for s in stride))
    result = _wrap(values)
    return result.requires_grad_() if requires_grad else result


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, device: Any = None,
                   requires_grad: bool = False, **_: Any) -> Tensor:
    """A tensor of logical shape ``size`` whose dims lie in memory in the order ``physical_layout``
    (the last one fastest): ``empty_permuted((N, C, H, W), (0, 2, 3, 1))`` is channels-last."""
    size, layout = tuple(int(n) for n in size), tuple(int(d) for d in physical_layout)
    if len(layout) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(layout)}")
    for index, d in enumerate(layout):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               f"index {index}).  NB: negative dims not currently supported; file an issue if you want it.")
    if len(set(layout)) != len(layout):
        raise RuntimeError("Duplicate dim not allowed")
    stride = [0] * len(size)
    step = 1
    for d in reversed(layout):
        stride[d] = step
        step *= max(size[d], 1)
    return empty_strided(size, stride, dtype=dtype, requires_grad=requires_grad)


def new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False, **_: Any) -> Tensor:
    """``empty_strided`` with this tensor's dtype unless another is given."""
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad)


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """Give the tensor a new shape in place, keeping its elements in row-major order: a smaller
    one keeps the first elements (sharing memory), a larger one gets new memory whose extra
    elements are zeros here (uninitialised in PyTorch). Refused for a tensor that requires grad."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    if any(int(n) < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    count = int(np.prod(shape, dtype=np.int64))
    flat = self._data.reshape(-1)
    if count <= flat.size and self._data.flags.c_contiguous:
        self._data = flat[:count].reshape(shape)  # the same memory, as PyTorch keeps its storage
    else:
        grown = np.zeros(count, dtype=self._data.dtype)
        kept = min(count, flat.size)
        grown[:kept] = flat[:kept]
        self._data = grown.reshape(shape)
    self._version_counter[0] += 1
    return self


def dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple:
    """The dims from the outermost to the innermost in memory: sorted by stride, largest first (ties
    keep their order). ``ambiguity_check=True`` refuses a layout with several valid orders (equal
    strides or dims of size 1). Simplified: PyTorch also takes a list of memory formats there."""
    strides = self.stride()
    if not isinstance(ambiguity_check, bool):
        raise NotImplementedError("dim_order(ambiguity_check=<memory formats>) is not implemented in glasstorch")
    if ambiguity_check:
        duplicate = any(earlier == later for earlier, later in zip(strides, strides[1:]))
        if duplicate or any(n == 1 for n in self.shape):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                               "memory formats.")
        if 0 in strides:  # an expanded dim could sit anywhere in memory
            raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor; more or fewer elements are ambiguous."""
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0] != 0)


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Counts drawn from Poisson(rate) for each rate in ``input`` (glasstorch's generator, so not
    PyTorch's numbers); same dtype as ``input``. Not differentiable (PyTorch: zero gradient)."""
    from .random import _generator_of

    if (input._data < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    # numpy's Poisson sampler on the generator's stream (random.Generator wraps only the draws the factories use)
    return _wrap(_generator_of(generator)._rng.poisson(input._data).astype(input._data.dtype))
