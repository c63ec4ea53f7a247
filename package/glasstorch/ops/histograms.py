"""Counting values into bins: ``histc`` and ``histogram`` (a module named in the plural: ``histogram`` is the function).

Mirrors ``aten/src/ATen/native/Histogram.cpp``. Bin ``i`` holds the values in
``[edge_i, edge_{i+1})``; the last bin also holds its right edge. Values outside the range are not
counted. Neither op is differentiable (a count does not change when a value moves a little), so
neither records a Node, as in PyTorch.
"""
from __future__ import annotations

from collections import namedtuple
from builtins import range as builtins_range
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap


def _check_floating(input: Tensor, name: str) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{input.dtype.legacy_name[:-len('Tensor')]}'")


def _range_of(values: np.ndarray, low: float, high: float, widen: float = 1.0) -> tuple:
    """histc's range: the data's min and max when low == high, widened by ``widen`` on each side
    when those are equal too."""
    if low == high and values.size:
        low, high = float(values.min()), float(values.max())
    return _checked_range(low, high, widen)


def _checked_range(low: float, high: float, widen: float) -> tuple:
    if low == high:
        low, high = low - widen, high + widen
    if low > high:
        raise RuntimeError("max must be larger than min")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"range of [{low}, {high}] is not finite")
    return low, high


def _histogram_range(values: np.ndarray, bounds: Any) -> tuple:
    """histogram's range: the one given, else the data's min and max (0 and 0 without data);
    equal ends are widened by 0.5 on each side (histc widens by 1)."""
    if bounds is None:
        bounds = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    return _checked_range(float(bounds[0]), float(bounds[1]), 0.5)


def _uniform_edges(low: float, high: float, bins: int, dtype: np.dtype) -> np.ndarray:
    """``bins + 1`` equal-width edges from ``low`` to ``high`` as PyTorch's ``linspace`` computes them
    in ``dtype``: the first half from the start, the second half back from the end, each as a fused
    multiply-add (one rounding, emulated in a wider type). Bit for bit, so that a value lying on an
    edge lands in the same bin as in PyTorch."""
    start, end = dtype.type(low), dtype.type(high)
    step = (end - start) / dtype.type(bins)
    wide = np.float64 if dtype.itemsize < 8 else np.longdouble
    i = np.arange(bins + 1)
    from_start = wide(start) + wide(step) * i.astype(wide)
    from_end = wide(end) - wide(step) * (bins - i).astype(wide)
    return np.where(i < (bins + 1) // 2, from_start, from_end).astype(dtype)


def _counts(values: np.ndarray, edges: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """How many values (or how much weight) fall into each bin between ``edges``."""
    inside = (values >= edges[0]) & (values <= edges[-1])
    bins = np.clip(np.searchsorted(edges, values[inside], side="right") - 1, 0, len(edges) - 2)
    return np.bincount(bins, weights=None if weight is None else weight[inside], minlength=len(edges) - 1)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out: Any = None) -> Tensor:  # noqa: A002
    """The counts of ``bins`` equal-width bins over [min, max] (the data's range when both are 0)."""
    _check_floating(input, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    values = input._data.reshape(-1)
    low, high = _range_of(values, float(min), float(max))
    # histc places a value by (x - min) * bins / (max - min), as PyTorch computes it
    inside = values[(values >= low) & (values <= high)]
    position = np.minimum(((inside - low) * bins / (high - low)).astype(np.int64), bins - 1)
    result = _wrap(np.bincount(position, minlength=bins).astype(input._data.dtype))
    if out is None:
        return result
    from ._arguments import write_out

    return write_out(out, result)


_histogram = namedtuple("histogram", ["hist", "bin_edges"])


class return_types_histogram(_histogram):
    """``(hist, bin_edges)``, printed as PyTorch's ``torch.return_types.histogram``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glasstorch.return_types.histogram(\nhist={self.hist!r},\nbin_edges={self.bin_edges!r})"


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False) -> return_types_histogram:
    """Counts per bin and the bins' edges. ``bins``: a number of equal bins over ``range`` (the
    data's range by default), or a 1-D tensor of increasing edges. ``weight``: each value counts
    its weight; ``density``: counts divided by (total * bin width), so the histogram integrates to 1."""
    _check_floating(input, "histogram_cpu")
    values, dtype = input._data.reshape(-1), input._data.dtype
    if isinstance(bins, Tensor):
        edges = bins._data.astype(dtype)
        if edges.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {edges.ndim} "
                               "dimensions in the bins tensor for dimension 0")
        if edges.size < 2:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {edges.size - 1} for dimension 0")
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        low, high = _histogram_range(values, range)
        edges = _uniform_edges(low, high, int(bins), np.dtype(dtype))
    if weight is not None and weight._data.shape != input._data.shape:
        raise RuntimeError("torch.histogram(): if weight tensor is provided it should have the same shape as the input tensor")
    hist = _counts(values, edges, None if weight is None else weight._data.reshape(-1)).astype(dtype)
    if density:
        hist = hist / (hist.sum() * np.diff(edges))
    return return_types_histogram(_wrap(hist.astype(dtype)), _wrap(edges))


_histogramdd = namedtuple("histogramdd", ["hist", "bin_edges"])


class return_types_histogramdd(_histogramdd):
    """``(hist, bin_edges)``, printed as PyTorch's ``torch.return_types.histogramdd``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glasstorch.return_types.histogramdd(\nhist={self.hist!r},\nbin_edges={self.bin_edges!r})"


def histogramdd(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False) -> return_types_histogramdd:
    """A D-dimensional histogram of the points in the last dim of ``input`` (shape (..., D)): per dim
    a number of equal bins over ``range`` (flat [min0, max0, min1, max1, ...]; the data's range by
    default) or a 1-D tensor of edges. Each bin holds [edge_i, edge_{i+1}), the last one its right
    edge too (added by the maintainers of issue 14, for PyTorch's docstring example)."""
    _check_floating(input, "histogramdd")
    dims = input._data.shape[-1]
    points = input._data.reshape(-1, dims)
    dtype = input._data.dtype
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    if len(per_dim) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should have {2 * dims} "
                           f"elements, but got {len(range)}")
    edges = []
    for d, b in enumerate(per_dim):
        if isinstance(b, Tensor):
            edges.append(b._data.astype(dtype))
        else:
            low, high = _histogram_range(points[:, d], None if range is None else range[2 * d:2 * d + 2])
            edges.append(_uniform_edges(low, high, int(b), np.dtype(dtype)))
    inside = np.ones(len(points), dtype=bool)
    places = []
    for d, e in enumerate(edges):
        inside &= (points[:, d] >= e[0]) & (points[:, d] <= e[-1])
        places.append(np.clip(np.searchsorted(e, points[:, d], side="right") - 1, 0, len(e) - 2))
    shape = tuple(len(e) - 1 for e in edges)
    flat_bins = np.ravel_multi_index(tuple(p[inside] for p in places), shape) if len(points) else np.zeros(0, np.int64)
    weights = None if weight is None else weight._data.reshape(-1)[inside]
    hist = np.bincount(flat_bins, weights=weights, minlength=int(np.prod(shape))).reshape(shape).astype(np.float64)
    if density:
        volume = np.ones(shape)
        for d, e in enumerate(edges):
            volume = volume * np.diff(e).reshape([-1 if i == d else 1 for i in builtins_range(dims)])
        hist = hist / (hist.sum() * volume)
    return return_types_histogramdd(_wrap(hist.astype(dtype)), tuple(_wrap(e) for e in edges))
