"""Indexing, masking, gather and scatter (ops/indexing*.py, scatter_gather.py).

Index arrays are int64 constants (``index_array``); where PyTorch leaves the result of a repeated
index unspecified (``scatter``, ``index_copy``, ``put`` without accumulate), the samples draw
indices that never repeat where they write (``_distinct_index``, ``_distinct_vector``).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from .core import NONEMPTY_DIMS, SHAPES, ErrorInput, NoGrad, OpInfo, SampleInput, array, dim_of, index_array

_F = np.zeros  # float sample arrays in error inputs (they become float32 tensors)


_INT_BOOL = ("int64", "bool")


def _long(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def _mask(draw: Callable, shape: tuple) -> np.ndarray:
    """A bool mask of ``shape`` (a constant)."""
    return np.asarray(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                      dtype=bool).reshape(shape)


def _broadcasting_to(draw: Callable, shape: tuple) -> tuple:
    """A shape that broadcasts to ``shape`` (trailing dims, some of them 1)."""
    keep = draw(st.integers(0, len(shape)))
    return tuple(n if draw(st.booleans()) else 1 for n in shape[len(shape) - keep:])


def _distinct_vector(draw: Callable, size: int, count: int) -> np.ndarray:
    """``count`` <= ``size`` distinct int64 indices in [0, size)."""
    return np.asarray(draw(st.permutations(range(size)))[:count], dtype=np.int64)


def _distinct_index(draw: Callable, size: int, shape: tuple, dim: int) -> np.ndarray:
    """An index of ``shape`` whose entries along ``dim`` never repeat (``shape[dim] <= size``):
    each line along ``dim`` is the start of a permutation of range(size)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = list(shape)
    spread[dim] = size
    order = np.argsort(rng.random(spread), axis=dim)
    return np.take(order, np.arange(shape[dim]), axis=dim).astype(np.int64)


