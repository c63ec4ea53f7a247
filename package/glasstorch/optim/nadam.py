"""``NAdam``: Adam with Nesterov momentum, and a momentum coefficient that warms up.
Mirrors torch/optim/nadam.py.

One step, for each parameter p with a gradient g (``_single_tensor_nadam``)::

    t = t + 1
    g = -g                                            if maximize
    p = p * (1 - lr * weight_decay)                   if decoupled_weight_decay (NAdamW)
    g = g + weight_decay * p                          otherwise, if weight_decay != 0
    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))        the momentum schedule
    mu_product = mu_product * mu_t                    (kept in the state)
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2 ** t)) + eps
    p = p - lr * (1 - mu_t) / (1 - mu_product) * g / denom
          - lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom

Simplified: the single-tensor update only, no complex gradients, lr and betas numbers.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .._creation import tensor, zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_implementation_flags, _get_scalar_dtype

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """Implements the NAdam algorithm (Dozat, 2016)."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_implementation_flags(foreach, None, capturable, differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group: dict[str, Any], params: list, grads: list, exp_avgs: list, exp_avg_sqs: list,
                    mu_products: list, state_steps: list) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization
                state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                state["mu_product"] = tensor(1.0, dtype=_get_scalar_dtype())
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            mu_products.append(state["mu_product"])
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
                exp_avgs: list = []
                exp_avg_sqs: list = []
                mu_products: list = []
                state_steps: list = []
                self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps)
                beta1, beta2 = group["betas"]
                nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2,
                      lr=group["lr"], weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
                      eps=group["eps"], decoupled_weight_decay=group["decoupled_weight_decay"],
                      maximize=group["maximize"])
        return loss


def nadam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
          mu_products: list[Tensor], state_steps: list[Tensor], *, beta1: float, beta2: float, lr: float,
          weight_decay: float, momentum_decay: float, eps: float, decoupled_weight_decay: bool,
          maximize: bool) -> None:
    """Functional API that performs the NAdam computation (PyTorch's ``_single_tensor_nadam``)."""
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, mu_product, step_t = exp_avgs[i], exp_avg_sqs[i], mu_products[i], state_steps[i]
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu  # in place: the tensor in the state
        exp_avg.add_(grad - exp_avg, alpha=1 - beta1)  # lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)  # addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(eps)
        param.add_(grad / denom, alpha=-lr * (1.0 - mu) / (1.0 - mu_product.item()))
        param.add_(exp_avg / denom, alpha=(-lr * mu_next) / (1.0 - mu_product_next))
