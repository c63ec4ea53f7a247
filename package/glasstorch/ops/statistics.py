"""Order statistics and the reductions around them, found missing by running the examples in
PyTorch's own docstrings (issue 14): median, nanmedian, quantile, nanquantile, kthvalue, mode,
aminmax, cummax, cummin, logcumsumexp, count_nonzero, nansum, nanmean, diff, cov, corrcoef.

Mirrors ``aten/src/ATen/native/Sorting.cpp`` and ``ReduceOps.cpp``. Where an op picks elements
(median, kthvalue, mode, cummax), numpy finds the indices and the op records PyTorch's Node
(``MedianBackward1``, ``KthvalueBackward0``, ``CummaxBackward0`` ...), whose backward sends each
gradient back to the picked element. ``median()`` of a whole tensor shares it among equal
elements, as ``max()`` does. quantile, nanmean, diff, cov and corrcoef are composed from
differentiable ops, as in PyTorch (whose last op names their ``grad_fn``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node, SavedTensor
from ._arguments import normalize_dims
from ._util import compute_requires_grad, set_history
from .indexing import where
from .reduction import (_as_given, _EvenlyDistributed, _IndexedReduction, _PairOutputNode, _restore_dims,
                        _return_type, _reverse_cumsum, evenly_distribute_backward)

return_types_median = _return_type("median")
return_types_nanmedian = _return_type("nanmedian")
return_types_kthvalue = _return_type("kthvalue")
return_types_mode = _return_type("mode")
return_types_cummax = _return_type("cummax")
return_types_cummin = _return_type("cummin")


def _axis(input: Tensor, dim: int) -> int:
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


class MedianBackward0(_EvenlyDistributed):
    """out = self.median():  the gradient is shared by the elements equal to the median."""


class NanmedianBackward0(_EvenlyDistributed):
    """out = self.nanmedian():  as MedianBackward0."""


class MedianBackward1(_IndexedReduction):
    """(values, indices) = self.median(dim):  each gradient goes to the element at its index."""


class NanmedianBackward1(_IndexedReduction):
    """(values, indices) = self.nanmedian(dim):  as MedianBackward1."""


class KthvalueBackward0(_IndexedReduction):
    """(values, indices) = self.kthvalue(k, dim):  each gradient goes to the element at its index."""


class ModeBackward0(_IndexedReduction):
    """(values, indices) = self.mode(dim):  each gradient goes to the element at its index."""


def _picked(input: Tensor, index: np.ndarray, axis: int, keepdim: bool, node_class: type, return_type: type,
            dim: int) -> Any:
    """``(values, indices)``: the input's elements at ``index`` (kept dims) along ``axis``, recorded
    by ``node_class`` (an indexed reduction: the gradient goes back to those elements)."""
    data = input._data.reshape(input._data.shape or (1,))
    values = np.take_along_axis(data, index, axis=axis)
    if not keepdim:
        values, index = np.squeeze(values, axis), np.squeeze(index, axis)
    shape = values.shape if input.dim() else ()
    out, indices = _wrap(values.reshape(shape)), _wrap(index.astype(np.int64).reshape(shape))
    if compute_requires_grad(input):
        node = node_class(input)
        node.dim, node.keepdim, node.self_sym_sizes = dim, keepdim, input._data.shape
        node.indices_ = SavedTensor(indices, is_output=True)  # output 1: the indices
        set_history(out, node)
    return return_type(out, indices)


def _median_of_all(input: Tensor, ignore_nan: bool, node_class: type) -> Tensor:
    """The lower median of every element (NaN if one is NaN, unless ``ignore_nan``)."""
    data = input._data.reshape(-1)
    nans = np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, bool)
    kept = data[~nans] if ignore_nan else data
    if kept.size == 0 or (not ignore_nan and nans.any()):
        value = np.nan  # (an empty tensor, or a NaN that median does not skip)
    else:
        value = np.sort(kept)[(kept.size - 1) // 2]
    out = _wrap(np.asarray(value, dtype=data.dtype))
    if compute_requires_grad(input):
        node = node_class(input)
        node.self_, node.result_ = SavedTensor(input), SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


def _not_implemented_for(input: Tensor, kernel: str, kinds: str) -> None:
    """PyTorch's refusal of a dtype its kernel has no version for (``kinds``: numpy's dtype kinds)."""
    if input._data.dtype.kind in kinds:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'")


def _median(input: Tensor, dim: int | None, keepdim: bool, ignore_nan: bool) -> Any:
    _not_implemented_for(input, "median_cpu" if dim is None else "median_out", "b")
    if dim is None:
        return _median_of_all(input, ignore_nan, NanmedianBackward0 if ignore_nan else MedianBackward0)
    node_class, return_type = ((NanmedianBackward1, return_types_nanmedian) if ignore_nan else
                               (MedianBackward1, return_types_median))
    axis = _axis(input, dim)
    data = input._data.reshape(input._data.shape or (1,))
    if data.shape[axis] == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    if data.dtype.kind == "f":
        nans = np.isnan(data)
        count = (~nans).sum(axis=axis, keepdims=True) if ignore_nan else np.full_like(nans.sum(axis=axis, keepdims=True), data.shape[axis])
        k = np.maximum(count - 1, 0) // 2
        index = np.take_along_axis(np.argsort(data, axis=axis, kind="stable"), k, axis=axis)
        if not ignore_nan:  # a NaN in a row makes that row's median NaN (the first NaN's index)
            has_nan = nans.any(axis=axis, keepdims=True)
            index = np.where(has_nan, np.expand_dims(np.argmax(nans, axis=axis), axis), index)
    else:
        k = np.full(tuple(1 if i == axis else n for i, n in enumerate(data.shape)), (data.shape[axis] - 1) // 2)
        index = np.take_along_axis(np.argsort(data, axis=axis, kind="stable"), k, axis=axis)
    return _picked(input, index, axis, keepdim, node_class, return_type, dim)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median (of an even count, the smaller of the two middle values). Without ``dim``:
    one value of the whole tensor; with ``dim``: ``(values, indices)``. A NaN makes it NaN."""
    return _median(input, dim, keepdim, False)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """``median`` of the values that are not NaN."""
    return _median(input, dim, keepdim, True)


