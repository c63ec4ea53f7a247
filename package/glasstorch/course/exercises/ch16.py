"""Chapter 16 exercises: the update rules inside ``optimizer.step()`` and a scheduler's rule.

* ``16.sgd_step``: ``_single_tensor_sgd``, with momentum, dampening, Nesterov, weight decay and
  maximize, exactly as PyTorch's (the first step's buffer is a copy of the gradient);
* ``16.adam_step``: ``_single_tensor_adam``, with bias correction, L2 or decoupled (AdamW) weight
  decay, AMSGrad and maximize;
* ``16.cosine_get_lr``: ``CosineAnnealingLR.get_lr`` in its chainable (recursive) form.

The update rules are checked step by step on plain tensors, then plugged into
``torch.optim.SGD`` / ``Adam`` (which call the module-level function) and compared over 20 steps
of training. The scheduler's rule is a method: every case runs it inside a real scheduler.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.optim.adam as adam_module
import glasstorch.optim.sgd as sgd_module
from glasstorch import nn
from glasstorch._tensor import Tensor
from glasstorch.optim.lr_scheduler import CosineAnnealingLR

from ..checking import Case, exercise, replaced
from ._harness import fit, tensors

# the package's own update rules, kept before any replacement
_SGD_RULE = sgd_module._single_tensor_sgd
_ADAM_RULE = adam_module._single_tensor_adam


# -- shared by both update rules ------------------------------------------------------------------

def _snapshot(tensors: list) -> list:
    """Copies of the values now (None stays None): later in-place updates must not change them."""
    return [None if t is None else t.detach().numpy().copy() for t in tensors]


def _shares_memory(a: Tensor | None, b: Tensor) -> bool:
    return a is not None and np.shares_memory(a.numpy(), b.numpy())


def _regression_data(rng: np.random.Generator) -> tuple:
    x = rng.standard_normal((16, 3)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2] - x[:, 2:] ** 2).astype(np.float32)
    return x, y


def _small_mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))


def _train_with_rule(module: Any, name: str, impl: Callable[..., None], optimizer: str, groups: list,
                     x: np.ndarray, y: np.ndarray, set_to_none: bool = True) -> dict:
    """20 steps of ``optimizer`` (``'SGD'`` or ``'Adam'``) with ``impl`` as the module's update rule.
    ``groups``: the options of each param group, the first for the first Linear layer, the second
    (if any) for the rest."""
    def make_optimizer(model: nn.Module) -> Any:
        params = list(model.parameters())
        split = [params[:2], params[2:]] if len(groups) == 2 else [params]
        return getattr(glasstorch.optim, optimizer)([{"params": p, **options} for p, options in zip(split, groups)])

    with replaced(module, name, impl):
        model, opt, losses = fit(_small_mlp, x, y, steps=20, make_optimizer=make_optimizer, set_to_none=set_to_none)
        return {"losses": losses, "parameters after 20 steps": model.state_dict(),
                "optimizer.state_dict()['state']": opt.state_dict()["state"]}


def _training_case(module: Any, name: str, title: str, optimizer: str, groups: list, rng: np.random.Generator,
                   set_to_none: bool = True, hint: str | None = None) -> Case:
    x, y = _regression_data(rng)
    return Case(title, (optimizer, groups, x, y, set_to_none),
                observe=lambda impl, o, g, xx, yy, s: _train_with_rule(module, name, impl, o, g, xx, yy, s),
                hint=hint)


# -- 16.sgd_step ----------------------------------------------------------------------------------

def _observe_sgd(impl: Callable[..., None], params: list, grads_per_step: list, options: dict) -> dict:
    """Run ``impl`` for several steps as ``SGD.step`` does: the same buffer list every step,
    under no_grad. Observe the parameters after each step and the buffers at the end."""
    params = [glasstorch.from_numpy(p).requires_grad_() for p in params]
    buffers: list = [None] * len(params)
    observed: dict = {}
    for step, grads in enumerate(grads_per_step, start=1):
        grads = tensors(grads)
        with glasstorch.no_grad():
            impl(params, grads, buffers, **options)
        observed[f"params after step {step}"] = _snapshot(params)
        observed[f"grads after step {step} (unchanged)"] = _snapshot(grads)
        if step == 1 and options["momentum"] != 0:
            observed["after step 1, a momentum buffer shares memory with its gradient"] = [
                _shares_memory(b, g) for b, g in zip(buffers, grads)]
    observed["momentum_buffer_list at the end"] = _snapshot(buffers)
    return observed


def _sgd_options(lr: float = 0.1, momentum: float = 0.0, dampening: float = 0.0, weight_decay: float = 0.0,
                 nesterov: bool = False, maximize: bool = False) -> dict:
    # the keyword arguments SGD.step passes, in its order
    return {"weight_decay": weight_decay, "momentum": momentum, "lr": lr, "dampening": dampening,
            "nesterov": nesterov, "maximize": maximize}


def _sgd_case(name: str, rng: np.random.Generator, steps: int, hint: str | None = None, **options: Any) -> Case:
    shapes = [(3,), (2, 2)]
    params = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(steps)]
    return Case(name, (params, grads, _sgd_options(**options)), hint=hint)


def _sgd_cases(rng: np.random.Generator) -> list[Case]:
    return [
        _sgd_case("plain SGD: p = p - lr * g", rng, 2),
        _sgd_case("momentum 0.9, one step: the buffer starts as a copy of the gradient", rng, 1, momentum=0.9,
                  hint="at the first step the buffer is the gradient itself, cloned (grad.clone() or "
                       ".detach().clone()): a view or the same tensor would be changed by the next "
                       "in-place buf.mul_(...), and so would .grad. Store it in momentum_buffer_list[i]: "
                       "that list is how SGD.step finds it again."),
        _sgd_case("momentum 0.9, three steps", rng, 3, momentum=0.9,
                  hint="after the first step: buf = momentum * buf + (1 - dampening) * g, in place, on "
                       "the buffer from the list; then p = p - lr * buf."),
        _sgd_case("dampening 0.5: not applied at the first step", rng, 3, momentum=0.9, dampening=0.5,
                  hint="dampening scales the gradient added to an *existing* buffer; the first step "
                       "starts the buffer at the undamped gradient."),
        _sgd_case("Nesterov momentum", rng, 3, momentum=0.9, nesterov=True,
                  hint="with nesterov the step uses g + momentum * buf (the gradient, looking ahead along "
                       "the updated buffer), not the buffer itself."),
        _sgd_case("weight decay 0.1: added to the gradient, out of place", rng, 2, momentum=0.5, weight_decay=0.1,
                  hint="weight decay adds weight_decay * p to the gradient, out of place "
                       "(grad = grad.add(p, alpha=...)): p.grad itself must stay as backward left it."),
        _sgd_case("maximize, with momentum and weight decay", rng, 3, momentum=0.9, weight_decay=0.05, maximize=True,
                  hint="maximize negates the gradient first, before weight decay and momentum."),
        _training_case(sgd_module, "_single_tensor_sgd",
                       "inside glasstorch: 20 steps of SGD(momentum=0.9, nesterov=True, weight_decay=1e-3)",
                       "SGD", [{"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}], rng),
        _training_case(sgd_module, "_single_tensor_sgd",
                       "inside glasstorch: two param groups (dampening; plain SGD), zero_grad(set_to_none=False)",
                       "SGD", [{"lr": 0.05, "momentum": 0.8, "dampening": 0.3}, {"lr": 0.02}], rng,
                       set_to_none=False,
                       hint="zero_grad(set_to_none=False) zeroes each .grad in place and backward then adds "
                            "into it: a buffer that shares memory with .grad is changed too. Clone."),
    ]


exercise(
    id="16.sgd_step",
    entry="single_tensor_sgd",
    title="the SGD update: momentum, dampening, Nesterov, weight decay",
    cases=_sgd_cases,
    reference=_SGD_RULE,
    observe=_observe_sgd,
    hint="for each parameter: g = -g if maximize; g = g + weight_decay * p (out of place); with "
         "momentum, buf = clone of g at the first step, else buf = momentum * buf + (1 - dampening) * g "
         "in place; g = g + momentum * buf if nesterov else buf; finally p -= lr * g, in place.",
)


# -- 16.adam_step ---------------------------------------------------------------------------------

def _adam_options(lr: float = 0.01, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                  weight_decay: float = 0.0, amsgrad: bool = False, maximize: bool = False,
                  decoupled_weight_decay: bool = False) -> dict:
    # the keyword arguments Adam.step passes, in its order
    return {"amsgrad": amsgrad, "beta1": beta1, "beta2": beta2, "lr": lr, "weight_decay": weight_decay,
            "eps": eps, "maximize": maximize, "decoupled_weight_decay": decoupled_weight_decay}


def _observe_adam(impl: Callable[..., None], params: list, grads_per_step: list, options: dict) -> dict:
    """Run ``impl`` for several steps with the state lists ``Adam._init_group`` makes."""
    params = [glasstorch.from_numpy(p).requires_grad_() for p in params]
    exp_avgs = [glasstorch.zeros_like(p) for p in params]
    exp_avg_sqs = [glasstorch.zeros_like(p) for p in params]
    max_exp_avg_sqs = [glasstorch.zeros_like(p) for p in params] if options["amsgrad"] else []
    steps = [glasstorch.tensor(0.0) for _ in params]
    observed: dict = {}
    for step, grads in enumerate(grads_per_step, start=1):
        grads = tensors(grads)
        with glasstorch.no_grad():
            impl(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, **options)
        observed[f"params after step {step}"] = _snapshot(params)
        observed[f"grads after step {step} (unchanged)"] = _snapshot(grads)
    observed["state_steps"] = _snapshot(steps)
    observed["exp_avgs"] = _snapshot(exp_avgs)
    observed["exp_avg_sqs"] = _snapshot(exp_avg_sqs)
    observed["max_exp_avg_sqs"] = _snapshot(max_exp_avg_sqs)
    return observed


def _adam_case(name: str, rng: np.random.Generator, steps: int, hint: str | None = None, shrinking: bool = False,
               **options: Any) -> Case:
    shapes = [(3,), (2, 2)]
    params = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    scales = [4.0 ** -k for k in range(steps)] if shrinking else [1.0] * steps  # for AMSGrad's maximum
    grads = [[(scale * rng.standard_normal(s)).astype(np.float32) for s in shapes] for scale in scales]
    return Case(name, (params, grads, _adam_options(**options)), hint=hint)


def _adam_cases(rng: np.random.Generator) -> list[Case]:
    return [
        _adam_case("one step: every coordinate moves by lr", rng, 1, lr=0.1,
                   hint="m and v start at zero, so divide by the bias corrections 1 - beta1**t and "
                        "1 - beta2**t (t = the step count after incrementing it); then the first step is "
                        "lr * g / |g| = ±lr. The step count is a tensor in state_steps: increment it in place."),
        _adam_case("five steps, default betas", rng, 5, lr=0.05),
        _adam_case("betas (0.5, 0.9) and a large eps 0.1: where eps goes", rng, 4, lr=0.05, beta1=0.5, beta2=0.9,
                   eps=0.1,
                   hint="PyTorch adds eps after the bias correction of the square root: "
                        "denom = sqrt(v) / sqrt(1 - beta2**t) + eps, and p -= lr / (1 - beta1**t) * m / denom."),
        _adam_case("weight decay 0.1: L2, through the gradient", rng, 3, lr=0.05, weight_decay=0.1,
                   hint="Adam's weight_decay adds weight_decay * p to the gradient (out of place) before the "
                        "moments are updated."),
        _adam_case("decoupled weight decay 0.1 (AdamW)", rng, 3, lr=0.05, weight_decay=0.1,
                   decoupled_weight_decay=True,
                   hint="decoupled weight decay (AdamW) does not touch the gradient: it shrinks the "
                        "parameter itself, p *= 1 - lr * weight_decay, before the Adam step."),
        _adam_case("AMSGrad, with gradients that shrink", rng, 4, lr=0.05, amsgrad=True, shrinking=True,
                   hint="with amsgrad, keep the elementwise maximum of every exp_avg_sq so far in "
                        "max_exp_avg_sqs[i] (in place) and use it instead of exp_avg_sq in the denominator."),
        _adam_case("maximize", rng, 3, lr=0.05, maximize=True),
        _training_case(adam_module, "_single_tensor_adam",
                       "inside glasstorch: 20 steps of Adam(lr=0.02, weight_decay=1e-2, amsgrad=True)",
                       "Adam", [{"lr": 0.02, "weight_decay": 1e-2, "amsgrad": True}], rng),
        _training_case(adam_module, "_single_tensor_adam",
                       "inside glasstorch: 20 steps of AdamW in one group, Adam in the other",
                       "Adam", [{"lr": 0.03, "weight_decay": 0.1, "decoupled_weight_decay": True},
                                {"lr": 0.01, "betas": (0.8, 0.99)}], rng),
    ]


exercise(
    id="16.adam_step",
    entry="single_tensor_adam",
    title="the Adam update: moments, bias correction, weight decay, AMSGrad",
    cases=_adam_cases,
    reference=_ADAM_RULE,
    observe=_observe_adam,
    hint="for each parameter: t += 1 (in place); g = -g if maximize; weight decay (decoupled: "
         "p *= 1 - lr * wd; else g = g + wd * p); m = beta1 m + (1 - beta1) g and v = beta2 v + "
         "(1 - beta2) g² in place; p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps).",
    atol=1e-5,  # float32: the same formula written in another order rounds differently
)


# -- 16.cosine_get_lr -----------------------------------------------------------------------------

_COSINE_GET_LR = CosineAnnealingLR.get_lr  # the package's own, kept before any replacement


def _observe_cosine(impl: Callable[[Any], list], lrs: tuple, T_max: int, eta_min: float, epochs: int,
                    changes: tuple = ()) -> dict:
    """Build a CosineAnnealingLR whose get_lr is ``impl`` and read every group's lr, epoch by
    epoch. ``changes``: (epoch, factor) pairs, the lr changed by hand at the start of that epoch."""
    with replaced(CosineAnnealingLR, "get_lr", impl):
        params = [glasstorch.zeros(1, requires_grad=True) for _ in lrs]
        optimizer = glasstorch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)])
        scheduler = CosineAnnealingLR(optimizer, T_max=T_max, eta_min=eta_min)
        seen = []
        for epoch in range(epochs):
            for changed_epoch, factor in changes:
                if epoch == changed_epoch:
                    for group in optimizer.param_groups:
                        group["lr"] *= factor
            seen.append([group["lr"] for group in optimizer.param_groups])
            optimizer.step()
            scheduler.step()
        return {"lr of each group, epoch by epoch": seen}


def _train_with_cosine(impl: Callable[[Any], list], x: np.ndarray, y: np.ndarray) -> dict:
    """Three epochs of four batches each, per cosine step: the schedule decides the losses."""
    with replaced(CosineAnnealingLR, "get_lr", impl):
        glasstorch.manual_seed(0)
        model = _small_mlp()
        optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
        scheduler = CosineAnnealingLR(optimizer, T_max=3, eta_min=0.01)
        losses, lrs = [], []
        for _ in range(6):
            lrs.append(scheduler.get_last_lr())
            for start in range(0, len(x), 4):
                optimizer.zero_grad()
                loss = glasstorch.nn.functional.mse_loss(model(glasstorch.from_numpy(x[start:start + 4])),
                                                         glasstorch.from_numpy(y[start:start + 4]))
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            scheduler.step()
        return {"lrs": lrs, "losses": losses, "parameters at the end": model.state_dict()}


def _cosine_cases(rng: np.random.Generator) -> list[Case]:
    lr = float(rng.choice([0.1, 0.2, 0.5]))
    x, y = _regression_data(rng)
    return [
        Case("T_max=10, eta_min=0: half a cosine in 10 epochs", ((lr,), 10, 0.0, 10),
             hint="the constructor's step (self._is_initial is True) must leave the lr as it is; every "
                  "later step multiplies the current lr's distance to eta_min by "
                  "(1 + cos(pi * t / T_max)) / (1 + cos(pi * (t - 1) / T_max)), t = self.last_epoch."),
        Case("eta_min=0.01, two param groups", ((lr, lr / 5), 6, 0.01, 6)),
        Case("past T_max: the cosine climbs back up", ((lr,), 4, 0.001, 14),
             hint="at t - 1 - T_max = 0 (mod 2 T_max) the lr sits at eta_min and the ratio is 0/0: "
                  "there, step up directly: lr + (base_lr - eta_min) * (1 - cos(pi / T_max)) / 2."),
        Case("chainable: the lr is halved by hand at epoch 3", ((lr, lr / 2), 8, 0.0, 8, ((3, 0.5),)),
             hint="compute each new lr from the group's *current* lr (group['lr']), not from base_lrs: "
                  "that is what makes the scheduler chainable, so a change made by hand (or by "
                  "another scheduler) persists."),
        Case("inside glasstorch: SGD with CosineAnnealingLR(T_max=3) for 6 epochs", (x, y),
             observe=lambda impl, xx, yy: _train_with_cosine(impl, xx, yy)),
    ]


exercise(
    id="16.cosine_get_lr",
    entry="cosine_get_lr",
    title="CosineAnnealingLR.get_lr, the chainable form",
    cases=_cosine_cases,
    reference=_COSINE_GET_LR,
    observe=_observe_cosine,
    hint="return one lr per param group. At the constructor's step, the current lrs; at the bottom "
         "of the cosine, the direct step up; otherwise eta_min + (lr - eta_min) times the ratio of "
         "two consecutive cosine factors, lr being the group's current lr.",
)
