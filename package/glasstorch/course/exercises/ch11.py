"""Chapter 11 exercises: ``Module.apply``, ``Module._apply`` and ``Module.train``.

The learner writes each method as a plain function of ``self``. Every case plugs it into
``nn.Module`` (with :func:`replaced`) before building and using a model, so that the recursion
into the children (``module.apply(fn)``, ``module._apply(fn)``, ``module.train(mode)``) runs the
learner's code at every level, and so that ``double()``, ``half()``, ``to()`` and ``eval()``,
which call these methods, run it too.

The helpers at the top (plugging, naming the modules and tensors of a model) are shared with
chapters 12 and 13, which import them from here.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch import nn

from ..checking import Case, exercise
from ._harness import plugged, plugged_cases, random_seed, seeded

# -- shared with chapters 12 and 13 ---------------------------------------------------------------


def module_names(model: nn.Module) -> dict:
    """``{module: dotted name}`` for every module of the tree, ``"(root)"`` for the model itself
    (a module shared by two parents keeps its first name)."""
    return {module: name or "(root)" for name, module in model.named_modules()}


def tensor_labels(model: nn.Module) -> dict:
    """``{id(tensor): label}`` for every parameter, its ``.grad`` and every buffer of ``model``."""
    labels = {}
    for name, param in model.named_parameters():
        labels[id(param)] = name
        if param.grad is not None:
            labels[id(param.grad)] = name + ".grad"
    for name, buf in model.named_buffers():
        labels[id(buf)] = name
    return labels


def dtypes_of(model: nn.Module) -> dict:
    """``{label: dtype}`` of every parameter, its ``.grad`` and every buffer, in a fixed order."""
    found: dict = {}
    for name, param in model.named_parameters():
        found[name] = param.dtype
        if param.grad is not None:
            found[name + ".grad"] = param.grad.dtype
    for name, buf in model.named_buffers():
        found[name] = buf.dtype
    return found


def _nested() -> nn.Module:
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Dropout(0.5), nn.Linear(3, 1)))


# -- 11.apply -------------------------------------------------------------------------------------

def _shared_twice() -> nn.Module:
    shared = nn.Linear(2, 2)
    return nn.Sequential(nn.Sequential(shared, nn.ReLU()), nn.Sequential(shared, nn.Tanh()))


_APPLY_MODELS: dict[str, Callable[[], nn.Module]] = {
    "one Linear (no children)": lambda: nn.Linear(2, 2),
    "the docstring's Sequential(Linear, Linear)": lambda: nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)),
    "nested: Sequential(Linear, ReLU, Sequential(Dropout, Linear))": _nested,
    "a Linear shared by two parents": _shared_twice,
}


def _observe_apply_order(apply: Callable, model_name: str) -> dict:
    model = _APPLY_MODELS[model_name]()
    names = module_names(model)
    visited: list = []
    returned = model.apply(lambda m: visited.append(names[m]))
    return {"visited, in order": visited, "apply returned the model itself": returned is model}


def _observe_init(apply: Callable, seed: int) -> dict:
    """The chapter's init_weights, through ``model.apply``: every Linear gets Xavier weights and
    zero biases, however deeply nested."""
    model = seeded(seed, _nested)

    def init_linear(m: nn.Module) -> None:
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)

    glasstorch.manual_seed(seed + 1)
    model.apply(init_linear)
    return dict(model.state_dict())


def _apply_fn_cases(rng: np.random.Generator) -> list[Case]:
    order_hint = ("apply is post-order: call `module.apply(fn)` on each child first (that call "
                  "handles the whole subtree), and only then `fn(self)`.")
    cases = [Case(name, (name,), hint=order_hint) for name in _APPLY_MODELS]
    cases[-1] = Case(cases[-1].name, cases[-1].inputs,
                     hint="a module reachable through two parents is visited once through each: "
                          "apply recurses through children() at every level and keeps no memo "
                          "across the tree (modules() would skip the repeat).")
    cases.append(Case("inside glasstorch: model.apply(init_linear) initialises every Linear", (random_seed(rng),),
                      observe=plugged(nn.Module, "apply", _observe_init),
                      hint="every Linear of the tree, nested ones included, must be handed to fn."))
    return cases


exercise(
    id="11.apply",
    entry="apply",
    title="Module.apply: fn on every module, children first",
    cases=_apply_fn_cases,
    reference=nn.Module.apply,
    observe=plugged(nn.Module, "apply", _observe_apply_order),
    hint="for each child in self.children(): child.apply(fn); then fn(self); then return self, so "
         "that calls can be chained.",
)


# -- 11._apply ------------------------------------------------------------------------------------

def _linear_batchnorm(seed: int) -> nn.Module:
    """Chapter 11's model: a Linear and a BatchNorm1d, after one backward (every .grad is set)."""
    model = seeded(seed, lambda: nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    out = model(glasstorch.tensor([[1.0, 2.0], [3.0, 5.0]]))
    (out * glasstorch.tensor([[1.0, 2.0], [3.0, -1.0]])).sum().backward()
    return model


class _Scaled(nn.Module):
    """A module with a parameter of its own and a child: which goes first, and ``recurse=False``."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(glasstorch.ones(2))
        self.inner = nn.Linear(2, 2)

    def forward(self, x: glasstorch.Tensor) -> glasstorch.Tensor:
        return self.inner(x) * self.scale


def _observe_apply_visits(_apply: Callable, seed: int, model_name: str) -> dict:
    if model_name == "scaled":  # a parameter of its own and a child: who goes first?
        model = seeded(seed, _Scaled)
        model(glasstorch.ones(3, 2)).sum().backward()
    else:
        model = _linear_batchnorm(seed)
    labels = tensor_labels(model)
    params_and_grads = {id(t) for p in model.parameters() for t in (p, p.grad) if t is not None}
    visited, grad_mode = [], []

    def record(t: glasstorch.Tensor) -> glasstorch.Tensor:
        visited.append(labels.get(id(t), "a tensor that is not the model's"))
        if id(t) in params_and_grads:  # PyTorch converts these under no_grad (buffers: no rule)
            grad_mode.append(glasstorch.is_grad_enabled())
        return t

    returned = model._apply(record)
    return {"tensors fn received, in order": visited,
            "grad mode on while fn converted a parameter or a .grad": grad_mode,
            "_apply returned the model itself": returned is model}


def _observe_conversion(_apply: Callable, seed: int, method: str) -> dict:
    """Convert the chapter's model with ``double()``, ``half()`` or ``to(float64)``: dtypes, values,
    and which objects survived the conversion."""
    model = _linear_batchnorm(seed)
    before = {"0.weight": model[0].weight, "0.weight.grad": model[0].weight.grad,
              "1.running_mean": model[1].running_mean, "1.num_batches_tracked": model[1].num_batches_tracked}
    returned = model.to(glasstorch.float64) if method == "to(torch.float64)" else getattr(model, method)()
    after = {"0.weight": model[0].weight, "0.weight.grad": model[0].weight.grad,
             "1.running_mean": model[1].running_mean, "1.num_batches_tracked": model[1].num_batches_tracked}
    return {"dtypes": dtypes_of(model),
            "the same Python object as before": {key: after[key] is before[key] for key in before},
            "weight": model[0].weight, "weight.grad": model[0].weight.grad, "running_var": model[1].running_var,
            "returned the model itself": returned is model}


def _observe_recurse_false(_apply: Callable, seed: int) -> dict:
    model = seeded(seed, lambda: nn.Sequential(_Scaled()))
    model[0]._apply(lambda t: t.double() if t.is_floating_point() else t, recurse=False)
    return dtypes_of(model)


def _observe_none_entries(_apply: Callable, seed: int) -> dict:
    """``Linear(bias=False)`` has ``bias = None``; a BatchNorm without running stats has ``None``
    buffers; no parameter has a ``.grad`` yet."""
    model = seeded(seed, lambda: nn.Sequential(nn.Linear(2, 2, bias=False),
                                               nn.BatchNorm1d(2, track_running_stats=False)))
    model.double()
    return {"dtypes": dtypes_of(model), "0.bias": model[0].bias, "1.running_mean": model[1].running_mean,
            "0.weight.grad": model[0].weight.grad}


def _observe_optimizer(_apply: Callable, x: np.ndarray) -> dict:
    """The chapter's SGD example: the optimizer is built before ``double()``."""
    lin = nn.Linear(2, 1)
    with glasstorch.no_grad():
        lin.weight.copy_(glasstorch.tensor([[1.0, 2.0]]))
        lin.bias.fill_(0.5)
    optimizer = glasstorch.optim.SGD(lin.parameters(), lr=0.1)
    lin.double()
    inputs = glasstorch.from_numpy(x.astype(np.float64))
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = lin(inputs).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "weight": lin.weight, "bias": lin.bias,
            "the optimizer holds lin.weight": optimizer.param_groups[0]["params"][0] is lin.weight}


