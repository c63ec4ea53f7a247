"""What the exercise checks of every chapter share: observing errors, plugging the learner's code
into the package for one case, seeds, arrays, and training a small model with it.

A check (``chNN.py``) declares each exercise's cases; a case runs the learner's implementation and
glasstorch's own under the same observation, and the two observations must agree (see
``course/checking.py``). Everything random comes from the case's ``rng`` or from a seed drawn from
it, so the learner's run and the reference's see the same numbers.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.nn.functional as F
from glasstorch import nn
from glasstorch._tensor import Tensor

from ..checking import Case, _first_line, replaced
from ..observation import Raised

__all__ = ["raised", "result_of", "attempt", "plugged", "plugged_cases", "random_seed", "seeded", "normal",
           "normals", "tensors", "fit", "descend", "random_graph", "handle_story"]


# -- errors as observations -----------------------------------------------------------------------

def raised(action: Callable[[], Any]) -> Any:
    """What ``action()`` returns, or the error it raises as an observation (for cases where an
    error is the expected outcome, inside a larger observation)."""
    try:
        return action()
    except Exception as error:  # noqa: BLE001 - the error is what we observe
        return Raised(type(error).__name__, str(error))


def result_of(action: Callable[[], Any]) -> Any:
    """What ``action()`` returns, or the error it raises: several attempts can be observed in one
    case. Unlike ``raised``, the learner's stub (NotImplementedError) is not an observation but
    makes the whole case "not written yet", and a message is cut to its first line."""
    try:
        return action()
    except NotImplementedError:
        raise  # the learner's stub: the whole case is "not written yet"
    except Exception as error:  # noqa: BLE001 - the error is the observation
        return Raised(type(error).__name__, _first_line(str(error)))


def attempt(action: Callable[[], Any]) -> Any:
    """``"ok"``, or the error ``action`` raised (for actions that return nothing, like assignments)."""
    result = result_of(action)
    return result if isinstance(result, Raised) else "ok"


# -- the learner's code, plugged into the package -------------------------------------------------

def plugged(owner: Any, name: str, observe: Callable[..., Any]) -> Callable[..., Any]:
    """An ``observe`` that runs with the implementation under test installed as ``owner.name``
    (the reference is the package's own method, so installing it changes nothing)."""
    def run(impl: Callable[..., Any], *inputs: Any) -> Any:
        with replaced(owner, name, impl):
            return observe(impl, *inputs)
    return run


def plugged_cases(owner: Any, name: str) -> Callable[..., Case]:
    """A maker of cases, ``case(title, observe, *inputs, hint=...)``, whose ``observe`` runs with
    the implementation under test installed as ``owner.name``."""
    def case(title: str, observe: Callable, *inputs: Any, hint: str | None = None) -> Case:
        return Case(title, inputs, observe=plugged(owner, name, observe), hint=hint)
    return case


# -- seeds and arrays -----------------------------------------------------------------------------

def random_seed(rng: np.random.Generator) -> int:
    """A seed for glasstorch's generator, drawn from the case's ``rng``."""
    return int(rng.integers(0, 10_000))


def random_graph(seed: int, operations: int = 12) -> tuple[Tensor, dict[str, Tensor]]:
    """A graph drawn from ``seed``: two to four leaves of three random values (the first requires
    grad, each other one most of the time), then ``operations`` random ops, each on one or two
    earlier results (so results are reused along several paths), summed to a scalar root.
    Returns (root, {"leaf0": ..., ...}). The exercises on graphs add it to their fixed cases, so that
    what a correct walk or engine returns differs from one grading seed to the next."""
    rng = np.random.default_rng(seed)
    leaves = {f"leaf{i}": glasstorch.tensor(rng.standard_normal(3), requires_grad=i == 0 or rng.random() < 0.7)
              for i in range(int(rng.integers(2, 5)))}
    values = list(leaves.values())
    unary = [lambda a: a.tanh(), lambda a: a.sin(), lambda a: a * float(rng.uniform(0.5, 1.5))]
    binary = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b]
    for _ in range(operations):
        a, b = (values[int(i)] for i in rng.integers(0, len(values), size=2))
        if rng.random() < 0.5:
            values.append(unary[int(rng.integers(len(unary)))](a))
        else:
            values.append(binary[int(rng.integers(len(binary)))](a, b))
    root = (values[-1] + values[-2] * values[0]).sum()  # the first leaf always reaches the root
    return root, leaves


