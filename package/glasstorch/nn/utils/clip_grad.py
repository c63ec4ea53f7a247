"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``. Mirrors torch/nn/utils/clip_grad.py.

Recurrent networks are prone to exploding gradients (a product of many Jacobians through time):
``clip_grad_norm_`` rescales all the gradients together so that their joint norm is at most
``max_norm``, keeping their direction; ``clip_grad_value_`` clamps each element.
"""
from __future__ import annotations

from typing import Iterable

from ..._creation import tensor
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.shape import stack

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _tensor_list(tensors: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@no_grad()
def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of all the tensors together: the norm of their norms."""
    tensors = _tensor_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    total_norm = stack([t.norm(norm_type) for t in tensors]).norm(norm_type)
    if error_if_nonfinite and not bool(total_norm.isfinite()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


@no_grad()
def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every gradient by max_norm / (total_norm + 1e-6), if that is below 1."""
    grads = [p.grad for p in _tensor_list(parameters) if p.grad is not None]
    if len(grads) == 0:
        return
    clip_coef_clamped = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Rescale the gradients of ``parameters`` in place so that their joint norm is at most
    ``max_norm``; returns the joint norm they had."""
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


@no_grad()
def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for grad in [p.grad for p in _tensor_list(parameters) if p.grad is not None]:
        grad.clamp_(min=-clip_value, max=clip_value)