_ORDER_HINT = ("children first (`module._apply(fn)` on each child), then this module's parameters "
               "(each one, then its .grad), then its buffers; call fn on a parameter and on its grad "
               "inside `with torch.no_grad():`; return self.")
_IDENTITY_HINT = ("keep each Parameter (and its .grad) the same Python object: store the converted "
                  "values with `param.data = ...` (and `param.grad.data = ...`); only buffers are "
                  "replaced, with `self._buffers[key] = fn(buf)`.")


def _convert_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "_apply")

    seed = random_seed(rng)
    return [
        case("the order: Linear then BatchNorm1d, each parameter followed by its .grad, then the buffers",
             _observe_apply_visits, seed, "linear-batchnorm", hint=_ORDER_HINT),
        case("the order: a module with a parameter of its own (scale) and a child (inner)",
             _observe_apply_visits, seed, "scaled", hint=_ORDER_HINT),
        case("model.double(): dtypes and identities", _observe_conversion, seed, "double", hint=_IDENTITY_HINT),
        case("model.half(): the values are really rounded", _observe_conversion, random_seed(rng), "half",
             hint=_IDENTITY_HINT),
        case("model.to(torch.float64)", _observe_conversion, random_seed(rng), "to(torch.float64)", hint=_IDENTITY_HINT),
        case("recurse=False converts only the module's own tensors", _observe_recurse_false, random_seed(rng),
             hint="with recurse=False, skip the loop over the children."),
        case("None entries: a Linear without bias, a BatchNorm without running stats, no .grad yet",
             _observe_none_entries, random_seed(rng),
             hint="a parameter, a buffer or a .grad may be None: skip it (fn expects a tensor)."),
        case("inside glasstorch: an optimizer built before .double() still trains the model",
             _observe_optimizer, rng.standard_normal((4, 2)).astype(np.float32), hint=_IDENTITY_HINT),
    ]


