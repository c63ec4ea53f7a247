"""Chapter 07 exercises: ``detach``, the grad-mode switches ``no_grad`` and ``set_grad_enabled``,
and ``requires_grad_``.

Each piece is checked on its own, then plugged into glasstorch: the learner's ``detach`` becomes
``Tensor.detach`` (which ``state_dict``, ``AccumulateGrad`` and SGD's momentum call), the learner's
``no_grad`` replaces the package's everywhere (weight initialisation and the optimizer step run
under it), and the learner's ``requires_grad_`` is what ``Module.requires_grad_`` calls to freeze a
layer. The grad-mode switches write the package's own flag, ``_GradMode.enabled``, which every
operation reads before it records a Node.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator

import numpy as np

import glasstorch
from glasstorch import nn
from glasstorch._tensor import Tensor
from glasstorch.autograd.grad_mode import _GradMode

from ..checking import Case, exercise, replaced
from ._harness import fit

# -- shared helpers -------------------------------------------------------------------------------


def _node_name(tensor: Tensor) -> str | None:
    return None if tensor.grad_fn is None else tensor.grad_fn.name()


def _with_grad_mode_restored(scenario: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``scenario`` with recording on, and switch it back on afterwards whatever the learner's
    code left behind, so that one case cannot spoil the next (or the rest of the notebook)."""
    def observe(impl: Any, *inputs: Any) -> Any:
        saved = _GradMode.enabled
        _GradMode.enabled = True
        try:
            return scenario(impl, *inputs)
        finally:
            _GradMode.enabled = saved
    return observe


@contextlib.contextmanager
def replaced_everywhere(original: Any, value: Any) -> Iterator[None]:
    """Replace ``original`` by ``value`` under every name a loaded glasstorch module gives it
    (``from ..autograd.grad_mode import no_grad`` copies the name into each module that uses it)."""
    owners = [(module, name) for module_name, module in list(sys.modules.items())
              if module_name == "glasstorch" or module_name.startswith("glasstorch.")
              for name, attribute in list(vars(module).items()) if attribute is original]
    with contextlib.ExitStack() as stack:
        for module, name in owners:
            stack.enter_context(replaced(module, name, value))
        yield


def regression_data(rng: np.random.Generator, n: int = 16) -> tuple[np.ndarray, np.ndarray]:
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


# -- 07.detach ------------------------------------------------------------------------------------

_SOURCES = ("a leaf that requires grad", "a computed tensor (a non-leaf)", "an nn.Parameter",
            "an int64 tensor", "a float64 leaf that does not require grad")


def _source(kind: str, values: np.ndarray) -> Tensor:
    if kind == "a leaf that requires grad":
        return glasstorch.tensor(values, requires_grad=True)
    if kind == "a computed tensor (a non-leaf)":
        return glasstorch.tensor(values, requires_grad=True) * 1
    if kind == "an nn.Parameter":
        return nn.Parameter(glasstorch.tensor(values))
    if kind == "an int64 tensor":
        return glasstorch.tensor(values.round().astype(np.int64))
    return glasstorch.tensor(values.astype(np.float64))


def _observe_detach(detach: Callable[[Tensor], Tensor], kind: str, values: np.ndarray) -> dict:
    """What the detached tensor is, and what an in-place change through it does to the original."""
    original = _source(kind, values)
    detached = detach(original)
    facts = {
        "a new tensor object (not the original itself)": detached is not original,
        "type": type(detached).__name__,
        "values": np.array(detached._data),  # a copy: the in-place change below comes later
        "dtype": detached.dtype,
        "requires_grad": detached.requires_grad,
        "grad_fn": _node_name(detached),
        "is_leaf": detached.is_leaf,
    }
    version_before = original._version
    detached.mul_(2)  # in place, through the detached tensor
    facts["original after detached.mul_(2) (shared memory)"] = original
    facts["original._version after detached.mul_(2) (shared counter)"] = original._version - version_before
    facts["original.requires_grad afterwards"] = original.requires_grad
    facts["original.grad_fn afterwards"] = _node_name(original)
    return facts


