"""Switching gradient recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``.

Mirrors ``torch/autograd/grad_mode.py``. Each works as a context manager and as a decorator.
Simplified: PyTorch keeps the flag per thread; glasstorch keeps one flag for the process.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .._autograd_state import _GradMode, _InferenceMode  # the switches themselves


def is_grad_enabled() -> bool:
    """True when operations record the graph for backward."""
    return _GradMode.enabled


class _DecoratorContextManager:
    """A context manager that also works as a decorator, like PyTorch's ``_DecoratorContextManager``."""

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self) -> "_DecoratorContextManager":
        return self.__class__()


class set_grad_enabled(_DecoratorContextManager):
    """Set gradient recording on or off. Takes effect at once (like PyTorch), and as a context
    manager restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _GradMode.enabled
        self.mode = mode
        _GradMode.enabled = mode

    def __enter__(self) -> None:
        _GradMode.enabled = self.mode

    def __exit__(self, *exc_info: Any) -> None:
        _GradMode.enabled = self.prev

    def clone(self) -> "set_grad_enabled":
        return self.__class__(self.mode)

    def __call__(self, func: Callable) -> Callable:
        _GradMode.enabled = self.prev  # as a decorator it must not change the mode now
        return super().__call__(func)


class no_grad(_DecoratorContextManager):
    """Inside ``with no_grad():`` operations record nothing: results have ``requires_grad=False``."""

    def __enter__(self) -> None:
        self.prev = _GradMode.enabled
        _GradMode.enabled = False

    def __exit__(self, *exc_info: Any) -> None:
        _GradMode.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Turn recording back on inside a ``no_grad`` block."""

    def __enter__(self) -> None:
        self.prev = _GradMode.enabled
        _GradMode.enabled = True

    def __exit__(self, *exc_info: Any) -> None:
        _GradMode.enabled = self.prev


def is_inference_mode_enabled() -> bool:
    return _InferenceMode.enabled


class inference_mode(_DecoratorContextManager):
    """``no_grad`` and more: tensors made inside are *inference tensors* (``t.is_inference()``),
    which autograd refuses to save for backward later. PyTorch also skips their version counters
    to save time; glasstorch only marks them. Works as ``@inference_mode`` too, without parentheses."""

    def __new__(cls, mode_or_function: Any = True) -> Any:
        if callable(mode_or_function) and not isinstance(mode_or_function, bool):
            return cls()(mode_or_function)  # @inference_mode without parentheses
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = (_InferenceMode.enabled, _GradMode.enabled)
        _InferenceMode.enabled = self.mode
        _GradMode.enabled = not self.mode  # as c10's InferenceMode guard: AutoGradMode(!enabled)

    def __exit__(self, *exc_info: Any) -> None:
        _InferenceMode.enabled, _GradMode.enabled = self.prev

    def clone(self) -> "inference_mode":
        return self.__class__(self.mode)
