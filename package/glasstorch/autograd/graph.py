"""The autograd graph: ``Node`` (a ``grad_fn``), ``AccumulateGrad`` and saved tensors.

Mirrors ``torch/csrc/autograd/function.h`` (Node), ``accumulate_grad.cpp`` and
``saved_variable.cpp``, seen from Python as in ``torch/autograd/graph.py``.

Every operation on tensors that require grad records one Node. The Node's ``next_functions`` are
the Nodes that produced its inputs (an ``AccumulateGrad`` for a leaf that requires grad, ``None``
for an input that needs no gradient). The backward engine walks these edges from the output.

Simplified: a glasstorch Node has exactly one output, so an edge is just the Node; the
``(node, 0)`` pairs of ``next_functions`` are built only when you look at them.
"""
from __future__ import annotations

import itertools
import re
from collections import OrderedDict
import weakref
from typing import Any, Callable

import numpy as np

from .._tensor import Tensor, _wrap, _wrap_output
from .anomaly_mode import _AnomalyMode, forward_stack
from .grad_mode import _GradMode
from .saved_tensor_hooks import _hooks_stack, disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks  # noqa: F401


_sequence_numbers = itertools.count()

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class SavedTensor:
    """A tensor a Node keeps for its backward (PyTorch: ``SavedVariable``; from Python,
    ``grad_fn._raw_saved_self``).

    It remembers the tensor's version when it was saved, so an in-place change made later is
    caught when backward unpacks it. A Node that saves its own *output* keeps only the output's
    data, not the output tensor: the output points at the Node through ``grad_fn``, and a pointer
    back would make a reference cycle that only Python's slow garbage collector could free.
    A Python number is kept as it is (PyTorch wraps it in a 0-d tensor first).

    Inside ``autograd.graph.saved_tensors_hooks(pack, unpack)`` only ``pack(tensor)`` is kept,
    and ``unpack`` gives the tensor back in backward.
    """

    __slots__ = ("tensor", "data", "requires_grad", "version_counter", "saved_version", "is_output", "packed",
                 "unpack_hook", "grad_fn", "grad_accumulator")

    def __init__(self, value: Any, is_output: bool = False) -> None:
        self.is_output = is_output
        self.unpack_hook = None
        if not isinstance(value, Tensor):
            self.tensor, self.data, self.version_counter = None, value, None
            return
        if value._is_inference and not is_output:
            raise RuntimeError(INFERENCE_MESSAGE)
        if _hooks_stack:  # saved_tensors_hooks is active: keep only what pack returns
            pack_hook, self.unpack_hook = _hooks_stack[-1]
            self.packed = pack_hook(value)
            # and the tensor's place in the graph, which unpack's result is given back (as PyTorch's
            # SavedVariable does), so that a double backward still reaches what made the tensor
            self.grad_fn = None if is_output else value.grad_fn
            self.grad_accumulator = (grad_accumulator(value) if self.grad_fn is None and value._requires_grad
                                     and not is_output else None)
        self.tensor = None if is_output or self.unpack_hook else value
        self.data = None if self.unpack_hook else value._data
        # An output is saved by the Node that computes it, before that Node is attached to it: it
        # will require grad, so that its unpacked copy links back to the Node (double backward).
        self.requires_grad = True if is_output else value._requires_grad
        self.version_counter = value._version_counter
        self.saved_version = value._version_counter[0]

    def unpack(self, node: "Node") -> Any:
        """The saved tensor, checked: not freed by an earlier backward, not modified in place."""
        if self.version_counter is None:
            return self.data  # a number
        if self.unpack_hook is not None:
            return self._unpack_with_hook(node)
        if self.data is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        if self.version_counter[0] != self.saved_version:
            raise RuntimeError(self._modified_message(node))
        if not self.is_output:
            return self.tensor
        return _wrap_output(self.data, node if self.requires_grad else None, self.version_counter)

    def _unpack_with_hook(self, node: "Node") -> Any:
        """``unpack_hook(packed)``, checked as the tensor itself would be."""
        if self.packed is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        value = self.unpack_hook(self.packed)
        if self.version_counter[0] != self.saved_version:
            self.data, self.tensor = value._data, value  # (for the message)
            raise RuntimeError(self._modified_message(node))
        if self.is_output and self.requires_grad:
            return _wrap_output(value._data, node, self.version_counter)
        if self.grad_fn is not None:
            return _wrap_output(value._data, self.grad_fn, self.version_counter)
        if self.grad_accumulator is not None:  # a leaf that requires grad: gradients reach that leaf
            tensor = _wrap_output(value._data, None, self.version_counter)
            tensor._requires_grad = True
            tensor._grad_accumulator_ref = weakref.ref(self.grad_accumulator)
            return tensor
        return value

    def release(self) -> None:
        """Drop the tensor (after backward, unless retain_graph): unpack() now raises."""
        if self.version_counter is not None:
            self.tensor = self.data = None
            if self.unpack_hook is not None:
                self.packed = self.grad_fn = self.grad_accumulator = None

    def _modified_message(self, node: "Node") -> str:
        from ..dtypes import from_numpy_dtype

        shape = ", ".join(str(n) for n in self.data.shape)
        kind = from_numpy_dtype(self.data.dtype).legacy_name
        # as PyTorch: name the Node that (now) produces the modified tensor, without "Backward0"
        producer = node if self.is_output else self.tensor.grad_fn
        where = "" if producer is None else f", which is output 0 of {re.sub(r'Backward[0-9]*$', '', producer.name())},"
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [glasstorch.{kind} [{shape}]]{where} is at version "
            f"{self.version_counter[0]}; expected version {self.saved_version} instead. Hint: "
            + (ANOMALY_HINT if _AnomalyMode.enabled else ENABLE_ANOMALY_HINT)
        )