def handle_story(handle_class: type, seed: int, steps: int = 12) -> list[str]:
    """Handles of ``handle_class`` registered into and removed from two dictionaries in an order
    drawn from ``seed`` (a handle removed twice, some with an extra dictionary, one used as a
    context manager); after each step, what each dictionary holds."""
    rng = np.random.default_rng(seed)
    hooks, extra = OrderedDict(), OrderedDict()
    handles: list = []
    story = []
    for step in range(steps):
        if handles and rng.random() < 0.4:
            handle = handles[int(rng.integers(len(handles)))]  # perhaps removed already
            handle.remove()
            action = f"remove hook {handles.index(handle)}"
        elif rng.random() < 0.2:
            with handle_class(hooks) as handle:
                hooks[handle.id] = f"hook {len(handles)} (with)"
                inside = list(hooks.values())
            handles.append(handle)
            action = f"with-block hook {len(handles) - 1}: inside {inside}"
        else:
            with_extra = rng.random() < 0.5
            handle = handle_class(hooks, extra_dict=extra if with_extra else None)
            hooks[handle.id] = f"hook {len(handles)}"
            if with_extra:
                extra[handle.id] = f"flag of hook {len(handles)}"
            handles.append(handle)
            action = f"register hook {len(handles) - 1}" + (" with an extra dict" if with_extra else "")
        story.append(f"{step}: {action} -> {list(hooks.values())} / extra {list(extra.values())}")
    return story


def seeded(seed: int, build: Callable[[], nn.Module]) -> nn.Module:
    """``build()`` with the random generator seeded: the same initial weights for the learner's
    run and the reference's."""
    glasstorch.manual_seed(seed)
    return build()


def normal(rng: np.random.Generator, *shape: int, dtype: Any = np.float32) -> np.ndarray:
    """Standard normal values of ``shape``."""
    return rng.standard_normal(shape).astype(dtype)


def normals(rng: np.random.Generator, *shapes: tuple, dtype: Any = np.float32) -> tuple:
    """One array of standard normal values for each of ``shapes``."""
    return tuple(normal(rng, *shape, dtype=dtype) for shape in shapes)


def tensors(arrays: list) -> list:
    """glasstorch tensors over the arrays' memory."""
    return [glasstorch.from_numpy(a) for a in arrays]


# -- training a small model with the learner's code -----------------------------------------------

def fit(build: Callable[[], nn.Module], x: np.ndarray, y: np.ndarray, *, steps: int = 5,
        make_optimizer: Callable[[nn.Module], Any] | None = None,
        loss_fn: Callable[[Tensor, Tensor], Tensor] = F.mse_loss, set_to_none: bool = True) -> tuple:
    """Seed glasstorch, build a model and train it for ``steps`` full-batch steps on (x, y).

    Returns (model, optimizer, losses). Everything random (the initial weights, dropout masks)
    comes from the seed, so two runs differ only by the code plugged into the package."""
    glasstorch.manual_seed(0)
    model = build()
    optimizer = (make_optimizer or (lambda m: glasstorch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)))(model)
    inputs, targets = glasstorch.from_numpy(x), glasstorch.from_numpy(y)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=set_to_none)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, optimizer, losses


def descend(w: Tensor, loss_of: Callable[[], Tensor], steps: int = 10, lr: float = 0.1) -> list[float]:
    """``steps`` steps of plain gradient descent on the leaf ``w`` (``w -= lr * w.grad``), without
    an optimizer; the losses. ``loss_of()`` runs the forward of one step."""
    losses = []
    for _ in range(steps):
        loss = loss_of()
        w.grad = None
        loss.backward()
        with glasstorch.no_grad():
            w -= lr * w.grad
        losses.append(loss.item())
    return losses
