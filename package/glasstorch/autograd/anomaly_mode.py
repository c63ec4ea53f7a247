"""Anomaly detection: ``detect_anomaly`` and ``set_detect_anomaly``.

Mirrors torch/autograd/anomaly_mode.py and torch/csrc/autograd/python_anomaly_mode.cpp. While
it is on, every Node records the Python stack of the forward call that created it
(``Node.__init__``). When that Node's backward fails, the engine first warns with that stack
("Error detected in MulBackward0. Traceback of forward call that caused the error: ..."), so the
error names the line of *forward* code at fault, not only the backward formula. With
``check_nan``, a gradient containing NaN is such a failure.
"""
from __future__ import annotations

import traceback
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .grad_mode import _DecoratorContextManager

if TYPE_CHECKING:
    from .graph import Node

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _AnomalyMode:
    """The switch Node creation and the engine read (PyTorch: ``AnomalyMode``)."""

    enabled = False
    check_nan = True


def is_anomaly_enabled() -> bool:
    return _AnomalyMode.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _AnomalyMode.check_nan


class detect_anomaly(_DecoratorContextManager):
    """Context manager (or decorator) that turns anomaly detection on inside it."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _AnomalyMode.enabled
        self.check_nan = check_nan
        self.prev_check_nan = _AnomalyMode.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        _AnomalyMode.enabled, _AnomalyMode.check_nan = True, self.check_nan

    def __exit__(self, *args: Any) -> None:
        _AnomalyMode.enabled, _AnomalyMode.check_nan = self.prev, self.prev_check_nan

    def clone(self) -> "detect_anomaly":
        return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off at once; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = _AnomalyMode.enabled, _AnomalyMode.check_nan
        _AnomalyMode.enabled, _AnomalyMode.check_nan = mode, check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: Any) -> None:
        _AnomalyMode.enabled, _AnomalyMode.check_nan = self.prev, self.prev_check_nan


def forward_stack() -> list:
    """The stack of the forward call creating a Node (called by ``Node.__init__`` in anomaly mode),
    without the frames of glasstorch itself."""
    return [line for line in traceback.format_stack()[:-1] if "/glasstorch/" not in line]


def call_function_checked(node: "Node", grad: Any) -> tuple:
    """``call_function`` in anomaly mode: a NaN gradient is an error (with ``check_nan``), and any
    error first warns with the traceback of the forward call that created ``node``
    (``Engine::evaluate_function`` and ``PyAnomalyMetadata::print_stack``)."""
    from .engine import call_function

    try:
        grads = call_function(node, grad)
        if _AnomalyMode.check_nan:
            for i, output in enumerate(grads):
                if output is not None and np.isnan(output._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        trace = "".join(node._anomaly_trace or ["No forward pass information available. Enable detect anomaly "
                                                "during forward pass for more information."])
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}",
                      stacklevel=2)
        raise
    return grads
