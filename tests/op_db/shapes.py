"""Shape and view ops: reshape, cat, split, flip, diag... (ops/shape.py, shape_more.py, functional.py).

None of these changes a value (or only moves, copies, sums them: trace, kron, renorm), so most
samples are any shape up to 3 dims, 0-dim included where PyTorch takes it. Ops that return several
tensors (split, unbind, meshgrid) have every output's values, ``grad_fn`` and gradient compared.

Samples avoid empty outputs (an empty split piece, narrow of length 0, a diagonal past the corner):
glasstorch's gradgradcheck refuses an empty grad_output, whose numpy strides are 0, as overlapping.

Factories with no tensor input (``tril_indices``, ``triu_indices``) run with an ``op`` that ignores
the sample. ``logspace`` and ``range`` are tested in ``test_docexamples_ops.py`` (``logspace_range``),
``broadcast_shapes`` (shapes in, a shape out) in ``test_vs_torch.py``.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from .core import (MATRICES, SHAPES, ErrorInput, NoGrad, OpInfo, SampleInput, array, dim_of,
                   index_array)

SMALL = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
VECTORS = array_shapes(min_dims=1, max_dims=1, min_side=1, max_side=4)
AT_LEAST_2D = array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3)
AT_LEAST_3D = array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=3)


def one(draw_arguments: Callable | None = None, shapes: Any = SHAPES, kind: str = "any") -> Callable:
    """Samples of an op of one tensor: ``draw_arguments(draw, shape) -> (args, kwargs)``."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(shapes)
        args, kwargs = draw_arguments(draw, shape) if draw_arguments else ((), {})
        return SampleInput(array(draw, shape, kind), args, kwargs)

    return samples


def a_dim(draw: Callable, shape: tuple) -> int:
    """A valid dim; 0 or -1 for a 0-dim tensor (PyTorch takes both as its one pretend dim)."""
    return dim_of(draw, shape) if shape else draw(st.sampled_from([0, -1]))


def pieces_along(count: int = 3, at_least: int = 1) -> Callable:
    """Samples of cat-like ops: up to ``count`` tensors of one shape except along ``dim``."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SMALL)
        dim = dim_of(draw, shape)
        tensors = []
        for _ in range(draw(st.integers(at_least, count))):
            piece = list(shape)
            piece[dim] = draw(st.integers(1, 3))
            tensors.append(array(draw, piece))
        return SampleInput(tensors, (dim,))

    return samples


def same_shapes(shapes: Any = SHAPES, count: int = 3, at_least: int = 1) -> Callable:
    """Samples of stack-like ops: 1 to ``count`` tensors of one shape, passed as a list."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(shapes)
        return SampleInput([array(draw, shape) for _ in range(draw(st.integers(at_least, count)))])

    return samples


def constant_first(sample: SampleInput) -> SampleInput:
    """The sample with its first tensor a constant (one piece needs no gradient)."""
    first, *rest = sample.input
    return SampleInput([NoGrad(first), *rest], sample.args, sample.kwargs)


def several(shapes: Any, count: int = 3) -> Callable:
    """Samples of ops taking several tensors of their own shapes (block_diag, cartesian_prod)."""
    def samples(draw: Callable) -> SampleInput:
        return SampleInput([array(draw, draw(shapes)) for _ in range(draw(st.integers(1, count)))])

    return samples


def broadcast_pair(draw: Callable) -> tuple:
    """(small shape, the shape it expands to)."""
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3))
    return shapes.input_shapes[0], shapes.result_shape


def error(input: Any, *args: Any, error: type = RuntimeError, match: str, **kwargs: Any) -> ErrorInput:
    """A call that must fail: ``input`` the shape of the tensor (a list of shapes: a list of
    tensors), the arguments as given (arrays become tensors)."""
    tensors = [np.ones(shape) for shape in input] if isinstance(input, list) else np.ones(input)
    return ErrorInput(SampleInput(tensors, args, kwargs), error, match)


def list_op(name: str) -> Callable:
    """``lib.<name>(tensors, *args)`` with the sample's list as its first argument."""
    return lambda lib, tensors, *args, **kwargs: getattr(lib, name)(tensors, *args, **kwargs)


def unpacked(name: str) -> Callable:
    """``lib.<name>(*tensors)``: ops that take the tensors as separate arguments."""
    return lambda lib, tensors, *args, **kwargs: getattr(lib, name)(*tensors, *args, **kwargs)


