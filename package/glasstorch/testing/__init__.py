"""Testing helpers: comparison with real PyTorch, and the finite-difference gradient checks
re-exported from ``glasstorch/autograd/gradcheck.py`` (PyTorch's place for them).

Mirrors ``torch/testing`` in spirit.
"""
from __future__ import annotations

import importlib
from types import ModuleType

TORCH_VERSION = "2.13.0"


def real_torch() -> ModuleType | None:
    """Real PyTorch if it is installed, else None: comparisons run only where it is there."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


from ..autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401 - re-exported
