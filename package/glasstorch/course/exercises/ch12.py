"""Chapter 12 exercises: ``Module._call_impl`` (what ``model(x)`` runs), ``register_forward_hook``
and the ``RemovableHandle`` that every ``register_*`` method returns.

Every case that builds a model plugs the learner's piece into the package first: ``_call_impl``
as ``nn.Module.__call__`` (so that the layers a model calls inside its ``forward`` run it too),
``register_forward_hook`` as the method of ``nn.Module``, and the handle class where glasstorch's
module and tensor hooks create their handles. The observations are what the hooks saw and in which
order they fired, what the calls returned, and which hooks are left after ``remove()``.
"""
from __future__ import annotations

import gc
import importlib
import weakref
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch import nn
from glasstorch.utils import hooks as hooks_py

from ..checking import Case, exercise, replaced
from ._harness import handle_story, plugged_cases, random_seed, seeded
from .ch11 import module_names

module_py = importlib.import_module("glasstorch.nn.modules.module")  # where Module makes its handles


# -- the chapter's small modules --------------------------------------------------------------------

def _fixed_linear() -> nn.Linear:
    """The chapter's layer with fixed weights: y = x0 + 10 * x1."""
    lin = nn.Linear(2, 1, bias=False)
    with glasstorch.no_grad():
        lin.weight.copy_(glasstorch.tensor([[1.0, 10.0]]))
    return lin


class _Multiply(nn.Module):
    """A forward with a keyword-only argument (chapter 12, section 5)."""

    def forward(self, x: glasstorch.Tensor, *, factor: float = 1.0) -> glasstorch.Tensor:
        return x * factor


class _Broken(nn.Module):
    def forward(self, x: glasstorch.Tensor) -> glasstorch.Tensor:
        raise ValueError("forward failed")