def _without_warnings(op: Callable) -> Callable:
    """``op`` with its warnings silenced (meshgrid without indexing= warns, in both libraries, that
    it will be required; the call is still checked)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return op(*args, **kwargs)

    return call


def method(name: str) -> Callable:
    """A Tensor-only method: ``input.<name>(*args)``."""
    return lambda lib, input, *args, **kwargs: getattr(input, name)(*args, **kwargs)


# --- draws of arguments ---------------------------------------------------------------------------
def _reshaped(draw: Callable, shape: tuple) -> tuple:
    """A new shape of the same size: reversed, flat, with a -1, or with leading ones."""
    size = int(np.prod(shape))
    choices = [tuple(reversed(shape)), (size,), (-1,), (1,) + tuple(shape), (size, 1), (-1, 1)]
    return (draw(st.sampled_from(choices)),), {}


def _same_bytes(draw: Callable, shape: tuple) -> tuple:
    """A dtype to view the bytes as: int64 (twice float32's size) only where the last dim is even."""
    return (draw(st.sampled_from(["int16", "int32"] + ["int64"] * (shape[-1] % 2 == 0))),), {}


def _flatten_dims(draw: Callable, shape: tuple) -> tuple:
    if not shape:
        return (), {}
    start = draw(st.integers(0, len(shape) - 1))
    end = draw(st.integers(start, len(shape) - 1))
    return (), {"start_dim": start, "end_dim": end - len(shape) if draw(st.booleans()) else end}


def _permutation(draw: Callable, shape: tuple) -> tuple:
    return (tuple(draw(st.permutations(range(len(shape))))),), {}


def _two_dims(draw: Callable, shape: tuple) -> tuple:
    return (a_dim(draw, shape), a_dim(draw, shape)), {}


def _moved(draw: Callable, shape: tuple) -> tuple:
    count = draw(st.integers(1, len(shape)))
    source = draw(st.permutations(range(len(shape))))[:count]
    destination = draw(st.permutations(range(len(shape))))[:count]
    if count == 1 and draw(st.booleans()):
        return (source[0], destination[0] - len(shape)), {}
    return (tuple(source), tuple(destination)), {}


def _some_dims(draw: Callable, shape: tuple) -> tuple:
    return tuple(draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                               unique_by=lambda d: d % len(shape))))


def _roll(draw: Callable, shape: tuple) -> tuple:
    if not shape or draw(st.booleans()):
        return (draw(st.integers(-4, 4)),), {}
    dims = _some_dims(draw, shape)
    return (tuple(draw(st.integers(-4, 4)) for _ in dims), dims), {}


def _triangle(draw: Callable, shape: tuple) -> tuple:
    return (draw(st.integers(-2, 2)),), {}


def _repeats(draw: Callable, shape: tuple) -> tuple:
    return tuple(draw(st.integers(1, 2)) for _ in range(max(len(shape), 1) + draw(st.integers(0, 1)))), {}


def _tile(draw: Callable, shape: tuple) -> tuple:
    return (tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(1, len(shape) + 1)))),), {}


def _split_size(draw: Callable, shape: tuple) -> tuple:
    return (draw(st.integers(1, 3)), a_dim(draw, shape)), {}


def _split_sizes(draw: Callable, shape: tuple) -> tuple:
    dim = dim_of(draw, shape)
    cuts = sorted(set(draw(st.lists(st.integers(1, shape[dim] - 1), max_size=2)))) if shape[dim] > 1 else []
    bounds = [0, *cuts, shape[dim]]
    return ([b - a for a, b in zip(bounds[:-1], bounds[1:])], dim), {}


def _sections(draw: Callable, shape: tuple) -> tuple:
    dim = dim_of(draw, shape)
    return (draw(st.integers(1, shape[dim])), dim), {}


def _indices(draw: Callable, shape: tuple) -> tuple:
    """Increasing cut points strictly inside the dim, one of them negative at times."""
    dim = dim_of(draw, shape)
    cuts = sorted(set(draw(st.lists(st.integers(1, shape[dim] - 1), max_size=2)))) if shape[dim] > 1 else []
    if cuts and draw(st.booleans()):
        cuts[-1] -= shape[dim]
    return (cuts, dim), {}


def _split_at(dim_of_shape: Callable) -> Callable:
    """Arguments of hsplit, vsplit, dsplit: a number of equal parts, or cut points inside the dim."""
    def draw_arguments(draw: Callable, shape: tuple) -> tuple:
        n = shape[dim_of_shape(shape)]
        if draw(st.booleans()):
            return (draw(st.sampled_from([d for d in (1, 2, 3) if n % d == 0])),), {}
        return (sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=2)))) if n > 1 else [],), {}

    return draw_arguments


def _narrow(draw: Callable, shape: tuple) -> tuple:
    dim = dim_of(draw, shape)
    start = draw(st.integers(0, shape[dim] - 1))
    length = draw(st.integers(1, shape[dim] - start))
    return (dim, start - shape[dim] if start < shape[dim] and draw(st.booleans()) else start, length), {}


def _narrow_from_start(draw: Callable, shape: tuple) -> tuple:
    (dim, start, length), _ = _narrow(draw, shape)
    return (dim, start % shape[dim], length), {}


def _unfold(draw: Callable, shape: tuple) -> tuple:
    dim = a_dim(draw, shape)
    size = draw(st.integers(1, shape[dim] if shape else 1))
    return (dim, size, draw(st.integers(1, 2))), {}


def _diagonal(draw: Callable, shape: tuple) -> tuple:
    dim1, dim2 = draw(st.permutations(range(len(shape))))[:2]
    offset = draw(st.integers(1 - shape[dim1], shape[dim2] - 1))  # a diagonal with elements
    return (offset, dim1, dim2 - len(shape) if draw(st.booleans()) else dim2), {}


