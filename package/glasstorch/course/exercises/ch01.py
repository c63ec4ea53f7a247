"""Chapter 01 exercises: how ``torch.tensor`` infers a dtype, PyTorch's type promotion
(``torch.result_type``) and the broadcast shape of two shapes.

Each is checked on its own (plain data in, plain data out) and plugged into the package: the
learner's inference builds the tensors of ``glasstorch.tensor``, the learner's promotion decides
the dtype of real ops, and the learner's broadcast shape expands a loss's weights.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch import _creation, dtypes
from glasstorch.nn import functional

from ..checking import Case, exercise, replaced
from ._harness import raised


def with_default_dtype(default: Any, action: Callable[[], Any]) -> Any:
    """Run ``action()`` with ``default`` as the default dtype, and restore it whatever happens."""
    previous = glasstorch.get_default_dtype()
    glasstorch.set_default_dtype(default)
    try:
        return action()
    finally:
        glasstorch.set_default_dtype(previous)


# -- 01.infer -------------------------------------------------------------------------------------

def _infer_with_float64_default(impl: Callable, data: Any) -> Any:
    return with_default_dtype(glasstorch.float64, lambda: impl(data))


def _infer_inside_tensor(impl: Callable, values: np.ndarray) -> dict:
    """``glasstorch.tensor`` with the learner's inference in place of the package's ``_infer``."""
    with replaced(_creation, "_infer", impl):
        copied = glasstorch.tensor(values)
        values[0] = 100.0  # torch.tensor copies: the tensor must not see this
        labels = glasstorch.tensor([0, 2, 1])
        log_probs = glasstorch.tensor([[2.0, 0.5, -1.0], [0.1, 1.5, 0.3], [0.2, 0.2, 3.0]]).log_softmax(1)
        return {
            "tensor(array), then array[0] = 100.0": copied,
            "nll loss with labels tensor([0, 2, 1])": raised(lambda: -log_probs[glasstorch.arange(3), labels].mean()),
            "tensor([1, 2]) * 2.5": glasstorch.tensor([1, 2]) * 2.5,
            "tensor([[1, 2]], dtype=torch.float64)": glasstorch.tensor([[1, 2]], dtype=glasstorch.float64),
            "tensor([1, 2], requires_grad=True)": raised(lambda: glasstorch.tensor([1, 2], requires_grad=True)),
            "tensor([0.5], requires_grad=True)": glasstorch.tensor([0.5], requires_grad=True),
        }


def _infer_cases(rng: np.random.Generator) -> list[Case]:
    ints = [int(n) for n in rng.integers(-9, 10, size=4)]
    floats = [float(x) for x in np.round(rng.standard_normal(3), 3)]
    return [
        Case("Python ints", (ints,)),
        Case("nested Python floats", ([floats, floats[::-1]],)),
        Case("ints mixed with one float", ([1, 2, 2.5],),
             hint="one float makes the whole tensor floating point, of the default dtype"),
        Case("Python bools", ([True, False, True],),
             hint="bools are a category of their own: a list of bools gives a bool tensor, not int64"),
        Case("bools mixed with ints", ([True, 2, 3],)),
        Case("a single Python int", (ints[0],)),
        Case("a single Python float", (floats[0],)),
        Case("an empty list", ([],),
             hint="an empty list has no element to infer from: PyTorch gives the default dtype (float32)"),
        Case("a float64 numpy array", (rng.standard_normal((2, 2)),),
             hint="a numpy array keeps its own dtype (float64 here): only Python numbers are mapped to "
                  "int64 and the default dtype"),
        Case("an int32 numpy array", (np.array(ints, np.int32),),
             hint="a numpy array keeps its own dtype: int32 stays int32"),
        Case("a uint8 numpy array", (np.array([0, 128, 255], np.uint8),)),
        Case("a numpy scalar np.float64(0.5)", (np.float64(0.5),),
             hint="a numpy scalar is typed like an array and keeps its dtype. Careful: "
                  "isinstance(np.float64(0.5), float) is True, so test for numpy types first"),
        Case("ragged nested lists", ([[1, 2], [3]],),
             hint="rows of different lengths cannot make a tensor: PyTorch raises a ValueError "
                  "(\"expected sequence of length 2 at dim 1 (got 1)\")"),
        Case("Python floats with torch.set_default_dtype(torch.float64)", ([0.5, 1.5],),
             observe=_infer_with_float64_default,
             hint="Python floats become the *current* default dtype: read torch.get_default_dtype() "
                  "each time, do not write float32 into your code"),
        Case("inside glasstorch: torch.tensor(...) built with your inference",
             (rng.standard_normal(3),), observe=_infer_inside_tensor,
             hint="torch.tensor(array) must copy the array (torch.from_numpy is the one that shares "
                  "memory): return a copy of a numpy array, never the array itself"),
    ]


exercise(
    id="01.infer",
    entry="infer",
    title="the dtype torch.tensor infers from data",
    cases=_infer_cases,
    reference=_creation._infer,
    hint="let numpy build the array, then map its kind: floating point -> the default dtype, "
         "integers -> int64, bools stay bool. A numpy array (or numpy scalar) keeps its dtype and is copied.",
)


# -- 01.result_type -------------------------------------------------------------------------------

def _operand(spec: Any) -> Any:
    """A case's operand: ``("int32", (2,))`` is a tensor of that dtype and shape; a Python number
    stays a number."""
    if isinstance(spec, tuple):
        name, shape = spec
        return glasstorch.ones(shape, dtype=getattr(glasstorch, name))
    return spec


def _observe_result_type(impl: Callable, *specs: Any) -> Any:
    return impl(*map(_operand, specs))


def _result_type_float64_default(impl: Callable, *specs: Any) -> Any:
    return with_default_dtype(glasstorch.float64, lambda: _observe_result_type(impl, *specs))


def _promotion_inside_ops(impl: Callable, values: np.ndarray) -> dict:
    """Real ops, with the learner's result_type in place of the package's."""
    ints = glasstorch.from_numpy(values)  # int64, one dimension
    with replaced(dtypes, "result_type", impl):
        small, wide = ints.to(glasstorch.int32), glasstorch.tensor(2.0, dtype=glasstorch.float64)
        return {
            "int32 tensor * tensor(5)": small * glasstorch.tensor(5),
            "int64 tensor * 2.5": ints * 2.5,
            "int64 tensor / 2": ints / 2,
            "float16 tensor * tensor(2., dtype=float64)": ints.half() * wide,
            "int64 tensor * float32 tensor": ints * ints.float(),
            "bool tensor + 1": (ints > 0) + 1,
            "clamp(int64 tensor, min=0.5)": glasstorch.clamp(ints, min=0.5),
            "where(mask, int64 tensor, 2.5)": glasstorch.where(ints > 0, ints, 2.5),
        }


def _result_type_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(2, 5))
    return [
        Case("int64 tensor and a Python float", (("int64", (n,)), 2.5),
             hint="a Python float lifts the category to floating point and counts as the default "
                  "dtype (float32), not as float64 as in numpy"),
        Case("int32 tensor and a 0-d int64 tensor", (("int32", (n,)), ("int64", ())),
             hint="a zero-dimensional tensor has a lower priority than a tensor with dimensions: "
                  "within the same category it never widens the result"),
        Case("int32 tensor and a 1-d int64 tensor", (("int32", (n,)), ("int64", (1,)))),
        Case("float16 tensor and a 0-d float64 tensor", (("float16", (n,)), ("float64", ()))),
        Case("int64 tensor and a 0-d float64 tensor", (("int64", (n,)), ("float64", ())),
             hint="the 0-d float64 is the only floating-point operand: it decides the category, and "
                  "the result is the widest floating dtype among the operands of the highest priority "
                  "that has one, here float64 itself (only a Python number counts as the default dtype)"),
        Case("float32 tensor and a float64 tensor", (("float32", (n,)), ("float64", (n,)))),
        Case("bool tensor and a Python int", (("bool", (n,)), 1)),
        Case("bool tensor and a Python bool", (("bool", (n,)), True),
             hint="bool is a category below the integers: bool with bool stays bool"),
        Case("uint8 tensor and an int8 tensor", (("uint8", (n,)), ("int8", (n,))),
             hint="within one category, combine dtypes with torch.promote_types (uint8 with int8 is int16)"),
        Case("int8 tensor and the Python int 1000", (("int8", (n,)), 1000)),
        Case("float16 tensor and a bfloat16 tensor", (("float16", (n,)), ("bfloat16", (n,)))),
        Case("a 0-d int32 tensor and a 0-d float16 tensor", (("int32", ()), ("float16", ()))),
        Case("two Python numbers 2 and 2.5", (2, 2.5)),
        Case("Python True and 2", (True, 2)),
        Case("three operands: int32 tensor, 0-d float64 tensor, Python int",
             (("int32", (n,)), ("float64", ()), 7)),
        Case("int64 tensor and a Python float, default dtype float64", (("int64", (n,)), 2.5),
             observe=_result_type_float64_default,
             hint="a Python float counts as the *current* default dtype: read torch.get_default_dtype()"),
        Case("inside glasstorch: real ops with your result_type", (rng.integers(-3, 4, size=n),),
             observe=_promotion_inside_ops),
    ]


exercise(
    id="01.result_type",
    entry="result_type",
    title="type promotion: the dtype of an op on mixed operands",
    cases=_result_type_cases,
    reference=dtypes.result_type,
    observe=_observe_result_type,
    hint="keep three running dtypes, one per priority (tensors with dimensions, 0-d tensors, Python "
         "numbers), each combined with torch.promote_types; then go through them in that order and "
         "keep a lower-priority one only if it is of a higher category (bool < integer < floating).",
)


# -- 01.broadcast_shapes --------------------------------------------------------------------------

def _reference_broadcast(shape_a: tuple, shape_b: tuple) -> tuple:
    """glasstorch's own answer: the shape of a real elementwise op (or its RuntimeError)."""
    return tuple((glasstorch.zeros(shape_a) + glasstorch.zeros(shape_b)).shape)


