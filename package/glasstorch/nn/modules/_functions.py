"""Autograd Functions that modules use internally. Mirrors torch/nn/modules/_functions.py."""
from __future__ import annotations

from typing import Any

from ...autograd.function import Function


class BackwardHookFunction(Function):
    """The identity, recorded as a Node (``BackwardHookFunctionBackward``) that a module's full
    backward hooks can hang on: its gradient *is* the gradient with respect to the tensor it
    wraps. (PyTorch wraps all of a module's tensors in one call; glasstorch's Functions return one
    tensor, so each tensor gets its own.)"""

    @staticmethod
    def forward(ctx: Any, arg: Any) -> Any:
        return arg

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad
