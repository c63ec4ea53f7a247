"""``Adadelta``: an adaptive step whose units match the parameter's, from running averages of
squared gradients and of squared updates. Mirrors torch/optim/adadelta.py.

One step, for each parameter p with a gradient g (``_single_tensor_adadelta``)::

    g = -g                                          if maximize
    g = g + weight_decay * p                        if weight_decay != 0
    v = rho * v + (1 - rho) * g * g                 ("square_avg")
    delta = sqrt(u + eps) / sqrt(v + eps) * g       u: "acc_delta", the running mean of delta²
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta

Simplified: the single-tensor update only, no complex gradients, lr a number.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .._creation import zeros, zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_implementation_flags, _get_scalar_dtype

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Implements the Adadelta algorithm (Zeiler, 2012)."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_implementation_flags(foreach, None, capturable, differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group: dict[str, Any], params: list, grads: list, square_avgs: list, acc_deltas: list,
                    state_steps: list) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization
                state["step"] = zeros((), dtype=_get_scalar_dtype())
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])

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
                square_avgs: list = []
                acc_deltas: list = []
                state_steps: list = []
                self._init_group(group, params, grads, square_avgs, acc_deltas, state_steps)
                adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"], rho=group["rho"],
                         eps=group["eps"], weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def adadelta(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor], acc_deltas: list[Tensor],
             state_steps: list[Tensor], *, lr: float, rho: float, eps: float, weight_decay: float,
             maximize: bool) -> None:
    """Functional API that performs the Adadelta computation (PyTorch's ``_single_tensor_adadelta``)."""
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(rho).add_((1 - rho) * grad * grad)  # addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).add_((1 - rho) * delta * delta)  # addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)
