"""``Tensor``: a numpy array plus the story autograd needs to tell about it.

Mirrors ``torch/_tensor.py`` (the Python half of PyTorch's Tensor) and the attributes PyTorch's C++
half exposes. A learner's eight attributes:

    data           the values (here: a ``numpy.ndarray`` kept in ``_data``)
    dtype, shape, device
    requires_grad  should operations on this tensor be recorded for backward?
    grad           the gradient accumulated here by backward (leaves, or retain_grad())
    grad_fn        the Node that computed this tensor (None for a leaf)
    is_leaf        grad_fn is None

The arithmetic and shape methods (``__add__``, ``sum``, ``reshape`` ...) are the functions of
``glasstorch.ops`` bound as methods: see ``ops/_methods.py``.
"""
from __future__ import annotations

import builtins
import warnings
from collections import OrderedDict
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

from . import dtypes as _dtypes, storage as _storage
from ._autograd_state import _InferenceMode
from ._tensor_str import tensor_repr

if TYPE_CHECKING:  # autograd builds on Tensor; Tensor needs autograd only when backward() runs
    from .autograd.graph import Node


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``glasstorch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"glasstorch.Size({list(self)})"

    def __getitem__(self, key):
        result = tuple.__getitem__(self, key)
        return Size(result) if isinstance(key, slice) else result

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))


