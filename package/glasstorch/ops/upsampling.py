"""Resizing images and signals: ``interpolate`` (nearest, nearest-exact, linear, bilinear, trilinear)
and the pixel rearrangements ``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``.

Mirrors ``aten/src/ATen/native/UpSample.h`` (``area_pixel_compute_source_index``,
``nearest_idx``), ``UpSampleNearest*d.cpp``, ``UpSampleBilinear2d.cpp`` and ``PixelShuffle.cpp``.
Linear interpolation is separable: each spatial dim in turn, every output position reads the two
nearest input positions (``index_select``) and mixes them by its distance to each, so the
gradient goes back through those two selections. Simplified: PyTorch records one
``UpsampleBilinear2DBackward0`` (``UpsampleNearest2DBackward0``, ...); glasstorch's ``grad_fn`` is
the last op of the composition. ``bicubic`` and ``area`` are not implemented (NotImplementedError).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap

_LINEAR_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _source_scale(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> float:
    """PyTorch's ``area_pixel_compute_scale``: input pixels per output pixel."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _nearest_index(in_size: int, out_size: int, scale: float | None, exact: bool) -> np.ndarray:
    ratio = 1.0 / scale if scale is not None and scale > 0 else in_size / out_size
    positions = np.arange(out_size, dtype=np.float64)
    # float32 arithmetic, as PyTorch's kernel computes the source index
    source = np.floor(((positions + 0.5) if exact else positions).astype(np.float32) * np.float32(ratio))
    return np.minimum(source.astype(np.int64), in_size - 1)


def _linear_along(x: Tensor, dim: int, out_size: int, align_corners: bool, scale: float | None) -> Tensor:
    in_size = x.shape[dim]
    ratio = _source_scale(in_size, out_size, align_corners, scale)
    positions = np.arange(out_size, dtype=np.float64)
    source = positions * ratio if align_corners else np.maximum((positions + 0.5) * ratio - 0.5, 0.0)
    low = np.minimum(np.floor(source).astype(np.int64), in_size - 1)
    high = np.minimum(low + 1, in_size - 1)
    weight = (source - low).astype(x._data.dtype)
    shape = [1] * x.dim()
    shape[dim] = out_size
    w = _wrap(weight.reshape(shape))
    below, above = x.index_select(dim, _wrap(low)), x.index_select(dim, _wrap(high))
    return below + (above - below) * w


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
    if input.dim() < 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    sizes, scales = _output_sizes(input, size, scale_factor)
    if recompute_scale_factor:
        scales = [None] * len(sizes)
    out = input
    if mode in ("nearest", "nearest-exact"):
        for offset, (out_size, scale) in enumerate(zip(sizes, scales)):
            dim = 2 + offset
            out = out.index_select(dim, _wrap(_nearest_index(out.shape[dim], out_size, scale, mode == "nearest-exact")))
        return out
    if mode in _LINEAR_MODES:
        for offset, (out_size, scale) in enumerate(zip(sizes, scales)):
            out = _linear_along(out, 2 + offset, out_size, bool(align_corners), scale)
        return out
    raise NotImplementedError(f"interpolate: mode '{mode}' is not implemented in glasstorch (nearest, nearest-exact, "
                              f"linear, bilinear and trilinear are)")


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated in PyTorch for ``interpolate``, which it calls."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


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
    x = input.reshape(*batch, channels // (r * r), r, r, height, width)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, channels // (r * r), height * r, width * r)


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
    x = input.reshape(*batch, channels, height // r, r, width // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, channels * r * r, height // r, width // r)


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
    x = input.reshape(batch, groups, channels // groups, *rest).transpose(1, 2)
    return x.reshape(batch, channels, *rest)


native_channel_shuffle = channel_shuffle