def _as_strided(draw: Callable, shape: tuple) -> tuple:
    """A window inside the input's storage (never past its end)."""
    size = int(np.prod(shape))
    offset = draw(st.integers(0, size - 1))
    rows, cols = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    row_stride = draw(st.integers(0, 2))
    col_stride = draw(st.integers(0, 1))
    if offset + (rows - 1) * row_stride + (cols - 1) * col_stride >= size:
        offset, row_stride, col_stride = 0, 0, 0
    return ((rows, cols), (row_stride, col_stride), offset), {}


def _diag_embed(draw: Callable, shape: tuple) -> tuple:
    ndim = len(shape) + 1
    dim1, dim2 = draw(st.permutations(range(ndim)))[:2]
    return (draw(st.integers(-2, 2)), dim1, dim2 - ndim if draw(st.booleans()) else dim2), {}


def _rot90(draw: Callable, shape: tuple) -> tuple:
    dims = draw(st.permutations(range(len(shape))))[:2]
    return (draw(st.integers(-5, 5)), list(dims)), {}


def _renorm(draw: Callable, shape: tuple) -> tuple:
    return (draw(st.sampled_from([1.0, 2.0, 3.0])), dim_of(draw, shape), draw(st.sampled_from([0.5, 1.0, 2.0]))), {}


def _unflatten(draw: Callable, shape: tuple) -> tuple:
    dim = dim_of(draw, shape)
    n = shape[dim]
    sizes = draw(st.sampled_from([(n,), (1, n), (n, 1), (-1,), (1, -1)]))
    return (dim, sizes), {}


# --- samples of ops with several inputs ---------------------------------------------------------------
def _expand(draw: Callable) -> SampleInput:
    small, big = broadcast_pair(draw)
    size = list(big)
    lead = len(big) - len(small)
    for i in range(lead, len(big)):  # -1 keeps a dim's size
        if draw(st.integers(0, 3)) == 0:
            size[i] = -1
    if not size or draw(st.booleans()):  # expand(2, 3) or expand((2, 3)); expand() takes no sizes
        return SampleInput(array(draw, small), (tuple(size),))
    return SampleInput(array(draw, small), tuple(size))


def _broadcast_to(draw: Callable) -> SampleInput:
    small, big = broadcast_pair(draw)
    return SampleInput(array(draw, small), (big,))


def _as_other(draw: Callable) -> SampleInput:
    """For expand_as: an input and a constant of a shape it broadcasts to."""
    small, big = broadcast_pair(draw)
    return SampleInput(array(draw, small), (NoGrad(array(draw, big)),))


def _same_size_other(draw: Callable) -> SampleInput:
    """For view_as, reshape_as: an input and a constant of another shape with as many elements."""
    shape = draw(SHAPES)
    (other,), _ = _reshaped(draw, shape)
    other = tuple(int(np.prod(shape)) if n == -1 else n for n in other)
    return SampleInput(array(draw, shape), (NoGrad(array(draw, other)),))


def _meshgrid(indexing: str) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shapes = array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=3)
        return SampleInput([array(draw, draw(shapes)) for _ in range(draw(st.integers(1, 3)))],
                           kwargs={"indexing": indexing})

    return samples


def _counts(draw: Callable) -> SampleInput:
    """repeat_interleave with a tensor of one count per element along ``dim``."""
    shape = draw(SMALL)
    dim = dim_of(draw, shape)
    counts = np.asarray(draw(st.lists(st.integers(0, 2), min_size=shape[dim], max_size=shape[dim])), dtype=np.int64)
    counts[draw(st.integers(0, shape[dim] - 1))] += 1  # never all zero
    return SampleInput(array(draw, shape), (counts,), {"dim": dim})


def _kron(draw: Callable) -> SampleInput:
    return SampleInput(array(draw, draw(SHAPES)), (array(draw, draw(SHAPES)),))


def _inner(draw: Callable) -> SampleInput:
    n = draw(st.integers(1, 3))
    shapes = array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)
    first, second = draw(shapes), draw(shapes)
    if first and second:
        first, second = first[:-1] + (n,), second[:-1] + (n,)
    return SampleInput(array(draw, first), (array(draw, second),))


def _tensordot(draw: Callable) -> SampleInput:
    """Two tensors whose last ``dims`` dims (of the first) match the first ``dims`` (of the second)."""
    shared = draw(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    left = draw(array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=3))
    right = draw(array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=3))
    a, b = array(draw, left + shared), array(draw, shared + right)
    if shared and draw(st.booleans()):  # the pairs as lists of dims
        dims = ([len(left) + i for i in range(len(shared))], list(range(len(shared))))
        return SampleInput(a, (b,), {"dims": dims})
    return SampleInput(a, (b,), {"dims": len(shared)})


def _take(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    size = int(np.prod(shape))
    index = index_array(draw, 2 * size, draw(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))) - size
    return SampleInput(array(draw, shape), (index,))


def _sorted_rows(draw: Callable) -> np.ndarray:
    shape = draw(array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4))
    return np.sort(np.round(array(draw, shape) * 2) / 2, axis=-1)  # ties, so ``right`` matters