class device:
    """Where a tensor lives. glasstorch computes with numpy, so always on the CPU."""

    def __init__(self, type: str = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        name, _, number = str(type).partition(":")
        if name not in ("cpu", "cuda", "mps", "meta"):
            raise RuntimeError(f"Expected one of cpu, cuda, mps, meta device type at start of device string: {type}")
        self.type = name
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> "device":
        """``with torch.device('cpu'):``: the tensors made inside go to this device (PyTorch's
        DeviceContext). glasstorch has only the CPU, so another device is refused here."""
        _check_device(self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        pass


CPU = device("cpu")


def _check_device(where: Any) -> None:
    """glasstorch has only the CPU: say so clearly when code asks for a GPU."""
    if where is not None and device(where).type != "cpu":
        raise RuntimeError(
            f"glasstorch runs on the CPU only: this machine has no CUDA device for '{where}'. "
            "Leave the tensor on the CPU (or use real PyTorch on a machine with a GPU)."
        )


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, "_dtypes.dtype | None", builtins.bool]:
    """The arguments of ``to()`` (Tensor's and Module's) as ``(device, dtype, copy)``: PyTorch's
    ``torch._C._nn._parse_to``. Positionally: a dtype, a device (str, int or device), a tensor
    (its device and dtype), ``None`` for "keep it", a bool (non_blocking, ignored)."""
    where, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if arg is None or isinstance(arg, builtins.bool):
            continue  # None: keep the device (or the dtype); a bool: non_blocking
        if isinstance(arg, Tensor):  # (first: `tensor in (float, ...)` would compare elementwise)
            where, dtype = arg.device, arg.dtype
        elif isinstance(arg, _dtypes.dtype) or arg in (builtins.float, builtins.int, builtins.bool):
            dtype = arg
        elif isinstance(arg, (str, builtins.int, device)):
            where = f"cuda:{arg}" if isinstance(arg, builtins.int) else arg  # to(0) is the first GPU
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {args!r}")
    return where, (_dtypes.canonical(dtype) if dtype is not None else None), copy


# The version counter: a one-element list, [number of in-place changes]. Views share their base's
# list, so a change made through any of them is counted for all. (A list rather than a small class:
# every op creates one, and a list literal costs a fraction of a class instantiation.)
VersionCounter = list


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field to "
    "be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the "
    "non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)


class Tensor:
    """A multi-dimensional array that can record the operations made with it.

    ``glasstorch.Tensor(...)`` is PyTorch's legacy constructor: always float32. Prefer
    ``glasstorch.tensor(data)``, which infers the dtype.
    """

    # Defaults as class attributes: a new tensor sets only what differs, which keeps ops fast.
    grad_fn: Node | None = None
    _grad: "Tensor | None" = None
    _requires_grad = False
    _backward_hooks: dict | None = None  # a leaf's hooks (a non-leaf's live on its grad_fn)
    _retains_grad = False
    _is_inference = False  # made inside inference_mode()
    _post_accumulate_grad_hooks: dict | None = None  # a leaf's register_post_accumulate_grad_hook
    _grad_accumulator_ref = None  # weakref to this leaf's AccumulateGrad
    _base: "Tensor | None" = None  # the tensor this one is a view of
    _view_version = 0  # a view: the version of its memory when its grad_fn was made (ops/inplace.py)
    _creation_meta = None  # a view that may not be changed in place with grad mode on (ops/shape.py)
    output_nr = 0
    __array_priority__ = 1000  # numpy_scalar * tensor -> Tensor.__rmul__, not numpy's

    def __new__(cls, *args: Any) -> "Tensor":
        return _wrap(_legacy_data(args, np.float32), cls)

    # --- the eight attributes -----------------------------------------------------------
    @property
    def data(self) -> "Tensor":
        """The same values with no history: a new tensor sharing this one's memory. Changes made
        through it are invisible to autograd (prefer ``detach()``, which autograd watches)."""
        return _wrap(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and not value.dtype.is_floating_point:
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        if (value._data.shape, value._data.dtype) != (self._data.shape, self._data.dtype):
            self._grad_accumulator_ref = None  # its AccumulateGrad knew the old shape: the next op makes a new one (as PyTorch's set_data)
        self._data = value._data

    @property
    def dtype(self) -> _dtypes.dtype:
        return _dtypes._BY_NUMPY[self._data.dtype]

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @property
    def device(self) -> device:
        return CPU

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self._is_inference and not _InferenceMode.enabled:
            from .autograd.graph import INFERENCE_REQUIRES_GRAD_MESSAGE

            raise RuntimeError(INFERENCE_REQUIRES_GRAD_MESSAGE)
        self._requires_grad = builtins.bool(value)

    @property
    def grad(self) -> "Tensor | None":
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            # (backward(inputs=[non_leaf]) fills a non-leaf's .grad: then PyTorch does not warn)
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.name}' to a tensor with "
                    f"dtype '{self.dtype.name}'. The gradient must match the tensor's dtype."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    # --- shape and size -------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_normalize_dim(dim, self._data.ndim)]

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes of this tensor's elements (not of its whole storage)."""
        return self._data.size * self._data.itemsize

    def ndimension(self) -> int:
        return self._data.ndim

    def is_same_size(self, other: "Tensor") -> builtins.bool:
        return self._data.shape == other._data.shape

    def is_signed(self) -> builtins.bool:
        """Can the dtype hold negative numbers? (uint8 and bool cannot.)"""
        return self._data.dtype.kind not in "ub"

    def get_device(self) -> int:
        """-1: the CPU (a GPU tensor would give its index)."""
        return -1

    @property
    def is_cpu(self) -> builtins.bool:
        return True

    @property
    def _version(self) -> int:
        if self._is_inference:
            from .autograd.graph import INFERENCE_VERSION_MESSAGE

            raise RuntimeError(INFERENCE_VERSION_MESSAGE)
        return self._version_counter[0]

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_contiguous(self) -> bool:
        return builtins.bool(self._data.flags.c_contiguous)

    # --- storage and views (storage.py: numpy's base chain, offsets and strides, as PyTorch's) -
    def storage_offset(self) -> int:
        """How many elements into its storage this tensor's first element lies."""
        return _storage.storage_offset(self._data)

    def untyped_storage(self) -> "_storage.UntypedStorage":
        """The memory this tensor looks into, as bytes: the same object for a tensor and its views."""
        return _storage.untyped_storage(self._data)

    def data_ptr(self) -> int:
        """The address of the first element (a view's differs from its base's by offset * itemsize);
        0 for a tensor without elements, as in PyTorch."""
        return _storage.address(self._data) if self._data.size else 0

    def _is_view(self) -> builtins.bool:
        """Was this tensor made by a view op (``_base`` is the tensor whose memory it shows)?"""
        return self._base is not None

    def contiguous(self, memory_format: Any = None) -> "Tensor":
        """Itself if its memory is laid out row by row, else a row-by-row copy (recorded as
        ``CloneBackward0``, as in PyTorch): ``x.t().contiguous().view(-1)`` works."""
        if self._data.flags.c_contiguous:
            return self
        from .ops.conversion import clone

        return clone(self)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    # --- leaving the tensor world ---------------------------------------------------------
    def item(self) -> builtins.float | builtins.int | builtins.bool:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def numpy(self) -> np.ndarray:
        """The numpy array behind the tensor (shared memory, as in PyTorch). Refused for a tensor
        that requires grad while grad mode is on (numpy would bypass autograd); inside ``no_grad``
        (a custom Function's forward, say) it is allowed, as in PyTorch."""
        from .autograd.grad_mode import _GradMode

        if self._requires_grad and _GradMode.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __bool__(self) -> builtins.bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self._data.reshape(()))

    def __float__(self) -> builtins.float:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return builtins.float(self.item())

    def __int__(self) -> builtins.int:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return builtins.int(self.item())

    def __index__(self) -> builtins.int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    __hash__ = object.__hash__  # tensors are hashed by identity (== is elementwise)

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        dtype = self.dtype
        show_dtype = dtype not in (_dtypes.get_default_dtype(), _dtypes.int64, _dtypes.bool)
        return tensor_repr(
            self._data,
            dtype_name=repr(dtype),
            show_dtype=show_dtype,
            requires_grad=self._requires_grad and self.grad_fn is None,
            grad_fn_name=self.grad_fn.name() if self.grad_fn is not None else None,
        )

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # --- dtype and device conversions -------------------------------------------------------
    def type(self, dtype: Any = None) -> "str | Tensor":
        """With no argument: the legacy type string, ``'glasstorch.FloatTensor'``.
        With a dtype or such a string: the tensor converted to it."""
        if dtype is None:
            return f"glasstorch.{self.dtype.legacy_name}"
        if isinstance(dtype, str):
            dtype = _dtypes.from_type_string(dtype)
        return self.to(_dtypes.canonical(dtype))

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def to(self, *args: Any, **kwargs: Any) -> "Tensor":
        """``to(dtype)``, ``to(device)``, ``to(other_tensor)``, ``to(device, dtype)``; keywords
        ``dtype=``, ``device=``, ``copy=``, ``non_blocking=`` (ignored)."""
        where, dtype, copy = _parse_to(*args, **kwargs)
        _check_device(where)
        if dtype is None or dtype is self.dtype:
            return self.clone() if copy else self
        from .ops.conversion import to_dtype

        return to_dtype(self, dtype)

    def float(self) -> "Tensor":
        return self.to(_dtypes.float32)

    def double(self) -> "Tensor":
        return self.to(_dtypes.float64)

    def half(self) -> "Tensor":
        return self.to(_dtypes.float16)

    def bfloat16(self) -> "Tensor":
        return self.to(_dtypes.bfloat16)

    def long(self) -> "Tensor":
        return self.to(_dtypes.int64)

    def int(self) -> "Tensor":
        return self.to(_dtypes.int32)

    def short(self) -> "Tensor":
        return self.to(_dtypes.int16)

    def char(self) -> "Tensor":
        return self.to(_dtypes.int8)

    def byte(self) -> "Tensor":
        return self.to(_dtypes.uint8)

    def bool(self) -> "Tensor":
        return self.to(_dtypes.bool)

    def cpu(self) -> "Tensor":
        return self

    def share_memory_(self) -> "Tensor":
        """Move the storage to shared memory, for other processes (``torch.multiprocessing``).
        glasstorch runs in one process and has no shared storages: the tensor is returned as it is."""
        return self

    def is_shared(self) -> builtins.bool:
        """Is the storage in shared memory? Never in glasstorch (see ``share_memory_``)."""
        return False

    def cuda(self, device: Any = None, non_blocking: builtins.bool = False) -> "Tensor":
        _check_device("cuda" if device is None else f"cuda:{device}" if isinstance(device, builtins.int) else device)
        return self

    # --- autograd ---------------------------------------------------------------------------
    def requires_grad_(self, requires_grad: builtins.bool = True) -> "Tensor":
        if requires_grad and not self.dtype.is_floating_point:  # (PyTorch's wording differs from the setter's)
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.grad_fn is not None:
            return self  # a non-leaf requires grad already: PyTorch accepts this as a no-op
        self.requires_grad = requires_grad
        return self

    def detach(self) -> "Tensor":
        """The same data with no history: a new leaf that shares memory *and* the version
        counter, so autograd still notices in-place changes made through it."""
        result = _wrap(self._data)
        result._version_counter = self._version_counter
        return result

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return  # a leaf keeps its gradient anyway
        self._retains_grad = True
        self.grad_fn._retain_grad_ref = weakref.ref(self)

    @property
    def retains_grad(self) -> builtins.bool:
        return self._retains_grad

    def register_hook(self, hook: Callable[["Tensor"], "Tensor | None"]):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor
        replaces the gradient. Returns a handle whose ``remove()`` takes the hook away."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_prehook(hook)
        from .utils.hooks import RemovableHandle

        if self._backward_hooks is None:
            self._backward_hooks = OrderedDict()  # weak-referenceable, unlike a plain dict
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook: Callable[["Tensor"], None]):
        """Call ``hook(tensor)`` after backward has accumulated this leaf's ``.grad`` (an optimizer
        step can run there, gradient by gradient). Run by ``AccumulateGrad``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        from .utils.hooks import RemovableHandle

        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = OrderedDict()
        handle = RemovableHandle(self._post_accumulate_grad_hooks)
        self._post_accumulate_grad_hooks[handle.id] = hook
        return handle

    def is_inference(self) -> builtins.bool:
        """Was this tensor made inside ``inference_mode()``?"""
        return self._is_inference

    def backward(
        self,
        gradient: "Tensor | None" = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: "Sequence[Tensor] | Tensor | None" = None,
    ) -> None:
        """Compute the gradient of this tensor with respect to the graph's leaves."""
        from .autograd import backward  # (autograd builds on Tensor: imported when first needed)

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def __deepcopy__(self, memo: dict) -> "Tensor":
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
            )
        result = _wrap(self._data.copy(), type(self))
        result._requires_grad = self._requires_grad
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        result.__dict__.update({k: v for k, v in self.__dict__.items() if k not in result.__dict__})
        memo[id(self)] = result
        return result


