"""Resizing images and signals: ``interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, area) and the pixel rearrangements ``pixel_shuffle``, ``pixel_unshuffle``,
``channel_shuffle``.

Mirrors ``aten/src/ATen/native/UpSample.h`` (``area_pixel_compute_scale``,
``area_pixel_compute_source_index``, ``nearest_idx``, the cubic coefficients),
``UpSampleNearest*d.cpp``, ``UpSampleLinear1d.cpp``, ``UpSampleBilinear2d.cpp``,
``UpSampleBicubic2d.cpp``, ``UpSampleTrilinear3d.cpp``, ``PixelShuffle.cpp`` and
``ChannelShuffle.cpp``; the ``area`` mode is adaptive average pooling, as in PyTorch.

**Interpolation is separable.** Along each spatial dim, output position ``o`` reads a few input
positions ("taps": 1 for nearest, 2 for linear, 4 for cubic) and mixes them with weights that
depend only on the sizes. So each dim is a fixed (out, in) matrix ``M`` with at most 4 non-zeros
a row, and the whole resize is ``M`` applied along each spatial dim in turn. The forward reads
only the taps, as PyTorch's kernels do (a product with the whole matrix would multiply every other
input by 0, and one inf in the input would make its whole row NaN); the backward applies
the transposed matrices, ``grad @ M`` along each dim, written with Tensor ops so that
``create_graph`` works. One Node per mode and rank, with PyTorch's names
(``UpsampleBilinear2DBackward0`` ...). Simplified: no ``antialias`` (NotImplementedError).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node
from ._util import compute_requires_grad, set_history

_LINEAR_MODES = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_CUBIC_A = -0.75  # the cubic convolution's free parameter, as PyTorch (and OpenCV) choose it


# --- where each output position reads: the taps of one spatial dim --------------------------------
@dataclass
class _Taps:
    """Output position ``o`` of one dim is ``sum over t of weight[o, t] * input[index[o, t]]``."""

    index: np.ndarray   # (out, taps) int64
    weight: np.ndarray  # (out, taps) float64
    in_size: int

    def matrix(self) -> np.ndarray:
        """The same map as an (out, in) matrix (taps that repeat an index add up)."""
        out = np.zeros((self.index.shape[0], self.in_size))
        np.add.at(out, (np.arange(self.index.shape[0])[:, None], self.index), self.weight)
        return out


def _source_scale(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> float:
    """PyTorch's ``area_pixel_compute_scale``: input pixels per output pixel."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _source_positions(in_size: int, out_size: int, align_corners: bool, scale: float | None,
                      cubic: bool) -> np.ndarray:
    """PyTorch's ``area_pixel_compute_source_index``: where each output position sits in the
    input's coordinates (pixel centres, or corners with ``align_corners``). Linear modes clamp a
    negative position to 0; the cubic mode keeps it (its taps are clamped instead)."""
    ratio = _source_scale(in_size, out_size, align_corners, scale)
    positions = np.arange(out_size, dtype=np.float64)
    if align_corners:
        return positions * ratio
    source = (positions + 0.5) * ratio - 0.5
    return source if cubic else np.maximum(source, 0.0)


def _nearest_taps(in_size: int, out_size: int, scale: float | None, exact: bool) -> _Taps:
    """PyTorch's ``nearest_idx`` / ``nearest_exact_idx`` (float32 arithmetic, as its kernel)."""
    if not exact and out_size in (in_size, 2 * in_size):
        index = np.arange(out_size) * in_size // out_size  # the kernel's exact shortcuts
    else:
        ratio = 1.0 / scale if scale is not None and scale > 0 else in_size / out_size
        positions = np.arange(out_size, dtype=np.float64)
        source = np.floor(((positions + 0.5) if exact else positions).astype(np.float32) * np.float32(ratio))
        index = np.minimum(source.astype(np.int64), in_size - 1)
    return _Taps(index[:, None], np.ones((out_size, 1)), in_size)


def _linear_taps(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> _Taps:
    """The two neighbours of each source position, weighted by closeness."""
    source = _source_positions(in_size, out_size, align_corners, scale, cubic=False)
    low = np.minimum(np.floor(source).astype(np.int64), in_size - 1)
    high = np.minimum(low + 1, in_size - 1)
    t = source - low
    return _Taps(np.stack([low, high], 1), np.stack([1.0 - t, t], 1), in_size)


def _cubic_taps(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> _Taps:
    """Four neighbours (clamped to the edge) weighted by the cubic convolution kernel (Keys, 1981)."""
    source = _source_positions(in_size, out_size, align_corners, scale, cubic=True)
    start = np.floor(source).astype(np.int64)
    t = source - start

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A

    weight = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], 1)
    index = np.clip(start[:, None] + np.arange(-1, 3), 0, in_size - 1)
    return _Taps(index, weight, in_size)


def _taps(mode: str, in_size: int, out_size: int, align_corners: bool, scale: float | None) -> _Taps:
    if mode in ("nearest", "nearest-exact"):
        return _nearest_taps(in_size, out_size, scale, mode == "nearest-exact")
    if mode == "bicubic":
        return _cubic_taps(in_size, out_size, align_corners, scale)
    return _linear_taps(in_size, out_size, align_corners, scale)


