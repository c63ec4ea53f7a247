"""Chapter 02 exercises: the strides of a contiguous tensor (``contiguous_strides``), ``unfold``
written as one ``as_strided`` window, and whether two tensors share memory (``shares_memory``).

Each is checked on cases drawn from the grader's seed (random shapes, windows over random
storages), and two are plugged into the package: the learner's strides lay out a new tensor
through ``as_strided``, and the learner's ``unfold`` serves as ``Tensor.unfold`` while a 1-d
convolution written with it runs forward and backward.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch import storage
from glasstorch._tensor import Tensor
from glasstorch.ops import shape as shape_ops

from ..checking import Case, exercise, replaced
from ._harness import normal, raised


# -- 02.contiguous_strides --------------------------------------------------------------------------

def _observe_strides(impl: Callable, shape: tuple) -> list:
    return [int(s) for s in impl(shape)]


def _strides_inside_as_strided(impl: Callable, shapes: list) -> dict:
    """A new tensor laid out with the learner's strides must read its values row by row, exactly
    as ``arange(n).reshape(shape)`` does, and count as contiguous."""
    observed = {}
    for shape in map(tuple, shapes):
        numel = int(np.prod(shape, dtype=np.int64))
        flat = glasstorch.arange(float(numel))
        laid_out = raised(lambda: flat.as_strided(shape, tuple(int(s) for s in impl(shape)), 0))
        observed[f"arange({numel}).as_strided({list(shape)}, your strides)"] = (
            laid_out if not isinstance(laid_out, Tensor) else
            {"values": laid_out, "is_contiguous()": laid_out.is_contiguous()})
    return observed


def _strides_cases(rng: np.random.Generator) -> list[Case]:
    def random_shape(ndim: int) -> tuple:
        return tuple(int(n) for n in rng.integers(2, 7, size=ndim))

    three, four = random_shape(3), random_shape(4)
    with_ones = (int(rng.integers(2, 6)), 1, int(rng.integers(2, 6)), 1)
    return [
        Case("a matrix", (random_shape(2),)),
        Case("a 3-d shape", (three,),
             hint="the last dim has stride 1; each dim before it steps over all the dims after it: "
                  "stride[d] = size[d+1] * size[d+2] * ... (row by row, not column by column)"),
        Case("a 4-d shape", (four,)),
        Case("a vector", ((int(rng.integers(2, 10)),),)),
        Case("a 0-d tensor: shape ()", ((),),
             hint="a shape with no dims has no strides: return an empty tuple"),
        Case("dims of size 1", (with_ones,)),
        Case("a dim of size 0", ((int(rng.integers(2, 5)), 0, int(rng.integers(2, 5))),),
             hint="PyTorch never makes a stride 0 for a new tensor: a dim of size 0 counts as 1 in the product "
                  "(c10/util/strides.h: max(size, 1))"),
        Case("a glasstorch.Size", (glasstorch.Size(random_shape(3)),)),
        Case("inside glasstorch: a new tensor laid out with your strides",
             ([random_shape(2), three, with_ones, random_shape(1)],), observe=_strides_inside_as_strided,
             hint="as_strided(shape, your strides) must read 0, 1, 2, ... row by row, as a new tensor does"),
    ]


exercise(
    id="02.contiguous_strides",
    entry="contiguous_strides",
    title="the strides of a new, contiguous tensor",
    cases=_strides_cases,
    reference=storage.contiguous_strides,
    observe=_observe_strides,
    hint="walk the shape from the last dim to the first, keeping the product of the sizes seen so far "
         "(starting at 1): that product is the stride of the current dim; then multiply it by max(size, 1).",
)


# -- 02.unfold --------------------------------------------------------------------------------------

# How each case makes its input from a (4, 5) or (3, 4, 6) array of values: some are views with a
# storage offset or strides that are not row by row.
_INPUTS: dict[str, Callable[[Tensor], Tensor]] = {
    "a vector": lambda t: t.reshape(-1),
    "a matrix": lambda t: t,
    "a transposed matrix (not contiguous)": lambda t: t.t(),
    "a slice that starts inside the storage": lambda t: t[1:, 1:],
    "every other column": lambda t: t[:, ::2],
    "a 3-d tensor": lambda t: t,
    "a 3-d tensor, permuted": lambda t: t.permute(2, 0, 1),
}


def _unfold_input(spec: str, values: np.ndarray, requires_grad: bool = False) -> tuple[Tensor, Tensor]:
    """(the leaf that owns the storage, the case's input: a window on it)."""
    leaf = glasstorch.tensor(values, requires_grad=requires_grad)
    return leaf, _INPUTS[spec](leaf * 1.0 if requires_grad else leaf)


def _observe_unfold(impl: Callable, spec: str, values: np.ndarray, dimension: int, size: int, step: int) -> dict:
    leaf, x = _unfold_input(spec, values)
    out = impl(x, dimension, size, step)
    observed = {
        "values": out,
        "shape": list(out.shape),
        "stride()": list(out.stride()),
        "storage_offset()": out.storage_offset(),
        "shares x's storage": out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
        "is a view of x's base": out._base is (x._base if x._base is not None else x),
    }
    if out.numel():  # a write through the result must reach x: the same memory
        out[(0,) * out.dim()] = -100.0
        observed["x after result[0, ..., 0] = -100"] = x
    grad_leaf, grad_x = _unfold_input(spec, values, requires_grad=True)
    grad_out = impl(grad_x, dimension, size, step)
    weights = glasstorch.arange(1.0, grad_out.numel() + 1.0).reshape(grad_out.shape)
    (grad_out * weights).sum().backward()
    observed["gradient of the base (overlapping windows add up)"] = grad_leaf.grad
    return observed


def _conv1d_with_unfold(impl: Callable, signal: np.ndarray, kernel: np.ndarray) -> dict:
    """A 1-d convolution (cross-correlation) written as windows @ kernel, with the learner's
    unfold as Tensor.unfold; forward, backward and a strided version."""
    x = glasstorch.tensor(signal, requires_grad=True)
    w = glasstorch.tensor(kernel, requires_grad=True)
    with replaced(Tensor, "unfold", impl):
        y = x.unfold(0, len(kernel), 1) @ w
        y.sum().backward()
        strided = (x.detach().unfold(0, len(kernel), 2) @ w.detach())
    return {"x.unfold(0, k, 1) @ w": y, "x.grad": x.grad, "w.grad": w.grad, "with step 2": strided}


def _unfold_cases(rng: np.random.Generator) -> list[Case]:
    matrix, cube = normal(rng, 4, 5), normal(rng, 3, 4, 6)
    step = int(rng.integers(1, 3))
    return [
        Case("a vector, windows of 3, step 1", ("a vector", matrix, 0, 3, 1)),
        Case(f"a vector, windows of 4, step {step + 1}", ("a vector", matrix, 0, 4, step + 1),
             hint="the number of windows is (length - size) // step + 1: the last window must fit"),
        Case("a vector, windows of 3 with gaps (step 5)", ("a vector", matrix, 0, 3, 5)),
        Case("a matrix along dim 1", ("a matrix", matrix, 1, 2, step)),
        Case("a matrix along dim 0", ("a matrix", matrix, 0, 2, 1),
             hint="the windows' dim takes the place of `dimension`; the window's elements go last"),
        Case("a matrix along dim -1", ("a matrix", matrix, -1, 3, 2)),
        Case("windows as long as the dim (one window)", ("a matrix", matrix, 1, 5, 1)),
        Case("a transposed matrix (not contiguous)", ("a transposed matrix (not contiguous)", matrix, 0, 3, step),
             hint="build the window from x's own strides (x.stride()), not from the strides a new tensor "
                  "would have: x may be a transpose or a slice"),
        Case("a slice that starts inside the storage", ("a slice that starts inside the storage", matrix, 1, 2, 1),
             hint="as_strided's storage_offset counts from the start of the storage: pass x.storage_offset()"),
        Case("every other column", ("every other column", matrix, 1, 2, 1)),
        Case("a 3-d tensor along the middle dim", ("a 3-d tensor", cube, 1, 2, 2)),
        Case("a 3-d tensor, permuted, along dim 2", ("a 3-d tensor, permuted", cube, 2, 3, 1)),
        Case("inside glasstorch: a 1-d convolution written with Tensor.unfold",
             (normal(rng, 9), normal(rng, 3)), observe=_conv1d_with_unfold,
             hint="build the result with x.as_strided(...): your unfold now *is* Tensor.unfold, so calling "
                  "x.unfold inside it would call itself"),
    ]


exercise(
    id="02.unfold",
    entry="unfold",
    title="unfold as one as_strided window",
    cases=_unfold_cases,
    reference=shape_ops.unfold,
    observe=_observe_unfold,
    hint="with d = dimension (made non-negative): the shape is x's shape with size[d] replaced by the "
         "number of windows, (size[d] - size) // step + 1, and `size` appended; the strides are x's strides "
         "with stride[d] replaced by stride[d] * step, and stride[d] appended; the offset is x's: "
         "x.as_strided(shape, strides, x.storage_offset()).",
)


# -- 02.shares_memory -------------------------------------------------------------------------------

# Two tensors made from x (a (rows, cols) matrix of float32); "y" is another tensor with the same values.
_PAIRS: dict[str, tuple[str, str]] = {
    "x and its transpose": ("x", "x.t()"),
    "two different rows": ("x[0]", "x[1]"),
    "even and odd columns": ("x[:, ::2]", "x[:, 1::2]"),
    "the first column and the first row": ("x[:, 0]", "x[0]"),
    "the rows from 1 on and the first row": ("x[1:]", "x[:1]"),
    "the rows from 1 on and the first two rows": ("x[1:]", "x[:2]"),
    "x and x.clone()": ("x", "x.clone()"),
    "x and x.detach()": ("x", "x.detach()"),
    "x and x.reshape(-1)": ("x", "x.reshape(-1)"),
    "x and x.t().reshape(-1)": ("x", "x.t().reshape(-1)"),
    "x and x[[0, 1]] (advanced indexing)": ("x", "x[[0, 1]]"),
    "the diagonal and the rest of row 0": ("x.diagonal()", "x[0, 1:]"),
    "the diagonal and the first column": ("x.diagonal()", "x[:, 0]"),
    "every other column and the last column": ("x[:, ::2]", "x[:, -1]"),
    "an expanded column and that column": ("x[:, 1:2].expand(-1, 3)", "x[:, 1]"),
    "no rows at all, and x": ("x[:0]", "x"),
    "the last element and the first row": ("x[-1, -1]", "x[0]"),
    "x and another tensor with the same values": ("x", "y"),
}


def _pair_tensor(expression: str, x: Tensor, y: Tensor) -> Tensor:
    return eval(expression, {"x": x, "y": y})  # noqa: S307 - the expressions are the fixed ones above


def _observe_shares(impl: Callable, values: np.ndarray, first: Any, second: Any) -> dict:
    """``first``/``second``: an expression of _PAIRS, or (size, stride, offset) of an as_strided window."""
    x = glasstorch.tensor(values)
    y = glasstorch.tensor(values)
    flat = x.reshape(-1)

    def make(spec: Any) -> Tensor:
        return _pair_tensor(spec, x, y) if isinstance(spec, str) else flat.as_strided(*spec)

    a, b = make(first), make(second)
    return {"shares_memory(a, b)": bool(impl(a, b)), "shares_memory(b, a)": bool(impl(b, a))}


def _reference_shares_memory(a: Tensor, b: Tensor) -> bool:
    """Do ``a`` and ``b`` read at least one common memory cell? numpy's exact answer on the arrays
    behind the two tensors (``np.shares_memory``)."""
    return bool(np.shares_memory(a._data, b._data))


def _random_window(rng: np.random.Generator, cells: int) -> tuple:
    """(size, stride, offset) of a 1-d or 2-d window inside a storage of ``cells`` cells."""
    while True:
        ndim = int(rng.integers(1, 3))
        size = tuple(int(n) for n in rng.integers(1, 4, size=ndim))
        stride = tuple(int(s) for s in rng.integers(1, 6, size=ndim))
        reach = sum((n - 1) * s for n, s in zip(size, stride))
        if reach < cells:
            return size, stride, int(rng.integers(0, cells - reach))


def _cells(size: tuple, stride: tuple, offset: int) -> set:
    return {offset + sum(i * s for i, s in zip(index, stride)) for index in itertools.product(*map(range, size))}


def _shares_cases(rng: np.random.Generator) -> list[Case]:
    rows, cols = int(rng.integers(3, 5)), int(rng.integers(4, 7))
    values = normal(rng, rows, cols)
    cases = [Case(name, (values, first, second)) for name, (first, second) in _PAIRS.items()]
    # random windows on x's storage: two that meet and two that do not, whatever the seed
    found = {True: [], False: []}
    while len(found[True]) < 2 or len(found[False]) < 2:
        one, two = _random_window(rng, rows * cols), _random_window(rng, rows * cols)
        meet = bool(_cells(*one) & _cells(*two))
        if len(found[meet]) < 2:
            found[meet].append((one, two))
    for meet in (True, False):
        for one, two in found[meet]:
            cases.append(Case(f"as_strided windows {one} and {two}", (values, one, two)))
    return cases


_HINTS = {
    "two different rows": "same storage is not enough: x[0] and x[1] share x's storage but no cell. Compare "
                          "the cells each tensor reads (offset + sum of index * stride)",
    "even and odd columns": "x[:, ::2] and x[:, 1::2] span the same range of cells, interleaved: compare the "
                            "sets of cells, not the first and last ones",
    "x and x.detach()": "detach() is not a view (no _base), but it reads the same memory",
    "x and another tensor with the same values": "two tensors with their own storages never share memory, "
                                                 "even if their cell numbers coincide: compare the storages first",
    "no rows at all, and x": "a tensor without elements reads no cell at all",
}
for _case_name, _hint in _HINTS.items():
    assert _case_name in _PAIRS


def _shares_cases_with_hints(rng: np.random.Generator) -> list[Case]:
    return [Case(case.name, case.inputs, hint=_HINTS.get(case.name)) for case in _shares_cases(rng)]


exercise(
    id="02.shares_memory",
    entry="shares_memory",
    title="do two tensors share memory?",
    cases=_shares_cases_with_hints,
    reference=_reference_shares_memory,
    observe=_observe_shares,
    hint="two tensors share memory when they use the same storage (untyped_storage().data_ptr()) and at "
         "least one cell is read by both: the set of storage_offset() + sum(index[d] * stride()[d]) over "
         "each tensor's indices.",
)
