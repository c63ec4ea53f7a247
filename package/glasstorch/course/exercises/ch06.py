"""Chapter 06 exercises: the handle every ``register_hook`` returns (``RemovableHandle``), the
engine's step that runs a tensor's hooks and then stores its retained gradient
(``call_tensor_pre_hooks``), and ``torch.autograd.grad`` built on the engine.

Each is checked on small scenarios built fresh for every case, and plugged into the package:
``register_hook`` hands out the learner's handles, the engine runs the learner's hook step during
real backward passes (the chapter's worked example, clipping hooks in training), and
``gradcheck`` computes its Jacobians with the learner's ``grad``.
"""
from __future__ import annotations

import contextlib
import gc
import weakref
from collections import OrderedDict
from typing import Any, Callable, Iterator

import numpy as np

import glasstorch
from glasstorch import autograd
from glasstorch._tensor import Tensor
from glasstorch.autograd import engine
from glasstorch.autograd.graph import AccumulateGrad, Node, grad_accumulator
from glasstorch.autograd.gradcheck import analytical_jacobian
from glasstorch.utils import hooks as hooks_module

from ..checking import Case, exercise, replaced
from ._harness import fit, handle_story, raised, random_seed


def worked_example() -> dict:
    """The chapter's y' = y / 2, z = x**2 + 2 y' with x = 2, y = 6 (float64)."""
    x = glasstorch.tensor([2.0], dtype=glasstorch.float64, requires_grad=True)
    y = glasstorch.tensor([6.0], dtype=glasstorch.float64, requires_grad=True)
    y_ = y / 2
    return {"x": x, "y": y, "y_": y_, "z": x ** 2 + y_ * 2}


# -- 06.removable_handle --------------------------------------------------------------------------

def _handles_in_one_dict(handle_class: type) -> dict:
    hooks = OrderedDict()
    handles = {}
    for name in "ABC":
        handles[name] = handle_class(hooks)
        hooks[handles[name].id] = name
    handles["B"].remove()
    after_remove = list(hooks.values())
    second_remove = raised(handles["B"].remove)  # nothing left to remove: PyTorch does nothing
    handles["D"] = handle_class(hooks)
    hooks[handles["D"].id] = "D"
    ids = [h.id for h in handles.values()]
    return {"after removing B": after_remove, "removing B a second time": second_remove,
            "after registering D": list(hooks.values()), "all ids different": len(set(ids)) == len(ids)}


def _handles_across_dicts(handle_class: type) -> dict:
    first, second = OrderedDict(), OrderedDict()
    one, two = handle_class(first), handle_class(second)
    first[one.id], second[two.id] = "hook of the first tensor", "hook of the second tensor"
    one.remove()
    return {"ids differ across dictionaries": one.id != two.id,
            "first": list(first.values()), "second": list(second.values())}


def _extra_dicts(handle_class: type, as_list: bool) -> dict:
    hooks, flags, more = OrderedDict(), OrderedDict(), OrderedDict()
    handle = handle_class(hooks, extra_dict=[flags, more] if as_list else flags)
    hooks[handle.id], flags[handle.id], more[handle.id] = "hook", "always_call", "with_kwargs"
    handle.remove()
    return {"hooks": list(hooks.values()), "extra dict": list(flags.values()),
            "a third dict": list(more.values())}


def _as_context_manager(handle_class: type) -> dict:
    hooks = OrderedDict()
    with handle_class(hooks) as handle:
        hooks[handle.id] = "temporary"
        inside = list(hooks.values())
    return {"inside the with block": inside, "after it": list(hooks.values())}


def _weak_reference(handle_class: type) -> dict:
    hooks = OrderedDict()
    handle = handle_class(hooks)
    hooks[handle.id] = "hook"
    alive = weakref.ref(hooks)
    del hooks
    gc.collect()
    freed = alive() is None
    return {"the dict is freed although its handle lives": freed,
            "remove() after the dict is gone": raised(handle.remove)}