# PyTorch sets torch.Tensor.__module__ = "torch", so type(t) prints <class 'torch.Tensor'>
Tensor.__module__ = "glasstorch"


def _legacy_data(args: tuple, np_dtype: Any) -> np.ndarray:
    """What the legacy constructors build: ``Tensor(data)`` or ``Tensor(*sizes)``, in one dtype."""
    if len(args) == 1 and not isinstance(args[0], (builtins.int, np.integer)):
        data = args[0]._data if isinstance(args[0], Tensor) else args[0]
        return np.array(data, dtype=np_dtype)
    if all(isinstance(a, (builtins.int, np.integer)) for a in args):
        return np.zeros(args if args else (0,), dtype=np_dtype)  # PyTorch leaves it uninitialised
    raise TypeError(f"new(): invalid arguments {args!r}: expected data or sizes")


class _LegacyTensorType(type):
    """``glasstorch.LongTensor`` and friends: PyTorch's old per-dtype tensor types. Calling one
    builds a tensor of that dtype; ``isinstance(t, glasstorch.LongTensor)`` checks the dtype."""

    dtype: _dtypes.dtype

    def __call__(cls, *args: Any) -> Tensor:
        return _wrap(_legacy_data(args, cls.dtype.numpy_dtype))

    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'glasstorch.{cls.__name__}'>"