exercise(
    id="11._apply",
    entry="_apply",
    title="Module._apply: convert every parameter, .grad and buffer in place",
    cases=_convert_cases,
    reference=nn.Module._apply,
    hint="three loops: recurse into the children; for each parameter, `param.data = fn(param)` (under "
         "no_grad) and the same for its .grad; for each buffer, `self._buffers[key] = fn(buf)`. Skip "
         "None entries and return self.",
)


# -- 11.train -------------------------------------------------------------------------------------

class _FrozenBatchNorm1d(nn.BatchNorm1d):
    """A BatchNorm that overrides ``train`` to stay in evaluation mode whatever it is told: a
    parent's ``train()`` must call it, not set the flag behind its back."""

    def train(self, mode: bool = True) -> nn.Module:
        return super().train(False)


def _observe_flags(train: Callable, model_name: str) -> dict:
    model = _APPLY_MODELS[model_name]()
    flags = {"new": [m.training for m in model.modules()]}
    returned = model.eval()
    flags["model.eval()"] = [m.training for m in model.modules()]
    if isinstance(model, nn.Sequential) and len(model) > 2:
        model[2].train()
        flags["model[2].train()"] = [m.training for m in model.modules()]
    model.train()
    flags["model.train()"] = [m.training for m in model.modules()]
    flags["eval() returned the model itself"] = returned is model
    return flags