# --- tensor[key] ---------------------------------------------------------------------------------
def _key_sample(make_key: Callable) -> Callable:
    """Samples of ``x[key]``: ``make_key(draw, shape)`` gives the key for a drawn shape (passed as
    the one argument, so index tensors inside it stay constants)."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(NONEMPTY_DIMS)
        return SampleInput(array(draw, shape), (make_key(draw, shape),))

    return samples


def _int_key(draw, shape):
    return draw(st.integers(-shape[0], shape[0] - 1))


def _slice_key(draw, shape):
    """A slice that keeps at least one element."""
    start = draw(st.integers(0, shape[0] - 1))
    return slice(start, draw(st.none() | st.integers(start + 1, shape[0]) | st.just(-shape[0] + start + 1 or None)),
                 draw(st.integers(1, 2)))


def _list_key(draw, shape):
    return [int(i) for i in index_array(draw, shape[0], (draw(st.integers(1, 3)),))]


def _tensor_key(draw, shape):
    return index_array(draw, shape[0], draw(st.sampled_from([(), (2,), (2, 2)])))


def _mask_key(draw, shape):
    mask = _mask(draw, shape[:draw(st.integers(1, len(shape)))])
    mask.flat[0] = True  # not all False: x[mask] keeps an element
    return mask


def _mixed_key(draw, shape):
    """An integer or a slice, None, and an index tensor on the last dim (if there are two)."""
    first = _int_key(draw, shape) if draw(st.booleans()) else slice(None, None, 2)
    if len(shape) == 1:
        return (None, first)
    return (first, None, Ellipsis, index_array(draw, shape[-1], (2,)))


def _getitem(lib: Any, x: Any, key: Any) -> Any:
    return x[key]


def _getitem_entry(variant: str, make_key: Callable) -> OpInfo:
    return OpInfo("getitem", _key_sample(make_key), variant=variant, op=_getitem, method=False)


GETITEM = [
    _getitem_entry("int", _int_key),
    _getitem_entry("slice", _slice_key),
    _getitem_entry("none", lambda draw, shape: (None, slice(None))),
    _getitem_entry("ellipsis", lambda draw, shape: (Ellipsis, 0)),
    _getitem_entry("list", _list_key),
    _getitem_entry("bool_mask", _mask_key),
    _getitem_entry("index_tensor", _tensor_key),
    _getitem_entry("mixed", _mixed_key).with_variant(
        "mixed", error_inputs=lambda: [
            ErrorInput(SampleInput(_F((2, 3)), (5,)), IndexError, "out of bounds for dimension 0 with size 2"),
            ErrorInput(SampleInput(_F((2, 3)), (_long([0, 3]),)), IndexError,
                       "out of bounds for dimension 0 with size 2"),
            ErrorInput(SampleInput(_F((2, 3)), ((0, 0, 0),)), IndexError, "too many indices for tensor of dimension 2"),
        ]),
]


def _fixed(shape: tuple, key: Any, *value_shape: Any) -> Callable:
    """Samples of one key on a tensor of ``shape`` (only the values are drawn); ``value_shape``: the
    value written by setitem, an array of that shape (a tuple) or the number given."""
    def samples(draw: Callable) -> SampleInput:
        values = tuple(array(draw, v) if isinstance(v, tuple) else v for v in value_shape)
        return SampleInput(array(draw, shape), (key, *values))

    return samples


_MASK_2_3 = np.array([[True, False, True], [False, False, True]])
_MASK_3_4 = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

_FIXED_KEYS = {  # the keys of test_vs_torch's getitem cases: variant -> (shape, key)
    "two_ints": ((3, 4), (1, -2)),
    "negative_slices": ((3, 4), (slice(-2, None), slice(-3, -1))),
    "whole_slice": ((3, 4), slice(None)),
    "whole_slices": ((3, 4), (slice(None), slice(None))),
    "ellipsis_only": ((3, 4), Ellipsis),
    "none_int_ellipsis_none": ((2, 3, 4), (None, 0, Ellipsis, None)),
    "slice_none_step": ((4, 5), (slice(1, None), None, slice(None, None, 2))),
    "zero_d_index": ((4, 3), np.array(2)),
    "two_lists": ((4, 3), ([0, 1, 3], [2, 0, 2])),
    "true": ((2, 3), True),
    "int_true": ((2, 3), (1, True)),
    "ellipsis_true": ((2, 3), (Ellipsis, True)),
    "mask_then_int": ((2, 3, 4), (_MASK_2_3, 1)),
    "int_slice_list": ((2, 3, 4), (1, slice(None), [0, 1])),
    "lists_split_by_slice": ((2, 3, 4), ([0, 1], slice(None), [2, 3])),
    "slice_int_list": ((2, 3, 4), (slice(None), 1, [0, 2])),
    "none_int_list": ((2, 3, 4), (None, 0, [1, 2])),
}

GETITEM += [OpInfo("getitem", _fixed(shape, key), variant=variant, op=_getitem, method=False)
            for variant, (shape, key) in _FIXED_KEYS.items()]
GETITEM.append(OpInfo("getitem", _fixed((2, 3), False), variant="false", op=_getitem, method=False))


def _setitem(lib: Any, x: Any, key: Any, value: Any) -> Any:
    """``y[key] = value`` on a non-leaf copy y of x (a leaf that requires grad refuses it)."""
    y = x * 1
    y[key] = value
    return y


_SETITEM_CASES = {  # variant -> (shape, key, value: an array's shape or a number)
    "int": ((3, 4), 1, (4,)),
    "slice_number": ((3, 4), (slice(None), slice(1, 3)), 0.0),
    "mask_number": ((3, 4), _MASK_3_4, 2.0),
    "mask_tensor": ((3, 4), _MASK_3_4, (1,)),
    "leading_ones": ((2, 3), 1, (1, 3)),
    "list": ((4, 3), [0, 2], (2, 3)),
    "int_slice_list": ((2, 3, 4), (1, slice(None), [0, 1]), (3, 2)),
    "true": ((2, 3), True, 5.0),
}

SETITEM = [OpInfo("setitem", _fixed(shape, key, value), variant=variant, op=_setitem, method=False)
           for variant, (shape, key, value) in _SETITEM_CASES.items()]


# --- index_put_ (x[indices] = values) ---------------------------------------------------------------
def _index_put_samples(accumulate: bool) -> Callable:
    """``index_put(x, (index,), values)``: a 1-D index into dim 0 (distinct unless accumulating),
    values broadcast to the indexed slots."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(NONEMPTY_DIMS)
        count = draw(st.integers(1, shape[0]))
        index = index_array(draw, shape[0], (count,)) if accumulate else _distinct_vector(draw, shape[0], count)
        values = array(draw, _broadcasting_to(draw, (count, *shape[1:])))
        return SampleInput(array(draw, shape), ((index,), values), {"accumulate": accumulate})

    return samples