LEGACY_TENSOR_TYPES = {
    d.legacy_name: _LegacyTensorType(d.legacy_name, (), {"dtype": d, "__module__": "glasstorch"})
    for d in _dtypes.ALL_DTYPES
}


def _wrap(data: np.ndarray, cls: type = Tensor) -> Tensor:
    """A new tensor around ``data``, with no history: the fast path every op uses."""
    tensor = object.__new__(cls)
    # numpy gives a scalar, not an array, for a function of a 0-d array (np.exp(np.array(1.0))):
    # a tensor always holds an array, which in-place ops can write into
    tensor._data = data if type(data) is np.ndarray else np.asarray(data)
    tensor._version_counter = [0]
    if _InferenceMode.enabled:
        tensor._is_inference = True
    return tensor


def _wrap_output(data: np.ndarray, grad_fn: Node | None, version_counter: VersionCounter | None = None) -> Tensor:
    """A tensor computed by ``grad_fn``: requires grad exactly when it has a grad_fn."""
    tensor = object.__new__(Tensor)
    tensor._data = data
    tensor._version_counter = version_counter if version_counter is not None else [0]
    if grad_fn is not None:
        tensor.grad_fn = grad_fn
        tensor._requires_grad = True
    elif _InferenceMode.enabled:
        tensor._is_inference = True
    return tensor


def _normalize_dim(dim: int, ndim: int) -> int:
    """A possibly negative dim as an index, with PyTorch's error when it is out of range."""
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim % ndim if ndim else 0


def is_tensor(obj: Any) -> builtins.bool:
    return isinstance(obj, Tensor)
