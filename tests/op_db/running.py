"""Turning a sample into tensors of one library and calling the op with them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

from .core import NoGrad, OpInfo, SampleInput, resolve, values_of  # noqa: F401  (resolve: for the tests)


def draw_sample(data: Any, info: OpInfo) -> SampleInput:
    """One sample of ``info``, drawn from a test's ``st.data()`` (hypothesis prints it on failure)."""
    return data.draw(st.composite(lambda draw: info.samples(draw))(), label=f"{info.id} sample")


def _cast(array: np.ndarray, dtype: str) -> np.ndarray:
    """Float sample values as ``dtype``: rounded for integers, their sign for bool."""
    if array.dtype.kind != "f":
        return array  # indices and masks keep their own dtype
    if dtype == "bool":
        return array > 0
    if dtype.startswith(("int", "uint")):
        return np.round(np.abs(array) * 3 if dtype == "uint8" else array * 3).astype(dtype)
    return array


@dataclass
class Bound:
    """A sample made into ``lib``'s tensors: ``leaves`` require grad; ``call(tensors)`` runs the op
    with each leaf replaced by the tensor at the same position (gradcheck's perturbed copies)."""

    lib: Any
    info: OpInfo
    input: Any
    args: tuple
    kwargs: dict
    leaves: list

    def arguments(self, tensors: Sequence | None = None) -> tuple[Any, tuple, dict]:
        """(input, args, kwargs), with the leaves replaced by ``tensors`` when given."""
        if tensors is None:
            return self.input, self.args, self.kwargs
        swap = {id(leaf): new for leaf, new in zip(self.leaves, tensors)}

        def replace(value: Any) -> Any:
            if isinstance(value, (list, tuple)):
                return type(value)(replace(v) for v in value)
            return swap.get(id(value), value)

        return replace(self.input), replace(self.args), {k: replace(v) for k, v in self.kwargs.items()}

    def call(self, tensors: Sequence | None = None, **extra: Any) -> Any:
        input, args, kwargs = self.arguments(tensors)
        return self.info.op(self.lib, input, *args, **kwargs, **extra)


def bind(lib: Any, info: OpInfo, sample: SampleInput, dtype: str, *, requires_grad: bool = True) -> Bound:
    """The sample's arrays as ``lib`` tensors of ``dtype`` (float arrays; indices keep theirs)."""
    leaves: list = []

    def convert(value: Any) -> Any:
        if isinstance(value, np.generic):  # numpy arithmetic on a 0-dim array gives a scalar: still an array
            value = np.asarray(value)
        if isinstance(value, NoGrad):
            return lib.tensor(_cast(value.array, dtype), dtype=getattr(lib, dtype))
        if isinstance(value, np.ndarray):
            if value.dtype.kind != "f":
                return lib.tensor(value)
            array = _cast(value, dtype)
            grad = requires_grad and array.dtype.kind == "f"
            tensor = lib.tensor(array, dtype=getattr(lib, dtype), requires_grad=grad)
            if grad:
                leaves.append(tensor)
            return tensor
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v) for v in value)
        return value

    input = convert(sample.input)
    args = convert(tuple(sample.args))
    kwargs = {key: convert(value) for key, value in sample.kwargs.items()}
    return Bound(lib, info, input, args, kwargs, leaves)


def tensors_in(result: Any, lib: Any) -> list:
    """Every tensor an op returned, in order (a tensor, a tuple such as (values, indices), a list)."""
    if isinstance(result, lib.Tensor):
        return [result]
    if isinstance(result, (list, tuple)):
        return [t for item in result for t in tensors_in(item, lib)]
    return []


def differentiable_outputs(result: Any, lib: Any) -> list:
    return [t for t in tensors_in(result, lib) if t.dtype.is_floating_point and t.requires_grad]


def weighted_loss(outputs: list, lib: Any) -> Any:
    """sum(output * fixed weights): every element's gradient counts, not only the total's."""
    loss = None
    for i, output in enumerate(outputs):
        weight = lib.tensor(values_of(tuple(output.shape), np.random.default_rng(100 + i))).to(output.dtype)
        term = (output * weight).sum()
        loss = term if loss is None else loss + term
    return loss


def skip_unless_applies(info: OpInfo, test: str, skip: Callable) -> None:
    """Skip, with the entry's stated reason, a check the entry says does not apply."""
    if test in info.skips:
        skip(f"{info.id}: {info.skips[test]}")