def _observe_cut(detach: Callable[[Tensor], Tensor]) -> dict:
    """The chapter's y = detach(w + x) * (w + 1): no gradient flows past the detached tensor."""
    w = glasstorch.tensor([1.0], requires_grad=True)
    x = glasstorch.tensor([2.0], requires_grad=True)
    y = detach(w + x) * (w + 1)
    y.backward()
    return {"y": y, "w.grad": w.grad, "x.grad": x.grad}


def _observe_version_check(detach: Callable[[Tensor], Tensor]) -> Any:
    """The chapter's square = s ** 2, then detach(s).zero_(): backward must refuse to run."""
    q = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    s = q * 1
    square = s ** 2  # saves s, at version 0
    detach(s).zero_()
    square.sum().backward()
    return {"q.grad": q.grad}


def _observe_detach_in_package(detach: Callable[[Tensor], Tensor], x: np.ndarray, y: np.ndarray) -> dict:
    """Tensor.detach is the learner's: train with a bootstrapped (stop-gradient) target and
    momentum SGD, then read a state_dict, which holds detached parameters."""
    with replaced(Tensor, "detach", detach):
        glasstorch.manual_seed(0)
        model = nn.Linear(3, 1)
        optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        inputs, targets = glasstorch.from_numpy(x), glasstorch.from_numpy(y)
        losses = []
        for _ in range(8):
            # the target leans on the model's own prediction, as in TD learning: it must not be trained through
            target = (0.5 * targets + 0.5 * model(inputs)).detach()
            loss = ((model(inputs) - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        saved = model.state_dict()
        with glasstorch.no_grad():
            model.weight.add_(1.0)  # shows through in the state_dict only if it shares memory
        return {"losses": losses, "bias": model.bias,
                "state_dict()['weight'].requires_grad": saved["weight"].requires_grad,
                "state_dict()['weight'] after weight.add_(1)": saved["weight"]}


def _detach_cases(rng: np.random.Generator) -> list[Case]:
    def values() -> np.ndarray:
        return rng.standard_normal(3).round(2).astype(np.float32)

    hints = {"an nn.Parameter": "detaching a Parameter gives a plain Tensor, as in PyTorch: wrap the "
                                "array with `_wrap(array)` (class Tensor), not with the original's class."}
    cases = [Case(f"detach {kind}", (kind, values()), observe=_observe_detach, hint=hints.get(kind))
             for kind in _SOURCES]
    return cases + [
        Case("no gradient flows past detach: y = detach(w + x) * (w + 1)", (), observe=_observe_cut),
        Case("backward notices an in-place change made through detach()", (), observe=_observe_version_check,
             hint="detach() must share the original's version counter (`_version_counter`, a "
                  "one-element list): the same list object, not a copy. A fresh counter is what "
                  "`.data` has, and then backward silently uses the changed values."),
        Case("inside glasstorch: a stop-gradient target, momentum SGD and state_dict with your detach",
             regression_data(rng), observe=_observe_detach_in_package,
             hint="the unit cases pass but the package does not behave: state_dict() returns "
                  "param.detach(), which must share the parameter's memory (no copy) and not require grad."),
    ]


exercise(
    id="07.detach",
    entry="detach",
    title="detach(): same memory, same version counter, no history",
    cases=_detach_cases,
    reference=Tensor.detach,  # the function itself, taken before any case patches the class
    hint="wrap the *same* numpy array (`tensor._data`, no copy) in a new tensor with `_wrap`, which "
         "gives it no grad_fn and requires_grad=False, then give it the original's version counter "
         "object: `result._version_counter = tensor._version_counter`.",
)


# -- 07.no_grad and 07.set_grad_enabled: scenarios shared by both ----------------------------------

def _w() -> Tensor:
    return glasstorch.tensor([1.0, 2.0], requires_grad=True)


def _record(y: Tensor) -> dict:
    return {"requires_grad": y.requires_grad, "grad_fn": _node_name(y)}


def _exception_scenario(enter: Callable[[], Any]) -> dict:
    reached_caller = False
    try:
        with enter():
            raise ValueError("an error inside the block")
    except ValueError:
        reached_caller = True
    return {"the ValueError reached the caller": reached_caller,
            "is_grad_enabled() after the block": glasstorch.is_grad_enabled()}


def _decorated_raise_scenario(decorator: Any) -> dict:
    @decorator
    def fails() -> None:
        raise ValueError("an error inside the decorated function")

    reached_caller = False
    try:
        fails()
    except ValueError:
        reached_caller = True
    return {"the ValueError reached the caller": reached_caller,
            "is_grad_enabled() after the call": glasstorch.is_grad_enabled()}


def _recursive_scenario(decorator: Any) -> dict:
    """One decorator object wraps a recursive function: each call must save and restore its own
    previous mode (the reason for ``clone()``)."""
    @decorator
    def modes_down_to(depth: int) -> list:
        y = _w() * 2
        return [[glasstorch.is_grad_enabled(), y.requires_grad]] + (modes_down_to(depth - 1) if depth else [])

    return {"[is_grad_enabled(), y.requires_grad] at each depth": modes_down_to(3),
            "is_grad_enabled() after the outermost call": glasstorch.is_grad_enabled()}


def _squared_error(output: Tensor, target: Tensor) -> Tensor:
    return ((output - target) ** 2).mean()


def _train_and_evaluate(x: np.ndarray, y: np.ndarray) -> dict:
    """Build a Linear (initialised in place under no_grad), train it with SGD (whose step runs
    under no_grad) and evaluate it under torch.no_grad()."""
    model, _, losses = fit(lambda: nn.Linear(3, 1), x, y, steps=6, loss_fn=_squared_error,
                           make_optimizer=lambda m: glasstorch.optim.SGD(m.parameters(), lr=0.1))
    with glasstorch.no_grad():
        evaluation = model(glasstorch.from_numpy(x))
    return {"losses": losses, "weight": model.weight, "weight.is_leaf": model.weight.is_leaf,
            "evaluation output": _record(evaluation),
            "is_grad_enabled() at the end": glasstorch.is_grad_enabled()}


# -- 07.no_grad -----------------------------------------------------------------------------------

def _ng_with_block(no_grad: type) -> dict:
    w = _w()
    with no_grad():
        inside = glasstorch.is_grad_enabled()
        y = w * 2
    return {"is_grad_enabled() inside": inside, "y = w * 2 inside": _record(y),
            "is_grad_enabled() after the block": glasstorch.is_grad_enabled(), "w.requires_grad": w.requires_grad}


def _ng_nested(no_grad: type) -> dict:
    with no_grad():
        with no_grad():
            pass
        between = glasstorch.is_grad_enabled()
        y = _w() * 2
    return {"is_grad_enabled() after the inner block, inside the outer": between,
            "y = w * 2 there": _record(y), "is_grad_enabled() after both": glasstorch.is_grad_enabled()}


def _ng_already_off(no_grad: type) -> dict:
    glasstorch.set_grad_enabled(False)
    with no_grad():
        pass
    return {"is_grad_enabled() after the block (it was off before)": glasstorch.is_grad_enabled()}


def _ng_enable_grad_inside(no_grad: type) -> dict:
    w = _w()
    with no_grad():
        with glasstorch.enable_grad():
            y = w * 2
        after_inner = glasstorch.is_grad_enabled()
    return {"y = w * 2 under enable_grad": _record(y), "is_grad_enabled() after enable_grad's block": after_inner,
            "is_grad_enabled() at the end": glasstorch.is_grad_enabled()}


def _ng_decorator(no_grad: type) -> dict:
    @no_grad()
    def double(t: Tensor) -> tuple:
        """Twice t, and whether recording was on."""
        return t * 2, glasstorch.is_grad_enabled()

    after_decorating = glasstorch.is_grad_enabled()
    y, inside = double(_w())
    return {"is_grad_enabled() after decorating": after_decorating, "is_grad_enabled() inside the call": inside,
            "result": _record(y), "is_grad_enabled() after the call": glasstorch.is_grad_enabled(),
            "__name__ of the decorated function": double.__name__,
            "__doc__ of the decorated function": double.__doc__}


def _ng_in_package(no_grad: type, x: np.ndarray, y: np.ndarray) -> dict:
    with replaced_everywhere(glasstorch.no_grad, no_grad):
        return _train_and_evaluate(x, y)


def _no_grad_cases(rng: np.random.Generator) -> list[Case]:
    restore = ("__exit__ must put back the mode that was in force *before* __enter__ (save it in "
               "__enter__), not switch recording on.")
    scenario = _with_grad_mode_restored
    return [
        Case("with no_grad(): y = w * 2", observe=scenario(_ng_with_block)),
        Case("no_grad inside no_grad", observe=scenario(_ng_nested), hint=restore),
        Case("no_grad while recording is already off", observe=scenario(_ng_already_off), hint=restore),
        Case("enable_grad inside no_grad", observe=scenario(_ng_enable_grad_inside)),
        Case("an exception inside the with block", observe=scenario(_exception_scenario),
             hint="__exit__ runs even when the block raises: restore the mode there, and return None "
                  "(a true value from __exit__ swallows the exception)."),
        Case("as a decorator: @no_grad()", observe=scenario(_ng_decorator),
             hint="__call__(func) returns a wrapper that runs func inside the context; "
                  "functools.wraps(func) keeps the function's __name__ and __doc__."),
        Case("a decorated function that raises", observe=scenario(lambda ng: _decorated_raise_scenario(ng())),
             hint="the wrapper must restore the mode even when func raises: run func inside a `with` "
                  "statement (or try/finally), not between two plain calls of __enter__ and __exit__."),
        Case("a recursive decorated function", observe=scenario(lambda ng: _recursive_scenario(ng())),
             hint="one decorator object serves every call, also the nested calls of a recursion: if "
                  "the calls share one object, the inner call overwrites the mode the outer one saved. "
                  "Enter a fresh copy per call (PyTorch's `with self.clone():`)."),
        Case("inside glasstorch: init, SGD and evaluation with your no_grad", regression_data(rng),
             observe=scenario(_ng_in_package),
             hint="the package's in-place initialisation and optimizer step run under your no_grad: "
                  "it must switch glasstorch's own flag, `_GradMode.enabled`."),
    ]


exercise(
    id="07.no_grad",
    entry="no_grad",
    title="no_grad: a context manager that is also a decorator",
    cases=_no_grad_cases,
    reference=glasstorch.no_grad,
    hint="__enter__ saves `_GradMode.enabled` and sets it to False; __exit__ puts the saved value "
         "back; __call__(func) returns a functools.wraps wrapper that calls func inside "
         "`with self.clone():`.",
)


# -- 07.set_grad_enabled --------------------------------------------------------------------------

def _sge_as_function(set_grad_enabled: type) -> dict:
    w = _w()
    set_grad_enabled(False)
    off = (glasstorch.is_grad_enabled(), _record(w * 2))
    set_grad_enabled(True)
    on = (glasstorch.is_grad_enabled(), _record(w * 2))
    return {"after set_grad_enabled(False)": off, "after set_grad_enabled(True)": on}


def _sge_blocks(set_grad_enabled: type) -> dict:
    w = _w()
    seen = {}
    for is_train in (True, False):
        with set_grad_enabled(is_train):
            seen[f"with set_grad_enabled({is_train}): y = w * 2"] = _record(w * 2)
        seen[f"is_grad_enabled() after set_grad_enabled({is_train})'s block"] = glasstorch.is_grad_enabled()
    return seen


def _sge_inside_no_grad(set_grad_enabled: type) -> dict:
    w = _w()
    with glasstorch.no_grad():
        with set_grad_enabled(True):
            y = w * 2
        between = glasstorch.is_grad_enabled()
    return {"y = w * 2 under set_grad_enabled(True)": _record(y),
            "is_grad_enabled() after its block, inside no_grad": between,
            "is_grad_enabled() at the end": glasstorch.is_grad_enabled()}


def _sge_decorator(set_grad_enabled: type) -> dict:
    @set_grad_enabled(False)
    def double(t: Tensor) -> tuple:
        """Twice t, and whether recording was on."""
        return t * 2, glasstorch.is_grad_enabled()

    after_decorating = glasstorch.is_grad_enabled()
    y, inside = double(_w())
    return {"is_grad_enabled() right after decorating": after_decorating,
            "is_grad_enabled() inside the call": inside, "result": _record(y),
            "is_grad_enabled() after the call": glasstorch.is_grad_enabled(),
            "__name__ of the decorated function": double.__name__}


def _sge_decorated_under_no_grad(set_grad_enabled: type) -> dict:
    @set_grad_enabled(True)
    def double(t: Tensor) -> Tensor:
        return t * 2

    with glasstorch.no_grad():
        y = double(_w())
        after_call = glasstorch.is_grad_enabled()
    return {"result (recorded)": _record(y), "is_grad_enabled() after the call, inside no_grad": after_call,
            "is_grad_enabled() at the end": glasstorch.is_grad_enabled()}


def _sge_in_package(set_grad_enabled: type, x: np.ndarray, y: np.ndarray) -> dict:
    """One epoch function for training and evaluation, the chapter's use of set_grad_enabled."""
    def epoch(model: nn.Module, optimizer: Any, is_train: bool) -> tuple:
        with glasstorch.set_grad_enabled(is_train):
            output = model(glasstorch.from_numpy(x))
            loss = ((output - glasstorch.from_numpy(y)) ** 2).mean()
            if is_train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        return loss.item(), loss.requires_grad

    with replaced(glasstorch, "set_grad_enabled", set_grad_enabled):
        glasstorch.manual_seed(0)
        model = nn.Linear(3, 1)
        optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.1)
        epochs = [epoch(model, optimizer, is_train) for is_train in (True, False, True, False)]
    return {"[loss, loss.requires_grad] per epoch (train, eval, train, eval)": epochs,
            "weight": model.weight, "is_grad_enabled() at the end": glasstorch.is_grad_enabled()}


def _set_grad_enabled_cases(rng: np.random.Generator) -> list[Case]:
    scenario = _with_grad_mode_restored
    return [
        Case("called as a plain function", observe=scenario(_sge_as_function),
             hint="`torch.set_grad_enabled(False)` works without `with`: the constructor itself "
                  "switches the mode (and remembers the previous one for __exit__)."),
        Case("with set_grad_enabled(is_train), for True and False", observe=scenario(_sge_blocks)),
        Case("set_grad_enabled(True) inside no_grad", observe=scenario(_sge_inside_no_grad),
             hint="__exit__ restores the mode saved when the object was made, here False."),
        Case("an exception inside the with block",
             observe=scenario(lambda sge: _exception_scenario(lambda: sge(False)))),
        Case("as a decorator: @set_grad_enabled(False)", observe=scenario(_sge_decorator),
             hint="writing @set_grad_enabled(False) constructs the object, which switches the mode at "
                  "once; as a decorator it must not change the mode of the code that follows, so "
                  "__call__ puts the previous mode back before wrapping (PyTorch does exactly this)."),
        Case("a decorated function that raises",
             observe=scenario(lambda sge: _decorated_raise_scenario(sge(False)))),
        Case("@set_grad_enabled(True) function called inside no_grad",
             observe=scenario(_sge_decorated_under_no_grad),
             hint="the call must restore the mode in force *when it is called* (False here), not the one "
                  "saved when the decorator was made: enter a fresh object per call, made by clone()."),
        Case("a recursive decorated function", observe=scenario(lambda sge: _recursive_scenario(sge(False))),
             hint="each call must enter a fresh object, made by clone() = set_grad_enabled(self.mode), "
                  "so that each call saves its own previous mode."),
        Case("inside glasstorch: train and evaluate with one epoch function", regression_data(rng),
             observe=scenario(_sge_in_package)),
    ]


exercise(
    id="07.set_grad_enabled",
    entry="set_grad_enabled",
    title="set_grad_enabled(mode): a function, a context manager and a decorator",
    cases=_set_grad_enabled_cases,
    reference=glasstorch.set_grad_enabled,
    hint="__init__ saves the current mode in self.prev and sets the new one at once; __enter__ sets "
         "self.mode; __exit__ restores self.prev; clone() makes set_grad_enabled(self.mode); "
         "__call__ first puts self.prev back, then wraps func as no_grad does.",
)


# -- 07.requires_grad_ ----------------------------------------------------------------------------

_FLAG_SOURCES = {
    "a float32 leaf": lambda v: glasstorch.tensor(v),
    "a leaf that requires grad": lambda v: glasstorch.tensor(v, requires_grad=True),
    "an int64 leaf": lambda v: glasstorch.tensor(v.round().astype(np.int64)),
    "a computed tensor (a non-leaf)": lambda v: glasstorch.tensor(v, requires_grad=True) * 2,
}


def _observe_flag(requires_grad_: Callable[..., Tensor], kind: str, values: np.ndarray, *flag: bool) -> dict:
    """Call ``requires_grad_(t, *flag)`` and look at the tensor, and at what an op on it records."""
    tensor = _FLAG_SOURCES[kind](values)
    result = requires_grad_(tensor, *flag)
    return {"returns the tensor itself": result is tensor, "requires_grad": tensor.requires_grad,
            "is_leaf": tensor.is_leaf, "grad_fn": _node_name(tensor)}


def _observe_freezing(requires_grad_: Callable[..., Tensor], x: np.ndarray, y: np.ndarray) -> dict:
    """Tensor.requires_grad_ is the learner's: freeze the first layer with Module.requires_grad_,
    train the rest, and register an int64 nn.Buffer (which calls requires_grad_(False))."""
    with replaced(Tensor, "requires_grad_", requires_grad_):
        glasstorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        model.steps = nn.Buffer(glasstorch.tensor(0))
        first = model[0].weight.detach().clone()
        model[0].requires_grad_(False)
        optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.1)
        inputs, targets = glasstorch.from_numpy(x), glasstorch.from_numpy(y)
        losses = []
        for _ in range(6):
            loss = ((model(inputs) - targets) ** 2).mean()
            optimizer.zero_grad(set_to_none=False)  # calls requires_grad_(False) on every .grad
            loss.backward()
            optimizer.step()
            model.steps += 1
            losses.append(loss.item())
        return {"losses": losses, "requires_grad per parameter": [p.requires_grad for p in model.parameters()],
                "first layer unchanged": bool((model[0].weight.detach() == first).all().item()),
                "first layer's weight.grad": model[0].weight.grad, "last layer's weight": model[2].weight,
                "steps buffer": model.steps}