# --- the differentiable resize ------------------------------------------------------------------------
class _UpsampleBackward(Node):
    """out = x with each spatial dim mapped by its matrix M_d (out_d, in_d): the gradient is
    grad with M_d transposed applied along each dim, ``grad @ M_d``; linear in grad, so its own
    backward is the forward again (recorded by the Tensor ops)."""

    self_sym_sizes: tuple
    output_size: tuple

    def backward(self, grad: Tensor) -> tuple:
        for offset, matrix in enumerate(self._matrices):
            dim = 2 + offset
            grad = grad.movedim(dim, -1).matmul(_wrap(matrix.astype(grad._data.dtype))).movedim(-1, dim)
        return (grad,)


class _Upsample1D(_UpsampleBackward):
    scales: float | None  # the scale_factor PyTorch's kernel was given (None: from the sizes)


class _Upsample2D(_UpsampleBackward):
    scales_h: float | None
    scales_w: float | None


class _Upsample3D(_UpsampleBackward):
    scales_d: float | None
    scales_h: float | None
    scales_w: float | None


class UpsampleNearest1DBackward0(_Upsample1D):
    pass


class UpsampleNearest2DBackward0(_Upsample2D):
    pass


class UpsampleNearest3DBackward0(_Upsample3D):
    pass


class UpsampleNearestExact1DBackward0(_Upsample1D):
    pass


class UpsampleNearestExact2DBackward0(_Upsample2D):
    pass


class UpsampleNearestExact3DBackward0(_Upsample3D):
    pass


class UpsampleLinear1DBackward0(_Upsample1D):
    align_corners: bool


class UpsampleBilinear2DBackward0(_Upsample2D):
    align_corners: bool


class UpsampleBicubic2DBackward0(_Upsample2D):
    align_corners: bool


class UpsampleTrilinear3DBackward0(_Upsample3D):
    align_corners: bool


_NODES = {("nearest", 1): UpsampleNearest1DBackward0, ("nearest", 2): UpsampleNearest2DBackward0,
          ("nearest", 3): UpsampleNearest3DBackward0, ("nearest-exact", 1): UpsampleNearestExact1DBackward0,
          ("nearest-exact", 2): UpsampleNearestExact2DBackward0, ("nearest-exact", 3): UpsampleNearestExact3DBackward0,
          ("linear", 1): UpsampleLinear1DBackward0, ("bilinear", 2): UpsampleBilinear2DBackward0,
          ("bicubic", 2): UpsampleBicubic2DBackward0, ("trilinear", 3): UpsampleTrilinear3DBackward0}


def _resample_values(data: np.ndarray, taps: list) -> np.ndarray:
    """Each spatial dim in turn: the weighted sum of its taps (in float32 at least)."""
    out = data.astype(np.result_type(data.dtype, np.float32), copy=False)
    for offset, tap in enumerate(taps):
        axis = 2 + offset
        weight_shape = [1] * out.ndim
        weight_shape[axis] = tap.index.shape[0]
        total = None
        for t in range(tap.index.shape[1]):
            term = np.take(out, tap.index[:, t], axis=axis)
            if tap.index.shape[1] > 1:  # nearest copies: no multiplication by 1
                term = term * tap.weight[:, t].astype(out.dtype).reshape(weight_shape)
            total = term if total is None else total + term
        out = total
    if data.dtype.kind == "u":  # uint8 images: rounded and kept in range
        out = np.clip(np.rint(out), 0, 255)
    return out.astype(data.dtype, copy=False)


_KERNELS = {"nearest": "nearest", "nearest-exact": "nearest", "bicubic": "cubic"}


def _check_dtype(input: Tensor, mode: str) -> None:
    """Floating inputs, and uint8 images where PyTorch has a kernel for them."""
    dtype = input.dtype
    if dtype.is_floating_point or (dtype.name == "uint8" and mode in ("nearest", "nearest-exact", "bilinear",
                                                                      "bicubic")):
        return
    raise NotImplementedError(f"\"compute_indices_weights_{_KERNELS.get(mode, 'linear')}\" not implemented for "
                              f"'{scalar_type_name(dtype)}'")


def _resample(input: Tensor, mode: str, sizes: list, scales: list, align_corners: bool) -> Tensor:
    _check_dtype(input, mode)
    taps = [_taps(mode, n, size, align_corners, scale) for n, size, scale in zip(input.shape[2:], sizes, scales)]
    out = _wrap(_resample_values(input._data, taps))
    if compute_requires_grad(input):
        node = _NODES[mode, len(sizes)](input)
        node._matrices = [tap.matrix() for tap in taps]
        node.self_sym_sizes, node.output_size = tuple(input.shape), tuple(sizes)
        if mode not in ("nearest", "nearest-exact"):
            node.align_corners = align_corners
        names = ["scales"] if len(sizes) == 1 else ["scales_d", "scales_h", "scales_w"][-len(sizes):]
        for name, scale in zip(names, scales):
            setattr(node, name, scale)  # grad_fn._saved_scales_h ..., as PyTorch shows them
        set_history(out, node)
    return out


