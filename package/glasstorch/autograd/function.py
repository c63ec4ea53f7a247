"""``autograd.Function``: write your own op with a forward and a backward.

Mirrors ``torch/autograd/function.py``. ``MyOp.apply(*args)`` runs ``MyOp.forward(ctx, *args)``
without recording, then (if an input requires grad) attaches a ``MyOpBackward`` Node to the
result; backward calls ``MyOp.backward(ctx, grad)``. As in PyTorch, ``ctx`` *is* that Node.

Simplified: a glasstorch Node has one output, so of the tensors ``forward`` returns, only one may
be differentiable; mark the others with ``ctx.mark_non_differentiable`` (sort's indices, say).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .grad_mode import no_grad, _GradMode
from .graph import SECOND_BACKWARD_MESSAGE, Node, SavedTensor


class BackwardCFunction(Node):
    """The Node (and ``ctx``) of a user-defined Function. What ``ctx.save_for_backward`` keeps is
    a tuple of SavedTensors, freed after backward like any Node's saved tensors."""

    _forward_cls: type
    _saved: tuple | None = ()  # None once backward has freed them

    def __init__(self, *inputs: Any) -> None:
        # as in PyTorch, only tensor arguments get an edge; ``backward`` returns one gradient per
        # argument, so remember where the tensors were
        self._tensor_positions = tuple(i for i, value in enumerate(inputs) if hasattr(value, "_data"))
        super().__init__(*(inputs[i] for i in self._tensor_positions))
        edges = dict(zip(self._tensor_positions, self._next))
        self.needs_input_grad = tuple(edges.get(i) is not None for i in range(len(inputs)))
        self.materialize_grads = True
        self._non_differentiable = ()

    def __repr__(self) -> str:
        return f"<glasstorch.autograd.function.{self.name()} object at {hex(id(self))}>"

    def save_for_backward(self, *tensors: Any) -> None:
        """PyTorch's ctx API: keep tensors (or None) for backward, checked when read back."""
        self._saved = tuple(SavedTensor(tensor) for tensor in tensors)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, each checked: not freed, not modified in place."""
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        return tuple(saved.unpack(self) for saved in self._saved)

    def release_variables(self) -> None:
        super().release_variables()
        for saved in self._saved or ():
            saved.release()
        self._saved = None

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    def mark_dirty(self, *tensors: Any) -> None:
        """Say which inputs ``forward`` changed in place: they now come from this Node (``apply``)."""
        self._dirty = tensors

    _dirty: tuple = ()
    _outputs: tuple = ((), 0)  # (each output's (shape, dtype) or None, the differentiable one's index)

    def _grad_outputs(self, grad: Any) -> tuple:
        """One gradient per output of forward: ``grad`` for the differentiable one; for the others,
        zeros (or None after ``ctx.set_materialize_grads(False)``)."""
        from .._creation import zeros

        metadata, index = self._outputs
        if len(metadata) <= 1:
            return (grad,)
        return tuple(grad if i == index else None if meta is None or not self.materialize_grads
                     else zeros(meta[0], dtype=meta[1]) for i, meta in enumerate(metadata))

    def backward(self, grad: Any) -> tuple:
        grads = self._forward_cls.backward(self, *self._grad_outputs(grad))
        if not isinstance(grads, tuple):
            grads = (grads,)
        expected = len(self.needs_input_grad)
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected {expected}, got {len(grads)})"
            )
        return tuple(grads[i] if edge is not None else None for i, edge in zip(self._tensor_positions, self._next))


class Function:
    """Subclass with ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` static methods,
    and call ``YourFunction.apply(*args)``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # PyTorch's FunctionMeta makes the Node class at class creation: MyOp -> MyOpBackward
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,), {"_forward_cls": cls})

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        """Override it to write ``forward(*args)`` without ctx: ``apply`` then calls
        ``setup_context(ctx, inputs, output)`` to save what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        recording = _GradMode.enabled and any(getattr(a, "_requires_grad", False) for a in args)
        ctx = cls._backward_cls(*args)
        with no_grad():
            if cls.setup_context is not Function.setup_context:  # forward without ctx
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not recording:
            return output
        outputs = output if isinstance(output, tuple) else (output,)
        results = _wrap_outputs(ctx, args, outputs)
        return results if isinstance(output, tuple) else results[0]


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs: tuple) -> tuple:
    """Connect forward's outputs to ``ctx`` (PyTorch's ``_wrap_outputs``): the differentiable one
    gets ``grad_fn = ctx``; an input returned as it is becomes a view; an input marked dirty is
    the same tensor, now with this history (``mark_dirty``)."""
    from .._tensor import Tensor, _wrap

    differentiable = [i for i, out in enumerate(outputs)
                      if isinstance(out, Tensor) and out.dtype.is_floating_point
                      and not any(out is other for other in ctx._non_differentiable)]
    if len(differentiable) > 1:
        raise NotImplementedError(
            f"{ctx._forward_cls.__name__}.forward returned {len(differentiable)} differentiable tensors: glasstorch's "
            "Nodes have one output, so a Function may return only one (mark the others with "
            "ctx.mark_non_differentiable).")
    ctx._outputs = (tuple((out._data.shape, out.dtype) if isinstance(out, Tensor) else None for out in outputs),
                    differentiable[0] if differentiable else 0)
    results = []
    for i, out in enumerate(outputs):
        if isinstance(out, Tensor):
            if any(out is dirty for dirty in ctx._dirty):
                if out.grad_fn is None and out._requires_grad:
                    raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
                out._version_counter[0] += 1
            elif any(out is a for a in args):
                out = _wrap(out._data)  # returning an input as it is: PyTorch returns a view
            if i in differentiable:
                out.grad_fn, out._requires_grad = ctx, True
        results.append(out)
    return tuple(results)


class Error(Node):
    """The Node put after a ``@once_differentiable`` backward run under ``create_graph``:
    differentiating through it raises. PyTorch's ``DelayedError`` makes it
    (``torch/csrc/autograd/functions/basic_ops.h``); a tensor prints it as ``grad_fn=<Error>``
    (its ``name()`` there is ``torch::autograd::Error``)."""

    def __init__(self, message: str, *inputs: Any) -> None:
        super().__init__(*inputs)
        self.message = message

    def backward(self, grad: Any) -> tuple:
        raise RuntimeError(self.message)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a ``backward`` that is not itself differentiable: it runs under ``no_grad``, and
    a double backward through it raises instead of giving a silently wrong answer."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        from .graph import set_history

        with no_grad():
            outputs = fn(ctx, *args)
        if not _GradMode.enabled or not any(getattr(arg, "_requires_grad", False) for arg in args):
            return outputs
        message = "trying to differentiate twice a function that was marked with @once_differentiable"
        results = []
        for out in (outputs if isinstance(outputs, tuple) else (outputs,)):
            if out is not None:
                out = set_history(out.detach(), Error(message, *args))
            results.append(out)
        return tuple(results) if isinstance(outputs, tuple) else results[0]

    return wrapper


class FunctionCtx:
    """The type of ``ctx`` for type hints (in glasstorch, ctx is the Node itself)."""