def _searchsorted(draw: Callable) -> SampleInput:
    boundaries = _sorted_rows(draw)
    values_shape = boundaries.shape[:-1] + (draw(st.integers(1, 3)),)
    values = np.round(array(draw, values_shape) * 2) / 2
    return SampleInput(boundaries, (values,), {"right": draw(st.booleans())})


def _bucketize(draw: Callable) -> SampleInput:
    boundaries = np.sort(np.round(array(draw, draw(VECTORS)) * 2) / 2)
    values = np.round(array(draw, draw(SHAPES)) * 2) / 2
    return SampleInput(values, (boundaries,), {"right": draw(st.booleans())})


def _bincount(draw: Callable) -> SampleInput:
    values = index_array(draw, 5, draw(VECTORS))
    kwargs: dict = {"minlength": draw(st.integers(0, 6))}
    if draw(st.booleans()):
        kwargs["weights"] = array(draw, values.shape)
    return SampleInput(values, (), kwargs)


def _runs(draw: Callable) -> SampleInput:
    """Values with repeats next to each other, so there are runs to collapse."""
    shape = draw(SHAPES)
    kwargs = {"return_inverse": draw(st.booleans()), "return_counts": draw(st.booleans())}
    if shape and draw(st.booleans()):
        kwargs["dim"] = dim_of(draw, shape)
    return SampleInput(np.round(array(draw, shape) * 0.7), (), kwargs)


def _unravel(draw: Callable) -> SampleInput:
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    size = int(np.prod(shape))
    return SampleInput(index_array(draw, 2 * size, draw(SHAPES)) - size, (shape,))


def _triangle_indices(draw: Callable) -> SampleInput:
    return SampleInput(np.zeros(()), (draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.integers(-3, 3))))


def _vander(draw: Callable) -> SampleInput:
    kwargs: dict = {"increasing": draw(st.booleans())}
    if draw(st.booleans()):
        kwargs["N"] = draw(st.integers(0, 4))
    return SampleInput(array(draw, draw(VECTORS)), (), kwargs)


def _combinations(draw: Callable) -> SampleInput:
    """r at most the length without replacement: an empty (0, r) result would be refused by
    glasstorch's gradgradcheck (numpy gives an empty array stride 0)."""
    shape, with_replacement = draw(VECTORS), draw(st.booleans())
    r = draw(st.integers(0, 3 if with_replacement else min(shape[0], 3)))
    return SampleInput(array(draw, shape), (), {"r": r, "with_replacement": with_replacement})


def _broadcast_tensors(draw: Callable) -> SampleInput:
    shapes = draw(mutually_broadcastable_shapes(num_shapes=draw(st.integers(1, 3)), min_dims=0, max_dims=3,
                                                max_side=3))
    return SampleInput([array(draw, shape) for shape in shapes.input_shapes])


def _matrix_arg(draw: Callable) -> SampleInput:
    return SampleInput(array(draw, draw(MATRICES)), (draw(st.integers(-2, 2)),))


def _matrix(draw: Callable) -> SampleInput:
    n = draw(st.integers(1, 3))
    return SampleInput(array(draw, (n, draw(st.integers(1, 3)))))


