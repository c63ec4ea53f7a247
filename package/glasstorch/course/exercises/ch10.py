"""Chapter 10 exercises: the walks over the module tree. ``named_modules`` (depth first, a memo set
shared by the whole walk, dotted prefixes), ``_named_members`` (the one traversal behind
``named_parameters`` and ``named_buffers``) and ``__repr__`` (with ``extra_repr`` and
``_addindent``).

The learner writes each as a plain function of ``self``, and every case runs it installed on
``nn.Module``: the recursive calls ``child.named_modules(...)`` and ``repr(child)`` then reach the
learner's code too, and so do the package's methods built on it (``parameters()``, the optimizer,
``ModuleList``'s repr). The last case of each exercise trains or prints chapter 10's classifier.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch import nn

from ..checking import Case, exercise, replaced
from ._harness import random_seed
from .ch09 import Classifier, classification_data, trained_classifier_facts

# -- the chapter's models, by name (a case's inputs are plain data: the name) -------------------


def _sequential_twice() -> nn.Module:
    layer = nn.Linear(2, 2)
    return nn.Sequential(layer, layer)


def _autoencoder() -> nn.Module:
    shared = nn.Linear(4, 4)
    return nn.Sequential(OrderedDict(encoder=nn.Sequential(nn.Linear(8, 4), shared),
                                     decoder=nn.Sequential(shared, nn.Linear(4, 8))))


def _tied() -> nn.Module:
    tied = nn.Sequential(nn.Linear(1, 1, bias=False), nn.Linear(1, 1, bias=False))
    tied[1].weight = tied[0].weight  # one Parameter in two layers
    with glasstorch.no_grad():
        tied[0].weight.fill_(2.0)
    return tied


def _with_placeholder() -> nn.Module:
    m = nn.Module()
    m.first = nn.Linear(2, 2)
    m.add_module("gap", None)
    m.last = nn.Sequential(nn.ReLU(), nn.Linear(2, 1, bias=False))
    return m


def _contains_itself() -> nn.Module:
    m = nn.Module()
    m.fc = nn.Linear(2, 2)
    m.me = m
    return m


MODELS: dict[str, Callable[[], nn.Module]] = {
    "the chapter's classifier": Classifier,
    "the classifier's blocks (a ModuleList)": lambda: Classifier().blocks,
    "Sequential(l, l): one Linear registered twice": _sequential_twice,
    "the autoencoder: a layer shared by encoder and decoder": _autoencoder,
    "tied weights: one Parameter in two Linear layers": _tied,
    "a None placeholder between two children": _with_placeholder,
    "a module that contains itself": _contains_itself,
}


def _build(model: str) -> nn.Module:
    glasstorch.manual_seed(0)
    return MODELS[model]()


# -- 10.named_modules -----------------------------------------------------------------------------

def _observe_walk(named_modules: Callable, model: str, options: dict) -> list:
    """[dotted name, class name] for each module the walk yields, with the learner's method
    installed, so that the recursive calls run it too."""
    module = _build(model)
    with replaced(nn.Module, "named_modules", named_modules):
        return [[name, type(m).__name__] for name, m in module.named_modules(**options)]


def _walks_in_package(named_modules: Callable, x: np.ndarray, labels: np.ndarray) -> dict:
    with replaced(nn.Module, "named_modules", named_modules):
        facts = {"classifier": trained_classifier_facts(x, labels)}
        autoencoder = _build("the autoencoder: a layer shared by encoder and decoder")
        facts["autoencoder: classes of modules()"] = [type(m).__name__ for m in autoencoder.modules()]
        facts["autoencoder: len(list(parameters()))"] = len(list(autoencoder.parameters()))
    return facts


def _named_modules_cases(rng: np.random.Generator) -> list[Case]:
    def walk(model: str, hint: str | None = None, **options: Any) -> Case:
        shown = ", ".join(f"{key}={value!r}" for key, value in options.items())
        return Case(f"{model}: named_modules({shown})", (model, options), observe=_observe_walk, hint=hint)

    shared = ("the memo set must be created once, by the outermost call, and passed down to every "
              "recursive call: a module already yielded anywhere in the walk is skipped, not only "
              "one already yielded by the same parent.")
    return [
        walk("the chapter's classifier",
             hint="pre-order: yield (prefix, self) first, then each child's whole walk, in the order of "
                  "_modules; a child's prefix is prefix + '.' + name, or just name when prefix is ''."),
        walk("the classifier's blocks (a ModuleList)", prefix="blocks"),
        walk("Sequential(l, l): one Linear registered twice", hint=shared),
        walk("the autoencoder: a layer shared by encoder and decoder", hint=shared),
        walk("the autoencoder: a layer shared by encoder and decoder", remove_duplicate=False,
             hint="with remove_duplicate=False nothing is added to the memo, so every path is followed "
                  "and a shared module is yielded under each of its names."),
        walk("a None placeholder between two children",
             hint="a child registered as None is a placeholder: skip it."),
        walk("a module that contains itself",
             hint="the memo also guards against cycles: the module is in the memo before its children "
                  "are walked, so reaching it again yields nothing."),
        Case("inside glasstorch: train the classifier (parameters() walks with your named_modules)",
             classification_data(rng), observe=_walks_in_package),
    ]


exercise(
    id="10.named_modules",
    entry="named_modules",
    title="named_modules: the whole tree, depth first, each module once",
    cases=_named_modules_cases,
    reference=nn.Module.named_modules,
    hint="if memo is None, make a new set; if self is not in memo: add it (when remove_duplicate), "
         "yield (prefix, self), then for each (name, child) of self._modules that is not None, yield "
         "from child.named_modules(memo, dotted_prefix, remove_duplicate).",
)


# -- 10.named_members -----------------------------------------------------------------------------

def _linear_children(module: nn.Module) -> Any:
    """The chapter's own get_members_fn: a module's children that are Linear layers."""
    return ((name, child) for name, child in module._modules.items() if isinstance(child, nn.Linear))


def _parameter_names(model: nn.Module, **options: Any) -> list:
    return [[name, list(p.shape)] for name, p in model.named_parameters(**options)]


def _observe_members(named_members: Callable, model: str, what: str, options: dict) -> list:
    module = _build(model)
    if what == "buffers of blocks[0].bn":
        module = module.blocks[0].bn
    with replaced(nn.Module, "_named_members", named_members):
        if what == "parameters":
            return _parameter_names(module, **options)
        if what.startswith("buffers"):
            return [[name, str(b.dtype)] for name, b in module.named_buffers(**options)]
        return [[name, type(child).__name__] for name, child in module._named_members(_linear_children, **options)]


def _members_in_package(named_members: Callable, x: np.ndarray, labels: np.ndarray) -> dict:
    """The tied model's SGD step and the classifier's training, with the learner's traversal."""
    with replaced(nn.Module, "_named_members", named_members):
        facts = {"classifier": trained_classifier_facts(x, labels)}
        tied = _build("tied weights: one Parameter in two Linear layers")
        tied(glasstorch.tensor([1.0])).backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            optimizer = glasstorch.optim.SGD(tied.parameters(), lr=0.1)
        optimizer.step()
        facts["tied: warnings from SGD(tied.parameters())"] = [str(w.message)[:60] for w in caught]
        facts["tied: weight after one SGD step (2 - 0.1 * 4)"] = tied[0].weight
    return facts