_HANDLE_SCENARIOS = {
    "one dict: register A, B, C; remove B (twice); register D": (
        _handles_in_one_dict,
        "each handle needs an id that no other handle ever had: after B is removed, len(hooks) "
        "is 2 again, and a new hook stored under it would replace C. PyTorch counts with a class-level "
        "counter (itertools.count()); and remove() must do nothing when the id is already gone."),
    "two dicts: ids never repeat": (_handles_across_dicts, None),
    "extra_dict given as one dict": (
        lambda cls: _extra_dicts(cls, as_list=False),
        "extra_dict may be one dict or a list of dicts; remove() deletes the id from each of them too"),
    "extra_dict given as a list": (lambda cls: _extra_dicts(cls, as_list=True), None),
    "with handle: removes at the end of the block": (
        _as_context_manager, "__enter__ returns the handle itself; __exit__ calls remove()"),
    "the handle does not keep its dict alive": (
        _weak_reference,
        "keep a weak reference to the dict (weakref.ref(hooks_dict)): a handle you forget about must "
        "not keep a tensor's hooks alive; call the reference to get the dict, None once it is gone"),
}


def _observe_handle(handle_class: type, scenario: str) -> dict:
    return _HANDLE_SCENARIOS[scenario][0](handle_class)


def _handles_inside_hooks(handle_class: type) -> dict:
    """register_hook hands out the learner's handles: the hooks that run tell which were removed."""
    log: list = []

    def logger(name: str) -> Callable:
        return lambda grad: log.append(f"{name} sees {grad.tolist()}")

    with replaced(hooks_module, "RemovableHandle", handle_class):
        a = glasstorch.tensor([1.0, 2.0], requires_grad=True)
        h = a * 3
        handles = {name: h.register_hook(logger(name)) for name in "ABC"}
        handles["B"].remove()
        h.register_hook(lambda grad: grad * 2)
        handles["C"].remove()
        h.register_hook(logger("D"))
        leaf_handle = a.register_hook(logger("leaf a"))
        (h ** 2).sum().backward(retain_graph=True)
        first = list(log)
        log.clear()
        leaf_handle.remove()
        handles["A"].remove()
        (h ** 2).sum().backward()
        leaf = glasstorch.tensor([1.0], requires_grad=True)
        kept_handle = leaf.register_hook(lambda grad: grad)  # noqa: F841 - a handle kept somewhere
        hooks_alive = weakref.ref(leaf._backward_hooks)
        del leaf
        gc.collect()
    return {"first backward": first, "second backward": list(log), "a.grad": a.grad,
            "a deleted leaf's hooks are freed, though its handle is kept": hooks_alive() is None}


def _handle_cases(rng: np.random.Generator) -> list[Case]:
    cases = [Case(name, (name,), hint=hint) for name, (_, hint) in _HANDLE_SCENARIOS.items()]
    cases.append(Case("handles registered and removed in an order drawn from the grader's seed",
                      (random_seed(rng),), observe=handle_story))
    cases.append(Case("inside glasstorch: register_hook hands out your handles", (),
                      observe=_handles_inside_hooks))
    return cases


exercise(
    id="06.removable_handle",
    entry="RemovableHandle",
    title="RemovableHandle: what register_hook returns",
    cases=_handle_cases,
    reference=hooks_module.RemovableHandle,
    observe=_observe_handle,
    hint="__init__ keeps a weak reference to hooks_dict (and to each extra dict) and takes a new id from "
         "a counter shared by all handles; remove() deletes that id from every dict that is still alive "
         "and still holds it; __enter__ returns self and __exit__ calls remove().",
)


# -- 06.call_tensor_pre_hooks ---------------------------------------------------------------------

_CALL_TENSOR_PRE_HOOKS = engine.call_tensor_pre_hooks  # the package's own, kept before any case replaces it


def _reference_hook_step(node: Node, grad: Tensor) -> Tensor:
    """glasstorch's own step: the engine's ``call_tensor_pre_hooks``."""
    return _CALL_TENSOR_PRE_HOOKS(node, grad)


@contextlib.contextmanager
def _hook_step_in_engine(impl: Callable[[Node, Tensor], Tensor]) -> Iterator[None]:
    """The engine, with the learner's step in place of its ``call_tensor_pre_hooks``."""
    with replaced(engine, "call_tensor_pre_hooks", impl):
        yield


def _h_and_grad() -> tuple:
    a = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    h = a * 3
    return a, h, glasstorch.tensor([6.0, 12.0])


def _three_hooks(impl: Callable) -> dict:
    _, h, grad = _h_and_grad()
    log: list = []
    h.register_hook(lambda g: log.append(f"A sees {g.tolist()}"))
    h.register_hook(lambda g: g * 2)
    h.register_hook(lambda g: log.append(f"C sees {g.tolist()}"))
    return {"returned": impl(h.grad_fn, grad), "hooks saw": log}