# --- the entries ---------------------------------------------------------------------------------
VIEWS = [
    OpInfo("reshape", one(_reshaped), other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 3), (4,), match="is invalid for input of size"),
                                 error((2, 3), (-1, -1), match="only one dimension can be inferred")]),
    OpInfo("view", one(_reshaped), op=method("view"), method=False, other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), (5,), match="is invalid for input of size")]),
    # a transposed matrix cannot be viewed flat: reshape copies (UnsafeViewBackward0 after CloneBackward0)
    OpInfo("reshape", one(lambda draw, shape: ((-1,), {}), shapes=MATRICES), variant="copy",
           op=lambda lib, x, shape: x.t().reshape(shape), method=False),
    # the same bytes read as another dtype (not differentiable): the last dim of a float32 tensor
    # doubles as int16 and halves as int64
    OpInfo("view", one(_same_bytes, shapes=SMALL), variant="dtype", op=lambda lib, x, dtype: x.view(getattr(lib, dtype)),
           method=False, supports_grad=False,
           error_inputs=lambda: [error((2, 3), "int64", match="self.size(-1) must be divisible by 2 to view Float as Long")]),
    OpInfo("view_as", _same_size_other, op=method("view_as"), method=False,
           error_inputs=lambda: [error((2, 3), np.ones(5), match="shape '[5]' is invalid for input of size 6")]),
    OpInfo("reshape_as", _same_size_other, op=method("reshape_as"), method=False,
           error_inputs=lambda: [error((2, 3), np.ones(5), match="shape '[5]' is invalid for input of size 6")]),
    OpInfo("flatten", one(_flatten_dims), other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3, 1), start_dim=2, end_dim=1,
                                       match="flatten() has invalid args: start_dim cannot come after end_dim")]),
    OpInfo("ravel", one(), other_dtypes=("int64", "bool")),
    OpInfo("unflatten", one(_unflatten, shapes=SMALL), other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 6), 1, (4, 2), match="don't multiply up to the size of dim"),
                                 error((2, 6), 1, (), match="sizes must be non-empty"),
                                 error((6,), 0, (-1, -1), match="only one dimension can be inferred")]),
    OpInfo("squeeze", one(shapes=array_shapes(min_dims=0, max_dims=3, max_side=2))),
    OpInfo("squeeze", one(lambda draw, shape: ((a_dim(draw, shape),), {}),
                          shapes=array_shapes(min_dims=0, max_dims=3, max_side=2)), variant="dim",
           error_inputs=lambda: [error((2, 1), 2, error=IndexError, match="Dimension out of range")]),
    OpInfo("squeeze", one(lambda draw, shape: ((_some_dims(draw, shape),), {}),
                          shapes=array_shapes(min_dims=1, max_dims=3, max_side=2)), variant="dims",
           error_inputs=lambda: [error((2,), (0, 0), match="dim 0 appears multiple times in the list of dims")]),
    OpInfo("unsqueeze", one(lambda draw, shape: ((draw(st.integers(-len(shape) - 1, len(shape))),), {})),
           other_dtypes=("bool",),
           error_inputs=lambda: [error((2, 3), 3, error=IndexError, match="Dimension out of range")]),
    OpInfo("transpose", one(_two_dims), aliases=("swapaxes", "swapdims"), other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), 0, 2, error=IndexError, match="Dimension out of range")]),
    OpInfo("swapaxes", one(_two_dims, shapes=SMALL),
           error_inputs=lambda: [error((2,), 0, 1, error=IndexError, match="Dimension out of range")]),
    OpInfo("swapdims", one(_two_dims, shapes=SMALL)),
    OpInfo("t", one(shapes=array_shapes(min_dims=0, max_dims=2, max_side=3)),
           error_inputs=lambda: [error((2, 2, 2), match="expects a tensor with <= 2 dimensions")]),
    OpInfo("permute", one(_permutation), other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), (0,), match="number of dimensions in the tensor input does not match"),
                                 error((2, 3), (0, 0), match="duplicate dims are not allowed")]),
    OpInfo("movedim", one(_moved, shapes=SMALL), aliases=("moveaxis",),
           error_inputs=lambda: [error((2, 3), (0, 1), (1,), match="movedim: Invalid source or destination dims"),
                                 error((2, 3), (0, 0), (0, 1), match="movedim: repeated dim in `source` ([0, 0])")]),
    OpInfo("expand", _expand, op=method("expand"), method=False, other_dtypes=("bool",),
           error_inputs=lambda: [error((2, 3), 3, 3, match="must match the existing size"),
                                 error((2, 3), 3, match="must be greater or equal to the number of dimensions")]),
    OpInfo("expand_as", _as_other, op=method("expand_as"), method=False,
           error_inputs=lambda: [error((2, 3), np.ones((3, 3)), match="must match the existing size (2)")]),
    OpInfo("broadcast_to", _broadcast_to,
           error_inputs=lambda: [error((2, 3), (3, 3), match="must match the existing size"),
                                 error((2, 3), (3,), match="the number of sizes provided (1) must be greater or equal")]),
    OpInfo("broadcast_tensors", _broadcast_tensors, op=unpacked("broadcast_tensors"), method=False,
           error_inputs=lambda: [error([(2, 3), (3, 2)], match="must match the size of tensor b")]),
    OpInfo("diagonal", one(_diagonal, shapes=AT_LEAST_2D),
           error_inputs=lambda: [error((2, 3), 0, 1, 1, match="diagonal dimensions cannot be identical")]),
    OpInfo("as_strided", one(_as_strided, shapes=SMALL),
           error_inputs=lambda: [error((2, 3), (2,), (1, 1), match="mismatch in length of strides and shape"),
                                 error((2,), (2,), (-1,), match="Negative strides are not supported")]),
    OpInfo("unfold", one(_unfold), op=method("unfold"), method=False,
           error_inputs=lambda: [error((2, 3), 1, 4, 1, match="maximum size for tensor at dimension 1 is 3"),
                                 error((2, 3), 1, 2, 0, match="step is 0 but must be > 0")]),
    OpInfo("narrow", one(_narrow, shapes=SMALL),
           error_inputs=lambda: [error((2, 3), 1, 2, 2, match="exceeds dimension size"),
                                 error((), 0, 0, 1, match="narrow() cannot be applied to a 0-dim tensor.")]),
    # start >= 0: PyTorch 2.13's NarrowCopyBackward0 slices [start, start + length) without wrapping a
    # negative start, so x.narrow_copy(0, -1, 1) gets a zero gradient there (glasstorch's is right)
    OpInfo("narrow_copy", one(_narrow_from_start, shapes=SMALL), supports_out=True,
           error_inputs=lambda: [error((2, 3), 1, 2, 2, match="exceeds dimension size")]),
]

def _in_place(name: str) -> Callable:
    """``x.<name>(...)`` on a non-leaf copy: the in-place view changes that give the tensor a new shape."""
    return lambda lib, input, *args: getattr(input.clone(), name)(*args)


