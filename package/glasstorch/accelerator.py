"""``torch.accelerator``: the device-agnostic view of the accelerator (CUDA, MPS, XPU, ...) this
process may use. Mirrors torch/accelerator/__init__.py. glasstorch has none: the current
accelerator is None, so ``torch.accelerator.current_accelerator() or "cpu"`` picks the CPU."""
from __future__ import annotations

from typing import Any

__all__ = ["current_accelerator", "device_count", "is_available"]


def current_accelerator(check_available: bool = False) -> Any:
    """The accelerator's device type (``device(type='cuda')``), or None: always None here."""
    return None


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
