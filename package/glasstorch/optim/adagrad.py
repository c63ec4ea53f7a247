"""``Adagrad``: each coordinate's step shrinks with the sum of its squared gradients so far.
Mirrors torch/optim/adagrad.py.

One step, for each parameter p with a gradient g (``_single_tensor_adagrad``)::

    t = t + 1
    g = -g                                   if maximize
    g = g + weight_decay * p                 if weight_decay != 0
    clr = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g                            ("sum", starting at initial_accumulator_value)
    p = p - clr * g / (sqrt(s) + eps)

Unlike the other optimizers, Adagrad creates its state for every parameter in ``__init__``.
Simplified: the single-tensor update only, no sparse or complex gradients, lr a number.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .._creation import full_like, tensor
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_implementation_flags, _get_scalar_dtype

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Implements the Adagrad algorithm (Duchi, Hazan and Singer, 2011)."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        _check_implementation_flags(foreach, fused, False, differentiable)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Tensor) -> None:
        state = self.state[p]
        state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])

    def _init_group(self, group: dict[str, Any], params: list, grads: list, state_sums: list,
                    state_steps: list) -> None:
        for p in group["params"]:
            if p.grad is not None:
                params.append(p)
                grads.append(p.grad)
                if len(self.state[p]) == 0:  # a param group added after __init__
                    self._init_state(p)
                state_sums.append(self.state[p]["sum"])
                state_steps.append(self.state[p]["step"])

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                params: list = []
                grads: list = []
                state_sums: list = []
                state_steps: list = []
                self._init_group(group, params, grads, state_sums, state_steps)
                adagrad(params, grads, state_sums, state_steps, lr=group["lr"], weight_decay=group["weight_decay"],
                        lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"])
        return loss


def adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor], state_steps: list[Tensor], *,
            lr: float, weight_decay: float, lr_decay: float, eps: float, maximize: bool) -> None:
    """Functional API that performs the Adagrad computation (PyTorch's ``_single_tensor_adagrad``)."""
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = step_t.item()
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.add_(grad * grad)  # addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.add_(grad / std, alpha=-clr)  # addcdiv_(grad, std, value=-clr)