# The in-place driver checks an in-place op on a copy broadcast to the result's shape; these change
# the shape itself, so each runs as its own entry: values, gradients and the in-place Node names
# (SqueezeBackward3/4/5, UnsqueezeBackward1, TransposeBackward1, TBackward1) against PyTorch.
IN_PLACE_VIEWS = [
    OpInfo("squeeze_", one(shapes=array_shapes(min_dims=0, max_dims=3, max_side=2)), op=_in_place("squeeze_"),
           method=False),
    OpInfo("squeeze_", one(lambda draw, shape: ((a_dim(draw, shape),), {}),
                           shapes=array_shapes(min_dims=0, max_dims=3, max_side=2)), variant="dim",
           op=_in_place("squeeze_"), method=False),
    OpInfo("squeeze_", one(lambda draw, shape: ((_some_dims(draw, shape),), {}),
                           shapes=array_shapes(min_dims=1, max_dims=3, max_side=2)), variant="dims",
           op=_in_place("squeeze_"), method=False),
    OpInfo("unsqueeze_", one(lambda draw, shape: ((draw(st.integers(-len(shape) - 1, len(shape))),), {})),
           op=_in_place("unsqueeze_"), method=False),
    OpInfo("transpose_", one(_two_dims), op=_in_place("transpose_"), method=False),
    OpInfo("t_", one(shapes=array_shapes(min_dims=0, max_dims=2, max_side=3)), op=_in_place("t_"), method=False),
    OpInfo("swapaxes_", one(_two_dims), op=_in_place("swapaxes_"), method=False),
    OpInfo("swapdims_", one(_two_dims), op=_in_place("swapdims_"), method=False),
]

# the transposing properties: x.T reverses all dims (a permute), x.mT swaps the last two
PROPERTIES = [
    OpInfo("T", one(), op=lambda lib, x: x.T, method=False),
    OpInfo("mT", one(shapes=AT_LEAST_2D), op=lambda lib, x: x.mT, method=False),
    OpInfo("H", one(shapes=MATRICES), op=lambda lib, x: x.H, method=False),
    OpInfo("mH", one(shapes=AT_LEAST_2D), op=lambda lib, x: x.mH, method=False),
]

JOINS = [
    OpInfo("cat", pieces_along(), op=list_op("cat"), method=False, supports_out=True, aliases=("concat", "concatenate"),
           other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error([(2, 3), (2, 2)], 0, match="Sizes of tensors must match except in dimension 0"),
                                 error([(2, 3)], 2, error=IndexError, match="Dimension out of range"),
                                 error([(2,), (2, 2)], match="Tensors must have same number of dimensions: got 1 and 2")]),
    OpInfo("stack", same_shapes(), op=list_op("stack"), method=False, supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: [error([(2, 3), (2, 2)], match="stack expects each tensor to be equal size"),
                                 error([], match="stack expects a non-empty TensorList")]),
    OpInfo("stack", lambda draw: SampleInput(same_shapes(SMALL)(draw).input, (draw(st.integers(-1, 1)),)),
           variant="dim", op=list_op("stack"), method=False),
    OpInfo("cat", lambda draw: constant_first(pieces_along(at_least=2)(draw)), variant="constant", op=list_op("cat"),
           method=False),
    OpInfo("stack", lambda draw: constant_first(same_shapes(at_least=2)(draw)), variant="constant", op=list_op("stack"),
           method=False),
    OpInfo("hstack", same_shapes(), op=list_op("hstack"), method=False, supports_out=True, other_dtypes=("bool",),
           error_inputs=lambda: [error([], match="hstack expects a non-empty TensorList")]),
    OpInfo("vstack", same_shapes(), op=list_op("vstack"), method=False, aliases=("row_stack",), supports_out=True,
           error_inputs=lambda: [error([], match="vstack expects a non-empty TensorList")]),
    OpInfo("dstack", same_shapes(), op=list_op("dstack"), method=False, supports_out=True,
           error_inputs=lambda: [error([], match="dstack expects a non-empty TensorList")]),
    OpInfo("column_stack", same_shapes(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)),
           op=list_op("column_stack"), method=False, supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: [error([], match="column_stack expects a non-empty TensorList")]),
    OpInfo("atleast_1d", one(), method=False, other_dtypes=("int64",)),
    OpInfo("atleast_2d", one(), method=False),
    OpInfo("atleast_3d", one(), method=False),
    OpInfo("atleast_3d", several(SHAPES), variant="list", op=list_op("atleast_3d"), method=False),
    OpInfo("atleast_2d", several(SHAPES), variant="varargs", op=unpacked("atleast_2d"), method=False),
    OpInfo("block_diag", several(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)),
           op=unpacked("block_diag"), method=False, other_dtypes=("int64",),
           error_inputs=lambda: [error([(2, 2, 2)], match="Input tensors must have 2 or fewer dimensions")]),
    OpInfo("cartesian_prod", several(VECTORS), op=unpacked("cartesian_prod"), method=False, other_dtypes=("int64",),
           error_inputs=lambda: [error([(2, 2), (2,)], match="Expect a 1D vector, but got shape [2, 2]")]),
    OpInfo("meshgrid", _meshgrid("ij"), variant="ij", op=unpacked("meshgrid"), method=False,
           error_inputs=lambda: [error([(2, 2)], indexing="ij", match="Expected 0D or 1D tensor in the tensor list"),
                                 error([(2,)], indexing="yx", match='indexing must be one of "xy" or "ij"')]),
    OpInfo("meshgrid", lambda draw: SampleInput(_meshgrid("ij")(draw).input), variant="default",
           op=_without_warnings(unpacked("meshgrid")), method=False),
    OpInfo("meshgrid", _meshgrid("xy"), variant="xy", op=unpacked("meshgrid"), method=False, other_dtypes=("int64",)),
]