def _quantile(input: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool,
              name: str) -> Tensor:
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    q_values = np.asarray(getattr(q, "_data", q), dtype=np.float64)
    if q_values.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((q_values < 0) | (q_values > 1)).any():
        if q_values.ndim == 0:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {float(q_values)}")
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if input.numel() == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    x, axis = (input.reshape(-1), 0) if dim is None else (input, _axis(input, dim))
    if x.dim() == 0:
        x = x.reshape(1)
    ordered = x.sort(axis).values  # NaN sorts last, as in PyTorch
    nans = np.isnan(x._data)
    counts = ((~nans).sum(axis=axis, keepdims=True) if ignore_nan else
              np.full(nans.sum(axis=axis, keepdims=True).shape, x.shape[axis]))
    results = []
    dtype = x._data.dtype
    for quantile in np.atleast_1d(q_values):
        # in the input's dtype, as PyTorch computes it (0.1 * 5 is 0.5 in float32, not a bit above)
        rank = dtype.type(quantile) * np.maximum(counts - 1, 0).astype(dtype)
        low, high = np.floor(rank).astype(np.int64), np.ceil(rank).astype(np.int64)
        if interpolation == "nearest":
            low = high = np.round(rank).astype(np.int64)  # round half to even, as PyTorch's round()
        below, above = ordered.gather(axis, _wrap(low)), ordered.gather(axis, _wrap(high))
        if interpolation in ("lower", "nearest"):
            value = below
        elif interpolation == "higher":
            value = above
        elif interpolation == "midpoint":
            value = below + (above - below) * 0.5
        else:
            value = below + (above - below) * _wrap((rank - low).astype(x._data.dtype))
        # a row with a NaN: NaN (quantile), or all NaN (nanquantile)
        empty_or_nan = (counts == 0) if ignore_nan else nans.any(axis=axis, keepdims=True)
        if empty_or_nan.any():
            value = where(_wrap(empty_or_nan), float("nan"), value)
        if dim is None:
            value = value.reshape([1] * input.dim()) if keepdim else value.reshape(())
        elif not keepdim:
            value = value.squeeze(axis) if input.dim() else value.reshape(())
        results.append(value.unsqueeze(-1))
    return _quantiles_first(results, scalar_q=q_values.ndim == 0)