def _no_hooks(impl: Callable) -> dict:
    _, h, grad = _h_and_grad()
    return {"returned": impl(h.grad_fn, grad)}


def _retain_then_double(impl: Callable) -> dict:
    _, h, grad = _h_and_grad()
    h.retain_grad()                       # registered first ...
    h.register_hook(lambda g: g * 2)      # ... but stored after this hook has run (PyTorch 2.x)
    return {"returned": impl(h.grad_fn, grad), "h.grad": h._grad}


def _retain_accumulates(impl: Callable) -> dict:
    _, h, grad = _h_and_grad()
    h.retain_grad()
    impl(h.grad_fn, grad)
    first = None if h._grad is None else h._grad.clone()
    impl(h.grad_fn, grad * 10)
    return {"h.grad after one step": first, "h.grad after two": h._grad}


def _retain_copies(impl: Callable) -> dict:
    _, h, grad = _h_and_grad()
    h.retain_grad()
    impl(h.grad_fn, grad)
    grad.zero_()                          # the engine's gradient is someone else's to change later
    return {"h.grad after the incoming gradient is zeroed": h._grad}


def _leaf_hooks(impl: Callable) -> dict:
    w = glasstorch.tensor([1.0, -1.0], requires_grad=True)
    w.register_hook(lambda g: g * 10)
    w.register_hook(lambda g: g + 1)
    return {"returned": impl(grad_accumulator(w), glasstorch.tensor([2.0, 3.0])), "w.grad": w.grad}


def _one_shot_hook(impl: Callable) -> dict:
    _, h, grad = _h_and_grad()
    log: list = []
    handles: list = []

    def once(g: Tensor) -> Tensor:
        handles[0].remove()               # a hook may remove itself while the hooks are running
        log.append("once")
        return g * 2

    handles.append(h.register_hook(once))
    h.register_hook(lambda g: log.append(f"after sees {g.tolist()}"))
    first = impl(h.grad_fn, grad)
    second = impl(h.grad_fn, grad)
    return {"first": first, "second": second, "log": log}


def _shape_changing_hook(impl: Callable) -> Any:
    _, h, grad = _h_and_grad()
    h.register_hook(lambda g: g.sum())
    return impl(h.grad_fn, grad)


def _retained_tensor_is_gone(impl: Callable) -> Any:
    _, h, grad = _h_and_grad()
    h.retain_grad()
    node = h.grad_fn
    del h
    gc.collect()
    return impl(node, grad)


_STEP_SCENARIOS = {
    "three hooks: A logs, B doubles, C logs": (
        _three_hooks, "run the hooks in the order they were registered; each receives the gradient as "
                      "the hooks before it left it, and a hook that returns a tensor replaces it"),
    "no hooks at all": (_no_hooks, "a Node without hooks has node._tensor_pre_hooks None: return grad unchanged"),
    "retain_grad() then a doubling hook": (
        _retain_then_double, "PyTorch 2.x stores the retained gradient after *all* the tensor's hooks have "
                             "run, whatever the order they were registered in: store the final gradient"),
    "retain_grad() over two steps": (
        _retain_accumulates, "a retained gradient accumulates like a leaf's: the first time store it, "
                             "afterwards add to it (out of place: tensor._grad = tensor._grad + grad)"),
    "retain_grad() keeps its own copy": (
        _retain_copies, "store a copy of the gradient (grad.detach().clone()), not the engine's tensor "
                        "itself: the engine passes that tensor on, and whoever gets it may change it in place"),
    "a leaf's hooks (its AccumulateGrad Node)": (
        _leaf_hooks, "an AccumulateGrad's _tensor_pre_hooks are its leaf's hooks: the same code works for it"),
    "a hook that removes itself": (
        _one_shot_hook, "a hook may remove itself (or another) while they run: loop over a snapshot, "
                        "tuple(hooks.values()), not over the dict that is changing"),
    "a hook that returns a different shape": (
        _shape_changing_hook, "a hook's result must have the gradient's shape: raise RuntimeError "
                              "(\"hook '<name>' has changed the size of value\") if it does not"),
    "retain_grad() on a tensor that has since been deleted": (
        _retained_tensor_is_gone, "node._retain_grad_ref is a weak reference: calling it gives None once "
                                  "the tensor is gone, and then there is nothing to store"),
}


def _observe_step(impl: Callable, scenario: str) -> Any:
    return _STEP_SCENARIOS[scenario][0](impl)