def _observe_bad_mode(train: Callable, mode: Any) -> list:
    model = _nested()
    model.train(mode)
    return [m.training for m in model.modules()]


def _observe_layers(train: Callable, seed: int, x: np.ndarray) -> dict:
    """Dropout and BatchNorm, deep in a model, follow ``model.eval()`` and ``model.train()``."""
    model = seeded(seed, lambda: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(),
                                               nn.Sequential(nn.Dropout(0.5), nn.Linear(4, 2))))
    inputs = glasstorch.from_numpy(x)
    observed = {}
    model.eval()
    with glasstorch.no_grad():
        glasstorch.manual_seed(seed)
        observed["eval: output"] = model(inputs)
        glasstorch.manual_seed(seed + 1)  # another seed: in eval mode nothing random may happen
        observed["eval: the same output again"] = model(inputs)
        observed["eval: running_mean (unchanged)"] = model[1].running_mean.clone()
        model.train()
        glasstorch.manual_seed(seed)
        observed["train: output (dropout on, batch statistics)"] = model(inputs)
        observed["train: running_mean (updated)"] = model[1].running_mean.clone()
        observed["train: num_batches_tracked"] = model[1].num_batches_tracked.item()
    return observed


def _observe_override(train: Callable, seed: int) -> dict:
    model = seeded(seed, lambda: nn.Sequential(nn.Linear(2, 2), _FrozenBatchNorm1d(2), nn.ReLU()))
    names = module_names(model)
    model.eval()
    model.train()
    return {f"{name_}.training ({type(m).__name__})": m.training for m, name_ in names.items()}


def _train_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "train")

    check_hint = ("check the argument first: `if not isinstance(mode, bool): raise ValueError(\"training "
                  "mode is expected to be boolean\")`. A string like \"False\" is truthy, and 0 == False "
                  "in Python but 0 is not a bool.")
    return [
        case("flags of every module: new, model.eval(), model[2].train(), model.train()", _observe_flags,
             "nested: Sequential(Linear, ReLU, Sequential(Dropout, Linear))",
             hint="set self.training, then call `module.train(mode)` on each child, so the call reaches "
                  "every module of the subtree; return self."),
        case("a single Linear: eval() and train()", _observe_flags, "one Linear (no children)"),
        case("train('False') is refused", _observe_bad_mode, "False", hint=check_hint),
        case("train(0) is refused", _observe_bad_mode, 0, hint=check_hint),
        case("train(None) is refused", _observe_bad_mode, None, hint=check_hint),
        case("inside glasstorch: Dropout and BatchNorm follow model.eval() and model.train()", _observe_layers,
             random_seed(rng), rng.standard_normal((6, 3)).astype(np.float32),
             hint="every module of the tree must get the flag, the Dropout nested two levels down too."),
        case("a child that overrides train() to stay in evaluation mode", _observe_override, random_seed(rng),
             hint="recurse by *calling* `module.train(mode)` on each child: a subclass may override "
                  "train(), and setting `m.training` directly would bypass it."),
    ]


exercise(
    id="11.train",
    entry="train",
    title="Module.train: one flag, set in every module of the tree",
    cases=_train_cases,
    reference=nn.Module.train,
    hint="check that mode is a bool (ValueError otherwise), set self.training = mode, call "
         "module.train(mode) for each child in self.children(), and return self.",
)