def _quantiles_first(results: list, scalar_q: bool) -> Tensor:
    """The quantiles (each with a last dim of size 1) as PyTorch lays them out and records them: for
    a scalar q the last dim is squeezed away in place (hence ``SqueezeBackward4``); for a 1-D q it
    is moved first, then squeezed."""
    from .shape import SqueezeBackward4, cat, squeeze

    values = cat(results, -1) if len(results) > 1 else results[0]
    if not scalar_q:
        values = values.unsqueeze(0).transpose(0, -1)
    return squeeze(values, -1, _node_class=SqueezeBackward4)


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles along ``dim`` (of all elements when None): the value at rank q * (n - 1)
    of the sorted values, interpolated between the two nearest ranks. A 1-D ``q`` adds a first dim."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` of the values that are not NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)`` of the k-th smallest element (k counts from 1) along ``dim``. Where
    the k-th value occurs more than once, the index is the one PyTorch reports (see _quickselect)."""
    _not_implemented_for(input, "kthvalue_cpu", "b")
    axis = _axis(input, dim)
    data = input._data.reshape(input._data.shape or (1,))
    if not 1 <= k <= data.shape[axis]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    k_index = np.full(tuple(1 if i == axis else n for i, n in enumerate(data.shape)), k - 1)
    index = np.take_along_axis(np.argsort(data, axis=axis, kind="stable"), k_index, axis=axis)
    # Which of equal values is reported depends on how PyTorch's selection moves elements: the
    # sort above finds the value; the rows where it is tied replay PyTorch's quickselect.
    kth = np.take_along_axis(data, index, axis=axis)
    tied = ((data == kth) | (np.isnan(data) & np.isnan(kth))).sum(axis=axis, keepdims=True) > 1
    rows, row_index = np.moveaxis(data, axis, -1), np.moveaxis(index, axis, -1)  # (views: writes reach index)
    for position in map(tuple, np.argwhere(np.moveaxis(tied, axis, -1)[..., 0])):
        row_index[position] = _quickselect(rows[position], k - 1)
    return _picked(input, index, axis, keepdim, KthvalueBackward0, return_types_kthvalue, dim)


def _quickselect(row: np.ndarray, k: int) -> int:
    """The original position of the element that lands at place ``k`` when ``row`` is partially
    ordered as PyTorch's CPU kthvalue does it (quickselect, the pivot the median of three; NaN
    counts as the largest). Only the choice among equal values depends on these details."""
    values, positions = row.tolist(), list(range(len(row)))

    def swap(a: int, b: int) -> None:
        values[a], values[b] = values[b], values[a]
        positions[a], positions[b] = positions[b], positions[a]

    def above(x: float, y: float) -> bool:
        return (x != x and y == y) or x > y  # (x != x: x is NaN)

    low, high = 0, len(values) - 1
    while high > low:
        if high == low + 1:
            if above(values[low], values[high]):
                swap(low, high)
            break
        swap(low + (high - low) // 2, low + 1)  # order low, low + 1, high: the pivot is their median
        if above(values[low + 1], values[high]):
            swap(low + 1, high)
        if above(values[low], values[high]):
            swap(low, high)
        if above(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, values[low]
        while True:  # move the smaller values left of the pivot, the larger right
            i += 1
            while above(pivot, values[i]):
                i += 1
            j -= 1
            while above(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:  # go on in the part that holds place k
            low = i
        if j >= k:
            high = j - 1
    return positions[k]


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally frequent
    ones) and the index of its last occurrence, as PyTorch's CPU kernel gives it."""
    axis = _axis(input, dim)
    data = np.moveaxis(input._data.reshape(input._data.shape or (1,)), axis, -1)
    rows = data.reshape(-1, data.shape[-1])
    index = np.empty(rows.shape[0], dtype=np.int64)
    for r, row in enumerate(rows):  # one np.unique per row: mode is rarely on a hot path
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]
        index[r] = np.flatnonzero(row == best)[-1]
    index = np.moveaxis(index.reshape(data.shape[:-1] + (1,)), -1, axis)
    return _picked(input, index, axis, keepdim, ModeBackward0, return_types_mode, dim)