def _named_members_cases(rng: np.random.Generator) -> list[Case]:
    def members(model: str, what: str, hint: str | None = None, **options: Any) -> Case:
        shown = ", ".join(f"{key}={value!r}" for key, value in options.items())
        call = {"parameters": f"named_parameters({shown})", "buffers": f"named_buffers({shown})",
                "buffers of blocks[0].bn": f"blocks[0].bn.named_buffers({shown})",
                "Linear children": f"_named_members(linear_children{', ' + shown if shown else ''})"}[what]
        name = f"{model}: {call}"
        return Case(name, (model, what, options), observe=_observe_members, hint=hint)

    classifier, tied = "the chapter's classifier", "tied weights: one Parameter in two Linear layers"
    autoencoder = "the autoencoder: a layer shared by encoder and decoder"
    return [
        members(classifier, "parameters",
                hint="visit the modules of self.named_modules(prefix=prefix) in order; for each, the pairs "
                     "of get_members_fn(module), named module_prefix + '.' + k (or just k at the root)."),
        members(classifier, "buffers"),
        members(classifier, "parameters", prefix="model"),
        members(classifier, "parameters", recurse=False,
                hint="with recurse=False only the module itself is visited: the one pair (prefix, self)."),
        members(classifier, "buffers of blocks[0].bn", prefix="blocks.0.bn", recurse=False),
        members("a None placeholder between two children", "parameters",
                hint="skip members that are None (Linear(bias=False) registers its bias as None)."),
        members(tied, "parameters",
                hint="two distinct modules can hold the *same* Parameter: keep a memo of the members "
                     "already yielded (a set of its own, made fresh in each call), and skip them."),
        members(tied, "parameters", remove_duplicate=False,
                hint="with remove_duplicate=False, add nothing to the memo: every name is yielded."),
        members(autoencoder, "parameters", remove_duplicate=False,
                hint="pass remove_duplicate on to named_modules too: with False, the shared module is "
                     "visited under each of its names."),
        members(classifier, "Linear children",
                hint="get_members_fn can return anything with names: here a module's Linear children. "
                     "The order follows the modules visited, then the pairs within each."),
        Case("inside glasstorch: the tied model's SGD step and the classifier's training",
             classification_data(rng), observe=_members_in_package,
             hint="the optimizer gets its list from parameters(): a Parameter listed twice is stepped "
                  "twice (and SGD warns about it)."),
    ]


