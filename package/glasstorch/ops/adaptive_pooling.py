"""Adaptive max pooling: ``adaptive_max_pool2d`` and ``adaptive_max_pool3d`` (behind
``F.adaptive_max_pool1d/2d/3d``).

Mirrors aten/src/ATen/native/AdaptiveMaxPooling2d.cpp and AdaptiveMaxPooling3d.cpp. Along each
spatial dim, output position ``i`` takes the maximum of input positions ``floor(i * in / out)`` to
``ceil((i + 1) * in / out)`` (the windows of adaptive average pooling, pooling.py) and remembers
where it was, as a flat position in the (H, W) plane or (T, H, W) volume. The forward loops over the
(few) output positions, each a vectorised maximum over a block of the input; the backward sends each
gradient to its maximum's position (a scatter-add, recorded, so create_graph works).
"""
from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .pooling import _int_tuple, _shape_list


# --- adaptive max pooling -------------------------------------------------------------------------
class _AdaptiveMaxPoolBackward(Node):
    """out = the maximum of each adaptive window: grad_self = grad sent to the maximum's position
    (``result1``, the indices), a scatter-add as for max pooling."""

    self_: SavedTensor
    result1_: SavedTensor
    dims = 2

    def backward(self, grad: Tensor) -> tuple:
        from .._creation import zeros

        input, indices = self._saved_self, self._saved_result1
        planes = grad.reshape(-1, math.prod(grad.shape[-self.dims:]))
        grad_input = zeros(planes.shape[0], math.prod(input.shape[-self.dims:]), dtype=grad.dtype)
        return (grad_input.scatter_add(1, indices.reshape(planes.shape), planes).reshape(input.shape),)


class AdaptiveMaxPool2DBackward0(_AdaptiveMaxPoolBackward):
    dims = 2


class AdaptiveMaxPool3DBackward0(_AdaptiveMaxPoolBackward):
    dims = 3


def _window_bounds(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Adaptive window i runs from floor(i * in / out) to ceil((i + 1) * in / out)."""
    i = np.arange(out_size)
    return i * in_size // out_size, -(-(i + 1) * in_size // out_size)


def _adaptive_max_pool(dims: int, input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    name = f"adaptive_max_pool{dims}d"
    size = _int_tuple(output_size, "output_size", name, dims)
    if len(size) != dims:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {dims}")
    shape = tuple(input.shape)
    if len(shape) not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {_shape_list(shape)}")
    for i in range(-dims, 0):
        if shape[i] <= 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {_shape_list(shape)} with dimension {i + len(shape)} being empty")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name(input.dtype)}'")
    data, in_sizes, lead = input._data, shape[-dims:], shape[:-dims]
    bounds = [_window_bounds(n, m) for n, m in zip(in_sizes, size)]
    values = np.empty(lead + size, dtype=data.dtype)
    indices = np.empty(lead + size, dtype=np.int64)
    for position in itertools.product(*(range(m) for m in size)):
        starts = [int(bounds[d][0][o]) for d, o in enumerate(position)]
        window = data[(Ellipsis, *(slice(a, int(bounds[d][1][o])) for d, (a, o) in enumerate(zip(starts, position))))]
        flat = window.reshape(lead + (-1,))
        nan = np.isnan(flat)  # a NaN is the maximum, as in PyTorch
        best = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
        values[(Ellipsis, *position)] = np.take_along_axis(flat, best[..., None], -1)[..., 0]
        inside = np.unravel_index(best, window.shape[-dims:])  # the winner's place in its window
        indices[(Ellipsis, *position)] = np.ravel_multi_index(
            tuple(a + i for a, i in zip(starts, inside)), in_sizes)  # ... and in its plane
    out, index_tensor = _wrap(values), _wrap(indices)
    if compute_requires_grad(input):
        node = (AdaptiveMaxPool2DBackward0 if dims == 2 else AdaptiveMaxPool3DBackward0)(input)
        node.self_, node.result1_ = SavedTensor(input), SavedTensor(index_tensor)
        set_history(out, node)
    return out, index_tensor


def adaptive_max_pool2d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """The maximum of each adaptive window of the last two dims, and its flat position in the
    (H, W) plane. ``output_size``: two ints."""
    return _adaptive_max_pool(2, input, output_size)


def adaptive_max_pool3d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """The maximum of each adaptive window of the last three dims, and its flat position in the
    (T, H, W) volume. ``output_size``: three ints."""
    return _adaptive_max_pool(3, input, output_size)
