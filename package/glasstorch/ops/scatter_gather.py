"""Reading and writing along a dim with an index tensor: ``gather``, ``scatter``, ``scatter_add``,
``index_select``, ``index_add``, ``take_along_dim``.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``. The ops come in pairs that undo each
other, and each one's backward is its partner:

    gather(dim, index)        reads  out[i][j] = self[i][index[i][j]]     (dim = 1)
    scatter_add(dim, index)   adds   out[i][index[i][j]] += src[i][j]
    index_select(dim, index)  reads  whole slices:  out[:, j] = self[:, index[j]]
    index_add(dim, index)     adds   whole slices:  out[:, index[j]] += source[:, j]

so the gradient of a gather is a scatter_add of the gradient, and the other way round. An index may
repeat: reading twice is fine, and the backward then adds (``np.add.at``, never ``a[i] += v``,
which would count a repeated index once).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._tensor import Tensor, _normalize_dim, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .inplace import apply_inplace


# --- the index tensor of gather and scatter -------------------------------------------------
def _positions(index: np.ndarray, dim: int) -> tuple:
    """For every entry of ``index``, where it points in the indexed tensor: its own position,
    with its value in place of the coordinate along ``dim``."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _check_index(name: str, input: Tensor, dim: int, index: Tensor, src: Tensor | None = None) -> int:
    """PyTorch's checks of ``index`` for gather/scatter; returns ``dim`` as a non-negative int."""
    ndim = input._data.ndim
    axis = _normalize_dim(dim, ndim)
    if index._data.dtype.kind not in "iu" or index._data.dtype.itemsize < 4:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index._data.ndim != ndim and not (index._data.ndim <= 1 and ndim <= 1):  # 0-d counts as 1-d
        # (PyTorch's gather calls the tensor "input", its scatters "self")
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    index_shape, self_shape = index._data.shape, input._data.shape or (1,)
    for d, size in enumerate(index_shape):
        too_big_for_self = d != axis and size > self_shape[d]
        too_big_for_src = src is not None and src._data.ndim and size > src._data.shape[d]
        if too_big_for_self or too_big_for_src:
            if src is None:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index_shape)} to be no "
                                   f"larger than self {list(self_shape)} apart from dimension {axis}")
            raise RuntimeError(f"Expected index {list(index_shape)} to be no larger than self {list(self_shape)} apart "
                               f"from dimension {axis} and to be no larger size than src {list(src._data.shape)}")
    _check_range(index._data, self_shape[axis], axis)
    return axis


def _check_range(index: np.ndarray, size: int, dim: int) -> None:
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {dim} with size {size}")


def _as_nd(data: np.ndarray) -> np.ndarray:
    """A 0-d tensor is gathered and scattered as a 1-element vector (as in PyTorch)."""
    return data.reshape(1) if data.ndim == 0 else data