# PyTorch's hints at the end of the in-place error: which one depends on anomaly mode
ANOMALY_HINT = ("the backtrace further above shows the operation that failed to compute its gradient. The variable "
                "in question was changed in there or anywhere later. Good luck!")
ENABLE_ANOMALY_HINT = ("enable anomaly detection to find the operation that failed to compute its gradient, with "
                       "glasstorch.autograd.set_detect_anomaly(True, check_nan=False).")
INFERENCE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
# PyTorch's other two refusals of an inference tensor outside inference mode (VariableTypeManual.cpp,
# TensorImpl.h): inference tensors have no version counter, so an in-place change could not be seen
INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)
INFERENCE_REQUIRES_GRAD_MESSAGE = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
INFERENCE_VERSION_MESSAGE = "Inference tensors do not track version counter."


class SavedTensorList(tuple):
    """Several tensors a Node saves under one name, None where a place has no tensor (PyTorch:
    ``std::vector<SavedVariable>``, as in IndexBackward0's ``indices_``)."""

    def unpack(self, node: "Node") -> tuple:
        return tuple(None if saved is None else saved.unpack(node) for saved in self)

    def release(self) -> None:
        for saved in self:
            if saved is not None:
                saved.release()


class Node:
    """A backward function: the ``grad_fn`` of a tensor computed by an operation.

    Subclasses are named as PyTorch names them (``MulBackward0``), implement
    ``backward(grad) -> tuple`` with one gradient (or None) per input edge, and declare what they
    save as class attributes, named as PyTorch's generated ``Functions.h`` names them: a name that
    ends in ``_`` holds a ``SavedTensor`` (``self_``, ``other_``, ``result_``), any other a plain
    value (``alpha``, ``dim``, ``self_sym_sizes``). Python sees each as ``_saved_<name>``
    (``grad_fn._saved_self``, ``grad_fn._saved_alpha``), as in PyTorch.
    """

    __slots__ = ("_next", "_sequence_nr", "_input_metadata", "__weakref__", "__dict__")

    # Hooks are rare: class-level None until one is registered (then an OrderedDict {id: fn}).
    _tensor_pre_hooks: dict | None = None  # the output tensor's hooks (tensor.register_hook)
    _retain_grad_ref: Any = None  # weakref to the output tensor if it called retain_grad()
    _pre_hooks: dict | None = None  # the Node's own pre-hooks (grad_fn.register_prehook)
    _post_hooks: dict | None = None  # the Node's post-hooks (grad_fn.register_hook)
    _anomaly_trace: list | None = None  # anomaly mode: the stack of the forward call that made this Node

    _declared_fields: tuple = ()  # every saved name this class declares (set by __init_subclass__)
    _declared_tensors: tuple = ()  # those of them that hold a SavedTensor

    def __init__(self, *inputs: Any) -> None:
        # one edge per input: the producer's Node, a leaf's AccumulateGrad, or None
        self._next = tuple(map(gradient_edge, inputs))
        self._sequence_nr = next(_sequence_numbers)
        self._input_metadata = None  # the output's (shape, dtype), recorded by set_history
        if _AnomalyMode.enabled:
            self._anomaly_trace = forward_stack()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # the saved state a class declares: its public annotated names, its bases' first
        declared = []
        for klass in reversed(cls.__mro__[:cls.__mro__.index(Node)]):
            declared += [name for name in vars(klass).get("__annotations__", {}) if not name.startswith("_")]
        cls._declared_fields = tuple(dict.fromkeys(declared))
        cls._declared_tensors = tuple(name for name in cls._declared_fields if name.endswith("_"))
        for name in cls._declared_fields:
            if not hasattr(cls, name):
                setattr(cls, name, None)  # not saved (yet): reads as None, as in PyTorch
            public = "_saved_" + name.rstrip("_")
            if public not in vars(cls):
                setattr(cls, public, property(_saved_getter(name)))

    # --- what a learner inspects -----------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        return tuple((node, 0) for node in self._next)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    def __getattr__(self, name: str) -> Any:
        # grad_fn._raw_saved_self: the SavedTensor itself, as PyTorch exposes it
        if name.startswith("_raw_saved_") and name[11:] + "_" in type(self)._declared_fields:
            return getattr(self, name[11:] + "_")
        raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")

    # --- saving tensors for backward -------------------------------------------------------
    def named_saved_tensors(self) -> list:
        """``(name, SavedTensor)`` for every tensor this Node saved (for pictures)."""
        named = []
        for name in type(self)._declared_fields:
            value = getattr(self, name) if name.endswith("_") else None
            if type(value) is SavedTensorList:
                named += [(name, saved) for saved in value if saved is not None]
            elif value is not None:
                named.append((name, value))
        return named

    def release_variables(self) -> None:
        """Free what was saved: called by the engine after backward unless retain_graph=True."""
        for name in self._declared_tensors:
            saved = getattr(self, name)
            if saved is not None:
                saved.release()  # unpack() now raises the second-backward error

    # --- the backward computation ----------------------------------------------------------
    def backward(self, grad: "Tensor") -> tuple:
        raise NotImplementedError(f"{self.name()} does not implement backward")

    def needs_input_grad(self, i: int) -> bool:
        """Does edge ``i`` lead anywhere? (PyTorch: ``should_compute_output(i)``.)"""
        return self._next[i] is not None

    def __call__(self, grad: "Tensor") -> tuple:
        """``grad_fn(grad)`` runs this Node's backward by hand, as in PyTorch."""
        return self.backward(grad)

    # --- hooks ----------------------------------------------------------------------------
    def _register_tensor_prehook(self, fn: Callable) -> Any:
        """A hook of the output *tensor* (``tensor.register_hook``): called with its gradient
        before ``backward`` runs; a returned tensor replaces the gradient."""
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = OrderedDict()  # weak-referenceable, unlike a plain dict
        return _add_hook(self._tensor_pre_hooks, fn)

    def register_prehook(self, fn: Callable) -> Any:
        """PyTorch's Node pre-hook: ``fn(grad_outputs)`` gets a tuple of gradients (here: one)
        and may return a replacement tuple. It runs after the tensor's hooks."""
        if self._pre_hooks is None:
            self._pre_hooks = OrderedDict()
        return _add_hook(self._pre_hooks, fn)

    def register_hook(self, fn: Callable) -> Any:
        """PyTorch's Node post-hook: ``fn(grad_inputs, grad_outputs)`` after this Node's backward,
        with the gradients it computed for its inputs and the one it received; a returned tuple
        replaces the gradients passed on. (The legacy module backward hook is one of these.)"""
        if self._post_hooks is None:
            self._post_hooks = OrderedDict()
        return _add_hook(self._post_hooks, fn)