class CummaxBackward0(Node):
    """(values, indices) = self.cummax(dim):  each gradient goes to the element where its running
    maximum was reached (several outputs may send theirs to the same element: they add up)."""

    dim: int
    indices_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        if self_.dim() == 0:
            return (grad,)
        return (self_.new_zeros(self_.shape).scatter_add(self.dim, self._saved_indices, grad),)


class CumminBackward0(CummaxBackward0):
    """(values, indices) = self.cummin(dim):  as CummaxBackward0."""


def _cumulative_extreme(input: Tensor, dim: int, largest: bool, return_type: type) -> Any:
    axis = _axis(input, dim)
    data = input._data.reshape(input._data.shape or (1,))
    n = data.shape[axis]
    positions = np.arange(n).reshape([n if i == axis else 1 for i in range(data.ndim)])
    best = (np.fmax if largest else np.fmin).accumulate(data, axis=axis) if data.dtype.kind == "f" else \
        (np.maximum if largest else np.minimum).accumulate(data, axis=axis)
    # the index of the latest element equal to the running extreme (PyTorch takes the last of ties, and a NaN wins)
    if data.dtype.kind == "f":
        nan_seen = np.logical_or.accumulate(np.isnan(data), axis=axis)
        best = np.where(nan_seen, np.nan, best)
        hit = (data == best) | np.isnan(data)
    else:
        hit = data == best
    index = np.maximum.accumulate(np.where(hit, positions, 0), axis=axis)
    values = _wrap(np.take_along_axis(data, index, axis=axis).reshape(input._data.shape))
    indices = _wrap(index.astype(np.int64).reshape(input._data.shape))
    if compute_requires_grad(input):
        node = (CummaxBackward0 if largest else CumminBackward0)(input)
        node.dim, node.self_ = dim, SavedTensor(input)
        node.indices_ = SavedTensor(indices, is_output=True)  # output 1: the indices
        set_history(values, node)
    return return_type(values, indices)


def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running maximum along ``dim`` and where it was reached."""
    return _cumulative_extreme(input, dim, True, return_types_cummax)


def cummin(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running minimum along ``dim`` and where it was reached."""
    return _cumulative_extreme(input, dim, False, return_types_cummin)


class LogcumsumexpBackward0(Node):
    """out_j = log(sum_{i<=j} exp(x_i)):  d/dx_i = sum_{j>=i} grad_j * exp(x_i - out_j), computed as
    exp(x_i - m) * (cumulative sum from the end of grad_j * exp(m - out_j)), with m the largest x
    along the dim (so neither exponential overflows unless the values span more than ~700).
    Simplified: PyTorch's backward is stable over any span (it works in log space)."""

    dim: int
    result_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, result = self._saved_self, self._saved_result
        if self_.dim() == 0:
            return (grad,)
        axis = self.dim % self_.dim()
        peak = _wrap(_finite_max(self_._data, axis))  # a constant: the result does not depend on it
        return ((self_ - peak).exp() * _reverse_cumsum(grad * (peak - result).exp(), axis),)


def _finite_max(data: np.ndarray, axis: int) -> np.ndarray:
    """The max along ``axis`` (kept), 0 where it is not finite (all -inf must not give nan)."""
    return np.nan_to_num(np.max(data, axis=axis, keepdims=True), neginf=0.0, posinf=0.0)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(x))) along ``dim``, shifted by the max so that exp never overflows."""
    _not_implemented_for(input, "logcumsumexp_out_cpu", "biu")
    axis = _axis(input, dim)
    data = input._data.reshape(input._data.shape or (1,))
    if data.size:
        shift = _finite_max(data, axis)
        with np.errstate(divide="ignore"):
            data = np.log(np.cumsum(np.exp(data - shift), axis=axis)) + shift
    out = _wrap(np.asarray(data.reshape(input._data.shape), dtype=input._data.dtype))
    if compute_requires_grad(input):
        node = LogcumsumexpBackward0(input)
        node.dim, node.self_, node.result_ = dim, SavedTensor(input), SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


class AminmaxBackward0(_PairOutputNode):
    """(min, max) = self.aminmax(dim):  each output's gradient is shared by the elements equal to it
    (output 0: the minimum, output 1: the maximum), as amin's and amax's."""

    dim: int | None
    keepdim: bool
    max_: SavedTensor
    min_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        result = self._saved_min if self._output_nr == 0 else self._saved_max
        dims = normalize_dims(self.dim, self_.dim()) if self_.dim() else ()
        return (evenly_distribute_backward(grad, self_, result, dims, self.keepdim),)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(min, max)`` in one call."""
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is not None and input.dim() and input.shape[_axis(input, dim)] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {_axis(input, dim)} to have non-zero size.")
    with no_grad():
        low, high = input.amin(() if dim is None else dim, keepdim), input.amax(() if dim is None else dim, keepdim)
    if compute_requires_grad(input):
        for output_nr, out in enumerate((low, high)):
            node = AminmaxBackward0(input)
            node.dim, node.keepdim, node.self_ = dim, keepdim, SavedTensor(input)
            node.min_ = SavedTensor(low, is_output=output_nr == 0)
            node.max_ = SavedTensor(high, is_output=output_nr == 1)
            node._output_nr = output_nr
            set_history(out, node)
    return return_types_aminmax(low, high)