def _observe_broadcast(impl: Callable, shape_a: tuple, shape_b: tuple) -> Any:
    # the message counts too: it is what a learner reads when shapes clash
    try:
        return [int(n) for n in impl(shape_a, shape_b)]
    except RuntimeError as error:
        return f"RuntimeError: {error}"


def _broadcast_inside_loss(impl: Callable, probs: np.ndarray, targets: np.ndarray, weight: np.ndarray) -> Any:
    """F.binary_cross_entropy expands its ``weight`` to the broadcast shape: the learner's."""
    with replaced(functional, "_broadcast_shapes", impl):
        return raised(lambda: functional.binary_cross_entropy(glasstorch.from_numpy(probs),
                                                              glasstorch.from_numpy(targets),
                                                              weight=glasstorch.from_numpy(weight)))


def _loss_case(rng: np.random.Generator, weight_shape: tuple, name: str) -> Case:
    probs = rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
    targets = (rng.uniform(size=(4, 3)) > 0.5).astype(np.float32)
    weight = rng.uniform(0.5, 2.0, weight_shape).astype(np.float32)
    return Case(f"inside glasstorch: binary_cross_entropy of (4, 3) with {name} weight {weight_shape}",
                (probs, targets, weight), observe=_broadcast_inside_loss)


def _broadcast_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("equal shapes (2, 3) and (2, 3)", ((2, 3), (2, 3))),
        Case("(3, 1) and (1, 4)", ((3, 1), (1, 4)),
             hint="a dimension of size 1 stretches to the other's size"),
        Case("(2, 3, 4) and (4,)", ((2, 3, 4), (4,)),
             hint="shapes are aligned at the right: (4,) counts as (1, 1, 4)"),
        Case("() and (2, 2)", ((), (2, 2))),
        Case("(5, 1, 3) and (4, 1)", ((5, 1, 3), (4, 1))),
        Case("(2, 0) and (1,)", ((2, 0), (1,)),
             hint="a size 1 stretches to any size, 0 included: (2, 0) with (1,) is (2, 0)"),
        Case("(3,) and (0,) do not broadcast", ((3,), (0,)),
             hint="only a size of 1 stretches: 3 and 0 clash (0 is a size like any other)"),
        Case("(2, 3) and (4,) do not broadcast", ((2, 3), (4,)),
             hint="raise RuntimeError with PyTorch's message: \"The size of tensor a (3) must match the "
                  "size of tensor b (4) at non-singleton dimension 1\""),
        Case("(2, 3) and (4, 5): two clashes", ((2, 3), (4, 5)),
             hint="with several clashes PyTorch reports the rightmost one (it checks from the last "
                  "dimension to the first)"),
        Case("(3, 4) and (2, 1, 5): a clash after alignment", ((3, 4), (2, 1, 5)),
             hint="the dimension in the message is counted in the aligned shapes, i.e. in the result: "
                  "(3, 4) is aligned as (1, 3, 4), so the clash of 4 with 5 is at dimension 2"),
        _loss_case(rng, (3,), "per-class"),
        _loss_case(rng, (4, 1), "per-example"),
        _loss_case(rng, (2,), "a mismatched"),
    ]


exercise(
    id="01.broadcast_shapes",
    entry="broadcast_shapes",
    title="the broadcast shape of two shapes",
    cases=_broadcast_cases,
    reference=_reference_broadcast,
    observe=_observe_broadcast,
    hint="pad the shorter shape with 1s on the left, then compare dimension by dimension from the "
         "right: equal sizes stay, a 1 takes the other's size, anything else is a RuntimeError.",
)