class _NotesNet(nn.Module):
    """The source notes' network: fc1 = Linear(1, 2), fc2 = Linear(2, 1), no biases, weights 2."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(1, 2, bias=False)
        self.fc2 = nn.Linear(2, 1, bias=False)
        self.fc1.weight = nn.Parameter(glasstorch.tensor([[2.0], [2.0]]))
        self.fc2.weight = nn.Parameter(glasstorch.tensor([2.0, 2.0]))

    def forward(self, x: glasstorch.Tensor) -> glasstorch.Tensor:
        return self.fc2(self.fc1(x))


def _mlp(seed: int) -> nn.Module:
    return seeded(seed, lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))


def _logger(log: list, label: str, result: Any = None) -> Callable[..., Any]:
    """A hook of any kind that appends ``label`` and what it received (after the module) to ``log``,
    and returns ``result``."""
    def hook(module: nn.Module, *received: Any) -> Any:
        log.append([label, *received])
        return result
    return hook


# -- 12._call_impl --------------------------------------------------------------------------------

def _observe_no_hooks(call: Callable, seed: int, x: np.ndarray) -> Any:
    return _mlp(seed)(glasstorch.from_numpy(x))


def _observe_pre_hooks(call: Callable, x: np.ndarray) -> dict:
    lin, inputs, log = _fixed_linear(), glasstorch.from_numpy(x), []
    observed = {"no hook": lin(inputs)}
    lin.register_forward_pre_hook(lambda module, args: (args[0] * 2,))        # a tuple: the new args
    observed["doubled (a tuple returned)"] = lin(inputs)
    lin.register_forward_pre_hook(lambda module, args: args[0] + 1)           # one value: wrapped
    observed["then plus 1 (a single value returned)"] = lin(inputs)
    lin.register_forward_pre_hook(_logger(log, "an observer (returns None)"))
    observed["then an observer"] = lin(inputs)
    observed["what the observer saw"] = log
    return observed


def _observe_forward_hooks(call: Callable, x: np.ndarray) -> dict:
    lin, log = _fixed_linear(), []
    lin.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
    lin.register_forward_hook(_logger(log, "show"))
    lin.register_forward_hook(lambda module, args, output: output + 100.0)   # the new output
    lin.register_forward_hook(_logger(log, "show again"))
    y = lin(glasstorch.from_numpy(x))
    return {"the caller gets": y, "its grad_fn": type(y.grad_fn).__name__, "what the hooks saw": log}


def _observe_order(call: Callable) -> list:
    order: list = []
    identity = nn.Identity()
    for label, prepend in (("A", False), ("B", False), ("C (prepend)", True), ("D (prepend)", True)):
        identity.register_forward_pre_hook(lambda module, args, label=label: order.append("pre " + label),
                                           prepend=prepend)
        identity.register_forward_hook(lambda module, args, output, label=label: order.append("hook " + label),
                                       prepend=prepend)
    identity(glasstorch.tensor(1.0))
    return order


def _observe_kwargs(call: Callable, x: np.ndarray) -> dict:
    multiply, inputs, log = _Multiply(), glasstorch.from_numpy(x), []
    observed = {"no hooks, factor=3.0": multiply(inputs, factor=3.0)}
    multiply.register_forward_hook(_logger(log, "a plain hook"))
    observed["a plain hook, factor=3.0"] = multiply(inputs, factor=3.0)

    def force_factor(module: nn.Module, args: tuple, kwargs: dict) -> tuple:
        log.append(["force_factor", args, kwargs])
        return args, {**kwargs, "factor": 10.0}

    multiply.register_forward_pre_hook(force_factor, with_kwargs=True)
    multiply.register_forward_hook(_logger(log, "a with_kwargs hook"), with_kwargs=True)
    observed["with_kwargs hooks, factor=2.0"] = multiply(inputs, factor=2.0)
    observed["what the hooks saw"] = log
    return observed


def _observe_bad_pre_hook(call: Callable, x: np.ndarray) -> Any:
    multiply = _Multiply()
    multiply.register_forward_pre_hook(lambda module, args, kwargs: args, with_kwargs=True)
    return multiply(glasstorch.from_numpy(x))


def _observe_notes_order(call: Callable, x: np.ndarray) -> dict:
    model, order = _NotesNet(), []
    names = module_names(model)
    for module in model.modules():
        name = names[module]
        module.register_forward_pre_hook(lambda m, args, name=name: order.append(f"pre-hook of {name}"))
        module.register_forward_hook(lambda m, args, output, name=name: order.append(f"hook of {name}"))
    out = model(glasstorch.from_numpy(x))
    return {"firing order": order, "out": out}


def _observe_mlp_training(call: Callable, seed: int, x: np.ndarray, target: np.ndarray) -> dict:
    """Forward hooks collect every layer's activation while an MLP trains for three steps; a
    pre-hook on the model scales its input."""
    model = _mlp(seed)
    activations: dict = {}
    for name, layer in model.named_children():
        layer.register_forward_hook(lambda m, args, output, name=name: activations.update({name: output.detach()}))
    model.register_forward_pre_hook(lambda m, args: (args[0] / 2,))
    optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = (model(glasstorch.from_numpy(x)) - glasstorch.from_numpy(target)).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "activations of the last step": activations}


def _call_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "__call__")

    x2 = rng.standard_normal(2).astype(np.float32)
    return [
        case("no hooks: model(x) is forward(x)", _observe_no_hooks, random_seed(rng),
             rng.standard_normal((3, 4)).astype(np.float32),
             hint="without hooks, return self.forward(*args, **kwargs)."),
        case("pre-hooks: a tuple replaces the args, a single value is wrapped, None changes nothing",
             _observe_pre_hooks, x2,
             hint="a plain pre-hook is called as hook(self, args) with args a tuple; if it returns "
                  "something, that is the new args, and a result that is not a tuple becomes the "
                  "one-element tuple (result,). Each pre-hook receives the args the previous one left."),
        case("forward hooks: they see the args after the pre-hooks, and may replace the output",
             _observe_forward_hooks, x2,
             hint="call each forward hook as hook(self, args, output) with the args forward received "
                  "(after the pre-hooks); a result that is not None becomes the output, which the next "
                  "hook sees and the caller gets."),
        case("order: the dictionaries' order (prepend=True puts a hook first)", _observe_order,
             hint="run the pre-hooks in the order of self._forward_pre_hooks and the forward hooks in "
                  "the order of self._forward_hooks: registration already put them in order."),
        case("keyword arguments reach forward; with_kwargs hooks see and replace them", _observe_kwargs, x2,
             hint="pass **kwargs on to forward. A hook whose id is in self._forward_pre_hooks_with_kwargs "
                  "is called as hook(self, args, kwargs) and may return a pair (args, kwargs); one whose "
                  "id is in self._forward_hooks_with_kwargs as hook(self, args, kwargs, output)."),
        case("a with_kwargs pre-hook that returns something other than an (args, kwargs) pair",
             _observe_bad_pre_hook, x2,
             hint="a with_kwargs pre-hook must return None or a tuple of two; otherwise raise "
                  "RuntimeError(\"forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                  "but got ...\")."),
        case("the notes' network: pre-hooks and hooks on every module, firing order", _observe_notes_order,
             np.array([2.0], np.float32),
             hint="the model's pre-hook fires first, then each child's pair as forward calls it, and the "
                  "model's forward hook last, when its forward has returned."),
        case("inside glasstorch: an MLP trains while forward hooks collect its activations",
             _observe_mlp_training, random_seed(rng), rng.standard_normal((5, 4)).astype(np.float32),
             rng.standard_normal((5, 3)).astype(np.float32)),
    ]


exercise(
    id="12._call_impl",
    entry="_call_impl",
    title="Module.__call__: forward pre-hooks, forward, forward hooks",
    cases=_call_cases,
    reference=nn.Module._call_impl,
    hint="three steps: run the forward pre-hooks (each may replace args, or args and kwargs), call "
         "self.forward(*args, **kwargs), run the forward hooks (each may replace the output); return "
         "the output.",
)


# -- 12.register_forward_hook ---------------------------------------------------------------------

def _observe_register_one(register: Callable, x: np.ndarray) -> dict:
    lin, log = _fixed_linear(), []
    handle = lin.register_forward_hook(_logger(log, "hook"))
    inputs = glasstorch.from_numpy(x)
    lin(inputs)
    handle.remove()
    lin(inputs)
    return {"what the hook saw (it ran once)": log, "hooks left": len(lin._forward_hooks),
            "the handle's type": type(handle).__name__}


def _observe_register_order(register: Callable) -> dict:
    order: list = []
    identity = nn.Identity()
    handles = {}
    for label, prepend in (("A", False), ("B", False), ("C (prepend)", True), ("D (prepend)", True), ("E", False)):
        handles[label] = identity.register_forward_hook(
            lambda module, args, output, label=label: order.append(label), prepend=prepend)
    identity(glasstorch.tensor(1.0))
    handles["D (prepend)"].remove()
    handles["A"].remove()
    order.append("| after removing D and A:")
    identity(glasstorch.tensor(1.0))
    return {"firing order": order, "hooks left": len(identity._forward_hooks)}


def _observe_register_kwargs(register: Callable, x: np.ndarray) -> dict:
    multiply, log = _Multiply(), []
    multiply.register_forward_hook(_logger(log, "plain"))
    multiply.register_forward_hook(_logger(log, "with_kwargs"), with_kwargs=True)
    multiply.register_forward_hook(_logger(log, "plain again"), with_kwargs=False)
    out = multiply(glasstorch.from_numpy(x), factor=3.0)
    return {"out": out, "what the hooks saw": log}


def _observe_register_always(register: Callable, x: np.ndarray) -> dict:
    broken, log = _Broken(), []
    broken.register_forward_hook(_logger(log, "ordinary"))
    broken.register_forward_hook(_logger(log, "always_call"), always_call=True)
    try:
        broken(glasstorch.from_numpy(x))
        log.append("no error")
    except ValueError as error:
        log.append(f"ValueError: {error}")
    return {"what happened": log}


def _observe_register_forgets(register: Callable) -> dict:
    lin = _fixed_linear()
    handles = [lin.register_forward_hook(lambda m, a, k, o: None, with_kwargs=True, always_call=True),
               lin.register_forward_hook(lambda m, a, o: None, always_call=True, prepend=True)]
    sizes = {"registered": [len(lin._forward_hooks), len(lin._forward_hooks_with_kwargs),
                            len(lin._forward_hooks_always_called)]}
    for handle in handles:
        handle.remove()
    sizes["after remove()"] = [len(lin._forward_hooks), len(lin._forward_hooks_with_kwargs),
                               len(lin._forward_hooks_always_called)]
    return sizes


def _observe_register_mlp(register: Callable, seed: int, x: np.ndarray) -> dict:
    """Record the activations of every layer, with the handles as context managers."""
    model = _mlp(seed)
    activations: dict = {}
    layers = list(model.named_children())
    first, second, third = (layer.register_forward_hook(
        lambda m, args, output, name=name: activations.update({name: output.detach()})) for name, layer in layers)
    with first, second, third:
        out = model(glasstorch.from_numpy(x))
    return {"out": out, "activations": activations,
            "hooks left on each layer": [len(layer._forward_hooks) for _, layer in layers]}


_FLAGS_HINT = ("remove() must also delete the hook's id from the companion dictionaries: create the "
               "handle with extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called].")


def _register_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "register_forward_hook")

    x2 = rng.standard_normal(2).astype(np.float32)
    return [
        case("one hook: it runs on each call until its handle removes it", _observe_register_one, x2,
             hint="store the hook as self._forward_hooks[handle.id] = hook, with handle = "
                  "hooks.RemovableHandle(self._forward_hooks, extra_dict=[...]), and return the handle. "
                  "Record an option only when it is True: `_call_impl` tests `hook_id in "
                  "self._forward_hooks_with_kwargs`, whatever the value."),
        case("order: registration order, prepend=True puts a hook first; removing prepended hooks",
             _observe_register_order,
             hint="for prepend=True, move the new entry to the front of the same dictionary: "
                  "self._forward_hooks.move_to_end(handle.id, last=False). Do not build a new dictionary: "
                  "the handles hold (weak) references to this one."),
        case("with_kwargs=True: that hook, and only that one, receives the keyword arguments",
             _observe_register_kwargs, x2,
             hint="with_kwargs=True: self._forward_hooks_with_kwargs[handle.id] = True. Nothing for False."),
        case("always_call=True: the hook runs even when forward raises", _observe_register_always, x2,
             hint="always_call=True: self._forward_hooks_always_called[handle.id] = True."),
        case("remove() forgets the hook and its options", _observe_register_forgets, hint=_FLAGS_HINT),
        case("inside glasstorch: record an MLP's activations, the handles as context managers",
             _observe_register_mlp, random_seed(rng), rng.standard_normal((3, 4)).astype(np.float32)),
    ]


exercise(
    id="12.register_forward_hook",
    entry="register_forward_hook",
    title="Module.register_forward_hook: store the hook, its options and a handle",
    cases=_register_cases,
    reference=nn.Module.register_forward_hook,
    hint="make a RemovableHandle for self._forward_hooks (with the two companion dictionaries as "
         "extra_dict), store the hook under handle.id, record with_kwargs and always_call under the same "
         "id when they are True, move it to the front for prepend=True, and return the handle.",
)


# -- 12.RemovableHandle ---------------------------------------------------------------------------

def _observe_ids(handle_class: type) -> dict:
    first, second = OrderedDict(), OrderedDict()
    handles = [handle_class(first), handle_class(second), handle_class(first), handle_class(first, extra_dict=second)]
    ids = [handle.id for handle in handles]
    return {"each id larger than the one before": [b > a for a, b in zip(ids, ids[1:])],
            "all different": len(set(ids)) == len(ids)}


def _observe_remove(handle_class: type) -> dict:
    hooks = OrderedDict()
    handle = handle_class(hooks)
    hooks[handle.id] = "the hook"
    other = handle_class(hooks)
    hooks[other.id] = "another hook"
    observed = {"registered": list(hooks.values())}
    handle.remove()
    observed["after remove()"] = list(hooks.values())
    handle.remove()
    observed["after a second remove()"] = list(hooks.values())
    return observed


def _observe_extra(handle_class: type) -> dict:
    hooks, flags_a, flags_b = OrderedDict(), OrderedDict(), OrderedDict()
    one = handle_class(hooks, extra_dict=flags_a)
    several = handle_class(hooks, extra_dict=[flags_a, flags_b])
    for handle in (one, several):
        hooks[handle.id] = flags_a[handle.id] = flags_b[handle.id] = True
    one.remove()
    sizes = {"after removing the one with extra_dict=flags_a": [len(hooks), len(flags_a), len(flags_b)]}
    several.remove()
    sizes["after removing the one with extra_dict=[flags_a, flags_b]"] = [len(hooks), len(flags_a), len(flags_b)]
    return sizes


def _observe_context(handle_class: type) -> dict:
    hooks = OrderedDict()
    observed = {}
    with handle_class(hooks) as handle:
        hooks[handle.id] = "the hook"
        observed["inside the with block"] = list(hooks.values())
        observed["`with ... as handle` gives the handle"] = isinstance(handle, handle_class)
    observed["after the with block"] = list(hooks.values())
    return observed


def _observe_weak(handle_class: type) -> dict:
    hooks = OrderedDict()
    handle = handle_class(hooks)
    hooks[handle.id] = "the hook"
    alive = weakref.ref(hooks)
    del hooks
    gc.collect()
    observed = {"the dictionary is gone once nothing else holds it": alive() is None}
    handle.remove()  # a handle that outlives its dictionary: remove() does nothing
    observed["remove() afterwards"] = "did nothing"
    return observed


def _observe_handles_in_glasstorch(handle_class: type, x: np.ndarray) -> dict:
    """Module and tensor hooks, registered and removed through the learner's handles."""
    lin, order = _fixed_linear(), []
    inputs = glasstorch.from_numpy(x)
    a = lin.register_forward_hook(lambda m, args, output: order.append("A"))
    lin.register_forward_hook(lambda m, args, kwargs, output: order.append("B (with_kwargs)"), with_kwargs=True)
    a.remove()
    lin.register_forward_hook(lambda m, args, output: order.append("C"))
    lin(inputs)
    with lin.register_forward_pre_hook(lambda m, args: order.append("pre-hook inside a with block")):
        lin(inputs)
    order.append("| after the with block:")
    lin(inputs)

    w = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    doubling = w.register_hook(lambda grad: grad * 2)
    (w * w).sum().backward()
    grad_with_hook = w.grad.clone()
    doubling.remove()
    w.grad = None
    (w * w).sum().backward()
    return {"module hooks fired": order, "hooks left": len(lin._forward_hooks),
            "with_kwargs flags left": len(lin._forward_hooks_with_kwargs),
            "w.grad with a doubling hook": grad_with_hook, "w.grad after remove()": w.grad}