SPLITS = [
    OpInfo("split", one(_split_size, shapes=SMALL), variant="size",
           error_inputs=lambda: [error((4,), -1, match="split expects split_size be non-negative"),
                                 error((), 1, match="split expects at least a 1-dimensional tensor")]),
    OpInfo("split", one(_split_sizes, shapes=SMALL), variant="sizes",
           error_inputs=lambda: [error((4,), [1, 2], match="split_with_sizes expects split_sizes to sum exactly to 4")]),
    OpInfo("chunk", one(_split_size, shapes=SMALL), other_dtypes=("int64",),
           error_inputs=lambda: [error((4,), 0, match="chunk expects `chunks` to be greater than 0"),
                                 error((), 1, match="chunk expects at least a 1-dimensional tensor")]),
    OpInfo("unbind", one(lambda draw, shape: ((dim_of(draw, shape),), {}), shapes=SMALL), other_dtypes=("bool",),
           error_inputs=lambda: [error((2,), 1, error=IndexError, match="Dimension out of range"),
                                 error((), error=IndexError, match="Dimension specified as 0 but tensor has no dimensions")]),
    OpInfo("tensor_split", one(_sections, shapes=SMALL), variant="sections", other_dtypes=("bool",),
           error_inputs=lambda: [error((4,), 0, match="number of sections must be larger than 0"),
                                 error((), 2, match="tensor_split expected at least a 1-dimensional tensor")]),
    OpInfo("tensor_split", one(_indices, shapes=SMALL), variant="indices"),
    OpInfo("hsplit", one(_split_at(lambda shape: 1 if len(shape) > 1 else 0), shapes=SMALL),
           error_inputs=lambda: [error((3, 4), 3, match="is not divisible by the split_size 3")]),
    OpInfo("vsplit", one(_split_at(lambda shape: 0), shapes=AT_LEAST_2D),
           error_inputs=lambda: [error((3,), 1, match="requires a tensor with at least 2 dimension")]),
    OpInfo("dsplit", one(_split_at(lambda shape: 2), shapes=AT_LEAST_3D),
           error_inputs=lambda: [error((3, 4), 1, match="requires a tensor with at least 3 dimension")]),
]