def _step_inside_worked_example(impl: Callable) -> list:
    """The chapter's section 6 with the learner's step in the engine: every number it prints."""
    rows: list = []
    with _hook_step_in_engine(impl):
        t = worked_example()
        x, y, y_, z = t["x"], t["y"], t["y_"], t["z"]
        y_.retain_grad()
        z.backward(retain_graph=True)
        rows.append(["retain_grad, backward: x, y, y_", [x.grad, y.grad, y_._grad]])
        x.grad.zero_()
        z.backward(retain_graph=True)
        rows.append(["x.grad.zero_(), backward: x, y, y_", [x.grad, y.grad, y_._grad]])
        printed: list = []
        h1 = y_.register_hook(lambda grad: printed.append(grad.item()))
        h2 = y_.register_hook(lambda grad: 2 * grad)
        z.backward()
        rows.append(["two hooks: printed, y, y_", [printed, y.grad, y_._grad]])
        h1.remove()
        h2.remove()
    return rows


def _step_inside_aliasing(impl: Callable) -> dict:
    """h = x + 0 passes its gradient on unchanged to x's AccumulateGrad, which keeps it as x.grad:
    a retained h.grad that is not a copy would be zeroed along with x.grad."""
    with _hook_step_in_engine(impl):
        x = glasstorch.tensor([1.0, 2.0], requires_grad=True)
        h = x + 0
        h.retain_grad()
        (h ** 2).sum().backward()
        x.grad.zero_()
        return {"x.grad after zero_()": x.grad, "h.grad": h._grad}


def _step_inside_clipping(impl: Callable, x: np.ndarray, target: np.ndarray) -> dict:
    """Five SGD steps with a clipping hook on each parameter, hooks run by the learner's step."""
    def build() -> glasstorch.nn.Module:
        model = glasstorch.nn.Sequential(glasstorch.nn.Linear(3, 4), glasstorch.nn.Tanh(), glasstorch.nn.Linear(4, 1))
        for p in model.parameters():
            p.register_hook(lambda grad: grad.clamp(-0.05, 0.05))
        return model

    with _hook_step_in_engine(impl):
        model, _, losses = fit(build, x, target, steps=5, loss_fn=lambda out, y: ((out - y) ** 2).mean(),
                               make_optimizer=lambda m: glasstorch.optim.SGD(m.parameters(), lr=0.5))
    largest = max(float(p.grad.abs().max()) for p in model.parameters())
    return {"losses": losses, "largest |grad| of any parameter": largest}


def _step_cases(rng: np.random.Generator) -> list[Case]:
    cases = [Case(name, (name,), hint=hint) for name, (_, hint) in _STEP_SCENARIOS.items()]
    x = rng.standard_normal((8, 3)).astype(np.float32)
    target = rng.standard_normal((8, 1)).astype(np.float32) * 3
    cases += [
        Case("inside glasstorch: the chapter's worked example, steps 3 to 5", (),
             observe=_step_inside_worked_example,
             hint="the worked example must print y_.grad = 8 in step 5 (PyTorch 2.x): the retained "
                  "gradient is stored after the hooks, and accumulates over the backward calls"),
        Case("inside glasstorch: h = x + 0, h.retain_grad(), then x.grad.zero_()", (),
             observe=_step_inside_aliasing,
             hint="h's gradient travels on unchanged and becomes x.grad: if h.grad is the same tensor, "
                  "x.grad.zero_() zeroes it too. Store a copy."),
        Case("inside glasstorch: training with a clipping hook on every parameter", (x, target),
             observe=_step_inside_clipping),
    ]
    return cases


exercise(
    id="06.call_tensor_pre_hooks",
    entry="call_tensor_pre_hooks",
    title="the engine runs a tensor's hooks, then stores its retained gradient",
    cases=_step_cases,
    reference=_reference_hook_step,
    observe=_observe_step,
    hint="first the hooks in node._tensor_pre_hooks (if any), in order, each result replacing the gradient; "
         "then, if node._retain_grad_ref gives a tensor, store the final gradient in its _grad: a copy "
         "the first time, a sum afterwards; return the final gradient.",
)


# -- 06.grad --------------------------------------------------------------------------------------

def _leaf_grads(*tensors: Tensor) -> list:
    return [t._grad for t in tensors]


