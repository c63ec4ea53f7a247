"""Adaptive max pooling: ``adaptive_max_pool2d`` (behind ``F.adaptive_max_pool1d/2d``).

Mirrors aten/src/ATen/native/AdaptiveMaxPooling2d.cpp. Output position ``i`` of ``out`` takes the
maximum of input positions ``floor(i * in / out)`` to ``ceil((i + 1) * in / out)`` (the windows of
adaptive average pooling, pooling.py) and remembers where it was, as a flat position in the
(H, W) plane. The forward loops over the (few) output positions, each a vectorised maximum over
a block of the input; the backward sends each gradient to its maximum's position (a scatter-add,
recorded, so create_graph works).
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .pooling import _int_tuple, _shape_list


# --- adaptive max pooling -------------------------------------------------------------------------
class AdaptiveMaxPool2DBackward0(Node):
    """out = the maximum of each adaptive window: grad_self = grad sent to the maximum's position
    (``result1``, the indices), a scatter-add as for max pooling."""

    self_: SavedTensor
    result1_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        input, indices = self._saved_self, self._saved_result1
        planes = grad.reshape(-1, int(np.prod(grad.shape[-2:])))
        from .._creation import zeros

        grad_input = zeros(planes.shape[0], input.shape[-2] * input.shape[-1], dtype=grad.dtype)
        return (grad_input.scatter_add(1, indices.reshape(planes.shape), planes).reshape(input.shape),)


def _window_bounds(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Adaptive window i runs from floor(i * in / out) to ceil((i + 1) * in / out)."""
    i = np.arange(out_size)
    return i * in_size // out_size, -(-(i + 1) * in_size // out_size)


def adaptive_max_pool2d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """The maximum of each adaptive window of the last two dims, and its flat position in the
    (H, W) plane. ``output_size``: two ints."""
    size = _int_tuple(output_size, "output_size", "adaptive_max_pool2d", 2)
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {_shape_list(shape)}")
    for i in (-2, -1):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {_shape_list(shape)} with dimension {i + len(shape)} being empty")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_max_pool2d\" not implemented for '{scalar_type_name(input.dtype)}'")
    data, (height, width) = input._data, shape[-2:]
    row_start, row_end = _window_bounds(height, size[0])
    col_start, col_end = _window_bounds(width, size[1])
    values = np.empty(shape[:-2] + size, dtype=data.dtype)
    indices = np.empty(shape[:-2] + size, dtype=np.int64)
    for i, j in itertools.product(range(size[0]), range(size[1])):
        window = data[..., row_start[i]:row_end[i], col_start[j]:col_end[j]]
        flat = window.reshape(shape[:-2] + (-1,))
        nan = np.isnan(flat)  # a NaN is the maximum, as in PyTorch
        best = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
        values[..., i, j] = np.take_along_axis(flat, best[..., None], -1)[..., 0]
        rows, cols = np.divmod(best, window.shape[-1])
        indices[..., i, j] = (row_start[i] + rows) * width + col_start[j] + cols
    out, index_tensor = _wrap(values), _wrap(indices)
    if compute_requires_grad(input):
        node = AdaptiveMaxPool2DBackward0(input)
        node.self_, node.result1_ = SavedTensor(input), SavedTensor(index_tensor)
        set_history(out, node)
    return out, index_tensor
