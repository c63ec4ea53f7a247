"""Learning-rate schedulers. Mirrors torch/optim/lr_scheduler.py.

A scheduler owns no learning rate: it rewrites ``group['lr']`` in its optimizer's param groups.
Call ``scheduler.step()`` once per epoch, *after* ``optimizer.step()``. Each ``step()``
advances ``last_epoch`` and sets every group's lr to what ``get_lr()`` computes.

Most schedulers compute the new lr *recursively* from the group's current lr (StepLR multiplies
it by ``gamma`` at every ``step_size``-th epoch, ExponentialLR at every epoch), so they compose
with other changes made to the lr; ``_get_closed_form_lr`` computes it from ``base_lrs``
directly and is used only by the deprecated ``step(epoch)``. The arithmetic is PyTorch's, term
for term, so the sequences agree to the last bit.

Construction already takes one step (``_initial_step``): ``last_epoch`` goes from -1 to 0 and
each group gets ``'initial_lr'``, the lr ``base_lrs`` is taken from (a scheduler created with
``last_epoch >= 0``, to resume, requires it).

Simplified here: LRScheduler, LambdaLR, StepLR, MultiStepLR, ExponentialLR and CosineAnnealingLR
only; learning rates are Python numbers (PyTorch also handles tensor lrs, cloning them so they
never alias).
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import wraps
from typing import Any, Callable, Iterable
from weakref import ref

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _param_groups_val_list(optimizer: Optimizer, key: str) -> list[Any]:
    """``[group[key] for group in optimizer.param_groups]``; a KeyError when one lacks it."""
    return [group[key] for group in optimizer.param_groups]


class LRScheduler:
    """Base class for all learning rate schedulers: subclasses implement :meth:`get_lr`.

    Args:
        optimizer: the optimizer whose ``group['lr']`` values this scheduler sets.
        last_epoch: the index of the last epoch seen. Leave it at -1 to start; give another value
            only when resuming, with an optimizer whose groups have ``'initial_lr'``.

    Creating a scheduler sets each group's lr (its first step): create it *before* calling the
    optimizer's ``load_state_dict``, or the loaded learning rates are overwritten.
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer

        # the lr each schedule starts from is kept in the groups, so that it survives in the
        # optimizer's state_dict and a resumed scheduler finds it
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                        "with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't properly loaded "
                        "the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: list[float] = _param_groups_val_list(optimizer, "initial_lr")
        self.last_epoch = last_epoch

        # Wrap optimizer.step so that it records that it was called: lets step() warn when the
        # scheduler is stepped before the optimizer (pytorch/pytorch#20124). The wrapper holds
        # the optimizer weakly, so the optimizer and its scheduler do not keep each other alive.
        def patch_track_step_called(opt: Optimizer) -> None:
            if hasattr(opt.step, "_wrapped_by_lr_sched"):
                return  # already patched (by another scheduler)

            def wrap_step(step_fn: Callable) -> Callable:
                opt_ref = ref(self.optimizer)
                func = step_fn.__func__

                @wraps(func)
                def wrapper(*args: Any, **kwargs: Any) -> Any:
                    opt = opt_ref()
                    opt._opt_called = True
                    return func.__get__(opt, opt.__class__)(*args, **kwargs)

                wrapper._wrapped_by_lr_sched = True
                return wrapper

            opt.step = wrap_step(opt.step)

        patch_track_step_called(self.optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Initialize the step count and take the first step (epoch -1 -> 0)."""
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every entry of ``self.__dict__`` except the optimizer (which
        has a state_dict of its own)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load the scheduler's state (as returned by :meth:`state_dict`)."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set, one per param group."""
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The learning rates for the epoch ``last_epoch``; called by ``step()``. To read the
        current learning rates, use :meth:`get_last_lr`."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set the optimizer's learning rates.

        Args:
            epoch: deprecated. If given, jump to this epoch, using the closed form where the
                scheduler has one.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                    "initialization. Please, make sure to call `optimizer.step()` before "
                    "`lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            # two scheduler steps (the initial one and this one) before any optimizer step
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate schedule. "
                    "See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )

        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()

        for param_group, lr in zip(self.optimizer.param_groups, values):
            param_group["lr"] = lr

        self._last_lr: list[float] = _param_groups_val_list(self.optimizer, "lr")


def _warn_get_lr_called_within_step(lr_scheduler: LRScheduler) -> None:
    """``get_lr()`` computes the *next* lr (recursive schedulers change it each call): outside
    ``step()`` the user almost certainly wanted ``get_last_lr()``."""
    if not lr_scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=2,
        )


