"""Fractional max pooling (Graham, 2014): max pooling whose output size is not the input's divided
by a whole number, so the windows start at pseudo-random, unevenly spaced places. What
``F.fractional_max_pool2d/3d`` and ``nn.FractionalMaxPool2d/3d`` call.

Mirrors aten/src/ATen/native/FractionalMaxPool2d.cpp and FractionalMaxPool3d.cpp. For each
(sample, channel) plane one random number u in [0, 1) per spatial dim places the windows: with
alpha = (input - pool) / (output - 1), window i starts at int((i + u) * alpha) - int(u * alpha),
and the last one at input - pool (computed in the input's dtype, as PyTorch's kernel does). Each
output is the maximum of its window (the first one in row-major order among equal maxima); the
backward sends each output's gradient to that position (``FractionalMaxPool2DBackward0``).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history


def _starts(sample: np.ndarray, input_size: int, output_size: int, pool_size: int) -> np.ndarray:
    """Where each window starts, for every plane's ``sample`` at once: (planes,) -> (planes, output)."""
    dtype = sample.dtype
    starts = np.empty(sample.shape + (output_size,), dtype=np.int64)
    if output_size > 1:
        alpha = dtype.type(input_size - pool_size) / dtype.type(output_size - 1)
        steps = np.arange(output_size - 1, dtype=dtype)
        # float to int truncates toward zero, as C++'s static_cast<int>
        starts[..., :-1] = ((steps + sample[..., None]) * alpha).astype(np.int64) - \
            (sample * alpha).astype(np.int64)[..., None]
    starts[..., -1] = input_size - pool_size
    return starts


class _FractionalMaxPoolBackward(Node):
    """out = the maximum of each window: the gradient goes to the position that gave it."""

    self_: SavedTensor
    kernel_size: tuple
    output_size: tuple
    result1_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        from .._creation import zeros

        input = self._saved_self
        plane_size = int(np.prod(input.shape[-len(self.kernel_size):]))
        planes = grad.reshape(-1, int(np.prod(self.output_size)))
        positions = self._saved_result1.reshape(planes.shape)
        # a scatter-add (windows may overlap), recorded: its own backward is a gather
        grad_input = zeros(planes.shape[0], plane_size, dtype=grad.dtype).scatter_add(1, positions, planes)
        return (grad_input.reshape(input.shape),)


class FractionalMaxPool2DBackward0(_FractionalMaxPoolBackward):
    pass


class FractionalMaxPool3DBackward0(_FractionalMaxPoolBackward):
    pass


def fractional_max_pool(input: Tensor, kernel_size: tuple, output_size: tuple, samples: Tensor) -> tuple:
    """(values, indices) of fractional max pooling over the last len(kernel_size) dims (2 or 3) of a
    (N, C, *size) or (C, *size) input; ``samples`` (N, C, dims) places the windows. ``indices`` are
    flat positions within each plane, as PyTorch's."""
    dims = len(kernel_size)
    name = f"fractional_max_pool{dims}d"
    shape = input._data.shape
    if len(shape) not in (dims + 1, dims + 2) or 0 in shape[-dims - 1:]:
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(shape)}")
    sizes = shape[-dims:]
    # PyTorch's 3-D kernel wants the last window to end strictly inside the input (its 2-D one
    # lets it reach the end), and names its check after its out= variant
    spare, where = (0, name) if dims == 2 else (1, f"{name}_out")
    for axis_name, size, pool, out in zip(("time", "height", "width")[-dims:], sizes, kernel_size, output_size):
        if out + pool - 1 + spare > size:
            raise RuntimeError(f"{where}(): pool {axis_name} {pool} too large relative to input {axis_name} {size}")
    x = input._data.reshape((-1,) + sizes)  # (planes, *size)
    u = samples._data.astype(input._data.dtype).reshape(x.shape[0], dims)
    if dims == 2:
        u = u[:, ::-1]  # PyTorch's 2d kernel reads sample 0 for the width, 1 for the height
    # every window as a gather: index arrays (planes, out_d, pool_d) per spatial dim, broadcast together
    starts = [_starts(u[:, d], sizes[d], output_size[d], kernel_size[d]) for d in range(dims)]  # (planes, out_d)
    grids = []
    for d in range(dims):
        index_shape = [x.shape[0]] + [1] * (2 * dims)
        index_shape[1 + d], index_shape[1 + dims + d] = output_size[d], kernel_size[d]
        grids.append((starts[d][..., None] + np.arange(kernel_size[d])).reshape(index_shape))
    planes = np.arange(x.shape[0]).reshape([-1] + [1] * (2 * dims))
    windows = x[(planes, *grids)].reshape(x.shape[0], *output_size, -1)  # (planes, *output, window)
    best = windows.argmax(axis=-1)  # the first maximum in row-major order
    values = np.take_along_axis(windows, best[..., None], axis=-1)[..., 0]
    # the winner's flat position in its plane: its window's start plus its offset inside, per dim
    offsets = np.unravel_index(best, kernel_size)
    position = np.zeros(best.shape, dtype=np.int64)
    for d in range(dims):
        start_shape = [x.shape[0]] + [output_size[k] if k == d else 1 for k in range(dims)]
        position = position * sizes[d] + starts[d].reshape(start_shape) + offsets[d]
    out_shape = shape[:-dims] + tuple(output_size)
    out = _wrap(values.reshape(out_shape))
    indices = _wrap(position.reshape(out_shape))
    if compute_requires_grad(input):
        node = (FractionalMaxPool2DBackward0 if dims == 2 else FractionalMaxPool3DBackward0)(input)
        node.self_, node.result1_ = SavedTensor(input), SavedTensor(indices)
        node.kernel_size, node.output_size = tuple(kernel_size), tuple(output_size)
        set_history(out, node)
    return out, indices
