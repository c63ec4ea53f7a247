"""Testing helpers: finite-difference gradient checks and comparison with real PyTorch.

Mirrors ``torch/testing`` and ``torch/autograd/gradcheck.py`` in spirit.
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


from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