def _output_sizes(input: Tensor, size: Any, scale_factor: Any) -> tuple:
    spatial = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [int(size)] * spatial if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        if len(sizes) != spatial:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {sizes}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        return sizes, [None] * spatial
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = [float(scale_factor)] * spatial if isinstance(scale_factor, (int, float)) else [float(s) for s in scale_factor]
    if len(scales) != spatial:
        raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input with "
                         f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scales}. Please "
                         f"provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                         f"format.")
    return [int(math.floor(n * s)) for n, s in zip(input.shape[2:], scales)], scales


def _area(input: Tensor, sizes: list) -> Tensor:
    """``mode='area'`` is adaptive average pooling to the output size (PyTorch calls it so)."""
    from ..nn import functional as F

    pool = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}[len(sizes)]
    return pool(input, sizes)


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims (all but batch and channel) to ``size``, or by ``scale_factor``."""
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode in _LINEAR_MODES and input.dim() != _LINEAR_MODES[mode]:
        wanted = {3: "3D", 4: "4D", 5: "5D"}[_LINEAR_MODES[mode]]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted} input")
    if input.dim() < 3 or input.dim() > 5:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    if antialias:
        if mode not in ("bilinear", "bicubic") or input.dim() != 4:
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                             "4-D tensor as input")
        # a wider, size-dependent filter when shrinking: not written yet, and never a silent plain resize
        raise NotImplementedError("interpolate: antialias=True is not implemented in glasstorch")
    sizes, scales = _output_sizes(input, size, scale_factor)
    if recompute_scale_factor:
        scales = [None] * len(sizes)
    if mode == "area":
        return _area(input, sizes)
    if mode in ("nearest", "nearest-exact") or mode in _LINEAR_MODES:
        return _resample(input, mode, sizes, scales, bool(align_corners))
    raise NotImplementedError(f"{mode} is not a mode of interpolate: nearest, nearest-exact, linear, bilinear, "
                              "bicubic, trilinear or area")


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated in PyTorch for ``interpolate``, which it calls."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- pixel and channel shuffles: permutations of the elements, each undone by its twin ---------------
class PixelShuffleBackward0(Node):
    """out = pixel_shuffle(self, r), a permutation: grad_self = pixel_unshuffle(grad, r)."""

    upscale_factor: int

    def backward(self, grad: Tensor) -> tuple:
        return (pixel_unshuffle(grad, self.upscale_factor),)


class PixelUnshuffleBackward0(Node):
    """out = pixel_unshuffle(self, r), a permutation: grad_self = pixel_shuffle(grad, r)."""

    downscale_factor: int

    def backward(self, grad: Tensor) -> tuple:
        return (pixel_shuffle(grad, self.downscale_factor),)


class ChannelShuffleBackward0(Node):
    """out = channel_shuffle(self, g) reads the channels as a (g, C / g) grid and transposes it;
    transposing back is shuffling with C / g groups: grad_self = channel_shuffle(grad, C / g)."""

    groups: int

    def backward(self, grad: Tensor) -> tuple:
        return (channel_shuffle(grad, grad.shape[1] // self.groups),)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r², H, W) -> (*, C, H * r, W * r): each group of r² channels becomes an r x r patch."""
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, channels, height, width = input.shape
    if channels % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={channels} is not divisible by {r * r}")
    n = len(batch)
    out = _wrap(np.ascontiguousarray(
        input._data.reshape(*batch, channels // (r * r), r, r, height, width)
        .transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)).reshape(*batch, channels // (r * r), height * r, width * r))
    if compute_requires_grad(input):
        node = PixelShuffleBackward0(input)
        node.upscale_factor = r
        set_history(out, node)
    return out


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) -> (*, C * r², H, W), the inverse of ``pixel_shuffle``."""
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, channels, height, width = input.shape
    if height % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{height} is not divisible by {r}")
    if width % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{width} is not divisible by {r}")
    n = len(batch)
    out = _wrap(np.ascontiguousarray(
        input._data.reshape(*batch, channels, height // r, r, width // r, r)
        .transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)).reshape(*batch, channels * r * r, height // r, width // r))
    if compute_requires_grad(input):
        node = PixelUnshuffleBackward0(input)
        node.downscale_factor = r
        set_history(out, node)
    return out


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, g * k, *) -> the channels regrouped: channel j of group i moves to place j * g + i."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    batch, channels, *rest = input.shape
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups.")
    out = _wrap(np.ascontiguousarray(input._data.reshape(batch, groups, channels // groups, *rest).swapaxes(1, 2))
                .reshape(input._data.shape))
    if compute_requires_grad(input):
        node = ChannelShuffleBackward0(input)
        node.groups = int(groups)
        set_history(out, node)
    return out


# PyTorch's native_channel_shuffle records a Node without a backward ("NotImplemented");
# glasstorch's is channel_shuffle itself, differentiable
native_channel_shuffle = channel_shuffle
