"""What the ops behind Part III's layers and losses share: PyTorch's kernel checks and their
messages, and the working precision of half-precision inputs.

Mirrors the ``TORCH_CHECK``s and ``AT_DISPATCH`` errors of aten/src/ATen/native/{layer_norm,
group_norm,Activation,LossNLL,Loss}.cpp.
"""
from __future__ import annotations


import numpy as np

from .._tensor import Tensor
from .._typename import scalar_type_name
from ..autograd.grad_mode import _GradMode


def _check_floating(input: Tensor, kernel: str) -> None:
    """PyTorch's kernels exist for floating point only; its error names the kernel."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(input.dtype)}\'')


def _check_not_differentiable(value: Tensor | None, argument: str, function: str) -> None:
    """Class weights are constants for PyTorch: a weight that requires grad is refused."""
    if value is not None and _GradMode.enabled and value.requires_grad:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument "
                           f"'{argument}'. This input cannot have requires_grad True.")


def _work(data: np.ndarray) -> np.ndarray:
    """float16 and bfloat16 are computed in float32 and rounded once at the end, as PyTorch does."""
    return data.astype(np.float32) if data.dtype.itemsize < 4 else data