def _grad_worked_example(impl: Callable, order: str, **kwargs: Any) -> dict:
    t = worked_example()
    inputs = [t[name] for name in order.split(", ")]
    return {"returned": list(impl(t["z"], inputs, **kwargs)), "x.grad, y.grad after": _leaf_grads(t["x"], t["y"])}


def _grad_single_tensor(impl: Callable) -> dict:
    x = glasstorch.tensor(2.0, requires_grad=True)
    returned = impl(x ** 3, x)
    return {"returned": list(returned), "a tuple": isinstance(returned, tuple), "x.grad": x._grad}


def _grad_leaves_grad_alone(impl: Callable) -> dict:
    t = worked_example()
    t["x"].grad = glasstorch.tensor([7.0], dtype=glasstorch.float64)
    returned = impl(t["z"], [t["x"]])
    return {"returned": list(returned), "x.grad": t["x"].grad}


def _grad_unused(impl: Callable, allow_unused: bool) -> Any:
    x = glasstorch.tensor(2.0, requires_grad=True)
    unused = glasstorch.tensor(1.0, requires_grad=True)
    return raised(lambda: list(impl(x ** 3, [x, unused], allow_unused=allow_unused)))


def _grad_no_requires_grad_input(impl: Callable) -> Any:
    x = glasstorch.tensor(2.0, requires_grad=True)
    constant = glasstorch.tensor(1.0)
    return list(impl(x * constant, [x, constant]))


def _grad_output_without_graph(impl: Callable) -> Any:
    x = glasstorch.tensor(2.0, requires_grad=True)
    return list(impl(x.detach() * 2, [x]))


def _grad_vector_output(impl: Callable, with_grad_outputs: bool) -> Any:
    x = glasstorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    if with_grad_outputs:
        return list(impl(y, [x], grad_outputs=[glasstorch.tensor([1.0, 0.0, -1.0])]))
    return list(impl(y, [x]))


def _grad_two_outputs(impl: Callable) -> Any:
    x = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    return list(impl([(x ** 2).sum(), (3 * x).sum()], [x]))


def _grad_twice(impl: Callable, retain_graph: bool | None) -> dict:
    x = glasstorch.tensor(1.5, requires_grad=True)
    y = (x * x).exp()
    first = list(impl(y, [x], retain_graph=retain_graph))
    return {"first call": first, "second call": raised(lambda: list(impl(y, [x])))}


def _grad_higher(impl: Callable) -> dict:
    x = glasstorch.tensor(1.5, requires_grad=True)
    (first,) = impl((x * x) ** 2, [x], create_graph=True)
    (second,) = impl(first, [x])
    return {"first": first, "first requires grad": first.requires_grad, "second": second, "x.grad": x._grad}


_GRAD_SCENARIOS = {
    "y = x ** 3 with one tensor as inputs": (
        _grad_single_tensor, "inputs may be one tensor or a sequence; the result is always a tuple"),
    "z w.r.t. [x, y, y_] (y_ is not a leaf)": (
        lambda impl: _grad_worked_example(impl, "x, y, y_"),
        "an input's gradient is what reaches its Node: a leaf's AccumulateGrad (grad_accumulator(t)), "
        "a non-leaf's grad_fn; capture those with execute(..., inputs=nodes) and "
        "return them in the order of inputs"),
    "z w.r.t. [y_, x]: the order of inputs": (
        lambda impl: _grad_worked_example(impl, "y_, x"),
        "return the gradients in the order of inputs, not in the order the engine captured them"),
    "z w.r.t. [x, x]: an input twice": (
        lambda impl: _grad_worked_example(impl, "x, x"),
        "an input may appear twice: each entry is that input's gradient, computed once, not accumulated twice"),
    "x.grad already holds 7: it stays 7": (
        _grad_leaves_grad_alone, "autograd.grad never reads or writes any .grad: the gradients come from "
                                 "the engine's capture (execute(..., inputs=...))"),
    "an unused input": (
        lambda impl: _grad_unused(impl, False),
        "an input whose Node captured nothing was not used: raise RuntimeError (\"The differentiated "
        "Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True ...\")"),
    "an unused input with allow_unused=True": (
        lambda impl: _grad_unused(impl, True), "with allow_unused=True an unused input's gradient is None"),
    "an input that does not require grad": (
        _grad_no_requires_grad_input,
        "raise RuntimeError(\"One of the differentiated Tensors does not require grad\") for such an input"),
    "an output that does not require grad": (
        _grad_output_without_graph,
        "an output without a gradient edge is an error: RuntimeError(\"element 0 of tensors does not "
        "require grad and does not have a grad_fn\")"),
    "a vector output without grad_outputs": (
        lambda impl: _grad_vector_output(impl, False),
        "the starting gradient 1 is implied only for a one-element output: otherwise RuntimeError "
        "(\"grad can be implicitly created only for scalar outputs\")"),
    "a vector output with grad_outputs": (
        lambda impl: _grad_vector_output(impl, True),
        "grad_outputs gives each output's starting gradient (a vector-Jacobian product)"),
    "two outputs": (_grad_two_outputs, "several outputs: the engine starts from all their Nodes at once, "
                                       "and the gradients add up"),
    "twice through one graph": (
        lambda impl: _grad_twice(impl, None),
        "without retain_graph the engine frees the saved tensors: a second call through the same graph "
        "must fail, as in PyTorch. retain_graph defaults to create_graph."),
    "twice through one graph with retain_graph=True": (lambda impl: _grad_twice(impl, True), None),
    "a second derivative of (x * x) ** 2 with create_graph=True": (
        _grad_higher, "with create_graph=True the engine records the backward formulas (create_graph=True in "
                      "execute), and keeps the graph (retain_graph defaults to create_graph): the "
                      "derivative is itself differentiable"),
}