# Including _LRScheduler for backwards compatibility
class _LRScheduler(LRScheduler):
    pass


class _enable_get_lr_call:
    """Marks the scheduler as inside ``step()`` while ``get_lr`` runs."""

    def __init__(self, o: LRScheduler) -> None:
        self.o = o

    def __enter__(self) -> "_enable_get_lr_call":
        self.o._get_lr_called_within_step = True
        return self

    def __exit__(self, type: Any, value: Any, traceback: Any) -> None:
        self.o._get_lr_called_within_step = False


class _initial_mode:
    """Marks the scheduler as taking its initial step (from the constructor)."""

    def __init__(self, o: LRScheduler) -> None:
        self.o = o

    def __enter__(self) -> None:
        self.o._is_initial = True

    def __exit__(self, type: Any, value: Any, traceback: Any) -> None:
        self.o._is_initial = False


class LambdaLR(LRScheduler):
    """Set each group's lr to its initial lr times ``lr_lambda(epoch)``.

    Args:
        optimizer: the wrapped optimizer.
        lr_lambda: a function of the epoch giving a multiplicative factor, or a list of such
            functions, one per param group.
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer

        self.lr_lambdas: list[Callable[[int], float]]
        if not isinstance(lr_lambda, list) and not isinstance(lr_lambda, tuple):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state. A function or lambda cannot be saved: its entry in
        ``lr_lambdas`` is None. A callable *object* is saved as its ``__dict__``."""
        state_dict = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state_dict["lr_lambdas"] = [None] * len(self.lr_lambdas)

        for idx, fn in enumerate(self.lr_lambdas):
            if not isinstance(fn, types.FunctionType):
                state_dict["lr_lambdas"][idx] = fn.__dict__.copy()

        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load the scheduler's state; the lambdas stay, callable objects get their saved
        attributes back."""
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        # put the key back: the caller's dict must not change (pytorch/pytorch#32756)
        state_dict["lr_lambdas"] = lr_lambdas

        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)

    def get_lr(self) -> list[float]:
        _warn_get_lr_called_within_step(self)
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply each group's lr by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer: the wrapped optimizer.
        step_size: the period of the decay, in epochs.
        gamma: the multiplicative factor (default: 0.1).
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_called_within_step(self)
        if (self.last_epoch == 0) or (self.last_epoch % self.step_size != 0):
            return _param_groups_val_list(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply each group's lr by ``gamma`` at each milestone epoch (by ``gamma**n`` at a
    milestone listed n times).

    Args:
        optimizer: the wrapped optimizer.
        milestones: epoch indices (a Counter of them is kept).
        gamma: the multiplicative factor (default: 0.1).
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _param_groups_val_list(self.optimizer, "lr")
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply each group's lr by ``gamma`` every epoch.

    Args:
        optimizer: the wrapped optimizer.
        gamma: the multiplicative factor.
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_called_within_step(self)
        # the initial step (also when resuming from a checkpoint) must not decay the lr once more
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Anneal each group's lr from its initial value to ``eta_min`` along a cosine, over
    ``T_max`` epochs (and back up over the next ``T_max``: there are no restarts).

    The closed form (SGDR, Loshchilov & Hutter) is
    ``eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``; ``step()`` uses
    the recursive form, which multiplies the current lr's distance to ``eta_min`` by the ratio of
    two consecutive cosine factors, so it composes with other changes made to the lr.

    Args:
        optimizer: the wrapped optimizer.
        T_max: the number of epochs of the descent.
        eta_min: the minimum learning rate (default: 0).
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, "lr")
        elif self._step_count == 1 and self.last_epoch > 0:
            # resuming at a later epoch: start from the closed form
            return [
                self.eta_min + (base_lr - self.eta_min) * (1 + math.cos((self.last_epoch) * math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)
            ]
        elif (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # at the bottom of the cosine the recursive ratio is 0/0: take the step up directly
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]