# --- gather ---------------------------------------------------------------------------------
class GatherBackward0(Node):
    """out = self.gather(dim, index):  grad_self = zeros.scatter_add(dim, index, grad)."""

    dim: int
    index_: SavedTensor
    self_: SavedTensor  # (PyTorch keeps self for its sizes)
    sparse_grad: bool

    def backward(self, grad: Tensor) -> tuple:
        zeros = _wrap(np.zeros(self._saved_self.shape, grad._data.dtype))
        return (scatter_add(zeros, self.dim, self._saved_index, grad),)


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Any = None) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` for ``dim=1`` (likewise for other dims): pick one
    element per position along ``dim``. The result has ``index``'s shape."""
    axis = _check_index("gather", input, dim, index)
    values = _as_nd(input._data)[_positions(_as_nd(index._data), axis)].reshape(index._data.shape)
    result = _wrap(values)
    if compute_requires_grad(input):
        node = GatherBackward0(input)
        node.dim, node.sparse_grad = axis, sparse_grad
        node.index_, node.self_ = SavedTensor(index), SavedTensor(input)
        set_history(result, node)
    return result if out is None else _write_out(out, result)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *, out: Any = None) -> Tensor:
    """``gather`` whose ``indices`` broadcast against ``input`` (numpy's take_along_axis);
    with no dim, along the flattened tensor."""
    result = _take_along_dim(input, indices, dim)
    return result if out is None else _write_out(out, result)


def _take_along_dim(input: Tensor, indices: Tensor, dim: int | None) -> Tensor:
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    axis = _normalize_dim(dim, input._data.ndim)
    if input._data.ndim != indices._data.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {input._data.ndim} dimensions for input, and {indices._data.ndim} dimensions for indices")
    self_shape, index_shape = list(input._data.shape), list(indices._data.shape)
    self_shape[axis] = index_shape[axis] = 1
    shape = np.broadcast_shapes(tuple(self_shape), tuple(index_shape))
    input_shape, index_full = list(shape), list(shape)
    input_shape[axis], index_full[axis] = input._data.shape[axis], indices._data.shape[axis]
    return gather(input.expand(input_shape), axis, indices.expand(index_full))


def _write_out(out: Tensor, result: Tensor) -> Tensor:
    from ._arguments import write_out

    return write_out(out, result)


# --- scatter --------------------------------------------------------------------------------
class ScatterBackward0(Node):
    """out = self.scatter(dim, index, src): the overwritten places of self get no gradient;
    src gets the gradient of the places it was written to: grad.gather(dim, index)."""

    dim: int
    index_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        index = self._saved_index
        return (scatter(grad, self.dim, index, 0.0) if self.needs_input_grad(0) else None,
                gather(grad, self.dim, index) if self.needs_input_grad(1) else None)


class ScatterBackward1(Node):
    """out = self.scatter(dim, index, value): the overwritten places get no gradient."""

    dim: int
    index_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (scatter(grad, self.dim, self._saved_index, 0.0),)


class ScatterReduceNotImplemented(Node):
    """PyTorch records ``NotImplemented`` for ``scatter(..., reduce=)``: no derivative."""

    def name(self) -> str:
        return "NotImplemented"

    def backward(self, grad: Tensor) -> tuple:
        raise RuntimeError("derivative for aten::scatter.reduce is not implemented (use scatter_reduce or scatter_add)")


_REDUCE_UFUNCS = {"add": np.add, "multiply": np.multiply}


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: str | None = None,
            out: Any = None) -> Tensor:
    """A copy of ``input`` with ``out[i][index[i][j]] = src[i][j]`` (``dim=1``), or ``= value`` for
    a number. With ``reduce='add'``/``'multiply'`` the values are combined instead of written.
    Where an index repeats without reduce, the last write wins (PyTorch leaves it unspecified)."""
    if src is None:
        src = value
    src_tensor = src if isinstance(src, Tensor) else None
    axis = _check_index("scatter", input, dim, index, src_tensor)
    if src_tensor is not None and src_tensor._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if reduce is not None and reduce not in _REDUCE_UFUNCS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    if reduce is not None and src_tensor is not None:
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                      UserWarning, stacklevel=3)
    index_data = _as_nd(index._data)
    where = _positions(index_data, axis)
    values = _as_nd(input._data).copy()
    written = _source_values(src, index_data)
    if reduce is None:
        values[where] = written
    else:
        _REDUCE_UFUNCS[reduce].at(values, where, written)
    result = _wrap(values.reshape(input._data.shape))
    if compute_requires_grad(input, src):
        if reduce is not None:
            node = ScatterReduceNotImplemented(input, src)
        else:
            node = ScatterBackward0(input, src) if src_tensor is not None else ScatterBackward1(input)
            node.dim, node.index_ = axis, SavedTensor(index)
        set_history(result, node)
    return result if out is None else _write_out(out, result)


def _source_values(src: Any, index: np.ndarray) -> Any:
    """The part of ``src`` that is written: its leading block of ``index``'s shape."""
    if not isinstance(src, Tensor):
        return src.item() if hasattr(src, "item") else src
    data = _as_nd(src._data)
    return data[tuple(slice(0, n) for n in index.shape)]


def scatter_(tensor: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    return apply_inplace(tensor, scatter, dim, index, src, value=value, reduce=reduce)


class ScatterAddBackward0(Node):
    """out = self.scatter_add(dim, index, src):  grad_self = grad;  grad_src = grad.gather(dim, index)."""

    dim: int
    index_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        grad_src = None
        if self.needs_input_grad(1):
            grad_src = gather(grad, self.dim, self._saved_index)
            if grad_src._data.shape != self._src_shape:  # src larger than index: the unread rest gets 0
                grad_src = _padded(grad_src, self._src_shape)
        return (grad if self.needs_input_grad(0) else None, grad_src)


def _padded(grad: Tensor, shape: tuple) -> Tensor:
    from .indexing import _put_back

    key = tuple(slice(0, n) for n in grad._data.shape)
    return _put_back(grad, shape, key, "SliceBackward0")


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src[i][j]`` added at ``out[i][index[i][j]]`` (``dim=1``);
    repeated indices add up."""
    axis = _check_index("scatter_add", input, dim, index, src)
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    index_data = _as_nd(index._data)
    values = _as_nd(input._data).copy()
    np.add.at(values, _positions(index_data, axis), _source_values(src, index_data))
    result = _wrap(values.reshape(input._data.shape))
    if compute_requires_grad(input, src):
        node = ScatterAddBackward0(input, src)
        node.dim, node.index_, node._src_shape = axis, SavedTensor(index), src._data.shape
        set_history(result, node)
    return result


def scatter_add_(tensor: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return apply_inplace(tensor, scatter_add, dim, index, src)


# --- whole slices: index_select and index_add ------------------------------------------------
def _check_vector_index(name: str, index: Tensor, size: int, axis: int) -> np.ndarray:
    if index._data.dtype.kind not in "iu" or index._data.dtype.itemsize < 4:
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if name == "index_select":  # PyTorch's CPU index_select words its range check this way
        bad = index._data[(index._data < -size) | (index._data >= size)]
        if bad.size:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad.flat[0]} axis_dim={size}")
    _check_range(index._data, size, axis)
    return index._data.reshape(-1)


class IndexSelectBackward0(Node):
    """out = self.index_select(dim, index):  grad_self = zeros.index_add(dim, index, grad)."""

    dim: int
    index_: SavedTensor
    self_sym_sizes: tuple

    def backward(self, grad: Tensor) -> tuple:
        zeros = _wrap(np.zeros(self.self_sym_sizes, grad._data.dtype))
        return (index_add(zeros, self.dim, self._saved_index, grad),)


def index_select(input: Tensor, dim: int, index: Tensor, *, out: Any = None) -> Tensor:
    """The slices ``index`` along ``dim`` (an embedding lookup is ``weight.index_select(0, ids)``)."""
    axis = _normalize_dim(dim, input._data.ndim) if input._data.ndim else 0
    positions = _check_vector_index("index_select", index, _as_nd(input._data).shape[axis], axis)
    result = _wrap(np.take(_as_nd(input._data), positions, axis=axis).reshape(
        input._data.shape if input._data.ndim == 0 else input._data.shape[:axis] + positions.shape + input._data.shape[axis + 1:]))
    if compute_requires_grad(input):
        node = IndexSelectBackward0(input)
        node.dim, node.index_, node.self_sym_sizes = axis, SavedTensor(index), input._data.shape
        set_history(result, node)
    return result if out is None else _write_out(out, result)


class IndexAddBackward0(Node):
    """out = self.index_add(dim, index, source, alpha):  grad_self = grad;
    grad_source = alpha * grad.index_select(dim, index)."""

    alpha: Any
    dim: int
    index_: SavedTensor
    source_: SavedTensor  # (PyTorch keeps source for its shape)
    source_dim: int

    def backward(self, grad: Tensor) -> tuple:
        grad_source = None
        if self.needs_input_grad(1):
            grad_source = index_select(grad, self.dim, self._saved_index).reshape(self._saved_source.shape)
            grad_source = grad_source if self.alpha == 1 else grad_source * self.alpha
        return (grad if self.needs_input_grad(0) else None, grad_source)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source[:, j]`` added to slice ``index[j]`` (``dim=1``);
    repeated indices add up."""
    axis = _normalize_dim(dim, input._data.ndim) if input._data.ndim else 0
    data = _as_nd(input._data)
    positions = _check_vector_index("index_add", index, data.shape[axis], axis)
    source_data = _as_nd(source._data)
    if positions.shape[0] != source_data.shape[axis]:
        raise RuntimeError(f"index_add_(): Number of indices ({positions.shape[0]}) should be equal to "
                           f"source.size(dim): ({source_data.shape[axis]}), for dim: {axis}")
    values = data.copy()
    key = (slice(None),) * axis + (positions,)
    added = source_data if alpha == 1 else source_data * alpha
    try:
        np.add.at(values, key, added.astype(values.dtype, copy=False))
    except ValueError:
        raise RuntimeError(f"index_add_(): self ({list(data.shape)}) and source ({list(source_data.shape)}) must have "
                           f"the same size apart from dimension {axis}") from None
    result = _wrap(values.reshape(input._data.shape))
    if compute_requires_grad(input, source):
        node = IndexAddBackward0(input, source)
        node.dim, node.alpha, node.source_dim = axis, alpha, source._data.ndim
        node.index_, node.source_ = SavedTensor(index), SavedTensor(source)
        set_history(result, node)
    return result


def index_add_(tensor: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return apply_inplace(tensor, index_add, dim, index, source, alpha=alpha)


# --- scatter_reduce: sum, prod, mean, amax, amin (issue 17) ------------------------------------------
_IDENTITY = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}
_REDUCE_AT = {"sum": np.add.at, "mean": np.add.at, "prod": np.multiply.at, "amax": np.maximum.at, "amin": np.minimum.at}


class ScatterReduceBackward0(Node):
    """out = self.scatter_reduce(dim, index, src, reduce, include_self). Each place of out reduces
    its *contributors*: the src values scattered there, and self's value unless include_self=False
    excludes it (a place no index reaches keeps self's value, which then contributes alone).
    The gradient of a contributor: sum 1; mean 1/N; prod the product of the other contributors;
    amax/amin shared evenly by the contributors equal to the result (``scatter_reduce_backward``
    in ``FunctionsManual.cpp``). For sum, mean, amax and amin that gradient is grad times a weight
    that does not change under small changes of the inputs (1, 1/N, 1/ties), so the backward is
    ``grad * w_self`` and ``grad.gather(dim, index) * w_src``, tensor ops that can be differentiated
    again. Simplified: prod's gradient (products of the others) is computed with numpy, so it is
    not differentiable again."""

    dim: int
    include_self: bool
    index_: SavedTensor
    reduce: str
    result_: SavedTensor
    self_: SavedTensor
    src_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        linear = self.reduce != "prod"
        if grad._requires_grad and not linear:
            raise RuntimeError("glasstorch: the double backward of scatter_reduce with reduce='prod' is not implemented")
        self_, result = _as_nd(self._saved_self._data), _as_nd(self._saved_result._data)
        index = _as_nd(self._saved_index._data)
        src = _as_nd(self._saved_src._data)[tuple(slice(0, n) for n in index.shape)]  # the src values used
        at = _positions(index, self.dim)
        g = np.ones(self_.shape, grad._data.dtype) if linear else _as_nd(grad._data)  # linear: the weights
        contributes = np.ones(self_.shape, dtype=bool)
        if not self.include_self:
            contributes[at] = False
        grad_self, grad_src = _CONTRIBUTOR_GRADS[self.reduce](g, self_, src, result, at, contributes)
        grad_self = _wrap(np.where(contributes, grad_self, 0).reshape(self._saved_self.shape))
        grad_src = _wrap(grad_src.reshape(self._saved_index.shape))
        if linear:  # the weights times the incoming gradient, recorded
            grad_self = grad * grad_self
            grad_src = gather(grad, self.dim, self._saved_index) * grad_src
        if grad_src._data.shape != self._src_shape:
            grad_src = _padded(grad_src, self._src_shape)
        return (grad_self if self.needs_input_grad(0) else None,
                grad_src.reshape(self._src_shape) if self.needs_input_grad(1) else None)


def _sum_grads(g, self_, src, result, at, contributes):
    return g, g[at]


def _mean_grads(g, self_, src, result, at, contributes):
    count = contributes.astype(g.dtype)
    np.add.at(count, at, 1)
    share = g / count
    return share, share[at]


def _prod_grads(g, self_, src, result, at, contributes):
    """The product of the *other* contributors, exactly, zeros included: with no zero among them
    it is result / value; with one zero, the zero's gets the product of the rest, the others 0."""
    product = np.where(contributes & (self_ != 0), self_, 1).astype(g.dtype)
    zeros = (contributes & (self_ == 0)).astype(np.int64)
    np.multiply.at(product, at, np.where(src != 0, src, 1))
    np.add.at(zeros, at, (src == 0).astype(np.int64))

    def others(value, product, zeros):
        return np.where(zeros == 0, product / np.where(value == 0, 1, value), np.where((zeros == 1) & (value == 0), product, 0))

    return g * others(self_, product, zeros), g[at] * others(src, product[at], zeros[at])


def _extreme_grads(g, self_, src, result, at, contributes):
    # as PyTorch: a self value equal to the result is counted among the ties even where
    # include_self=False leaves it out (it then gets no share: ties are not differentiable anyway)
    self_is, src_is = self_ == result, src == result[at]
    count = self_is.astype(g.dtype)
    np.add.at(count, at, src_is.astype(g.dtype))
    share = g / np.maximum(count, 1)
    return share * self_is, share[at] * src_is


_CONTRIBUTOR_GRADS = {"sum": _sum_grads, "mean": _mean_grads, "prod": _prod_grads, "amax": _extreme_grads,
                      "amin": _extreme_grads}
# PyTorch also takes "max" and "min" (undocumented) for amax and amin
for _alias, _name in (("max", "amax"), ("min", "amin")):
    _IDENTITY[_alias], _REDUCE_AT[_alias], _CONTRIBUTOR_GRADS[_alias] = (
        _IDENTITY[_name], _REDUCE_AT[_name], _CONTRIBUTOR_GRADS[_name])


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True,
                   _node_class: type | None = None) -> Tensor:
    """A copy of ``input`` where each place that ``index`` reaches is reduced (``'sum'``, ``'prod'``,
    ``'mean'``, ``'amax'``, ``'amin'``) with the ``src`` values scattered to it, and with its own
    value unless ``include_self=False``."""
    if reduce not in _REDUCE_AT:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    axis = _check_index("scatter_reduce", input, dim, index, src)
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    index_data = _as_nd(index._data)
    at, values = _positions(index_data, axis), _as_nd(input._data).copy()
    if not include_self:
        values[at] = _IDENTITY[reduce]
    scattered = _source_values(src, index_data)
    _REDUCE_AT[reduce](values, at, scattered)
    if reduce == "mean":
        count = np.full(values.shape, int(include_self), dtype=np.int64)
        np.add.at(count, at, 1)
        count = np.maximum(count, 1)
        values = values // count if values.dtype.kind in "iu" else (values / count).astype(values.dtype)
    result = _wrap(values.reshape(input._data.shape))
    if compute_requires_grad(input, src):
        node = (_node_class or ScatterReduceBackward0)(input, src)  # (index_reduce records its own Node)
        node.dim, node.include_self, node.reduce, node._src_shape = axis, include_self, reduce, src._data.shape
        node.index_, node.self_, node.src_ = SavedTensor(index), SavedTensor(input), SavedTensor(src)
        node.result_ = SavedTensor(result, is_output=True)
        set_history(result, node)
    return result


def scatter_reduce_(tensor: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    return apply_inplace(tensor, scatter_reduce, dim, index, src, reduce, include_self=include_self)
