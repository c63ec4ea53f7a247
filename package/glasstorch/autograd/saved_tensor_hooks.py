"""Hooks on the tensors a Node saves for backward: ``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``. Reached as ``autograd.graph.saved_tensors_hooks``, as in PyTorch
(torch/autograd/graph.py).

Inside ``with saved_tensors_hooks(pack_hook, unpack_hook):`` every tensor an op saves for backward
is handed to ``pack_hook`` and only what it returns is kept (``SavedTensor.__init__``); backward
gets the tensor back from ``unpack_hook(packed)`` (``SavedTensor.unpack``). A learner can watch
what backward keeps alive, or keep it somewhere else (on disk, compressed, ...).
"""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

# The active (pack, unpack) pairs, innermost last; SavedTensor uses the last one.
_hooks_stack: list = []
_disabled_message: list = []  # the error message while disable_saved_tensors_hooks is active


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> anything`` when a tensor is saved for backward,
    ``unpack_hook(anything) -> tensor`` when backward needs it."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled_message:
            raise RuntimeError(_disabled_message[-1])
        _hooks_stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args: object) -> None:
        _hooks_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors in (pinned) CPU memory. glasstorch's tensors are always on the CPU, so
    pack keeps the tensor and unpack returns it."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda tensor: tensor, lambda packed: packed)


class disable_saved_tensors_hooks:
    """Context manager in which registering saved-tensor hooks raises ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        _disabled_message.append(self.error_message)

    def __exit__(self, *args: object) -> None:
        _disabled_message.pop()