def _requires_grad_cases(rng: np.random.Generator) -> list[Case]:
    def values() -> np.ndarray:
        return (rng.standard_normal(3) * 3).round(2).astype(np.float32)

    leaf_only = ("only a leaf's flag can be changed: a computed tensor (grad_fn set) requires grad "
                 "because of its history. Asking it for False is a RuntimeError; asking for True is "
                 "a no-op that returns the tensor.")
    return [
        Case("a float32 leaf, requires_grad_() with the default", ("a float32 leaf", values()),
             observe=_observe_flag,
             hint="the flag defaults to True, and the method returns the tensor itself (so that "
                  "`torch.zeros(3).requires_grad_()` can be chained)."),
        Case("a leaf that requires grad, requires_grad_(False)", ("a leaf that requires grad", values(), False),
             observe=_observe_flag),
        Case("an int64 leaf, requires_grad_(True)", ("an int64 leaf", values(), True), observe=_observe_flag,
             hint="only floating-point tensors can require gradients: raise RuntimeError "
                  "('only Tensors of floating point dtype can require gradients')."),
        Case("an int64 leaf, requires_grad_(False)", ("an int64 leaf", values(), False), observe=_observe_flag,
             hint="switching the flag *off* is allowed for any dtype: check the dtype only when the "
                  "flag is True."),
        Case("a computed tensor, requires_grad_(False)", ("a computed tensor (a non-leaf)", values(), False),
             observe=_observe_flag, hint=leaf_only),
        Case("a computed tensor, requires_grad_(True)", ("a computed tensor (a non-leaf)", values(), True),
             observe=_observe_flag, hint=leaf_only),
        Case("inside glasstorch: freeze a layer with Module.requires_grad_(False), then train",
             regression_data(rng), observe=_observe_freezing,
             hint="the package calls your requires_grad_ on parameters (freezing), on int64 buffers "
                  "(nn.Buffer) and on gradients (zero_grad(set_to_none=False)), always with an "
                  "explicit flag."),
    ]


exercise(
    id="07.requires_grad_",
    entry="requires_grad_",
    title="requires_grad_: switch recording on or off for one leaf",
    cases=_requires_grad_cases,
    reference=Tensor.requires_grad_,  # the function itself, taken before any case patches the class
    hint="in order: True on a non-floating dtype is an error; True on a non-leaf is a no-op; False "
         "on a non-leaf is an error; otherwise set `tensor._requires_grad` and return the tensor.",
)