def _in_glasstorch(observe: Callable) -> Callable:
    """Plug the handle class in where Module (and, lazily, tensors and Nodes) create handles."""
    def run(handle_class: type, *inputs: Any) -> Any:
        with replaced(module_py, "RemovableHandle", handle_class), \
                replaced(hooks_py, "RemovableHandle", handle_class):
            return observe(handle_class, *inputs)
    return run


def _handle_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("ids: each new handle's id is larger than the last, whatever its dictionary", observe=_observe_ids,
             hint="take ids from one counter shared by all handles (a class attribute, e.g. "
                  "`next_id = itertools.count()` and `self.id = next(RemovableHandle.next_id)`), so an id "
                  "is never given twice, even after a removal."),
        Case("remove() deletes the hook; a second remove() does nothing", observe=_observe_remove,
             hint="delete hooks_dict[self.id] only if the id is still in it."),
        Case("extra_dict: one companion dictionary, or a list of them", observe=_observe_extra,
             hint="extra_dict may be None, one dictionary, or a list of dictionaries: remove() deletes "
                  "self.id from each of them too."),
        Case("a context manager: the hook lives as long as the with block", observe=_observe_context,
             hint="__enter__ returns the handle itself; __exit__(*exc_info) calls remove()."),
        Case("the handle holds its dictionary weakly", observe=_observe_weak,
             hint="keep weakref.ref(hooks_dict), not the dictionary: a handle must not keep a module's "
                  "or a tensor's hooks alive. In remove(), the reference returns None once the "
                  "dictionary is gone: then there is nothing to do."),
        Case("handles registered and removed in an order drawn from the grader's seed", (random_seed(rng),),
             observe=handle_story),
        Case("inside glasstorch: module and tensor hooks registered and removed with your handles",
             (rng.standard_normal(2).astype(np.float32),), observe=_in_glasstorch(_observe_handles_in_glasstorch),
             hint="hook A was removed before C was registered: if C got A's id (or B's), it took over "
                  "a place in the dictionary. Ids must never repeat."),
    ]


exercise(
    id="12.RemovableHandle",
    entry="RemovableHandle",
    title="RemovableHandle: a unique id, a weak reference, remove()",
    cases=_handle_cases,
    reference=hooks_py.RemovableHandle,
    hint="__init__(hooks_dict, *, extra_dict=None): a weak reference to hooks_dict (and to each extra "
         "dictionary), and a new id from a counter shared by all handles. remove(): delete self.id "
         "from every dictionary still alive that holds it. __enter__ returns self, __exit__ removes.",
)