def _saved_getter(name: str) -> Callable[[Node], Any]:
    """How ``_saved_<name>`` reads a declared field: a SavedTensor is unpacked (and checked)."""
    def get(node: Node) -> Any:
        value = getattr(node, name)
        return value.unpack(node) if type(value) is SavedTensor or type(value) is SavedTensorList else value
    return get


def _add_hook(hooks: dict, fn: Callable) -> Any:
    from ..utils.hooks import RemovableHandle

    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class AccumulateGrad(Node):
    """The Node at a leaf that requires grad: adds the incoming gradient into ``leaf.grad``.

    It points at its leaf ("variable"); the leaf points back only weakly (see ``gradient_edge``),
    so there is no reference cycle. The engine runs it before any other ready Node.
    """

    __slots__ = ("variable",)

    def __init__(self, variable: "Tensor") -> None:
        self._next = ()
        self._sequence_nr = float("inf")  # PyTorch: UINT64_MAX, the highest priority
        self._input_metadata = variable._data.shape, variable._data.dtype  # (a new leaf shape gets a new Node)
        self.variable = variable

    @property
    def _tensor_pre_hooks(self) -> dict | None:
        # A leaf's hooks live on the leaf, which outlives this Node: the engine reads them here.
        return self.variable._backward_hooks

    def _register_tensor_prehook(self, fn: Callable) -> Any:
        return self.variable.register_hook(fn)

    def backward(self, grad: "Tensor") -> tuple:
        variable = self.variable
        if variable._grad is None:
            variable._grad = grad if grad._requires_grad else _owned(grad, variable)
        elif grad._requires_grad or variable._grad._requires_grad or variable._grad._data.shape != grad._data.shape:
            variable._grad = variable._grad + grad  # create_graph: keep the history (or PyTorch's size error)
        else:
            variable._grad._data += grad._data  # accumulate in place, as PyTorch does
        if variable._post_accumulate_grad_hooks:  # register_post_accumulate_grad_hook: once .grad is final
            for hook in tuple(variable._post_accumulate_grad_hooks.values()):
                hook(variable)
        return ()


