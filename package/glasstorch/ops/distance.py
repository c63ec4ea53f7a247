"""``dist``: the p-norm of the difference of two tensors.

Mirrors ``aten/src/ATen/native/Distance.cpp`` (``dist``) and its Node ``DistBackward0``, whose
backward is the p-norm's (``norm_backward`` in ``FunctionsManual.cpp``) applied to
``self - other``: the gradient of ``other`` is minus the gradient of ``self``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from .._typename import scalar_type_name
from ..dtypes import from_numpy_dtype, promoted_values
from ._elementwise import broadcast_error
from ._util import compute_requires_grad, set_history
from .indexing import where


class DistBackward0(Node):
    """out = ||self - other||_p.  d/dself = grad * sign(d) |d|^(p-1) / out^(p-1) with d = self - other
    (p = 1: sign(d); p = inf or -inf: shared evenly by the elements where |d| == out; p = 0: none)."""

    other_: SavedTensor
    p: float
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        diff = self._saved_self - self._saved_other
        result, p = self._saved_result, self.p
        if p == 0:
            return None, None  # the count of non-zero elements does not change: PyTorch returns no gradient
        if p == 1:
            grad_self = grad * diff.sign()
        elif math.isinf(p):
            extreme = (diff.abs() == result).to(diff.dtype)
            grad_self = grad * diff.sign() * extreme / extreme.sum()
        else:
            scale = where(result == 0, result * 0, grad / result ** (p - 1))
            if p == 2:
                grad_self = scale * diff
            else:  # a zero difference gets 0 (sign 0), also where p < 1 would make |d|^(p-1) infinite
                magnitude = where(diff == 0, diff * 0 + 1, diff.abs())
                grad_self = scale * diff.sign() * magnitude ** (p - 1)
        return (grad_self if self.needs_input_grad(0) else None,
                -grad_self if self.needs_input_grad(1) else None)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """``||input - other||_p`` over all elements (the two broadcast together)."""
    a, b = promoted_values(input, other)  # (the dtype the subtraction would have)
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{scalar_type_name(from_numpy_dtype(a.dtype))} instead.")
    try:
        diff = np.abs(a - b)
    except ValueError:
        raise broadcast_error(input._data.shape, other._data.shape) from None
    p = float(p)
    if p == 0:
        value = np.count_nonzero(diff)
    elif math.isinf(p):
        value = diff.max(initial=0) if p > 0 else diff.min(initial=np.inf)
    else:
        value = (diff ** p).sum() ** (1 / p)
    out = _wrap(np.asarray(value, dtype=diff.dtype))
    if compute_requires_grad(input, other):
        node = DistBackward0(input, other)
        node.self_, node.other_, node.p = SavedTensor(input), SavedTensor(other), p
        node.result_ = SavedTensor(out, is_output=True)
        set_history(out, node)
    return out