class return_types_aminmax(tuple):
    """``(min, max)``, printed as PyTorch's ``torch.return_types.aminmax``."""

    __slots__ = ()

    def __new__(cls, min: Tensor, max: Tensor) -> "return_types_aminmax":  # noqa: A002
        return tuple.__new__(cls, (min, max))

    min = property(lambda self: self[0])  # noqa: A003
    max = property(lambda self: self[1])  # noqa: A003

    def __repr__(self) -> str:
        return f"glasstorch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """How many elements are nonzero (along ``dim``), as int64."""
    axis = None if dim is None else normalize_dims(dim, input.dim())  # (PyTorch's IndexError for a bad dim)
    return _wrap(np.asarray(np.count_nonzero(input._data, axis=axis), dtype=np.int64))


class NansumBackward0(Node):
    """out = self.nansum(dim):  every element that is not NaN gets its slice's gradient; a NaN, 0."""

    dim: tuple | None
    keepdim: bool
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_ = self._saved_self
        dims = normalize_dims(self.dim, self_.dim())
        counted = _wrap(~np.isnan(self_._data))
        return (_restore_dims(grad, dims, self.keepdim).expand(self_.shape) * counted,)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum, with each NaN counted as 0."""
    data = input._data
    kept = input if data.dtype.kind != "f" else _wrap(np.where(np.isnan(data), 0, data))
    with no_grad():
        out = _sum(kept, dim, keepdim, dtype)
    if compute_requires_grad(input):
        node = NansumBackward0(input)
        node.dim, node.keepdim, node.self_ = None if dim is None else _as_given(dim), keepdim, SavedTensor(input)
        set_history(out, node)
    return out


def _sum(input: Tensor, dim: Any, keepdim: bool, dtype: Any = None) -> Tensor:
    return input.sum(dtype=dtype) if dim is None else input.sum(dim, keepdim, dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the values that are not NaN."""
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype.legacy_name.replace('Tensor', '')}")
    kept = _wrap((~np.isnan(input._data)).astype(input._data.dtype))
    return nansum(input, dim, keepdim, dtype=dtype) / _sum(kept, dim, keepdim)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along ``dim``: out[i] = input[i + 1] - input[i], n times
    (for bool, ``!=``), after ``prepend`` and ``append`` are concatenated."""
    from .shape import cat

    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    axis = _axis(input, dim)
    if n == 0:
        # no difference taken: a copy of the input, prepend and append unused (as PyTorch, CopyBackwards)
        return input.new_empty(input.shape).copy_(input)
    for side in (prepend, append):
        if side is not None:
            _check_diff_side(input, side, axis)
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, axis) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[axis]
        if length == 0:
            break
        later, earlier = x.narrow(axis, 1, length - 1), x.narrow(axis, 0, length - 1)
        x = later != earlier if x.dtype is dtypes.bool else later - earlier
    return x


def _check_diff_side(input: Tensor, side: Tensor, axis: int) -> None:
    """prepend/append must have the input's dims and sizes, except along the differencing dim."""
    if side.dim() != input.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for d, (want, got) in enumerate(zip(input.shape, side.shape)):
        if d != axis and want != got:
            raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input except "
                               f"along the differencing dimension; input.size({d}) = {want}, but got tensor.size({d}) "
                               f"= {got}")