def _observe_grad(impl: Callable, scenario: str) -> Any:
    return _GRAD_SCENARIOS[scenario][0](impl)


def _grad_inside_gradcheck(impl: Callable, a: np.ndarray, b: np.ndarray) -> dict:
    """gradcheck and gradgradcheck compute their analytical Jacobians with autograd.grad: the
    learner's."""
    ta = glasstorch.from_numpy(a).requires_grad_()
    tb = glasstorch.from_numpy(b).requires_grad_()

    def func(x: Tensor, y: Tensor) -> Tensor:
        return (x * y).tanh() + x.exp() * 2

    with replaced(autograd, "grad", impl):
        out = func(ta, tb)
        return {"analytical Jacobians": analytical_jacobian(out, (ta, tb), [0, 1]),
                "gradcheck": raised(lambda: autograd.gradcheck(func, (ta, tb))),
                "gradgradcheck": raised(lambda: autograd.gradgradcheck(func, (ta, tb)))}


def _grad_inside_penalty(impl: Callable, x: np.ndarray) -> dict:
    """Five steps of a gradient penalty (WGAN-GP style): the gradient of D with respect to its
    input, made with create_graph=True, is part of the loss."""
    glasstorch.manual_seed(0)
    critic = glasstorch.nn.Sequential(glasstorch.nn.Linear(2, 8), glasstorch.nn.Tanh(), glasstorch.nn.Linear(8, 1))
    optimizer = glasstorch.optim.SGD(critic.parameters(), lr=0.1)
    points = glasstorch.from_numpy(x).requires_grad_()
    penalties = []
    with replaced(autograd, "grad", impl):
        for _ in range(5):
            optimizer.zero_grad()
            (slope,) = glasstorch.autograd.grad(critic(points).sum(), points, create_graph=True)
            penalty = ((slope.pow(2).sum(1).sqrt() - 1) ** 2).mean()
            penalty.backward()
            optimizer.step()
            penalties.append(penalty.item())
    return {"penalties": penalties, "points.grad": points._grad}


def _grad_cases(rng: np.random.Generator) -> list[Case]:
    cases = [Case(name, (name,), hint=hint) for name, (_, hint) in _GRAD_SCENARIOS.items()]
    cases += [
        Case("inside glasstorch: gradcheck and gradgradcheck with your grad",
             (rng.standard_normal((2, 2)), rng.standard_normal((2, 2))), observe=_grad_inside_gradcheck),
        Case("inside glasstorch: training with a gradient penalty", (rng.standard_normal((6, 2)).astype(np.float32),),
             observe=_grad_inside_penalty),
    ]
    return cases


exercise(
    id="06.grad",
    entry="grad",
    title="torch.autograd.grad on the engine",
    cases=_grad_cases,
    reference=autograd.grad,
    observe=_observe_grad,
    hint="find the outputs' Nodes (the roots) and each input's Node (grad_fn, or the leaf's AccumulateGrad); "
         "run execute(roots, root_grads, keep_graph=..., create_graph=..., inputs=input_nodes); return the captured gradient of each input, in the order of inputs.",
)