exercise(
    id="10.named_members",
    entry="named_members",
    title="_named_members: one traversal for parameters and buffers",
    cases=_named_members_cases,
    reference=nn.Module._named_members,
    hint="memo = set(); modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) "
         "if recurse else [(prefix, self)]; for each module, for each (k, v) of get_members_fn(module): "
         "skip None and members in memo, add v to memo when remove_duplicate, yield the dotted name and v.",
)


# -- 10.module_repr -------------------------------------------------------------------------------

class Scale(nn.Module):
    """The chapter's module with a setting and an extra_repr."""

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def extra_repr(self) -> str:
        return f"factor={self.factor}"


class Residual(nn.Module):
    """The chapter's module with a setting *and* a child."""

    def __init__(self, block: nn.Module, scale: float = 1.0) -> None:
        super().__init__()
        self.block = block
        self.scale = scale

    def extra_repr(self) -> str:
        return f"scale={self.scale}"


class TwoLines(nn.Module):
    def extra_repr(self) -> str:
        return "first setting\nsecond setting"


class WithBlankLine(nn.Module):
    def extra_repr(self) -> str:
        return "before a blank line\n\nafter it"


class FastLinear(nn.Linear):
    """The chapter's module that prints under another name."""

    def _get_name(self) -> str:
        return "FastLinear(fused)"


PRINTED: dict[str, Callable[[], nn.Module]] = {
    "nn.Module(): nothing to show": nn.Module,
    "Linear: one line of extra_repr": lambda: nn.Linear(2, 3),
    "Sequential(Linear, ReLU): two children": lambda: nn.Sequential(nn.Linear(2, 2), nn.ReLU()),
    "Residual: an extra_repr and a child, nested": lambda: nn.Sequential(
        Scale(0.5), Residual(nn.Sequential(nn.Linear(2, 2), Scale(2.0)), scale=0.1)),
    "TwoLines: an extra_repr of two lines": TwoLines,
    "TwoLines as a child": lambda: nn.Sequential(TwoLines(), nn.ReLU()),
    "a blank line in a child's extra_repr": lambda: nn.Sequential(WithBlankLine()),
    "FastLinear: _get_name overridden": lambda: nn.Sequential(FastLinear(2, 3)),
    "a None placeholder child": _with_placeholder,
}


def _observe_repr(module_repr: Callable, model: str) -> list:
    """The lines of ``repr(model)`` with the learner's ``__repr__`` installed."""
    glasstorch.manual_seed(0)
    module = PRINTED[model]()
    with replaced(nn.Module, "__repr__", module_repr):
        return repr(module).split("\n")


