"""Utilities shared by the package (PyTorch: ``torch/utils``), and ``swap_tensors``."""
from __future__ import annotations

import weakref
from typing import Any

__all__ = ["swap_tensors"]


def swap_tensors(t1: Any, t2: Any) -> None:
    """Swap the contents of two tensors, each keeping its identity: afterwards ``t1`` has ``t2``'s
    data, class, dtype, grad and history and the other way round. Mirrors torch/utils/__init__.py
    (``Module._apply`` can use it to convert a parameter without replacing the object).

    A glasstorch tensor keeps all its state in its ``__dict__`` (and its class), so swapping those
    swaps everything. A leaf's AccumulateGrad still points at the old object: as in PyTorch, it is
    poisoned, so a backward through a graph recorded before the swap fails clearly.
    Simplified: PyTorch also refuses tensors referenced elsewhere (its C++ use count)."""
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    for tensor in (t1, t2):
        _poison_grad_accumulator(tensor)
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__


def _poison_grad_accumulator(tensor: Any) -> None:
    ref = tensor.__dict__.get("_grad_accumulator_ref")
    node = ref() if ref is not None else None
    if node is not None:
        node.register_prehook(_error_pre_hook)


def _error_pre_hook(grad_outputs: Any) -> None:
    raise RuntimeError(
        "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen when you try to run "
        "backward on a tensor that was swapped. For a module m with "
        "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the device or dtype of "
        "the module (e.g. `m.cpu()` or `m.half()`) between running forward and backward. To resolve this, please "
        "only change the device/dtype before running forward (or after both forward and backward).")


from . import checkpoint  # noqa: E402,F401  glasstorch.utils.checkpoint, as torch.utils.checkpoint
