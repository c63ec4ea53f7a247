"""``autograd.Function``: write your own op with a forward and a backward.

Mirrors ``torch/autograd/function.py``. ``MyOp.apply(*args)`` runs ``MyOp.forward(ctx, *args)``
without recording, then (if an input requires grad) attaches a ``MyOpBackward`` Node to the
result; backward calls ``MyOp.backward(ctx, grad)``. As in PyTorch, ``ctx`` *is* that Node.

Simplified: the forward returns one tensor (PyTorch also allows several).
"""
from __future__ import annotations

from typing import Any

from .grad_mode import no_grad, _GradMode
from .graph import Node


class BackwardCFunction(Node):
    """The Node (and ``ctx``) of a user-defined Function."""

    _forward_cls: type

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

    def save_for_backward(self, *tensors: Any) -> None:  # noqa: D102 - PyTorch's ctx API
        super().save_for_backward(*tensors)

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    def mark_dirty(self, *tensors: Any) -> None:
        pass  # glasstorch's in-place bookkeeping happens in the in-place ops themselves

    def backward(self, grad: Any) -> tuple:
        grads = self._forward_cls.backward(self, grad)
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

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from .._tensor import Tensor, _wrap

        recording = _GradMode.enabled and any(getattr(a, "_requires_grad", False) for a in args)
        ctx = cls._backward_cls(*args)
        with no_grad():
            output = cls.forward(ctx, *args, **kwargs)
        if not isinstance(output, Tensor):
            raise TypeError(f"glasstorch's Function.forward must return one Tensor, got {type(output).__name__}")
        if not recording:
            return output
        if any(output is a for a in args):
            output = _wrap(output._data)  # returning an input as it is: PyTorch returns a view
        if output in ctx._non_differentiable or not output.dtype.is_floating_point:
            return output
        output.grad_fn, output._requires_grad = ctx, True
        return output


class FunctionCtx:
    """The type of ``ctx`` for type hints (in glasstorch, ctx is the Node itself)."""