def _gradient_along(f: Tensor, axis: int, spacing: Any, edge_order: int) -> Tensor:
    """Central differences inside, one-sided ones at the two ends (numpy's ``gradient``), along ``axis``,
    for a uniform step (a number) or at the given coordinates (a 1-D tensor)."""
    n = f.shape[axis]

    def part(start: int, length: int) -> Tensor:
        return f.narrow(axis, start, length)

    if isinstance(spacing, Tensor):
        x = spacing.to(f.dtype)
        shape = [1] * f.dim()
        shape[axis] = n - 2

        def along(t: Tensor) -> Tensor:
            return t.reshape(*shape)
        hd, hs = along(x[1:-1] - x[:-2]), along(x[2:] - x[1:-1])
        inside = (hd * hd * part(2, n - 2) - hs * hs * part(0, n - 2) + (hs * hs - hd * hd) * part(1, n - 2)) / (
            hd * hs * (hd + hs))
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / (x[1] - x[0])
            last = (part(n - 1, 1) - part(n - 2, 1)) / (x[n - 1] - x[n - 2])
        else:
            a, b = x[1] - x[0], x[2] - x[1]
            first = (-(2 * a + b) / (a * (a + b)) * part(0, 1) + (a + b) / (a * b) * part(1, 1)
                     - a / (b * (a + b)) * part(2, 1))
            a, b = x[n - 2] - x[n - 3], x[n - 1] - x[n - 2]
            last = (b / (a * (a + b)) * part(n - 3, 1) - (a + b) / (a * b) * part(n - 2, 1)
                    + (2 * b + a) / (b * (a + b)) * part(n - 1, 1))
    else:
        h = float(spacing)
        inside = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first, last = (part(1, 1) - part(0, 1)) / h, (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (-3 * part(0, 1) + 4 * part(1, 1) - part(2, 1)) / (2 * h)
            last = (3 * part(n - 1, 1) - 4 * part(n - 2, 1) + part(n - 3, 1)) / (2 * h)
    from .shape import cat

    return cat([first, inside, last], axis)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """The derivative estimated along each of ``dim`` (all dims by default) from the samples in
    ``input``: one tensor per dim. ``spacing``: one step for all dims, one step per dim, or one
    1-D tensor of coordinates per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    axes = [_axis(input, d) for d in dims]
    if isinstance(spacing, (int, float)):
        spacings = [spacing] * len(axes)
    else:
        spacings = list(spacing)
        if len(spacings) == 1 and len(axes) > 1 and not isinstance(spacings[0], Tensor):
            spacings = spacings * len(axes)
        if len(spacings) != len(axes) and dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got a "
                               f"list of length {len(spacings)}")
        if len(spacings) != len(axes):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacings)} and a dim argument of length {len(axes)}.")
    for axis in axes:
        if input.shape[axis] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    values = input if input.is_floating_point() else input.to(dtypes.get_default_dtype())
    return tuple(_gradient_along(values, axis, step, edge_order) for axis, step in zip(axes, spacings))


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in columns),
    with optional integer frequency weights and float observation weights."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions")
    if input.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    _check_cov_weights(fweights, "fweights", x.shape[1])
    _check_cov_weights(aweights, "aweights", x.shape[1])
    if not x.is_floating_point():
        x = x.to(dtypes.get_default_dtype())
    observations = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = observations
        avg = x.mean(1)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is None:
        norm_factor = w_sum - correction
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = w_sum - correction
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    centred = x - avg.unsqueeze(1)
    weighted = centred if w is None else centred * w
    result = centred.matmul(weighted.t()) / norm_factor
    return result.squeeze()  # (a single variable's covariance is a number, as in PyTorch)


def _check_cov_weights(weights: Tensor | None, name: str, observations: int) -> None:
    """PyTorch's checks of cov's weights: 1-D, one per observation, not negative; integers for
    fweights (a count of repeats), floats for aweights."""
    if weights is None:
        return
    if weights.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{weights.dim()} dimensions")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {weights.numel()} != {observations}")
    integral = name == "fweights"
    if weights.is_floating_point() == integral:
        kind = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{scalar_type_name(weights.dtype)} dtype")
    if (weights._data < 0).any():
        raise RuntimeError(f"cov(): {name} cannot be negative")


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows: cov / (std_i * std_j), clipped to [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)
