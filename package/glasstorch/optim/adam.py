"""``Adam``: adaptive moment estimation. Mirrors torch/optim/adam.py.

One step, for each parameter p with a gradient g (``_single_tensor_adam``)::

    t = t + 1
    g = -g                                   if maximize
    p = p * (1 - lr * weight_decay)          if decoupled_weight_decay (AdamW)
    g = g + weight_decay * p                 otherwise, if weight_decay != 0 (L2, through the gradient)
    m = beta1 * m + (1 - beta1) * g          the moving average of the gradient ...
    v = beta2 * v + (1 - beta2) * g * g      ... and of its square
    v_max = max(v_max, v)                    if amsgrad (and v_max replaces v below)
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

The two ``1 - beta**t`` factors undo the bias of averages that start at zero.
The state of each parameter: ``step`` (a 0-d float32 tensor, float64 when that is the default
dtype; PyTorch keeps the count in a tensor so that compiled and CUDA-graph steps can update it),
``exp_avg`` (m), ``exp_avg_sq`` (v) and, with amsgrad, ``max_exp_avg_sq``.

glasstorch has no ``lerp_``, ``addcmul_`` or ``addcdiv_`` yet: the update spells them out with
``add_``, in the order PyTorch's kernels round where it matters (``addcmul_`` is
self + value * t1 * t2, value first); other results may differ in the last bit of float32.

Simplified here: the single-tensor update only (no foreach/fused/capturable/differentiable
paths), no complex parameters, no sparse gradients, lr and betas are numbers (PyTorch also
accepts tensors).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .._creation import tensor, zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.comparison import maximum
from .optimizer import Optimizer, _check_implementation_flags, _get_scalar_dtype

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Implements the Adam algorithm.

    Args:
        params: the tensors to optimize, or dicts defining parameter groups.
        lr: learning rate (default: 1e-3).
        betas: coefficients of the running averages of the gradient and of its square
            (default: (0.9, 0.999)).
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: weight decay coefficient (default: 0).
        amsgrad: use the AMSGrad variant (default: False).
        maximize: maximize the objective instead of minimizing it (default: False).
        decoupled_weight_decay: decay the weights directly, as AdamW does, instead of adding
            ``weight_decay * p`` to the gradient (default: False).
        foreach, capturable, differentiable, fused: accepted for PyTorch compatibility and kept
            in the param groups; glasstorch always runs the single-tensor update.
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) or isinstance(betas[0], Tensor) or isinstance(betas[1], Tensor):
            raise TypeError("glasstorch's optimizers take lr and betas as Python numbers (PyTorch also accepts "
                            "1-element Tensors): pass tensor.item()")
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
        # (PyTorch's check, which also refuses ints: betas=(0, 0.9) is an error)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        betas = tuple(betas)

        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        _check_implementation_flags(foreach, fused, capturable, differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:  # options that older checkpoints do not have
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                # checkpoints from before PyTorch 1.12 saved the step as a Python number
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _init_group(self, group: dict[str, Any], params_with_grad: list[Tensor], grads: list[Tensor],
                    exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor],
                    state_steps: list[Tensor]) -> None:
        """Collect the parameters of ``group`` that have a gradient, creating their state at
        their first step."""
        for p in group["params"]:
            if p.grad is not None:
                params_with_grad.append(p)
                grads.append(p.grad)

                state = self.state[p]
                if len(state) == 0:  # lazy state initialization
                    state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                    state["exp_avg"] = zeros_like(p)  # exponential moving average of the gradient
                    state["exp_avg_sq"] = zeros_like(p)  # ... and of the squared gradient
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = zeros_like(p)  # the largest exp_avg_sq so far

                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if group["amsgrad"]:
                    max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                state_steps.append(state["step"])

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step.

        Args:
            closure: a function that re-evaluates the model and returns the loss.
        """
        loss = None
        if closure is not None:
            with enable_grad():  # the closure runs forward and backward: it needs a graph
                loss = closure()

        with no_grad():  # the update changes leaves in place: it must not be recorded
            for group in self.param_groups:
                params_with_grad: list[Tensor] = []
                grads: list[Tensor] = []
                exp_avgs: list[Tensor] = []
                exp_avg_sqs: list[Tensor] = []
                max_exp_avg_sqs: list[Tensor] = []
                state_steps: list[Tensor] = []
                beta1, beta2 = group["betas"]
                self._init_group(group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                 state_steps)

                adam(
                    params_with_grad,
                    grads,
                    exp_avgs,
                    exp_avg_sqs,
                    max_exp_avg_sqs,
                    state_steps,
                    amsgrad=group["amsgrad"],
                    beta1=beta1,
                    beta2=beta2,
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    eps=group["eps"],
                    maximize=group["maximize"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                )

        return loss


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
         max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], *, decoupled_weight_decay: bool = False,
         **hyperparameters: Any) -> None:
    """Functional API that performs the Adam computation (see :class:`Adam`); the other keyword
    arguments are ``_single_tensor_adam``'s (``amsgrad``, ``beta1``, ``beta2``, ``lr``,
    ``weight_decay``, ``eps``, ``maximize``).

    PyTorch dispatches here to a for-loop, a foreach or a fused implementation; glasstorch has
    the for-loop one only.
    """
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                        decoupled_weight_decay=decoupled_weight_decay, **hyperparameters)


def _single_tensor_adam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    state_steps: list[Tensor],
    *,
    amsgrad: bool,
    beta1: float,
    beta2: float,
    lr: float,
    weight_decay: float,
    eps: float,
    maximize: bool,
    decoupled_weight_decay: bool,
) -> None:
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]

        step_t += 1  # in place: the tensor in the state counts

        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)  # AdamW: shrink the weights, not the gradient
            else:
                grad = grad.add(param, alpha=weight_decay)

        # Decay the first and second moment running averages.
        # exp_avg.lerp_(grad, 1 - beta1), i.e. exp_avg + (1 - beta1) * (grad - exp_avg):
        exp_avg.add_(grad - exp_avg, alpha=1 - beta1)
        # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2):
        exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)  # value * t1 * t2, PyTorch's rounding order

        # the scalar factors in Python floats (double precision), as PyTorch computes them
        step = step_t.item()
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5

        if amsgrad:
            # maintain the maximum of all second moment averages so far, and normalise by it
            max_exp_avg_sqs[i].copy_(maximum(max_exp_avg_sqs[i], exp_avg_sq))
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)

        # param.addcdiv_(exp_avg, denom, value=-step_size):
        param.add_(exp_avg / denom, alpha=-step_size)