INDEX_PUT = [
    OpInfo("index_put", _index_put_samples(False), inplace="index_put_", other_dtypes=_INT_BOOL,
           error_inputs=lambda: [ErrorInput(SampleInput(_F((2, 3)), ((_long([4]),), _F(()))), IndexError,
                                            "out of bounds for dimension 0 with size 2")]),
    OpInfo("index_put", _index_put_samples(True), variant="accumulate", inplace="index_put_"),
]


# --- where, masked_fill, masked_select, nonzero ----------------------------------------------------
def _where_samples(scalar_other: bool = False) -> Callable:
    """``where(condition, x, other)`` as ``x.where(condition, other)`` (the method's order)."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        condition = _mask(draw, _broadcasting_to(draw, shape))
        other = 0.5 if scalar_other else array(draw, _broadcasting_to(draw, shape))
        return SampleInput(array(draw, _broadcasting_to(draw, shape) if draw(st.booleans()) else shape),
                           (condition, other))

    return samples


def _where(lib: Any, x: Any, condition: Any, other: Any) -> Any:
    return lib.where(condition, x, other)


def _masked_samples(value_kind: str) -> Callable:
    """``masked_fill(x, mask, value)`` (mask broadcast to x): a float, or a 0-dim tensor."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        value: Any = -1.5 if value_kind == "float" else array(draw, ())
        return SampleInput(array(draw, shape), (_mask(draw, _broadcasting_to(draw, shape)), value))

    return samples


def _masked_select_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    return SampleInput(array(draw, _broadcasting_to(draw, shape)), (_mask(draw, shape),))


