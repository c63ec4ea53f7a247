"""``RMSprop``: divide the gradient by a running root-mean-square of its recent values.
Mirrors torch/optim/rmsprop.py.

One step, for each parameter p with a gradient g (``_single_tensor_rmsprop``)::

    g = -g                                     if maximize
    g = g + weight_decay * p                   if weight_decay != 0
    v = alpha * v + (1 - alpha) * g * g        the running mean square ("square_avg")
    avg = sqrt(v - m * m) + eps                centered: m = alpha * m + (1 - alpha) * g ("grad_avg")
    avg = sqrt(v) + eps                        otherwise
    b = momentum * b + g / avg; p = p - lr * b if momentum > 0 ("momentum_buffer")
    p = p - lr * g / avg                       otherwise

glasstorch has no ``addcmul_``/``addcdiv_``/``lerp_`` yet: they are spelled out with ``add_`` in
the order PyTorch's kernels round (``addcmul_`` is self + value * t1 * t2, value first: dividing
tiny gradients by tiny sqrt(v) amplifies a last-bit difference into a visibly different run).
Simplified: the single-tensor update only, no complex or sparse gradients, lr a number.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .._creation import zeros, zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_implementation_flags, _get_scalar_dtype

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """Implements the RMSprop algorithm (Hinton's lecture notes; centered: Graves 2013)."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        _check_implementation_flags(foreach, None, capturable, differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group: dict[str, Any], params: list, grads: list, square_avgs: list,
                    momentum_buffers: list, grad_avgs: list, state_steps: list) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization
                state["step"] = zeros((), dtype=_get_scalar_dtype())
                state["square_avg"] = zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffers.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

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
                grad_avgs: list = []
                momentum_buffers: list = []
                state_steps: list = []
                self._init_group(group, params, grads, square_avgs, momentum_buffers, grad_avgs, state_steps)
                rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffers, state_steps, lr=group["lr"],
                        alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                        momentum=group["momentum"], centered=group["centered"], maximize=group["maximize"])
        return loss


def rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor], grad_avgs: list[Tensor],
            momentum_buffer_list: list[Tensor], state_steps: list[Tensor], *, lr: float, alpha: float, eps: float,
            weight_decay: float, momentum: float, centered: bool, maximize: bool) -> None:
    """Functional API that performs the RMSprop computation (PyTorch's ``_single_tensor_rmsprop``)."""
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        state_steps[i] += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).add_((1 - alpha) * grad * grad)  # addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.add_(grad - grad_avg, alpha=1 - alpha)  # lerp_(grad, 1 - alpha)
            avg = square_avg.add(grad_avg * grad_avg, alpha=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).add_(grad / avg)  # addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.add_(grad / avg, alpha=-lr)  # addcdiv_(grad, avg, value=-lr)
