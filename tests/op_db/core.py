"""What one entry of the op table says about an op, and how its sample inputs are drawn.

An :class:`OpInfo` names an op, says how to call it (``op(lib, input, *args, **kwargs)`` for
``lib`` = glasstorch or torch), draws sample inputs with hypothesis, and flags what the op
supports (a gradient, a second derivative, a method, an in-place twin, ``out=``, integer inputs).
The test files ``test_ops_*.py`` run every check on every entry; an entry never says what the
answer is: finite differences and real PyTorch do.

Sample values are drawn in float64 as numpy arrays; each test turns them into tensors of the dtype
it checks. Float arrays become leaves that require grad (``NoGrad`` keeps one constant); integer and
bool arrays (indices, masks) are constants.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

# In CI every run draws the same examples (a failure there is one a developer can reproduce);
# on a developer's machine each run explores new ones.
# OP_DB_EXAMPLES=200 digs deeper on a developer's machine (make test keeps the default).
EXAMPLES = settings(max_examples=int(os.environ.get("OP_DB_EXAMPLES", 6)), deadline=None,
                    derandomize=bool(os.environ.get("CI")), suppress_health_check=list(HealthCheck))


# --- what an entry holds ---------------------------------------------------------------------
@dataclass(frozen=True)
class NoGrad:
    """A float array that enters the op as a constant tensor, never as a leaf that requires grad."""

    array: np.ndarray


@dataclass(frozen=True)
class SampleInput:
    """One call: ``op(lib, input, *args, **kwargs)``. Arrays become tensors, the rest passes as is;
    a list or tuple of arrays becomes a list or tuple of tensors (``cat``'s input)."""

    input: Any
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def __repr__(self) -> str:  # hypothesis prints it for a failing example: shapes, not values
        def describe(value: Any) -> str:
            if isinstance(value, NoGrad):
                return f"NoGrad({describe(value.array)})"
            if isinstance(value, np.ndarray):
                return f"array{value.shape}:{value.dtype}"
            if isinstance(value, (list, tuple)):
                return type(value)(describe(v) for v in value).__repr__()
            return repr(value)

        parts = [describe(self.input), *map(describe, self.args), *(f"{k}={describe(v)}" for k, v in self.kwargs.items())]
        return f"SampleInput({', '.join(parts)})"


@dataclass(frozen=True)
class ErrorInput:
    """A call that must fail: PyTorch raises ``error`` with ``match`` in its message, and so must
    glasstorch (the test checks PyTorch too, so the phrase stays PyTorch's)."""

    sample: SampleInput
    error: type
    match: str


def resolve(lib: Any, name: str) -> Any:
    """``lib.nn.functional.gelu`` from ``"nn.functional.gelu"``."""
    target = lib
    for part in name.split("."):
        target = getattr(target, part)
    return target


def _call_by_name(name: str) -> Callable:
    def call(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return resolve(lib, name)(*args, **kwargs)

    return call


@dataclass(frozen=True)
class OpInfo:
    """One op of the table.

    name:           ``"lerp"``, ``"nn.functional.gelu"``: the function as ``lib.<name>``.
    variant:        what sets this entry apart from others of the same op (``"dim"``): the test
                    id is ``sum-dim``.
    samples:        ``samples(draw) -> SampleInput`` (a hypothesis ``draw``), values in float64.
    op:             ``op(lib, *args, **kwargs)`` where calling ``lib.<name>`` is not the op.
    method:         the Tensor method of that name exists too (``x.lerp(...)``); default: a
                    plain name has one, a dotted name does not.
    inplace:        the in-place method (``"lerp_"``), or None.
    supports_out:   the function takes ``out=``.
    supports_grad:  differentiable: gradcheck in float64, gradients compared with PyTorch's.
    supports_gradgrad: the backward is itself differentiable (gradgradcheck).
    dtypes:         the floating dtypes compared with PyTorch.
    other_dtypes:   integer/bool dtypes whose result (or error) is compared with PyTorch's.
    error_inputs:   ``error_inputs() -> list[ErrorInput]``.
    tolerances:     ``{dtype name: (rtol, atol)}`` where the default comparison is too tight.
    grad_fn_difference: ``(glasstorch's, PyTorch's)`` Node name where glasstorch records another
                    Node on purpose (its docstring says why); the test asserts both names.
    aliases:        other names of the same function (``"multiply"`` for ``mul``): each must exist
                    in both libraries and return the same.
    skips:          ``{test name: reason}``: a check that does not apply, with the reason shown.
    family:         the table's file it comes from (set by ``op_db/__init__.py``): test ids start
                    with it, so ``-k pointwise`` runs one family.
    """

    name: str
    samples: Callable[[Callable], SampleInput]
    variant: str = ""
    op: Callable | None = None
    method: bool | None = None
    inplace: str | None = None
    supports_out: bool = False
    supports_grad: bool = True
    supports_gradgrad: bool = True
    dtypes: tuple = ("float32", "float64")
    other_dtypes: tuple = ()
    error_inputs: Callable[[], list] = list
    tolerances: dict = field(default_factory=dict)
    gradcheck_tolerances: dict = field(default_factory=dict)
    grad_fn_difference: tuple | None = None
    aliases: tuple = ()
    skips: dict = field(default_factory=dict)
    family: str = ""

    def __post_init__(self) -> None:
        if self.op is None:
            object.__setattr__(self, "op", _call_by_name(self.name))
        if self.method is None:
            object.__setattr__(self, "method", "." not in self.name)

    @property
    def id(self) -> str:
        """The test id: ``reductions:sum``, ``reductions:sum-dim``."""
        name = f"{self.name}-{self.variant}" if self.variant else self.name
        return f"{self.family}:{name}" if self.family else name

    @property
    def method_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def __repr__(self) -> str:
        return self.id

    def with_variant(self, variant: str, **changes: Any) -> "OpInfo":
        """The same op with other samples or flags, as its own entry (``sum-dim``)."""
        return dataclasses.replace(self, variant=variant, **changes)


# --- drawing values --------------------------------------------------------------------------
def _away_from(values: np.ndarray, points: tuple, gap: float = 0.1) -> np.ndarray:
    for point in points:
        close = np.abs(values - point) < gap
        values = np.where(close, values + 2 * gap, values)
    return values


def values_of(shape: tuple, rng: np.random.Generator, kind: str = "any") -> np.ndarray:
    """Float64 values of a kind that keeps away from where an op is not differentiable.

    ``any``: standard normal; ``positive``: in [0.5, 2]; ``nonzero``: |v| >= 0.2; ``unit``: in
    (-0.9, 0.9) (asin, atanh); ``above_one``: in [1.2, 3] (acosh); ``clamp``: away from +-0.5;
    ``distinct``: pairwise at least 0.15 apart (no ties for sort, max, median);
    ``odd``/``even``: near odd/even multiples of 0.1, so an odd and an even never tie.
    """
    n = int(np.prod(shape, dtype=np.int64))
    if kind == "any":
        values = rng.standard_normal(shape)
    elif kind == "positive":
        values = rng.uniform(0.5, 2.0, shape)
    elif kind == "nonzero":
        values = rng.uniform(0.2, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    elif kind == "unit":
        values = rng.uniform(-0.9, 0.9, shape)
    elif kind == "above_one":
        values = rng.uniform(1.2, 3.0, shape)
    elif kind == "clamp":
        values = _away_from(rng.uniform(-1.0, 1.0, shape), (-0.5, 0.5))
    elif kind == "distinct":
        values = (rng.permutation(n) * 0.25 - n / 8 + rng.uniform(-0.05, 0.05, n)).reshape(shape)
    elif kind in ("odd", "even"):
        steps = 2 * rng.integers(-8, 8, shape) + (kind == "odd")
        values = steps * 0.1 + rng.uniform(-0.02, 0.02, shape)
    else:
        raise ValueError(f"unknown kind of values: {kind!r}")
    return np.asarray(values, dtype=np.float64)


SHAPES = array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
NONEMPTY_DIMS = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
MATRICES = array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=4)


def array(draw: Callable, shape: tuple, kind: str = "any") -> np.ndarray:
    """Float64 values of ``shape`` and ``kind``, from a seed hypothesis draws (and can shrink)."""
    seed = draw(st.integers(0, 2**32 - 1))
    return values_of(tuple(shape), np.random.default_rng(seed), kind)


def dim_of(draw: Callable, shape: tuple) -> int:
    """A valid dim of a tensor of ``shape`` (at least one dim), negative half the time."""
    dim = draw(st.integers(0, len(shape) - 1))
    return dim - len(shape) if draw(st.booleans()) else dim


def index_array(draw: Callable, size: int, shape: tuple) -> np.ndarray:
    """int64 indices in [0, size) of ``shape``, repeats allowed."""
    return np.asarray(draw(st.lists(st.integers(0, size - 1), min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape)))), dtype=np.int64).reshape(shape)


# --- sample makers for whole families --------------------------------------------------------
def unary(kind: str = "any", shapes: Any = SHAPES, **kwargs: Any) -> Callable:
    """Samples of an elementwise function of one tensor: any shape, 0-dim included."""
    def samples(draw: Callable) -> SampleInput:
        return SampleInput(array(draw, draw(shapes), kind), kwargs=dict(kwargs))

    return samples


def binary(kind: str = "any", other_kind: str = "any", *, scalar_other: bool = False, **kwargs: Any) -> Callable:
    """Samples of an elementwise function of two tensors whose shapes broadcast together; with
    ``scalar_other`` the second operand is a Python float a third of the time."""
    def samples(draw: Callable) -> SampleInput:
        shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3))
        first, second = shapes.input_shapes
        other: Any = array(draw, second, other_kind)
        if scalar_other and draw(st.integers(0, 2)) == 0:
            other = float(values_of((), np.random.default_rng(draw(st.integers(0, 99))), other_kind))
        return SampleInput(array(draw, first, kind), (other,), dict(kwargs))

    return samples