def _owned(grad: "Tensor", variable: "Tensor") -> "Tensor":
    """The gradient as a tensor that ``.grad`` may own and later change in place, laid out in
    memory as its variable is (PyTorch's "layout contract", ``accumulate_grad.h``).

    The engine never hands one gradient array to two consumers, so it is kept as it is unless it
    is read-only (a broadcast from ``expand``) or laid out differently: the gradient of a Linear
    layer's weight arrives transposed, and is copied into the weight's own layout, so that
    ``weight.grad.is_contiguous()`` and the optimizer's arithmetic on the two runs in memory order."""
    data = grad._data
    if data.flags.writeable and _same_layout(data, variable._data):
        return grad
    owned = np.empty_like(variable._data)  # the variable's layout (numpy keeps a dense array's order)
    owned[...] = data
    return _wrap(owned)


def _same_layout(a: np.ndarray, b: np.ndarray) -> bool:
    """Same strides, ignoring the dims of size 1 (any stride walks those the same way)."""
    if a.strides == b.strides:  # the common case, answered without a loop
        return True
    return all(n == 1 or x == y for n, x, y in zip(a.shape, a.strides, b.strides))


# --- how an operation joins the graph (torch/csrc/autograd/functions/utils.h) ------------------

def compute_requires_grad(*inputs: Any) -> bool:
    """Should this op record a Node? Only when grad mode is on and some input requires grad."""
    if not _GradMode.enabled:
        return False
    for value in inputs:
        if getattr(value, "_requires_grad", False):
            return True
    return False


def set_history(out: "Tensor", node: Node) -> "Tensor":
    """Make ``node`` the ``grad_fn`` of ``out``: ``out`` is now a non-leaf that requires grad.
    The Node remembers the shape and dtype of ``out``, which every gradient reaching it must have
    (PyTorch's ``add_input_metadata``: the engine sums a broadcast gradient back to this shape)."""
    node._input_metadata = out._data.shape, out._data.dtype
    out.grad_fn = node
    out._requires_grad = True
    return out


def gradient_edge(value: Any) -> Node | None:
    """Where the gradient of ``value`` must flow: its grad_fn, its AccumulateGrad, or nowhere."""
    if type(value) is float or type(value) is int:
        return None  # a Python number (the most common non-tensor input, checked first: it is cheap)
    if getattr(value, "_base", None) is not None and value._view_version != value._version_counter[0]:
        from ..ops.shape import regenerate_grad_fn  # a view whose memory changed in place since its grad_fn was made

        regenerate_grad_fn(value)
    grad_fn = getattr(value, "grad_fn", None)
    if grad_fn is not None:
        return grad_fn
    if getattr(value, "_requires_grad", False):
        return grad_accumulator(value)
    return None


def grad_accumulator(leaf: "Tensor") -> AccumulateGrad:
    """The leaf's one AccumulateGrad, made on first use and shared by every op that uses the leaf."""
    ref = leaf._grad_accumulator_ref
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._grad_accumulator_ref = weakref.ref(node)
    return node