COPIES = [
    OpInfo("flip", one(lambda draw, shape: ((_some_dims(draw, shape) if shape else (),), {})),
           other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 3), (0, 0), match="dim 0 appears multiple times in the list of dims")]),
    OpInfo("fliplr", one(shapes=AT_LEAST_2D), other_dtypes=("bool",),
           error_inputs=lambda: [error((3,), match="Input must be >= 2-d.")]),
    OpInfo("flipud", one(shapes=SMALL),
           error_inputs=lambda: [error((), match="Input must be >= 1-d.")]),
    OpInfo("roll", one(_roll), other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), (1, 1), (0,), match="shifts and dimensions must align")]),
    OpInfo("rot90", one(_rot90, shapes=AT_LEAST_2D), other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 3), 1, [0, 0], match="expected rotation dims to be different"),
                                 error((3,), 1, [0, 1], match="expected total dims >= 2")]),
    OpInfo("tril", one(_triangle, shapes=AT_LEAST_2D), inplace="tril_", supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((3,), match="input tensor must have at least 2 dimensions")]),
    OpInfo("triu", one(_triangle, shapes=AT_LEAST_2D), inplace="triu_", supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: [error((3,), match="input tensor must have at least 2 dimensions")]),
    OpInfo("repeat", one(_repeats), op=method("repeat"), method=False, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 3), 2, match="Number of dimensions of repeat dims can not be smaller")]),
    OpInfo("tile", one(_tile, shapes=SMALL), other_dtypes=("int64",),
           error_inputs=lambda: [error((2,), (-1,), match="Trying to create tensor with negative dimension -2: [-2]")]),
    # counts of 0 only where the result keeps elements: gradgradcheck refuses an empty output
    OpInfo("repeat_interleave", one(lambda draw, shape: ((draw(st.integers(1, 2)),), {"dim": dim_of(draw, shape)}
                                    if shape and draw(st.booleans()) else {})), variant="int",
           error_inputs=lambda: [error((2,), -1, match="epeats must be non-negative")]),
    OpInfo("repeat_interleave", _counts, variant="counts", other_dtypes=("int64",),
           error_inputs=lambda: [ErrorInput(SampleInput(np.ones((2, 3)), (np.array([1, 2]),), {"dim": 1}), RuntimeError,
                                            "repeats must have the same size as input along dim")]),
    OpInfo("diag", one(lambda draw, shape: ((draw(st.integers(-2, 2)),), {}), shapes=VECTORS), variant="vector",
           supports_out=True),
    OpInfo("diag", _matrix_arg, variant="matrix", supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 2, 2), match="Supports 1D or 2D tensors. Got 3D")]),
    OpInfo("diag_embed", one(_diag_embed, shapes=SMALL), other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), 0, 1, 1, match="diagonal dimensions cannot be identical"),
                                 error((2,), 0, 0, 2, error=IndexError, match="Dimension out of range")]),
    OpInfo("diagflat", one(lambda draw, shape: ((draw(st.integers(-2, 2)),), {})), other_dtypes=("int64", "bool")),
    OpInfo("trace", _matrix, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((3,), match="expected a matrix")]),
    OpInfo("kron", _kron, supports_out=True, other_dtypes=("int64",)),
    OpInfo("inner", _inner, supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), np.ones(2), match="inner() the last dimension must match on both input tensors")]),
    OpInfo("tensordot", _tensordot, method=False, supports_out=True, other_dtypes=("int64",),
           error_inputs=lambda: [error((2, 3), np.ones((2, 3)), dims=1, match="contracted dimensions need to match"),
                                 error((2, 3), np.ones((3, 2), dtype=np.int64), dims=1,
                                       match="both inputs should have same dtype")]),
    OpInfo("vander", _vander, op=lambda lib, x, **kwargs: lib.vander(x, **kwargs), method=False,
           skips={"vs_torch": "PyTorch 2.13's vander cannot backward (it overwrites, in place, the input cumprod saved: "
                              "'modified by an inplace operation'); its values are compared in vander-values"}),
    OpInfo("vander", _vander, variant="values", op=lambda lib, x, **kwargs: lib.vander(x, **kwargs), method=False,
           supports_grad=False, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 2), match="x must be a one-dimensional tensor.")]),
    OpInfo("combinations", _combinations, method=False, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 2), match="Expect a 1D vector")]),
    OpInfo("renorm", one(_renorm, shapes=AT_LEAST_2D, kind="nonzero"), inplace="renorm_", supports_out=True,
           error_inputs=lambda: [error((2, 3), -1.0, 0, 1.0, match="non-positive-norm not supported"),
                                 error((3,), 2.0, 0, 1.0, match="input needs at least 2 dimensions")]),
    OpInfo("take", _take, supports_out=True, other_dtypes=("int64", "bool"),
           error_inputs=lambda: [error((2, 2), np.array([4]), error=IndexError, match="out of range"),
                                 error((2, 2), NoGrad(np.array([0.5])), match="Expected a long tensor for index")]),
]

NOT_DIFFERENTIABLE = [
    OpInfo("searchsorted", _searchsorted, supports_grad=False, method=False, supports_out=True,
           error_inputs=lambda: [ErrorInput(SampleInput(np.ones((2, 3)), (np.ones((3, 1)),)), RuntimeError,
                                            "first N-1 dimensions of boundaries tensor and input value tensor must match")]),
    OpInfo("bucketize", _bucketize, supports_grad=False, method=False, supports_out=True,
           error_inputs=lambda: [ErrorInput(SampleInput(np.ones(3), (np.ones((2, 2)),)), RuntimeError,
                                            "boundaries tensor must be 1 dimension")]),
    OpInfo("bincount", _bincount, supports_grad=False,
           error_inputs=lambda: [ErrorInput(SampleInput(np.array([0, -1])), RuntimeError,
                                            "bincount only supports 1-d non-negative integral inputs."),
                                 ErrorInput(SampleInput(np.array([0.5])), NotImplementedError,
                                            "\"bincount_cpu\" not implemented for 'Float'"),
                                 ErrorInput(SampleInput(np.array([0]), (), {"minlength": -1}), RuntimeError,
                                            "minlength should be >= 0")]),
    OpInfo("unique_consecutive", _runs, supports_grad=False, other_dtypes=("int64",),
           error_inputs=lambda: [error((2,), dim=2, error=IndexError, match="Dimension out of range")]),
    OpInfo("unravel_index", _unravel, supports_grad=False, method=False, dtypes=("float32",),
           error_inputs=lambda: [error((2,), (2, 3), error=TypeError, match="expected 'indices' to be integer dtype"),
                                 ErrorInput(SampleInput(np.array([1]), ((2, -3),)), ValueError,
                                            "'shape' cannot have negative values, but got (2, -3)")]),
    OpInfo("tril_indices", _triangle_indices, op=lambda lib, ignored, *args: lib.tril_indices(*args),
           supports_grad=False, method=False, dtypes=("float32",),
           error_inputs=lambda: [error((), -1, 2, match="row must be non-negative"),
                                 error((), 2, -1, match="col must be non-negative")]),
    OpInfo("triu_indices", _triangle_indices, op=lambda lib, ignored, *args: lib.triu_indices(*args),
           supports_grad=False, method=False, dtypes=("float32",)),
]

OPS = VIEWS + IN_PLACE_VIEWS + PROPERTIES + JOINS + SPLITS + COPIES + NOT_DIFFERENTIABLE