def _repr_in_package(module_repr: Callable) -> dict:
    glasstorch.manual_seed(0)
    model = Classifier()
    with replaced(nn.Module, "__repr__", module_repr):
        return {"str(model) (ModuleList folds its blocks with your repr)": str(model).split("\n"),
                "repr of a ModuleList of 3 Linear and a ReLU": repr(nn.ModuleList(
                    [nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU()])).split("\n")}


def _random_model(seed: int) -> nn.Module:
    """A tree drawn from ``seed``: Sequentials, Residuals, Linear layers of random sizes, Scales,
    TwoLines and activations, nested two or three levels deep."""
    rng = np.random.default_rng(seed)

    def leaf() -> nn.Module:
        size = lambda: int(rng.integers(1, 9))  # noqa: E731
        makers = [lambda: nn.Linear(size(), size(), bias=bool(rng.random() < 0.7)), nn.ReLU, nn.Tanh,
                  lambda: Scale(round(float(rng.uniform(0.1, 3.0)), 2)), TwoLines]
        return makers[int(rng.integers(len(makers)))]()

    def block(depth: int) -> nn.Module:
        children = [block(depth - 1) if depth and rng.random() < 0.4 else leaf()
                    for _ in range(int(rng.integers(1, 4)))]
        if rng.random() < 0.3:
            return Residual(nn.Sequential(*children), scale=round(float(rng.uniform(0.1, 1.0)), 2))
        return nn.Sequential(*children)

    glasstorch.manual_seed(0)
    return block(int(rng.integers(2, 4)))


def _observe_random_repr(module_repr: Callable, seed: int) -> list:
    module = _random_model(seed)
    with replaced(nn.Module, "__repr__", module_repr):
        return repr(module).split("\n")


def _repr_cases(rng: np.random.Generator) -> list[Case]:
    hints = {
        "Linear: one line of extra_repr": "one extra_repr line and no children: everything on one line, "
                                          "Linear(in_features=2, ...).",
        "Sequential(Linear, ReLU): two children": "each child gives a line '(key): ' + its repr; the lines "
                                                  "go between 'Name(' and ')', each after a newline and two spaces.",
        "Residual: an extra_repr and a child, nested": "extra_repr lines first, then the children. A child's "
                                                       "repr of several lines goes through _addindent(s, 2): "
                                                       "every line but the first gets two more spaces.",
        "TwoLines: an extra_repr of two lines": "split extra_repr() on '\\n': each line is an item of its own. "
                                                "Only a single extra line with no children stays inline.",
        "a blank line in a child's extra_repr": "_addindent leaves blank lines empty: a line whose strip() "
                                                "is '' becomes '' (no trailing spaces).",
        "FastLinear: _get_name overridden": "the name at the front is self._get_name(), which a subclass may "
                                            "override; not type(self).__name__.",
        "a None placeholder child": "every entry of _modules is printed, a None too: '(gap): None'.",
    }
    return [Case(model, (model,), observe=_observe_repr, hint=hints.get(model)) for model in PRINTED] + [
        Case("a model drawn from the grader's seed", (random_seed(rng),), observe=_observe_random_repr),
        Case("inside glasstorch: print the chapter's classifier and a ModuleList", (), observe=_repr_in_package,
             hint="ModuleList has its own __repr__, which calls repr() on each item (yours) and folds "
                  "runs of equal strings: your strings must be exact for the runs to match."),
    ]


exercise(
    id="10.module_repr",
    entry="module_repr",
    title="Module.__repr__: the tree as indented text",
    cases=_repr_cases,
    reference=nn.Module.__repr__,
    hint="extra_lines = extra_repr().split('\\n') if non-empty; child_lines = ['(' + key + '): ' + "
         "_addindent(repr(module), 2)]; with one extra line and no children: Name(extra); with any "
         "lines: 'Name(' + '\\n  ' + '\\n  '.join(lines) + '\\n' + ')'; with none: 'Name()'.",
)
