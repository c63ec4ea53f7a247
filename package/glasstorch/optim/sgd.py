"""``SGD``: stochastic gradient descent, with momentum, dampening, Nesterov and weight decay.
Mirrors torch/optim/sgd.py.

One step, for each parameter p with a gradient g (``_single_tensor_sgd``)::

    g = -g                          if maximize
    g = g + weight_decay * p        if weight_decay != 0      (L2 regularisation, through the gradient)
    if momentum != 0:
        buf = g                                   at the first step (no dampening then)
        buf = momentum * buf + (1 - dampening) * g    afterwards
        g = g + momentum * buf      if nesterov
        g = buf                     otherwise
    p = p - lr * g

The only state is ``state[p]['momentum_buffer']``, and only when ``momentum != 0``: plain SGD
remembers nothing, so its ``state`` stays empty.

Simplified here: the single-tensor update only (PyTorch also has ``_multi_tensor_sgd`` and
``_fused_sgd``, chosen by ``foreach``/``fused``); no sparse gradients; ``lr`` is a number.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_implementation_flags

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Implements stochastic gradient descent (optionally with momentum).

    Args:
        params: the tensors to optimize, or dicts defining parameter groups.
        lr: learning rate (default: 1e-3).
        momentum: momentum factor (default: 0).
        dampening: dampening for momentum (default: 0).
        weight_decay: L2 penalty (default: 0).
        nesterov: use Nesterov momentum (default: False).
        maximize: maximize the objective instead of minimizing it (default: False).
        foreach, differentiable, fused: accepted for PyTorch compatibility and kept in the
            param groups; glasstorch always runs the single-tensor update (see ``optimizer.py``).
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor):
            raise TypeError("glasstorch's optimizers take lr as a Python number (PyTorch also accepts a "
                            "1-element Tensor): pass lr.item()")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        # Nesterov looks ahead along the momentum buffer: without momentum there is none, and
        # dampening would make the look-ahead inconsistent with the buffer's update
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_implementation_flags(foreach, fused, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:  # options that older checkpoints do not have
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _init_group(self, group: dict[str, Any], params: list[Tensor], grads: list[Tensor],
                    momentum_buffer_list: list[Tensor | None]) -> None:
        """Collect the parameters of ``group`` that have a gradient (the others are skipped)."""
        for p in group["params"]:
            if p.grad is not None:
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    state = self.state[p]
                    momentum_buffer_list.append(state.get("momentum_buffer"))  # None before the first step

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step.

        Args:
            closure: a function that re-evaluates the model and returns the loss.
        """
        loss = None
        if closure is not None:
            with enable_grad():  # the closure runs forward and backward: it needs a graph
                loss = closure()

        # the update itself must not be recorded: it changes leaves in place
        # (PyTorch's @_use_grad_for_differentiable turns grad mode off around step)
        with no_grad():
            for group in self.param_groups:
                params: list[Tensor] = []
                grads: list[Tensor] = []
                momentum_buffer_list: list[Tensor | None] = []
                self._init_group(group, params, grads, momentum_buffer_list)

                sgd(
                    params,
                    grads,
                    momentum_buffer_list,
                    weight_decay=group["weight_decay"],
                    momentum=group["momentum"],
                    lr=group["lr"],
                    dampening=group["dampening"],
                    nesterov=group["nesterov"],
                    maximize=group["maximize"],
                )

                if group["momentum"] != 0:
                    # the first step created the buffers: store them in the state
                    for p, momentum_buffer in zip(params, momentum_buffer_list):
                        self.state[p]["momentum_buffer"] = momentum_buffer

        return loss


def sgd(params: list[Tensor], d_p_list: list[Tensor], momentum_buffer_list: list[Tensor | None],
        **hyperparameters: Any) -> None:
    """Functional API that performs the SGD computation (see :class:`SGD`); the keyword arguments
    are ``_single_tensor_sgd``'s (``weight_decay``, ``momentum``, ``lr``, ``dampening``,
    ``nesterov``, ``maximize``).

    PyTorch dispatches here to a for-loop, a foreach or a fused implementation; glasstorch has
    the for-loop one only.
    """
    _single_tensor_sgd(params, d_p_list, momentum_buffer_list, **hyperparameters)


def _single_tensor_sgd(
    params: list[Tensor],
    grads: list[Tensor],
    momentum_buffer_list: list[Tensor | None],
    *,
    weight_decay: float,
    momentum: float,
    lr: float,
    dampening: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)  # out of place: p.grad itself stays as backward left it

        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                # the first step starts the buffer at the gradient itself (no dampening)
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)

            if nesterov:
                grad = grad.add(buf, alpha=momentum)
            else:
                grad = buf

        param.add_(grad, alpha=-lr)
