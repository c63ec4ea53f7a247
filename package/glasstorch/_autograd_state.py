"""The two switches autograd reads on every op: is gradient recording on, and is inference mode on.

Mirrors ``c10/core/AutogradState.h`` (PyTorch keeps them per thread, in C++). They sit below both
``Tensor`` and ``autograd``, which both read them, so that neither has to import the other when it
loads; the context managers that flip them (``no_grad``, ``inference_mode`` ...) are in
``autograd/grad_mode.py``. Simplified: one switch of each for the whole process.
"""
from __future__ import annotations


class _GradMode:
    """The one switch every op reads before it records a Node. A class attribute, so that the
    check in the hot path is a single attribute load."""

    enabled = True


class _InferenceMode:
    """Set inside ``inference_mode()``: the tensors made there are marked as inference tensors."""

    enabled = False