def _sparse_samples(**kwargs: Any) -> Callable:
    """A tensor with some zeros, for nonzero and argwhere."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        return SampleInput(np.asarray(array(draw, shape) * _mask(draw, shape)), kwargs=dict(kwargs))

    return samples


_MASK_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)), 1.0)), RuntimeError, "only supports boolean masks"),
    ErrorInput(SampleInput(_F((2, 3)), (np.ones((2, 2), dtype=bool), 1.0)), RuntimeError, "must match the size"),
]

MASKING = [
    OpInfo("where", _where_samples(), op=_where, other_dtypes=("int64",), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (np.ones((2, 2), dtype=bool), _F((2, 3)))), RuntimeError,
                   "must match the size"),
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)), _F((2, 3)))), RuntimeError,
                   "where expected condition to be a boolean tensor")]),
    OpInfo("where", _where_samples(scalar_other=True), variant="scalar", op=_where, other_dtypes=("int64",)),
    OpInfo("masked_fill", _masked_samples("float"), inplace="masked_fill_", other_dtypes=("int64", "bool"),
           error_inputs=_MASK_ERRORS),
    OpInfo("masked_fill", _masked_samples("tensor"), variant="tensor_value", inplace="masked_fill_"),
    OpInfo("masked_select", _masked_select_samples, other_dtypes=("int64", "bool"), error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)),)), RuntimeError, "expected BoolTensor for mask"),
        ErrorInput(SampleInput(_F((2, 3)), (np.ones((2, 2), dtype=bool),)), RuntimeError, "must match the size")]),
    OpInfo("nonzero", _sparse_samples(), supports_grad=False, supports_out=True, other_dtypes=("int64", "bool")),
    OpInfo("nonzero", _sparse_samples(as_tuple=True), variant="as_tuple", supports_grad=False,
           other_dtypes=("int64", "bool")),
    OpInfo("argwhere", _sparse_samples(), supports_grad=False, other_dtypes=("int64", "bool")),
    OpInfo("nonzero_static", _sparse_samples(size=4), supports_grad=False, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [ErrorInput(SampleInput(_F((2, 3)), kwargs={"size": -1}), RuntimeError,
                                            "nonzero_static: 'size' must be an non-negative integer")]),
    OpInfo("nonzero_static", _sparse_samples(size=2, fill_value=7), variant="fill_value", supports_grad=False),
]


# --- gather, scatter and their relatives ----------------------------------------------------------
def _along_dim(draw: Callable, min_dims: int = 1) -> tuple:
    shape = draw(NONEMPTY_DIMS.filter(lambda s: len(s) >= min_dims))
    return shape, dim_of(draw, shape)


def _smaller(draw: Callable, shape: tuple, dim: int) -> tuple:
    """An index shape for gather/scatter: no larger than ``shape`` except along ``dim``."""
    return tuple(draw(st.integers(1, 3)) if d == dim % len(shape) else draw(st.integers(1, n))
                 for d, n in enumerate(shape))


def _gather_samples(draw: Callable) -> SampleInput:
    shape, dim = _along_dim(draw)
    index = index_array(draw, shape[dim], _smaller(draw, shape, dim))
    return SampleInput(array(draw, shape), (dim, index))


def _scatter_samples(source: str, repeats: bool = False, constant: bool = False, **kwargs: Any) -> Callable:
    """``scatter*(x, dim, index, src)``: ``src`` an array of the index's shape (``source='tensor'``)
    or a float (``'value'``); the index repeats only if ``repeats``; ``constant``: nothing requires
    grad (PyTorch has no derivative for ``scatter_(..., reduce=)``, not even in place)."""
    def samples(draw: Callable) -> SampleInput:
        shape, dim = _along_dim(draw)
        index_shape = list(_smaller(draw, shape, dim))
        index_shape[dim] = min(index_shape[dim], shape[dim])
        index = (index_array(draw, shape[dim], tuple(index_shape)) if repeats
                 else _distinct_index(draw, shape[dim], tuple(index_shape), dim))
        # src has the index's shape: PyTorch 2.13's backward fails for a larger src ("invalid gradient")
        # (+0.01: src never ties with the input, where amax/amin would share the gradient)
        src = 2.5 if source == "value" else array(draw, tuple(index_shape), "distinct") + 0.01
        input = array(draw, shape, "distinct")
        if constant:
            input, src = NoGrad(input), NoGrad(src)
        return SampleInput(input, (dim, index, src), dict(kwargs))

    return samples


_GATHER_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([0, 1]))), RuntimeError,
               "Index tensor must have the same number of dimensions as input tensor"),
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0, 5]]))), RuntimeError,
               "out of bounds for dimension 1 with size 3"),
    ErrorInput(SampleInput(_F((2, 3)), (2, _long([0]))), IndexError, "Dimension out of range"),
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0], [1], [0]]))), RuntimeError,
               "Size does not match at dimension 0"),
]

_SCATTER_ERRORS = lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0, 5]]), _F((1, 2)))), RuntimeError,
               "out of bounds for dimension 1 with size 3"),
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([0, 1]), _F((2,)))), RuntimeError,
               "Index tensor must have the same number of dimensions as self tensor"),
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0, 1, 2, 0]]), _F((1, 2)))), RuntimeError,
               "to be no larger size than src"),
]


def _vector_index_samples(distinct: bool, with_source: bool, **kwargs: Any) -> Callable:
    """``op(x, dim, index, source)`` with a 1-D (or 0-dim) index of slices along ``dim``; the
    source has ``len(index)`` slices there."""
    def samples(draw: Callable) -> SampleInput:
        shape, dim = _along_dim(draw)
        count = draw(st.integers(1, shape[dim] if distinct else 3))
        index = _distinct_vector(draw, shape[dim], count) if distinct else index_array(draw, shape[dim], (count,))
        if count == 1 and draw(st.booleans()):
            index = index.reshape(())
        args: tuple = (dim, index)
        if with_source:
            source_shape = list(shape)
            source_shape[dim] = count
            args += (array(draw, tuple(source_shape), "distinct") + 0.01,)  # (+0.01: no ties with the input)
        return SampleInput(array(draw, shape, "distinct"), args, dict(kwargs))

    return samples


def _index_select_samples(draw: Callable) -> SampleInput:
    shape, dim = _along_dim(draw)
    return SampleInput(array(draw, shape), (dim, index_array(draw, shape[dim], (draw(st.integers(1, 3)),))))


def _take_along_dim_samples(with_dim: bool) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape, dim = _along_dim(draw)
        if not with_dim:
            flat_index = index_array(draw, int(np.prod(shape)), (draw(st.integers(1, 4)),))
            return SampleInput(array(draw, shape), (flat_index,))
        index_shape = tuple(draw(st.integers(1, 3)) if d == dim % len(shape) else draw(st.sampled_from([1, n]))
                            for d, n in enumerate(shape))  # broadcasts with the input apart from dim
        return SampleInput(array(draw, shape), (index_array(draw, shape[dim], index_shape), dim))

    return samples


_VECTOR_INDEX_ERRORS = lambda error: lambda: [  # noqa: E731  (index_add raises RuntimeError, index_copy IndexError)
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([0, 5]), _F((2, 2)))), error,
               "out of bounds for dimension 1 with size 3"),
    ErrorInput(SampleInput(_F((2, 3)), (1, _long([0]), _F((2, 2)))), error,
               "Number of indices (1) should be equal to source.size(dim)"),
]

_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_INDEX_REDUCES = ("prod", "mean", "amax", "amin")

GATHER_SCATTER = [
    OpInfo("gather", _gather_samples, supports_out=True, other_dtypes=_INT_BOOL, error_inputs=_GATHER_ERRORS),
    OpInfo("index_select", _index_select_samples, supports_out=True, other_dtypes=_INT_BOOL, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (1, _long([0, 3]))), RuntimeError, "out of DATA bounds"),
        ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0]]))), IndexError, "Index is supposed to be a vector"),
        ErrorInput(SampleInput(_F((2, 3)), (2, _long([0]))), IndexError, "Dimension out of range")]),
    OpInfo("take_along_dim", _take_along_dim_samples(True), supports_out=True, other_dtypes=_INT_BOOL,
           error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_long([[0, 1]]), 2)), IndexError, "Dimension out of range"),
        ErrorInput(SampleInput(_F((2, 3)), (_long([0, 1]), 1)), RuntimeError,
                   "input and indices should have the same number of dimensions")]),
    OpInfo("take_along_dim", _take_along_dim_samples(False), variant="flat"),
    OpInfo("scatter", _scatter_samples("tensor"), inplace="scatter_", other_dtypes=_INT_BOOL,
           error_inputs=_SCATTER_ERRORS),
    OpInfo("scatter", _scatter_samples("value"), variant="value", inplace="scatter_"),
    *[OpInfo("scatter", _scatter_samples("tensor", repeats=True, constant=True, reduce=reduce),
             variant=f"reduce_{reduce}", inplace="scatter_", supports_grad=False) for reduce in ("add", "multiply")],
    OpInfo("scatter_add", _scatter_samples("tensor", repeats=True), inplace="scatter_add_", other_dtypes=("int64",),
           error_inputs=_SCATTER_ERRORS),
    *[OpInfo("scatter_reduce", _scatter_samples("tensor", repeats=True, reduce=reduce, include_self=include_self),
             variant=f"{reduce}{'' if include_self else '_exclude_self'}", inplace="scatter_reduce_",
             error_inputs=lambda: [ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0]]), _F((1, 1)), "median")),
                                              RuntimeError, "reduce argument must be either sum, prod, mean")],
             skips={"gradgradcheck": "glasstorch's ScatterReduceBackward0 computes prod's gradient with numpy "
                                     "(not differentiable again)"} if reduce == "prod" else {})
      for reduce in _REDUCES for include_self in (True, False)],
    OpInfo("index_add", _vector_index_samples(False, True), inplace="index_add_", other_dtypes=("int64",),
           error_inputs=_VECTOR_INDEX_ERRORS(RuntimeError)),
    OpInfo("index_add", _vector_index_samples(False, True, alpha=2.5), variant="alpha", inplace="index_add_"),
    OpInfo("index_copy", _vector_index_samples(True, True), inplace="index_copy_", other_dtypes=_INT_BOOL,
           error_inputs=_VECTOR_INDEX_ERRORS(IndexError)),
    OpInfo("index_fill", _vector_index_samples(False, False, value=-2.0), op=lambda lib, x, dim, index, value:
           lib.index_fill(x, dim, index, value), inplace="index_fill_", error_inputs=lambda: [
               ErrorInput(SampleInput(_F((2, 3)), (1, _long([[0]]), 1.0)), RuntimeError, "Index has to be a vector"),
               ErrorInput(SampleInput(_F((2, 3)), (1, _long([5]), 1.0)), IndexError,
                          "out of bounds for dimension 1 with size 3")]),
    *[OpInfo("index_reduce", _vector_index_samples(False, True, reduce=reduce, include_self=include_self),
             variant=f"{reduce}{'' if include_self else '_exclude_self'}", inplace="index_reduce_",
             error_inputs=lambda: [ErrorInput(SampleInput(_F((2, 3)), (1, _long([0]), _F((2, 1)), "sum")),
                                              RuntimeError, "Expected reduce to be one of prod, mean, amax or amin")],
             skips={"gradgradcheck": "IndexReduceBackward0 computes prod's gradient with numpy (not differentiable "
                                     "again)"} if reduce == "prod" else {})
      for reduce in _INDEX_REDUCES for include_self in (True, False)],
]


# --- writing into a part: masked_scatter, put, the *_scatter ops ------------------------------------
def _masked_scatter_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    mask = _mask(draw, _broadcasting_to(draw, shape))
    source = array(draw, (int(np.prod(shape)) + draw(st.integers(0, 2)),))
    return SampleInput(array(draw, shape), (mask, source))


def _put_samples(accumulate: bool) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        size = int(np.prod(shape))
        index_shape = draw(st.sampled_from([(1,), (2,), (1, 2)]).filter(lambda s: accumulate or np.prod(s) <= size))
        count = int(np.prod(index_shape))
        index = (index_array(draw, size, index_shape) if accumulate
                 else _distinct_vector(draw, size, count).reshape(index_shape))
        index = np.where(np.asarray(draw(st.lists(st.booleans(), min_size=count, max_size=count))).reshape(index_shape),
                         index - size, index)  # negative indices count from the end
        return SampleInput(array(draw, shape), (index, array(draw, index_shape)), {"accumulate": accumulate})

    return samples


def _select_scatter_samples(draw: Callable) -> SampleInput:
    shape, dim = _along_dim(draw)
    index = draw(st.integers(-shape[dim], shape[dim] - 1))
    src_shape = shape[:dim % len(shape)] + shape[dim % len(shape) + 1:]
    return SampleInput(array(draw, shape), (array(draw, src_shape), dim, index))


def _slice_scatter_samples(draw: Callable) -> SampleInput:
    shape, dim = _along_dim(draw)
    start = draw(st.integers(0, shape[dim] - 1))  # (a slice of at least one element)
    end, step = draw(st.integers(start + 1, shape[dim])), draw(st.integers(1, 2))
    src_shape = list(shape)
    src_shape[dim] = len(range(start, max(start, end), step))
    return SampleInput(array(draw, shape), (array(draw, tuple(src_shape)),), {"dim": dim, "start": start, "end": end,
                                                                             "step": step})


def _diagonal_scatter_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS.filter(lambda s: len(s) >= 2))
    dim1, dim2 = draw(st.permutations(range(len(shape))))[:2]
    offset = draw(st.integers(-1, 1).filter(lambda k: np.diagonal(np.zeros(shape), k, dim1, dim2).size))
    diagonal = np.diagonal(np.zeros(shape), offset, dim1, dim2)
    return SampleInput(array(draw, shape), (array(draw, diagonal.shape),), {"offset": offset, "dim1": dim1,
                                                                            "dim2": dim2})


def _as_strided_scatter_samples(draw: Callable) -> SampleInput:
    """A view of a contiguous (3, 3): every other element, a block, two rows, or its transpose."""
    size, stride, offset = draw(st.sampled_from([((2,), (2,), 1), ((2, 2), (3, 1), 4), ((2, 3), (3, 1), 0),
                                                 ((2, 3), (1, 3), 0)]))
    return SampleInput(array(draw, (3, 3)), (array(draw, size), size, stride, offset))


def _fill_diagonal_samples(draw: Callable) -> SampleInput:
    """A square matrix, a cube, or a tall/wide matrix (``wrap`` matters for one more than a row taller)."""
    shape = draw(st.sampled_from([(3, 3), (2, 2, 2), (2, 4), (4, 2), (7, 3)]))
    return SampleInput(array(draw, shape), (-1.5,), {"wrap": draw(st.booleans())})


def _fill_diagonal(lib: Any, x: Any, value: Any, **kwargs: Any) -> Any:
    """``fill_diagonal_`` (a method only) on a non-leaf copy of x."""
    return (x * 1).fill_diagonal_(value, **kwargs)


_SLOT_ERRORS = lambda *args: lambda: [  # noqa: E731
    ErrorInput(SampleInput(_F((2, 3)), (_F((5,)), *args)), RuntimeError,
               "expected src to have a size equal to the slice of self")]

WRITING = [
    OpInfo("masked_scatter", _masked_scatter_samples, inplace="masked_scatter_", other_dtypes=_INT_BOOL,
           error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_F((2, 3)), _F((6,)))), RuntimeError, "only supports boolean masks")]),
    OpInfo("put", _put_samples(False), inplace="put_", other_dtypes=_INT_BOOL, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3)), (_long([6]), _F(()))), IndexError, "out of range"),
        ErrorInput(SampleInput(_F((2, 3)), (_long([0, 1]), _F((3,)))), IndexError,
                   "Expected source and index to have the same number of elements")]),
    OpInfo("put", _put_samples(True), variant="accumulate", inplace="put_"),
    OpInfo("fill_diagonal_", _fill_diagonal_samples, op=_fill_diagonal, method=False, error_inputs=lambda: [
        ErrorInput(SampleInput(_F((2, 3, 3)), (1.0,)), RuntimeError, "all dimensions of input must be of equal length"),
        ErrorInput(SampleInput(_F((3,)), (1.0,)), RuntimeError, "dimensions must larger than 1")]),
    OpInfo("select_scatter", _select_scatter_samples, other_dtypes=_INT_BOOL, error_inputs=_SLOT_ERRORS(0, 0)),
    OpInfo("slice_scatter", _slice_scatter_samples, error_inputs=_SLOT_ERRORS(0)),
    OpInfo("diagonal_scatter", _diagonal_scatter_samples, error_inputs=_SLOT_ERRORS()),
    OpInfo("as_strided_scatter", _as_strided_scatter_samples, error_inputs=_SLOT_ERRORS((2, 2), (3, 1)),
           skips={"vs_torch": "PyTorch 2.13's AsStridedScatterBackward0 gives the input the gradient of the places "
                              "src overwrote and 0 elsewhere, the reverse (torch.autograd.gradcheck fails on it too); "
                              "glasstorch's gradient passes gradcheck"}),
]

OPS = [*GETITEM, *SETITEM, *INDEX_PUT, *MASKING, *GATHER_SCATTER, *WRITING]
