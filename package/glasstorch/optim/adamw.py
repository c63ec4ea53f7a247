"""``AdamW``: Adam with decoupled weight decay. Mirrors torch/optim/adamw.py.

Adam's ``weight_decay`` adds ``weight_decay * p`` to the gradient, so the decay is then rescaled
by Adam's adaptive denominator: parameters with large gradients are barely decayed. AdamW
(Loshchilov & Hutter, "Decoupled Weight Decay Regularization") shrinks the weights directly,
``p = p * (1 - lr * weight_decay)``, before the Adam update. In PyTorch 2.x, as here, AdamW is
nothing but ``Adam(..., decoupled_weight_decay=True)`` with a default ``weight_decay`` of 1e-2.

Simplified as ``adam.py`` is.
"""
from __future__ import annotations

from typing import Any, Iterable

from .._tensor import Tensor
from .adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """Implements the AdamW algorithm: Adam with decoupled weight decay.

    Args:
        params: the tensors to optimize, or dicts defining parameter groups.
        lr: learning rate (default: 1e-3).
        betas: coefficients of the running averages of the gradient and of its square
            (default: (0.9, 0.999)).
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: weight decay coefficient (default: 1e-2).
        amsgrad: use the AMSGrad variant (default: False).
        maximize: maximize the objective instead of minimizing it (default: False).
        foreach, capturable, differentiable, fused: accepted for PyTorch compatibility; see Adam.
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True  # an AdamW is always decoupled, whatever was loaded


def adamw(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
          max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], **hyperparameters: Any) -> None:
    """Functional API that performs the AdamW computation (see :class:`AdamW`): Adam's update with
    decoupled weight decay; the keyword arguments are ``adam``'s, without ``decoupled_weight_decay``."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, decoupled_weight_decay=True,
         **hyperparameters)
